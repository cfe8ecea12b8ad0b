//! Kinematic and inverse dynamic analysis of a fully driven mechanism (Haug 1989, *Computer-Aided
//! Kinematics and Dynamics of Mechanical Systems*, §3.6 and §6.3; Nikravesh 1988, §5.5).
//!
//! When the drivers remove every degree of freedom (rank Φ_q = n), the motion follows from the
//! constraints alone. At each output time t:
//!
//! ```text
//! Φ(q, t) = 0          Newton, from the previous solution advanced by its Taylor series
//! Φ_q v = −Φ_t         velocities
//! Φ_q a = γ(q, v, t)   accelerations
//! Φ_qᵀ λ = Q − M a     multipliers (inverse dynamics only)
//! ```
//!
//! Every system is solved by the singular value decomposition of Φ_q (m × n, m ≥ n), in the
//! least-squares sense, so that consistent redundant joints are accepted (minimum-norm λ, as in
//! assembly). A driver's generalized force is −λ of its row (see `io/history.rs`).
//!
//! **Energy check** (inverse dynamics): the work of the drivers, ∫ λᵀΦ_t dt, plus the work of the
//! non-conservative applied forces (dampers, loads) equals the change of kinetic plus potential
//! energy. The powers are integrated with Simpson's rule on each output interval, with one extra
//! solution at its midpoint, so the check is accurate to O(Δt⁴).

use std::time::Instant;

use crate::analysis::assembly::redundant_constraints;
use crate::analysis::diagnostics::{ConstraintViolation, Diagnostics};
use crate::analysis::dynamic::{Flow, Observer, RunStatus, Sample};
use crate::analysis::output_times::OutputTimes;
use crate::linalg::null_space::{independent_coordinates, null_space};
use crate::linalg::{Matrix, Vector};
use crate::scheme::State;
use crate::system::{Energy, System};

/// ‖Φ_qᵀΦ‖ / (σ_max ‖Φ‖) below which a failed Newton iteration is reported as a dead point: the
/// violation left is nearly orthogonal to the range of Φ_q.
const STALLED: f64 = 1e-3;

/// σ_min/σ_max of Φ_q at the last iterate below which a failed Newton iteration is reported as a
/// dead point.
const NEARLY_SINGULAR: f64 = 1e-3;

/// Settings of a kinematic or inverse dynamic analysis (defaults in brackets).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KinematicSettings {
    /// End time \[s\].
    pub t_end: f64,
    /// Interval between output times \[s\], > 0.
    pub output_interval: f64,
    /// Newton iterations per output time \[25\].
    pub max_iterations: usize,
    /// Tolerance on ‖Φ‖∞ \[1e-12, m or rad\].
    pub tolerance: f64,
    /// Singular values of Φ_q at or below `rank_tol · σ_max` count as zero \[1e-9\].
    pub rank_tol: f64,
    /// Also solve for the multipliers (inverse dynamics) \[false\].
    pub inverse: bool,
}

impl Default for KinematicSettings {
    fn default() -> Self {
        KinematicSettings {
            t_end: 1.0,
            output_interval: 0.01,
            max_iterations: 25,
            tolerance: 1e-12,
            rank_tol: 1e-9,
            inverse: false,
        }
    }
}

/// Why a kinematic analysis cannot start or stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KinematicError {
    /// The output times cannot be scheduled.
    #[error("{0}")]
    Settings(String),
    /// Rank Φ_q < n: some degrees of freedom are not driven.
    #[error("the model is not fully driven: {free} degree(s) of freedom remain (n = {n} coordinates, rank of Φ_q = {rank}); free coordinates (one choice): {coordinates}. Add a driver for each, or use `dynastep run` for dynamics")]
    NotDriven {
        /// n − rank.
        free: usize,
        /// n.
        n: usize,
        /// Rank of Φ_q.
        rank: usize,
        /// Labels of a set of independent coordinates.
        coordinates: String,
    },
    /// A driver is redundant with the joints or other drivers.
    #[error("the drivers conflict: the rank of Φ_q is {rank} of {m} rows, and these rows prescribe the same motion: {rows}. Remove one of the drivers")]
    Conflicting {
        /// Rank of Φ_q.
        rank: usize,
        /// m.
        m: usize,
        /// Labels of the rows involved.
        rows: String,
    },
    /// Φ_q lost rank during the motion.
    #[error("at t = {t} s the constraint Jacobian is singular (rank {rank} of {n}): the mechanism is at a lock-up or dead point; rows involved: {rows}")]
    Singular {
        /// Time \[s\].
        t: f64,
        /// Rank of Φ_q.
        rank: usize,
        /// n.
        n: usize,
        /// Labels of the dependent rows.
        rows: String,
    },
    /// Newton on Φ(q, t) = 0 did not converge where Φ_q is nearly singular.
    #[error("at t = {t} s the mechanism is at or past a dead point or lock-up: the position equations did not converge (‖Φ‖∞ = {residual:.3e}) and the constraint Jacobian is nearly singular (σ_min/σ_max = {ratio:.1e}); rows involved: {rows}. The drivers ask for a configuration the mechanism cannot reach")]
    DeadPoint {
        /// Time \[s\].
        t: f64,
        /// ‖Φ‖∞ at the last iterate.
        residual: f64,
        /// σ_min/σ_max of Φ_q at the last iterate.
        ratio: f64,
        /// Labels of the rows of the weakest direction.
        rows: String,
    },
    /// Newton on Φ(q, t) = 0 did not converge.
    #[error("at t = {t} s the position equations did not converge: ‖Φ‖∞ = {residual:.3e} after {iterations} iterations, largest in {worst}; the drivers may ask for a configuration the mechanism cannot reach")]
    NotConverged {
        /// Time \[s\].
        t: f64,
        /// ‖Φ‖∞.
        residual: f64,
        /// Iterations done.
        iterations: usize,
        /// Label of the worst row.
        worst: String,
    },
}

