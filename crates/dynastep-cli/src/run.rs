//! `dynastep run`: a dynamic run of a model, its time history and summary on disk. With
//! `--scheme trial` the pair is measured on a trial (`auto.rs`) and the run made again with a
//! pair that passes singular configurations when the chosen one stops at one; with `--scheme
//! auto`, or a tolerance and no scheme, the run takes the stiffness switch
//! (`dynastep::study::switch`): it goes on with the switch's implicit pair, in the same history,
//! from where the first one finds the model stiff, and is made again with it from the start when
//! the first one stops at a singular configuration or fails otherwise.

use std::fs;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use dynastep::analysis::dynamic::{Flow, Observer, RunReport, RunStatus, Sample};
use dynastep::analysis::failure::FailureKind;
use dynastep::analysis::simulation::{RunOptions, Simulation, SimulationError};
use dynastep::analysis::step_control::{StepControl, StepSettings};
use dynastep::io::history::{HistoryColumns, HistoryWriter};
use dynastep::io::summary::Summary;
use dynastep::model::Model;
use dynastep::study::choice::{Measure, MethodChoice};
use dynastep::study::compare::Method;
use dynastep::study::switch::StiffnessSwitch;
use dynastep::system::multibody::Multibody;

use crate::{analyses, auto, parse_params, plots, report_assembly, signals, write_model};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    source: analyses::Source,
    /// Time-integration scheme (see `dynastep schemes`), or `auto`: Adams PECE with projection,
    /// then ESDIRK4(3)6L in stabilized index 2 (index 3 without constraints) from where the model
    /// turns out stiff, or from the start when that pair fails; or `trial`:
    /// the pair of scheme and formulation measured fastest at the tolerance on a trial of the
    /// model (docs/schemes.md). Default: the model's; else `auto` when --rtol is given; else
    /// generalized-alpha.
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
    /// Smallest step of an adaptive run \[s\] (default: 1e-14 of the span).
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
    /// Fixed steps: how many times a step whose Newton iteration fails is halved before the run
    /// stops (default: the model's, else 4; 0 stops at the first failing step).
    #[arg(long = "max-halvings")]
    max_halvings: Option<u32>,
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

impl Progress {
    /// A bar over the run's span, hidden unless `show`.
    fn new(sim: &Simulation, show: bool) -> Self {
        let t0 = sim.initial.t;
        if !show {
            return Progress {
                bar: indicatif::ProgressBar::hidden(),
                t0,
            };
        }
        let bar = indicatif::ProgressBar::new(((sim.settings.t_end - t0) * 1000.0) as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} t = {msg} [{bar:40}] {percent}% ({eta} left)",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Progress { bar, t0 }
    }
}

/// summary.json of `dynastep run`: the run's summary and, with `--scheme auto`, the choice.
#[derive(serde::Serialize)]
struct RunSummary<'a> {
    #[serde(flatten)]
    summary: Summary,
    /// The pair chosen, the trial and every candidate's outcome (`--scheme auto` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    method_choice: Option<&'a MethodChoice>,
    /// The pairs of the stiffness switch and the switch when made (a tolerance without a scheme).
    #[serde(skip_serializing_if = "Option::is_none")]
    stiffness_switch: Option<&'a StiffnessSwitch>,
}

/// A finished (or stopped) run and where its output went.
struct Simulated {
    sim: Simulation,
    report: RunReport,
    history_path: PathBuf,
    summary_path: PathBuf,
    /// Its history writer, flushed, for a run that goes on from its end.
    writer: Option<HistoryWriter<fs::File>>,
}

/// How the pair of a run without a named scheme was chosen.
enum Choice {
    /// `--scheme trial`: measured on a trial (boxed: it keeps the trial).
    Trial(Box<MethodChoice>),
    /// `--scheme auto`, or a tolerance and no scheme: the stiffness switch.
    Switch(Box<StiffnessSwitch>),
}

impl Choice {
    fn method(&self) -> &Method {
        match self {
            Choice::Trial(c) => &c.method,
            Choice::Switch(s) => &s.method,
        }
    }

    fn rtol(&self) -> f64 {
        match self {
            Choice::Trial(c) => c.rtol,
            Choice::Switch(s) => s.rtol,
        }
    }

