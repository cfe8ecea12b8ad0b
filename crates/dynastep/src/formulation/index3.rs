//! The index-3 formulation with Lagrange multipliers: Newton's method on (u, λ) at each integration
//! point, with scaled constraint rows (see the [module documentation of the layer](super)).

use crate::linalg::{copy, flush_tiny, max_abs, norm_inf, tiny_to_zero, zero, Block, Sink, Vector};
use crate::scheme::{IntegrationPoint, LocalError};
use crate::system::System;

use super::stabilized_index2::GglRows;
use super::workspace::{MatrixTerms, Workspace};
use super::{
    Formulation, FormulationError, FormulationInfo, FormulationSettings, NewtonMethod,
    NewtonSettings, NewtonStats, PhaseTimes, Registered, Stopwatch,
};

pub use crate::linalg::convergence::MODIFIED_KAPPA;
use crate::linalg::convergence::{FloorWatch, ROUNDING};

/// Registry entry; its data is in [`crate::catalog::formulations::INDEX3`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::INDEX3;

/// The states of one Newton iterate, at which the residual rows and the iteration matrix are
/// evaluated: q_e, v_e, a_e (n each) of the equations of motion and the constrained positions q_c
/// (n).
pub(super) struct EvalStates<'a> {
    pub(super) q_e: &'a Vector,
    pub(super) v_e: &'a Vector,
    pub(super) a_e: &'a Vector,
    pub(super) q_c: &'a Vector,
}

/// The iteration matrix J (see the module documentation) at the evaluation states. With `every`,
/// every term is sent even when its coefficient is zero, so that the sequence of entries does not
/// depend on the integration point (the sparse assembler relies on it).
struct IterationMatrix<'a, S> {
    sys: &'a S,
    pt: &'a IntegrationPoint,
    lambda: &'a Vector,
    st: EvalStates<'a>,
    /// Whether `st`'s q_e and q_c are one configuration at one time (`Index3::same_configuration`).
    same_configuration: bool,
    /// The rows of the stabilized index-2 formulation, when it is the one solving.
    ggl: Option<&'a GglRows>,
}

impl<S: System> MatrixTerms for IterationMatrix<'_, S> {
    fn add<K: Sink>(&self, every: bool, jac: &mut K) {
        let st = &self.st;
        match self.ggl {
            None => {
                let same = self.same_configuration;
                add_iteration_matrix(self.sys, self.pt, self.lambda, st, same, every, jac);
            }
            Some(ggl) => {
                add_equations_of_motion(self.sys, self.pt, self.lambda, st, true, jac);
                ggl.add_blocks(self.sys, self.pt, st, jac);
            }
        }
    }
}