/// The energy check of an inverse dynamic analysis at the last output time \[J\].
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct EnergyCheck {
    /// Work of the drivers ∫ λᵀΦ_t dt.
    pub driver_work: f64,
    /// Work of the non-conservative applied forces (negative for dissipation).
    pub applied_work: f64,
    /// Change of kinetic energy.
    pub kinetic_change: f64,
    /// Change of potential energy.
    pub potential_change: f64,
    /// ΔT + ΔV − driver work − applied work; zero up to the quadrature error.
    pub residual: f64,
    /// Largest |residual| over the output times.
    pub max_residual: f64,
}

/// What a kinematic or inverse dynamic analysis did.
#[derive(Debug, Clone, PartialEq)]
pub struct KinematicReport {
    /// `Completed`, or `Failed` with the time of the last solved state and the reason.
    pub status: RunStatus,
    /// Configurations solved (output times and Simpson midpoints).
    pub evaluations: u64,
    /// Newton iterations in all.
    pub newton_iterations: u64,
    /// Largest number of Newton iterations at one time.
    pub max_iterations: u64,
    /// Largest constraint violations at the output times.
    pub max_violation: ConstraintViolation,
    /// Energy check (inverse dynamics only).
    pub energy: Option<EnergyCheck>,
    /// The last solved state.
    pub final_state: State,
    /// Wall time \[s\].
    pub wall_time_s: f64,
}

/// Refuses a model whose drivers do not fix every coordinate or conflict, at the state `x`.
///
/// # Errors
/// [`KinematicError::Conflicting`] when a driving row depends on the other rows,
/// [`KinematicError::NotDriven`] when rank Φ_q < n.
pub fn check_fully_driven<S: System>(
    sys: &S,
    x: &State,
    rank_tol: f64,
) -> Result<(), KinematicError> {
    let (n, m) = (sys.n(), sys.m());
    let mut jac = Matrix::zeros(m, n);
    sys.constraint_jacobian(x.t, &x.q, 1.0, &mut jac);
    let (rank, basis) = null_space(&jac, rank_tol);
    if rank < m {
        let (_, rows) = redundant_constraints(sys, x.t, &x.q, rank_tol);
        let driver_involved =
            (0..m).any(|r| sys.driving_constraint(r) && rows.contains(&sys.constraint_label(r)));
        if driver_involved {
            return Err(KinematicError::Conflicting {
                rank,
                m,
                rows: rows.join(", "),
            });
        }
    }
    if rank < n {
        let free: Vec<String> = independent_coordinates(&basis)
            .into_iter()
            .map(|i| sys.coordinate_label(i))
            .collect();
        return Err(KinematicError::NotDriven {
            free: n - rank,
            n,
            rank,
            coordinates: free.join(", "),
        });
    }
    Ok(())
}

/// Solves the kinematics (and, with `inverse`, the multipliers) at one time (see the module
/// documentation). Work space for n coordinates and m constraints.
#[derive(Debug, Clone)]
pub struct KinematicSolver {
    settings: KinematicSettings,
    jac: Matrix,
    phi: Vector,
    rhs_m: Vector,
    rhs_n: Vector,
    scratch: Vector,
}

