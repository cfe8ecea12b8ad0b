//! The index-3 formulation with Lagrange multipliers: Newton's method on (u, λ) at each integration
//! point, with scaled constraint rows (see the [module documentation of the layer](super)).

use crate::linalg::{norm_inf, Block, Sink, Vector};
use crate::scheme::IntegrationPoint;
use crate::system::System;

use super::workspace::{MatrixTerms, Workspace};
use super::{
    Formulation, FormulationError, FormulationInfo, FormulationSettings, LinearizedSystem,
    NewtonSettings, NewtonStats, Registered, SchemeRequirement, VelocityError,
};

/// Registry entry of the index-3 formulation.
pub const INFO: FormulationInfo = FormulationInfo {
    name: "index3",
    aliases: &["index-3", "i3"],
    summary: "index-3 DAE with Lagrange multipliers: Newton on (u, lambda) per integration point, constraint rows scaled by 1/c_c, dense or sparse LU, least-squares fallback when singular",
    source: "Bottasso, Bauchau & Cardona (2007) SIAM J. Sci. Comput. 29:397 (scaling); Arnold & Brüls (2007) Multibody Syst Dyn 18:185 (generalized-alpha in index-3 form)",
    constraint_level: "positions (index 3); velocity and acceleration constraints hold only approximately",
    schemes: SchemeRequirement::Any,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::ScaledByStep,
};

/// The states at which the iteration matrix is evaluated.
struct EvalStates<'a> {
    q_e: &'a Vector,
    v_e: &'a Vector,
    a_e: &'a Vector,
    q_c: &'a Vector,
}

/// The iteration matrix J (see the module documentation) at the evaluation states. With `every`,
/// every term is sent even when its coefficient is zero, so that the sequence of entries does not
/// depend on the integration point (the sparse assembler relies on it).
struct IterationMatrix<'a, S> {
    sys: &'a S,
    pt: &'a IntegrationPoint,
    lambda: &'a Vector,
    st: EvalStates<'a>,
}

impl<S: System> MatrixTerms for IterationMatrix<'_, S> {
    fn add<K: Sink>(&self, every: bool, jac: &mut K) {
        add_iteration_matrix(self.sys, self.pt, self.lambda, &self.st, every, jac);
    }
}

fn add_iteration_matrix<S: System, K: Sink>(
    sys: &S,
    pt: &IntegrationPoint,
    lambda: &Vector,
    st: &EvalStates<'_>,
    every: bool,
    jac: &mut K,
) {
    let (n, m) = (sys.n(), sys.m());
    let w = pt.force_weight;
    sys.mass(st.q_e, pt.c_a, jac);
    if every || pt.c_q != 0.0 {
        sys.mass_acceleration_q(st.q_e, st.a_e, pt.c_q, jac);
        sys.forces_q(pt.t_e, st.q_e, st.v_e, -pt.c_q * w, jac);
        if m > 0 {
            sys.constraint_force_q(pt.t_e, st.q_e, lambda, pt.c_q * w, jac);
        }
    }
    if every || pt.c_v != 0.0 {
        sys.forces_v(pt.t_e, st.q_e, st.v_e, -pt.c_v * w, jac);
    }
    if m > 0 {
        sys.constraint_jacobian(
            pt.t_e,
            st.q_e,
            w,
            &mut Block {
                inner: &mut *jac,
                row: 0,
                col: n,
                scale: 1.0,
                transpose: true,
            },
        );
        sys.constraint_jacobian(
            pt.t_c,
            st.q_c,
            1.0,
            &mut Block {
                inner: &mut *jac,
                row: n,
                col: 0,
                scale: 1.0,
                transpose: false,
            },
        );
    }
}

/// The index-3 formulation with Lagrange multipliers (see the module documentation). Holds all the
/// work space, so its `Formulation::solve` does not allocate (except on the least-squares fallback, and on
/// the first solve of the sparse path, which records the pattern and analyses it).
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
    work: Workspace,
}

impl Registered for Index3 {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        Index3::new(n, m, settings.newton)
    }
}

impl<S: System> Formulation<S> for Index3 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// Solves the integration point `pt` for `u` (n) and `lambda` (m), starting from their current
    /// values. On success, `self.force_terms` holds Φ_q(q_e)ᵀλ − Q at the solution and `q_e`, `v_e`,
    /// `a_e`, `q_c` the corresponding states.
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] after `max_iterations` without meeting the tolerances;
    /// [`FormulationError::NonFinite`] when a value becomes NaN or infinite.
    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let (n, m) = (self.n, self.m);
        let linear = m == 0 && pt.c_q == 0.0 && !sys.forces_depend_on_velocity();
        let before = self.work.stats();
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
            self.assemble_and_factor(sys, pt, lambda);
            self.residual.neg_mut();
            self.solve_linear();
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
        stats.add_linear(before, self.work.stats());
        result
    }

    fn force_terms(&self) -> &Vector {
        &self.force_terms
    }

    fn settings(&self) -> &NewtonSettings {
        &self.settings
    }
}

impl Index3 {
    /// Work space for a system with n coordinates and m constraints; the linear solver (dense or sparse)
    /// is chosen here from `settings.linear_solver` and n + m.
    pub fn new(n: usize, m: usize, settings: NewtonSettings) -> Self {
        let work = Workspace::new(n + m, settings.linear_solver);
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
            work,
        }
    }

    /// True when the iteration matrix is assembled and factored sparse.
    pub fn is_sparse(&self) -> bool {
        self.work.is_sparse()
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

    /// Assembles and factors the iteration matrix at the current states.
    fn assemble_and_factor<S: System>(&mut self, sys: &S, pt: &IntegrationPoint, lambda: &Vector) {
        let terms = IterationMatrix {
            sys,
            pt,
            lambda,
            st: EvalStates {
                q_e: &self.q_e,
                v_e: &self.v_e,
                a_e: &self.a_e,
                q_c: &self.q_c,
            },
        };
        self.work.factor(&terms);
    }

    /// Overwrites the residual (n + m) with the solution of J x = residual for the last factored J.
    fn solve_linear(&mut self) {
        self.work.solve_in_place(&mut self.residual);
    }
}
