//! Comparing methods on one model: every scheme (× formulation) at every step size or tolerance,
//! its error against a reference and its cost — the data of a work–precision diagram
//! (Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*, §IV.10).
//!
//! # Error measure
//! At the output samples common to a run and the reference (times equal to 1e-9 of the span), the
//! absolute differences of the selected columns ([`Quantity::Columns`], shell-style patterns such as
//! `crank.theta` or `*.x`) are reduced by [`ErrorMeasure`]: the largest at the last common sample
//! (`end`), the largest over all samples (`max`), or the root mean square over samples and columns
//! (`rms`). [`Quantity::Energy`] needs no reference: the error is the run's own energy balance
//! |E − E₀ − W_nc| (column `energy.balance`), reduced the same way.
//!
//! # Reference
//! [`auto_reference`] runs the model with the first scheme of [`AUTO_REFERENCE`] that completes:
//! for a sweep of fixed steps, at a fixed step of 1/8 of the finest one; for a sweep of
//! tolerances, adaptively at rtol = atol = 1/100 of the finest (error per step). It also runs at
//! 1/4 of the finest step (1/10 of the finest tolerance) and reports the distance between the two,
//! divided by 3 for fixed steps (Richardson: every scheme's positions converge at order 2 on the
//! index-3 examples, as measured on Andrews' squeezer against the test-set value), as the
//! reference's own error ([`ReferenceRun::self_error`]); errors near it mean nothing.
//! MSSTC(5) comes first because, at equal step, its error on Andrews' squeezer is the smallest of
//! the registry's schemes (1.5e-8 rad at h = 6.25e-7 s, against 2.9e-8 for ESDIRK4(3)6L and
//! 3.5e-7 for generalized-α); fourth-order ESDIRKs at tight tolerances do not do better there, because
//! their positions converge at order 2 in index 3 and error per step is not proportional to the
//! tolerance. ESDIRK4(3)6L in stabilized index 2 comes last, for models whose singular
//! configurations stop the first two at a tight tolerance: the N = 40 chain at rtol 1e-10 over its
//! first 2 s, where MSSTC(5) in index 3 fails to converge at t = 0.72 s and generalized-α reaches
//! h_min, while ESDIRK4(3)6L in stabilized index 2 stays within 8.3e-7 m of the ADAMS file, whose
//! six printed digits bound its own accuracy.
//!
//! A run that fails is kept in the records with its status and reason and no error.

use crate::analysis::diagnostics::worst;
use crate::analysis::dynamic::{RunStatus, StopWhen};
use crate::analysis::simulation::{RunOptions, Simulation};
use crate::analysis::step_control::{StepControl, StepSettings};
use crate::io::history::{HistoryColumns, HistoryRecorder};
use crate::io::history_table::HistoryTable;
use crate::model::settings::MIN_RTOL;
use crate::model::Model;
use crate::scheme::SchemeParams;
use crate::study::error::StudyError;

/// The pairs of scheme and formulation (`None`: the model's) tried by [`auto_reference`], in
/// order.
pub const AUTO_REFERENCE: [(&str, Option<&str>); 3] = [
    ("msstc5", None),
    ("generalized-alpha", None),
    ("esdirk4-6", Some("stabilized-index2")),
];

/// How the differences at the samples are reduced to one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorMeasure {
    /// The largest difference at the last common sample.
    #[default]
    End,
    /// The largest difference over all common samples.
    Max,
    /// The root mean square over all common samples and columns.
    Rms,
}

impl ErrorMeasure {
    /// Reads `end`, `max` or `rms`.
    ///
    /// # Errors
    /// A message listing the three names.
    pub fn parse(s: &str) -> Result<Self, StudyError> {
        match s {
            "end" => Ok(Self::End),
            "max" => Ok(Self::Max),
            "rms" => Ok(Self::Rms),
            _ => Err(StudyError::Usage(format!(
                "`{s}` is not an error measure; use end, max or rms"
            ))),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::End => "end",
            Self::Max => "max",
            Self::Rms => "rms",
        }
    }
}

/// What is compared.
#[derive(Debug, Clone, PartialEq)]
pub enum Quantity {
    /// The history columns matching these patterns (see [`HistoryTable::matching`]), against the
    /// reference.
    Columns(Vec<String>),
    /// The run's energy balance |E − E₀ − W_nc| \[J\]; no reference is needed.
    Energy,
}

