//! Parameter sweeps: the Cartesian product of model overrides × schemes × step sizes as a
//! deterministic list of cases, its slices for cluster job arrays (shards), and the sweep table with
//! one row per case.
//!
//! The order of the cases is fixed by the plan alone: the first variation varies slowest, then the
//! next, …, then the scheme, then the step size fastest. Case k of a plan is the same case on every
//! machine and for every number of threads, which is what makes shards mergeable and results
//! independent of `--jobs`.

use std::io::{Read, Write};

use crate::analysis::dynamic::ConstraintViolation;
use crate::io::summary::Summary;
use crate::study::error::StudyError;

/// One swept model path and its values, as TOML literals for an override `PATH=VALUE`.
#[derive(Debug, Clone, PartialEq)]
pub struct Variation {
    /// Dotted model path, as in `dynastep run --set` (e.g. `bodies.crank.mass`).
    pub path: String,
    /// The values, each a TOML literal.
    pub values: Vec<String>,
}

impl Variation {
    /// Parses `PATH=LIST` (comma-separated values) or `PATH=START:STOP:COUNT[:log]` (COUNT values
    /// from START to STOP inclusive, evenly or, with `:log`, geometrically spaced).
    ///
    /// # Errors
    /// A message quoting `spec` and the expected forms.
    pub fn parse(spec: &str) -> Result<Self, StudyError> {
        let usage = "expected PATH=V1,V2,… or PATH=START:STOP:COUNT[:log]";
        let (path, rhs) = spec
            .split_once('=')
            .ok_or_else(|| StudyError::Usage(format!("--vary `{spec}`: {usage}")))?;
        let path = path.trim();
        if path.is_empty() || rhs.trim().is_empty() {
            return Err(StudyError::Usage(format!("--vary `{spec}`: {usage}")));
        }
        let parts: Vec<&str> = rhs.split(':').map(str::trim).collect();
        let values = if parts.len() >= 3 && !rhs.contains(',') {
            range(&parts)
                .map_err(|e| StudyError::Usage(format!("--vary `{spec}`: {e}; {usage}")))?
        } else {
            rhs.split(',').map(|v| v.trim().to_string()).collect()
        };
        if values.iter().any(String::is_empty) {
            return Err(StudyError::Usage(format!(
                "--vary `{spec}`: an empty value; {usage}"
            )));
        }
        Ok(Variation {
            path: path.to_string(),
            values,
        })
    }
}

/// The values of `START:STOP:COUNT[:log]`, formatted as shortest round-trip numbers.
fn range(parts: &[&str]) -> Result<Vec<String>, StudyError> {
    let num = |s: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| StudyError::Usage(format!("`{s}` is not a finite number")))
    };
    let (a, b) = (num(parts[0])?, num(parts[1])?);
    let count: usize = parts[2]
        .parse()
        .ok()
        .filter(|&c| (2..=MAX_CASES).contains(&c))
        .ok_or_else(|| {
            StudyError::Usage(format!(
                "COUNT `{}` must be an integer from 2 to {MAX_CASES}",
                parts[2]
            ))
        })?;
    let log = match parts.get(3) {
        None => false,
        Some(&"log") => true,
        Some(other) => return Err(StudyError::Usage(format!("`{other}` is not `log`"))),
    };
    if parts.len() > 4 {
        return Err(StudyError::Usage("too many `:` fields".into()));
    }
    if log && !(a > 0.0 && b > 0.0) {
        return Err(StudyError::Usage(
            "a log range needs positive bounds".into(),
        ));
    }
    let values = (0..count).map(|k| {
        let s = k as f64 / (count - 1) as f64;
        if k == count - 1 {
            b
        } else if log {
            (a.ln() + s * (b.ln() - a.ln())).exp()
        } else {
            a + s * (b - a)
        }
    });
    Ok(values.map(|v| format!("{v:?}")).collect())
}

