//! Dynamic analysis: the time loop.
//!
//! From a consistent initial state (see [`super::assembly`]) the loop advances a [`Scheme`] with the
//! [`Index3`] formulation at a constant step h, computes the diagnostics every step (energy, work of
//! non-conservative and driving forces, constraint violations at position, velocity and acceleration
//! level), and hands a [`Sample`] to every [`Observer`] at the first step at or after each multiple of
//! the output interval. A step that fails (Newton divergence, non-finite values) ends the run with
//! [`RunStatus::Failed`]; everything observed before stays with the observers.
//!
//! The loop allocates nothing after its set-up (a test with a counting allocator checks it).

use std::time::Instant;

use crate::formulation::{Index3, NewtonSettings, NewtonStats};
use crate::linalg::Vector;
use crate::scheme::{IntegrationPoint, PointSolution, Scheme, State};
use crate::system::{Energy, System};

/// Settings of a dynamic run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicSettings {
    /// Step size h \[s\]; positive.
    pub h: f64,
    /// End time \[s\].
    pub t_end: f64,
    /// Output interval \[s\]; 0 writes every step. Rows fall on the first step at or after each multiple.
    pub output_interval: f64,
    /// Newton settings of the formulation.
    pub newton: NewtonSettings,
}

/// Norms (Euclidean) of the constraint violations at the three levels.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct ConstraintViolation {
    /// ‖Φ(q, t)‖ \[m, rad\].
    pub position: f64,
    /// ‖Φ_q v + Φ_t‖ \[m/s, rad/s\].
    pub velocity: f64,
    /// ‖Φ_q a − γ‖ \[m/s², rad/s²\].
    pub acceleration: f64,
}

/// What an observer sees at an output time.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    /// The state (t, q, v, a, λ).
    pub state: &'a State,
    /// Kinetic and potential energy \[J\].
    pub energy: Energy,
    /// Work of non-conservative applied forces and driving constraints since the start \[J\].
    pub work_nc: f64,
    /// Energy balance E − E_0 − W_nc \[J\]; zero for the exact solution.
    pub energy_balance: f64,
    /// Constraint violations.
    pub violation: ConstraintViolation,
    /// Steps taken so far.
    pub steps: u64,
}

/// Receives samples of a run (writers, progress bars, recorders).
pub trait Observer<S: System> {
    /// Called at t_0 and at each output time.
    ///
    /// # Errors
    /// A message; the run stops and reports it as the failure reason.
    fn sample(&mut self, system: &S, sample: &Sample<'_>) -> Result<(), String>;
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Reached t_end.
    Completed,
    /// Stopped early.
    Failed {
        /// Time of the last completed state \[s\].
        failed_at: f64,
        /// Why.
        reason: String,
    },
}

/// Statistics and diagnostics of a run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How the run ended.
    pub status: RunStatus,
    /// Completed steps.
    pub steps: u64,
    /// Newton counters over the run.
    pub newton: NewtonStats,
    /// Largest number of Newton iterations in one step.
    pub max_iterations_per_step: u64,
    /// Wall time of the integration alone (without observers) \[s\].
    pub wall_time_s: f64,
    /// Largest |E − E_0 − W_nc| over all steps \[J\].
    pub max_energy_error: f64,
    /// Largest constraint violations over all steps.
    pub max_violation: ConstraintViolation,
    /// The last complete state.
    pub final_state: State,
    /// Energy at the start \[J\].
    pub initial_energy: Energy,
}

/// Work space for the per-step diagnostics.
struct Diagnostics {
    scratch: Vector,
    phi: Vector,
    phi_t: Vector,
    gamma: Vector,
    work: f64,
    power: f64,
    e0: f64,
}

impl Diagnostics {
    fn new(n: usize, m: usize) -> Self {
        Diagnostics {
            scratch: Vector::zeros(n),
            phi: Vector::zeros(m),
            phi_t: Vector::zeros(m),
            gamma: Vector::zeros(m),
            work: 0.0,
            power: 0.0,
            e0: 0.0,
        }
    }

