//! Dynamic analysis: the time loop.
//!
//! The loop owns the time t and the step h. From a consistent initial state (see [`super::assembly`])
//! it advances a [`Scheme`] with a [`Formulation`] one step at a time through the shared step routine
//! ([`super::step::solve_step`]):
//!
//! - **fixed steps** (no `rtol`): t_k = t_0 + k·h, computed from k; schemes that accept variable
//!   steps land the last step on t_end, the others step past it and the row at t_end is interpolated;
//! - **adaptive steps** (`rtol` given): the scheme's local error estimate is measured in the norm of
//!   [`super::step_control`], a PI controller chooses the next h, a step whose error is too large or
//!   whose Newton iteration fails is rejected ([`Scheme::reject`]) and retried smaller (the run ends
//!   only below h_min), and steps land exactly on t_end and on the breakpoints of the time functions
//!   ([`System::breakpoints`]).
//!
//! After each committed step the loop's sampler (`sampler.rs`) integrates the work of the
//! non-conservative forces, computes the diagnostics (energy balance, constraint violations;
//! [`super::diagnostics`]) at the output samples, or at every step with
//! [`DiagnosticsAt::EveryStep`], and hands a [`Sample`] to every [`Observer`] at each output time
//! t_0 + k·interval and at t_end, interpolating between steps ([`super::dense_output`]). An
//! observer may stop the run ([`Flow::Stop`]), which is not a failure. A failed step ends the run
//! with [`RunStatus::Failed`] and a typed [`RunFailure`]; everything observed before stays with
//! the observers. The step sizes come from the loop's step sizer (`step_sizer.rs`); the loop
//! itself solves, judges and commits steps.
//!
//! The loop allocates nothing after its set-up (a test with a counting allocator checks it).

use std::time::Instant;

use super::dense_output::{interpolate, PositionInterpolant};
pub use super::diagnostics::ConstraintViolation;
use super::diagnostics::Diagnostics;
pub use super::failure::{FailureKind, ObserverError, RunFailure};
use super::natural_frequency::OmegaMaxRecord;
use super::output_times::OutputTimes;
use super::sampler::{emit_to, Sampler};
use super::start_derivatives::start_derivatives;
use super::step::{filter_through_iteration_matrix, solve_step, StepFailure, StepWork};
use super::step_control::{error_norm, StepSettings, Tolerances};
use super::step_sizer::StepSizer;
use crate::formulation::{
    self, ConstraintSettings, Correction, Formulation, FormulationError, FormulationSettings,
    NewtonSettings, NewtonStats, PhaseTimes, VelocityError,
};
use crate::linalg::Vector;
use crate::model::validate::{positive_problem, span_problem};
use crate::model::SolverSpec;
use crate::scheme::{LocalError, Scheme, State};
use crate::system::{Energy, System};

/// Settings of a dynamic run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicSettings {
    /// Step size h \[s\] with fixed steps; the first step in an adaptive run (0: chosen
    /// automatically).
    pub h: f64,
    /// End time \[s\].
    pub t_end: f64,
    /// Output interval \[s\]; 0 writes every step. Rows fall at t_0 + k·interval and at t_end.
    pub output_interval: f64,
    /// Newton settings of the formulation.
    pub newton: NewtonSettings,
    /// Registry name of the formulation (see [`crate::formulation::REGISTRY`]).
    pub formulation: &'static str,
    /// Settings of the acceleration-level formulations (Baumgarte, projection, partitioning,
    /// hybrid).
    pub constraints: ConstraintSettings,
    /// Error control; adaptive when `step.rtol` is given.
    pub step: StepSettings,
    /// Most steps (accepted and rejected) the run may take; see [`DEFAULT_MAX_STEPS`].
    pub max_steps: u64,
    /// Compute the largest natural frequency ω_max of the integrated system at every committed
    /// step and output time ([`super::natural_frequency`]; allocates, so off by default).
    pub omega_max: bool,
    /// Where the energy balance and the constraint violations are computed, and so what the
    /// report's maxima range over [output samples].
    pub diagnostics: DiagnosticsAt,
    /// Stop the run (failure kind [`FailureKind::Stiff`]) once [`STIFF_STEPS`] committed steps were
    /// bounded by the scheme's stability rather than its accuracy, without a run of a few that
    /// were not
    /// ([`crate::scheme::Scheme::observe_stiffness`]; only Adams PECE estimates it). Set by the
    /// stiffness switch of `dynastep run` (`study/switch.rs`), which then runs an implicit pair;
    /// false by default and from a `[solver]` table.
    pub stop_when_stiff: bool,
}

/// Steps bounded by stability (counted as [`crate::scheme::Scheme::observe_stiffness`] does)
/// after which a run with [`DynamicSettings::stop_when_stiff`] stops: 1.6 times the largest count
/// on the non-stiff examples (see [`crate::scheme::adams::STIFF_RATIO`]), about 1 % of the steps
/// Adams PECE takes on the flyball governor, and reached within the first 1 100 steps on the
/// cantilever and 1 600 on the lateral-buckling beam.
pub const STIFF_STEPS: usize = 300;

pub use crate::model::settings::DiagnosticsAt;

impl DynamicSettings {
    /// The time loop's settings from a `[solver]` table (the model's with the run options over
    /// it, checked by its rules already) and the formulation's registry name: the end time and,
    /// for fixed steps, the step size must be given; the output interval defaults to every fixed
    /// step unless that gives more than about 1000 rows. A top-level `[solver]` setting reaches
    /// the loop here (see "Adding a run setting" in ARCHITECTURE.md).
    ///
    /// # Errors
    /// A settings [`RunFailure`] when the end time or the step size is missing, or the output
    /// times cannot be laid out.
    pub fn from_solver(
        solver: &SolverSpec,
        formulation: &'static str,
        omega_max: bool,
    ) -> Result<Self, RunFailure> {
        let t0 = solver.t_start.unwrap_or(0.0);
        let t_end = solver.t_end.ok_or_else(|| {
            RunFailure::settings("no end time: give --t-end or set t_end in [solver]")
        })?;
        let span = t_end - t0;
        let adaptive = solver.step.resolve(span)?.is_some();
        let h = match solver.dt {
            Some(h) => h,
            // Adaptive: the first step is chosen automatically.
            None if adaptive => 0.0,
            None => return Err(RunFailure::settings(
                "no step size: give --dt or set dt in [solver] (or give rtol for adaptive steps)",
            )),
        };
        let output_interval = solver.output_interval.unwrap_or_else(|| {
            if adaptive || span / h > 1000.0 {
                span / 1000.0
            } else {
                0.0
            }
        });
        OutputTimes::new(t0, output_interval, t_end)?;
        Ok(DynamicSettings {
            h,
            t_end,
            output_interval,
            newton: solver.newton,
            formulation,
            constraints: solver.constraints,
            step: solver.step,
            max_steps: solver.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
            omega_max,
            diagnostics: solver.diagnostics,
            stop_when_stiff: false,
        })
    }

