//! The stiffness switch: the pair `dynastep run` takes when given a tolerance and no scheme, in
//! the manner of LSODA (Petzold 1983, *Automatic selection of methods for solving stiff and
//! nonstiff systems of ordinary differential equations*, SIAM J. Sci. Stat. Comput. 4:136–148),
//! without a trial.
//!
//! The run starts with the pair that the measured choice ([`super::choice`]) picked on every
//! planar example of docs/performance.md: Adams PECE with coordinate projection (the plain ODE
//! when the model has no constraints). It watches its steps: when [`STIFF_STEPS`] committed steps
//! are bounded by Adams PECE's stability rather than its accuracy, without a run of a few that are
//! not in between ([`crate::scheme::adams::STIFF_RATIO`]), the model is stiff at this tolerance, the run stops,
//! and it is made again from the start with an implicit pair whose steps are bounded by accuracy
//! alone: ESDIRK4(3)6L in the stabilized index-2 form (index 3 without constraints), the pair the
//! measured choice picked on the stiff flyball governor from rtol 1e-6 on. A singular
//! configuration, which the index-1 projection cannot pass, or any other failure of the first
//! pair's integration sends the run to the same pair.
//!
//! Unlike LSODA the switch goes one way and restarts from the start instead of going on from the
//! state reached: the time spent before the switch is lost (at most [`STIFF_STEPS`] steps on a
//! model stiff from the start; [`Switched::loop_time_s`] records it), and a model that is stiff
//! only for a while stays on the implicit pair after it.

use crate::analysis::dynamic::{RunReport, RunStatus, STIFF_STEPS};
use crate::analysis::failure::FailureKind;
use crate::analysis::simulation::{RunOptions, Simulation};
use crate::model::Model;
use crate::scheme::SchemeParams;
use crate::study::compare::Method;
use crate::system::multibody::Multibody;
use crate::system::System;

/// The scheme name that asks for the switch.
pub const AUTO: &str = "auto";

/// The pair a run with the switch is on, and the switch when it was made.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StiffnessSwitch {
    /// The pair the run is on.
    #[serde(skip)]
    pub method: Method,
    /// Its label ([`Method::label`]).
    pub chosen: String,
    /// The tolerance, rtol (atol as the model or the command line sets it).
    pub rtol: f64,
    /// The pair the run starts with.
    pub start: String,
    /// The pair it switches to.
    pub stiff: String,
    /// Steps bounded by stability that make the switch.
    pub stiff_steps: usize,
    /// The switch, once made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switched: Option<Switched>,
    #[serde(skip)]
    stiff_method: Method,
}

/// The first run's end, which made the switch.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Switched {
    /// The pair left.
    pub from: String,
    /// Time at which its run stopped \[s\].
    pub stopped_at: f64,
    /// Why it stopped (stiffness, a singular configuration, another failure of the integration).
    pub reason: String,
    /// Its loop time \[s\]: what the switch cost.
    pub loop_time_s: f64,
}

fn pair(scheme: &str, formulation: &str) -> Method {
    Method {
        scheme: scheme.into(),
        params: SchemeParams::new(),
        formulation: Some(formulation.into()),
    }
}

impl StiffnessSwitch {
    /// The switch for `model` at tolerance `rtol`: its pairs depend on whether the model has
    /// constraints. A model that does not build gets the constrained pairs (its run then says why
    /// it does not build).
    pub fn new(model: &Model, rtol: f64) -> Self {
        let m = Multibody::new(model).map_or(1, |s| s.m());
        let (start, stiff) = if m == 0 {
            (pair("abm", "direct"), pair("esdirk4-6", "index3"))
        } else {
            (
                pair("abm", "projection"),
                pair("esdirk4-6", "stabilized-index2"),
            )
        };
        StiffnessSwitch {
            chosen: start.label(),
            start: start.label(),
            stiff: stiff.label(),
            method: start,
            rtol,
            stiff_steps: STIFF_STEPS,
            switched: None,
            stiff_method: stiff,
        }
    }

    /// True when a run asks for the switch: scheme `auto`, or no scheme (`scheme` is the run
    /// options') with a valid tolerance `rtol` and none in the model's `[solver]`.
    pub fn wanted(scheme: Option<&str>, rtol: Option<f64>, model: &Model) -> bool {
        match scheme {
            Some(s) => s == AUTO,
            None => rtol.is_some_and(|r| r > 0.0 && r.is_finite()) && model.solver.scheme.is_none(),
        }
    }

    /// The run options of the pair the switch is on: `base` with its scheme (default
    /// parameters), formulation and tolerance.
    pub fn options(&self, base: &RunOptions) -> RunOptions {
        let mut opts = base.clone();
        opts.scheme = Some(self.method.scheme.clone());
        opts.params = self.method.params.clone();
        opts.formulation = self.method.formulation.clone();
        opts.step.rtol = Some(self.rtol);
        opts
    }

    /// Sets up `sim` (built with [`StiffnessSwitch::options`]) for the pair the switch is on: the
    /// first one watches for stiffness.
    pub fn prepare(&self, sim: &mut Simulation) {
        sim.settings.stop_when_stiff = self.watches();
    }

    /// After a run that ended with `report`: true when the first pair failed, the switch is
    /// made, and the run is to be made again from the start. Every failure of the integration
    /// counts (found stiff, a singular configuration, a divergence the error control let through:
    /// Adams PECE with projection on Bricard's mechanism at rtol 1e-4 from t = 5.7 s), not those
    /// of the run's settings, its `max_steps` or its writers, which the other pair would meet
    /// as well.
    pub fn after_run(&mut self, report: &RunReport) -> bool {
        let RunStatus::Failed { failed_at, reason } = &report.status else {
            return false;
        };
        let integration = !matches!(
            reason.kind,
            FailureKind::Settings | FailureKind::MaxSteps | FailureKind::Observer
        );
        integration && self.switch(*failed_at, reason.to_string(), report.loop_time_s)
    }

    /// True while the run is on its first pair, which watches for stiffness.
    pub fn watches(&self) -> bool {
        self.switched.is_none()
    }

    /// Switches to the implicit pair after the first run stopped at `stopped_at` for `reason`
    /// after `loop_time_s` of integration; false when the
    /// switch was made already, and the run's failure stands.
    pub fn switch(&mut self, stopped_at: f64, reason: String, loop_time_s: f64) -> bool {
        if self.switched.is_some() {
            return false;
        }
        self.switched = Some(Switched {
            from: self.chosen.clone(),
            stopped_at,
            reason,
            loop_time_s,
        });
        self.method = self.stiff_method.clone();
        self.chosen = self.method.label();
        true
    }
}
