//! `summary.json`: the machine-readable record of a run.

use serde::Serialize;

use crate::analysis::assembly::AssemblyReport;
use crate::analysis::dynamic::{ConstraintViolation, RunFailure, RunReport, RunStatus};
use crate::analysis::natural_frequency::{critical_omega, OmegaMaxRecord};
use crate::analysis::simulation::Simulation;
use crate::analysis::step_control::Tolerances;
use crate::scheme::{SchemeParams, State};
use crate::system::mechanism::Mechanism;

/// Newton counters in the summary.
#[derive(Debug, Clone, Serialize)]
pub struct NewtonSummary {
    /// Total iterations (linear solves) over the run.
    pub total: u64,
    /// Mean iterations per step.
    pub mean_per_step: f64,
    /// Largest number of iterations in one step.
    pub max_per_step: u64,
    /// Assemblies of the iteration matrix (Jacobian evaluations).
    pub jacobians: u64,
    /// Factorizations of the iteration matrix.
    pub factorizations: u64,
    /// Of these, numeric refactorizations with the pivots and pattern of an earlier factorization
    /// (sparse linear solver; the others chose their pivots afresh).
    pub refactorizations: u64,
    /// Residual evaluations.
    pub residuals: u64,
    /// `modified` or `full` Newton (`[solver.newton] method`).
    pub method: crate::formulation::NewtonMethod,
    /// Solves done in the least-squares sense (singular iteration matrix).
    pub least_squares_solves: u64,
    /// Solves of a singular iteration matrix with the unknowns of its null space pinned (sparse
    /// path, redundant constraints): the same minimum-norm solution without a decomposition.
    pub pinned_solves: u64,
    /// Integration points accepted at the floor of the iteration: their position corrections
    /// settled within tolerance while the residual stayed above its tolerance (within 1e3 of it),
    /// as near a singular configuration at small steps.
    pub floor_acceptances: u64,
    /// Time of the loop spent in residual evaluations, assemblies, factorizations and solves
    /// \[s\] (zero where the formulation does not measure it).
    pub time_s: PhaseTimesSummary,
}

/// [`crate::formulation::PhaseTimes`] in the summary \[s\].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PhaseTimesSummary {
    /// Residual evaluations \[s\].
    pub residual: f64,
    /// Assemblies of the iteration matrix \[s\].
    pub assembly: f64,
    /// Factorizations \[s\].
    pub factorization: f64,
    /// Linear solves \[s\].
    pub solve: f64,
}

/// The final state in the summary (n coordinates, m multipliers).
#[derive(Debug, Clone, Serialize)]
pub struct FinalState {
    /// Time \[s\].
    pub t: f64,
    /// Coordinates (centroidal body coordinates, in model order).
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Accelerations.
    pub a: Vec<f64>,
    /// Multipliers.
    pub lambda: Vec<f64>,
    /// Body-frame pose of each body by name, in the order of its history columns (planar
    /// `x, y, θ` \[m, m, rad\]; a point mass `x, y`).
    pub bodies: std::collections::BTreeMap<String, Vec<f64>>,
    /// Marker positions by name \[m\].
    pub markers: std::collections::BTreeMap<String, Vec<f64>>,
    /// Joint reactions on body j by joint name, in global axes: the force \[N\], then the torque
    /// about the joint point \[N m\] (planar `[f_x, f_y, τ]`).
    pub reactions: std::collections::BTreeMap<String, Vec<f64>>,
    /// Driver generalized forces by driver name (torque \[N m\] or force \[N\], −λ of the row).
    pub drivers: std::collections::BTreeMap<String, f64>,
}

impl FinalState {
    /// The record of state `x` of `sys`.
    pub fn new<M: Mechanism>(sys: &M, x: &State) -> Self {
        let named = |names: Vec<&str>, push: &dyn Fn(usize, &mut Vec<f64>)| {
            let entry = |(k, n): (usize, &&str)| {
                let mut values = Vec::new();
                push(k, &mut values);
                (n.to_string(), values)
            };
            names.iter().enumerate().map(entry).collect()
        };
        FinalState {
            t: x.t,
            q: x.q.iter().copied().collect(),
            v: x.v.iter().copied().collect(),
            a: x.a.iter().copied().collect(),
            lambda: x.lambda.iter().copied().collect(),
            bodies: named(sys.body_names(), &|b, out| sys.push_body_pose(b, &x.q, out)),
            markers: named(sys.marker_names(), &|k, out| {
                sys.push_marker_position(k, &x.q, out)
            }),
            reactions: named(sys.joint_names(), &|k, out| {
                sys.push_joint_reaction(k, &x.q, &x.lambda, out)
            }),
            drivers: sys
                .driver_names()
                .iter()
                .enumerate()
                .map(|(k, n)| (n.to_string(), sys.driver_effort(k, &x.lambda)))
                .collect(),
        }
    }
}

