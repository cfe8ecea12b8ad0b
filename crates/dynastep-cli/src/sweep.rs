//! `dynastep sweep`: a model's overrides × schemes × step sizes on a thread pool, one output folder
//! per case and one table; `--shard K/N` runs one slice of the same product (a job-array task),
//! `--merge` gathers the shards' tables.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use rayon::prelude::*;

use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::step_control::StepSettings;
use dynastep::io::history::{HistoryColumns, HistoryWriter};
use dynastep::io::summary::Summary;
use dynastep::model::settings::AUTO_SCHEME;
use dynastep::scheme::SchemeParams;
use dynastep::study::sweep::{
    merge_shards, parse_shard, shard, shard_file_name, write_table, Case, CaseRow, SweepPlan,
    Variation,
};

use crate::analyses::{history_file, write_summary};
use crate::{load_model, params_per_scheme, parse_params, write_model};

#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    source: crate::analyses::Source,
    /// A swept model path: `PATH=V1,V2,…` or `PATH=START:STOP:COUNT[:log]` (repeatable; the
    /// product of all is run), e.g. `--vary bodies.crank.mass=0.5:2:4`.
    #[arg(long = "vary", value_name = "PATH=VALUES")]
    vary: Vec<String>,
    /// Schemes, comma-separated (default: the model's).
    #[arg(long, value_delimiter = ',')]
    scheme: Vec<String>,
    /// Scheme parameter applied to every scheme that has it, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Step sizes \[s\], comma-separated (default: the model's).
    #[arg(long, value_delimiter = ',')]
    dt: Vec<f64>,
    /// Formulation of every case (default: the model's).
    #[arg(long)]
    formulation: Option<String>,
    /// End time \[s\] of every case.
    #[arg(long = "t-end")]
    t_end: Option<f64>,
    /// Relative tolerance: adaptive steps in every case (dt is then the first step).
    #[arg(long)]
    rtol: Option<f64>,
    /// Absolute tolerance (default: rtol).
    #[arg(long)]
    atol: Option<f64>,
    /// Output interval \[s\] of every case's history (0: every step).
    #[arg(long = "output-interval")]
    output_interval: Option<f64>,
    /// Threads (0: one per core). The table and every history are the same for any value.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Run only slice K of N (1 ≤ K ≤ N; cases whose index is K − 1 modulo N), writing
    /// sweep-shard-K-of-N.csv: one task of a Slurm or HyperQueue job array.
    #[arg(long, value_name = "K/N", conflicts_with = "merge")]
    shard: Option<String>,
    /// Gather the sweep-shard-*.csv tables of the output folder into its sweep.csv (runs nothing).
    #[arg(long)]
    merge: bool,
}

