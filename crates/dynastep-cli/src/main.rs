//! `dynastep`: the command-line program.
//!
//! ```text
//! dynastep run MODEL.toml [--scheme NAME] [--param K=V ...] [--formulation NAME] [--dt S] [--t-end S]
//!              [--output-interval S] [--rtol R [--atol A] [--h-min S] [--h-max S] [--step-control C]]
//!              [--out DIR] [--set PATH=VALUE ...] [--quiet]
//! dynastep run --example NAME ...
//! dynastep kinematics MODEL.toml|--example NAME [--t-end S] [--output-interval S] [--out DIR]
//! dynastep inverse-dynamics MODEL.toml|--example NAME [--t-end S] [--output-interval S] [--out DIR]
//! dynastep equilibrium MODEL.toml|--example NAME [--method settle|newton|potential] [--tol X]
//!              [--damping C] [--v-tol V] [--a-tol A] [--scheme NAME] [--dt S] [--t-end S] [--out DIR]
//! dynastep check MODEL.toml [--set PATH=VALUE ...]
//! dynastep examples
//! dynastep schemes
//! dynastep formulations
//! dynastep stability --scheme NAME [--scheme NAME ...] [--param K=V ...] [--xi XI] [--json] [--out DIR]
//! dynastep schema
//! dynastep compare MODEL.toml|--example NAME [--schemes A,B,..] [--dt H1,H2,.. | --rtol R1,R2,..]
//!              [--param K=V ...] [--formulations F,..] [--reference auto|FILE] [--measure end|max|rms]
//!              [--columns PATTERN ... | --energy] [--out DIR]
//! dynastep plot RUN_DIR [--columns PATTERN ...] [--name STEM]
//! dynastep animate RUN_DIR [--out FILE.html]
//! dynastep export RUN_DIR [--format gltf|vtk] [--out FILE.glb|FILE.pvd]
//! ```
//!
//! Exit status: 0 on success, 1 when a run stopped early (the output written so far is kept), 2 for bad
//! input (model file, options).

mod analyses;
mod auto;
mod compare;
mod plots;
mod signals;
mod sweep;

use std::collections::BTreeMap;
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use dynastep::analysis::dynamic::{Flow, Observer, RunStatus, Sample};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::step_control::{StepControl, StepSettings};
use dynastep::io::history::{HistoryColumns, HistoryWriter};
use dynastep::io::summary::Summary;
use dynastep::model::{parse, Model};
use dynastep::scheme::{SchemeParams, REGISTRY};
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;