/// Most cases a sweep plan may hold: a million short runs is days of computing, and the plan's
/// table alone is held in memory; a larger product is almost always a typo in a range's COUNT.
pub const MAX_CASES: usize = 1_000_000;

/// What a sweep varies. An empty `schemes` or `dts` keeps the model's setting (one case).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepPlan {
    /// The swept model paths, slowest first.
    pub variations: Vec<Variation>,
    /// Schemes (registry names).
    pub schemes: Vec<String>,
    /// Step sizes \[s\].
    pub dts: Vec<f64>,
}

/// One case of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Position in the plan's product (0-based), the same for every shard and thread count.
    pub index: usize,
    /// `PATH=VALUE` overrides, one per variation, in the plan's order.
    pub overrides: Vec<String>,
    /// The values alone, one per variation.
    pub values: Vec<String>,
    /// Scheme, or the model's.
    pub scheme: Option<String>,
    /// Step size \[s\], or the model's.
    pub dt: Option<f64>,
}

impl SweepPlan {
    /// The number of cases, the product of the sizes of every variation, the schemes and the step
    /// sizes (saturating: never overflows).
    pub fn count(&self) -> usize {
        let sizes = self.variations.iter().map(|v| v.values.len());
        let sizes = sizes.chain([self.schemes.len().max(1), self.dts.len().max(1)]);
        sizes.fold(1usize, |n, k| n.saturating_mul(k))
    }

    /// Refuses a plan of more than [`MAX_CASES`] cases before any is built.
    ///
    /// # Errors
    /// A message with the count and the sizes that make it.
    pub fn check_size(&self) -> Result<(), StudyError> {
        let n = self.count();
        if n <= MAX_CASES {
            return Ok(());
        }
        let sizes: Vec<String> = self
            .variations
            .iter()
            .map(|v| format!("{} values of {}", v.values.len(), v.path))
            .chain([
                format!("{} schemes", self.schemes.len().max(1)),
                format!("{} step sizes", self.dts.len().max(1)),
            ])
            .collect();
        Err(StudyError::TooLarge(format!(
            "the sweep has {n} cases ({}), more than the limit of {MAX_CASES}; fewer values or a coarser range",
            sizes.join(" × ")
        )))
    }

    /// Every case, in the plan's order (see the module documentation). Call
    /// [`SweepPlan::check_size`] first: this builds them all.
    pub fn cases(&self) -> Vec<Case> {
        let schemes: Vec<Option<String>> = if self.schemes.is_empty() {
            vec![None]
        } else {
            self.schemes.iter().cloned().map(Some).collect()
        };
        let dts: Vec<Option<f64>> = if self.dts.is_empty() {
            vec![None]
        } else {
            self.dts.iter().copied().map(Some).collect()
        };
        let mut combos: Vec<Vec<String>> = vec![Vec::new()];
        for v in &self.variations {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    v.values.iter().map(move |x| {
                        let mut c = c.clone();
                        c.push(x.clone());
                        c
                    })
                })
                .collect();
        }
        let mut cases = Vec::new();
        for values in &combos {
            for scheme in &schemes {
                for &dt in &dts {
                    cases.push(Case {
                        index: cases.len(),
                        overrides: self
                            .variations
                            .iter()
                            .zip(values)
                            .map(|(v, x)| format!("{}={x}", v.path))
                            .collect(),
                        values: values.clone(),
                        scheme: scheme.clone(),
                        dt,
                    });
                }
            }
        }
        cases
    }
}

/// Parses `K/N` (1 ≤ K ≤ N) of `--shard`: the K-th of N slices, counted from 1 as job-array task
/// ids usually are.
///
/// # Errors
/// A message quoting `spec`.
pub fn parse_shard(spec: &str) -> Result<(usize, usize), StudyError> {
    let parsed = spec
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if 1 <= k && k <= n => Ok((k, n)),
        _ => Err(StudyError::Usage(format!(
            "--shard `{spec}`: expected K/N with 1 ≤ K ≤ N, e.g. 2/8 (K from a job array's task id)"
        ))),
    }
}

