//! The formulation layer: how the constraints enter and how the unknowns of one integration point are
//! solved for.
//!
//! [`Index3`] is the index-3 formulation with Lagrange multipliers: at each integration point (see
//! [`crate::scheme`]) it solves, by Newton's method, for u (n) and λ (m):
//!
//! ```text
//! r_1 = M(q_e) a_e + w_f (Φ_q(q_e)ᵀ λ − Q(q_e, v_e, t_e)) + r_h = 0          (n rows)
//! r_2 = Φ(q_c, t_c) / c_c = 0                                              (m rows, scaled)
//! ```
//!
//! with the iteration matrix
//!
//! ```text
//! J = [ c_a M + c_q (∂(Ma)/∂q + w_f ∂(Φ_qᵀλ)/∂q − w_f ∂Q/∂q) − c_v w_f ∂Q/∂v    w_f Φ_q(q_e)ᵀ ]
//!     [ Φ_q(q_c)                                                              0            ]
//! ```
//!
//! Dividing the constraint rows by the scheme's coefficient c_c (β h² for Newmark) keeps J well
//! conditioned as h → 0 (Bottasso, Bauchau & Cardona 2007, SIAM J. Sci. Comput. 29:397). A singular J
//! (redundant constraints, a singular configuration) is still solved, in the least-squares sense.
//!
//! J is factored by one of three linear solvers, chosen once per run by
//! [`NewtonSettings::linear_solver`]:
//!
//! - small dense ([`crate::linalg::small_dense::SmallDenseSolver`], n + m ≤ 8): nalgebra's LU with partial
//!   pivoting on a stack matrix of the exact size, its closed-form inverse up to n + m = 3;
//! - dense ([`crate::linalg::linear::DenseSolver`]): J is assembled into a dense (n+m) × (n+m) matrix and factored
//!   by LU with partial pivoting, O((n+m)³) per iteration;
//! - sparse ([`crate::linalg::sparse::SparseSolver`]): J is assembled in compressed sparse column form through
//!   [`crate::linalg::sparse::CscAssembler`] (pattern recorded on the first assembly, values written by call counter
//!   afterwards; every term of J is sent, even with a zero coefficient such as c_q = 0, so that the
//!   pattern does not depend on the integration point) and factored by a sparse LU with partial pivoting and a fill-reducing column ordering,
//!   whose symbolic analysis is done once; J of a multibody system has a few entries per row, so the
//!   cost grows about linearly with n + m.
//!
//! [`LinearSolver::Auto`] (the default) takes a dense LU in fixed-size storage
//! ([`crate::linalg::small_dense::SmallDenseSolver`]) up to n + m = 8 and the sparse path above (measured fastest
//! at each size). Every path detects a singular J (a missing or tiny pivot; for the closed-form
//! inverse, a zero determinant or a reciprocal condition number at most 1e-13) and falls back to
//! the minimum-norm least-squares solution of a dense SVD, counted in
//! [`NewtonStats::least_squares_solves`]; once the SVD has found a null space, the next matrices
//! go to it without the LU until one is regular again (redundant constraints: see [`crate::linalg::linear`]).
//! None allocates in the step loop except on that fallback (the sparse path allocates on its
//! first solve, which records and analyses the pattern).
//!
//! Convergence: the last correction of the constrained positions, ‖c_c Δu‖∞, is at most
//! `position_tol · (1 + ‖q_c‖∞)` and the equilibrium residual ‖r_1‖∞ is at most
//! `residual_tol ·` (the largest of ‖M a_e‖∞, ‖w_f Φ_qᵀλ‖∞, ‖w_f Q‖∞, w_f times the system's
//! `internal_force_scale` (a beam's EA), 1 N). When the point is linear in u
//! (no constraints, positions known, forces independent of velocity) one solve is exact and ends the
//! iteration. When a full Newton correction is too large for the test but the residual passes,
//! the index-3 formulation first tries Deuflhard's simplified correction, the new residual solved
//! with the matrix already factored (one solve, no assembly): it is applied and ends the iteration
//! when the error left after it, estimated from its contraction rate as modified Newton does, is
//! below 1e-3 · `position_tol` (see [`index3::MODIFIED_KAPPA`]). It saves the second assembly and
//! factorization of 1 step in 3 on the pendulum at h = 1e-3 and 1 in 4 on Andrews' squeezer at
//! h = 1e-5; counted as an iteration, not as a Jacobian.

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod acceleration;
pub mod baumgarte;
pub mod coordinate_partition;
pub mod direct;
pub mod hybrid;
pub mod index3;
pub mod partitioning;
pub mod projection;
mod registry;
pub mod singularity;
pub mod stabilized_index2;
pub mod tangent_space;
pub mod workspace;