    /// Where the run computes its diagnostics: every committed step when asked for, and in every
    /// adaptive run (its output rows are interpolated between steps, and the interpolation's error
    /// is not the method's); else the output samples.
    pub fn diagnostics_in_force(&self) -> DiagnosticsAt {
        if self.step.rtol.is_some() {
            DiagnosticsAt::EveryStep
        } else {
            self.diagnostics
        }
    }
}

/// Default of [`DynamicSettings::max_steps`]: 10⁹ steps, hours of computing for the largest
/// examples; a model asking for more is almost always a typo in `dt` or `t_end`.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000_000;

impl Default for DynamicSettings {
    /// h = 0, t_end = 0, every step written, default Newton settings, index-3, fixed steps, no ω_max.
    fn default() -> Self {
        DynamicSettings {
            h: 0.0,
            t_end: 0.0,
            output_interval: 0.0,
            newton: NewtonSettings::default(),
            formulation: "index3",
            constraints: ConstraintSettings::default(),
            step: StepSettings::default(),
            max_steps: DEFAULT_MAX_STEPS,
            omega_max: false,
            diagnostics: DiagnosticsAt::OutputSamples,
            stop_when_stiff: false,
        }
    }
}

/// What an observer sees at an output time.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    /// The state (t, q, v, a, λ), interpolated between steps when the output time falls inside one.
    pub state: &'a State,
    /// Kinetic and potential energy \[J\].
    pub energy: Energy,
    /// Work of non-conservative applied forces and driving constraints since the start \[J\].
    pub work_nc: f64,
    /// Energy balance E − E_0 − W_nc \[J\]; zero for the exact solution.
    pub energy_balance: f64,
    /// Constraint violations.
    pub violation: ConstraintViolation,
    /// Size of the step that contains this time \[s\] (0 at the start).
    pub h: f64,
    /// Accepted steps so far.
    pub steps: u64,
    /// Rejected steps so far.
    pub rejected: u64,
    /// Newton iterations so far.
    pub newton_iterations: u64,
    /// Largest natural frequency of the integrated system at this state \[rad/s\] when the run
    /// computes it ([`DynamicSettings::omega_max`]); NaN where it cannot be computed.
    pub omega_max: Option<f64>,
}

impl<'a> Sample<'a> {
    /// The sample at the start of a run: the consistent state `x0` with its energy `e0`,
    /// violations `v0` and ω_max, nothing done yet.
    fn start(x0: &'a State, e0: Energy, v0: ConstraintViolation, omega_max: Option<f64>) -> Self {
        Sample {
            state: x0,
            energy: e0,
            work_nc: 0.0,
            energy_balance: 0.0,
            violation: v0,
            h: 0.0,
            steps: 0,
            rejected: 0,
            newton_iterations: 0,
            omega_max,
        }
    }
}

/// An observer's answer: go on, or stop the run (which is not a failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Stop the run here; its status becomes [`RunStatus::Stopped`].
    Stop,
}

/// Receives samples of a run (writers, progress bars, recorders, stopping criteria).
pub trait Observer<S: System> {
    /// Called at t_0 and at each output time.
    ///
    /// # Errors
    /// Why the sample cannot be taken; the run stops with a [`FailureKind::Observer`] failure.
    fn sample(&mut self, system: &S, sample: &Sample<'_>) -> Result<Flow, ObserverError>;

    /// Polled after every accepted step: true ends the run at this step boundary with
    /// [`RunStatus::Interrupted`] (a signal from the user, a deadline). The default is false.
    fn interrupted(&self) -> bool {
        false
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Reached t_end.
    Completed,
    /// An observer asked to stop (not a failure).
    Stopped {
        /// Time of the sample at which it stopped \[s\].
        stopped_at: f64,
    },
    /// Interrupted from outside (an observer's [`Observer::interrupted`], e.g. Ctrl-C) at a step
    /// boundary; everything up to that time is complete.
    Interrupted {
        /// Time of the last committed step \[s\].
        interrupted_at: f64,
    },
    /// Stopped early.
    Failed {
        /// Time of the last completed state \[s\].
        failed_at: f64,
        /// Why.
        reason: RunFailure,
    },
}

/// Statistics and diagnostics of a run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How the run ended.
    pub status: RunStatus,
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps (error too large or Newton failure).
    pub rejected_steps: u64,
    /// Smallest, largest and summed size of the accepted steps \[s\].
    pub h_min: f64,
    /// Largest accepted step \[s\].
    pub h_max: f64,
    /// Sum of the accepted steps \[s\] (the mean is `h_sum / steps`).
    pub h_sum: f64,
    /// The error-control settings in force, `None` for fixed steps.
    pub tolerances: Option<Tolerances>,
    /// Newton counters over the run (rejected steps included).
    pub newton: NewtonStats,
    /// Largest number of Newton iterations in one step.
    pub max_iterations_per_step: u64,
    /// Committed steps the formulation corrected after the fact (projection, partitioning).
    pub corrections: u64,
    /// Restarts of the scheme the formulation asked for (new independent coordinates), with the
    /// time of the first one \[s\].
    pub restarts: u64,
    /// Time of the first restart \[s\] (NaN when none).
    pub first_restart: f64,
    /// Wall time of the integration alone \[s\]: the time loop without the steps that emit
    /// output samples (their diagnostics, interpolation and observers). Measured as the loop's
    /// time less the time of those steps, so that no clock is read on the other steps.
    pub wall_time_s: f64,
    /// Wall time of the whole time loop: integration, diagnostics and observers \[s\].
    pub loop_time_s: f64,
    /// Largest |E − E_0 − W_nc| over the committed steps where
    /// [`DynamicSettings::diagnostics_in_force`] computes it: every step, or the output samples
    /// \[J\]. NaN when any of them was NaN.
    pub max_energy_error: f64,
    /// Largest constraint violations, over the same states as `max_energy_error`.
    pub max_violation: ConstraintViolation,
    /// Largest |E − E_0 − W_nc| over the output rows the observers got, interpolated ones
    /// included \[J\]. Between the steps of an adaptive run the interpolation's own error adds to
    /// the method's, so this can be far larger than `max_energy_error`.
    pub max_energy_error_rows: f64,
    /// Largest constraint violations over the output rows (see `max_energy_error_rows`).
    pub max_violation_rows: ConstraintViolation,
    /// The last complete state (at t_end for a completed run).
    pub final_state: State,
    /// Work of the non-conservative forces and drivers from the start to `final_state` \[J\].
    pub final_work_nc: f64,
    /// Time of the start \[s\] (of the first run, for a run that went on from another's end).
    pub t_start: f64,
    /// Time of the last output row the observers got \[s\]; a run going on from this one's end
    /// writes the rows after it.
    pub last_row_t: f64,
    /// Energy at the start \[J\].
    pub initial_energy: Energy,
    /// The largest ω_max over the committed steps and its time, when the run computes it.
    pub omega_max: Option<OmegaMaxRecord>,
    /// Time of the time loop spent in the parts of the Newton iteration (zero where the
    /// formulation does not measure it).
    pub phase_times: PhaseTimes,
    /// The first passage through a singular configuration, else the closest approach to one, for
    /// the index-1 formulations that watch for them (`formulation/singularity.rs`).
    pub closest_singularity: Option<crate::formulation::singularity::Passage>,
    /// What the scheme did that its settings do not say ([`Scheme::notes`]), and the step sizer's
    /// note on split steps.
    pub notes: Vec<String>,
    /// Fixed steps taken in parts after their Newton iteration failed (`[solver.step]
    /// max_halvings`); their failed attempts count in `rejected_steps`.
    pub halved_steps: u64,
}

impl RunReport {
    fn new(x0: &State, e0: Energy, v0: ConstraintViolation, tol: Option<Tolerances>) -> Self {
        RunReport {
            status: RunStatus::Completed,
            steps: 0,
            rejected_steps: 0,
            h_min: f64::INFINITY,
            h_max: 0.0,
            h_sum: 0.0,
            tolerances: tol,
            newton: NewtonStats::default(),
            max_iterations_per_step: 0,
            corrections: 0,
            restarts: 0,
            first_restart: f64::NAN,
            wall_time_s: 0.0,
            loop_time_s: 0.0,
            max_energy_error: 0.0,
            max_violation: v0,
            max_energy_error_rows: 0.0,
            max_violation_rows: v0,
            final_state: x0.clone(),
            final_work_nc: 0.0,
            t_start: x0.t,
            last_row_t: x0.t,
            initial_energy: e0,
            omega_max: None,
            phase_times: PhaseTimes::default(),
            closest_singularity: None,
            notes: Vec::new(),
            halved_steps: 0,
        }
    }

