//! Integration in the tangent space of the constraint manifold (Fernández de Bustos, Uriarte, Urkullu &
//! García-Marina 2022, "A new approach for the integration of DAEs in the tangent space of the
//! manifold", Meccanica 57:371–399, §5, eqs. 32–58).
//!
//! At every Newton iterate the constraints are linearized at the current estimate (x₀, ẋ₀, ẍ₀) of the
//! new state, with H = Φ_q(x₀) (m × n), Ḣ = dΦ_q/dt and Ḧ = d²Φ_q/dt² there, and the state is written
//! through minimal coordinates of f = n − rank H entries that belong to this linearization only:
//!
//! ```text
//! x = x₀ + d_x + N α                          d_x = −H⁺ Φ₀                           (eqs. 33–34)
//! ẋ = ẋ₀ + d_v + Ẋ_p α + N β                  d_v = −H⁺ (Φ̇₀ + Ḣ d_x)                 (eqs. 38–39)
//!                                             Ẋ_p = −H⁺ Ḣ N                           (eq. 40)
//! ẍ = ẍ₀ + d_a + Ẍ_p1 α + 2 Ẋ_p β + N η       d_a = −H⁺ (Φ̈₀ + Ḧ d_x + 2 Ḣ d_v)       (eqs. 45–46)
//!                                             Ẍ_p1 = −H⁺ (Ḧ N + 2 Ḣ Ẋ_p)              (eq. 47; X_p2 = 2 Ẋ_p, eqs. 48–49)
//! ```
//!
//! with Φ̇₀ = H ẋ₀ + Φ_t and Φ̈₀ = H ẍ₀ − γ(x₀, ẋ₀) the velocity and acceleration violations of the
//! estimate (dynastep's γ is the right-hand side of Φ_q ẍ = γ; rheonomic drivers enter through Φ_t and
//! γ). N is an orthonormal basis of the null space of H and H⁺ the pseudo-inverse (minimum-norm least
//! squares, for redundant constraints), both from one singular value decomposition of Hᵀ per iterate.
//! (α, β, η) are the paper's (α, α̇, α̈) shifted by the constants Nᵀx₀, Nᵀẋ₀, Nᵀẍ₀ of this
//! linearization: the paper's minimum-norm particular solutions make α as large as the coordinates,
//! and near a singular configuration, where Ẋ_p and Ẍ_p1 grow like 1/σ_min and 1/σ_min², ẍ then
//! cancels large terms (docs/tangent_space.md). The converged solution is the same.
//!
//! Since N is orthonormal and every particular solution is orthogonal to it, the least-squares
//! projection of the scheme's history onto the linearization (eqs. 56–58) is Nᵀ applied to it, and the
//! scheme's known parts, linear combinations of its history, project the same way: the scheme,
//! unchanged, gives α = Nᵀ(q̂ − x₀) + c_q w, β = Nᵀ(v̂ − ẋ₀) + c_v w, η = Nᵀ(â − ẍ₀) + c_a w in its
//! unknown w (f entries). The equilibrium is reduced by N_G = N (holonomic constraints, G = H, eq. 52):
//!
//! ```text
//! Nᵀ [ M(x) ẍ + w_f (Φ_q(x)ᵀλ − Q(x, ẋ, t)) + r_h ] = 0
//! J_R = Nᵀ [ M (c_q Ẍ_p1 + 2c_v Ẋ_p + c_a N) + K c_q N + C (c_q Ẋ_p + c_v N) ]     (f × f)
//! K = ∂(M a)/∂q + w_f ∂(Φ_qᵀλ)/∂q − w_f ∂Q/∂q,   C = −w_f ∂Q/∂v
//! ```
//!
//! One Newton step in w per linearization, from the w that puts α = 0. The multipliers, which the
//! reduced equation eliminates, are recovered in the least-squares sense from the full equilibrium,
//! λ = −(H⁺)ᵀ (M ẍ − w_f Q + r_h) / w_f. The iteration ends when the changes of x, of (c_q/c_v) ẋ and
//! of c_q ẍ are all below `position_tol · (1 + ‖x‖∞)` and the reduced residual is below
//! `residual_tol` times the size of its terms, or has stopped falling at the floor that a position
//! change at the tolerance produces (near singular configurations). At convergence x, ẋ and ẍ satisfy
//! the position, velocity and acceleration constraints together.
//!
//! The scheme is handed u = (ẍ − â)/c_a, so that its own acceleration record is the constrained
//! acceleration, and [`Formulation::after_step`] overwrites the committed q, v, a with x, ẋ, ẍ (the
//! scheme's relations hold for the minimal coordinates, not for x).
//!
//! Cost per iterate: one SVD of Hᵀ (n × m, dense), dense M, K, C (n × n) and an f × f LU; it suits the
//! small and medium systems of the paper, not chains of hundreds of bodies.