pub use index3::Index3;
pub use registry::{
    build, compatible, find, formulations_for, Incompatible, Registered, UnknownFormulation,
    REGISTRY,
};
pub use stabilized_index2::StabilizedIndex2;
pub use tangent_space::TangentSpace;

use std::time::Instant;

use crate::linalg::linear::LinearStats;
use crate::linalg::Vector;
use crate::scheme::{History, IntegrationPoint, LocalError, State};
use crate::system::System;

pub use crate::catalog::{
    FormulationInfo, LinearizedSystem, Positions, Refusal, SchemeRequirement, VelocityError,
};
pub use crate::model::settings::{
    ConstraintSettings, LinearSolver, NewtonMethod, NewtonSettings, ProjectionMetric,
    SingularityPolicy,
};

/// Everything a formulation is built from.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FormulationSettings {
    /// Newton settings.
    pub newton: NewtonSettings,
    /// Constraint stabilization and correction settings.
    pub constraints: ConstraintSettings,
}

/// What [`Formulation::after_step`] did to the committed step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Correction {
    /// Nothing.
    None,
    /// The newest level was corrected (projected onto the constraints); the scheme goes on with the
    /// rewritten history.
    Corrected,
    /// The newest level was corrected and the independent coordinates changed: the time loop
    /// restarts the scheme from the corrected state (Haug 1989, §7.3.2, step 7).
    Restart,
    /// The step ended where the coordinate partition it was taken with is ill-conditioned, and the
    /// formulation has chosen a new one: the time loop discards the step and retakes it from the
    /// state before it, restarting the scheme there (Haug's step 7 applied at the start of the
    /// step). Its dependent coordinates were solved through an ill-conditioned block, which
    /// multiplies the independent coordinates' error by up to the inverse of the block's
    /// conditioning (squared for the velocities): measured on the pendulum, a step that ended at 0.024
    /// of the block's best conditioning put 1e-4 J into a run at rtol = 1e-8. A step is retaken
    /// once; a retaken step that asks again is kept as a [`Correction::Restart`].
    Retake,
}

/// Why an integration point could not be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormulationError {
    /// Newton did not meet the tolerances within the allowed iterations.
    #[error("Newton iteration did not converge in {iterations} iterations (last position correction {correction:.3e}, residual {residual:.3e})")]
    NotConverged {
        /// Iterations done.
        iterations: usize,
        /// Last ‖c_c Δu‖∞.
        correction: f64,
        /// Last ‖r_1‖∞ [N].
        residual: f64,
    },
    /// Newton's corrections no longer moved the positions beyond rounding, while the equilibrium
    /// residual stayed above its tolerance: the iteration reached the rounding level of the
    /// residual, which a smaller step does not lower (the constraint rows, scaled by 1/c_c, carry
    /// the rounding of Φ times 1/h²).
    #[error("Newton iteration stalled at the rounding level in {iterations} iterations (last position correction {correction:.3e}, residual {residual:.3e} above its tolerance {tolerance:.3e})")]
    Stalled {
        /// Iterations done.
        iterations: usize,
        /// Last ‖c_c Δu‖∞.
        correction: f64,
        /// Last ‖r_1‖∞ [N].
        residual: f64,
        /// Its tolerance [N].
        tolerance: f64,
    },
    /// A value became NaN or infinite.
    #[error("non-finite values in the Newton iteration")]
    NonFinite,
    /// The acceleration-level matrix [M Φ_qᵀ; Φ_q 0] of an index-1 formulation became singular:
    /// the motion reached a singular configuration of the constraints, where the accelerations
    /// are not determined ([`singularity`]).
    #[error("singular configuration: the smallest eigenvalue of [M Φ_qᵀ; Φ_q 0] fell to {ratio:.1e} of its largest value in the run, so Φ_q lost rank and the accelerations are not determined")]
    SingularConfiguration {
        /// Estimated smallest eigenvalue over its largest estimate in the run (0 when the
        /// linear solver found the matrix singular).
        ratio: f64,
    },
}

impl FormulationError {
    /// True when the iteration stopped at a limit below `max_iterations`: the time loop's limit of
    /// a step that can still be halved ([`Formulation::set_iteration_limit`]), not an outright
    /// failure.
    pub fn stopped_at_limit(&self, max_iterations: usize) -> bool {
        matches!(self, FormulationError::NotConverged { iterations, .. } if *iterations < max_iterations)
    }
}

