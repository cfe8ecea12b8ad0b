//! The stabilized index-2 formulation of Gear, Gupta & Leimkuhler (GGL): the index-3 Newton
//! iteration of [`super::index3`] with the velocity constraints imposed beside the position
//! constraints, and the positions corrected by a second set of multipliers μ.
//!
//! At each integration point it solves, for u (n), λ (m) and the correction unknowns z (n), μ (m):
//!
//! ```text
//! r_1 = M(q_e) a_e + w_f (Φ_q(q_e)ᵀ λ − Q(q_e, v_e, t_e)) + r_h = 0        (n rows)
//! r_v = (Φ_q(q_c) v_e + Φ_t(q_c, t_c)) / c_v = 0                          (m rows)
//! r_z = M(q_e) z − Φ_q(q_c)ᵀ μ = 0                                        (n rows)
//! r_p = Φ(q_c, t_c) / c_c = 0                                             (m rows)
//! ```
//!
//! with q_e = q̂ + c_q u and v_e = v̂ + c_v u as in index 3, and the constrained positions moved by
//! the correction: q_c = q̂_c + c_c (u + z). λ enforces the velocity constraint, as in an index-2
//! formulation; μ moves the positions onto Φ = 0 along M⁻¹Φ_qᵀ, the mass-weighted normal of the
//! constraint manifold (Gear, Gupta & Leimkuhler 1985, J. Comput. Appl. Math. 12–13:77, eq. 3, whose
//! correction Φ_qᵀμ is unweighted; weighting it by M⁻¹ keeps the correction's units those of each
//! coordinate). The scheme keeps q_c as the point's position ([`super::Formulation::position_correction`]
//! hands it c_c z), so a committed state satisfies both Φ = 0 and Φ̇ = 0 to the Newton tolerance.
//!
//! The correction vanishes on the exact solution and is of the size of the local error, so the
//! equations of motion are evaluated at the uncorrected q_e: the correction does not enter r_1, its
//! block of the iteration matrix is zero, and the matrix stays assembled from the same terms as in
//! index 3. (In GGL's own form, q' = v + Φ_qᵀμ, the forces see the corrected positions; the
//! difference is of the correction's size.) The iteration matrix, with columns (u, λ, z, μ), is
//!
//! ```text
//! J = [ J_11                          w_f Φ_q(q_e)ᵀ   0                     0         ]
//!     [ Φ_q(q_c) + (c_c/c_v) Ḣ           0            (c_c/c_v) Ḣ            0         ]
//!     [ c_q ∂(Mz)/∂q − c_c ∂(Φ_qᵀμ)/∂q   0            M − c_c ∂(Φ_qᵀμ)/∂q   −Φ_q(q_c)ᵀ ]
//!     [ Φ_q(q_c)                         0            Φ_q(q_c)               0         ]
//! ```
//!
//! with J_11 of index 3 and Ḣ = ∂(Φ_q v + Φ_t)/∂q at (q_c, v_e). Every row is scaled so that J stays
//! bounded as h → 0 (the velocity rows by 1/c_v, the position rows by 1/c_c, as Bottasso, Bauchau &
//! Cardona 2007 scale index 3).
//!
//! The velocities satisfy their constraint and carry no h⁻¹ amplification of the Newton error,
//! but they still enter the error norm as h·e_v, as in index 3
//! ([`crate::catalog::VelocityError::ScaledByStep`]): the schemes' estimates are built from the
//! accelerations, index-2 variables in this form, and at full weight generalized-α on Andrews'
//! squeezer stopped at h_min from rtol 1e-6 on (measured; docs/stabilized_index2.md). λ and μ are
//! not judged (Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*, §VII.3,
//! index-2 components).

use crate::linalg::{zero, Block, Sink, Vector};
use crate::scheme::IntegrationPoint;
use crate::system::System;

use super::index3::{EvalStates, Index3};
use super::{
    Formulation, FormulationError, FormulationInfo, FormulationSettings, NewtonSettings,
    NewtonStats, PhaseTimes, Registered,
};