use crate::linalg::convergence::FloorWatch;
use crate::linalg::pseudo_inverse::PseudoInverse;
use crate::linalg::{norm_inf, Matrix, Vector};
use crate::scheme::{History, IntegrationPoint, State};
use crate::system::System;

use super::{
    Correction, Formulation, FormulationError, FormulationInfo, FormulationSettings,
    NewtonSettings, NewtonStats, Registered,
};
use crate::linalg::linear::DenseSolver;

/// Registry entry; its data is in [`crate::catalog::formulations::TANGENT_SPACE`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::TANGENT_SPACE;

/// Singular values of Φ_q at or below this fraction of the largest count as zero (redundant rows).
const RANK_TOL: f64 = 1e-10;

/// The tangent-space formulation (see the module documentation). Holds all its work space; a solve
/// allocates only when the rank of Φ_q changes (a singular configuration), which resizes the
/// f-column matrices.
pub struct TangentSpace {
    n: usize,
    m: usize,
    /// Newton settings.
    pub settings: NewtonSettings,
    lin: Linearization,
    /// The state of the current iterate (x, ẋ, ẍ) (n each), which is also the estimate (x₀, ẋ₀, ẍ₀)
    /// the next iterate linearizes at; after a successful solve, the solution.
    x: [Vector; 3],
    /// The offsets of the estimate (`offset0`) and of the current iterate (`offset`) from the
    /// scheme's known parts (q̂, v̂, â) (n each): kept apart so that the tangent part of (q̂ − x₀),
    /// divided by c_q for w, carries the rounding of the small offset and not that of |q| (see
    /// [`TangentSpace::project_point`]).
    offset0: [Vector; 3],
    offset: [Vector; 3],
    red: Reduced,
    mass: Matrix,
    stiff: Matrix,
    damp: Matrix,
    dmat: Matrix,
    prod: Matrix,
    jac: Matrix,
    solver: DenseSolver,
    forces: Vector,
    inertia: Vector,
    residual: Vector,
    force_terms: Vector,
    /// ‖J_R‖∞ of the last factored reduced iteration matrix.
    jac_norm: f64,
    /// Evaluation time of the last converged point, whose state `x` holds.
    last: Option<f64>,
    /// Most iterations of the following solves when below `max_iterations`
    /// ([`Formulation::set_iteration_limit`]).
    iteration_limit: Option<usize>,
}

impl std::fmt::Debug for TangentSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TangentSpace")
            .field("n", &self.n)
            .field("m", &self.m)
            .field("f", &self.lin.f())
            .finish()
    }
}

/// The reduced vectors of one iterate (f entries each): the scheme's known parts Nᵀ(q̂ − x₀),
/// Nᵀ(v̂ − ẋ₀), Nᵀ(â − ẍ₀), the unknown w, the minimal coordinates α, β, η, and the reduced residual.
#[derive(Debug, Clone)]
struct Reduced {
    hat: [Vector; 3],
    w: Vector,
    alpha: [Vector; 3],
    residual: Vector,
}