/// Wall time spent in the parts of the Newton iteration \[s\], accumulated over the life of a
/// formulation: residual evaluations, assemblies of the iteration matrix, its factorizations, and
/// the linear solves. Measured with [`std::time::Instant`] around each part (tens of nanoseconds
/// each) when [`NewtonSettings::time_phases`] is on, all zero otherwise; the index-3 formulation
/// measures all four, the acceleration-level ones the last three.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PhaseTimes {
    /// Residual evaluations \[s\].
    pub residual: f64,
    /// Assemblies of the iteration matrix \[s\].
    pub assembly: f64,
    /// Factorizations, fresh or numeric refactorizations \[s\].
    pub factorization: f64,
    /// Forward and back substitutions \[s\].
    pub solve: f64,
}

/// Reads the clock around a part of the Newton iteration only when phase timing is on
/// ([`NewtonSettings::time_phases`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stopwatch {
    /// True when the clock is read.
    pub on: bool,
}

impl Stopwatch {
    /// The current instant when timing is on.
    #[inline]
    pub fn start(self) -> Option<Instant> {
        self.on.then(Instant::now)
    }

    /// Adds the time since `start` to `total` \[s\] (nothing when timing is off).
    #[inline]
    pub fn stop(start: Option<Instant>, total: &mut f64) {
        if let Some(s) = start {
            *total += s.elapsed().as_secs_f64();
        }
    }
}

impl PhaseTimes {
    /// The time from `earlier` to `self` (both accumulated by the same formulation).
    pub fn since(&self, earlier: &PhaseTimes) -> PhaseTimes {
        PhaseTimes {
            residual: self.residual - earlier.residual,
            assembly: self.assembly - earlier.assembly,
            factorization: self.factorization - earlier.factorization,
            solve: self.solve - earlier.solve,
        }
    }

    /// Adds the times of `other`.
    pub fn add(&mut self, other: &PhaseTimes) {
        self.residual += other.residual;
        self.assembly += other.assembly;
        self.factorization += other.factorization;
        self.solve += other.solve;
    }
}

/// Counters of one solve or accumulated over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewtonStats {
    /// Newton iterations (linear solves).
    pub iterations: u64,
    /// Factorizations of the iteration matrix.
    pub factorizations: u64,
    /// Of these, numeric refactorizations with the pivots of an earlier one (sparse solver).
    pub refactorizations: u64,
    /// Solves done in the least-squares sense because the iteration matrix was singular.
    pub least_squares_solves: u64,
    /// Solves of a singular iteration matrix with its null space's unknowns pinned (the same
    /// minimum-norm solution, sparse path; [`LinearStats::pinned_solves`]).
    pub pinned_solves: u64,
    /// Assemblies of the iteration matrix (Jacobian evaluations).
    pub jacobians: u64,
    /// Evaluations of the residual.
    pub residuals: u64,
    /// Integration points accepted at the floor of the iteration: corrections settled within the
    /// position tolerance, residual above its tolerance but within 1e3 of it
    /// ([`crate::linalg::convergence::NewtonTest::at_floor`]); in the tangent space, corrections
    /// settled ([`crate::linalg::convergence::FloorWatch`]) and the reduced residual within what a
    /// position change of their size produces.
    pub floor_acceptances: u64,
}

impl NewtonStats {
    /// Adds the factorizations and least-squares solves a linear solver counted between its
    /// counters `before` and `after` (one solve of an integration point).
    pub fn add_linear(&mut self, before: LinearStats, after: LinearStats) {
        self.factorizations += after.factorizations - before.factorizations;
        self.refactorizations += after.refactorizations - before.refactorizations;
        self.least_squares_solves += after.least_squares_solves - before.least_squares_solves;
        self.pinned_solves += after.pinned_solves - before.pinned_solves;
    }
}

/// How the constraints enter and how the unknowns of one integration point are solved for.
///
/// The time loop ([`crate::analysis::dynamic`]) and the stability tool are generic over it. Per step
/// the loop calls [`Formulation::before_step`], then [`Formulation::solve`] for each integration point
/// the scheme fills, and after the scheme commits the step, [`Formulation::after_step`]. The two
/// hooks receive the scheme's [`History`] as data, so that a formulation can re-project or correct
/// it between steps (tangent-space projection, coordinate projection, partitioning); the index-3
/// formulation needs neither. None of the methods may allocate after the first call.
pub trait Formulation<S: System> {
    /// Registry name.
    fn name(&self) -> &'static str;