    /// Power of non-conservative forces and drivers, λᵀ Φ_t for the driving constraints.
    fn power<S: System>(&mut self, sys: &S, x: &State) -> f64 {
        let mut p = sys.nonconservative_power(x.t, &x.q, &x.v);
        if sys.m() > 0 {
            sys.constraint_time_derivative(x.t, &x.q, &mut self.phi_t);
            p += x.lambda.dot(&self.phi_t);
        }
        p
    }

    fn violation<S: System>(&mut self, sys: &S, x: &State) -> ConstraintViolation {
        if sys.m() == 0 {
            return ConstraintViolation::default();
        }
        sys.constraints(x.t, &x.q, &mut self.phi);
        let position = self.phi.norm();
        sys.constraint_time_derivative(x.t, &x.q, &mut self.phi_t);
        sys.constraint_jacobian_times(x.t, &x.q, &x.v, &mut self.phi);
        self.phi += &self.phi_t;
        let velocity = self.phi.norm();
        sys.gamma(x.t, &x.q, &x.v, &mut self.gamma);
        sys.constraint_jacobian_times(x.t, &x.q, &x.a, &mut self.phi);
        self.phi -= &self.gamma;
        ConstraintViolation {
            position,
            velocity,
            acceleration: self.phi.norm(),
        }
    }
}