impl Reduced {
    fn new(f: usize) -> Self {
        let z = Vector::zeros(f);
        Reduced {
            hat: [z.clone(), z.clone(), z.clone()],
            w: z.clone(),
            alpha: [z.clone(), z.clone(), z.clone()],
            residual: z,
        }
    }
}

impl Registered for TangentSpace {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        TangentSpace::new(n, m, settings.newton)
    }
}

impl TangentSpace {
    /// Hands the scheme the true acceleration of the converged point as its unknown `u` (n), or,
    /// for a point without one, the velocity.
    fn hand_back(&mut self, pt: &IntegrationPoint, u: &mut Vector) {
        for i in 0..self.n {
            u[i] = if pt.c_a != 0.0 {
                (self.x[2][i] - pt.a_hat[i]) / pt.c_a
            } else {
                (self.x[1][i] - pt.v_hat[i]) / pt.c_v
            };
        }
        self.last = Some(pt.t_e);
    }

    /// Work space for n coordinates and m constraints.
    pub fn new(n: usize, m: usize, settings: NewtonSettings) -> Self {
        let f = n.saturating_sub(m);
        let zn = || Vector::zeros(n);
        TangentSpace {
            n,
            m,
            settings,
            lin: Linearization::new(n, m),
            x: [zn(), zn(), zn()],
            offset0: [zn(), zn(), zn()],
            offset: [zn(), zn(), zn()],
            red: Reduced::new(f),
            mass: Matrix::zeros(n, n),
            stiff: Matrix::zeros(n, n),
            damp: Matrix::zeros(n, n),
            dmat: Matrix::zeros(n, f),
            prod: Matrix::zeros(n, f),
            jac: Matrix::zeros(f, f),
            solver: DenseSolver::new(f),
            forces: zn(),
            inertia: zn(),
            residual: zn(),
            force_terms: zn(),
            jac_norm: 0.0,
            last: None,
            iteration_limit: None,
        }
    }

    /// Number of minimal coordinates f = n − rank Φ_q at the last linearization.
    pub fn minimal_coordinates(&self) -> usize {
        self.lin.f()
    }

    /// Resizes the reduced work space after a change of rank (allocates).
    fn fit_reduced(&mut self) {
        let f = self.lin.f();
        if self.red.w.len() != f {
            self.red = Reduced::new(f);
            self.dmat = Matrix::zeros(self.n, f);
            self.prod = Matrix::zeros(self.n, f);
            self.jac = Matrix::zeros(f, f);
            self.solver = DenseSolver::new(f);
        }
    }

    /// The scheme's known parts in the tangent coordinates of the offsets, Nᵀ(q̂ − x₀), Nᵀ(v̂ − ẋ₀),
    /// Nᵀ(â − ẍ₀), and w such that α = 0 (positions at the estimate, projected onto the linearized
    /// manifold). The differences are the kept offsets, not x₀ subtracted from q̂: w = −Nᵀ(q̂ − x₀)/c_q
    /// and β = Nᵀ(v̂ − ẋ₀) + c_v w would otherwise carry the rounding of |q| times c_v/c_q ∝ 1/h
    /// into the velocities at every iterate (measured: with h = 1e-6 s the pendulum gained
    /// energy and ended 6e-6 m off at t = 2 s, index 3 2e-11 m; docs/tangent_space.md).
    fn project_point(&mut self, pt: &IntegrationPoint) {
        let basis = &self.lin.basis;
        for k in 0..3 {
            self.red.hat[k].gemv_tr(-1.0, basis, &self.offset0[k], 0.0);
        }
        self.red.w.copy_from(&self.red.hat[0]);
        self.red.w *= -1.0 / pt.c_q;
    }

