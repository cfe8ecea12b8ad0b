//! Equilibrium by dynamic settling (Haug 1989, §7.5): integrate the equations of motion, with the
//! artificial damping −c M(q) v of [`crate::system::damped::ArtificialDamping`] added, until at an
//! output time ‖v‖∞ ≤ v_tol and ‖a‖∞ ≤ a_tol. The run then stops on request, which is not a
//! failure. Any scheme and formulation of the time loop can settle; the model's damping elements act
//! as well. The result is finished at the time the motion stopped (time-dependent loads are not
//! frozen).

use super::{finish, Equilibrium, EquilibriumError};
use crate::analysis::dynamic::{
    run, DynamicSettings, Flow, Observer, ObserverError, RunReport, RunStatus, Sample,
};
use crate::scheme::{Scheme, State};
use crate::system::damped::ArtificialDamping;
use crate::system::System;

/// Settings of dynamic settling (defaults in brackets).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SettleSettings {
    /// Added mass-proportional damping c \[1/s\] \[0\].
    pub damping: f64,
    /// Largest velocity at rest ‖v‖∞ \[m/s, rad/s\] \[1e-9\].
    pub v_tol: f64,
    /// Largest acceleration at rest ‖a‖∞ \[m/s², rad/s²\] \[1e-7\]: at rest the index-3 iteration
    /// leaves accelerations of the order of its force tolerance.
    pub a_tol: f64,
}

impl Default for SettleSettings {
    fn default() -> Self {
        SettleSettings {
            damping: 0.0,
            v_tol: 1e-9,
            a_tol: 1e-7,
        }
    }
}

/// Stops a run when the motion has died out.
#[derive(Debug, Clone, Copy)]
struct AtRest {
    v_tol: f64,
    a_tol: f64,
}

impl<S: System> Observer<S> for AtRest {
    fn sample(&mut self, _sys: &S, s: &Sample<'_>) -> Result<Flow, ObserverError> {
        let x = s.state;
        Ok(
            if s.steps > 0 && x.v.amax() <= self.v_tol && x.a.amax() <= self.a_tol {
                Flow::Stop
            } else {
                Flow::Continue
            },
        )
    }
}

/// Hands the samples of the damped run to an observer of the undamped system.
struct Forward<'o, S>(&'o mut dyn Observer<S>);

impl<S: System> Observer<ArtificialDamping<'_, S>> for Forward<'_, S> {
    fn sample(
        &mut self,
        sys: &ArtificialDamping<'_, S>,
        s: &Sample<'_>,
    ) -> Result<Flow, ObserverError> {
        self.0.sample(sys.inner, s)
    }

    fn interrupted(&self) -> bool {
        self.0.interrupted()
    }
}

/// Settles `sys` from the consistent state `x0` with `scheme` under the time-loop settings `dynamic`
/// (its t_end is the longest time allowed). Observers see the damped run.
///
/// Returns the run's report and, when the motion died out, the equilibrium.
///
/// # Errors
/// [`EquilibriumError::NotConverged`] when the run ends at t_end without settling, or fails.
pub fn solve<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    x0: &State,
    dynamic: &DynamicSettings,
    settle: &SettleSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> (RunReport, Result<Equilibrium, EquilibriumError>) {
    let damped = ArtificialDamping::new(sys, settle.damping);
    let mut rest = AtRest {
        v_tol: settle.v_tol,
        a_tol: settle.a_tol,
    };
    let mut forwards: Vec<Forward<'_, S>> =
        observers.iter_mut().map(|o| Forward(&mut **o)).collect();
    let mut all: Vec<&mut dyn Observer<ArtificialDamping<'_, S>>> = vec![&mut rest];
    all.extend(
        forwards
            .iter_mut()
            .map(|f| f as &mut dyn Observer<ArtificialDamping<'_, S>>),
    );
    let report = run(&damped, scheme, x0, dynamic, &mut all);
    let x = &report.final_state;
    let result = match &report.status {
        RunStatus::Stopped { .. } => Ok(finish(sys, x.t, &x.q, report.steps as usize, 1e-9)),
        RunStatus::Completed => Err(EquilibriumError::NotConverged {
            method: "settle",
            iterations: report.steps as usize,
            residual: x.v.amax().max(x.a.amax()),
            hint: format!(
                "the motion had not died out by t = {} s (‖v‖∞ = {:.3e}, ‖a‖∞ = {:.3e}); raise t_end or the damping (--damping)",
                x.t,
                x.v.amax(),
                x.a.amax()
            ),
        }),
        RunStatus::Interrupted { interrupted_at } => Err(EquilibriumError::Interrupted {
            at: *interrupted_at,
        }),
        RunStatus::Failed { failed_at, reason } => Err(EquilibriumError::NotConverged {
            method: "settle",
            iterations: report.steps as usize,
            residual: f64::NAN,
            hint: format!("the run failed at t = {failed_at} s: {reason}"),
        }),
    };
    (report, result)
}
