//! The stiffness switch: the pair `dynastep run` takes when given a tolerance and no scheme, in
//! the manner of LSODA (Petzold 1983, *Automatic selection of methods for solving stiff and
//! nonstiff systems of ordinary differential equations*, SIAM J. Sci. Stat. Comput. 4:136–148),
//! without a trial.
//!
//! The run starts with the pair that the measured choice ([`super::choice`]) picked on every
//! planar example of docs/performance.md: Adams PECE with coordinate projection (the plain ODE
//! when the model has no constraints). It watches its steps: when [`STIFF_STEPS`] committed steps
//! are bounded by Adams PECE's stability rather than its accuracy, without a run of a few that are
//! not in between ([`crate::scheme::adams::STIFF_RATIO`]), the model is stiff at this tolerance,
//! and the run goes on from the state reached with an implicit pair whose steps are bounded by
//! accuracy alone: ESDIRK4(3)6L in the stabilized index-2 form (index 3 without constraints), the
//! pair the measured choice picked on the stiff flyball governor from rtol 1e-6 on. The steps up
//! to the switch were accurate (their size was bounded by stability, below what accuracy
//! allowed), so the run keeps them, their rows, counters and energy balance
//! ([`crate::analysis::dynamic::go_on`]). A singular configuration, which the index-1 projection
//! cannot pass, or any other failure of the first pair's integration sends the run to the same
//! pair, made again from the start: the state before such a failure may be wrong already (Adams
//! PECE with projection on Bricard's mechanism at rtol 1e-4 diverges at t = 5.7 s), and the time
//! spent on it is lost ([`Switched::loop_time_s`]).
//!
//! Unlike LSODA the switch goes one way: a model that is stiff only for a while stays on the
//! implicit pair after it.

use crate::analysis::dynamic::{Observer, RunReport, RunStatus, STIFF_STEPS};
use crate::analysis::failure::FailureKind;
use crate::analysis::simulation::{RunOptions, Simulation};
use crate::model::Model;
use crate::scheme::SchemeParams;
use crate::study::compare::Method;
use crate::system::multibody::Multibody;
use crate::system::System;

/// The scheme name that asks for the switch.
pub const AUTO: &str = crate::model::settings::AUTO_SCHEME;

/// The pair a run with the switch is on, and the switch when it was made.
#[derive(Debug, Clone, serde::Serialize)]
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
    /// The first pair's run, when the second goes on from its end.
    #[serde(skip)]
    before: Option<RunReport>,
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
    /// Its loop time \[s\]: part of the run's when the run went on from where it stopped, what
    /// the switch cost when the run was made again from the start.
    pub loop_time_s: f64,
    /// True when the second pair went on from the state at `stopped_at` (the model was found
    /// stiff), false when the run was made again from the start (a failure).
    pub went_on: bool,
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
            before: None,
        }
    }

    /// True when a run asks for the switch: scheme `auto` in the run options (`scheme`) or, when
    /// they name none, in the model's `[solver]`; or no scheme in either and a valid tolerance
    /// `rtol` in the run options.
    pub fn wanted(scheme: Option<&str>, rtol: Option<f64>, model: &Model) -> bool {
        match (scheme, model.solver.scheme.as_deref()) {
            (Some(s), _) => s == AUTO,
            (None, Some(file)) => file == AUTO,
            (None, None) => rtol.is_some_and(|r| r > 0.0 && r.is_finite()),
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

    /// Runs `sim` (built with [`StiffnessSwitch::options`] and [`prepared`](Self::prepare)) with
    /// `observers`: from its start, or from the end of the first pair's run when the switch went
    /// on from there (then the observers must be those of the first run, which had its rows).
    pub fn run(
        &self,
        sim: &mut Simulation,
        observers: &mut [&mut dyn Observer<Multibody>],
    ) -> RunReport {
        match &self.before {
            Some(before) => sim.go_on(before, observers),
            None => sim.run(observers),
        }
    }

    /// True when the next run goes on from where the last one stopped: its observers (the
    /// history written so far) are kept, not started afresh.
    pub fn goes_on(&self) -> bool {
        self.before.is_some()
    }

    /// After a run that ended with `report`: true when the first pair stopped, the switch is
    /// made, and the run is to go on with the second pair ([`StiffnessSwitch::run`]): from where
    /// it stopped when it was found stiff ([`StiffnessSwitch::goes_on`]), from the start after
    /// any other failure of the integration (a singular configuration, a divergence the error
    /// control let through: Adams PECE with projection on Bricard's mechanism at rtol 1e-4 from
    /// t = 5.7 s). Not after a failure of the run's settings, its `max_steps` or its writers,
    /// which the other pair would meet as well.
    pub fn after_run(&mut self, report: &RunReport) -> bool {
        let RunStatus::Failed { failed_at, reason } = &report.status else {
            return false;
        };
        let integration = !matches!(
            reason.kind,
            FailureKind::Settings | FailureKind::MaxSteps | FailureKind::Observer
        );
        // The failure and its cause, not its advice: the switch is what was done about it.
        let why = match &reason.cause {
            Some(c) => format!("{}: {c}", reason.message),
            None => reason.message.clone(),
        };
        if !integration || !self.switch(*failed_at, why, report.loop_time_s) {
            return false;
        }
        if reason.kind == FailureKind::Stiff {
            self.before = Some(report.clone());
            if let Some(s) = self.switched.as_mut() {
                s.went_on = true;
            }
        }
        true
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
            went_on: false,
        });
        self.method = self.stiff_method.clone();
        self.chosen = self.method.label();
        true
    }
}