/// Runs `dynastep sweep`.
pub fn sweep(args: SweepArgs) -> Result<ExitCode> {
    let src = &args.source;
    if args.merge {
        let out = src
            .out
            .clone()
            .ok_or_else(|| anyhow!("--merge needs --out, the folder holding the shards' tables"))?;
        return merge(&out, src.quiet);
    }
    let (model, stem) = load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    if args.scheme.is_empty() && model.solver.scheme.as_deref() == Some(AUTO_SCHEME) {
        bail!("the model's scheme = \"auto\" is how `dynastep run` chooses its pair, not a scheme to sweep: name one with --scheme (`dynastep schemes` lists them)");
    }
    let plan = SweepPlan {
        variations: args
            .vary
            .iter()
            .map(|v| Variation::parse(v))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow!(e))?,
        schemes: args.scheme.clone(),
        dts: args.dt.clone(),
    };
    let params = scheme_params(&args)?;
    plan.check_size().map_err(|e| anyhow!(e))?;
    check_paths(src, &plan.variations)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.jobs > 4 * cores {
        bail!(
            "--jobs {} is more than 4 threads per core ({cores} cores here); use --jobs 0 for one per core",
            args.jobs
        );
    }
    let mut cases = plan.cases();
    let table_name = match &args.shard {
        Some(spec) => {
            let (k, n) = parse_shard(spec).map_err(|e| anyhow!(e))?;
            cases = shard(cases, k, n);
            shard_file_name(k, n)
        }
        None => "sweep.csv".to_string(),
    };
    let out = src
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("{stem}-sweep")));
    fs::create_dir_all(&out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .context("cannot start the thread pool")?;
    let bar = if src.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(cases.len() as u64)
    };
    crate::signals::install();
    let rows: Vec<CaseRow> = pool.install(|| {
        cases
            .par_iter()
            .map(|case| {
                let row = run_case(&args, case, &params, &out);
                bar.inc(1);
                row
            })
            .collect()
    });
    bar.finish_and_clear();
    let paths: Vec<String> = plan.variations.iter().map(|v| v.path.clone()).collect();
    let table = out.join(&table_name);
    let file =
        fs::File::create(&table).with_context(|| format!("cannot create {}", table.display()))?;
    write_table(&paths, &rows, file)
        .with_context(|| format!("cannot write {}", table.display()))?;
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    if !src.quiet {
        eprintln!(
            "{} cases: {} completed, {} failed, {} could not start; wrote {}",
            rows.len(),
            count("completed"),
            count("failed"),
            count("error"),
            table.display()
        );
    }
    if crate::signals::interrupted() {
        let not_started = rows
            .iter()
            .filter(|r| r.status == "interrupted" && r.t_reached.is_nan())
            .count();
        eprintln!(
            "interrupted: {not_started} of {} cases not started; {} holds every other case (those cut at a step boundary have status interrupted and their output up to then)",
            rows.len(),
            table.display()
        );
        return Ok(ExitCode::from(130));
    }
    if !rows.is_empty() && count("error") == rows.len() {
        let first = rows.first().map_or("", |r| r.reason.as_str());
        eprintln!("error: no case could start; the first reason: {first}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a `--vary` path the model does not have (a misspelling) before any case runs: the
/// model is loaded with each variation's first value.
fn check_paths(src: &crate::analyses::Source, variations: &[Variation]) -> Result<()> {
    for v in variations {
        let mut set = src.set.clone();
        set.push(format!("{}={}", v.path, v.values[0]));
        load_model(src.model.as_deref(), src.example.as_deref(), &set)
            .with_context(|| format!("--vary `{}`", v.path))?;
    }
    Ok(())
}

/// `--param` items per scheme (checked once for all cases), or for the model's scheme.
fn scheme_params(args: &SweepArgs) -> Result<Vec<(Option<String>, SchemeParams)>> {
    if args.scheme.is_empty() {
        return Ok(vec![(None, parse_params(&args.params)?)]);
    }
    Ok(params_per_scheme(&args.scheme, &args.params)?
        .into_iter()
        .map(|(s, p)| (Some(s), p))
        .collect())
}

/// Runs one case into `out/case-NNNN/` (model.json, history.csv, summary.json, as `dynastep run`
/// writes a run folder, so that `dynastep plot` and `animate` read it); never fails: a case that
/// cannot start becomes a row with status `error` and the reason.
fn run_case(
    args: &SweepArgs,
    case: &Case,
    params: &[(Option<String>, SchemeParams)],
    out: &Path,
) -> CaseRow {
    if crate::signals::interrupted() {
        return CaseRow::interrupted(case);
    }
    let dir = out.join(format!("case-{:04}", case.index));
    match try_case(args, case, params, &dir) {
        Ok(row) => row,
        Err(e) => CaseRow::error(case, format!("{e:#}")),
    }
}

fn try_case(
    args: &SweepArgs,
    case: &Case,
    params: &[(Option<String>, SchemeParams)],
    dir: &Path,
) -> Result<CaseRow> {
    let src = &args.source;
    let mut set = src.set.clone();
    set.extend(case.overrides.iter().cloned());
    let (model, _) = load_model(src.model.as_deref(), src.example.as_deref(), &set)?;
    let params = params
        .iter()
        .find(|(s, _)| *s == case.scheme)
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    let opts = RunOptions {
        scheme: case.scheme.clone(),
        params,
        dt: case.dt,
        t_end: args.t_end,
        output_interval: args.output_interval,
        formulation: args.formulation.clone(),
        step: StepSettings {
            rtol: args.rtol,
            atol: args.atol,
            ..StepSettings::default()
        },
        max_steps: None,
        omega_max: false,
    };
    let mut sim = Simulation::new(&model, &opts).map_err(|e| anyhow!("{e}"))?;
    HistoryColumns::check_selection(&sim.system, &sim.model.solver, false)
        .map_err(|f| anyhow!("{f}"))?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_model(dir, &sim.model)?;
    let (history, file) = history_file(dir)?;
    let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, false);
    let mut writer = HistoryWriter::with_columns(columns, file)?;
    let report = sim.run(&mut [&mut writer, &mut crate::signals::watch()]);
    writer
        .flush()
        .with_context(|| format!("cannot write {}", history.display()))?;
    let summary = Summary::new(&sim, &report);
    write_summary(dir, &summary)?;
    Ok(CaseRow::from_summary(case, &summary))
}

/// Merges `out/sweep-shard-*-of-*.csv` into `out/sweep.csv`, after checking that they are every
/// shard of one sweep.
fn merge(out: &Path, quiet: bool) -> Result<ExitCode> {
    let mut shards: Vec<(String, PathBuf)> = fs::read_dir(out)
        .with_context(|| format!("cannot read {}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            (name.starts_with("sweep-shard-") && name.ends_with(".csv")).then_some((name, p))
        })
        .collect();
    shards.sort();
    if shards.is_empty() {
        bail!("no sweep-shard-*.csv in {}", out.display());
    }
    let count = shards.len();
    let inputs = shards
        .into_iter()
        .map(|(name, p)| {
            fs::File::open(&p)
                .map(|f| (name, f))
                .with_context(|| format!("cannot read {}", p.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let merged = merge_shards(inputs).map_err(|e| anyhow!("{}: {e}", out.display()))?;
    let path = out.join("sweep.csv");
    fs::write(&path, merged).with_context(|| format!("cannot write {}", path.display()))?;
    if !quiet {
        eprintln!("merged {count} tables into {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
