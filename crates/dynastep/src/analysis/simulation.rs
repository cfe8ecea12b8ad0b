//! A whole simulation of a model: build the system (planar or spatial), assemble a consistent initial state, choose
//! the scheme and run the dynamic analysis. This is what `dynastep run` does, as a library call.

use crate::analysis::assembly::{assemble, AssemblyError, AssemblyReport, AssemblySettings};
use crate::analysis::dynamic::{run, DynamicSettings, Observer, RunFailure, RunReport};
use crate::formulation;
use crate::model::settings::StartState;
use crate::model::validate::DEFAULT_FORMULATION;
use crate::model::Model;
use crate::scheme::{build, Scheme, SchemeError, SchemeParams, State};
use crate::system::mechanism::Mechanism;
use crate::system::multibody::{BuildError, Multibody};

/// Default scheme when neither the command line nor the model names one.
pub const DEFAULT_SCHEME: &str = "generalized-alpha";

/// The consistent state of `system` (built from `model`) at the model's start time, and what
/// assembly found: where every analysis starts. With `[solver] start = "equilibrium"` the
/// positions are then moved to the static equilibrium under the loads at the start time (Newton,
/// `equilibrium::newton::solve`), the velocities set to rest, and the state assembled again for
/// consistent velocities, accelerations and multipliers.
///
/// # Errors
/// [`SimulationError::Assembly`] when the constraints cannot be met;
/// [`SimulationError::Equilibrium`] when the start equilibrium is not found.
pub fn assembled<M: Mechanism>(
    model: &Model,
    system: &M,
) -> Result<(State, AssemblyReport), SimulationError> {
    let mut initial = system.initial_state(model.solver.t_start.unwrap_or(0.0));
    let settings = AssemblySettings {
        redundancy: model.solver.redundancy,
        linear_solver: model.solver.newton.linear_solver,
        ..Default::default()
    };
    let report = assemble(system, &mut initial, &system.given_values(), &settings)?;
    if model.solver.start == StartState::Given {
        return Ok((initial, report));
    }
    let statics = crate::analysis::equilibrium::StaticSettings::default();
    let e = crate::analysis::equilibrium::newton::solve(system, initial.t, &initial.q, &statics)?;
    initial.q.copy_from(&e.state.q);
    initial.v.fill(0.0);
    let report = assemble(system, &mut initial, &system.given_values(), &settings)?;
    Ok((initial, report))
}

pub use super::run_options::RunOptions;

