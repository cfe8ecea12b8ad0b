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
//! (redundant constraints, a singular configuration) is still solved, in the least-squares sense
//! ([`linear::DenseSolver`]).
//!
//! Convergence: the last correction of the constrained positions, ‖c_c Δu‖∞, is at most
//! `position_tol · (1 + ‖q_c‖∞)` and the equilibrium residual ‖r_1‖∞ is at most
//! `residual_tol ·` (the largest of ‖M a_e‖∞, ‖w_f Φ_qᵀλ‖∞, ‖w_f Q‖∞, 1 N). When the point is linear in u
//! (no constraints, positions known, forces independent of velocity) one solve is exact and ends the
//! iteration.

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod linear;

use crate::linalg::{norm_inf, Block, Matrix, Vector};
use crate::scheme::IntegrationPoint;
use crate::system::System;
use linear::DenseSolver;

/// Newton iteration settings (defaults in brackets).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct NewtonSettings {
    /// Largest number of iterations (solves) per integration point [25].
    pub max_iterations: usize,
    /// Tolerance on the last position correction, relative to 1 + ‖q‖∞ [1e-10].
    pub position_tol: f64,
    /// Tolerance on the equilibrium residual, relative to the size of its terms [1e-8].
    pub residual_tol: f64,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        NewtonSettings {
            max_iterations: 25,
            position_tol: 1e-10,
            residual_tol: 1e-8,
        }
    }
}

/// Why an integration point could not be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormulationError {
    /// Newton did not meet the tolerances within the allowed iterations.
    #[error("Newton iteration did not converge in {iterations} iterations (last position correction {correction:.3e}, residual {residual:.3e}); reduce the step size or loosen the tolerances")]
    NotConverged {
        /// Iterations done.
        iterations: usize,
        /// Last ‖c_c Δu‖∞.
        correction: f64,
        /// Last ‖r_1‖∞ [N].
        residual: f64,
    },
    /// A value became NaN or infinite.
    #[error(
        "non-finite values in the Newton iteration (the solution diverged); reduce the step size"
    )]
    NonFinite,
}

/// Counters of one solve or accumulated over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewtonStats {
    /// Newton iterations (linear solves).
    pub iterations: u64,
    /// Factorizations of the iteration matrix.
    pub factorizations: u64,
    /// Solves done in the least-squares sense because the iteration matrix was singular.
    pub least_squares_solves: u64,
}

/// The index-3 formulation with Lagrange multipliers (see the module documentation). Holds all the
/// work space, so [`Index3::solve`] does not allocate (except on the least-squares fallback).
#[derive(Debug)]
pub struct Index3 {
    n: usize,
    m: usize,
    /// Newton settings.
    pub settings: NewtonSettings,
    /// Evaluation-point coordinates q_e (n).
    pub q_e: Vector,
    /// Evaluation-point velocities v_e (n).
    pub v_e: Vector,
    /// Evaluation-point accelerations a_e (n).
    pub a_e: Vector,
    /// Constraint-point coordinates q_c (n).
    pub q_c: Vector,
    /// Force terms Φ_q(q_e)ᵀλ − Q at the last evaluation (n) [N].
    pub force_terms: Vector,
    forces: Vector,
    inertia: Vector,
    phi: Vector,
    residual: Vector,
    jac: Matrix,
    solver: DenseSolver,
}

impl Index3 {
    /// Work space for a system with n coordinates and m constraints.
    pub fn new(n: usize, m: usize, settings: NewtonSettings) -> Self {
        Index3 {
            n,
            m,
            settings,
            q_e: Vector::zeros(n),
            v_e: Vector::zeros(n),
            a_e: Vector::zeros(n),
            q_c: Vector::zeros(n),
            force_terms: Vector::zeros(n),
            forces: Vector::zeros(n),
            inertia: Vector::zeros(n),
            phi: Vector::zeros(m),
            residual: Vector::zeros(n + m),
            jac: Matrix::zeros(n + m, n + m),
            solver: DenseSolver::new(n + m),
        }
    }

    fn states(&mut self, pt: &IntegrationPoint, u: &Vector) {
        for i in 0..self.n {
            self.q_e[i] = pt.q_hat[i] + pt.c_q * u[i];
            self.v_e[i] = pt.v_hat[i] + pt.c_v * u[i];
            self.a_e[i] = pt.a_hat[i] + pt.c_a * u[i];
            self.q_c[i] = pt.qc_hat[i] + pt.c_c * u[i];
        }
    }