    /// The report a run going on from this one's end starts with ([`go_on`]): its counters, times
    /// and maxima, the status reset, and the error-control settings `tol` of the new run.
    fn going_on(&self, tol: Option<Tolerances>) -> RunReport {
        let mut r = self.clone();
        r.status = RunStatus::Completed;
        r.tolerances = tol;
        r
    }

    /// Replaces the advice of a divergence (the energy watch's failure) with `advice`.
    fn advise_diverged(&mut self, advice: &str) {
        if let RunStatus::Failed { reason, .. } = &mut self.status {
            if matches!(reason.kind, FailureKind::Diverged | FailureKind::NonFinite) {
                reason.advice = Some(advice.into());
            }
        }
    }

    fn fail(&mut self, at: f64, reason: RunFailure) {
        self.status = RunStatus::Failed {
            failed_at: at,
            reason,
        };
    }

    fn count(&mut self, step: &NewtonStats) {
        self.newton.iterations += step.iterations;
        self.newton.factorizations += step.factorizations;
        self.newton.refactorizations += step.refactorizations;
        self.newton.jacobians += step.jacobians;
        self.newton.residuals += step.residuals;
        self.newton.least_squares_solves += step.least_squares_solves;
        self.newton.pinned_solves += step.pinned_solves;
        self.newton.floor_acceptances += step.floor_acceptances;
        self.max_iterations_per_step = self.max_iterations_per_step.max(step.iterations);
    }
}

/// Runs a dynamic analysis of `sys` with `scheme` from the consistent state `x0` (n coordinates, m
/// multipliers) to `settings.t_end`, with the formulation named in `settings`.
///
/// Never panics on a numerical failure or bad settings: the report then has [`RunStatus::Failed`],
/// the time of the last complete state and the reason.
///
/// # Panics
/// When the shapes of `x0` do not match the system.
pub fn run<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    x0: &State,
    settings: &DynamicSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    built_and_run(sys, scheme, x0, settings, None, observers)
}

/// Goes on with `scheme` in the formulation of `settings` from the end of the run `before` of the
/// same system (its `final_state`, whose accelerations and multipliers start the new scheme:
/// consistent ones after an acceleration-level formulation, as the switch's first pair is) to
/// `settings.t_end`: the stiffness switch's second pair (`study/switch.rs`). The report is `before`'s with this run's counters, times and maxima added;
/// the energy balance keeps E_0 and W_nc of the start of `before`; the output rows keep its
/// schedule t_0 + k·interval, from the first after `before`'s end (whose rows the observers have
/// had: they get no sample at the start).
///
/// # Panics
/// When the shapes of `before.final_state` do not match the system.
pub fn go_on<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    before: &RunReport,
    settings: &DynamicSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    let x0 = &before.final_state;
    built_and_run(sys, scheme, x0, settings, Some(before), observers)
}

/// [`run_from`] with the formulation named in `settings`, built here; a formulation that cannot
/// be built fails the run.
fn built_and_run<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    x0: &State,
    settings: &DynamicSettings,
    before: Option<&RunReport>,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    let built = FormulationSettings {
        newton: newton_for(settings),
        constraints: settings.constraints,
    };
    match formulation::build::<S>(settings.formulation, sys.n(), sys.m(), &built) {
        Ok(mut f) => run_from(sys, scheme, f.as_mut(), x0, settings, before, observers),
        Err(reason) => {
            let mut r = match before {
                Some(b) => b.going_on(b.tolerances),
                None => RunReport::new(x0, Energy::default(), Default::default(), None),
            };
            r.fail(x0.t, RunFailure::settings(reason.to_string()));
            r
        }
    }
}

/// Newton's share of the error budget in an adaptive run: its position tolerance is at most
/// κ·rtol, so that the iteration error stays below the local error the controller allows (Hairer &
/// Wanner 1996, *Solving Ordinary Differential Equations II*, §IV.8, κ between 0.01 and 0.1).
pub const NEWTON_KAPPA: f64 = 0.01;

/// The Newton settings of a run: those given, with the position tolerance tightened to
/// [`NEWTON_KAPPA`]·rtol in an adaptive run (but not below 1e-13).
pub fn newton_for(settings: &DynamicSettings) -> NewtonSettings {
    let mut newton = settings.newton;
    if let Some(rtol) = settings.step.rtol {
        // Not below 1e-13 (relative to 1 + |q|): a few hundred roundoffs, where Newton stalls.
        newton.position_tol = newton.position_tol.min((NEWTON_KAPPA * rtol).max(1e-13));
    }
    newton
}

/// [`run`] with a formulation the caller built.
///
/// # Panics
/// When the shapes of `x0` do not match the system.
pub fn run_with<S: System, F: Formulation<S> + ?Sized>(
    sys: &S,
    scheme: &mut dyn Scheme,
    formulation: &mut F,
    x0: &State,
    settings: &DynamicSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    run_from(sys, scheme, formulation, x0, settings, None, observers)
}