    /// α, β, η from w through the scheme's coefficients, and x, ẋ, ẍ from them (eqs. 34, 38, 45,
    /// written as offsets from the estimate).
    fn compose(&mut self, pt: &IntegrationPoint) {
        let r = &mut self.red;
        for (k, c) in [pt.c_q, pt.c_v, pt.c_a].into_iter().enumerate() {
            r.alpha[k].copy_from(&r.hat[k]);
            r.alpha[k].axpy(c, &r.w, 1.0);
        }
        let l = &self.lin;
        for k in 0..3 {
            self.offset[k].copy_from(&self.offset0[k]);
            self.offset[k] += &l.part[k];
        }
        let [x, xd, xdd] = &mut self.offset;
        x.gemv(1.0, &l.basis, &r.alpha[0], 1.0);
        xd.gemv(1.0, &l.xd_mat, &r.alpha[0], 1.0);
        xd.gemv(1.0, &l.basis, &r.alpha[1], 1.0);
        xdd.gemv(1.0, &l.xdd_mat, &r.alpha[0], 1.0);
        xdd.gemv(2.0, &l.xd_mat, &r.alpha[1], 1.0);
        xdd.gemv(1.0, &l.basis, &r.alpha[2], 1.0);
        for (k, hat) in [&pt.q_hat, &pt.v_hat, &pt.a_hat].into_iter().enumerate() {
            self.x[k].copy_from(hat);
            self.x[k] += &self.offset[k];
        }
    }