/// What assembly found.
#[derive(Debug, Clone, Serialize)]
pub struct AssemblySummary {
    /// Newton iterations on the positions.
    pub iterations: usize,
    /// Largest change of a coordinate from the model's value \[m or rad\].
    pub max_position_change: f64,
    /// Rank of Φ_q and number of constraints.
    pub rank: usize,
    /// m.
    pub constraints: usize,
    /// Constraint rows involved in redundancies.
    pub redundant: Vec<String>,
    /// Rows that depend on the rows before them (removing them leaves full rank).
    pub dependent: Vec<String>,
}

impl From<&AssemblyReport> for AssemblySummary {
    fn from(a: &AssemblyReport) -> Self {
        AssemblySummary {
            iterations: a.iterations,
            max_position_change: a.max_position_change,
            rank: a.rank,
            constraints: a.constraints,
            redundant: a.redundant.clone(),
            dependent: a.dependent.clone(),
        }
    }
}

/// Step sizes of the accepted steps \[s\].
#[derive(Debug, Clone, Serialize)]
pub struct StepSizes {
    /// Smallest.
    pub min: f64,
    /// Mean (span / steps).
    pub mean: f64,
    /// Largest.
    pub max: f64,
}

/// How the steps were chosen.
#[derive(Debug, Clone, Serialize)]
pub struct StepControlSummary {
    /// `fixed` or `adaptive`.
    pub mode: String,
    /// The tolerances and step limits of an adaptive run.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub tolerances: Option<Tolerances>,
}

/// The largest natural frequency of the integrated system along a run and the step limit it sets
/// (Fernández de Bustos et al. 2022, Meccanica 57:371, eq. 26).
#[derive(Debug, Clone, Serialize)]
pub struct OmegaMaxSummary {
    /// Largest ω_max over the committed steps \[rad/s\].
    pub max: f64,
    /// Time at which it occurred \[s\].
    pub t_at_max: f64,
    /// Ω_crit of the scheme in use from the linear stability analysis (undamped oscillator);
    /// `null` when the scheme is stable for every Ω up to 10³.
    pub omega_crit: Option<f64>,
    /// Ω_crit / max \[s\]: the largest step that satisfies the linear stability condition all along
    /// the run; `null` without an Ω_crit.
    pub step_limit: Option<f64>,
}

impl OmegaMaxSummary {
    /// The summary of `record` for scheme `scheme` with parameters `params`.
    pub fn new(record: OmegaMaxRecord, scheme: &str, params: &SchemeParams) -> Self {
        let omega_crit = critical_omega(scheme, params).ok().flatten();
        OmegaMaxSummary {
            max: record.max,
            t_at_max: record.t_at_max,
            omega_crit,
            step_limit: omega_crit
                .filter(|_| record.max > 0.0)
                .map(|w| w / record.max),
        }
    }
}

/// A run's passage near a singular configuration (see [`Summary::closest_singularity`]).
#[derive(Debug, Clone, Serialize)]
pub struct SingularitySummary {
    /// Time \[s\].
    pub t: f64,
    /// Smallest eigenvalue of [M Φ_qᵀ; Φ_q 0] over its largest in the run (estimated).
    pub ratio: f64,
    /// True when the ratio was below the threshold: the run may have left the branch of the
    /// motion there.
    pub singular: bool,
}