/// [`run_with`] from `x0`, or going on from the end of the run `before` ([`go_on`]), whose
/// counters, maxima, energy reference and output schedule it keeps.
fn run_from<S: System, F: Formulation<S> + ?Sized>(
    sys: &S,
    scheme: &mut dyn Scheme,
    formulation: &mut F,
    x0: &State,
    settings: &DynamicSettings,
    before: Option<&RunReport>,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    let (n, m) = (sys.n(), sys.m());
    assert_eq!((x0.q.len(), x0.lambda.len()), (n, m), "initial state shape");
    let (mut diag, e0) = Diagnostics::new(sys, x0);
    let v0 = diag.violation(sys, x0);
    // The whole run's span, also when going on: "per unit step" shares its tolerance over it.
    let tol = settings
        .step
        .resolve(settings.t_end - before.map_or(x0.t, |b| b.t_start));
    let tolerances = tol.clone().ok().flatten();
    let mut report = match before {
        Some(b) => {
            diag.e0 = b.initial_energy.kinetic + b.initial_energy.potential;
            diag.work = b.final_work_nc;
            b.going_on(tolerances)
        }
        None => RunReport::new(x0, e0, v0, tolerances),
    };
    let checked = check_settings(settings, x0.t, scheme, sys.m())
        .and(tol)
        .and_then(|tol| Ok((output_times(settings, &report)?, tol)));
    let (outputs, tol) = match checked {
        Ok(ok) => ok,
        Err(e) => {
            report.fail(x0.t, e);
            return report;
        }
    };
    let diagnostics = (diag, e0);
    let mut tl = TimeLoop::new(
        sys,
        scheme,
        formulation,
        x0,
        settings,
        tol,
        outputs,
        diagnostics,
    );
    // Going on from `before`, the start is its end, sampled there already.
    tl.sample_start_and_integrate(observers, &mut report, before.is_none().then_some(v0));
    report
}

/// The output times of a run whose report so far is `report`: t_start + k·interval of the
/// report's start, after its last row (the start's, or that of the run it goes on from).
fn output_times(settings: &DynamicSettings, report: &RunReport) -> Result<OutputTimes, RunFailure> {
    let mut outputs = OutputTimes::new(report.t_start, settings.output_interval, settings.t_end)?;
    outputs.skip_through(report.last_row_t, 0.0);
    Ok(outputs)
}

/// Checks the settings of a run of `scheme` from `t0` on a system with m constraints before its
/// first step.
///
/// # Errors
/// A [`FailureKind::Settings`] failure when the span is empty, a fixed step is not positive or
/// does not advance the time, the error-control settings are invalid, or the run is adaptive and
/// the scheme has no error estimate, needs a constant step or cannot let its step grow
/// ([`Scheme::max_step_increase`] of 1), or (m > 0) the formulation refuses
/// `rtol` for the scheme on constrained models
/// ([`crate::catalog::FormulationInfo::rtol_refused`]).
pub fn check_settings(
    settings: &DynamicSettings,
    t0: f64,
    scheme: &dyn Scheme,
    m: usize,
) -> Result<(), RunFailure> {
    if let Some(problem) = span_problem(t0, settings.t_end) {
        return Err(RunFailure::settings(problem).at_setting("solver.t_end"));
    }
    let span = settings.t_end - t0;
    let caps = scheme.capabilities();
    let resolved = settings.step.resolve(span)?;
    if let Some(problem) = positive_problem("dt", settings.h).filter(|_| resolved.is_none()) {
        return Err(RunFailure::settings(problem).at_setting("solver.dt"));
    }
    let problem = match resolved {
        None if t0 + settings.h == t0 || settings.t_end + settings.h == settings.t_end => Some(format!(
            "step size dt = {:e} s does not advance the time at t = {:e} s (below the floating-point spacing); use a larger step",
            settings.h, settings.t_end.abs().max(t0.abs())
        )),
        None if span / settings.h > settings.max_steps as f64 => Some(format!(
            "dt = {:e} s over [{t0}, {}] s asks for {:.3e} steps, more than max_steps = {}; raise `max_steps` in [solver] (or --max-steps) if you mean it",
            settings.h,
            settings.t_end,
            span / settings.h,
            settings.max_steps
        )),
        Some(_) if caps.error_estimate.is_none() => Some(format!(
            "scheme `{}` has no local error estimate, so it cannot run with rtol; run it with fixed steps (no rtol), or choose a scheme with an estimate (see `dynastep schemes`)",
            scheme.name()
        )),
        Some(_) if !caps.variable_step => Some(format!(
            "scheme `{}` needs a constant step, so it cannot run with rtol; run it with fixed steps (no rtol)",
            scheme.name()
        )),
        Some(_) if scheme.max_step_increase() <= 1.0 => Some(format!(
            "scheme `{}` with these parameters cannot let its step grow (its variable-step formula would put the parasitic roots near the unit circle), so it cannot run with rtol; lower rho_inf (lms2: below 1; lms3: below 0.8) or use its single-step twin (ss2, ss3), or run with fixed steps",
            scheme.name()
        )),
        Some(_) if m > 0 => rtol_refusal(settings.formulation, scheme.name()),
        _ => None,
    };
    // Every problem above is about the step: its size, or the tolerance that asks for control.
    let setting = if resolved.is_some() {
        "solver.step.rtol"
    } else {
        "solver.dt"
    };
    problem.map_or(Ok(()), |p| Err(RunFailure::settings(p).at_setting(setting)))
}

/// What to do when the local error of a run in `formulation` on a system with `m` constraint
/// rows cannot be brought within the tolerances above h_min: the general remedies, and with
/// constraints the formulation whose estimate holds to tighter tolerances when the registry names
/// one (`rtol_instead`: index 3 names stabilized index 2, whose velocities satisfy their
/// constraint; docs/schemes.md, "Error control on constrained models").
fn error_control_advice(formulation: &str, m: usize) -> String {
    let general = "loosen rtol and atol or lower h_min, or choose a scheme or formulation whose error estimate suits the model (docs/schemes.md gives each estimate's limits)";
    match formulation::find(formulation).map(|f| f.rtol_instead) {
        Some(instead) if m > 0 && !instead.is_empty() => format!(
            "{general}; `--formulation {instead}` with the same scheme holds to tighter tolerances on constrained models (docs/schemes.md, \"Error control on constrained models\")"
        ),
        _ => general.to_string(),
    }
}