    /// At the current state: the least-squares multipliers, the force terms, the full and the reduced
    /// residual. Returns (‖reduced residual‖∞, size of its terms).
    fn evaluate<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        lambda: &mut Vector,
    ) -> (f64, f64) {
        let w = pt.force_weight;
        let [x, xd, xdd] = &self.x;
        sys.forces(pt.t_e, x, xd, &mut self.forces);
        sys.mass_times(x, xdd, &mut self.inertia);
        // g = M ẍ − w_f Q + r_h;  w_f Hᵀλ = −g in the least-squares sense.
        self.residual.copy_from(&self.inertia);
        self.residual.axpy(-w, &self.forces, 1.0);
        if pt.has_history_residual {
            self.residual += &pt.residual_history;
        }
        self.force_terms.fill(0.0);
        if self.m > 0 {
            self.lin.svd.apply_transpose(&self.residual, lambda);
            *lambda *= -1.0 / w;
            sys.add_constraint_force(pt.t_e, x, lambda, &mut self.force_terms);
        }
        let reaction = norm_inf(&self.force_terms);
        self.residual.axpy(w, &self.force_terms, 1.0);
        self.force_terms -= &self.forces;
        self.red
            .residual
            .gemv_tr(1.0, &self.lin.basis, &self.residual, 0.0);
        let scale = norm_inf(&self.inertia)
            .max(w.abs() * reaction)
            .max(w.abs() * norm_inf(&self.forces).max(sys.internal_force_scale()))
            .max(1.0);
        (norm_inf(&self.red.residual), scale)
    }

    /// The reduced iteration matrix J_R (f × f, see the module documentation), factored.
    fn factor_jacobian<S: System>(&mut self, sys: &S, pt: &IntegrationPoint, lambda: &Vector) {
        let w = pt.force_weight;
        let [x, xd, xdd] = &self.x;
        for mat in [&mut self.mass, &mut self.stiff, &mut self.damp] {
            mat.fill(0.0);
        }
        sys.mass(x, 1.0, &mut self.mass);
        sys.mass_acceleration_q(x, xdd, 1.0, &mut self.stiff);
        sys.forces_q(pt.t_e, x, xd, -w, &mut self.stiff);
        if self.m > 0 {
            sys.constraint_force_q(pt.t_e, x, lambda, w, &mut self.stiff);
        }
        sys.forces_v(pt.t_e, x, xd, -w, &mut self.damp);
        let l = &self.lin;
        // ∂ẍ/∂w = c_q Ẍ_p1 + 2 c_v Ẋ_p + c_a N
        self.dmat.copy_from(&l.basis);
        self.dmat *= pt.c_a;
        self.dmat.zip_apply(&l.xdd_mat, |d, x| *d += pt.c_q * x);
        self.dmat
            .zip_apply(&l.xd_mat, |d, x| *d += 2.0 * pt.c_v * x);
        self.prod.gemm(1.0, &self.mass, &self.dmat, 0.0);
        // ∂x/∂w = c_q N
        self.prod.gemm(pt.c_q, &self.stiff, &l.basis, 1.0);
        // ∂ẋ/∂w = c_q Ẋ_p + c_v N
        self.dmat.copy_from(&l.basis);
        self.dmat *= pt.c_v;
        self.dmat.zip_apply(&l.xd_mat, |d, x| *d += pt.c_q * x);
        self.prod.gemm(1.0, &self.damp, &self.dmat, 1.0);
        self.jac.gemm_tr(1.0, &l.basis, &self.prod, 0.0);
        self.jac_norm = self
            .jac
            .row_iter()
            .map(|r| r.iter().map(|x| x.abs()).sum::<f64>())
            .fold(0.0, f64::max);
        self.solver.factor(&self.jac);
    }

    /// The estimate the iteration starts from, the point's maps at `u` (n), written into `x`:
    /// x₀ = q̂_c + c_c u, ẋ₀ = v̂ + c_v u, ẍ₀ = â + c_a u, and its offsets from (q̂, v̂, â).
    fn start(&mut self, pt: &IntegrationPoint, u: &Vector) {
        for i in 0..self.n {
            self.offset0[0][i] = (pt.qc_hat[i] - pt.q_hat[i]) + pt.c_c * u[i];
            self.offset0[1][i] = pt.c_v * u[i];
            self.offset0[2][i] = pt.c_a * u[i];
            self.x[0][i] = pt.qc_hat[i] + pt.c_c * u[i];
            self.x[1][i] = pt.v_hat[i] + pt.c_v * u[i];
            self.x[2][i] = pt.a_hat[i] + pt.c_a * u[i];
        }
    }

    /// One Newton step Δw = −J_R⁻¹ r from the residual of the last evaluation; the new iterate
    /// (in `x`) becomes the next estimate. Returns its change ([`TangentSpace::change`]; not finite when
    /// the step failed).
    fn newton_update<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        lambda: &Vector,
        stats: &mut NewtonStats,
    ) -> f64 {
        self.factor_jacobian(sys, pt, lambda);
        stats.jacobians += 1;
        // Δw = −J_R⁻¹ r, solved in place of the residual.
        self.red.residual.neg_mut();
        self.solver.solve_in_place(&mut self.red.residual);
        self.red.w += &self.red.residual;
        stats.iterations += 1;
        self.compose(pt);
        let change = self.change(pt);
        for (o0, o) in self.offset0.iter_mut().zip(self.offset.iter()) {
            o0.copy_from(o);
        }
        change
    }

    /// Largest change of the last iterate, on the position scale: ‖Δx‖∞, ‖(c_q/c_v) Δẋ‖∞, ‖c_q Δẍ‖∞.
    fn change(&self, pt: &IntegrationPoint) -> f64 {
        let scales = [
            1.0,
            if pt.c_v != 0.0 { pt.c_q / pt.c_v } else { 0.0 },
            pt.c_q,
        ];
        let mut d = 0.0_f64;
        for ((x, x0), s) in self.offset.iter().zip(self.offset0.iter()).zip(scales) {
            for (a, b) in x.iter().zip(x0.iter()) {
                d = d.max(s.abs() * (a - b).abs());
            }
        }
        d
    }
}