#[derive(Parser)]
#[command(
    name = "dynastep",
    version,
    about = "Multibody dynamics with the time integrators of the literature, side by side"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a model file or an embedded example and write the time history and summary.
    Run(RunArgs),
    /// Kinematic analysis of a fully driven model: positions, velocities, accelerations from the
    /// constraints alone.
    Kinematics(analyses::KinematicArgs),
    /// Inverse dynamics of a fully driven model: the kinematics plus every joint reaction and driver
    /// force, with an energy check.
    InverseDynamics(analyses::KinematicArgs),
    /// The rest configuration under the applied loads, with reactions and its stability.
    Equilibrium(analyses::EquilibriumArgs),
    /// Validate a model file without simulating.
    Check {
        /// The model file (TOML).
        model: PathBuf,
        /// Override a model value, e.g. `--set bodies.crank.theta=-0.0617`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// List the embedded example models.
    Examples,
    /// List the time-integration schemes with their parameters, defaults, capabilities and sources.
    Schemes,
    /// List the formulations (how constraints enter and each integration point is solved).
    Formulations,
    /// Linear stability of schemes on x'' + 2 xi w x' + w^2 x = 0: spectral radius, damping, period error.
    Stability(StabilityArgs),
    /// Print the JSON Schema of model files.
    Schema,
    /// Run several schemes at several step sizes or tolerances and draw their error against their
    /// cost (work-precision CSV and chart).
    Compare(compare::CompareArgs),
    /// Run the product of model overrides (--vary), schemes and step sizes on a thread pool: one
    /// folder per case and one table (sweep.csv); --shard K/N for job arrays, --merge to gather.
    Sweep(sweep::SweepArgs),
    /// Draw time histories of a run folder (PNG and SVG): energy balance, constraint violations,
    /// marker trajectories, or chosen columns.
    Plot(plots::PlotArgs),
    /// Write a self-contained HTML page that plays a run folder's mechanism (planar in 2-D,
    /// spatial in 3-D).
    Animate(plots::AnimateArgs),
    /// Write a spatial run's motion for other viewers: glTF 2.0 (.glb) for Blender and any glTF
    /// viewer, or a VTK time series (.pvd + .vtu, double precision) for ParaView.
    Export(plots::ExportArgs),
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    source: analyses::Source,
    /// Time-integration scheme (see `dynastep schemes`), or `auto`: the pair of scheme and
    /// formulation measured fastest at the tolerance on a trial of the model (docs/schemes.md).
    /// Default: the model's; else `auto` when --rtol is given; else generalized-alpha.
    #[arg(long)]
    scheme: Option<String>,
    /// Scheme parameter, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Formulation (see `dynastep formulations`); default: the model's, else index3.
    #[arg(long)]
    formulation: Option<String>,
    /// Step size \[s\]: fixed steps of this size, even when the model sets `rtol`; with --rtol
    /// only the first step (chosen automatically when absent).
    #[arg(long)]
    dt: Option<f64>,
    /// Relative tolerance of the local error: makes the run adaptive.
    #[arg(long)]
    rtol: Option<f64>,
    /// Absolute tolerance of the local error (default: rtol).
    #[arg(long)]
    atol: Option<f64>,
    /// Smallest step of an adaptive run \[s\] (default: 1e-12 of the span).
    #[arg(long = "h-min")]
    h_min: Option<f64>,
    /// Largest step of an adaptive run \[s\] (default: the span).
    #[arg(long = "h-max")]
    h_max: Option<f64>,
    /// What rtol/atol bound: `per-step` (each step's local error; default) or `per-unit-step` (the
    /// local errors of the whole run sum to at most the tolerance: global error proportional to it,
    /// more steps).
    #[arg(long = "step-control", value_parser = parse_step_control)]
    step_control: Option<StepControl>,
    /// End time \[s\].
    #[arg(long = "t-end")]
    t_end: Option<f64>,
    /// Output interval \[s\] (0: every step).
    #[arg(long = "output-interval")]
    output_interval: Option<f64>,
    /// Most steps the run may take, accepted and rejected (default: the model's, else 1e9).
    #[arg(long = "max-steps")]
    max_steps: Option<u64>,
    /// Also draw the default time histories (plot.png, plot.svg in the output folder), as
    /// `dynastep plot` does; also after a failed run.
    #[arg(long)]
    plot: bool,
    /// Compute the largest natural frequency of the integrated system along the run: an
    /// `omega_max` column in history.csv [rad/s], and in summary.json its maximum with the step
    /// limit Omega_crit/omega_max of the scheme in use.
    #[arg(long = "omega-max")]
    omega_max: bool,
}

#[derive(Args)]
struct StabilityArgs {
    /// Scheme(s) to analyse; repeat for several on one chart.
    #[arg(long = "scheme", required = true)]
    schemes: Vec<String>,
    /// Scheme parameter, applied to every scheme that has it, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Damping ratio xi of the test equation.
    #[arg(long, default_value_t = 0.0)]
    xi: f64,
    /// Smallest Omega = w h of the scan.
    #[arg(long, default_value_t = 1e-2)]
    omega_min: f64,
    /// Largest Omega of the scan.
    #[arg(long, default_value_t = 1e3)]
    omega_max: f64,
    /// Number of Omega values (log-spaced).
    #[arg(long, default_value_t = 400)]
    points: usize,
    /// Print one JSON object per scheme (an array for several) instead of a table.
    #[arg(long)]
    json: bool,
    /// Directory for stability.csv, stability.png and stability.svg (default: out/stability).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args),
        Command::Kinematics(args) => analyses::kinematics(args, false),
        Command::InverseDynamics(args) => analyses::kinematics(args, true),
        Command::Equilibrium(args) => analyses::equilibrium(args),
        Command::Check { model, set } => check(&model, &set),
        Command::Examples => examples(),
        Command::Schemes => schemes(),
        Command::Formulations => formulations(),
        Command::Stability(args) => stability(args),
        Command::Compare(args) => compare::compare(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Plot(args) => plots::plot(args),
        Command::Animate(args) => plots::animate(args),
        Command::Export(args) => plots::export(args),
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&parse::json_schema()).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let text = format!("{e:#}");
            // Model-file errors arrive already rendered as `file:line:column: error: …`.
            if text.contains(": error: ") {
                eprintln!("{text}");
            } else {
                eprintln!("error: {text}");
            }
            ExitCode::from(2)
        }
    }
}

