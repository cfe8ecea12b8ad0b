//! `dynastep kinematics`, `inverse-dynamics` and `equilibrium`: the analyses besides dynamics
//! (Haug 1989, §7.1 and §7.5), with the output conventions of `run`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use dynastep::analysis::dynamic::{Observer, RunStatus};
use dynastep::analysis::equilibrium::settle::SettleSettings;
use dynastep::analysis::equilibrium::{self, EquilibriumMethod, StaticSettings};
use dynastep::analysis::kinematics::{self, KinematicSettings};
use dynastep::analysis::simulation::{assembled, RunOptions, Simulation, SimulationError};
use dynastep::io::history::HistoryWriter;
use dynastep::io::summary::AnalysisSummary;
use dynastep::model::parse;
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;

use crate::{load_model, parse_params};

/// Where a model comes from and where the results go (every command that reads a model).
#[derive(Args)]
pub struct Source {
    /// The model file (TOML). Omit it when using --example.
    pub model: Option<PathBuf>,
    /// Use an embedded example instead of a file (see `dynastep examples`).
    #[arg(long, conflicts_with = "model")]
    pub example: Option<String>,
    /// Output directory (default: out/MODEL for run, out/MODEL-ANALYSIS for the other analyses;
    /// MODEL is the file stem or example name).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a model value, e.g. `--set bodies.crank.theta=-0.0617`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Nothing on the terminal but errors (no progress bar, no report).
    #[arg(long, short)]
    pub quiet: bool,
}

impl Source {
    /// The element that `message` names, located in this source; see [`locate`].
    pub fn locate(&self, message: &str) -> Option<parse::ModelError> {
        locate(self.model.as_deref(), self.example.as_deref(), message)
    }

    /// The error of a simulation that could not start with `opts`, located in this source; see
    /// [`start_error`].
    pub fn start_error(&self, opts: &RunOptions, e: &SimulationError) -> anyhow::Error {
        let (model, example) = (self.model.as_deref(), self.example.as_deref());
        start_error(model, example, &self.set, opts, e, |m| anyhow!("{m}"))
    }

    /// An error for a failure found after the model was read (assembly, initial values): at the
    /// element it names, "FILE:LINE:COL: error: …" with the source line, when it names one.
    pub fn located_error(&self, message: String) -> anyhow::Error {
        match self.locate(&message) {
            Some(e) => anyhow!("{e}"),
            None => anyhow!("{message}"),
        }
    }

    /// A note that says where the element a failure's `message` names is written, or nothing.
    pub fn note_location(&self, message: &str) {
        if let Some(e) = self.locate(message) {
            eprintln!(
                "note: {}:{}:{}: the element named above is defined here: {}",
                e.file,
                e.line,
                e.column,
                e.source_line.trim()
            );
        }
    }
}

/// The text and file name of the model file `model` or the embedded example `example`, read again
/// to point into it; `None` without either, or when the file cannot be read.
fn source_text(model: Option<&Path>, example: Option<&str>) -> Option<(String, String)> {
    match (example, model) {
        (Some(name), _) => {
            let ex = dynastep::examples::find(name)?;
            Some((ex.text.to_string(), ex.file.to_string()))
        }
        (None, Some(path)) => Some((fs::read_to_string(path).ok()?, path.display().to_string())),
        (None, None) => None,
    }
}

/// The element that `message` names (``joint `B` ``, ``force `kick` ``, …), located in the model
/// file `model` or the embedded example `example`: the error at its `name`, with the source line.
/// `None` when the message names no element of the file, or the file cannot be read again.
pub fn locate(
    model: Option<&Path>,
    example: Option<&str>,
    message: &str,
) -> Option<parse::ModelError> {
    let (text, file) = source_text(model, example)?;
    parse::locate_entity(&text, &file, message, "")
}