/// The cases of shard `k` of `n` (1-based): every case whose index is k − 1 modulo n, so that the
/// shards of a plan whose cost grows along one dimension get similar loads.
pub fn shard(cases: Vec<Case>, k: usize, n: usize) -> Vec<Case> {
    cases.into_iter().filter(|c| c.index % n == k - 1).collect()
}

/// One row of the sweep table: the case and what its run gave.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRow {
    /// The case's index in the plan.
    pub index: usize,
    /// Scheme as run (registry name) or as asked when the run could not start.
    pub scheme: String,
    /// Step size \[s\] (the first step of an adaptive run; 0 if chosen automatically).
    pub dt: f64,
    /// The swept values, one per variation.
    pub values: Vec<String>,
    /// `completed`, `stopped`, `interrupted`, `failed` (midway) or `error` (could not start).
    pub status: String,
    /// Time reached \[s\] (NaN for `error`).
    pub t_reached: f64,
    /// Accepted and rejected steps.
    pub steps: u64,
    /// Rejected steps.
    pub rejected_steps: u64,
    /// Newton iterations.
    pub newton_iterations: u64,
    /// Largest |E − E₀ − W_nc| \[J\].
    pub max_energy_error: f64,
    /// Largest constraint violations.
    pub max_violation: ConstraintViolation,
    /// Why the run failed or could not start (empty otherwise).
    pub reason: String,
}

impl CaseRow {
    /// The row of a run that completed or failed midway, from its summary.
    pub fn from_summary(case: &Case, s: &Summary) -> Self {
        CaseRow {
            index: case.index,
            scheme: s.scheme.clone(),
            dt: s.dt,
            values: case.values.clone(),
            status: s.status.clone(),
            t_reached: s.final_state.t,
            steps: s.steps,
            rejected_steps: s.rejected_steps,
            newton_iterations: s.newton_iterations.total,
            max_energy_error: s.max_energy_error,
            max_violation: s.max_constraint_violation,
            reason: s.reason.clone().unwrap_or_default(),
        }
    }

    /// The row of a case that could not start (bad override, unknown scheme, failed assembly); a
    /// multi-line message is kept on one line (see [`one_line`]).
    pub fn error(case: &Case, reason: String) -> Self {
        Self::not_run(case, "error", one_line(&reason))
    }

    /// The row of a case that a signal (Ctrl-C, SIGTERM) kept from starting: status
    /// `interrupted`, nothing reached.
    pub fn interrupted(case: &Case) -> Self {
        Self::not_run(case, "interrupted", "interrupted before it started".into())
    }

    /// The row of a case that did not run, with `status` and `reason`.
    fn not_run(case: &Case, status: &str, reason: String) -> Self {
        CaseRow {
            index: case.index,
            scheme: case.scheme.clone().unwrap_or_default(),
            dt: case.dt.unwrap_or(f64::NAN),
            values: case.values.clone(),
            status: status.into(),
            t_reached: f64::NAN,
            steps: 0,
            rejected_steps: 0,
            newton_iterations: 0,
            max_energy_error: f64::NAN,
            max_violation: ConstraintViolation {
                position: f64::NAN,
                velocity: f64::NAN,
                acceleration: f64::NAN,
            },
            reason,
        }
    }
}