fn add_iteration_matrix<S: System, K: Sink>(
    sys: &S,
    pt: &IntegrationPoint,
    lambda: &Vector,
    st: &EvalStates<'_>,
    same_configuration: bool,
    every: bool,
    jac: &mut K,
) {
    let (n, m) = (sys.n(), sys.m());
    let w = pt.force_weight;
    add_equations_of_motion(sys, pt, lambda, st, every, jac);
    if m > 0 && !every && same_configuration {
        // Φ_q(q_e) = Φ_q(q_c) (the Newmark family evaluates both at q_(n+1)): one pass writes both
        // blocks. Each entry of either block gets exactly one term, so the dense sums are those
        // of two passes; the sparse assembler (`every`) keeps the fixed sequence of two passes.
        // Recording one pass and writing its entries twice in that sequence was no faster (the
        // spatial top, Andrews, Bricard, the flyball governor: within ±3 %, 2026-11-29): the
        // sparse writes, not the kernels, cost most of a pass.
        let mut both = BothConstraintBlocks { inner: jac, n, w };
        sys.constraint_jacobian(pt.t_c, st.q_c, 1.0, &mut both);
    } else if m > 0 {
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

/// Adds the block J_11 of the iteration matrix, ∂r_1/∂u (n × n: rows and columns 0..n), to `jac`.
fn add_equations_of_motion<S: System, K: Sink>(
    sys: &S,
    pt: &IntegrationPoint,
    lambda: &Vector,
    st: &EvalStates<'_>,
    every: bool,
    jac: &mut K,
) {
    let w = pt.force_weight;
    sys.mass(st.q_e, pt.c_a, jac);
    if every || pt.c_q != 0.0 {
        sys.mass_acceleration_q(st.q_e, st.a_e, pt.c_q, jac);
        sys.forces_q(pt.t_e, st.q_e, st.v_e, -pt.c_q * w, jac);
        if sys.m() > 0 {
            sys.constraint_force_q(pt.t_e, st.q_e, lambda, pt.c_q * w, jac);
        }
    }
    if every || pt.c_v != 0.0 {
        sys.forces_v(pt.t_e, st.q_e, st.v_e, -pt.c_v * w, jac);
    }
}

/// Adds a Newton correction (Δu (n), Δλ (m), then, with `ggl`, Δz (n) and Δμ (m)) to u, λ and
/// the GGL unknowns.
fn add_correction(
    correction: &[f64],
    u: &mut Vector,
    lambda: &mut Vector,
    ggl: Option<&mut GglRows>,
) {
    let (du, rest) = correction.split_at(u.len());
    let (dlambda, rest) = rest.split_at(lambda.len());
    for (u, d) in u.as_mut_slice().iter_mut().zip(du) {
        *u += d;
    }
    for (l, d) in lambda.as_mut_slice().iter_mut().zip(dlambda) {
        *l += d;
    }
    if let Some(g) = ggl {
        g.add_correction(rest);
    }
}

/// The shortest damped Newton step, as a fraction of the full correction: eight halvings.
pub const DAMPING_MIN: f64 = 1.0 / 256.0;

/// A sink that writes an entry (i, j) of Φ_q both at (n + i, j), the constraint rows of J, and,
/// times `w`, at (j, n + i), the block w_f Φ_qᵀ.
struct BothConstraintBlocks<'a, K: ?Sized> {
    inner: &'a mut K,
    n: usize,
    w: f64,
}

impl<K: Sink + ?Sized> Sink for BothConstraintBlocks<'_, K> {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        self.inner.add(self.n + row, col, value);
        self.inner.add(col, self.n + row, self.w * value);
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
    /// Time t_c of the constraint point last evaluated \[s\].
    t_c: f64,
    /// A constraint-sized work vector (m), for the estimate's normal part ([`normal_error`]).
    normal: Vector,
    /// Force terms Φ_q(q_e)ᵀλ − Q at the last evaluation (n) [N].
    pub force_terms: Vector,
    forces: Vector,
    inertia: Vector,
    phi: Vector,
    residual: Vector,
    work: Workspace,
    matrix: FactoredMatrix,
    /// Time spent evaluating residuals \[s\] (when `clock` is on).
    residual_time: f64,
    clock: Stopwatch,
    /// The simplified Newton correction δ (n + m: δu, then δλ; then δz, δμ with `ggl`).
    simplified: Vector,
    /// Damped Newton ([`Formulation::set_damped`]), and the full correction Δ of its current
    /// iteration (laid out as `simplified`).
    damped: bool,
    /// Most iterations of the following solves when below `max_iterations`
    /// ([`Formulation::set_iteration_limit`]).
    iteration_limit: Option<usize>,
    delta: Vector,
    /// The rows of the stabilized index-2 formulation ([`super::stabilized_index2`]), when this
    /// iteration serves it.
    ggl: Option<GglRows>,
    /// The multipliers of the last solved point (m) [N or N·m]: the reference of the Newton start's
    /// component along the null space of Φ_qᵀ with redundant constraints (see `solve`).
    solved_lambda: Vector,
    /// Whether the last evaluated point's equilibrium and constraints share their configuration
    /// and time (q_e = q_c to the bit, t_e = t_c, no stabilized rows; set by `states`).
    same_configuration: bool,
}

/// The state of one point's Newton iteration between two residual evaluations.
struct Iteration {
    /// Modified Newton (the matrix is kept while the iteration contracts fast enough).
    modified: bool,
    /// Whether the next update assembles and factors a new matrix.
    refresh: bool,
    /// η = θ/(1−θ) of the Hairer–Wanner stopping test, known once two updates with the same
    /// matrix have been measured.
    eta: f64,
    /// Whether the last update used a matrix assembled for it.
    fresh_step: bool,
    /// The position correction c_c‖Δu‖∞ of the last update.
    correction: f64,
    /// The relative change of the last update (see `relative_change`).
    change: f64,
    /// The recent corrections, watched for the floor of the iteration.
    floor: FloorWatch,
}