/// Why `formulation` cannot control the error of `scheme` on a constrained model, when its
/// registry entry says so ([`crate::catalog::FormulationInfo::rtol_refused`]), with the
/// formulation it recommends instead (`rtol_instead`), or a dissipative scheme when it names none.
fn rtol_refusal(formulation: &str, scheme: &str) -> Option<String> {
    let info = formulation::find(formulation)?;
    let refusal = info.rtol_refused.iter().find(|r| r.scheme == scheme)?;
    let instead = if info.rtol_instead.is_empty() {
        "a scheme with numerical dissipation (`--scheme generalized-alpha`) in the same formulation"
            .to_string()
    } else {
        format!("`--formulation {}` with the same scheme", info.rtol_instead)
    };
    Some(format!(
        "scheme `{scheme}` with formulation `{}` cannot run with rtol on a constrained model: {}; use {instead}, or fixed steps (docs/schemes.md, \"Error control on constrained models\")",
        info.name, refusal.reason
    ))
}

/// The state of one run of the loop: the scheme, the formulation and the step's work space,
/// the reported states, and its two parts, the [`StepSizer`] (time and step size) and the
/// [`Sampler`] (diagnostics and output). The loop itself commits steps.
struct TimeLoop<'a, S: System, F: Formulation<S> + ?Sized> {
    sys: &'a S,
    scheme: &'a mut dyn Scheme,
    form: &'a mut F,
    settings: &'a DynamicSettings,
    sizer: StepSizer,
    sampler: Sampler,
    work: StepWork,
    err: LocalError,
    /// True while the step being taken is a retake ([`Correction::Retake`]).
    retaking: bool,
    /// The last two reported complete states.
    previous: State,
    state: State,
    /// The work of the step just committed by the scheme's own quadrature, if it has one \[J\].
    step_work: Option<f64>,
    /// How the formulation's velocity errors enter the error norm.
    velocity_error: VelocityError,
    /// The noise of the formulation's states or of the scheme's estimate, whichever is larger, in
    /// units of ε max|q_i| (`FormulationInfo::estimate_floor`, `Capabilities::estimate_noise`).
    estimate_floor: f64,
    /// The newest level at the start of a step, for a variable-order scheme's choice of order.
    x_n: State,
    /// Force terms Φ_qᵀλ − Q (n) of a state the scheme is (re)started from.
    force_terms: Vector,
}

/// (Re)starts `scheme` from the consistent state `x`, with its force terms Φ_qᵀλ − Q written into
/// `force_terms` (n) for schemes with a force history (HHT), and the derivatives above the
/// acceleration for schemes that take them (G4, G5 with a consistent start), by central
/// differences of step `h` \[s\] ([`start_derivatives`]).
fn start_scheme<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    x: &State,
    h: f64,
    force_terms: &mut Vector,
) {
    sys.forces(x.t, &x.q, &x.v, force_terms);
    force_terms.neg_mut();
    if sys.m() > 0 {
        sys.add_constraint_force(x.t, &x.q, &x.lambda, force_terms);
    }
    scheme.start(x, force_terms);
    let count = scheme.start_derivatives();
    if count > 0 && h > 0.0 && h.is_finite() {
        scheme.set_start_derivatives(&start_derivatives(sys, x, h, count));
    }
}