impl KinematicSolver {
    /// Work space for `sys`.
    pub fn new<S: System>(sys: &S, settings: &KinematicSettings) -> Self {
        let (n, m) = (sys.n(), sys.m());
        KinematicSolver {
            settings: *settings,
            jac: Matrix::zeros(m, n),
            phi: Vector::zeros(m),
            rhs_m: Vector::zeros(m),
            rhs_n: Vector::zeros(n),
            scratch: Vector::zeros(n),
        }
    }

    /// Overwrites `x` with the solution at time `t`, starting Newton from `x.q` advanced by
    /// v Δt + a Δt²/2; returns the Newton iterations.
    ///
    /// # Errors
    /// [`KinematicError::NotConverged`] or [`KinematicError::Singular`].
    pub fn solve<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        x: &mut State,
    ) -> Result<usize, KinematicError> {
        let dt = t - x.t;
        x.q += &x.v * dt + &x.a * (0.5 * dt * dt);
        x.t = t;
        let iterations = self.positions(sys, x)?;
        let svd = self.factor(sys, x)?;
        let tol = self.settings.rank_tol * svd.singular_values.max();
        sys.constraint_time_derivative(t, &x.q, &mut self.rhs_m);
        self.rhs_m.neg_mut();
        x.v = svd.solve(&self.rhs_m, tol).expect("U and Vᵀ were computed");
        sys.gamma(t, &x.q, &x.v, &mut self.rhs_m);
        x.a = svd.solve(&self.rhs_m, tol).expect("U and Vᵀ were computed");
        if self.settings.inverse {
            // Φ_qᵀ λ = Q − M a with Φ_q = U Σ Vᵀ: λ = U Σ⁺ Vᵀ (Q − M a), minimum norm.
            sys.forces(t, &x.q, &x.v, &mut self.rhs_n);
            sys.mass_times(&x.q, &x.a, &mut self.scratch);
            self.rhs_n -= &self.scratch;
            let (u, v_t) = (svd.u.as_ref(), svd.v_t.as_ref());
            let mut y = v_t.expect("computed") * &self.rhs_n;
            for (yi, s) in y.iter_mut().zip(svd.singular_values.iter()) {
                *yi = if *s > tol { *yi / s } else { 0.0 };
            }
            x.lambda = u.expect("computed") * y;
        } else {
            x.lambda.fill(0.0);
        }
        Ok(iterations)
    }

    /// Newton on Φ(q, t) = 0 with least-squares steps.
    fn positions<S: System>(&mut self, sys: &S, x: &mut State) -> Result<usize, KinematicError> {
        let max = self.settings.max_iterations;
        for it in 0..=max {
            sys.constraints(x.t, &x.q, &mut self.phi);
            let r = self.phi.amax();
            if r <= self.settings.tolerance {
                return Ok(it);
            }
            if it == max || !r.is_finite() {
                let (ratio, stall, rows) = self.weakest_rows(sys, x);
                if stall < STALLED || ratio < NEARLY_SINGULAR {
                    return Err(KinematicError::DeadPoint {
                        t: x.t,
                        residual: r,
                        ratio,
                        rows: rows.join(", "),
                    });
                }
                let worst = self.phi.iamax();
                return Err(KinematicError::NotConverged {
                    t: x.t,
                    residual: r,
                    iterations: it,
                    worst: sys.constraint_label(worst),
                });
            }
            let svd = self.factor(sys, x)?;
            let tol = self.settings.rank_tol * svd.singular_values.max();
            self.phi.neg_mut();
            let dq = svd.solve(&self.phi, tol).expect("U and Vᵀ were computed");
            self.line_search(sys, x, &dq, r);
        }
        unreachable!("the loop returns at it == max")
    }

    /// Moves x.q along the Gauss–Newton step `dq`, halved until ‖Φ‖∞ falls below `r` (at most
    /// ten halvings; the last trial is kept). Without a solution the iterates then approach the
    /// least-squares minimum of ‖Φ‖, where [`Self::weakest_rows`] recognises a dead point.
    fn line_search<S: System>(&mut self, sys: &S, x: &mut State, dq: &Vector, r: f64) {
        let mut alpha = 1.0;
        for _ in 0..10 {
            x.q.axpy(alpha, dq, 1.0);
            sys.constraints(x.t, &x.q, &mut self.phi);
            if self.phi.amax() < r {
                return;
            }
            x.q.axpy(-alpha, dq, 1.0);
            alpha *= 0.5;
        }
        x.q.axpy(alpha, dq, 1.0);
    }

    /// At x: σ_min/σ_max of Φ_q; ‖Φ_qᵀΦ‖ / (σ_max ‖Φ‖), small when the remaining violation Φ is
    /// orthogonal to every change the coordinates can make (Gauss–Newton has stalled at a
    /// configuration the constraints cannot leave); and the labels of the rows that take part in
    /// the weakest direction (the left singular vector of σ_min, entries above a tenth of its
    /// largest).
    fn weakest_rows<S: System>(&mut self, sys: &S, x: &State) -> (f64, f64, Vec<String>) {
        self.jac.fill(0.0);
        sys.constraint_jacobian(x.t, &x.q, 1.0, &mut self.jac);
        sys.constraints(x.t, &x.q, &mut self.phi);
        let gradient = self.jac.transpose() * &self.phi;
        let svd = self.jac.clone().svd(true, false);
        let (k, smin) = svd.singular_values.argmin();
        let smax = svd.singular_values.max();
        let ratio = smin / smax;
        let stall = gradient.norm() / (smax * self.phi.norm());
        let u = svd.u.expect("requested");
        let col = u.column(k);
        let big = col.amax();
        let rows = (0..col.len())
            .filter(|&r| col[r].abs() > 0.1 * big)
            .map(|r| sys.constraint_label(r))
            .collect();
        (ratio, stall, rows)
    }

    /// The SVD of Φ_q at x, or the singular-configuration error.
    fn factor<S: System>(
        &mut self,
        sys: &S,
        x: &State,
    ) -> Result<nalgebra::SVD<f64, nalgebra::Dyn, nalgebra::Dyn>, KinematicError> {
        self.jac.fill(0.0);
        sys.constraint_jacobian(x.t, &x.q, 1.0, &mut self.jac);
        let svd = self.jac.clone().svd(true, true);
        let smax = svd.singular_values.max();
        let rank = svd
            .singular_values
            .iter()
            .filter(|s| **s > self.settings.rank_tol * smax)
            .count();
        let n = sys.n();
        if rank < n {
            let (_, _, rows) = self.weakest_rows(sys, x);
            return Err(KinematicError::Singular {
                t: x.t,
                rank,
                n,
                rows: rows.join(", "),
            });
        }
        Ok(svd)
    }
}