impl Iteration {
    /// Before the first update: no correction, no contraction rate yet.
    fn start(modified: bool, refresh: bool) -> Self {
        Iteration {
            modified,
            refresh,
            eta: f64::INFINITY,
            fresh_step: false,
            correction: f64::INFINITY,
            change: f64::INFINITY,
            floor: FloorWatch::default(),
        }
    }
}

/// What is known of the factored iteration matrix, for modified Newton: whether there is one, the
/// coefficients of the integration point it was formed at.
#[derive(Debug, Clone, Copy)]
struct FactoredMatrix {
    valid: bool,
    /// c_v/c_a [s] and c_q/c_a [s²] of the point the matrix was formed at.
    c_v: f64,
    c_q: f64,
    /// Force weight w_f.
    w: f64,
}

impl FactoredMatrix {
    const NONE: FactoredMatrix = FactoredMatrix {
        valid: false,
        c_v: 0.0,
        c_q: 0.0,
        w: 0.0,
    };

    /// Remembers the coefficients of `pt`, at which a new matrix is being formed.
    fn record(&mut self, pt: &IntegrationPoint) {
        self.valid = true;
        self.c_v = pt.c_v / pt.c_a;
        self.c_q = pt.c_q / pt.c_a;
        self.w = pt.force_weight;
    }

    /// True when a matrix exists and was formed at a step size within the relative `max_change` of
    /// the one `pt` implies (c_v/c_a scales with h, c_q/c_a with h², w_f is compared directly).
    fn fits(&self, pt: &IntegrationPoint, max_change: f64) -> bool {
        /// new/old, 1 when both are zero, infinite when only one is or the sign differs.
        fn ratio(new: f64, old: f64) -> f64 {
            match (new == 0.0, old == 0.0) {
                (true, true) => 1.0,
                (false, false) if new.signum() == old.signum() => new / old,
                _ => f64::INFINITY,
            }
        }
        let h_change_v = (ratio(pt.c_v / pt.c_a, self.c_v) - 1.0).abs();
        let h_change_q = (ratio(pt.c_q / pt.c_a, self.c_q).sqrt() - 1.0).abs();
        let w_change = (ratio(pt.force_weight, self.w) - 1.0).abs();
        self.valid && h_change_v.max(h_change_q).max(w_change) <= max_change
    }
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
    /// values. On success, `q_e`, `v_e`, `a_e`, `q_c` hold the states of the solution and
    /// `self.force_terms` Φ_q(q_e)ᵀλ − Q at it (at the last evaluated iterate when a simplified
    /// correction ended the iteration, which differs from the solution by that correction, within
    /// 1e-3 of the position tolerance).
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] after `max_iterations` without meeting the tolerances,
    /// [`FormulationError::Stalled`] when the last correction was within rounding of the positions;
    /// [`FormulationError::NonFinite`] when a value becomes NaN or infinite.
    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let m = self.m;
        let linear = m == 0 && pt.c_q == 0.0 && !sys.forces_depend_on_velocity();
        let modified = self.settings.method == NewtonMethod::Modified && !linear && !self.damped;
        let before = self.work.stats();
        // Refresh before the first iteration unless a factorization at a close step size is kept.
        let refresh = !modified || !self.matrix.fits(pt, self.settings.max_step_change);
        let mut it = Iteration::start(modified, refresh);
        flush_tiny(lambda.as_mut_slice());
        // With redundant constraints λ is unique only up to the null space of Φ_qᵀ, which the
        // minimum-norm corrections leave alone: an extrapolated start keeps the last solved
        // point's component there, or the extrapolation would walk λ along it point after point
        // (see `scheme::predictor`). Only the start moves, never a solution.
        let (n, reference) = (self.n, self.solved_lambda.as_slice());
        self.work
            .keep_null_component(lambda.as_mut_slice(), reference, n);
        if let Some(g) = self.ggl.as_mut() {
            g.start();
        }
        let mut result = Err(FormulationError::NonFinite);
        let max_iterations = self.iteration_budget();
        for iter in 0..=max_iterations {
            let clock = self.clock.start();
            let (r1, scale) = self.evaluate(sys, pt, u, lambda);
            Stopwatch::stop(clock, &mut self.residual_time);
            stats.residuals += 1;
            if !r1.is_finite() || !self.residual.as_slice().iter().all(|x| x.is_finite()) {
                result = Err(FormulationError::NonFinite);
                break;
            }
            let test = self.settings.test();
            let balanced = test.balanced(r1, scale);
            if iter > 0 {
                it.floor
                    .record(it.correction, test.position_tolerance(&self.q_c), r1);
            }
            if iter > 0 && (linear || self.converged(&it, balanced)) {
                result = Ok(());
                break;
            }
            if iter > 0 && test.at_floor(r1, scale, &it.floor) {
                stats.floor_acceptances += 1;
                result = Ok(());
                break;
            }
            // Full Newton whose last correction was too large for the test above: the simplified
            // correction often finishes the point without a new matrix. It is an iteration, so it
            // is tried only while `max_iterations` leaves room for one.
            if iter > 0
                && iter < max_iterations
                && !modified
                && balanced
                && self.simplified_step(pt, u, lambda, it.change)
            {
                stats.iterations += 1;
                result = Ok(());
                break;
            }
            if iter == max_iterations {
                result = Err(self.exhausted(iter, it.correction, r1, scale));
                break;
            }
            if let Err(e) = self.newton_update(sys, pt, u, lambda, stats, &mut it) {
                result = Err(e);
                break;
            }
        }
        stats.add_linear(before, self.work.stats());
        self.conclude(pt, lambda, result.is_ok());
        result
    }

    fn force_terms(&self) -> &Vector {
        &self.force_terms
    }

    fn remove_normal_error(&mut self, sys: &S, err: &mut LocalError) {
        Index3::remove_normal_error(self, sys, err);
    }

    fn position_correction(&self) -> Option<&Vector> {
        self.ggl.as_ref().map(|g| &g.correction)
    }

    fn phase_times(&self) -> PhaseTimes {
        PhaseTimes {
            residual: self.residual_time,
            ..self.work.times()
        }
    }

    fn settings(&self) -> &NewtonSettings {
        &self.settings
    }

    fn set_damped(&mut self, on: bool) -> bool {
        self.damped = on;
        true
    }

    fn set_iteration_limit(&mut self, limit: Option<usize>) {
        self.iteration_limit = limit;
    }
}