impl<S: System> Formulation<S> for TangentSpace {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// Solves the integration point `pt` (see the module documentation); on success `u` is
    /// (ẍ − â)/c_a, `lambda` the least-squares multipliers, and [`Formulation::force_terms`]
    /// Φ_q(x)ᵀλ − Q at the solution.
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] after `max_iterations` (or the time loop's lower limit,
    /// [`Formulation::set_iteration_limit`]); [`FormulationError::NonFinite`] when a value becomes
    /// NaN or infinite or the SVD of Φ_q fails.
    ///
    /// # Panics
    /// In debug builds, when the point is not implicit in positions or its constraint point differs
    /// from its evaluation point (the registry refuses such schemes).
    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        debug_assert!(pt.c_q > 0.0 && pt.c_c == pt.c_q && pt.t_c == pt.t_e);
        self.last = None;
        self.start(pt, u);
        let before = self.solver.stats;
        let mut change = f64::INFINITY;
        let mut r_prev = f64::INFINITY;
        let mut watch = FloorWatch::default();
        let mut result = Err(FormulationError::NonFinite);
        let max_iterations = self
            .iteration_limit
            .map_or(self.settings.max_iterations, |k| {
                k.min(self.settings.max_iterations)
            });
        for iter in 0..=max_iterations {
            if !self.lin.update(sys, pt.t_c, &self.x) {
                break;
            }
            self.fit_reduced();
            self.project_point(pt);
            self.compose(pt);
            let (r, scale) = self.evaluate(sys, pt, lambda);
            stats.residuals += 1;
            if !r.is_finite() || !self.x.iter().all(|v| v.iter().all(|x| x.is_finite())) {
                break;
            }
            let test = self.settings.test();
            let tol = test.position_tolerance(&self.x[0]);
            // Near a singular configuration ẍ depends on x through 1/σ_min² (Ẍ_p1), and the residual
            // stops falling at the level a position change at the tolerance produces: accept that
            // floor once the residual no longer decreases.
            let floor = self.jac_norm * tol / pt.c_q;
            let stalled = r >= 0.5 * r_prev && r <= floor;
            // Closer still, the positions themselves are determined only to about
            // ε‖q‖/σ_min and the changes stagnate above the tolerance: the floor every
            // formulation accepts ([`FloorWatch`]), with the residual such a change produces.
            if iter > 0 {
                watch.record(change, tol, r);
            }
            let at_floor = watch.settled() && r <= self.jac_norm * change.max(tol) / pt.c_q;
            if iter > 0 && change <= tol && (test.balanced(r, scale) || stalled) {
                result = Ok(());
                break;
            }
            if iter > 0 && at_floor {
                stats.floor_acceptances += 1;
                result = Ok(());
                break;
            }
            if iter == max_iterations {
                result = Err(FormulationError::NotConverged {
                    iterations: iter,
                    correction: change,
                    residual: r,
                });
                break;
            }
            r_prev = r;
            change = self.newton_update(sys, pt, lambda, stats);
            if !change.is_finite() {
                break;
            }
        }
        stats.add_linear(before, self.solver.stats);
        if result.is_ok() {
            self.hand_back(pt, u);
        }
        result
    }

    fn force_terms(&self) -> &Vector {
        &self.force_terms
    }

    /// False: the solution is (x, ẋ, ẍ) of the linearization, not the point's q̂ + c_q u.
    fn solves_point_maps(&self) -> bool {
        false
    }

    fn settings(&self) -> &NewtonSettings {
        &self.settings
    }

    fn set_iteration_limit(&mut self, limit: Option<usize>) {
        self.iteration_limit = limit;
    }

    /// Overwrites the committed positions, velocities and accelerations with those of the last solved
    /// point when it is the step's end: the scheme's relations hold for α, not for x.
    fn after_step(
        &mut self,
        _sys: &S,
        history: &mut History,
        state: &mut State,
        _h: f64,
    ) -> Result<Correction, FormulationError> {
        let Some(t) = self.last else {
            return Ok(Correction::None);
        };
        if (state.t - t).abs() > 1e-12 * (1.0 + t.abs()) {
            return Ok(Correction::None);
        }
        let level = &mut history.levels[0];
        let targets: [&mut State; 2] = [state, level];
        for target in targets {
            if (target.t - t).abs() <= 1e-12 * (1.0 + t.abs()) {
                target.q.copy_from(&self.x[0]);
                target.v.copy_from(&self.x[1]);
                target.a.copy_from(&self.x[2]);
            }
        }
        Ok(Correction::Corrected)
    }
}