/// Why a simulation could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// The model does not describe a valid mechanism.
    #[error(transparent)]
    Model(#[from] BuildError),
    /// The scheme or its parameters are invalid.
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    /// Assembly failed.
    #[error(transparent)]
    Assembly(#[from] AssemblyError),
    /// The start equilibrium (`[solver] start = "equilibrium"`) was not found.
    #[error("the start equilibrium ([solver] start = \"equilibrium\") was not found: {0}")]
    Equilibrium(#[from] crate::analysis::equilibrium::EquilibriumError),
    /// A setting is missing or out of range.
    #[error("{0}")]
    Settings(RunFailure),
}

impl SimulationError {
    /// A setting that is missing or out of range, with the message that says which and how to fix
    /// it.
    pub fn settings(message: impl Into<String>) -> Self {
        SimulationError::Settings(RunFailure::settings(message))
    }
}

/// A prepared simulation: system, consistent initial state, scheme and settings.
pub struct Simulation {
    /// The model simulated (with overrides applied).
    pub model: Model,
    /// The equations.
    pub system: Multibody,
    /// The consistent initial state (after assembly).
    pub initial: State,
    /// What assembly found (redundant constraints, corrections).
    pub assembly: AssemblyReport,
    /// Time-loop settings.
    pub settings: DynamicSettings,
    /// Scheme in use.
    pub scheme: Box<dyn Scheme>,
    /// The parameters the scheme was built from (those given; the others at their defaults), as
    /// [`crate::scheme::build`] takes them.
    pub scheme_params: SchemeParams,
    /// Wall time of [`Simulation::new`]: building the system and the scheme, assembling the initial
    /// state \[s\].
    pub startup_time_s: f64,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("model", &self.model.name)
            .field("scheme", &self.scheme.name())
            .field("settings", &self.settings)
            .finish()
    }
}

impl Simulation {
    /// Builds the system of `model`, assembles it at the start time and builds the scheme, with the
    /// settings of `opts` overriding the model's `\[solver\]` table.
    ///
    /// # Errors
    /// [`SimulationError`] when the model is not a valid mechanism, the scheme or its parameters are
    /// invalid, the step size or end time is missing or not positive, or assembly fails.
    pub fn new(model: &Model, opts: &RunOptions) -> Result<Self, SimulationError> {
        let clock = std::time::Instant::now();
        let solver = opts.overlay(&model.solver);
        let system = Multibody::new(model)?;
        opts.check(&solver).map_err(SimulationError::Settings)?;
        let scheme_name = solver.scheme.as_deref().unwrap_or(DEFAULT_SCHEME);
        if scheme_name == crate::model::settings::AUTO_SCHEME {
            return Err(SimulationError::settings(
                "scheme = \"auto\" asks for the stiffness switch, which `dynastep run` and Python's Model.run make; this analysis needs a named scheme: give one (--scheme for sweep, --schemes for compare; `dynastep schemes` lists them)",
            ));
        }
        let scheme = build(scheme_name, &solver.params)?;
        let name = solver.formulation.as_deref().unwrap_or(DEFAULT_FORMULATION);
        let formulation = formulation::find(name)
            .ok_or_else(|| SimulationError::settings(format!("unknown formulation `{name}`")))?
            .name;
        let settings = DynamicSettings::from_solver(&solver, formulation, opts.omega_max)
            .map_err(SimulationError::Settings)?;
        let t0 = solver.t_start.unwrap_or(0.0);
        crate::analysis::dynamic::check_settings(
            &settings,
            t0,
            scheme.as_ref(),
            crate::system::System::m(&system),
        )
        .map_err(SimulationError::Settings)?;
        let (initial, assembly) = assembled(model, &system)?;
        let model = Model {
            solver: solver.clone(),
            ..model.clone()
        };
        Ok(Simulation {
            model,
            system,
            initial,
            assembly,
            settings,
            scheme,
            scheme_params: solver.params,
            startup_time_s: clock.elapsed().as_secs_f64(),
        })
    }

    /// The step policy in force, in one line: `fixed steps of 0.001 s` or `adaptive steps, rtol =
    /// 1e-6, atol = 1e-6 (per-step), first step 0.001 s` (or `chosen automatically`).
    pub fn step_policy(&self) -> String {
        let span = self.settings.t_end - self.initial.t;
        match self.settings.step.resolve(span) {
            Ok(Some(t)) => {
                // As the step sizer takes it: within [h_min, h_max], h_max being the span by default.
                let first = if self.settings.h > 0.0 {
                    format!("first step {:e} s", self.settings.h.clamp(t.h_min, t.h_max))
                } else {
                    "first step chosen automatically".into()
                };
                let control = match t.control {
                    crate::analysis::step_control::StepControl::PerStep => "per-step",
                    crate::analysis::step_control::StepControl::PerUnitStep => "per-unit-step",
                };
                format!(
                    "adaptive steps, rtol = {:e}, atol = {:e} ({control}), {first}",
                    t.rtol, t.atol
                )
            }
            _ => format!("fixed steps of {:e} s", self.settings.h),
        }
    }

    /// Runs the dynamic analysis from the assembled state; observers receive every output sample.
    /// A numerical failure is reported in the returned [`RunReport`]'s status, never as a panic.
    pub fn run(&mut self, observers: &mut [&mut dyn Observer<Multibody>]) -> RunReport {
        run(
            &self.system,
            self.scheme.as_mut(),
            &self.initial,
            &self.settings,
            observers,
        )
    }

    /// Goes on from the end of `before`, a run of the same model with another scheme or
    /// formulation, to `t_end` ([`crate::analysis::dynamic::go_on`]): the stiffness switch's
    /// second pair. The report adds this run to `before`'s; the observers get the rows after
    /// `before`'s end. The assembled initial state is not used.
    ///
    /// # Panics
    /// When `before` is of another model (its state's shapes differ).
    pub fn go_on(
        &mut self,
        before: &RunReport,
        observers: &mut [&mut dyn Observer<Multibody>],
    ) -> RunReport {
        crate::analysis::dynamic::go_on(
            &self.system,
            self.scheme.as_mut(),
            before,
            &self.settings,
            observers,
        )
    }
}