/// Registry entry; its data is in [`crate::catalog::formulations::STABILIZED_INDEX2`].
pub const INFO: FormulationInfo = crate::catalog::formulations::STABILIZED_INDEX2;

/// The stabilized index-2 formulation (see the module documentation): [`Index3`]'s Newton iteration
/// with the GGL rows.
#[derive(Debug)]
pub struct StabilizedIndex2(Index3);

impl StabilizedIndex2 {
    /// Work space for a system with n coordinates and m constraints; the linear solver is chosen
    /// from `settings.linear_solver` and the 2(n + m) unknowns.
    pub fn new(n: usize, m: usize, settings: NewtonSettings) -> Self {
        StabilizedIndex2(Index3::with_stabilization(n, m, settings))
    }

    /// True when the iteration matrix is assembled and factored sparse.
    pub fn is_sparse(&self) -> bool {
        self.0.is_sparse()
    }
}

impl Registered for StabilizedIndex2 {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        StabilizedIndex2::new(n, m, settings.newton)
    }
}

impl<S: System> Formulation<S> for StabilizedIndex2 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        self.0.solve(sys, pt, u, lambda, stats)
    }

    fn force_terms(&self) -> &Vector {
        &self.0.force_terms
    }

    fn position_correction(&self) -> Option<&Vector> {
        Formulation::<S>::position_correction(&self.0)
    }

    fn phase_times(&self) -> PhaseTimes {
        Formulation::<S>::phase_times(&self.0)
    }

    fn settings(&self) -> &NewtonSettings {
        &self.0.settings
    }

    fn set_damped(&mut self, on: bool) -> bool {
        Formulation::<S>::set_damped(&mut self.0, on)
    }

    fn set_iteration_limit(&mut self, limit: Option<usize>) {
        Formulation::<S>::set_iteration_limit(&mut self.0, limit);
    }
}

/// The unknowns and rows that the stabilized index-2 formulation adds to index 3.
#[derive(Debug)]
pub(super) struct GglRows {
    n: usize,
    m: usize,
    /// The correction unknown z (n), in the units of u.
    z: Vector,
    /// The position multipliers μ (m).
    mu: Vector,
    /// The position correction c_c z (n) of the last solved point \[m or rad\].
    pub(super) correction: Vector,
    /// Scratch of m entries.
    rows: Vector,
    /// Scratch of n entries.
    terms: Vector,
}

impl GglRows {
    /// Work space for n coordinates and m constraints.
    pub(super) fn new(n: usize, m: usize) -> Self {
        GglRows {
            n,
            m,
            z: Vector::zeros(n),
            mu: Vector::zeros(m),
            correction: Vector::zeros(n),
            rows: Vector::zeros(m),
            terms: Vector::zeros(n),
        }
    }

    /// The number of unknowns with the GGL rows: 2(n + m).
    pub(super) fn size(&self) -> usize {
        2 * (self.n + self.m)
    }

    /// Starts a point's iteration with no correction.
    pub(super) fn start(&mut self) {
        zero(self.z.as_mut_slice());
        zero(self.mu.as_mut_slice());
    }

    /// Moves the constrained positions q_c (n) by the correction c_c z.
    pub(super) fn shift(&self, c_c: f64, q_c: &mut [f64]) {
        for (q, z) in q_c.iter_mut().zip(self.z.as_slice()) {
            *q += c_c * z;
        }
    }

    /// Adds the (z, μ) part of a Newton correction (the entries after the first n + m).
    pub(super) fn add_correction(&mut self, correction: &[f64]) {
        let (dz, dmu) = correction.split_at(self.n);
        for (z, d) in self.z.as_mut_slice().iter_mut().zip(dz) {
            *z += d;
        }
        for (mu, d) in self.mu.as_mut_slice().iter_mut().zip(dmu) {
            *mu += d;
        }
    }

    /// Sets z and μ from `x` (n + m entries: z, then μ); for tests of the residual.
    #[cfg(test)]
    pub(super) fn set_unknowns(&mut self, x: &[f64]) {
        let (z, mu) = x.split_at(self.n);
        self.z.copy_from_slice(z);
        self.mu.copy_from_slice(mu);
    }

