//! A whole simulation of a model: build the system (planar or spatial), assemble a consistent initial state, choose
//! the scheme and run the dynamic analysis. This is what `dynastep run` does, as a library call.

use crate::analysis::assembly::{assemble, AssemblyError, AssemblyReport, AssemblySettings};
use crate::analysis::dynamic::{run, DynamicSettings, Observer, RunFailure, RunReport};
use crate::analysis::output_times::OutputTimes;
use crate::analysis::step_control::StepSettings;
use crate::formulation;
use crate::model::Model;
use crate::scheme::{build, Scheme, SchemeError, SchemeParams, State};
use crate::system::mechanism::Mechanism;
use crate::system::multibody::{BuildError, Multibody};

/// Default scheme when neither the command line nor the model names one.
pub const DEFAULT_SCHEME: &str = "generalized-alpha";

/// The consistent state of `system` (built from `model`) at the model's start time, and what
/// assembly found: where every analysis starts.
///
/// # Errors
/// [`SimulationError::Assembly`] when the constraints cannot be met.
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
    Ok((initial, report))
}

/// Run settings that override the model's `\[solver\]` table. `None` keeps the model's value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOptions {
    /// Scheme name (see [`crate::scheme::REGISTRY`]).
    pub scheme: Option<String>,
    /// Scheme parameters; merged over the model's `[solver.params]` (given ones win) when the scheme
    /// is the model's, used alone when `scheme` names another.
    pub params: SchemeParams,
    /// Step size \[s\]. Given without `step.rtol`, the run takes fixed steps of this size even when
    /// the model's `[solver.step]` sets a tolerance; with `step.rtol` it is the first step.
    pub dt: Option<f64>,
    /// End time \[s\].
    pub t_end: Option<f64>,
    /// Output interval \[s\]; 0 writes every step.
    pub output_interval: Option<f64>,
    /// Formulation name (see [`crate::formulation::REGISTRY`]).
    pub formulation: Option<String>,
    /// Error-control settings; each given field overrides the model's `[solver.step]`.
    pub step: StepSettings,
    /// Most steps the run may take (see [`crate::analysis::dynamic::DEFAULT_MAX_STEPS`]).
    pub max_steps: Option<u64>,
    /// Compute the largest natural frequency ω_max of the integrated system along the run
    /// ([`DynamicSettings::omega_max`]).
    pub omega_max: bool,
}

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
        let solver = &model.solver;
        let system = Multibody::new(model)?;
        let (scheme_name, params) = Self::scheme_choice(model, opts);
        let scheme = build(&scheme_name, &params)?;
        let formulation = Self::formulation(solver.formulation.as_deref(), opts, &scheme_name)?;
        let t0 = solver.t_start.unwrap_or(0.0);
        let t_end = opts.t_end.or(solver.t_end).ok_or_else(|| {
            SimulationError::settings("no end time: give --t-end or set t_end in [solver]")
        })?;
        if !(t_end > t0 && t_end.is_finite() && t0.is_finite()) {
            return Err(SimulationError::settings(format!(
                "t_end = {t_end} must exceed t_start = {t0}"
            )));
        }
        let span = t_end - t0;
        let step = Self::step_settings(model, opts);
        let adaptive = step
            .resolve(span)
            .map_err(SimulationError::Settings)?
            .is_some();
        let h = match opts.dt.or(solver.dt) {
            Some(h) if !(h > 0.0 && h.is_finite()) => {
                return Err(SimulationError::settings(format!(
                    "step size dt = {h} must be positive"
                )))
            }
            Some(h) => h,
            // Adaptive: the first step is chosen automatically.
            None if adaptive => 0.0,
            None => return Err(SimulationError::settings(
                "no step size: give --dt or set dt in [solver] (or give rtol for adaptive steps)",
            )),
        };
        let output_interval = opts
            .output_interval
            .or(solver.output_interval)
            .unwrap_or_else(|| {
                // Every fixed step, unless that gives more than about 1000 rows.
                if adaptive || span / h > 1000.0 {
                    span / 1000.0
                } else {
                    0.0
                }
            });
        OutputTimes::new(t0, output_interval, t_end).map_err(SimulationError::Settings)?;
        let (initial, assembly) = assembled(model, &system)?;
        let settings = DynamicSettings {
            h,
            t_end,
            output_interval,
            newton: solver.newton,
            formulation,
            constraints: solver.constraints,
            step,
            max_steps: opts
                .max_steps
                .or(solver.max_steps)
                .unwrap_or(crate::analysis::dynamic::DEFAULT_MAX_STEPS),
            omega_max: opts.omega_max,
            diagnostics: solver.diagnostics,
        };
        crate::analysis::dynamic::check_settings(&settings, t0, scheme.as_ref())
            .map_err(SimulationError::Settings)?;
        Ok(Simulation {
            model: model.clone(),
            system,
            initial,
            assembly,
            settings,
            scheme,
            scheme_params: params,
            startup_time_s: clock.elapsed().as_secs_f64(),
        })
    }

    /// The scheme asked for (command line over model, else [`DEFAULT_SCHEME`]) and its parameters:
    /// the model's `[solver.params]` belong to the model's scheme, so they apply only when the
    /// command line keeps that scheme, and command-line parameters win over them.
    fn scheme_choice(model: &Model, opts: &RunOptions) -> (String, SchemeParams) {
        let solver = &model.solver;
        let name = opts
            .scheme
            .clone()
            .or_else(|| solver.scheme.clone())
            .unwrap_or_else(|| DEFAULT_SCHEME.into());
        let keeps_model_scheme = opts.scheme.is_none() || opts.scheme == solver.scheme;
        let mut params = if keeps_model_scheme {
            solver.params.clone()
        } else {
            SchemeParams::new()
        };
        params.extend(opts.params.iter().map(|(k, v)| (k.clone(), *v)));
        (name, params)
    }

    /// The error-control settings: the command line's over the model's `[solver.step]`. A step
    /// size given on the command line without a tolerance asks for fixed steps, whatever the
    /// model's `[solver.step]` says (the model's own `dt` beside its `rtol` is only the first
    /// step).
    fn step_settings(model: &Model, opts: &RunOptions) -> StepSettings {
        let fixed = opts.dt.is_some() && opts.step.rtol.is_none();
        let model_step = if fixed {
            StepSettings::default()
        } else {
            model.solver.step
        };
        StepSettings {
            rtol: opts.step.rtol.or(model_step.rtol),
            atol: opts.step.atol.or(model_step.atol),
            h_min: opts.step.h_min.or(model_step.h_min),
            h_max: opts.step.h_max.or(model_step.h_max),
            control: opts.step.control.or(model_step.control),
        }
    }

    /// The registry name of the formulation asked for (command line over model, default `index3`),
    /// checked against the scheme's declared formulations.
    fn formulation(
        model: Option<&str>,
        opts: &RunOptions,
        scheme: &str,
    ) -> Result<&'static str, SimulationError> {
        let name = opts.formulation.as_deref().or(model).unwrap_or("index3");
        let info = formulation::find(name).ok_or_else(|| {
            let known: Vec<&str> = formulation::REGISTRY.iter().map(|f| f.name).collect();
            SimulationError::settings(format!(
                "unknown formulation `{name}`; known formulations: {} (see `dynastep formulations`)",
                known.join(", ")
            ))
        })?;
        if let Some(s) = crate::scheme::find(scheme) {
            formulation::compatible(s, info)
                .map_err(|e| SimulationError::settings(e.to_string()))?;
        }
        Ok(info.name)
    }

    /// The step policy in force, in one line: `fixed steps of 0.001 s` or `adaptive steps, rtol =
    /// 1e-6, atol = 1e-6 (per-step), first step 0.001 s` (or `chosen automatically`).
    pub fn step_policy(&self) -> String {
        let span = self.settings.t_end - self.initial.t;
        match self.settings.step.resolve(span) {
            Ok(Some(t)) => {
                let first = if self.settings.h > 0.0 {
                    format!("first step {:e} s", self.settings.h)
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
}