/// The linearization of the constraints at one estimate: H, Ḣ, Ḧ, the SVD of Hᵀ, the null-space
/// basis and the particular solutions (see the module documentation).
struct Linearization {
    h: Matrix,
    hd: Matrix,
    hdd: Matrix,
    ht: Matrix,
    svd: PseudoInverse,
    /// Null-space basis N (n × f).
    basis: Matrix,
    /// Ẋ_p (n × f).
    xd_mat: Matrix,
    /// Ẍ_p1 (n × f).
    xdd_mat: Matrix,
    /// The offsets of the particular solutions from the estimate, d_x, d_v, d_a (n each).
    part: [Vector; 3],
    phi: Vector,
    phi_t: Vector,
    gamma: Vector,
    tmp_m: Vector,
    tmp_m2: Vector,
    tmp_mf: Matrix,
}

impl Linearization {
    fn new(n: usize, m: usize) -> Self {
        let f = n.saturating_sub(m);
        Linearization {
            h: Matrix::zeros(m, n),
            hd: Matrix::zeros(m, n),
            hdd: Matrix::zeros(m, n),
            ht: Matrix::zeros(n, m),
            svd: PseudoInverse::new(n, m),
            basis: Matrix::zeros(n, f),
            xd_mat: Matrix::zeros(n, f),
            xdd_mat: Matrix::zeros(n, f),
            part: [Vector::zeros(n), Vector::zeros(n), Vector::zeros(n)],
            phi: Vector::zeros(m),
            phi_t: Vector::zeros(m),
            gamma: Vector::zeros(m),
            tmp_m: Vector::zeros(m),
            tmp_m2: Vector::zeros(m),
            tmp_mf: Matrix::zeros(m, f),
        }
    }

    /// Number of minimal coordinates f = n − rank H.
    fn f(&self) -> usize {
        self.basis.ncols()
    }

    /// Resizes the f-column work space (allocates only when f changes).
    fn set_rank(&mut self, f: usize) {
        if self.basis.ncols() != f {
            let (m, n) = self.h.shape();
            self.basis = Matrix::zeros(n, f);
            self.xd_mat = Matrix::zeros(n, f);
            self.xdd_mat = Matrix::zeros(n, f);
            self.tmp_mf = Matrix::zeros(m, f);
        }
    }

    /// Linearizes at (x₀, ẋ₀, ẍ₀) and time t: H, Ḣ, Ḧ, the SVD, N, and every particular solution.
    /// Returns false when the values are not finite or the SVD fails.
    fn update<S: System>(&mut self, sys: &S, t: f64, x0: &[Vector; 3]) -> bool {
        let (m, n) = self.h.shape();
        if m == 0 {
            self.set_rank(n);
            self.basis.fill_with_identity();
            for p in &mut self.part {
                p.fill(0.0);
            }
            return true;
        }
        for mat in [&mut self.h, &mut self.hd, &mut self.hdd] {
            mat.fill(0.0);
        }
        sys.constraint_jacobian(t, &x0[0], 1.0, &mut self.h);
        sys.constraint_jacobian_rate(t, &x0[0], &x0[1], 1.0, &mut self.hd);
        sys.constraint_jacobian_second_rate(t, &x0[0], &x0[1], &x0[2], 1.0, &mut self.hdd);
        sys.constraints(t, &x0[0], &mut self.phi);
        sys.constraint_time_derivative(t, &x0[0], &mut self.phi_t);
        sys.gamma(t, &x0[0], &x0[1], &mut self.gamma);
        self.h.transpose_to(&mut self.ht);
        let finite = |m: &Matrix| m.iter().all(|v| v.is_finite());
        let finite_all = finite(&self.ht) && finite(&self.hd) && finite(&self.hdd);
        if !(finite_all && self.svd.decompose(&self.ht, RANK_TOL)) {
            return false;
        }
        self.set_rank(self.svd.null_dimension());
        for c in 0..self.svd.null_dimension() {
            self.basis.column_mut(c).copy_from(&self.svd.null_column(c));
        }
        self.particular_solutions(x0);
        true
    }