impl Quantity {
    /// A label for tables and charts.
    pub fn describe(&self) -> String {
        match self {
            Quantity::Columns(c) => c.join(", "),
            Quantity::Energy => "energy balance [J]".into(),
        }
    }
}

/// One method: a scheme with parameters, and a formulation (`None`: the model's).
#[derive(Debug, Clone, PartialEq)]
pub struct Method {
    /// Registry name of the scheme.
    pub scheme: String,
    /// Its parameters (empty: the defaults).
    pub params: SchemeParams,
    /// Registry name of the formulation, or `None` for the model's.
    pub formulation: Option<String>,
}

impl Method {
    /// The label of the method in tables and legends: `scheme`, then `(k=v, …)` and
    /// `/ formulation` when given.
    pub fn label(&self) -> String {
        let mut s = self.scheme.clone();
        if !self.params.is_empty() {
            let p: Vec<String> = self
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            s.push_str(&format!(" ({})", p.join(", ")));
        }
        if let Some(f) = &self.formulation {
            s.push_str(&format!(" / {f}"));
        }
        s
    }
}

/// The sweep: fixed step sizes, or tolerances of adaptive runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Sweep {
    /// Fixed steps of these sizes \[s\].
    Steps(Vec<f64>),
    /// Adaptive runs with rtol = atol = each of these.
    Tolerances(Vec<f64>),
}

impl Sweep {
    /// The values swept.
    pub fn values(&self) -> &[f64] {
        match self {
            Sweep::Steps(v) | Sweep::Tolerances(v) => v,
        }
    }

    /// `dt` or `rtol`.
    pub fn name(&self) -> &'static str {
        match self {
            Sweep::Steps(_) => "dt",
            Sweep::Tolerances(_) => "rtol",
        }
    }
}

/// The reference in use.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceRun {
    /// Its samples.
    pub table: HistoryTable,
    /// What it is, e.g. `esdirk4-6 at rtol = atol = 1e-10`, or the file name.
    pub description: String,
    /// The difference between the reference and a run at a 10× looser tolerance under the same
    /// measure (auto reference only): an estimate of the reference's own error.
    pub self_error: Option<f64>,
}

/// One run of the comparison.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Record {
    /// The method's label ([`Method::label`]).
    pub method: String,
    /// Scheme name.
    pub scheme: String,
    /// Formulation name.
    pub formulation: String,
    /// The swept value: step size \[s\] or rtol.
    pub value: f64,
    /// The error (see [`ErrorMeasure`]); NaN when the run failed.
    pub error: f64,
    /// Wall-clock time of the integration loop, without assembly and start-up \[s\].
    pub cpu_time_s: f64,
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps.
    pub rejected_steps: u64,
    /// Newton iterations (each one residual and, in full Newton, one factorization).
    pub newton_iterations: u64,
    /// `completed`, `failed`, `interrupted` (cut at a step boundary or not started), or `invalid`
    /// (the run could not start).
    pub status: String,
    /// Where and why a failed run stopped.
    pub note: String,
}

/// One run of `method` on `model` at the swept `value` (the model's own error control), its
/// record without an error and its history.
///
/// # Errors
/// [`StudyError::Run`] when the run cannot start.
pub(crate) fn run_kept(
    model: &Model,
    method: &Method,
    sweep: &Sweep,
    value: f64,
    interrupted: &dyn Fn() -> bool,
) -> Result<(Record, HistoryTable), StudyError> {
    run_one(model, method, sweep, value, None, interrupted).map(|o| (o.record, o.table))
}

/// The history and report of one run kept in memory.
struct Outcome {
    table: HistoryTable,
    record: Record,
}