impl<'a, S: System, F: Formulation<S> + ?Sized> TimeLoop<'a, S, F> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        sys: &'a S,
        scheme: &'a mut dyn Scheme,
        form: &'a mut F,
        x0: &State,
        settings: &'a DynamicSettings,
        tol: Option<Tolerances>,
        outputs: OutputTimes,
        (mut diag, e0): (Diagnostics, Energy),
    ) -> Self {
        let (n, m) = (sys.n(), sys.m());
        // Force terms Φ_qᵀλ − Q at the start, for schemes with a force history (HHT).
        let mut f0 = Vector::zeros(n);
        start_scheme(sys, &mut *scheme, x0, settings.h, &mut f0);
        let caps = scheme.capabilities();
        let (velocity_error, formulation_floor) = formulation::find(form.name())
            .map_or((VelocityError::ScaledByStep, 0.0), |f| {
                (f.velocity_error, f.estimate_floor)
            });
        let estimate_floor = formulation_floor.max(caps.estimate_noise);
        let max_increase = scheme.max_step_increase();
        let positions = PositionInterpolant::for_formulation(velocity_error);
        diag.choose_quadrature(&caps, (n, m), positions);
        let linearized = settings
            .omega_max
            .then(|| formulation::find(settings.formulation).map(|f| f.linearized))
            .flatten();
        let at = settings.diagnostics_in_force();
        let mut work = StepWork::new(n, m);
        work.retry_failed_points = tol.is_none();
        TimeLoop {
            sys,
            scheme,
            form,
            settings,
            sizer: StepSizer::new(
                sys,
                x0,
                (settings.t_end, settings.h),
                tol,
                (&caps, max_increase),
                &settings.step,
            ),
            sampler: Sampler::new(x0, outputs, (diag, e0), at, (linearized, positions)),
            work,
            err: LocalError::zeros(n),
            retaking: false,
            previous: x0.clone(),
            step_work: None,
            state: x0.clone(),
            velocity_error,
            estimate_floor,
            x_n: x0.clone(),
            force_terms: f0,
        }
    }

    /// Hands the observers the sample of the start (with its constraint violations `start`;
    /// `None` for a run going on from another's end, whose last row it was), then integrates.
    fn sample_start_and_integrate(
        &mut self,
        observers: &mut [&mut dyn Observer<S>],
        report: &mut RunReport,
        start: Option<ConstraintViolation>,
    ) {
        if let Some(v0) = start {
            let x0 = &self.state;
            let omega = self.sampler.omega_at(self.sys, x0);
            if let Some(w) = omega {
                OmegaMaxRecord::update(&mut report.omega_max, w, x0.t);
            }
            let sample0 = Sample::start(x0, report.initial_energy, v0, omega);
            if !emit_to(self.sys, observers, &sample0, report) {
                return;
            }
        }
        self.integrate(observers, report);
    }

    /// Steps until the reported state reaches t_end, a step fails, or an observer stops the run.
    fn integrate(&mut self, observers: &mut [&mut dyn Observer<S>], report: &mut RunReport) {
        let t_end = self.settings.t_end;
        let t_tol = 1e-9 * self.sizer.h_next.min(self.settings.t_end - self.state.t);
        let loop_clock = Instant::now();
        let phases = self.form.phase_times();
        while self.state.t < t_end - t_tol {
            let stepped = match self.sizer.tol {
                None => self.fixed_step(report),
                Some(tol) => self.adaptive_step(&tol, report),
            };
            match stepped {
                Ok(h) => {
                    // The clock is read only around the steps that emit samples (reading it at
                    // every step cost 8 % of a pendulum step).
                    let clock = self
                        .sampler
                        .due(&self.previous, &self.state)
                        .then(Instant::now);
                    let go_on = self.after_step(h, observers, report);
                    if let Some(c) = clock {
                        self.sampler.sampling += c.elapsed().as_secs_f64();
                    }
                    if !go_on {
                        break;
                    }
                    // After the step's samples: a run that goes on from this state with another
                    // pair writes the rows after it. Not at the end: nothing is left to go on with.
                    let more = self.state.t < t_end - t_tol;
                    let stiff = if more { self.check_stiffness() } else { Ok(()) };
                    if let Err(reason) = stiff {
                        report.fail(self.state.t, reason);
                        break;
                    }
                    if observers.iter().any(|o| o.interrupted()) {
                        report.status = RunStatus::Interrupted {
                            interrupted_at: self.state.t,
                        };
                        break;
                    }
                }
                Err(reason) => {
                    report.fail(self.state.t, reason);
                    break;
                }
            }
        }
        // Added to those of the run this one went on from, if any (`go_on`).
        let loop_time_s = loop_clock.elapsed().as_secs_f64();
        report.loop_time_s += loop_time_s;
        report.wall_time_s += (loop_time_s - self.sampler.sampling).max(0.0);
        report
            .phase_times
            .add(&self.form.phase_times().since(&phases));
        let closest = self.form.closest_singularity();
        report.closest_singularity = closest.or(report.closest_singularity.take());
        report.notes.extend(self.notes());
        report.halved_steps += self.sizer.halvings.steps;
        self.report_end(report);
    }

    /// The report's final state and W_nc: the last committed state's, or t_end's for a scheme
    /// that stepped past it (fixed steps it cannot shorten), interpolated.
    fn report_end(&mut self, report: &mut RunReport) {
        let t_end = self.settings.t_end;
        if matches!(report.status, RunStatus::Completed) && self.state.t > t_end {
            let end = &mut self.sampler.interpolated;
            interpolate(
                &self.previous,
                &self.state,
                t_end,
                self.sampler.positions,
                end,
            );
            report.final_state.copy_from(end);
            let h = self.state.t - self.previous.t;
            let theta = (t_end - self.previous.t) / h;
            report.final_work_nc = self.sampler.diag.work_within(theta, h);
        } else {
            report.final_state.copy_from(&self.state);
            report.final_work_nc = self.sampler.diag.work;
        }
    }

    /// What the run did that its settings do not say: the scheme's notes, the points solved again
    /// and the steps halved.
    fn notes(&self) -> Vec<String> {
        let mut notes = self.scheme.notes();
        notes.extend(self.work.retried.note());
        notes.extend(self.sizer.halving_note());
        notes
    }

    /// Adds a step's Newton counters to the report; after a singular iteration matrix solved by least
    /// squares the multipliers are no longer unique, and their Newton start stops being
    /// extrapolated (a pinned solve keeps it, see [`crate::scheme::predictor::predict`]).
    fn count(&mut self, stats: &NewtonStats, report: &mut RunReport) {
        report.count(stats);
        if stats.least_squares_solves > 0 {
            self.work.pt.extrapolate_multipliers = false;
        }
    }

    /// Solves the step of size `h` from `t_n` (no commit; [`solve_step`]).
    fn solve(&mut self, t_n: f64, h: f64, stats: &mut NewtonStats) -> Result<(), StepFailure> {
        let (sys, form, work) = (self.sys, &mut *self.form, &mut self.work);
        solve_step(sys, self.scheme, form, work, t_n, h, stats, None)
    }

    /// One fixed step (or one part of a fixed step split after a Newton failure, see
    /// [`StepSizer::halve`]); returns its size.
    fn fixed_step(&mut self, report: &mut RunReport) -> Result<f64, RunFailure> {
        // The retries the whole step had; its parts have none (the halving is their retry).
        let mut retried = "";
        loop {
            let (t_n, step) = self.sizer.fixed();
            // The grid's steps were checked against `max_steps` before the run; the parts of
            // split steps add to them.
            self.check_step_allowed(t_n, step, report)?;
            self.work.retry_failed_points = self.sizer.halvings_of_current_step() == 0;
            self.form.set_iteration_limit(self.sizer.iteration_limit());
            let mut stats = NewtonStats::default();
            let solved = self.solve(t_n, step, &mut stats);
            self.count(&stats, report);
            if let Err(f) = solved {
                self.scheme.reject();
                if self.work.retry_failed_points {
                    retried = f.retries;
                }
                // A smaller step leads into a singular configuration, not past it, and does not
                // lower the rounding level at which an iteration stalled.
                let smaller_helps = matches!(
                    f.error,
                    FormulationError::NotConverged { .. } | FormulationError::NonFinite
                );
                let over_limit = f
                    .error
                    .stopped_at_limit(self.form.settings().max_iterations);
                if smaller_helps && self.sizer.halve(over_limit) {
                    report.rejected_steps += 1;
                    continue;
                }
                return Err(self.fixed_step_failed(&f, retried));
            }
            if self.commit(t_n + step, step, report)? {
                return Ok(step);
            }
        }
    }

    /// The failure `f` of a fixed step whose Newton iteration failed after the `retried` retries
    /// (in words) and its halvings.
    fn fixed_step_failed(&self, f: &StepFailure, retried: &str) -> RunFailure {
        let mut tried = retried.to_string();
        let halvings = self.sizer.halvings_of_current_step();
        if halvings > 0 {
            if !tried.is_empty() {
                tried.push_str(", ");
            }
            tried.push_str(&format!("in 2^{halvings} parts of the step"));
        }
        let at = format!(
            "step from t = {:.9} s (point {} of the step at t = {:.9} s{}): ",
            self.state.t,
            f.point,
            f.t_e,
            if tried.is_empty() {
                String::new()
            } else {
                format!("; tried again {tried}")
            }
        );
        self.explain(at, f)
    }

    /// Tries steps until one is accepted; returns its size.
    fn adaptive_step(
        &mut self,
        tol: &Tolerances,
        report: &mut RunReport,
    ) -> Result<f64, RunFailure> {
        loop {
            let t_n = self.sizer.t_front;
            let (h, t_next) = self.sizer.adaptive(t_n, tol);
            self.check_step_allowed(t_n, h, report)?;
            let mut stats = NewtonStats::default();
            let solved = self.solve(t_n, h, &mut stats);
            let retry = match solved {
                Err(f) => self.newton_failed(t_n, h, &f, &stats, tol, report)?,
                Ok(()) => match self.judge_step(t_n, h, &mut stats, tol, report)? {
                    Some(h_new) => h_new,
                    None => {
                        if self.commit(t_next, h, report)? {
                            return Ok(h);
                        }
                        continue;
                    }
                },
            };
            self.sizer.h_next = retry;
        }
    }

    /// Refuses a step `h` from `t_n` that does not advance the time or whose square underflows,
    /// or one more step than `max_steps`.
    fn check_step_allowed(&self, t_n: f64, h: f64, report: &RunReport) -> Result<(), RunFailure> {
        if t_n + h == t_n {
            return Err(RunFailure::new(
                FailureKind::StepTooSmall,
                format!("the step {h:e} s does not advance the time at t = {t_n} s (below the floating-point spacing)"),
            ));
        }
        if h * h < f64::MIN_POSITIVE {
            // The implicit schemes' coefficients hold h², which would be 0 or subnormal.
            return Err(RunFailure::new(
                FailureKind::StepTooSmall,
                format!("the step {h:e} s at t = {t_n} s is below 1.5e-154 s, where h² underflows double precision"),
            )
            .advise("a run or step this short cannot be integrated: lengthen the run (t_end) or the step"));
        }
        if report.steps + report.rejected_steps >= self.settings.max_steps {
            return Err(RunFailure::new(
                FailureKind::MaxSteps,
                format!(
                    "reached max_steps = {} (accepted and rejected) at t = {t_n} s",
                    self.settings.max_steps
                ),
            )
            .advise("raise `max_steps` in [solver] (or --max-steps), or loosen rtol"));
        }
        Ok(())
    }

    /// After a Newton failure `f` in the step of size `h` from `t_n`: rejects it and returns the
    /// smaller step to retry.
    ///
    /// # Errors
    /// The failure when the step cannot shrink below h_min.
    fn newton_failed(
        &mut self,
        t_n: f64,
        h: f64,
        f: &StepFailure,
        stats: &NewtonStats,
        tol: &Tolerances,
        report: &mut RunReport,
    ) -> Result<f64, RunFailure> {
        self.count(stats, report);
        self.scheme.reject();
        report.rejected_steps += 1;
        let h_new = self.sizer.controller.newton_failure(h);
        // A smaller step leads into a singular configuration, not past it: the run ends there.
        let singular = matches!(f.error, FormulationError::SingularConfiguration { .. });
        if singular {
            let at = format!(
                "step from t = {t_n:.9} s (point {} at t = {:.9} s): ",
                f.point, f.t_e
            );
            return Err(self.explain(at, f));
        }
        if h_new < tol.h_min {
            let at = format!(
                "step from t = {t_n:.9} s (point {} at t = {:.9} s; the step size cannot be reduced below h_min = {:e} s): ",
                f.point, f.t_e, tol.h_min
            );
            return Err(self.explain(at, f));
        }
        Ok(h_new)
    }

    /// Judges the local error of the solved step of size `h` from `t_n`: `None` when it is
    /// accepted (h_next then holds the next step), else the smaller step to retry.
    ///
    /// # Errors
    /// The failure when the error cannot be brought within the tolerances above h_min.
    fn judge_step(
        &mut self,
        t_n: f64,
        h: f64,
        stats: &mut NewtonStats,
        tol: &Tolerances,
        report: &mut RunReport,
    ) -> Result<Option<f64>, RunFailure> {
        self.scheme.local_error(&mut self.err);
        // A filter point that does not converge leaves the estimate unfiltered.
        let _ = filter_through_iteration_matrix(
            self.sys,
            self.scheme,
            self.form,
            &mut self.work,
            &mut self.err,
            stats,
        );
        self.count(stats, report);
        self.form.remove_normal_error(self.sys, &mut self.err);
        let norm = self.judged_norm(h, tol);
        let (accept, h_new) = self.sizer.controller.judge(h, norm);
        if accept {
            let h_new = self.select_order(h, tol).unwrap_or(h_new);
            self.sizer.h_next = h_new.clamp(tol.h_min, tol.h_max);
            return Ok(None);
        }
        self.scheme.reject();
        report.rejected_steps += 1;
        if h_new < tol.h_min {
            return Err(RunFailure::new(
                FailureKind::ErrorControl,
                format!(
                    "step from t = {t_n:.9} s: the local error cannot be brought within rtol = {:e}, atol = {:e} ({}) above h_min = {:e} s (judged error {norm:.3e} at h = {h:e} s)",
                    tol.rtol, tol.atol, tol.control.describe(), tol.h_min
                ),
            )
            .advise(error_control_advice(self.settings.formulation, self.sys.m())));
        }
        Ok(Some(h_new))
    }

    /// The error norm of `self.err` for a step of size `h`, after the formulation removed what it
    /// does not judge.
    fn judged_norm(&mut self, h: f64, tol: &Tolerances) -> f64 {
        let judged = self.form.filter_local_error(&mut self.err);
        error_norm(
            &self.err,
            self.scheme.history().newest(),
            h,
            tol,
            self.velocity_error,
            self.estimate_floor,
            judged,
        )
    }

    /// A variable-order scheme's choice of the next order; returns the step the controller
    /// proposes for it.
    fn select_order(&mut self, h: f64, tol: &Tolerances) -> Option<f64> {
        self.x_n.copy_from(self.scheme.history().newest());
        let (form, x_n) = (&*self.form, &self.x_n);
        let (velocity, floor) = (self.velocity_error, self.estimate_floor);
        let mut norm = |err: &mut LocalError| {
            let judged = form.filter_local_error(err);
            error_norm(err, x_n, h, tol, velocity, floor, judged)
        };
        let (err, order) = self.scheme.select_order(&mut norm)?;
        Some(
            self.sizer
                .controller
                .retarget(tol.error_exponent(order), h, err),
        )
    }

    /// Commits the solved step of size `h` ending at `t_next`: the scheme advances, the formulation
    /// corrects (and may ask for a restart of the scheme from the corrected state). Returns false
    /// when the formulation asked for the step to be retaken ([`Correction::Retake`]): the state
    /// is back at the start of the step and the scheme restarted there.
    fn commit(&mut self, t_next: f64, h: f64, report: &mut RunReport) -> Result<bool, RunFailure> {
        self.previous.copy_from(&self.state);
        let (sys, diag) = (self.sys, &mut self.sampler.diag);
        self.step_work = self
            .scheme
            .step_work(&mut |t, q, v, lambda| diag.power_at(sys, t, q, v, lambda));
        self.scheme.end_step(&mut self.state);
        // The last step ends at t_end, not at the scheme's t_n + h, which can differ from it by
        // rounding (t_0 + 199·0.05 + 0.05 = 10.000000000000002). Only the last: moving the end of
        // an earlier step by rounding changes the steps after it (on the double four-bar at its
        // singular configurations, runs of fixed-step Adams PECE of order 12 stopped elsewhere).
        let t_end = self.settings.t_end;
        if (self.state.t - t_end).abs() <= 1e-9 * h {
            self.state.t = t_end;
        }
        let correction = self
            .form
            .after_step(self.sys, self.scheme.history_mut(), &mut self.state, h)
            .map_err(|e| {
                let at = format!("correction after the step to t = {t_next:.9} s: ");
                match e {
                    FormulationError::SingularConfiguration { .. } => {
                        RunFailure::newton(at, &e, None)
                    }
                    _ => RunFailure::new(FailureKind::Correction, format!("{at}{e}")),
                }
            })?;
        if self.apply_correction(correction, report) {
            return Ok(false);
        }
        self.sizer.advance(t_next);
        self.check_state()?;
        Ok(true)
    }

    /// With [`DynamicSettings::stop_when_stiff`], the failure that stops a run whose steps have
    /// been bounded by the scheme's stability for [`STIFF_STEPS`] steps in a row.
    fn check_stiffness(&mut self) -> Result<(), RunFailure> {
        if !self.settings.stop_when_stiff || self.scheme.observe_stiffness() < STIFF_STEPS {
            return Ok(());
        }
        Err(RunFailure::new(
            FailureKind::Stiff,
            format!(
                "the model is stiff at this tolerance: {STIFF_STEPS} steps up to t = {:.6} s were bounded by the stability of {}, not by its accuracy (h·ρ ≥ {} of its stability boundary)",
                self.state.t,
                self.scheme.name(),
                crate::scheme::adams::STIFF_RATIO
            ),
        )
        .advise("an implicit scheme takes steps bounded by accuracy alone: e.g. --scheme esdirk4-6 --formulation stabilized-index2"))
    }

    /// Counts the formulation's `correction` of the committed step, and restarts the scheme when
    /// it asks for it; true when the step must be retaken (the state is then back at its start).
    fn apply_correction(&mut self, correction: Correction, report: &mut RunReport) -> bool {
        let retake = matches!(correction, Correction::Retake) && !self.retaking;
        self.retaking = retake;
        match correction {
            Correction::None => {}
            Correction::Corrected => report.corrections += 1,
            Correction::Restart | Correction::Retake => {
                report.corrections += 1;
                report.restarts += 1;
                self.sizer.limit_restart(
                    self.scheme.restarts_at_first_order(),
                    &self.previous,
                    &self.state,
                );
                if retake {
                    self.state.copy_from(&self.previous);
                }
                if report.restarts == 1 {
                    report.first_restart = self.state.t;
                }
                start_scheme(
                    self.sys,
                    &mut *self.scheme,
                    &self.state,
                    self.settings.h,
                    &mut self.force_terms,
                );
            }
        }
        retake
    }

    /// Refuses a committed state with a NaN or infinite entry, naming the element whose equations
    /// are not finite when the system finds one, and a state the system's equations do not hold
    /// for ([`System::explain_invalid_state`]).
    fn check_state(&self) -> Result<(), RunFailure> {
        let x = &self.state;
        let finite = [&x.q, &x.v, &x.a, &x.lambda]
            .iter()
            .all(|x| x.as_slice().iter().all(|v| v.is_finite()));
        if finite {
            return match self.sys.explain_invalid_state(&x.q) {
                None => Ok(()),
                Some(why) => Err(RunFailure::new(
                    FailureKind::InvalidState,
                    format!("invalid state at t = {:.9} s: {why}", x.t),
                )),
            };
        }
        let message = format!("non-finite state at t = {:.9} s", x.t);
        let cause = self.explain_non_finite(x.t, &self.previous);
        let advice = cause
            .is_none()
            .then_some("the solution diverged; reduce the step size");
        let mut failure = RunFailure::new(FailureKind::NonFinite, message).caused_by(cause);
        failure.advice = advice.map(str::to_string);
        Err(failure)
    }

    /// The failure of a point (`at` says where), with the source of non-finite values when the
    /// equations themselves are not finite at the last committed state; step-size advice only
    /// otherwise.
    fn explain(&self, at: String, f: &StepFailure) -> RunFailure {
        let cause = match f.error {
            FormulationError::NonFinite => self.explain_non_finite(f.t_e, &self.state),
            _ => None,
        };
        RunFailure::newton(at, &f.error, cause)
    }

    /// Why the equations are not finite at t \[s\], from the last committed state `x`: at x itself,
    /// or where its velocity leads, q + (t − t_x) v (the Newton iterate that failed lies there to
    /// first order, e.g. past the end of an expression's domain). `None` when both are finite: the
    /// solution itself diverged.
    fn explain_non_finite(&self, t: f64, x: &State) -> Option<String> {
        self.sys.explain_non_finite(t, &x.q, &x.v).or_else(|| {
            let ahead = &x.q + (t - x.t) * &x.v;
            self.sys.explain_non_finite(t, &ahead, &x.v)
        })
    }

    /// Diagnostics and output after a committed step of size `h`; false when the run must end.
    fn after_step(
        &mut self,
        h: f64,
        observers: &mut [&mut dyn Observer<S>],
        report: &mut RunReport,
    ) -> bool {
        report.steps += 1;
        report.h_min = report.h_min.min(h);
        report.h_max = report.h_max.max(h);
        report.h_sum += h;
        // A lagging scheme (central differences) reports t_0 again after its first step.
        if self.state.t <= self.previous.t {
            self.previous.copy_from(&self.state);
            return true;
        }
        let step_work = self.step_work.take();
        let go_on = self.sampler.after_step(
            self.sys,
            &self.previous,
            &self.state,
            step_work,
            h,
            observers,
            report,
        );
        if !go_on && self.sizer.tol.is_some() {
            report.advise_diverged(super::divergence::ADVICE_ERROR_CONTROL);
        }
        go_on
    }
}