    /// The particular solutions as offsets from the estimate, d_x = x_p − x₀, d_v = ẋ_p − ẋ₀,
    /// d_a = ẍ_p − ẍ₀ (see the module documentation), and Ẋ_p, Ẍ_p1 (eqs. 33, 39, 40, 46, 47).
    fn particular_solutions(&mut self, x0: &[Vector; 3]) {
        // d_x = −H⁺ Φ₀
        self.svd
            .apply(self.phi.as_slice(), self.part[0].as_mut_slice());
        self.part[0] *= -1.0;
        // d_v = −H⁺ (Φ̇₀ + Ḣ d_x),  Φ̇₀ = H ẋ₀ + Φ_t
        self.tmp_m.copy_from(&self.phi_t);
        self.tmp_m.gemv(1.0, &self.h, &x0[1], 1.0);
        self.tmp_m.gemv(1.0, &self.hd, &self.part[0], 1.0);
        self.svd
            .apply(self.tmp_m.as_slice(), self.part[1].as_mut_slice());
        self.part[1] *= -1.0;
        // d_a = −H⁺ (Φ̈₀ + Ḧ d_x + 2 Ḣ d_v),  Φ̈₀ = H ẍ₀ − γ₀
        self.tmp_m2.copy_from(&self.gamma);
        self.tmp_m2.gemv(1.0, &self.h, &x0[2], -1.0);
        self.tmp_m2.gemv(1.0, &self.hdd, &self.part[0], 1.0);
        self.tmp_m2.gemv(2.0, &self.hd, &self.part[1], 1.0);
        self.svd
            .apply(self.tmp_m2.as_slice(), self.part[2].as_mut_slice());
        self.part[2] *= -1.0;
        // Ẋ_p = −H⁺ Ḣ N
        self.tmp_mf.gemm(-1.0, &self.hd, &self.basis, 0.0);
        self.svd.apply_columns(&self.tmp_mf, &mut self.xd_mat);
        // Ẍ_p1 = −H⁺ (Ḧ N + 2 Ḣ Ẋ_p)
        self.tmp_mf.gemm(-1.0, &self.hdd, &self.basis, 0.0);
        self.tmp_mf.gemm(-2.0, &self.hd, &self.xd_mat, 1.0);
        self.svd.apply_columns(&self.tmp_mf, &mut self.xdd_mat);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::test_problems::CartesianPendulum;

    #[test]
    fn linearization_of_the_pendulum() {
        let sys = CartesianPendulum::iftomm();
        let x0 = [
            Vector::from_vec(vec![-1.0, -4.905e-6]),
            Vector::from_vec(vec![0.0, -0.0098]),
            Vector::from_vec(vec![0.0, -9.81]),
        ];
        let mut lin = Linearization::new(2, 1);
        assert!(lin.update(&sys, 0.0, &x0));
        println!("N {}", lin.basis);
        let hn = &lin.h * &lin.basis;
        assert!(hn.amax() < 1e-14, "H N = {hn}");
        // A second linearization reuses the buffers.
        let mut x1 = x0.clone();
        x1[0][1] = -9.81e-6;
        assert!(lin.update(&sys, 0.0, &x1));
        let hn = &lin.h * &lin.basis;
        assert!(hn.amax() < 1e-14, "H N = {hn} after a second update");
    }
}