/// Runs `model` with `method` at one swept `value`; the history is kept in memory.
///
/// `control` overrides the model's error control of adaptive runs (`None`: the model's).
fn run_one(
    model: &Model,
    method: &Method,
    sweep: &Sweep,
    value: f64,
    control: Option<StepControl>,
    interrupted: &dyn Fn() -> bool,
) -> Result<Outcome, StudyError> {
    let mut opts = RunOptions {
        scheme: Some(method.scheme.clone()),
        params: method.params.clone(),
        formulation: method.formulation.clone(),
        ..RunOptions::default()
    };
    match sweep {
        Sweep::Steps(_) => opts.dt = Some(value),
        Sweep::Tolerances(_) => {
            opts.step = StepSettings {
                rtol: Some(value),
                atol: Some(value),
                control,
                ..StepSettings::default()
            }
        }
    }
    let mut sim = Simulation::new(model, &opts).map_err(|e| StudyError::Run(e.to_string()))?;
    let mut recorder = HistoryRecorder::new(HistoryColumns::new(&sim.system, true, false));
    let report = sim.run(&mut [&mut recorder, &mut StopWhen(interrupted)]);
    let table = recorder.table;
    let (status, note) = match &report.status {
        RunStatus::Completed | RunStatus::Stopped { .. } => ("completed", String::new()),
        RunStatus::Interrupted { interrupted_at } => (
            "interrupted",
            format!("interrupted at t = {interrupted_at} s"),
        ),
        RunStatus::Failed { failed_at, reason } => {
            ("failed", format!("stopped at t = {failed_at} s: {reason}"))
        }
    };
    let record = Record {
        method: method.label(),
        scheme: method.scheme.clone(),
        formulation: sim.settings.formulation.to_string(),
        value,
        error: f64::NAN,
        cpu_time_s: report.wall_time_s,
        steps: report.steps,
        rejected_steps: report.rejected_steps,
        newton_iterations: report.newton.iterations,
        status: status.into(),
        note,
    };
    Ok(Outcome { table, record })
}

/// The error of `run` against `reference` (or of its own energy balance), reduced by `measure`.
///
/// # Errors
/// A message when a column pattern matches nothing, a column is missing from the reference, or the
/// two histories have no sample time in common.
pub fn error_of(
    run: &HistoryTable,
    reference: Option<&HistoryTable>,
    quantity: &Quantity,
    measure: ErrorMeasure,
) -> Result<f64, StudyError> {
    let (columns, reference): (Vec<usize>, &HistoryTable) = match (quantity, reference) {
        (Quantity::Energy, _) => {
            let i = run.index("energy.balance").ok_or_else(|| {
                StudyError::Measure(
                    "the history has no column energy.balance (a kinematic history has no energy)"
                        .into(),
                )
            })?;
            (vec![i], run)
        }
        (Quantity::Columns(patterns), Some(reference)) => {
            let mut cols = Vec::new();
            for p in patterns {
                let found = run.matching(p)?;
                if found.is_empty() {
                    return Err(StudyError::Measure(format!(
                        "no column of the history matches `{p}`"
                    )));
                }
                cols.extend(found);
            }
            (cols, reference)
        }
        (Quantity::Columns(_), None) => {
            return Err(StudyError::Measure(
                "a column error needs a reference".into(),
            ))
        }
    };
    let pairs: Vec<(usize, usize)> = columns
        .iter()
        .map(|&i| {
            let name = &run.names[i];
            reference
                .index(name)
                .map(|j| (i, j))
                .ok_or_else(|| StudyError::Measure(format!("the reference has no column `{name}`")))
        })
        .collect::<Result<_, _>>()?;
    let rows = common_rows(run.t(), reference.t());
    if rows.is_empty() {
        return Err(StudyError::Measure(
            "the run and the reference have no sample time in common".into(),
        ));
    }
    let energy = matches!(quantity, Quantity::Energy);
    let diff = |r: usize, s: usize, (i, j): (usize, usize)| {
        let d = run.columns[i][r] - if energy { 0.0 } else { reference.columns[j][s] };
        d.abs()
    };
    Ok(match measure {
        ErrorMeasure::End => {
            let (r, s) = rows[rows.len() - 1];
            pairs.iter().map(|&p| diff(r, s, p)).fold(0.0, worst)
        }
        ErrorMeasure::Max => rows
            .iter()
            .flat_map(|&(r, s)| pairs.iter().map(move |&p| (r, s, p)))
            .map(|(r, s, p)| diff(r, s, p))
            .fold(0.0, worst),
        ErrorMeasure::Rms => {
            let sum: f64 = rows
                .iter()
                .flat_map(|&(r, s)| pairs.iter().map(move |&p| (r, s, p)))
                .map(|(r, s, p)| diff(r, s, p).powi(2))
                .sum();
            (sum / (rows.len() * pairs.len()) as f64).sqrt()
        }
    })
}

