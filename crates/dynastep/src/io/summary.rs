//! `summary.json`: the machine-readable record of a run.

use serde::Serialize;

use crate::analysis::dynamic::{ConstraintViolation, RunReport, RunStatus};
use crate::analysis::simulation::Simulation;
use crate::analysis::step_control::Tolerances;

/// Newton counters in the summary.
#[derive(Debug, Clone, Serialize)]
pub struct NewtonSummary {
    /// Total iterations (linear solves) over the run.
    pub total: u64,
    /// Mean iterations per step.
    pub mean_per_step: f64,
    /// Largest number of iterations in one step.
    pub max_per_step: u64,
    /// Factorizations of the iteration matrix.
    pub factorizations: u64,
    /// Solves done in the least-squares sense (singular iteration matrix).
    pub least_squares_solves: u64,
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
    /// Body-frame pose (x, y, θ) of each body by name.
    pub bodies: std::collections::BTreeMap<String, [f64; 3]>,
    /// Marker positions by name.
    pub markers: std::collections::BTreeMap<String, [f64; 2]>,
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
pub struct StepControl {
    /// `fixed` or `adaptive`.
    pub mode: String,
    /// The tolerances and step limits of an adaptive run.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub tolerances: Option<Tolerances>,
}

/// The whole summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// "completed", "stopped" (an observer ended the run; not a failure) or "failed".
    pub status: String,
    /// Time at which an observer stopped the run \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<f64>,
    /// Time of the last complete state when failed \[s\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<f64>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
    pub step_control: StepControl,
    /// End time asked for \[s\].
    pub t_end: f64,
    /// Output interval \[s\].
    pub output_interval: f64,
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps (error too large or Newton failure).
    pub rejected_steps: u64,
    /// Sizes of the accepted steps.
    pub h: StepSizes,
    /// Newton counters.
    pub newton_iterations: NewtonSummary,
    /// Wall time of the integration alone \[s\].
    pub wall_time_s: f64,
    /// Largest |E − E₀ − W_nc| \[J\].
    pub max_energy_error: f64,
    /// Largest constraint violations.
    pub max_constraint_violation: ConstraintViolation,
    /// Assembly report.
    pub assembly: AssemblySummary,
    /// The last complete state.
    pub final_state: FinalState,
}

impl Summary {
    /// Collects the summary of the run `report` of `sim`.
    pub fn new(sim: &Simulation, report: &RunReport) -> Self {
        let (status, stopped_at, failed_at, reason) = match &report.status {
            RunStatus::Completed => ("completed".to_string(), None, None, None),
            RunStatus::Stopped { stopped_at } => {
                ("stopped".to_string(), Some(*stopped_at), None, None)
            }
            RunStatus::Failed { failed_at, reason } => (
                "failed".to_string(),
                None,
                Some(*failed_at),
                Some(reason.clone()),
            ),
        };
        let steps = report.steps.max(1) as f64;
        let x = &report.final_state;
        let sys = &sim.system;
        let final_state = FinalState {
            t: x.t,
            q: x.q.iter().copied().collect(),
            v: x.v.iter().copied().collect(),
            a: x.a.iter().copied().collect(),
            lambda: x.lambda.iter().copied().collect(),
            bodies: sys
                .body_names()
                .iter()
                .enumerate()
                .map(|(b, n)| (n.to_string(), sys.body_pose(b, &x.q)))
                .collect(),
            markers: sys
                .marker_names()
                .iter()
                .enumerate()
                .map(|(k, n)| (n.to_string(), sys.marker_state(k, &x.q, &x.v).0))
                .collect(),
        };
        let assembly = &sim.assembly;
        Summary {
            status,
            stopped_at,
            failed_at,
            reason,
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
            step_control: StepControl {
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
            h: StepSizes {
                min: if report.steps > 0 { report.h_min } else { 0.0 },
                mean: report.h_sum / steps,
                max: report.h_max,
            },
            newton_iterations: NewtonSummary {
                total: report.newton.iterations,
                mean_per_step: if report.steps > 0 {
                    report.newton.iterations as f64 / report.steps as f64
                } else {
                    0.0
                },
                max_per_step: report.max_iterations_per_step,
                factorizations: report.newton.factorizations,
                least_squares_solves: report.newton.least_squares_solves,
            },
            wall_time_s: report.wall_time_s,
            max_energy_error: report.max_energy_error,
            max_constraint_violation: report.max_violation,
            assembly: AssemblySummary {
                iterations: assembly.iterations,
                max_position_change: assembly.max_position_change,
                rank: assembly.rank,
                constraints: assembly.constraints,
                redundant: assembly.redundant.clone(),
            },
            final_state,
        }
    }
}