/// An error for a simulation that could not start (`e`): a settings failure about a value the
/// model file gives (neither `opts` nor a `--set` in `set` replaced it) at that value, a failure
/// that names an element at the element, with file:line:column and the source line; otherwise
/// `fallback(e)`.
pub fn start_error(
    model: Option<&Path>,
    example: Option<&str>,
    set: &[String],
    opts: &RunOptions,
    e: &SimulationError,
    fallback: impl FnOnce(String) -> anyhow::Error,
) -> anyhow::Error {
    let message = e.to_string();
    if let SimulationError::Settings(f) = e {
        if let Some(path) = f.setting {
            let keys: Vec<&str> = path.split('.').collect();
            let overridden = set.iter().any(|o| {
                let key = o.split_once('=').map_or(o.as_str(), |(k, _)| k).trim();
                path.starts_with(key) || key.starts_with(path)
            });
            if !opts.gives(&keys) && !overridden {
                let at = source_text(model, example)
                    .and_then(|(text, file)| parse::locate_path(&text, &file, path, &message, ""));
                if let Some(at) = at {
                    return anyhow!("{at}");
                }
            }
        }
    }
    match locate(model, example, &message) {
        Some(at) => anyhow!("{at}"),
        None => fallback(message),
    }
}

#[derive(Args)]
pub struct KinematicArgs {
    #[command(flatten)]
    source: Source,
    /// End time \[s\] (default: the model's t_end).
    #[arg(long = "t-end")]
    t_end: Option<f64>,
    /// Output interval \[s\] (default: the model's, else its dt, else 1/100 of the span).
    #[arg(long = "output-interval")]
    output_interval: Option<f64>,
}

#[derive(Args)]
pub struct EquilibriumArgs {
    #[command(flatten)]
    source: Source,
    /// settle (damped dynamics until at rest), newton (equilibrium equations) or potential
    /// (minimum potential energy, conservative models).
    #[arg(long, default_value = "newton")]
    method: String,
    /// Tolerance on the residual Φ_qᵀλ − Q (newton), the reduced gradient (potential) \[N, N m\].
    #[arg(long, default_value_t = 1e-10, value_parser = positive)]
    tol: f64,
    /// Largest number of iterations (newton, potential), at least 1.
    #[arg(long = "max-iterations", default_value_t = 200, value_parser = at_least_one)]
    max_iterations: usize,
    /// Settle: added mass-proportional damping c \[1/s\] (−c M v), zero or positive.
    #[arg(long, default_value_t = 0.0, value_parser = non_negative)]
    damping: f64,
    /// Settle: at rest when ‖v‖∞ is below this \[m/s, rad/s\].
    #[arg(long = "v-tol", default_value_t = 1e-9, value_parser = positive)]
    v_tol: f64,
    /// Settle: at rest when ‖a‖∞ is below this \[m/s², rad/s²\].
    #[arg(long = "a-tol", default_value_t = 1e-7, value_parser = positive)]
    a_tol: f64,
    /// Settle: scheme (default: the model's).
    #[arg(long)]
    scheme: Option<String>,
    /// Settle: scheme parameter, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Settle: step size \[s\] (default: the model's).
    #[arg(long)]
    dt: Option<f64>,
    /// Settle: the longest time allowed to come to rest \[s\] (default: the model's t_end).
    /// Newton with `--increments`: the time the loads are followed to.
    #[arg(long = "t-end")]
    t_end: Option<f64>,
    /// Newton: follow the time-dependent loads and drivers (a ramp) from t₀ to t_end in this many
    /// equal steps of time, each started from the last equilibrium; the result is the equilibrium
    /// at t_end. Without it, the equilibrium at t₀.
    #[arg(long, value_parser = at_least_one)]
    increments: Option<usize>,
}

/// The output directory, created.
fn out_dir(source: &Source, stem: &str, analysis: &str) -> Result<PathBuf> {
    let out = source
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("{stem}-{analysis}")));
    fs::create_dir_all(&out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    Ok(out)
}

/// Creates `out/history.csv`; returns its path and the file.
pub(crate) fn history_file(out: &Path) -> Result<(PathBuf, fs::File)> {
    let path = out.join("history.csv");
    let file =
        fs::File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok((path, file))
}