/// The whole summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// "completed", "stopped" (an observer ended the run; not a failure), "interrupted" (a signal
    /// ended it at a step boundary) or "failed".
    pub status: String,
    /// Time at which an observer stopped the run, or the time reached when interrupted \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<f64>,
    /// Time of the last complete state when failed \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<f64>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The failure as data, when failed: its kind (`settings`, `not_converged`, `stalled`,
    /// `non_finite`, `error_control`, `step_too_small`, `max_steps`, `correction`, `singular`,
    /// `invalid_state`, `observer`), message, the element or row at fault and the advice; `reason` is its text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<RunFailure>,
    /// Model title.
    pub model: String,
    /// Scheme name.
    pub scheme: String,
    /// Formulation name.
    pub formulation: String,
    /// Scheme parameters.
    pub parameters: std::collections::BTreeMap<String, f64>,
    /// Step size with fixed steps, first step of an adaptive run (0: chosen automatically) \[s\].
    pub dt: f64,
    /// How the steps were chosen.
    pub step_control: StepControlSummary,
    /// End time asked for \[s\].
    pub t_end: f64,
    /// Output interval \[s\].
    pub output_interval: f64,
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps (error too large or Newton failure).
    pub rejected_steps: u64,
    /// Fixed steps taken in parts after their Newton iteration failed (`[solver.step]
    /// max_halvings`).
    pub halved_steps: u64,
    /// Committed steps the formulation corrected afterwards (projection, partitioning, hybrid).
    pub corrections: u64,
    /// Restarts of the scheme on a new choice of independent coordinates (partitioning, hybrid).
    pub repartitions: u64,
    /// Time of the first repartitioning \[s\], when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_repartition: Option<f64>,
    /// Sizes of the accepted steps.
    pub h: StepSizes,
    /// Newton counters.
    pub newton_iterations: NewtonSummary,
    /// Wall time of the integration alone (steps, without diagnostics and output) \[s\].
    pub wall_time_s: f64,
    /// Wall time of the whole time loop: steps, diagnostics and output \[s\].
    pub loop_time_s: f64,
    /// Wall time of the start-up before the loop: building the system and the scheme, assembling
    /// the consistent initial state \[s\].
    pub startup_time_s: f64,
    /// Where the diagnostics were computed: `output-samples` (the maxima below are over the
    /// history's rows) or `every-step` (over every committed step; always so in an adaptive run,
    /// whose rows are interpolated between steps).
    pub diagnostics: crate::analysis::dynamic::DiagnosticsAt,
    /// Largest |E − E₀ − W_nc| \[J\] (where `diagnostics` says); `null` when a balance was NaN.
    pub max_energy_error: f64,
    /// Largest constraint violations (where `diagnostics` says); `null` where one was NaN.
    pub max_constraint_violation: ConstraintViolation,
    /// The same maxima over the history's rows, interpolated ones included: in an adaptive run
    /// they add the interpolation's error to the method's.
    pub output_rows: RowMaxima,
    /// The largest natural frequency along the run and the step limit it sets, when the run
    /// computed it (`--omega-max`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omega_max: Option<OmegaMaxSummary>,
    /// The index-1 formulations (direct, baumgarte, projection, partitioning, hybrid): the first
    /// passage through a singular configuration (closer than the watch's threshold,
    /// `formulation/singularity.rs`), else the closest approach to one; absent for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest_singularity: Option<SingularitySummary>,
    /// What the scheme did that its settings do not say (SS-k's first step retaken from the
    /// paper's start); absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Assembly report.
    pub assembly: AssemblySummary,
    /// The last complete state.
    pub final_state: FinalState,
}

impl Summary {
    /// Collects the summary of the run `report` of `sim`.
    pub fn new(sim: &Simulation, report: &RunReport) -> Self {
        let (status, stopped_at, failed_at, reason) = status_fields(&report.status);
        let final_state = FinalState::new(&sim.system, &report.final_state);
        Summary {
            status,
            stopped_at,
            failed_at,
            reason,
            failure: failure_of(&report.status),
            model: sim.model.name.clone(),
            scheme: sim.scheme.name().to_string(),
            formulation: sim.settings.formulation.to_string(),
            parameters: sim
                .scheme
                .parameters()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            dt: sim.settings.h,
            step_control: StepControlSummary {
                mode: if report.tolerances.is_some() {
                    "adaptive"
                } else {
                    "fixed"
                }
                .into(),
                tolerances: report.tolerances,
            },
            t_end: sim.settings.t_end,
            output_interval: sim.settings.output_interval,
            steps: report.steps,
            rejected_steps: report.rejected_steps,
            halved_steps: report.halved_steps,
            corrections: report.corrections,
            repartitions: report.restarts,
            first_repartition: (report.restarts > 0).then_some(report.first_restart),
            h: step_sizes(report),
            newton_iterations: newton_summary(report, sim.settings.newton.method),
            wall_time_s: report.wall_time_s,
            loop_time_s: report.loop_time_s,
            startup_time_s: sim.startup_time_s,
            diagnostics: sim.settings.diagnostics_in_force(),
            max_energy_error: report.max_energy_error,
            max_constraint_violation: report.max_violation,
            output_rows: RowMaxima {
                max_energy_error: report.max_energy_error_rows,
                max_constraint_violation: report.max_violation_rows,
            },
            closest_singularity: report.closest_singularity.map(|p| SingularitySummary {
                t: p.t,
                ratio: p.ratio,
                singular: p.is_singular(),
            }),
            omega_max: report
                .omega_max
                .map(|r| OmegaMaxSummary::new(r, sim.scheme.name(), &sim.scheme_params)),
            notes: report.notes.clone(),
            assembly: AssemblySummary::from(&sim.assembly),
            final_state,
        }
    }
}