impl Index3 {
    /// Work space for a system with n coordinates and m constraints; the linear solver (dense or sparse)
    /// is chosen here from `settings.linear_solver` and n + m.
    pub fn new(n: usize, m: usize, settings: NewtonSettings) -> Self {
        Index3::build(n, m, settings, None)
    }

    /// [`Index3::new`] with the velocity-constraint and position-correction rows of the stabilized
    /// index-2 formulation ([`super::stabilized_index2`]): 2(n + m) unknowns. Without constraints
    /// (m = 0) there is nothing to stabilize, and it is [`Index3::new`].
    pub fn with_stabilization(n: usize, m: usize, settings: NewtonSettings) -> Self {
        Index3::build(n, m, settings, (m > 0).then(|| GglRows::new(n, m)))
    }

    fn build(n: usize, m: usize, settings: NewtonSettings, ggl: Option<GglRows>) -> Self {
        let clock = Stopwatch {
            on: settings.time_phases,
        };
        let size = ggl.as_ref().map_or(n + m, GglRows::size);
        let work = Workspace::new(size, settings.linear_solver, clock);
        Index3 {
            n,
            m,
            settings,
            q_e: Vector::zeros(n),
            v_e: Vector::zeros(n),
            a_e: Vector::zeros(n),
            q_c: Vector::zeros(n),
            t_c: 0.0,
            normal: Vector::zeros(m),
            force_terms: Vector::zeros(n),
            forces: Vector::zeros(n),
            inertia: Vector::zeros(n),
            phi: Vector::zeros(m),
            residual: Vector::zeros(size),
            simplified: Vector::zeros(size),
            damped: false,
            iteration_limit: None,
            delta: Vector::zeros(size),
            ggl,
            solved_lambda: Vector::zeros(m),
            same_configuration: false,
            work,
            matrix: FactoredMatrix::NONE,
            residual_time: 0.0,
            clock,
        }
    }

