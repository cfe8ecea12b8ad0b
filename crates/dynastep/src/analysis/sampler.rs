//! [`Sampler`]: the part of the time loop that turns committed steps into output samples.
//!
//! After each committed step it integrates the work of the non-conservative forces, computes the
//! diagnostics (energy balance, constraint violations; [`super::diagnostics`]) at every committed
//! step or at the output samples only ([`DiagnosticsAt`]), and hands a [`Sample`] to every
//! [`Observer`] at each output time t_0 + k·interval and at t_end, interpolating between the
//! previous and the committed state ([`super::dense_output`]). It keeps the report's maxima of the
//! diagnostics over the committed steps and over the rows, and the time spent sampling.

use super::dense_output::{interpolate, PositionInterpolant};
use super::diagnostics::{worst, ConstraintViolation, Diagnostics};
use super::divergence::DivergenceWatch;
use super::dynamic::{DiagnosticsAt, Flow, Observer, RunReport, RunStatus, Sample};
use super::natural_frequency::{self, OmegaMaxRecord};
use super::output_times::OutputTimes;
use crate::formulation::LinearizedSystem;
use crate::scheme::State;
use crate::system::{Energy, System};

/// Energy, energy balance E − E_0 − W_nc \[J\] and constraint violations of one state.
type Diagnosed = (Energy, f64, ConstraintViolation);

/// The output side of one run (see the module documentation).
pub(crate) struct Sampler {
    outputs: OutputTimes,
    /// Energy balance and W_nc bookkeeping.
    pub diag: Diagnostics,
    /// The interpolated state of the sample being emitted (or of t_end).
    pub interpolated: State,
    /// Time spent on the steps that emit output samples, from their diagnostics to the
    /// observers \[s\].
    pub sampling: f64,
    /// The linearized system whose ω_max is computed, when asked for.
    linearized: Option<LinearizedSystem>,
    /// How the positions of a sample between two steps are interpolated.
    pub positions: PositionInterpolant,
    /// True when the diagnostics are computed at every committed step.
    every_step: bool,
    /// Stops the run when the energy balance shows a diverged solution.
    watch: DivergenceWatch,
}

/// What [`Sampler::after_step`] knows of the step just committed, for the samples it emits.
struct CommittedStep {
    /// The step size \[s\].
    h: f64,
    /// Diagnostics of the committed state, when computed already.
    at_state: Option<Diagnosed>,
    /// ω_max at the committed state, when the run computes it.
    omega_state: Option<f64>,
}

impl CommittedStep {
    /// The sample of `state` with its diagnostics `d`, W_nc and ω_max, and the run's counters.
    fn sample<'s>(
        &self,
        state: &'s State,
        d: Diagnosed,
        work_nc: f64,
        omega_max: Option<f64>,
        report: &RunReport,
    ) -> Sample<'s> {
        Sample {
            state,
            energy: d.0,
            work_nc,
            energy_balance: d.1,
            violation: d.2,
            h: self.h,
            steps: report.steps,
            rejected: report.rejected_steps,
            newton_iterations: report.newton.iterations,
            omega_max,
        }
    }
}

impl Sampler {
    /// The sampler of a run from `x0` with output times `outputs`, diagnostics `diag` (started at
    /// x0, whose energy is `e0`), diagnostics computed `at` every step or at the samples, and ω_max
    /// of `linearized`.
    pub fn new(
        x0: &State,
        outputs: OutputTimes,
        (diag, e0): (Diagnostics, Energy),
        at: DiagnosticsAt,
        (linearized, positions): (Option<LinearizedSystem>, PositionInterpolant),
    ) -> Self {
        Sampler {
            watch: DivergenceWatch::new(e0),
            every_step: at == DiagnosticsAt::EveryStep || outputs.every_step(),
            outputs,
            diag,
            interpolated: x0.clone(),
            sampling: 0.0,
            linearized,
            positions,
        }
    }

    /// True when the state just committed (after `previous`) emits output samples: every step,
    /// or an output time at or before it.
    pub fn due(&self, previous: &State, state: &State) -> bool {
        let span = state.t - previous.t;
        self.outputs.every_step()
            || self
                .outputs
                .peek()
                .is_some_and(|t| t <= state.t + 1e-9 * span)
    }

    /// Diagnostics and output after the step of size `h` from `previous` to the committed
    /// `state`, whose W_nc by the scheme's own quadrature is `step_work` (if it has one); false
    /// when an observer ends the run.
    #[allow(clippy::too_many_arguments)]
    pub fn after_step<S: System>(
        &mut self,
        sys: &S,
        previous: &State,
        state: &State,
        step_work: Option<f64>,
        h: f64,
        observers: &mut [&mut dyn Observer<S>],
        report: &mut RunReport,
    ) -> bool {
        self.diag.advance(sys, previous, state, step_work);
        // The energy balance and the violations of the committed state: every step when asked
        // for, else only when an output time falls on it.
        // The divergence watch judges committed states only (an interpolated row's error is the
        // interpolation's): every step when they are all diagnosed, else the step of each sample.
        let mut at_state = None;
        if self.every_step || self.due(previous, state) {
            let d = self.diagnose(sys, state);
            if self.every_step {
                report.max_energy_error = worst(report.max_energy_error, d.1.abs());
                report.max_violation.max_with(&d.2);
            }
            if !self.watched(state.t, &d, self.diag.work, report) {
                return false;
            }
            at_state = Some(d);
        }
        let omega_state = self.omega_at(sys, state);
        if let Some(w) = omega_state {
            OmegaMaxRecord::update(&mut report.omega_max, w, state.t);
        }
        let step = CommittedStep {
            h,
            at_state,
            omega_state,
        };
        if self.outputs.every_step() {
            // Diagnosed and watched above (outputs at every step imply diagnostics at every step).
            let d = at_state.unwrap_or_else(|| self.diagnose(sys, state));
            let sample = step.sample(state, d, self.diag.work, omega_state, report);
            return emit_to(sys, observers, &sample, report);
        }
        self.emit_output_times(sys, previous, state, &step, observers, report)
    }