/// Parses `K=V` pairs with numeric values.
pub(crate) fn parse_params(items: &[String]) -> Result<SchemeParams> {
    let mut p = SchemeParams::new();
    for item in items {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| anyhow!("--param `{item}`: expected NAME=VALUE, e.g. rho_inf=0.6"))?;
        let v: f64 = v
            .trim()
            .parse()
            .map_err(|_| anyhow!("--param `{item}`: `{v}` is not a number"))?;
        p.insert(k.trim().to_string(), v);
    }
    Ok(p)
}

/// The `--param K=V` items given to several schemes at once (`stability`, `compare`): each scheme
/// gets the parameters it has.
///
/// # Errors
/// An unknown scheme; an item that is not NAME=NUMBER; a parameter none of the schemes has.
pub(crate) fn params_per_scheme(
    schemes: &[String],
    items: &[String],
) -> Result<Vec<(String, SchemeParams)>> {
    let given = parse_params(items)?;
    let mut out = Vec::new();
    for name in schemes {
        let info = dynastep::scheme::find(name)
            .ok_or_else(|| anyhow!("unknown scheme `{name}`; see `dynastep schemes`"))?;
        let params: SchemeParams = given
            .iter()
            .filter(|(k, _)| info.params.iter().any(|p| p.name == k.as_str()))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        out.push((name.clone(), params));
    }
    for k in given.keys() {
        if !out.iter().any(|(_, p)| p.contains_key(k)) {
            bail!("--param {k}: none of the schemes {schemes:?} has this parameter (see `dynastep schemes`)");
        }
    }
    Ok(out)
}

/// Reads a model from a file or an embedded example, with overrides.
pub(crate) fn load_model(
    args_model: Option<&Path>,
    example: Option<&str>,
    set: &[String],
) -> Result<(Model, String)> {
    if let Some(name) = example {
        let ex = dynastep::examples::find(name).ok_or_else(|| {
            let known: Vec<_> = dynastep::examples::EXAMPLES
                .iter()
                .map(|e| e.name)
                .collect();
            anyhow!("no example named `{name}`; examples: {}", known.join(", "))
        })?;
        let model =
            parse::from_str_with_overrides(ex.text, ex.file, set).map_err(|e| anyhow!("{e}"))?;
        return Ok((model, ex.name.to_string()));
    }
    let path = args_model
        .ok_or_else(|| anyhow!("give a model file, or --example NAME (see `dynastep examples`)"))?;
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read model file {}", path.display()))?;
    let model = parse::from_str_with_overrides(&text, &path.display().to_string(), set)
        .map_err(|e| anyhow!("{e}"))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "model".into());
    Ok((model, stem))
}

/// A progress bar observer.
struct Progress {
    bar: indicatif::ProgressBar,
    t0: f64,
}

impl<S: dynastep::system::System> Observer<S> for Progress {
    fn sample(
        &mut self,
        _sys: &S,
        s: &Sample<'_>,
    ) -> Result<Flow, dynastep::analysis::dynamic::ObserverError> {
        self.bar
            .set_position(((s.state.t - self.t0) * 1000.0) as u64);
        self.bar
            .set_message(format!("{:.4} s, h = {:.2e} s", s.state.t, s.h));
        Ok(Flow::Continue)
    }
}

/// Reads `--step-control`.
fn parse_step_control(s: &str) -> Result<StepControl, String> {
    match s {
        "per-step" => Ok(StepControl::PerStep),
        "per-unit-step" => Ok(StepControl::PerUnitStep),
        _ => Err(format!(
            "`{s}` is not a step control; use per-step or per-unit-step"
        )),
    }
}

/// summary.json of `dynastep run`: the run's summary and, with `--scheme auto`, the choice.
#[derive(serde::Serialize)]
struct RunSummary<'a> {
    #[serde(flatten)]
    summary: Summary,
    /// The pair chosen, the trial and every candidate's outcome (`--scheme auto` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    method_choice: Option<&'a dynastep::study::choice::MethodChoice>,
}