    /// True when the iteration matrix is assembled and factored sparse.
    pub fn is_sparse(&self) -> bool {
        self.work.is_sparse()
    }

    fn states(&mut self, pt: &IntegrationPoint, u: &Vector) {
        let n = self.n;
        let u = &u.as_slice()[..n];
        let (q_e, v_e) = (
            &mut self.q_e.as_mut_slice()[..n],
            &mut self.v_e.as_mut_slice()[..n],
        );
        let (a_e, q_c) = (
            &mut self.a_e.as_mut_slice()[..n],
            &mut self.q_c.as_mut_slice()[..n],
        );
        self.t_c = pt.t_c;
        let (q_hat, v_hat) = (&pt.q_hat.as_slice()[..n], &pt.v_hat.as_slice()[..n]);
        let (a_hat, qc_hat) = (&pt.a_hat.as_slice()[..n], &pt.qc_hat.as_slice()[..n]);
        let mut same = true;
        for i in 0..n {
            q_e[i] = tiny_to_zero(q_hat[i] + pt.c_q * u[i]);
            v_e[i] = tiny_to_zero(v_hat[i] + pt.c_v * u[i]);
            a_e[i] = tiny_to_zero(a_hat[i] + pt.c_a * u[i]);
            q_c[i] = tiny_to_zero(qc_hat[i] + pt.c_c * u[i]);
            same &= q_e[i].to_bits() == q_c[i].to_bits();
        }
        self.same_configuration = same && self.ggl.is_none() && pt.t_e == pt.t_c;
        if let Some(g) = &self.ggl {
            g.shift(pt.c_c, q_c);
        }
    }

    /// After the iteration of a point: a solved point's λ (m) is kept as the next start's
    /// reference and its GGL rows finish; a failed point's retry starts with a new matrix.
    fn conclude(&mut self, pt: &IntegrationPoint, lambda: &Vector, solved: bool) {
        if !solved {
            self.matrix.valid = false;
            return;
        }
        copy(&mut self.solved_lambda, lambda);
        if let Some(g) = self.ggl.as_mut() {
            g.finish(pt.c_c);
        }
    }

    /// The stopping test after an update: the correction within the position tolerance, the
    /// error left after it settled, and the residual `balanced` (within its tolerance).
    fn converged(&self, it: &Iteration, balanced: bool) -> bool {
        let test = self.settings.test();
        it.correction <= test.position_tolerance(&self.q_c)
            && test.settled(it.fresh_step, it.eta, it.change)
            && balanced
    }

    /// The error after `iterations` without convergence, the last correction `correction`, the
    /// residual `r1` and its `scale`: stalled when that correction was within rounding of the
    /// positions (nothing left to converge), else not converged.
    fn exhausted(
        &self,
        iterations: usize,
        correction: f64,
        r1: f64,
        scale: f64,
    ) -> FormulationError {
        if correction <= ROUNDING * (1.0 + norm_inf(&self.q_c)) {
            FormulationError::Stalled {
                iterations,
                correction,
                residual: r1,
                tolerance: self.settings.residual_tol * scale,
            }
        } else {
            FormulationError::NotConverged {
                iterations,
                correction,
                residual: r1,
            }
        }
    }