/// The pairs (row of `a`, row of `b`) whose times agree to 1e-9 of the larger span; both ascending.
fn common_rows(a: &[f64], b: &[f64]) -> Vec<(usize, usize)> {
    let span = |t: &[f64]| match (t.first(), t.last()) {
        (Some(f), Some(l)) => (l - f).abs(),
        _ => 0.0,
    };
    let tol = 1e-9 * span(a).max(span(b)).max(1e-300);
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if (a[i] - b[j]).abs() <= tol {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if a[i] < b[j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Computes the automatic reference (see the module documentation), with the estimate of its own
/// error ([`ReferenceRun::self_error`], one more run at a tenth of the precision) when
/// `self_check`.
///
/// # Errors
/// A message when every pair of [`AUTO_REFERENCE`] fails, with their reasons.
pub fn auto_reference(
    model: &Model,
    sweep: &Sweep,
    quantity: &Quantity,
    measure: ErrorMeasure,
    self_check: bool,
    interrupted: &dyn Fn() -> bool,
) -> Result<ReferenceRun, StudyError> {
    let finest = sweep.values().iter().copied().fold(f64::INFINITY, f64::min);
    if !finest.is_finite() {
        return Err(StudyError::Run(
            "no step size or tolerance to compare".into(),
        ));
    }
    let mut failures = Vec::new();
    for (scheme, formulation) in AUTO_REFERENCE {
        let method = Method {
            scheme: scheme.into(),
            params: SchemeParams::new(),
            formulation: formulation.map(str::to_string),
        };
        let (value, check, what) = match sweep {
            Sweep::Steps(_) => (finest / 8.0, finest / 4.0, "fixed step"),
            Sweep::Tolerances(_) => (
                (finest / 100.0).max(MIN_RTOL),
                (finest / 10.0).max(MIN_RTOL),
                "rtol = atol",
            ),
        };
        let per_step = Some(StepControl::PerStep);
        match run_one(model, &method, sweep, value, per_step, interrupted) {
            Ok(out) if out.record.status == "completed" => {
                // The check run's distance to the reference; for a fixed step (order 2 for every
                // scheme on index-3 positions, as measured) the reference's error is a third of it.
                let self_error = (self_check
                    .then(|| run_one(model, &method, sweep, check, per_step, interrupted)))
                .and_then(Result::ok)
                .filter(|c| c.record.status == "completed")
                .and_then(|c| error_of(&c.table, Some(&out.table), quantity, measure).ok())
                .map(|d| {
                    if matches!(sweep, Sweep::Steps(_)) {
                        d / 3.0
                    } else {
                        d
                    }
                });
                return Ok(ReferenceRun {
                    table: out.table,
                    description: format!("{}, {what} {value:.3e}", method.label()),
                    self_error,
                });
            }
            Ok(out) => failures.push(format!("{}: {}", method.label(), out.record.note)),
            Err(e) => failures.push(format!("{}: {e}", method.label())),
        }
    }
    Err(StudyError::Run(format!(
        "no automatic reference could be computed ({})",
        failures.join("; ")
    )))
}

/// Runs every method at every swept value and measures its error; `progress` is called after each
/// run. Runs that cannot start (a scheme that refuses rtol, say) or fail are recorded with their
/// reason and a NaN error. Once `interrupted()` is true (a signal) the running run stops at a step
/// boundary and the runs not started are recorded with status `interrupted`.
#[allow(clippy::too_many_arguments)]
pub fn run_comparison(
    model: &Model,
    methods: &[Method],
    sweep: &Sweep,
    quantity: &Quantity,
    measure: ErrorMeasure,
    reference: Option<&HistoryTable>,
    progress: &mut dyn FnMut(&Record),
    interrupted: &dyn Fn() -> bool,
) -> Vec<Record> {
    let mut records = Vec::new();
    for method in methods {
        for &value in sweep.values() {
            if interrupted() {
                records.push(not_run(method, value, "interrupted", "not started".into()));
                continue;
            }
            let record = match run_one(model, method, sweep, value, None, interrupted) {
                Ok(mut out) => {
                    if out.record.status == "completed" {
                        match error_of(&out.table, reference, quantity, measure) {
                            Ok(e) => out.record.error = e,
                            Err(e) => out.record.note = e.to_string(),
                        }
                    }
                    out.record
                }
                Err(e) => not_run(method, value, "invalid", e.to_string()),
            };
            progress(&record);
            records.push(record);
        }
    }
    records
}

/// The record of `method` at `value` that did not run, with `status` and `note`.
fn not_run(method: &Method, value: f64, status: &str, note: String) -> Record {
    Record {
        method: method.label(),
        scheme: method.scheme.clone(),
        formulation: method.formulation.clone().unwrap_or_default(),
        value,
        error: f64::NAN,
        cpu_time_s: f64::NAN,
        steps: 0,
        rejected_steps: 0,
        newton_iterations: 0,
        status: status.into(),
        note,
    }
}

/// Writes `records` as CSV, one row per run, with the header of [`Record`]'s fields (the swept
/// value is the column `value`; a missing error is written `NaN`).
///
/// # Errors
/// The CSV writer's error.
pub fn write_csv<W: std::io::Write>(records: &[Record], out: W) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(out);
    for r in records {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

/// The observed order between consecutive swept step sizes of one method: log(e₁/e₀)/log(h₁/h₀)
/// for each pair of completed runs (`None` where an error is missing or zero).
pub fn observed_orders(records: &[&Record]) -> Vec<Option<f64>> {
    records
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            (a.error > 0.0 && b.error > 0.0 && a.value != b.value)
                .then(|| (b.error / a.error).ln() / (b.value / a.value).ln())
                .filter(|p| p.is_finite())
        })
        .collect()
}

/// The columns compared when nothing names any: every body's pose columns (planar `*.x`, `*.y`,
/// `*.theta`; spatial `*.x` … `*.e3`), or an equation-based model's coordinates.
///
/// # Errors
/// [`StudyError::Run`] when the model does not build, [`StudyError::Usage`] when it has no bodies
/// and no coordinates.
pub fn pose_columns(model: &Model) -> Result<Vec<String>, StudyError> {
    use crate::system::mechanism::Mechanism;
    let system = crate::system::multibody::Multibody::new(model)
        .map_err(|e| StudyError::Run(e.to_string()))?;
    if let Some(eq) = system.equations() {
        return Ok(eq.coordinate_names().to_vec());
    }
    let mut columns: Vec<String> = Vec::new();
    for b in 0..system.body_names().len() {
        for c in system.body_columns(b).0 {
            let pattern = format!("*.{c}");
            if !columns.contains(&pattern) {
                columns.push(pattern);
            }
        }
    }
    if columns.is_empty() {
        return Err(StudyError::Usage(
            "the model has no bodies to compare: name the columns with --columns".into(),
        ));
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> HistoryTable {
        HistoryTable::read(text.as_bytes(), "test").unwrap()
    }

    #[test]
    fn measures_reduce_the_differences_at_common_times() {
        let reference = table("t,a.x,b.x\n0,0,0\n0.5,1,1\n1,2,2\n");
        let run = table("t,a.x,b.x\n0,0,0\n0.25,9,9\n0.5,1.5,1\n1,2,1.75\n");
        let q = Quantity::Columns(vec!["*.x".into()]);
        let e = |m| error_of(&run, Some(&reference), &q, m).unwrap();
        assert_eq!(e(ErrorMeasure::End), 0.25);
        assert_eq!(e(ErrorMeasure::Max), 0.5);
        let rms = ((0.25_f64 + 0.0625) / 6.0).sqrt();
        assert!((e(ErrorMeasure::Rms) - rms).abs() < 1e-15);
        let missing = Quantity::Columns(vec!["c.*".into()]);
        assert!(error_of(&run, Some(&reference), &missing, ErrorMeasure::End).is_err());
        let apart = table("t,a.x,b.x\n2,0,0\n");
        assert!(error_of(&apart, Some(&reference), &q, ErrorMeasure::End).is_err());
        // A NaN in the reference is not skipped: the error reads NaN (it read 0.5).
        let holed = table("t,a.x,b.x\n0,0,0\n0.5,NaN,1\n1,2,2\n");
        for m in [ErrorMeasure::Max, ErrorMeasure::Rms] {
            assert!(error_of(&run, Some(&holed), &q, m).unwrap().is_nan());
        }
    }

    #[test]
    fn energy_needs_no_reference_and_orders_follow_the_slope() {
        let run = table("t,energy.balance\n0,0\n1,-3e-4\n2,1e-4\n");
        let e = error_of(&run, None, &Quantity::Energy, ErrorMeasure::Max).unwrap();
        assert_eq!(e, 3e-4);
        let rec = |value: f64, error: f64| Record {
            method: "m".into(),
            scheme: "m".into(),
            formulation: "index3".into(),
            value,
            error,
            cpu_time_s: 0.0,
            steps: 0,
            rejected_steps: 0,
            newton_iterations: 0,
            status: "completed".into(),
            note: String::new(),
        };
        let (a, b, c) = (rec(1e-2, 4e-4), rec(5e-3, 1e-4), rec(2.5e-3, f64::NAN));
        let p = observed_orders(&[&a, &b, &c]);
        assert!((p[0].unwrap() - 2.0).abs() < 1e-12 && p[1].is_none());
    }
}