/// Writes `summary` as `out/summary.json` (pretty JSON); returns its path.
pub(crate) fn write_summary<T: serde::Serialize>(out: &Path, summary: &T) -> Result<PathBuf> {
    let path = out.join("summary.json");
    fs::write(&path, serde_json::to_string_pretty(summary)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// `dynastep kinematics` (`inverse` false) and `dynastep inverse-dynamics` (`inverse` true).
pub fn kinematics(args: KinematicArgs, inverse: bool) -> Result<ExitCode> {
    let src = &args.source;
    let (model, stem) = load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    let system = Multibody::new(&model).map_err(|e| anyhow!("{e}"))?;
    // Undriven or conflicting drivers are named before assembly, which would fail on them less
    // clearly (the rank is checked again at the assembled configuration).
    let rough = system.initial_state(model.solver.t_start.unwrap_or(0.0));
    kinematics::check_fully_driven(&system, &rough, KinematicSettings::default().rank_tol)
        .map_err(|e| anyhow!("{e}"))?;
    let (x0, assembly) =
        assembled(&model, &system).map_err(|e| src.located_error(e.to_string()))?;
    if !src.quiet {
        crate::report_assembly(&system, &x0);
    }
    let t_end = args
        .t_end
        .or(model.solver.t_end)
        .ok_or_else(|| anyhow!("no end time: give --t-end or set t_end in [solver]"))?;
    if !(t_end > x0.t && t_end.is_finite()) {
        return Err(anyhow!(
            "t_end = {t_end} must exceed the start time {}",
            x0.t
        ));
    }
    let output_interval = args
        .output_interval
        .or(model.solver.output_interval.filter(|i| *i > 0.0))
        .or(model.solver.dt)
        .unwrap_or((t_end - x0.t) / 100.0);
    if output_interval.is_nan() || output_interval <= 0.0 {
        return Err(anyhow!(
            "output interval {output_interval} must be positive"
        ));
    }
    // The schedule is checked before any file is created, so a refused interval leaves no empty
    // history behind.
    dynastep::analysis::output_times::OutputTimes::new(x0.t, output_interval, t_end)
        .map_err(|e| anyhow!("--output-interval: {e}"))?;
    let settings = KinematicSettings {
        t_end,
        output_interval,
        inverse,
        ..Default::default()
    };
    let analysis = if inverse {
        "inverse-dynamics"
    } else {
        "kinematics"
    };
    let out = out_dir(src, &stem, analysis)?;
    let (history_path, file) = history_file(&out)?;
    let mut writer = if inverse {
        HistoryWriter::new(&system, file)?
    } else {
        HistoryWriter::kinematic(&system, file)?
    };
    crate::signals::install();
    let mut watch = crate::signals::watch();
    let report = {
        let mut observers: Vec<&mut dyn Observer<Multibody>> = vec![&mut writer, &mut watch];
        kinematics::run(&system, &x0, &settings, &mut observers).map_err(|e| anyhow!("{e}"))?
    };
    writer
        .flush()
        .with_context(|| format!("cannot write {}", history_path.display()))?;
    let summary = AnalysisSummary::kinematic(&model.name, &system, &assembly, &settings, &report);
    let summary_path = write_summary(&out, &summary)?;
    if let RunStatus::Interrupted { interrupted_at } = &report.status {
        eprintln!(
            "interrupted at t = {interrupted_at} s; the output up to that time is in {} and {}",
            history_path.display(),
            summary_path.display()
        );
        return Ok(ExitCode::from(130));
    }
    if let RunStatus::Failed { failed_at, reason } = &report.status {
        eprintln!(
            "error: the {analysis} stopped after t = {failed_at} s: {reason}\nthe output up to that time is in {} and {}",
            history_path.display(),
            summary_path.display()
        );
        return Ok(ExitCode::from(1));
    }
    if !src.quiet {
        let energy = report
            .energy
            .map(|e| {
                format!(
                    "; driver work {:.6e} J, energy check ΔT + ΔV − W = {:.3e} J",
                    e.driver_work, e.residual
                )
            })
            .unwrap_or_default();
        eprintln!(
            "{analysis}: {} configurations, {} Newton iterations (at most {} at one time), max |Phi| = {:.3e}{energy}\nwrote {} and {}",
            report.evaluations,
            report.newton_iterations,
            report.max_iterations,
            report.max_violation.position,
            history_path.display(),
            summary_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A tolerance: a positive, finite number (inf would accept any state, NaN none).
fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("`{text}` is not a positive, finite number")),
    }
}

/// A damping coefficient: zero or a positive, finite number.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("`{text}` is not a finite number ≥ 0")),
    }
}