/// The `status`, `stopped_at`, `failed_at` and `reason` fields of a run that ended with `status`.
fn status_fields(status: &RunStatus) -> (String, Option<f64>, Option<f64>, Option<String>) {
    match status {
        RunStatus::Completed => ("completed".to_string(), None, None, None),
        RunStatus::Stopped { stopped_at } => ("stopped".to_string(), Some(*stopped_at), None, None),
        RunStatus::Interrupted { interrupted_at } => (
            "interrupted".to_string(),
            Some(*interrupted_at),
            None,
            Some("interrupted by a signal (Ctrl-C or SIGTERM); the output up to this time is complete".to_string()),
        ),
        RunStatus::Failed { failed_at, reason } => (
            "failed".to_string(),
            None,
            Some(*failed_at),
            Some(reason.to_string()),
        ),
    }
}

/// The failure of a time loop that ended with `status`, if it failed.
fn failure_of(status: &RunStatus) -> Option<RunFailure> {
    match status {
        RunStatus::Failed { reason, .. } => Some(reason.clone()),
        _ => None,
    }
}

/// The smallest, mean and largest accepted step of `report` (zeros without steps).
fn step_sizes(report: &RunReport) -> StepSizes {
    let steps = report.steps.max(1) as f64;
    StepSizes {
        min: if report.steps > 0 { report.h_min } else { 0.0 },
        mean: report.h_sum / steps,
        max: report.h_max,
    }
}

/// The Newton counts and phase times of `report`, whose iterations used `method`.
fn newton_summary(report: &RunReport, method: crate::formulation::NewtonMethod) -> NewtonSummary {
    NewtonSummary {
        total: report.newton.iterations,
        mean_per_step: if report.steps > 0 {
            report.newton.iterations as f64 / report.steps as f64
        } else {
            0.0
        },
        max_per_step: report.max_iterations_per_step,
        jacobians: report.newton.jacobians,
        factorizations: report.newton.factorizations,
        refactorizations: report.newton.refactorizations,
        residuals: report.newton.residuals,
        method,
        least_squares_solves: report.newton.least_squares_solves,
        pinned_solves: report.newton.pinned_solves,
        floor_acceptances: report.newton.floor_acceptances,
        time_s: PhaseTimesSummary {
            residual: report.phase_times.residual,
            assembly: report.phase_times.assembly,
            factorization: report.phase_times.factorization,
            solve: report.phase_times.solve,
        },
    }
}

/// The largest diagnostics over a run's output rows (see [`Summary::output_rows`]).
#[derive(Debug, Clone, Serialize)]
pub struct RowMaxima {
    /// Largest |E − E₀ − W_nc| over the rows \[J\].
    pub max_energy_error: f64,
    /// Largest constraint violations over the rows.
    pub max_constraint_violation: ConstraintViolation,
}

/// Newton counters of a kinematic or inverse dynamic analysis.
#[derive(Debug, Clone, Serialize)]
pub struct KinematicNewton {
    /// Iterations over all solved times.
    pub total: u64,
    /// Largest number at one time.
    pub max_per_time: u64,
}

/// An equilibrium in the summary.
#[derive(Debug, Clone, Serialize)]
pub struct EquilibriumSummary {
    /// `settle`, `newton` or `potential`.
    pub method: String,
    /// Iterations of the method (time steps when settling).
    pub iterations: usize,
    /// ‖Φ_qᵀλ − Q‖∞ at the result \[N, N m\].
    pub residual: f64,
    /// ‖Φ‖∞ at the result \[m, rad\].
    pub constraint_violation: f64,
    /// Stability from the reduced stiffness.
    pub stability: crate::analysis::equilibrium::Stability,
}