    /// Solves the integration point `pt` for `u` (n) and `lambda` (m), starting from their values.
    /// On success [`Formulation::force_terms`] holds Φ_qᵀλ − Q (n) \[N\] at the solution.
    ///
    /// # Errors
    /// [`FormulationError`] when the iteration does not converge or values become non-finite.
    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError>;

    /// The force terms Φ_q(q_e)ᵀλ − Q(q_e, v_e, t_e) (n) \[N\] of the last solution.
    fn force_terms(&self) -> &Vector;

    /// The position correction Δq (n) \[m or rad\] of the last solution, which the scheme adds to
    /// the position it keeps for that point (the stabilized index-2 formulation,
    /// [`stabilized_index2`]); `None` for a formulation without one.
    fn position_correction(&self) -> Option<&Vector> {
        None
    }

    /// The time spent so far in the parts of the Newton iteration ([`PhaseTimes`]); zero for a
    /// formulation that does not measure it.
    fn phase_times(&self) -> PhaseTimes {
        PhaseTimes::default()
    }

    /// The first passage so far through a singular configuration, else the closest approach to
    /// one, for a formulation that watches for them ([`singularity`]); `None` otherwise.
    fn closest_singularity(&self) -> Option<singularity::Passage> {
        None
    }

    /// True when the state a solved point stands for is the point's own (q̂ + c_q u, v̂ + c_v u),
    /// so that a scheme's error filter ([`crate::scheme::Scheme::error_filter_point`]) can be
    /// solved by it. The tangent-space formulation, whose solution is a state of its own
    /// linearization, returns false.
    fn solves_point_maps(&self) -> bool {
        true
    }

    /// The Newton settings in use.
    fn settings(&self) -> &NewtonSettings;

    /// Switches the damped Newton iteration on or off for the following [`Formulation::solve`]
    /// calls, and returns whether the formulation has one (false, the default: nothing changes).
    /// Damped, every iteration forms a new matrix and shortens its correction until Deuflhard's
    /// natural monotonicity test passes (see [`index3`]); the time loop asks for it only to retry
    /// a point that failed undamped in a fixed-step run.
    fn set_damped(&mut self, _on: bool) -> bool {
        false
    }

    /// Limits the Newton iterations of the following [`Formulation::solve`] calls to `limit`
    /// when it is below `max_iterations` (`None`: `max_iterations`). The time loop sets it while
    /// a failing fixed step could still be halved (`[solver.step] halve_after_iterations`): a
    /// point that needs more iterations is then solved at a smaller step instead. Ignored by
    /// formulations without an implicit Newton iteration of the scheme's points (the default).
    fn set_iteration_limit(&mut self, _limit: Option<usize>) {}

    /// Called before each step from t_n with size h \[s\]; may rewrite the scheme's history.
    ///
    /// # Errors
    /// [`FormulationError`] when the history cannot be brought into the form the formulation needs.
    fn before_step(
        &mut self,
        _sys: &S,
        _history: &mut History,
        _t_n: f64,
        _h: f64,
    ) -> Result<(), FormulationError> {
        Ok(())
    }

    /// True when [`Formulation::after_step`] recomputes a and λ at every committed state of `sys`
    /// (so that a scheme's last point that only evaluates them,
    /// [`crate::scheme::Scheme::last_point_only_evaluates`], can be skipped). False, the default.
    fn recomputes_accelerations_after_step(&self, _sys: &S) -> bool {
        false
    }

    /// Called after the scheme committed a step whose newest complete state is `state`; may correct
    /// the history and the state (projection onto the constraints, partitioning) and ask the time
    /// loop to restart the scheme. `h` is the step just taken \[s\].
    ///
    /// # Errors
    /// [`FormulationError`] when the correction fails.
    fn after_step(
        &mut self,
        _sys: &S,
        _history: &mut History,
        _state: &mut State,
        _h: f64,
    ) -> Result<Correction, FormulationError> {
        Ok(Correction::None)
    }

    /// Removes from the local error estimate `err` (n entries per part) what the formulation knows
    /// is not truncation error of the step, before it is judged, or replaces it by what it should
    /// be. Index 3 replaces the velocity
    /// estimate's component across the constraint manifold by the new state's own
    /// velocity-constraint violation ([`index3`]'s `normal_error`). The default leaves `err` alone.
    fn remove_normal_error(&mut self, _sys: &S, _err: &mut LocalError) {}

    /// Zeroes the entries of the local error estimate that error control must not judge (the
    /// dependent coordinates of coordinate partitioning, which are solved from the constraints) and
    /// returns how many coordinates are judged. The default judges all n.
    fn filter_local_error(&self, err: &mut LocalError) -> usize {
        err.q.len()
    }
}