/// An iteration limit: a whole number of at least 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number ≥ 1")),
    }
}

/// `dynastep equilibrium`.
pub fn equilibrium(args: EquilibriumArgs) -> Result<ExitCode> {
    let method = EquilibriumMethod::parse(&args.method).map_err(|e| anyhow!("{e}"))?;
    let src = &args.source;
    let (model, stem) = load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    let out = out_dir(src, &stem, "equilibrium")?;
    let statics = StaticSettings {
        tolerance: args.tol,
        max_iterations: args.max_iterations,
        ..Default::default()
    };
    let clock = Instant::now();
    let (system, assembly, result, last, history) = if method == EquilibriumMethod::Settle {
        let opts = RunOptions {
            scheme: args.scheme.clone(),
            params: parse_params(&args.params)?,
            dt: args.dt,
            t_end: args.t_end,
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(&model, &opts).map_err(|e| src.start_error(&opts, &e))?;
        let settle = SettleSettings {
            damping: args.damping,
            v_tol: args.v_tol,
            a_tol: args.a_tol,
        };
        let (history_path, file) = history_file(&out)?;
        let mut writer = HistoryWriter::new(&sim.system, file)?;
        crate::signals::install();
        let mut watch = crate::signals::watch();
        let (report, result) = {
            let mut observers: Vec<&mut dyn Observer<Multibody>> = vec![&mut writer, &mut watch];
            equilibrium::settle::solve(
                &sim.system,
                sim.scheme.as_mut(),
                &sim.initial,
                &sim.settings,
                &settle,
                &mut observers,
            )
        };
        writer
            .flush()
            .with_context(|| format!("cannot write {}", history_path.display()))?;
        (
            sim.system,
            sim.assembly,
            result,
            report.final_state,
            Some(history_path),
        )
    } else {
        let system = Multibody::new(&model).map_err(|e| anyhow!("{e}"))?;
        let (x0, assembly) =
            assembled(&model, &system).map_err(|e| src.located_error(e.to_string()))?;
        let result = if let Some(k) = args.increments {
            if method != EquilibriumMethod::Newton {
                bail!("--increments goes with --method newton");
            }
            let Some(t_end) = args.t_end.or(model.solver.t_end) else {
                bail!("--increments follows the loads to t_end: give --t-end or the model's [solver] t_end");
            };
            equilibrium::newton::solve_increments(&system, (x0.t, t_end), k, &x0.q, &statics)
        } else if method == EquilibriumMethod::Newton {
            equilibrium::newton::solve(&system, x0.t, &x0.q, &statics)
        } else {
            equilibrium::potential::solve(&system, x0.t, &x0.q, &statics)
        };
        (system, assembly, result, x0, None)
    };
    let summary = AnalysisSummary::equilibrium(
        &model.name,
        &system,
        &assembly,
        method.name(),
        &result,
        &last,
        clock.elapsed().as_secs_f64(),
    );
    let summary_path = write_summary(&out, &summary)?;
    let wrote = match &history {
        Some(h) => format!("{} and {}", h.display(), summary_path.display()),
        None => summary_path.display().to_string(),
    };
    match result {
        Ok(e) => {
            if !src.quiet {
                eprintln!(
                    "equilibrium ({}, {} iterations): {}, residual |Phi_q^T lambda - Q| = {:.3e}, reduced stiffness eigenvalues {:?}\nwrote {wrote}",
                    method.name(),
                    e.iterations,
                    e.stability.verdict,
                    e.residual,
                    e.stability.eigenvalues
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ equilibrium::EquilibriumError::Interrupted { .. }) => {
            eprintln!("{e}; wrote {wrote}");
            Ok(ExitCode::from(130))
        }
        Err(e) => {
            eprintln!("error: {e}\nwrote {wrote}");
            Ok(ExitCode::from(1))
        }
    }
}