    /// One Newton update of u (n) and λ (m) from the residual just evaluated: refreshes the
    /// matrix when `it` says so, solves, adds the correction, and sets the contraction estimate
    /// η and whether the next update refreshes.
    ///
    /// # Errors
    /// [`FormulationError::NonFinite`] when the change is NaN or infinite.
    fn newton_update<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
        it: &mut Iteration,
    ) -> Result<(), FormulationError> {
        if it.refresh {
            self.assemble_and_factor(sys, pt, lambda);
            stats.jacobians += 1;
        }
        it.fresh_step = it.refresh;
        self.residual
            .as_mut_slice()
            .iter_mut()
            .for_each(|r| *r = -*r);
        self.solve_linear();
        stats.iterations += 1;
        let mut du = self.position_change(self.residual.as_slice());
        add_correction(self.residual.as_slice(), u, lambda, self.ggl.as_mut());
        if self.damped {
            du *= self.damp(sys, pt, u, lambda);
        }
        let previous = it.change;
        (it.correction, it.change) = self.relative_change(pt, du);
        if !it.change.is_finite() {
            return Err(FormulationError::NonFinite);
        }
        if it.fresh_step || !previous.is_finite() || previous == 0.0 {
            // No rate yet with this matrix.
            it.eta = f64::INFINITY;
            it.refresh = !it.modified;
        } else {
            let theta = it.change / previous;
            it.eta = theta / (1.0 - theta).max(f64::EPSILON);
            it.refresh = !it.modified || theta > self.settings.max_contraction;
        }
        Ok(())
    }

    /// The size of a Newton correction `delta` (Δu, Δλ[, Δz, Δμ]) in the constrained positions, per
    /// unit of c_c: ‖Δu‖∞, plus ‖Δz‖∞ with the GGL rows (a bound of ‖Δu + Δz‖∞).
    fn position_change(&self, delta: &[f64]) -> f64 {
        let (n, m) = (self.n, self.m);
        let dz = if self.ggl.is_some() {
            max_abs(&delta[n + m..2 * n + m])
        } else {
            0.0
        };
        max_abs(&delta[..n]) + dz
    }

    /// The iterations a solve may take: `max_iterations`, or the time loop's lower limit
    /// ([`Formulation::set_iteration_limit`]).
    fn iteration_budget(&self) -> usize {
        let most = self.settings.max_iterations;
        self.iteration_limit.map_or(most, |k| k.min(most))
    }

    /// The position correction c_c‖Δu‖∞ of a Newton update with ‖Δu‖∞ = `du`, and the relative
    /// change the stopping tests judge: the larger of the position and velocity changes, each
    /// relative to 1 + the size of the states at the current u.
    fn relative_change(&self, pt: &IntegrationPoint, du: f64) -> (f64, f64) {
        let correction = pt.c_c.abs() * du;
        let change = (correction / (1.0 + norm_inf(&self.q_c)))
            .max(pt.c_v.abs() * du / (1.0 + norm_inf(&self.v_e)));
        (correction, change)
    }

    /// Shortens the Newton correction Δ just added to u (n), λ (m) (and the GGL unknowns) to λ_k Δ,
    /// λ_k = 1, 1/2, 1/4, … down to [`DAMPING_MIN`], until Deuflhard's natural monotonicity test
    /// holds: the simplified correction Δ̄ = −J⁻¹ r(u + λ_k Δ) with the matrix J of this iteration
    /// satisfies ‖Δ̄‖ ≤ (1 − λ_k/4) ‖Δ‖ (Deuflhard 2004, *Newton Methods for Nonlinear Problems*,
    /// §3.3.2, NLEQ-ERR's test with its simplest step-size reduction). Returns λ_k; the residual is
    /// left to be evaluated again by the caller. One residual and one solve per trial.
    #[inline(never)]
    fn damp<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
    ) -> f64 {
        copy(&mut self.delta, &self.residual);
        let full = self.position_change(self.delta.as_slice());
        let mut step = 1.0;
        loop {
            self.evaluate(sys, pt, u, lambda);
            self.residual.neg_mut();
            self.solve_linear();
            let bar = self.position_change(self.residual.as_slice());
            if (bar.is_finite() && bar <= (1.0 - step / 4.0) * full) || step <= DAMPING_MIN {
                return step;
            }
            // Back from u + λ_k Δ to u + λ_k/2 Δ.
            self.delta *= -0.5;
            add_correction(self.delta.as_slice(), u, lambda, self.ggl.as_mut());
            self.delta.neg_mut();
            step *= 0.5;
        }
    }

    /// Deuflhard's simplified Newton correction δ = −J(u_(k−1))⁻¹ r(u_k): the residual just
    /// evaluated solved with the matrix already factored (one solve, no assembly; Deuflhard 2004,
    /// *Newton Methods for Nonlinear Problems*, §2.1). When it passes the modified-Newton test,
    /// its position correction ‖c_c δ‖ within `position_tol` and the error left after it,
    /// η‖δ‖ with η = θ/(1−θ) and θ = ‖δ‖/‖Δu_k‖ (relative changes as in the stopping test),
    /// within `MODIFIED_KAPPA · position_tol`, it is added to u (n) and λ (m), the states are
    /// brought to the new u, and true is returned. The residual, the equilibrium test and the
    /// force terms stay those of u_k: δ changes them by its own size, far below the residual
    /// tolerance. `change` is the relative change of the last (full) Newton correction. Out of
    /// line: it runs on a minority of steps, and the iteration loop stays as compact as before.
    #[inline(never)]
    fn simplified_step(
        &mut self,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        change: f64,
    ) -> bool {
        copy(&mut self.simplified, &self.residual);
        self.work.solve_in_place(&mut self.simplified);
        self.simplified
            .as_mut_slice()
            .iter_mut()
            .for_each(|d| *d = -*d);
        let size = self.position_change(self.simplified.as_slice());
        let (correction, simplified) = self.relative_change(pt, size);
        let theta = simplified / change;
        let eta = theta / (1.0 - theta).max(f64::EPSILON);
        let test = self.settings.test();
        // Contracting (θ < 1) or not converged, unless the change is rounding.
        let eta = if theta < 1.0 { eta } else { f64::INFINITY };
        let settled = test.settled(false, eta, simplified);
        if !(correction <= test.position_tolerance(&self.q_c) && settled) {
            return false;
        }
        add_correction(self.simplified.as_slice(), u, lambda, self.ggl.as_mut());
        self.states(pt, u);
        true
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
        zero(self.force_terms.as_mut_slice());
        // Equilibrium and constraints at one configuration (the Newmark family with HHT, the LMS
        // and single-step schemes, the ESDIRK stages; never with the stabilized rows): the
        // system evaluates Φ and Φ_qᵀλ together.
        let together = m > 0 && self.same_configuration;
        if together {
            let (phi, terms) = (&mut self.phi, &mut self.force_terms);
            sys.constraints_and_force(pt.t_c, &self.q_c, lambda, phi, terms);
        } else if m > 0 {
            sys.add_constraint_force(pt.t_e, &self.q_e, lambda, &mut self.force_terms);
        }
        let reaction = norm_inf(&self.force_terms);
        let w = pt.force_weight;
        let (r_q, r_phi) = self.residual.as_mut_slice().split_at_mut(n);
        let terms = self.force_terms.as_mut_slice().iter_mut();
        let inertia = self.inertia.as_slice().iter();
        for ((r, f), (inertia, force)) in r_q
            .iter_mut()
            .zip(terms)
            .zip(inertia.zip(self.forces.as_slice()))
        {
            *f -= force;
            *r = inertia + w * *f;
        }
        if pt.has_history_residual {
            for (r, h) in r_q.iter_mut().zip(pt.residual_history.as_slice()) {
                *r += h;
            }
        }
        if let Some(g) = self.ggl.as_mut() {
            let st = EvalStates {
                q_e: &self.q_e,
                v_e: &self.v_e,
                a_e: &self.a_e,
                q_c: &self.q_c,
            };
            g.residual(sys, pt, &st, r_phi);
        } else if m > 0 {
            if !together {
                sys.constraints(pt.t_c, &self.q_c, &mut self.phi);
            }
            for (r, phi) in r_phi.iter_mut().zip(self.phi.as_slice()) {
                *r = phi / pt.c_c;
            }
        }
        let r1 = max_abs(r_q);
        let scale = norm_inf(&self.inertia)
            .max(w.abs() * reaction)
            .max(w.abs() * norm_inf(&self.forces).max(sys.internal_force_scale()))
            .max(1.0);
        (r1, scale)
    }

    /// Assembles and factors the iteration matrix at the current states.
    fn assemble_and_factor<S: System>(&mut self, sys: &S, pt: &IntegrationPoint, lambda: &Vector) {
        self.matrix.record(pt);
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
            same_configuration: self.same_configuration,
            ggl: self.ggl.as_ref(),
        };
        self.work.factor(&terms);
    }

    /// Overwrites the residual (n + m) with the solution of J x = residual for the last factored J.
    fn solve_linear(&mut self) {
        self.work.solve_in_place(&mut self.residual);
    }
}

#[path = "index3_normal_error.rs"]
mod normal_error;

#[cfg(test)]
#[path = "index3_jacobian_tests.rs"]
mod jacobian_tests;