/// A diagnostic on one line for a table cell: its message and help lines joined with "; ", without
/// the source excerpt and caret lines that point into the model text.
pub fn one_line(message: &str) -> String {
    let excerpt = |t: &str| {
        t.starts_with('|')
            || t.starts_with('^')
            || t.split_once(" |")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
    };
    message
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty() && !excerpt(t))
        .map(|t| t.trim_start_matches("= "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The fixed columns of the sweep table after `case` and the variation paths.
const COLUMNS: [&str; 11] = [
    "scheme",
    "dt",
    "status",
    "t_reached",
    "steps",
    "rejected_steps",
    "newton_iterations",
    "max_energy_error",
    "max_violation_position",
    "max_violation_velocity",
    "max_violation_acceleration",
];

/// Writes the sweep table: header `case`, the variation paths, `scheme`, `dt`, `status`, `t_reached`,
/// `steps`, `rejected_steps`, `newton_iterations`, `max_energy_error`, `max_violation_position`,
/// `max_violation_velocity`, `max_violation_acceleration`, `reason`; rows sorted
/// by case index. Numbers are written as shortest round-trip decimals, so the table of a plan is
/// the same bytes whatever the number of threads or shards that computed it.
///
/// # Errors
/// Any error of the writer.
pub fn write_table<W: Write>(paths: &[String], rows: &[CaseRow], out: W) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header = vec!["case".to_string()];
    header.extend(paths.iter().cloned());
    header.extend(COLUMNS.iter().map(|c| c.to_string()));
    header.push("reason".into());
    w.write_record(&header)?;
    let mut sorted: Vec<&CaseRow> = rows.iter().collect();
    sorted.sort_by_key(|r| r.index);
    for r in sorted {
        let num = |x: f64| format!("{x:?}");
        let v = &r.max_violation;
        let mut rec = vec![r.index.to_string()];
        rec.extend(r.values.iter().cloned());
        rec.extend([
            r.scheme.clone(),
            num(r.dt),
            r.status.clone(),
            num(r.t_reached),
            r.steps.to_string(),
            r.rejected_steps.to_string(),
            r.newton_iterations.to_string(),
            num(r.max_energy_error),
            num(v.position),
            num(v.velocity),
            num(v.acceleration),
            r.reason.clone(),
        ]);
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}

/// The file name of shard `k` of `n`: `sweep-shard-K-of-N.csv`.
pub fn shard_file_name(k: usize, n: usize) -> String {
    format!("sweep-shard-{k}-of-{n}.csv")
}

/// (K, N) of a file named `sweep-shard-K-of-N.csv` with 1 ≤ K ≤ N, else `None`.
pub fn parse_shard_file_name(name: &str) -> Option<(usize, usize)> {
    let (k, n) = name
        .strip_prefix("sweep-shard-")?
        .strip_suffix(".csv")?
        .split_once("-of-")?;
    let (k, n) = (k.parse().ok()?, n.parse().ok()?);
    (1 <= k && k <= n).then_some((k, n))
}

/// The shard (K, N) of every file name, checked as a set: each is named `sweep-shard-K-of-N.csv`,
/// all have the same N, and every K from 1 to N is there.
///
/// # Errors
/// [`StudyError::Merge`] naming the file with another name, the differing counts, or the missing
/// shards.
pub fn check_shard_set(names: &[String]) -> Result<Vec<(usize, usize)>, StudyError> {
    let mut shards = Vec::with_capacity(names.len());
    for name in names {
        let kn = parse_shard_file_name(name).ok_or_else(|| {
            StudyError::Merge(format!(
                "`{name}` is not named sweep-shard-K-of-N.csv with 1 ≤ K ≤ N; move it out of the folder or rename it"
            ))
        })?;
        shards.push(kn);
    }
    let Some(&(_, n)) = shards.first() else {
        return Err(StudyError::Merge("no shard tables to merge".into()));
    };
    if let Some((i, &(_, other))) = shards.iter().enumerate().find(|(_, s)| s.1 != n) {
        return Err(StudyError::Merge(format!(
            "`{}` is one of {other} shards, `{}` one of {n}: the tables come from different sweeps; merge one sweep's shards at a time",
            names[i], names[0]
        )));
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !shards.iter().any(|s| s.0 == *k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(StudyError::Merge(format!(
            "shard(s) {} of {n} missing; run them (`--shard K/{n}`) into the same folder before merging",
            missing.join(", ")
        )));
    }
    Ok(shards)
}

/// Merges the tables of a sharded sweep: `shards` are (file name, contents) of every
/// `sweep-shard-K-of-N.csv` (see [`check_shard_set`]). One header (all must agree), every row in
/// the shard its case index belongs to ([`shard`]), no case twice; rows sorted by case index.
/// Returns the merged CSV text.
///
/// # Errors
/// [`StudyError::Merge`] naming the file that is misnamed, missing, of another sweep (other
/// columns, another shard count, or a case that belongs elsewhere), or unreadable.
pub fn merge_shards<R: Read>(shards: Vec<(String, R)>) -> Result<String, StudyError> {
    let names: Vec<String> = shards.iter().map(|(n, _)| n.clone()).collect();
    let kn = check_shard_set(&names)?;
    let mut header: Option<csv::StringRecord> = None;
    let mut rows: std::collections::BTreeMap<usize, csv::StringRecord> = Default::default();
    for ((source, input), (k, n)) in shards.into_iter().zip(kn) {
        let mut reader = csv::Reader::from_reader(input);
        let h = reader
            .headers()
            .map_err(|e| StudyError::Merge(format!("{source}: {e}")))?
            .clone();
        match &header {
            Some(first) if *first != h => {
                return Err(StudyError::Merge(format!(
                "{source}: its columns differ from the other tables' (a shard of another sweep?)"
            )))
            }
            _ => header = Some(h),
        }
        for rec in reader.records() {
            let rec = rec.map_err(|e| StudyError::Merge(format!("{source}: {e}")))?;
            let index = shard_row_index(&source, &rec, k, n)?;
            if rows.insert(index, rec).is_some() {
                return Err(StudyError::Merge(format!(
                    "{source}: case {index} is also in another table (a shard of another sweep?)"
                )));
            }
        }
    }
    let header = header.ok_or_else(|| StudyError::Merge("no tables to merge".into()))?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header)
        .map_err(|e| StudyError::Merge(e.to_string()))?;
    for rec in rows.values() {
        w.write_record(rec)
            .map_err(|e| StudyError::Merge(e.to_string()))?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| StudyError::Merge(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| StudyError::Merge(e.to_string()))
}

/// The case index of a row of shard `k` of `n` read from `source`, which must belong to it.
fn shard_row_index(
    source: &str,
    rec: &csv::StringRecord,
    k: usize,
    n: usize,
) -> Result<usize, StudyError> {
    let index: usize = rec
        .get(0)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| StudyError::Merge(format!("{source}: a row without a case index")))?;
    if index % n != k - 1 {
        return Err(StudyError::Merge(format!(
            "{source}: case {index} does not belong to shard {k} of {n} (a shard of another sweep, or a renamed file)"
        )));
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard table of `n` with the given case indices.
    fn table(indices: &[usize]) -> String {
        let mut t = String::from("case,scheme\n");
        for i in indices {
            t.push_str(&format!("{i},gen-alpha\n"));
        }
        t
    }

    #[test]
    fn merging_refuses_what_is_not_one_whole_sweep() {
        let merge = |files: &[(&str, String)]| {
            let v = files
                .iter()
                .map(|(n, t)| (n.to_string(), t.as_bytes()))
                .collect();
            merge_shards(v).map_err(|e| e.to_string())
        };
        let one = ("sweep-shard-1-of-2.csv", table(&[0, 2]));
        let two = ("sweep-shard-2-of-2.csv", table(&[1, 3]));
        let merged = merge(&[one.clone(), two.clone()]).unwrap();
        assert_eq!(merged, table(&[0, 1, 2, 3]));
        let e = merge(std::slice::from_ref(&one)).unwrap_err();
        assert!(e.contains("shard(s) 2 of 2 missing"), "{e}");
        let e = merge(&[one.clone(), ("sweep-shard-2-of-3.csv", table(&[1]))]).unwrap_err();
        assert!(e.contains("different sweeps"), "{e}");
        let e = merge(&[one.clone(), ("sweep-shard-two-of-2.csv", table(&[1]))]).unwrap_err();
        assert!(e.contains("is not named"), "{e}");
        let e = merge(&[one.clone(), ("sweep-shard-2-of-2.csv", table(&[1, 4]))]).unwrap_err();
        assert!(e.contains("case 4 does not belong to shard 2 of 2"), "{e}");
        let other = ("sweep-shard-2-of-2.csv", "case,dt\n1,0.1\n".to_string());
        let e = merge(&[one, other]).unwrap_err();
        assert!(e.contains("columns differ"), "{e}");
        assert_eq!(parse_shard_file_name(&shard_file_name(3, 8)), Some((3, 8)));
        assert_eq!(parse_shard_file_name("sweep-shard-9-of-8.csv"), None);
    }

    #[test]
    fn variations_parse_lists_and_ranges() {
        let v = Variation::parse("bodies.crank.mass=1,2.5,4").unwrap();
        assert_eq!(v.path, "bodies.crank.mass");
        assert_eq!(v.values, ["1", "2.5", "4"]);
        let v = Variation::parse("solver.params.rho_inf=0:1:5").unwrap();
        assert_eq!(v.values, ["0.0", "0.25", "0.5", "0.75", "1.0"]);
        let v = Variation::parse("x=1e-4:1e-2:3:log").unwrap();
        let got: Vec<f64> = v.values.iter().map(|s| s.parse().unwrap()).collect();
        assert!((got[1] - 1e-3).abs() < 1e-18 && got[2] == 1e-2);
        for bad in [
            "x",
            "=1,2",
            "x=1:2:1",
            "x=0:1:3:log",
            "x=1:2:3:lin",
            "x=1,,2",
        ] {
            assert!(Variation::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_plan_beyond_the_case_limit_is_refused_before_it_is_built() {
        assert!(Variation::parse("x=0:1:1000000000").is_err());
        let plan = SweepPlan {
            variations: vec![
                Variation::parse("a=0:1:1000").unwrap(),
                Variation::parse("b=0:1:1000").unwrap(),
                Variation::parse("c=0:1:1000").unwrap(),
            ],
            schemes: Vec::new(),
            dts: Vec::new(),
        };
        assert_eq!(plan.count(), 1_000_000_000);
        let err = plan.check_size().unwrap_err();
        assert!(matches!(err, StudyError::TooLarge(_)));
        let err = err.to_string();
        assert!(err.contains("1000000000 cases"), "{err}");
    }

    #[test]
    fn cases_are_the_product_in_plan_order_and_shards_partition_them() {
        let plan = SweepPlan {
            variations: vec![
                Variation::parse("a=1,2").unwrap(),
                Variation::parse("b=x,y,z").unwrap(),
            ],
            schemes: vec!["s1".into(), "s2".into()],
            dts: vec![0.1, 0.01],
        };
        let cases = plan.cases();
        assert_eq!(cases.len(), 2 * 3 * 2 * 2);
        assert_eq!(cases[0].overrides, ["a=1", "b=x"]);
        assert_eq!(cases[1].dt, Some(0.01));
        assert_eq!(cases[2].scheme.as_deref(), Some("s2"));
        assert_eq!(cases[4].overrides, ["a=1", "b=y"]);
        assert_eq!(cases[12].overrides, ["a=2", "b=x"]);
        let mut seen: Vec<usize> = (1..=5)
            .flat_map(|k| shard(cases.clone(), k, 5))
            .map(|c| c.index)
            .collect();
        seen.sort();
        assert_eq!(seen, (0..cases.len()).collect::<Vec<_>>());
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        for bad in ["0/3", "4/3", "a/3", "3"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn diagnostics_fit_on_one_line() {
        let message = "f.toml:4:6: error: body `a`: mass must be positive\n  |\n4 | mass=-1.0\n  |      ^^^^\n  = help: give the mass in kg\n";
        assert_eq!(
            one_line(message),
            "f.toml:4:6: error: body `a`: mass must be positive; help: give the mass in kg"
        );
    }
}