    /// Records the position correction c_c z of the converged point.
    pub(super) fn finish(&mut self, c_c: f64) {
        for (c, z) in self
            .correction
            .as_mut_slice()
            .iter_mut()
            .zip(self.z.as_slice())
        {
            *c = c_c * z;
        }
    }

    /// Writes the rows after r_1 (m + n + m entries: r_v, r_z, r_p of the module documentation)
    /// into `out` at the states (q_e, v_e, q_c) of `pt`.
    pub(super) fn residual<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        st: &EvalStates<'_>,
        out: &mut [f64],
    ) {
        let (n, m) = (self.n, self.m);
        let (r_v, rest) = out.split_at_mut(m);
        let (r_z, r_p) = rest.split_at_mut(n);
        sys.constraint_jacobian_times(pt.t_c, st.q_c, st.v_e, &mut self.rows);
        r_v.copy_from_slice(self.rows.as_slice());
        sys.constraint_time_derivative(pt.t_c, st.q_c, &mut self.rows);
        for (r, phi_t) in r_v.iter_mut().zip(self.rows.as_slice()) {
            *r = (*r + phi_t) / pt.c_v;
        }
        sys.mass_times(st.q_e, &self.z, &mut self.terms);
        r_z.copy_from_slice(self.terms.as_slice());
        zero(self.terms.as_mut_slice());
        sys.add_constraint_force(pt.t_c, st.q_c, &self.mu, &mut self.terms);
        for (r, g) in r_z.iter_mut().zip(self.terms.as_slice()) {
            *r -= g;
        }
        sys.constraints(pt.t_c, st.q_c, &mut self.rows);
        for (r, phi) in r_p.iter_mut().zip(self.rows.as_slice()) {
            *r = phi / pt.c_c;
        }
    }

    /// Adds every block of the iteration matrix outside J_11 (module documentation) to `jac`. Every
    /// term is sent on every call, so the sequence of entries is fixed (the sparse assembler relies
    /// on it).
    pub(super) fn add_blocks<S: System, K: Sink>(
        &self,
        sys: &S,
        pt: &IntegrationPoint,
        st: &EvalStates<'_>,
        jac: &mut K,
    ) {
        let (n, m) = (self.n, self.m);
        let (vel, corr, pos) = (n, n + m, 2 * n + m);
        let (col_lambda, col_z, col_mu) = (n, n + m, 2 * n + m);
        let (t, q_c) = (pt.t_c, st.q_c);
        let rate = pt.c_c / pt.c_v;
        let j = jac;
        sys.constraint_jacobian(
            pt.t_e,
            st.q_e,
            pt.force_weight,
            &mut at(j, 0, col_lambda, true),
        );
        sys.constraint_jacobian(t, q_c, 1.0, &mut at(j, vel, 0, false));
        sys.constraint_jacobian_rate(t, q_c, st.v_e, rate, &mut at(j, vel, 0, false));
        sys.constraint_jacobian_rate(t, q_c, st.v_e, rate, &mut at(j, vel, col_z, false));
        sys.mass(st.q_e, 1.0, &mut at(j, corr, col_z, false));
        sys.constraint_force_q(t, q_c, &self.mu, -pt.c_c, &mut at(j, corr, col_z, false));
        sys.mass_acceleration_q(st.q_e, &self.z, pt.c_q, &mut at(j, corr, 0, false));
        sys.constraint_force_q(t, q_c, &self.mu, -pt.c_c, &mut at(j, corr, 0, false));
        sys.constraint_jacobian(t, q_c, -1.0, &mut at(j, corr, col_mu, true));
        sys.constraint_jacobian(t, q_c, 1.0, &mut at(j, pos, 0, false));
        sys.constraint_jacobian(t, q_c, 1.0, &mut at(j, pos, col_z, false));
    }
}

/// The block of `jac` whose top left entry is (row, col), transposed or not.
fn at<K: Sink>(jac: &mut K, row: usize, col: usize, transpose: bool) -> Block<'_, K> {
    Block {
        inner: jac,
        row,
        col,
        scale: 1.0,
        transpose,
    }
}