/// Powers and energies at one solved state, for the energy check.
#[derive(Debug, Clone, Copy, Default)]
struct Powers {
    driver: f64,
    applied: f64,
}

fn powers<S: System>(sys: &S, x: &State, phi_t: &mut Vector) -> Powers {
    sys.constraint_time_derivative(x.t, &x.q, phi_t);
    Powers {
        driver: x.lambda.dot(phi_t),
        applied: sys.nonconservative_power(x.t, &x.q, &x.v),
    }
}

/// Runs the kinematic (or, with `settings.inverse`, inverse dynamic) analysis from the assembled
/// state `x0` (its t is the start time) to `settings.t_end`, handing every output time to the
/// observers. A failure midway returns a report with status `Failed`; observers keep what they got.
///
/// # Errors
/// [`KinematicError`] before the first output when the model is not fully driven or its drivers
/// conflict, when the output interval is not positive or asks for too many rows, or when the start
/// state cannot be solved.
pub fn run<S: System>(
    sys: &S,
    x0: &State,
    settings: &KinematicSettings,
    observers: &mut [&mut dyn Observer<S>],
) -> Result<KinematicReport, KinematicError> {
    let clock = Instant::now();
    check_fully_driven(sys, x0, settings.rank_tol)?;
    let mut solver = KinematicSolver::new(sys, settings);
    let mut x = x0.clone();
    let it0 = solver.solve(sys, x0.t, &mut x)?;
    let mut times = OutputTimes::new(x0.t, settings.output_interval, settings.t_end)
        .map_err(|reason| KinematicError::Settings(reason.to_string()))?;
    let (diag, e0) = Diagnostics::new(sys, &x);
    let mut phi_t = Vector::zeros(sys.m());
    let mut tally = Tally::start(diag, e0, &x, it0, settings);
    let mut p = powers(sys, &x, &mut phi_t);
    let mut mid = x.clone();
    loop {
        let stop = tally.sample(sys, &x, observers);
        let Some(t_next) = times.peek().filter(|_| !stop) else {
            break;
        };
        times.advance();
        let h = t_next - x.t;
        tally.h = h;
        let (i1, i2) = match advance(&mut solver, sys, &mut x, &mut mid, t_next) {
            Ok(it) => it,
            Err(e) => {
                tally.report.status = RunStatus::Failed {
                    failed_at: tally.report.final_state.t,
                    reason: e.into(),
                };
                break;
            }
        };
        let report = &mut tally.report;
        report.evaluations += 2;
        report.newton_iterations += (i1 + i2) as u64;
        report.max_iterations = report.max_iterations.max(i1.max(i2) as u64);
        let pm = powers(sys, &mid, &mut phi_t);
        let pn = powers(sys, &x, &mut phi_t);
        let work = &mut tally.work;
        work.driver += h / 6.0 * (p.driver + 4.0 * pm.driver + pn.driver);
        work.applied += h / 6.0 * (p.applied + 4.0 * pm.applied + pn.applied);
        p = pn;
    }
    let mut report = tally.report;
    report.wall_time_s = clock.elapsed().as_secs_f64();
    Ok(report)
}

