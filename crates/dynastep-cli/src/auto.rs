//! How `dynastep run` chooses its pair when not told: `--scheme auto` (or a tolerance without a
//! scheme) takes the stiffness switch (`dynastep::study::switch`); `--scheme trial` and `dynastep
//! compare --auto` the pair measured fastest on the model's trial (`dynastep::study::choice`),
//! with its ranking on the terminal.

use anyhow::{anyhow, bail, Result};
use dynastep::analysis::simulation::RunOptions;
use dynastep::model::settings::StepSettings;
use dynastep::model::Model;
use dynastep::study::choice::{choose_method, Measure, MethodChoice, TRIAL, TRIAL_FRACTION};
use dynastep::study::compare::Record;
use dynastep::study::switch::StiffnessSwitch;

/// How a run's pair is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// The run names its scheme (on the command line or in the model file).
    Named,
    /// `--scheme trial`: measured on a trial (`dynastep::study::choice`).
    Trial,
    /// `--scheme auto` (or, without `--scheme`, `scheme = "auto"` in the model file), or a valid
    /// tolerance on the command line and no scheme on it or in the model file: the stiffness
    /// switch (`dynastep::study::switch`). An invalid tolerance is reported by the run's own
    /// checks.
    Switch,
}

/// How the run's pair is chosen (see [`Wanted`]).
pub fn wanted(scheme: Option<&str>, rtol: Option<f64>, model: &Model) -> Wanted {
    if scheme == Some(TRIAL) {
        Wanted::Trial
    } else if StiffnessSwitch::wanted(scheme, rtol, model) {
        Wanted::Switch
    } else {
        Wanted::Named
    }
}

/// The tolerance of the choice: the command line's, else the model's.
///
/// # Errors
/// When neither gives one, or the command line's is not a valid rtol (the run option's message).
pub fn tolerance(rtol: Option<f64>, model: &Model) -> Result<f64> {
    let Some(given) = rtol else {
        return model.solver.step.rtol.ok_or_else(|| {
            anyhow!("--scheme auto (or scheme = \"auto\" in the model file) and --scheme trial choose the pair for a tolerance: give one with --rtol (e.g. --rtol 1e-6) or [solver.step] rtol")
        });
    };
    // Checked as the run would check it, before the trial says it starts.
    let options = RunOptions {
        step: StepSettings {
            rtol: Some(given),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    options
        .check(&options.overlay(&model.solver))
        .map_err(|e| anyhow!(e))?;
    Ok(given)
}

/// Measures the candidates on the trial of `model` (with `t_end` applied) at `rtol`, every one
/// or in a race (`how`), and chooses; says so unless `quiet`, and prints each trial run as it
/// ends with `each`.
///
/// # Errors
/// The study's message when nothing can be chosen.
pub fn choose(
    model: &Model,
    t_end: Option<f64>,
    rtol: f64,
    how: Measure,
    quiet: bool,
    each: bool,
) -> Result<MethodChoice> {
    let mut model = model.clone();
    if t_end.is_some() {
        model.solver.t_end = t_end;
    }
    if !quiet {
        eprintln!(
            "choosing a scheme for rtol = {rtol:e}: trial runs over the first {:.0} % of the run ...",
            100.0 * TRIAL_FRACTION
        );
    }
    crate::signals::install();
    let mut progress = |r: &Record| {
        if each && !quiet {
            crate::compare::print_record(r);
        }
    };
    let choice = choose_method(
        &model,
        rtol,
        how,
        &mut progress,
        &crate::signals::interrupted,
    )
    .map_err(|e| anyhow!(e))?;
    if crate::signals::interrupted() {
        bail!("interrupted while choosing a scheme");
    }
    Ok(choice)
}

/// Prints the ranking of a choice, best first, the accepted pairs marked.
pub fn print_ranking(c: &MethodChoice) {
    eprintln!(
        "ranking at rtol = {:e} over [{}, {}] s (reference: {}, {:.4} s; accepted: error <= {:.3e}):",
        c.rtol,
        time(c.trial_t_start),
        time(c.trial_t_end),
        c.reference,
        c.reference_time_s,
        c.accepted_error
    );
    // Wide enough for every label, at least 40 characters.
    let width = c
        .ranking
        .iter()
        .map(|r| r.method.chars().count())
        .max()
        .unwrap_or(0)
        .max(40);
    for (k, r) in c.ranking.iter().enumerate() {
        let mark = if r.error.is_finite() && r.error <= c.accepted_error {
            format!("{:>2}.", k + 1)
        } else {
            "  -".to_string()
        };
        if r.error.is_finite() {
            eprintln!(
                "{mark} {:<width$} error {:>10.3e}  {:>10.3e} s  {:>8} steps",
                r.method, r.error, r.cpu_time_s, r.steps
            );
        } else {
            eprintln!("{mark} {:<width$} {}: {}", r.method, r.status, r.note);
        }
    }
    eprintln!("chosen: {}", c.chosen);
}

/// A time in plain digits in the usual range, with an exponent outside it (a trial of 1e-10 s
/// printed as "0.000000").
fn time(t: f64) -> String {
    if t == 0.0 || (1e-3..1e6).contains(&t.abs()) {
        format!("{t}")
    } else {
        format!("{t:e}")
    }
}