    /// Emits a sample at every output time the committed step reached, interpolated between
    /// `previous` and `state`; false when an observer ends the run.
    fn emit_output_times<S: System>(
        &mut self,
        sys: &S,
        previous: &State,
        state: &State,
        step: &CommittedStep,
        observers: &mut [&mut dyn Observer<S>],
        report: &mut RunReport,
    ) -> bool {
        let step_span = state.t - previous.t;
        while let Some(t_out) = self.outputs.peek() {
            if t_out > state.t + 1e-9 * step_span {
                break;
            }
            self.outputs.advance();
            let on_state = (t_out - state.t).abs() <= 1e-9 * step_span;
            let (d, work) = if on_state {
                let d = step.at_state.unwrap_or_else(|| self.diagnose(sys, state));
                self.interpolated.copy_from(state);
                self.interpolated.t = t_out;
                (d, self.diag.work)
            } else {
                self.diagnose_interpolated(sys, previous, state, t_out)
            };
            if !self.every_step {
                report.max_energy_error = worst(report.max_energy_error, d.1.abs());
                report.max_violation.max_with(&d.2);
            }
            let omega_max = if on_state {
                step.omega_state
            } else {
                self.omega_at(sys, &self.interpolated)
            };
            let sample = step.sample(&self.interpolated, d, work, omega_max, report);
            if !emit_to(sys, observers, &sample, report) {
                return false;
            }
        }
        true
    }

    /// Interpolates the state at `t_out` between `previous` and `state` (into
    /// `self.interpolated`), with W_nc from [`Diagnostics::work_within`]; returns its diagnostics
    /// and W_nc.
    fn diagnose_interpolated<S: System>(
        &mut self,
        sys: &S,
        previous: &State,
        state: &State,
        t_out: f64,
    ) -> (Diagnosed, f64) {
        let step_span = state.t - previous.t;
        interpolate(
            previous,
            state,
            t_out,
            self.positions,
            &mut self.interpolated,
        );
        let theta = (t_out - previous.t) / step_span;
        let work = self.diag.work_within(theta, step_span);
        let (e, b) = self.diag.balance(sys, &self.interpolated, work);
        let violation = self.diag.violation(sys, &self.interpolated);
        ((e, b, violation), work)
    }

    /// Passes the diagnostics `d` of the committed state at `t` \[s\] with the work `work` to the
    /// divergence watch; false, with the report's status set to the failure,
    /// when the run must stop there.
    fn watched(&mut self, t: f64, d: &Diagnosed, work: f64, report: &mut RunReport) -> bool {
        match self.watch.check(t, d.0, work, d.1) {
            Ok(()) => true,
            Err(reason) => {
                report.status = RunStatus::Failed {
                    failed_at: t,
                    reason,
                };
                false
            }
        }
    }

    /// Energy, energy balance and constraint violations of the committed `state`.
    fn diagnose<S: System>(&mut self, sys: &S, state: &State) -> Diagnosed {
        let (energy, balance) = self.diag.balance(sys, state, self.diag.work);
        (energy, balance, self.diag.violation(sys, state))
    }

    /// ω_max of the integrated system at `x` when the run computes it (NaN where it cannot be
    /// computed: the sample is a diagnostic, not a reason to stop).
    pub fn omega_at<S: System>(&self, sys: &S, x: &State) -> Option<f64> {
        self.linearized.map(|kind| {
            natural_frequency::omega_max(sys, x, kind)
                .ok()
                .filter(|w| w.is_finite())
                .unwrap_or(f64::NAN)
        })
    }
}

/// Hands `sample` to every observer; false when one stops the run or fails (the report then
/// says so).
pub(crate) fn emit_to<S: System>(
    sys: &S,
    observers: &mut [&mut dyn Observer<S>],
    sample: &Sample<'_>,
    report: &mut RunReport,
) -> bool {
    report.max_energy_error_rows = worst(report.max_energy_error_rows, sample.energy_balance.abs());
    report.max_violation_rows.max_with(&sample.violation);
    report.last_row_t = sample.state.t;
    for o in observers.iter_mut() {
        match o.sample(sys, sample) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => {
                report.status = RunStatus::Stopped {
                    stopped_at: sample.state.t,
                };
                report.final_state.copy_from(sample.state);
                return false;
            }
            Err(e) => {
                report.status = RunStatus::Failed {
                    failed_at: sample.state.t,
                    reason: e.into(),
                };
                return false;
            }
        }
    }
    true
}