    /// Evaluates the residual at (u, λ); returns (‖r_1‖∞, scale of its terms).
    fn evaluate<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &Vector,
        lambda: &Vector,
    ) -> (f64, f64) {
        let (n, m) = (self.n, self.m);
        self.states(pt, u);
        sys.forces(pt.t_e, &self.q_e, &self.v_e, &mut self.forces);
        sys.mass_times(&self.q_e, &self.a_e, &mut self.inertia);
        self.force_terms.fill(0.0);
        if m > 0 {
            sys.add_constraint_force(pt.t_e, &self.q_e, lambda, &mut self.force_terms);
        }
        let reaction = norm_inf(&self.force_terms);
        self.force_terms -= &self.forces;
        let w = pt.force_weight;
        for i in 0..n {
            let h = if pt.has_history_residual {
                pt.residual_history[i]
            } else {
                0.0
            };
            self.residual[i] = self.inertia[i] + w * self.force_terms[i] + h;
        }
        if m > 0 {
            sys.constraints(pt.t_c, &self.q_c, &mut self.phi);
            for j in 0..m {
                self.residual[n + j] = self.phi[j] / pt.c_c;
            }
        }
        let r1 = (0..n).fold(0.0_f64, |a, i| a.max(self.residual[i].abs()));
        let scale = norm_inf(&self.inertia)
            .max(w.abs() * reaction)
            .max(w.abs() * norm_inf(&self.forces))
            .max(1.0);
        (r1, scale)
    }

    fn assemble<S: System>(&mut self, sys: &S, pt: &IntegrationPoint, lambda: &Vector) {
        let n = self.n;
        let w = pt.force_weight;
        self.jac.fill(0.0);
        {
            let jac = &mut self.jac;
            sys.mass(&self.q_e, pt.c_a, jac);
            if pt.c_q != 0.0 {
                sys.mass_acceleration_q(&self.q_e, &self.a_e, pt.c_q, jac);
                sys.forces_q(pt.t_e, &self.q_e, &self.v_e, -pt.c_q * w, jac);
                if self.m > 0 {
                    sys.constraint_force_q(pt.t_e, &self.q_e, lambda, pt.c_q * w, jac);
                }
            }
            if pt.c_v != 0.0 {
                sys.forces_v(pt.t_e, &self.q_e, &self.v_e, -pt.c_v * w, jac);
            }
        }
        if self.m > 0 {
            sys.constraint_jacobian(
                pt.t_e,
                &self.q_e,
                w,
                &mut Block {
                    inner: &mut self.jac,
                    row: 0,
                    col: n,
                    scale: 1.0,
                    transpose: true,
                },
            );
            sys.constraint_jacobian(
                pt.t_c,
                &self.q_c,
                1.0,
                &mut Block {
                    inner: &mut self.jac,
                    row: n,
                    col: 0,
                    scale: 1.0,
                    transpose: false,
                },
            );
        }
    }

    /// Solves the integration point `pt` for `u` (n) and `lambda` (m), starting from their current
    /// values. On success, `self.force_terms` holds Φ_q(q_e)ᵀλ − Q at the solution and `q_e`, `v_e`,
    /// `a_e`, `q_c` the corresponding states.
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] after `max_iterations` without meeting the tolerances;
    /// [`FormulationError::NonFinite`] when a value becomes NaN or infinite.
    pub fn solve<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let (n, m) = (self.n, self.m);
        let linear = m == 0 && pt.c_q == 0.0 && !sys.forces_depend_on_velocity();
        let before = self.solver.stats;
        let mut correction = f64::INFINITY;
        let mut result = Err(FormulationError::NonFinite);
        for iter in 0..=self.settings.max_iterations {
            let (r1, scale) = self.evaluate(sys, pt, u, lambda);
            if !r1.is_finite() || !self.residual.iter().all(|x| x.is_finite()) {
                result = Err(FormulationError::NonFinite);
                break;
            }
            let pos_tol = self.settings.position_tol * (1.0 + norm_inf(&self.q_c));
            if iter > 0
                && (linear || (correction <= pos_tol && r1 <= self.settings.residual_tol * scale))
            {
                result = Ok(());
                break;
            }
            if iter == self.settings.max_iterations {
                result = Err(FormulationError::NotConverged {
                    iterations: iter,
                    correction,
                    residual: r1,
                });
                break;
            }
            self.assemble(sys, pt, lambda);
            self.solver.factor(&self.jac);
            self.residual.neg_mut();
            self.solver.solve_in_place(&mut self.residual);
            stats.iterations += 1;
            let mut du = 0.0_f64;
            for i in 0..n {
                u[i] += self.residual[i];
                du = du.max(self.residual[i].abs());
            }
            for j in 0..m {
                lambda[j] += self.residual[n + j];
            }
            correction = pt.c_c.abs() * du;
            if !correction.is_finite() {
                result = Err(FormulationError::NonFinite);
                break;
            }
        }
        stats.factorizations += self.solver.stats.factorizations - before.factorizations;
        stats.least_squares_solves +=
            self.solver.stats.least_squares_solves - before.least_squares_solves;
        result
    }
}