/// Solves the midpoint (for Simpson's rule) into `mid`, then the output time `t_next` into `x`;
/// the Newton iterations of each.
fn advance<S: System>(
    solver: &mut KinematicSolver,
    sys: &S,
    x: &mut State,
    mid: &mut State,
    t_next: f64,
) -> Result<(usize, usize), KinematicError> {
    let h = t_next - x.t;
    mid.clone_from(x);
    solver.solve(sys, x.t + 0.5 * h, mid).and_then(|i1| {
        x.clone_from(mid);
        solver.solve(sys, t_next, x).map(|i2| (i1, i2))
    })
}

/// What a kinematic run gathers from one output time to the next.
struct Tally {
    diag: Diagnostics,
    /// Energy at the start state.
    e0: Energy,
    /// Work of the drivers and applied forces so far \[J\].
    work: Powers,
    /// The last output interval \[s\] (0 at the start).
    h: f64,
    report: KinematicReport,
}

impl Tally {
    /// The tally at the solved start state `x` (`it0` Newton iterations), before any sample.
    fn start(
        diag: Diagnostics,
        e0: Energy,
        x: &State,
        it0: usize,
        settings: &KinematicSettings,
    ) -> Self {
        Tally {
            diag,
            e0,
            work: Powers::default(),
            h: 0.0,
            report: KinematicReport {
                status: RunStatus::Completed,
                evaluations: 1,
                newton_iterations: it0 as u64,
                max_iterations: it0 as u64,
                max_violation: ConstraintViolation::default(),
                energy: settings.inverse.then(EnergyCheck::default),
                final_state: x.clone(),
                wall_time_s: 0.0,
            },
        }
    }

    /// Records the sample at `x` (energy check, violation, last state) and hands it to the
    /// observers; true when the run stops there, with the reason in the report's status.
    fn sample<S: System>(
        &mut self,
        sys: &S,
        x: &State,
        observers: &mut [&mut dyn Observer<S>],
    ) -> bool {
        let (e0, work) = (self.e0, self.work);
        let energy = self.diag.energy(sys, x);
        let violation = self.diag.violation(sys, x);
        let report = &mut self.report;
        report.max_violation.max_with(&violation);
        let balance = energy.kinetic + energy.potential
            - e0.kinetic
            - e0.potential
            - work.driver
            - work.applied;
        if let Some(check) = report.energy.as_mut() {
            *check = EnergyCheck {
                driver_work: work.driver,
                applied_work: work.applied,
                kinetic_change: energy.kinetic - e0.kinetic,
                potential_change: energy.potential - e0.potential,
                residual: balance,
                max_residual: check.max_residual.max(balance.abs()),
            };
        }
        let sample = Sample {
            state: x,
            energy,
            work_nc: work.driver + work.applied,
            energy_balance: balance,
            violation,
            h: self.h,
            steps: report.evaluations,
            rejected: 0,
            newton_iterations: report.newton_iterations,
            omega_max: None,
        };
        let mut stop = notify(sys, &sample, observers, &mut report.status);
        report.final_state.clone_from(x);
        if stop && matches!(report.status, RunStatus::Completed) {
            report.status = RunStatus::Stopped { stopped_at: x.t };
        }
        if !stop && observers.iter().any(|o| o.interrupted()) {
            report.status = RunStatus::Interrupted {
                interrupted_at: x.t,
            };
            stop = true;
        }
        stop
    }
}

/// Hands `sample` to every observer; true when one asks to stop or fails (a failure is recorded
/// in `status`).
fn notify<S: System>(
    sys: &S,
    sample: &Sample<'_>,
    observers: &mut [&mut dyn Observer<S>],
    status: &mut RunStatus,
) -> bool {
    let mut stop = false;
    for o in observers.iter_mut() {
        match o.sample(sys, sample) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => stop = true,
            Err(reason) => {
                *status = RunStatus::Failed {
                    failed_at: sample.state.t,
                    reason: reason.into(),
                };
                stop = true;
            }
        }
    }
    stop
}