    /// After a failed run: true when it is to be made again with another pair (said on the
    /// terminal unless `quiet`).
    fn again(&mut self, report: &RunReport, quiet: bool) -> bool {
        let RunStatus::Failed { failed_at, reason } = &report.status else {
            return false;
        };
        let from = self.method().label();
        let (again, why) = match self {
            Choice::Trial(c) => (
                reason.kind == FailureKind::Singular
                    && c.fall_back(*failed_at, reason.to_string(), &crate::signals::interrupted),
                "the first of the ranking whose formulation passes singular configurations",
            ),
            Choice::Switch(s) => (s.after_run(report), "the stiffness switch's implicit pair"),
        };
        if again && !quiet {
            // The failure's own advice was for the pair left; the message says what happened.
            let chosen = self.method().label();
            let how = match self.goes_on() {
                true => "going on from there",
                false => "running again from the start",
            };
            eprintln!(
                "{from} stopped at t = {failed_at:.6} s after {:.3} s: {}; {how} with {chosen}, {why}",
                report.loop_time_s, reason.message
            );
        }
        again
    }

    /// True when the next run goes on from where the last stopped (the stiffness switch after
    /// finding the model stiff), keeping its history.
    fn goes_on(&self) -> bool {
        matches!(self, Choice::Switch(s) if s.goes_on())
    }