/// An observer that takes no samples and ends the run at the next step boundary once its
/// function returns true ([`Observer::interrupted`]): a signal handler's flag, a deadline.
pub struct StopWhen<'a>(pub &'a dyn Fn() -> bool);

impl<S: System> Observer<S> for StopWhen<'_> {
    fn sample(&mut self, _system: &S, _sample: &Sample<'_>) -> Result<Flow, ObserverError> {
        Ok(Flow::Continue)
    }

    fn interrupted(&self) -> bool {
        (self.0)()
    }
}

/// An observer that keeps every sample's state and diagnostics in memory (tests, small studies).
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    /// Sampled states.
    pub states: Vec<State>,
    /// Energy balance E − E_0 − W_nc at each sample \[J\].
    pub energy_balance: Vec<f64>,
    /// W_nc since the start at each sample \[J\].
    pub work_nc: Vec<f64>,
    /// Constraint violations at each sample.
    pub violation: Vec<ConstraintViolation>,
    /// Step size of the step containing each sample \[s\].
    pub h: Vec<f64>,
}

impl<S: System> Observer<S> for Recorder {
    fn sample(&mut self, _system: &S, sample: &Sample<'_>) -> Result<Flow, ObserverError> {
        self.states.push(sample.state.clone());
        self.energy_balance.push(sample.energy_balance);
        self.work_nc.push(sample.work_nc);
        self.violation.push(sample.violation);
        self.h.push(sample.h);
        Ok(Flow::Continue)
    }
}