fn run(args: RunArgs) -> Result<ExitCode> {
    let src = &args.source;
    let (model, stem) = load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    let choice = if auto::wanted(args.scheme.as_deref(), args.rtol, &model) {
        if args.formulation.is_some() {
            bail!("--scheme auto chooses the formulation as well: leave out --formulation, or name the scheme");
        }
        let rtol = auto::tolerance(args.rtol, &model)?;
        let c = auto::choose(&model, args.t_end, rtol, src.quiet, false)?;
        if !src.quiet {
            auto::print_ranking(&c);
        }
        Some(c)
    } else {
        None
    };
    let (scheme, formulation) = match &choice {
        Some(c) => (Some(c.method.scheme.clone()), c.method.formulation.clone()),
        None => (args.scheme.clone(), args.formulation.clone()),
    };
    let opts = RunOptions {
        scheme,
        params: parse_params(&args.params)?,
        dt: args.dt,
        t_end: args.t_end,
        output_interval: args.output_interval,
        formulation,
        step: StepSettings {
            rtol: args.rtol.or(choice.as_ref().map(|c| c.rtol)),
            atol: args.atol,
            h_min: args.h_min,
            h_max: args.h_max,
            control: args.step_control,
        },
        max_steps: args.max_steps,
        omega_max: args.omega_max,
    };
    let mut sim = Simulation::new(&model, &opts).map_err(|e| src.start_error(&opts, &e))?;
    if !src.quiet {
        eprintln!(
            "{} with {} ({}){}: {}",
            if model.name.is_empty() {
                &stem
            } else {
                &model.name
            },
            sim.scheme.name(),
            sim.settings.formulation,
            if choice.is_some() {
                ", chosen by --scheme auto (the ranking is in summary.json)"
            } else {
                ""
            },
            sim.step_policy()
        );
        report_assembly(&sim.system, &sim.initial);
    }
    if !sim.assembly.redundant.is_empty() && !src.quiet {
        eprintln!(
            "warning: redundant constraints (rank {} of {}): {} {} on the rows before {} (the dependency involves {}); going on with minimum-norm multipliers",
            sim.assembly.rank,
            sim.assembly.constraints,
            sim.assembly.dependent.join(", "),
            if sim.assembly.dependent.len() == 1 { "depends" } else { "depend" },
            if sim.assembly.dependent.len() == 1 { "it" } else { "them" },
            sim.assembly.redundant.join(", ")
        );
    }
    let out = src
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&stem));
    fs::create_dir_all(&out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    write_model(&out, &sim.model)?;
    let history_path = out.join("history.csv");
    let file = fs::File::create(&history_path)
        .with_context(|| format!("cannot create {}", history_path.display()))?;
    let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, args.omega_max);
    let mut writer = HistoryWriter::with_columns(columns, file)?;
    let t0 = sim.initial.t;
    let show = !src.quiet && std::io::stderr().is_terminal();
    let mut progress = Progress {
        bar: indicatif::ProgressBar::hidden(),
        t0,
    };
    if show {
        let bar = indicatif::ProgressBar::new(((sim.settings.t_end - t0) * 1000.0) as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} t = {msg} [{bar:40}] {percent}% ({eta} left)",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        progress.bar = bar;
    }
    signals::install();
    let mut watch = signals::watch();
    let report = {
        let mut observers: Vec<&mut dyn Observer<Multibody>> = vec![&mut writer, &mut watch];
        if show {
            observers.push(&mut progress);
        }
        sim.run(&mut observers)
    };
    progress.bar.finish_and_clear();
    writer
        .flush()
        .with_context(|| format!("cannot write {}", history_path.display()))?;
    let summary = RunSummary {
        summary: Summary::new(&sim, &report),
        method_choice: choice.as_ref(),
    };
    let summary_path = analyses::write_summary(&out, &summary)?;
    if args.plot {
        match plots::plot_folder(&out, &[], "plot") {
            Ok((png, _)) if !src.quiet => eprintln!("drew {}", png.display()),
            Ok(_) => {}
            Err(e) => eprintln!("warning: no plot: {e:#}"),
        }
    }
    match &report.status {
        RunStatus::Completed => {
            if !src.quiet {
                let steps = if report.tolerances.is_some() {
                    format!(
                        "{} steps ({} rejected, h from {:.2e} to {:.2e} s)",
                        report.steps, report.rejected_steps, report.h_min, report.h_max
                    )
                } else {
                    format!("{} steps of {} s", report.steps, sim.settings.h)
                };
                if report.restarts > 0 {
                    eprintln!(
                        "repartitioned {} times (first at t = {:.6} s): new independent coordinates, scheme restarted",
                        report.restarts, report.first_restart
                    );
                }
                eprintln!(
                    "{}: {steps} with {} ({}) in {:.3} s; max |E - E0 - W_nc| = {:.3e} J, max |Phi| = {:.3e}\nwrote {} and {}",
                    if model.name.is_empty() { &stem } else { &model.name },
                    sim.scheme.name(),
                    sim.settings.formulation,
                    report.wall_time_s,
                    report.max_energy_error,
                    report.max_violation.position,
                    history_path.display(),
                    summary_path.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        RunStatus::Stopped { stopped_at } => {
            if !src.quiet {
                eprintln!(
                    "stopped at t = {stopped_at} s on request; wrote {} and {}",
                    history_path.display(),
                    summary_path.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        RunStatus::Interrupted { interrupted_at } => {
            eprintln!(
                "interrupted at t = {interrupted_at} s; the output up to that time is in {} and {}",
                history_path.display(),
                summary_path.display()
            );
            Ok(ExitCode::from(130))
        }
        RunStatus::Failed { failed_at, reason } => {
            eprintln!(
                "error: the run stopped at t = {failed_at} s: {reason}\nthe output up to that time is in {} and {}",
                history_path.display(),
                summary_path.display()
            );
            src.note_location(&reason.to_string());
            Ok(ExitCode::from(1))
        }
    }
}

/// Lets a closed pipe end the program as it ends other Unix tools (`dynastep schemes | head`):
/// Rust ignores SIGPIPE, so `println!` panicked with "failed printing to stdout" instead.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; SIG_DFL is the default
    // disposition, which the program had before the Rust runtime set it to ignore.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Writes `model.json` into the run folder `out`: the model as simulated (overrides applied), which
/// `dynastep animate` and `plot` read for the geometry.
pub(crate) fn write_model(out: &Path, model: &Model) -> Result<()> {
    let path = out.join("model.json");
    fs::write(&path, serde_json::to_string_pretty(model)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Says on the terminal which bodies assembly moved (by more than 1e-9 m or rad) and which given
/// values it held, so that a corrected model is never a surprise.
pub(crate) fn report_assembly<M: Mechanism>(sys: &M, assembled: &dynastep::scheme::State) {
    let given = sys.initial_state(assembled.t);
    let held = sys.given_values();
    let mut moved = Vec::new();
    for (b, name) in sys.body_names().iter().enumerate() {
        let (dr, dth) = sys.body_displacement(b, &given.q, &assembled.q);
        if dr > 1e-9 || dth > 1e-9 {
            moved.push(format!("`{name}` by {dr:.3e} m and {dth:.3e} rad"));
        }
    }
    if moved.is_empty() {
        return;
    }
    let labels: Vec<String> = (0..held.positions.len())
        .filter(|&i| held.positions[i])
        .map(|i| sys.coordinate_label(i))
        .collect();
    let why = if labels.is_empty() {
        "no coordinate is marked `given`".to_string()
    } else {
        format!("held as given: {}", labels.join(", "))
    };
    eprintln!(
        "note: assembly moved {} to satisfy the joints ({why})",
        moved.join(", ")
    );
}

fn check(path: &Path, set: &[String]) -> Result<ExitCode> {
    let (model, _) = load_model(Some(path), None, set)?;
    // A failure found after the file was read points at the element or setting it names.
    let located = |e: String| match analyses::locate(Some(path), None, &e) {
        Some(at) => anyhow!("{at}"),
        None => anyhow!("{}: {e}", path.display()),
    };
    let system = Multibody::new(&model).map_err(|e| located(e.to_string()))?;
    // What `run` would refuse: the run settings when the model has them, else the assembly.
    if model.solver.t_end.is_some() {
        let opts = RunOptions::default();
        Simulation::new(&model, &opts).map_err(|e| {
            analyses::start_error(Some(path), None, set, &opts, &e, |m| {
                anyhow!("{}: {m}", path.display())
            })
        })?;
    } else {
        dynastep::analysis::simulation::assembled(&model, &system)
            .map_err(|e| located(e.to_string()))?;
    }
    println!("{}: ok ({})", path.display(), model.inventory());
    Ok(ExitCode::SUCCESS)
}

fn examples() -> Result<ExitCode> {
    let width = dynastep::examples::EXAMPLES
        .iter()
        .map(|ex| ex.name.len())
        .max()
        .unwrap_or(0);
    for ex in dynastep::examples::EXAMPLES {
        println!(
            "{:<width$} {}\n{:<width$} {}\n",
            ex.name, ex.title, "", ex.description
        );
    }
    println!("Run one with: dynastep run --example NAME");
    Ok(ExitCode::SUCCESS)
}

fn schemes() -> Result<ExitCode> {
    for s in REGISTRY {
        let aliases = if s.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", s.aliases.join(", "))
        };
        println!(
            "{}{aliases}\n  family: {}\n  {}",
            s.name, s.family, s.summary
        );
        for p in s.params {
            println!("  --param {}={}  {}", p.name, p.default, p.description);
        }
        let c = &s.caps;
        println!(
            "  order {}, {}, {}, {} steps; formulations: {}",
            c.order,
            if c.explicit_in_positions {
                "explicit in positions"
            } else {
                "implicit"
            },
            if c.unconditionally_stable {
                "unconditionally stable"
            } else {
                "conditionally stable"
            },
            if c.variable_step { "variable" } else { "fixed" },
            dynastep::formulation::formulations_for(s).join(", ")
        );
        match c.error_estimate {
            Some(e) => println!("  error estimate: {e}"),
            None => println!("  error estimate: none (fixed steps only)"),
        }
        println!("  source: {}\n", s.source);
    }
    Ok(ExitCode::SUCCESS)
}

fn formulations() -> Result<ExitCode> {
    for f in dynastep::formulation::REGISTRY {
        let aliases = if f.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", f.aliases.join(", "))
        };
        println!("{}{aliases}\n  {}", f.name, f.summary);
        println!("  constraints: {}", f.constraint_level);
        let schemes: Vec<&str> = REGISTRY
            .iter()
            .filter(|s| dynastep::formulation::compatible(s, f).is_ok())
            .map(|s| s.name)
            .collect();
        println!("  schemes: {}", schemes.join(", "));
        println!("  source: {}\n", f.source);
    }
    println!(
        "Choose one with: dynastep run --formulation NAME (or [solver] formulation = \"NAME\")"
    );
    Ok(ExitCode::SUCCESS)
}

fn stability(args: StabilityArgs) -> Result<ExitCode> {
    use dynastep::analysis::stability;
    if args.omega_min <= 0.0 || args.omega_max <= args.omega_min || args.points < 2 {
        bail!("need 0 < --omega-min < --omega-max and --points >= 2");
    }
    let omegas = stability::log_grid(args.omega_min, args.omega_max, args.points);
    let mut reports = Vec::new();
    for (name, params) in params_per_scheme(&args.schemes, &args.params)? {
        reports.push(
            stability::analyse(&name, &params, args.xi, &omegas).map_err(|e| anyhow!("{e}"))?,
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join("stability"));
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let csv_path = out.join("stability.csv");
    let csv_file = fs::File::create(&csv_path)
        .with_context(|| format!("cannot create {}", csv_path.display()))?;
    stability::write_csv(&reports, std::io::BufWriter::new(csv_file))
        .map_err(|e| anyhow!("{e}"))?;
    for ext in ["png", "svg"] {
        dynastep_plot::stability::write_chart(&reports, &out.join(format!("stability.{ext}")))
            .map_err(|e| anyhow!("{e}"))?;
    }
    if args.json {
        let objs: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| {
                let mut o = BTreeMap::new();
                o.insert("scheme", serde_json::json!(r.scheme));
                o.insert(
                    "parameters",
                    serde_json::json!(r
                        .parameters
                        .iter()
                        .cloned()
                        .collect::<BTreeMap<String, f64>>()),
                );
                o.insert("xi", serde_json::json!(args.xi));
                o.insert("omega_crit", serde_json::json!(r.omega_crit));
                o.insert("rho_inf", serde_json::json!(r.rho_inf));
                serde_json::json!(o)
            })
            .collect();
        let text = if objs.len() == 1 {
            serde_json::to_string_pretty(&objs[0])?
        } else {
            serde_json::to_string_pretty(&objs)?
        };
        println!("{text}");
    } else {
        println!("{:<34} {:>14} {:>10}", "scheme", "Omega_crit", "rho_inf");
        for r in &reports {
            let crit = r
                .omega_crit
                .map(|w| format!("{w:.10}"))
                .unwrap_or_else(|| "stable".into());
            let params: Vec<String> = r
                .parameters
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let label = if params.is_empty() {
                r.scheme.clone()
            } else {
                format!("{} ({})", r.scheme, params.join(", "))
            };
            println!("{:<34} {:>14} {:>10.6}", label, crit, r.rho_inf);
        }
        println!(
            "wrote {}/stability.csv, stability.png, stability.svg",
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