/// Runs a dynamic analysis of `sys` with `scheme` from the consistent state `x0` (n coordinates, m
/// multipliers) to `settings.t_end`, with the index-3 formulation.
///
/// Never panics on a numerical failure: a failed step returns a report with [`RunStatus::Failed`],
/// the time of the last complete state and the reason.
///
/// # Panics
/// When `settings.h` is not positive or the shapes of `x0` do not match the system.
pub fn run<S: System>(
    sys: &S,
    scheme: &mut dyn Scheme,
    x0: &State,
    settings: &DynamicSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> RunReport {
    let (n, m) = (sys.n(), sys.m());
    assert!(settings.h > 0.0, "step size must be positive");
    assert_eq!((x0.q.len(), x0.lambda.len()), (n, m), "initial state shape");
    let h = settings.h;
    let mut formulation = Index3::new(n, m, settings.newton);
    let mut pt = IntegrationPoint::new(n, m);
    let mut u = Vector::zeros(n);
    let mut lambda = Vector::zeros(m);
    let mut state = x0.clone();
    let mut diag = Diagnostics::new(n, m);

    // Force terms Φ_qᵀλ − Q at the start, for schemes with a force history (HHT).
    let mut f0 = Vector::zeros(n);
    sys.forces(x0.t, &x0.q, &x0.v, &mut f0);
    f0.neg_mut();
    if m > 0 {
        sys.add_constraint_force(x0.t, &x0.q, &x0.lambda, &mut f0);
    }
    scheme.start(h, x0, &f0);

    let e0 = sys.energy(x0.t, &x0.q, &x0.v, &mut diag.scratch);
    diag.e0 = e0.kinetic + e0.potential;
    diag.power = diag.power(sys, x0);
    let v0 = diag.violation(sys, x0);
    let mut report = RunReport {
        status: RunStatus::Completed,
        steps: 0,
        newton: NewtonStats::default(),
        max_iterations_per_step: 0,
        wall_time_s: 0.0,
        max_energy_error: 0.0,
        max_violation: v0,
        final_state: x0.clone(),
        initial_energy: e0,
    };
    let sample0 = Sample {
        state: x0,
        energy: e0,
        work_nc: 0.0,
        energy_balance: 0.0,
        violation: v0,
        steps: 0,
    };
    for o in observers.iter_mut() {
        if let Err(e) = o.sample(sys, &sample0) {
            report.status = RunStatus::Failed {
                failed_at: x0.t,
                reason: e,
            };
            return report;
        }
    }
    let mut next_output = x0.t + settings.output_interval;
    let t_tol = 1e-9 * h;
    let mut previous_t = x0.t;
    let mut last_sampled = x0.t;
    let mut wall = 0.0;

    'steps: while state.t < settings.t_end - t_tol {
        let clock = Instant::now();
        let mut step_stats = NewtonStats::default();
        for k in 0..scheme.points_per_step() {
            scheme.point(k, &mut pt);
            u.copy_from(&pt.u_guess);
            lambda.copy_from(&pt.lambda_guess);
            let solved = formulation.solve(sys, &pt, &mut u, &mut lambda, &mut step_stats);
            if let Err(e) = solved {
                wall += clock.elapsed().as_secs_f64();
                report.status = RunStatus::Failed {
                    failed_at: state.t,
                    reason: format!(
                        "step from t = {:.9} s (point {k} of the step at t = {:.9} s): {e}",
                        state.t, pt.t_e
                    ),
                };
                break 'steps;
            }
            scheme.accept_point(
                k,
                &PointSolution {
                    u: &u,
                    lambda: &lambda,
                    force_terms: &formulation.force_terms,
                },
            );
        }
        scheme.end_step(&mut state);
        wall += clock.elapsed().as_secs_f64();
        report.steps += 1;
        report.newton.iterations += step_stats.iterations;
        report.newton.factorizations += step_stats.factorizations;
        report.newton.least_squares_solves += step_stats.least_squares_solves;
        report.max_iterations_per_step = report.max_iterations_per_step.max(step_stats.iterations);

        if !(state
            .q
            .iter()
            .chain(state.v.iter())
            .chain(state.a.iter())
            .chain(state.lambda.iter()))
        .all(|x| x.is_finite())
        {
            report.status = RunStatus::Failed {
                failed_at: previous_t,
                reason: format!(
                    "non-finite state at t = {:.9} s (the solution diverged); reduce the step size",
                    state.t
                ),
            };
            break;
        }

        // Diagnostics.
        let p = diag.power(sys, &state);
        diag.work += 0.5 * (state.t - previous_t) * (p + diag.power);
        diag.power = p;
        previous_t = state.t;
        let energy = sys.energy(state.t, &state.q, &state.v, &mut diag.scratch);
        let balance = energy.kinetic + energy.potential - diag.e0 - diag.work;
        report.max_energy_error = report.max_energy_error.max(balance.abs());
        let violation = diag.violation(sys, &state);
        let mv = &mut report.max_violation;
        mv.position = mv.position.max(violation.position);
        mv.velocity = mv.velocity.max(violation.velocity);
        mv.acceleration = mv.acceleration.max(violation.acceleration);

        let last = state.t >= settings.t_end - t_tol;
        // A scheme that reports a lagging state (central differences) reports t_0 again after its first
        // step; a time already sampled is not sampled twice.
        let new_time = state.t > last_sampled + t_tol;
        if new_time && (state.t >= next_output - t_tol || last) {
            last_sampled = state.t;
            while next_output <= state.t + t_tol && settings.output_interval > 0.0 {
                next_output += settings.output_interval;
            }
            let sample = Sample {
                state: &state,
                energy,
                work_nc: diag.work,
                energy_balance: balance,
                violation,
                steps: report.steps,
            };
            for o in observers.iter_mut() {
                if let Err(e) = o.sample(sys, &sample) {
                    report.status = RunStatus::Failed {
                        failed_at: state.t,
                        reason: e,
                    };
                    break 'steps;
                }
            }
        }
    }
    report.wall_time_s = wall;
    report.final_state = state;
    report
}

/// An observer that keeps every sample's state and diagnostics in memory (tests, small studies).
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    /// Sampled states.
    pub states: Vec<State>,
    /// Energy balance E − E_0 − W_nc at each sample \[J\].
    pub energy_balance: Vec<f64>,
    /// Constraint violations at each sample.
    pub violation: Vec<ConstraintViolation>,
}

impl<S: System> Observer<S> for Recorder {
    fn sample(&mut self, _system: &S, sample: &Sample<'_>) -> Result<(), String> {
        self.states.push(sample.state.clone());
        self.energy_balance.push(sample.energy_balance);
        self.violation.push(sample.violation);
        Ok(())
    }
}