    /// The pairs of a run that went on with a second one: `first to t = …, then `.
    fn went_on_from(&self) -> String {
        match self {
            Choice::Switch(s) if s.goes_on() => s
                .switched
                .as_ref()
                .map(|w| format!("{} to t = {:.6} s, then ", w.from, w.stopped_at))
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
}

/// `dynastep run`.
pub fn run(args: RunArgs) -> Result<ExitCode> {
    let src = &args.source;
    let (model, stem) = crate::load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    let mut choice = choose(&args, &model)?;
    // The history written so far, kept when the next run goes on from where the last stopped.
    let mut kept = None;
    loop {
        let mut done = simulate(&args, &model, &stem, choice.as_ref(), kept.take())?;
        if let Some(c) = choice.as_mut() {
            if c.again(&done.report, src.quiet) {
                if c.goes_on() {
                    kept = done.writer.take();
                }
                continue;
            }
        }
        return report_end(&args, &model, &stem, &done, choice.as_ref());
    }
}

/// The choice of `--scheme trial` (printed unless quiet), or the switch of `--scheme auto` and of
/// `--rtol` without a scheme; `None` when the run names its scheme.
fn choose(args: &RunArgs, model: &Model) -> Result<Option<Choice>> {
    let wanted = auto::wanted(args.scheme.as_deref(), args.rtol, model);
    if wanted == auto::Wanted::Named {
        return Ok(None);
    }
    if args.formulation.is_some() || !args.params.is_empty() {
        bail!("--scheme auto, --scheme trial and a tolerance without a scheme choose the scheme, its parameters and the formulation: leave out --formulation and --param, or name the scheme");
    }
    if args.dt.is_some() && args.rtol.is_none() {
        bail!("--dt without --rtol asks for fixed steps, and --scheme auto and trial take steps under error control: give --rtol (--dt is then the first step), or name the scheme");
    }
    let rtol = auto::tolerance(args.rtol, model)?;
    if wanted == auto::Wanted::Switch {
        return Ok(Some(Choice::Switch(Box::new(StiffnessSwitch::new(
            model, rtol,
        )))));
    }
    let c = auto::choose(
        model,
        args.t_end,
        rtol,
        Measure::Race,
        args.source.quiet,
        false,
    )?;
    if !args.source.quiet {
        auto::print_ranking(&c);
    }
    Ok(Some(Choice::Trial(Box::new(c))))
}

/// The run's options: the command line's, with the chosen pair and tolerance when there is a
/// choice.
fn options(args: &RunArgs, choice: Option<&Choice>) -> Result<RunOptions> {
    let (scheme, formulation) = match choice {
        Some(c) => (
            Some(c.method().scheme.clone()),
            c.method().formulation.clone(),
        ),
        None => (args.scheme.clone(), args.formulation.clone()),
    };
    Ok(RunOptions {
        scheme,
        params: parse_params(&args.params)?,
        dt: args.dt,
        t_end: args.t_end,
        output_interval: args.output_interval,
        formulation,
        step: StepSettings {
            rtol: args.rtol.or(choice.map(Choice::rtol)),
            atol: args.atol,
            h_min: args.h_min,
            h_max: args.h_max,
            control: args.step_control,
            max_halvings: args.max_halvings,
            halve_after_iterations: None,
        },
        max_steps: args.max_steps,
        omega_max: args.omega_max,
    })
}

/// Sets up the run, says what it runs, runs it with the history writer (`kept`, when it goes on
/// from the end of the last run), the interrupt watch and a progress bar on a terminal, and
/// writes summary.json (also after a failure).
fn simulate(
    args: &RunArgs,
    model: &Model,
    stem: &str,
    choice: Option<&Choice>,
    kept: Option<HistoryWriter<fs::File>>,
) -> Result<Simulated> {
    let src = &args.source;
    let opts = options(args, choice)?;
    // A chosen index-1 pair stops at a singular configuration, so that `run` can fall back.
    let stopping;
    let model = if choice.is_some() {
        stopping = model.stopping_at_singular_configurations();
        &stopping
    } else {
        model
    };
    let mut sim = Simulation::new(model, &opts).map_err(|e| src.start_error(&opts, &e))?;
    if let Some(Choice::Switch(s)) = choice {
        s.prepare(&mut sim);
    }
    HistoryColumns::check_selection(&sim.system, &sim.model.solver, args.omega_max)
        .map_err(|f| src.start_error(&opts, &SimulationError::Settings(f)))?;
    if !src.quiet {
        announce(&sim, model, stem, choice);
    }
    let out = src
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(stem));
    fs::create_dir_all(&out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    write_model(&out, &sim.model)?;
    let history_path = out.join("history.csv");
    let mut writer = match kept {
        Some(w) => w,
        None => {
            let file = fs::File::create(&history_path)
                .with_context(|| format!("cannot create {}", history_path.display()))?;
            let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, args.omega_max);
            HistoryWriter::with_columns(columns, file)?
        }
    };
    let show = !src.quiet && std::io::stderr().is_terminal();
    let mut progress = Progress::new(&sim, show);
    signals::install();
    let mut watch = signals::watch();
    let report = {
        let mut observers: Vec<&mut dyn Observer<Multibody>> = vec![&mut writer, &mut watch];
        if show {
            observers.push(&mut progress);
        }
        match choice {
            Some(Choice::Switch(s)) => s.run(&mut sim, &mut observers),
            _ => sim.run(&mut observers),
        }
    };
    progress.bar.finish_and_clear();
    writer
        .flush()
        .with_context(|| format!("cannot write {}", history_path.display()))?;
    let summary = RunSummary {
        summary: Summary::new(&sim, &report),
        method_choice: match choice {
            Some(Choice::Trial(c)) => Some(c.as_ref()),
            _ => None,
        },
        stiffness_switch: match choice {
            Some(Choice::Switch(s)) => Some(s.as_ref()),
            _ => None,
        },
    };
    let summary_path = analyses::write_summary(&out, &summary)?;
    Ok(Simulated {
        sim,
        report,
        history_path,
        summary_path,
        writer: Some(writer),
    })
}

/// The run's first lines: model, pair, step policy, what assembly changed, and the redundant
/// constraints it found.
fn announce(sim: &Simulation, model: &Model, stem: &str, choice: Option<&Choice>) {
    let chosen = match choice {
        None => String::new(),
        Some(Choice::Trial(_)) => {
            ", chosen by --scheme trial (the ranking is in summary.json)".to_string()
        }
        Some(Choice::Switch(s)) if s.watches() => format!(
            ", the start of the stiffness switch of --scheme auto: {} if the model turns out stiff or this pair fails",
            s.stiff
        ),
        Some(Choice::Switch(_)) => ", the stiffness switch's implicit pair".to_string(),
    };
    eprintln!(
        "{} with {} ({}){}: {}",
        if model.name.is_empty() {
            stem
        } else {
            &model.name
        },
        sim.scheme.name(),
        sim.settings.formulation,
        chosen,
        sim.step_policy()
    );
    // A run made again with another pair has said the rest already.
    let again = match choice {
        Some(Choice::Trial(c)) => c.fallback.is_some(),
        Some(Choice::Switch(s)) => !s.watches(),
        None => false,
    };
    if again {
        return;
    }
    report_assembly(&sim.system, &sim.initial);
    if !sim.assembly.redundant.is_empty() {
        eprintln!(
            "warning: redundant constraints (rank {} of {}): {} {} on the rows before {} (the dependency involves {}); going on with minimum-norm multipliers",
            sim.assembly.rank,
            sim.assembly.constraints,
            sim.assembly.dependent.join(", "),
            if sim.assembly.dependent.len() == 1 { "depends" } else { "depend" },
            if sim.assembly.dependent.len() == 1 { "it" } else { "them" },
            involved(&sim.assembly.redundant)
        );
    }
}

/// Draws the plot when asked and says how the run ended; the exit status.
fn report_end(
    args: &RunArgs,
    model: &Model,
    stem: &str,
    done: &Simulated,
    choice: Option<&Choice>,
) -> Result<ExitCode> {
    let src = &args.source;
    let Simulated {
        sim,
        report,
        history_path,
        summary_path,
        ..
    } = done;
    let out = history_path.parent().unwrap_or(std::path::Path::new("."));
    if args.plot {
        match plots::plot_folder(out, &[], "plot") {
            Ok((png, _)) if !src.quiet => eprintln!("drew {}", png.display()),
            Ok(_) => {}
            Err(e) => eprintln!("warning: no plot: {e:#}"),
        }
    }
    warn_singular(report);
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    match &report.status {
        RunStatus::Completed => {
            if !src.quiet {
                let steps = if report.tolerances.is_some() {
                    format!(
                        "{} steps ({} rejected, h from {:.2e} to {:.2e} s)",
                        report.steps, report.rejected_steps, report.h_min, report.h_max
                    )
                } else if report.h_min < (1.0 - 1e-9) * sim.settings.h {
                    // Halved steps, or a last step shortened to land on t_end.
                    format!(
                        "{} steps of {} s (the shortest {:.2e} s)",
                        report.steps, sim.settings.h, report.h_min
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
                    "{}: {steps} with {}{} ({}) in {:.3} s; max |E - E0 - W_nc| = {:.3e} J, max |Phi| = {:.3e}\nwrote {} and {}",
                    if model.name.is_empty() { stem } else { &model.name },
                    choice.map(Choice::went_on_from).unwrap_or_default(),
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

/// Warns when an index-1 formulation passed close to a singular configuration, where it may have
/// left the branch of the motion.
fn warn_singular(report: &RunReport) {
    let Some(p) = report.closest_singularity.filter(|p| p.is_singular()) else {
        return;
    };
    if let RunStatus::Failed { reason, .. } = &report.status {
        if reason.kind == FailureKind::Singular {
            return; // the failure says so itself
        }
    }
    eprintln!(
        "warning: at t = {:.6} s the motion passed close to a singular configuration (smallest eigenvalue of [M Phi_q^T; Phi_q 0] at {:.1e} of its largest in the run): an index-1 formulation may leave the branch of the motion there; check the result with --formulation index3 or stabilized-index2, or set [solver.constraints] singular_configuration = \"stop\"",
        p.t, p.ratio
    );
}

/// The rows a dependency involves, for the terminal: each label when there are a few, else the
/// elements they belong to (the label up to the element's quoted name, e.g. ``joint `J0` ``), once
/// each, with the number of rows. Bricard's loop involves 35 rows of 11 elements.
fn involved(labels: &[String]) -> String {
    const FEW: usize = 6;
    if labels.len() <= FEW {
        return labels.join(", ");
    }
    let mut elements: Vec<&str> = Vec::new();
    for label in labels {
        let element = match label.match_indices('`').nth(1) {
            Some((end, _)) => &label[..=end],
            None => label.as_str(),
        };
        if !elements.contains(&element) {
            elements.push(element);
        }
    }
    format!("{} rows of {}", labels.len(), elements.join(", "))
}