/// `summary.json` of a kinematic, inverse dynamic or equilibrium analysis: the conventions of
/// [`Summary`] (status, reason, model, assembly, final state) and what the analysis adds.
#[derive(Debug, Clone, Serialize)]
pub struct AnalysisSummary {
    /// `kinematics`, `inverse-dynamics` or `equilibrium`.
    pub analysis: String,
    /// `completed`, `interrupted` or `failed`.
    pub status: String,
    /// Time of the last solved state when failed or interrupted \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<f64>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The failure as data, when a time loop failed (see [`Summary::failure`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<RunFailure>,
    /// Model title.
    pub model: String,
    /// End time \[s\] (kinematics, inverse dynamics, settling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Output interval \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_interval: Option<f64>,
    /// Configurations solved (kinematics, inverse dynamics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluations: Option<u64>,
    /// Newton counters (kinematics, inverse dynamics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newton_iterations: Option<KinematicNewton>,
    /// Energy check (inverse dynamics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy_check: Option<crate::analysis::kinematics::EnergyCheck>,
    /// Largest constraint violations at the output times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_constraint_violation: Option<ConstraintViolation>,
    /// The equilibrium found (equilibrium analysis).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equilibrium: Option<EquilibriumSummary>,
    /// Wall time of the analysis \[s\].
    pub wall_time_s: f64,
    /// Assembly report.
    pub assembly: AssemblySummary,
    /// The last solved state (the equilibrium configuration for an equilibrium analysis).
    pub final_state: FinalState,
}

impl AnalysisSummary {
    /// The summary of a kinematic (or inverse dynamic) analysis of `sys` with `report`.
    pub fn kinematic<M: Mechanism>(
        model: &str,
        sys: &M,
        assembly: &AssemblyReport,
        settings: &crate::analysis::kinematics::KinematicSettings,
        report: &crate::analysis::kinematics::KinematicReport,
    ) -> Self {
        let (status, failed_at, reason) = match &report.status {
            RunStatus::Failed { failed_at, reason } => {
                ("failed", Some(*failed_at), Some(reason.to_string()))
            }
            RunStatus::Interrupted { interrupted_at } => (
                "interrupted",
                Some(*interrupted_at),
                Some("interrupted by a signal".to_string()),
            ),
            _ => ("completed", None, None),
        };
        AnalysisSummary {
            analysis: if settings.inverse {
                "inverse-dynamics"
            } else {
                "kinematics"
            }
            .into(),
            status: status.into(),
            failed_at,
            reason,
            failure: failure_of(&report.status),
            model: model.into(),
            t_end: Some(settings.t_end),
            output_interval: Some(settings.output_interval),
            evaluations: Some(report.evaluations),
            newton_iterations: Some(KinematicNewton {
                total: report.newton_iterations,
                max_per_time: report.max_iterations,
            }),
            energy_check: report.energy,
            max_constraint_violation: Some(report.max_violation),
            equilibrium: None,
            wall_time_s: report.wall_time_s,
            assembly: AssemblySummary::from(assembly),
            final_state: FinalState::new(sys, &report.final_state),
        }
    }

    /// The summary of an equilibrium analysis of `sys` by `method`: the equilibrium found, or the
    /// reason it was not (`last` is then the last state reached).
    pub fn equilibrium<M: Mechanism>(
        model: &str,
        sys: &M,
        assembly: &AssemblyReport,
        method: &str,
        result: &Result<
            crate::analysis::equilibrium::Equilibrium,
            crate::analysis::equilibrium::EquilibriumError,
        >,
        last: &State,
        wall_time_s: f64,
    ) -> Self {
        let (status, reason, state, equilibrium) = match result {
            Ok(e) => (
                "completed",
                None,
                &e.state,
                Some(EquilibriumSummary {
                    method: method.into(),
                    iterations: e.iterations,
                    residual: e.residual,
                    constraint_violation: e.constraint_violation,
                    stability: e.stability.clone(),
                }),
            ),
            Err(err @ crate::analysis::equilibrium::EquilibriumError::Interrupted { .. }) => {
                ("interrupted", Some(err.to_string()), last, None)
            }
            Err(err) => ("failed", Some(err.to_string()), last, None),
        };
        AnalysisSummary {
            analysis: "equilibrium".into(),
            status: status.into(),
            failed_at: None,
            reason,
            failure: None,
            model: model.into(),
            t_end: None,
            output_interval: None,
            evaluations: None,
            newton_iterations: None,
            energy_check: None,
            max_constraint_violation: None,
            equilibrium,
            wall_time_s,
            assembly: AssemblySummary::from(assembly),
            final_state: FinalState::new(sys, state),
        }
    }
}
