//! The largest natural frequency ω_max of the system a formulation actually integrates, and the step
//! limit Ω_crit/ω_max it sets for a conditionally stable scheme (Fernández de Bustos, Uriarte,
//! Urkullu & García-Marina 2022, "A new approach for the integration of DAEs in the tangent space of
//! the manifold", Meccanica 57:371–399, eq. 26 and the paragraph after eq. 52).
//!
//! At a state (t, q, v, a, λ) with n coordinates and m constraints the equations of motion
//! M(q) a + Φ_qᵀλ − Q(q, v, t) = 0 are linearized with
//!
//! ```text
//! K = ∂(M a)/∂q + ∂(Φ_qᵀλ)/∂q − ∂Q/∂q,   C = −∂Q/∂v       (n × n)
//! ```
//!
//! and reduced to the f = n − rank Φ_q directions the formulation integrates, with N an orthonormal
//! basis of the null space of H = Φ_q (n × f):
//!
//! - [`LinearizedSystem::Constrained`] (index 3): M_R = Nᵀ M N, K_R = Nᵀ K N — the finite eigenvalues
//!   of the constrained pencil (K, Φ_qᵀ; Φ_q, 0) − ω² (M, 0; 0, 0);
//! - [`LinearizedSystem::TangentSpace`]: M_R = Nᵀ M N and K_R = Nᵀ K N + Nᵀ C Ẋ_p + Nᵀ M Ẍ_p1 (the
//!   paper's N_G = N_H = N for holonomic constraints), with Ẋ_p = −H⁺ Ḣ N (eq. 40) and
//!   Ẍ_p1 = −H⁺ (Ḧ N + 2 Ḣ Ẋ_p) (eq. 47): the stiffness of the α equations of eq. 52.
//!
//! The natural frequencies are ω_i = √|μ_i| for the eigenvalues μ_i of the pencil (K_R, M_R),
//! computed as those of L⁻¹ K_R L⁻ᵀ with M_R = L Lᵀ (nalgebra's Cholesky factorization and real Schur
//! form). K_R is not symmetric in the tangent space and away from equilibrium; a complex or negative
//! μ still sets a time scale 1/√|μ| that a step must resolve, which is why the modulus is taken. The
//! damping C enters only through K_R, as in the paper: the frequencies are those of the undamped
//! pencil. For a conditionally stable scheme with limit Ω_crit (from [`super::stability`]) a step
//! h ≤ Ω_crit/ω_max satisfies the linear stability condition at that state.
//!
//! This is a diagnostic: it allocates (two singular value decompositions and an eigenvalue problem
//! per call) and runs only when asked (`--omega-max`).

use nalgebra::Cholesky;

use crate::formulation::LinearizedSystem;
use crate::linalg::Matrix;
use crate::scheme::State;
use crate::system::System;

use super::stability::{analyse, log_grid, StabilityError};
use crate::linalg::null_space::null_space;
use crate::scheme::SchemeParams;

/// Singular values of Φ_q at or below this fraction of the largest count as zero (redundant rows),
/// as in the tangent-space formulation.
const RANK_TOL: f64 = 1e-10;

/// Why no frequency could be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NaturalFrequencyError {
    /// The reduced mass matrix is not positive definite (a massless direction of motion).
    #[error("the reduced mass matrix N^T M N is not positive definite at t = {t} s (a direction of motion without mass)")]
    MassNotPositive {
        /// Time of the state \[s\].
        t: f64,
    },
    /// The state or its linearization holds NaN or infinite values.
    #[error("non-finite values in the linearization at t = {t} s")]
    NonFinite {
        /// Time of the state \[s\].
        t: f64,
    },
}

/// The reduced matrices of the linearized system at one state (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct ReducedSystem {
    /// M_R = Nᵀ M N (f × f) \[kg, kg m, kg m² by coordinate\].
    pub mass: Matrix,
    /// K_R (f × f) \[N/m, N m/rad by coordinate\].
    pub stiffness: Matrix,
}

/// M_R and K_R of `kind` at `state` (n coordinates, m multipliers) of `sys`.
///
/// # Panics
/// When the shapes of `state` do not match the system.
pub fn reduced_system<S: System>(sys: &S, state: &State, kind: LinearizedSystem) -> ReducedSystem {
    let (n, m) = (sys.n(), sys.m());
    assert_eq!((state.q.len(), state.lambda.len()), (n, m), "state shape");
    let (t, q, v, a) = (state.t, &state.q, &state.v, &state.a);
    let mut mass = Matrix::zeros(n, n);
    sys.mass(q, 1.0, &mut mass);
    let mut stiff = Matrix::zeros(n, n);
    sys.mass_acceleration_q(q, a, 1.0, &mut stiff);
    sys.forces_q(t, q, v, -1.0, &mut stiff);
    let mut h = Matrix::zeros(m, n);
    if m > 0 {
        sys.constraint_force_q(t, q, &state.lambda, 1.0, &mut stiff);
        sys.constraint_jacobian(t, q, 1.0, &mut h);
    }
    let (_, basis) = null_space(&h, RANK_TOL);
    let mut k_full = &stiff * &basis;
    if kind == LinearizedSystem::TangentSpace && m > 0 {
        let [xd_p, xdd_p1] = tangent_particular_matrices(sys, state, &h, &basis);
        let mut damp = Matrix::zeros(n, n);
        sys.forces_v(t, q, v, -1.0, &mut damp);
        k_full += &damp * &xd_p + &mass * &xdd_p1;
    }
    ReducedSystem {
        mass: basis.transpose() * &mass * &basis,
        stiffness: basis.transpose() * k_full,
    }
}

/// Ẋ_p = −H⁺ Ḣ N and Ẍ_p1 = −H⁺ (Ḧ N + 2 Ḣ Ẋ_p) (n × f each; eqs. 40 and 47), with the
/// minimum-norm least-squares pseudo-inverse H⁺.
fn tangent_particular_matrices<S: System>(
    sys: &S,
    state: &State,
    h: &Matrix,
    basis: &Matrix,
) -> [Matrix; 2] {
    let (m, n) = h.shape();
    let (t, q, v, a) = (state.t, &state.q, &state.v, &state.a);
    let mut hd = Matrix::zeros(m, n);
    let mut hdd = Matrix::zeros(m, n);
    sys.constraint_jacobian_rate(t, q, v, 1.0, &mut hd);
    sys.constraint_jacobian_second_rate(t, q, v, a, 1.0, &mut hdd);
    let svd = h.clone().svd(true, true);
    let smax = svd.singular_values.iter().fold(0.0_f64, |s, x| s.max(*x));
    let pinv = svd
        .pseudo_inverse(RANK_TOL * smax)
        .unwrap_or_else(|_| Matrix::zeros(n, m));
    let xd_p = -(&pinv * (&hd * basis));
    let xdd_p1 = -(&pinv * (&hdd * basis + 2.0 * &hd * &xd_p));
    [xd_p, xdd_p1]
}

/// The natural frequencies ω_i = √|μ_i| \[rad/s\] of the pencil (K_R, M_R), ascending (f entries; none
/// for a system without degrees of freedom).
///
/// # Errors
/// [`NaturalFrequencyError::MassNotPositive`] when M_R has no Cholesky factor;
/// [`NaturalFrequencyError::NonFinite`] for NaN or infinite entries.
pub fn frequencies(red: &ReducedSystem, t: f64) -> Result<Vec<f64>, NaturalFrequencyError> {
    let finite = |x: &Matrix| x.iter().all(|v| v.is_finite());
    if !(finite(&red.mass) && finite(&red.stiffness)) {
        return Err(NaturalFrequencyError::NonFinite { t });
    }
    if red.mass.is_empty() {
        return Ok(Vec::new());
    }
    let chol =
        Cholesky::new(red.mass.clone()).ok_or(NaturalFrequencyError::MassNotPositive { t })?;
    let l = chol.l();
    // A = L⁻¹ K_R L⁻ᵀ = (L⁻¹ (L⁻¹ K_R)ᵀ)ᵀ
    let solve = |b: &Matrix| {
        l.solve_lower_triangular(b)
            .ok_or(NaturalFrequencyError::MassNotPositive { t })
    };
    let half = solve(&red.stiffness)?;
    let a = solve(&half.transpose())?.transpose();
    let mut omegas: Vec<f64> = a
        .complex_eigenvalues()
        .iter()
        .map(|mu| mu.norm().sqrt())
        .collect();
    if omegas.iter().any(|w| !w.is_finite()) {
        return Err(NaturalFrequencyError::NonFinite { t });
    }
    omegas.sort_by(f64::total_cmp);
    Ok(omegas)
}

/// The largest natural frequency ω_max \[rad/s\] of the linearized system `kind` at `state`; 0 for a
/// system without degrees of freedom.
///
/// # Errors
/// As [`frequencies`].
///
/// # Panics
/// When the shapes of `state` do not match the system.
pub fn omega_max<S: System>(
    sys: &S,
    state: &State,
    kind: LinearizedSystem,
) -> Result<f64, NaturalFrequencyError> {
    let red = reduced_system(sys, state, kind);
    Ok(frequencies(&red, state.t)?.last().copied().unwrap_or(0.0))
}

/// The largest ω_max along a run and where it occurred.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OmegaMaxRecord {
    /// Largest ω_max over the committed steps \[rad/s\].
    pub max: f64,
    /// Time at which it occurred \[s\].
    pub t_at_max: f64,
}

impl OmegaMaxRecord {
    /// Keeps the larger of the record and ω = `omega` at time `t` (a NaN `omega` is ignored).
    pub fn update(record: &mut Option<Self>, omega: f64, t: f64) {
        if !omega.is_nan() && record.is_none_or(|r| omega > r.max) {
            *record = Some(OmegaMaxRecord {
                max: omega,
                t_at_max: t,
            });
        }
    }
}

/// Ω_crit = ω h_max of `scheme` with `params`: the first Ω where its spectral radius on the undamped
/// test oscillator exceeds 1 ([`super::stability::analyse`] with ξ = 0 over 120 log-spaced Ω from
/// 10⁻² to 10³, refined by bisection); `None` when it is stable over the whole range.
///
/// # Errors
/// As [`super::stability::analyse`] (unknown scheme, bad parameters).
pub fn critical_omega(scheme: &str, params: &SchemeParams) -> Result<Option<f64>, StabilityError> {
    Ok(analyse(scheme, params, 0.0, &log_grid(1e-2, 1e3, 120))?.omega_crit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::Vector;
    use crate::system::test_problems::CartesianPendulum;

    /// The Cartesian pendulum (unit mass, length L, gravity g) at angle θ from the downward vertical
    /// and angular rate θ̇, with its exact acceleration and multiplier.
    fn pendulum_state(sys: &CartesianPendulum, theta: f64, rate: f64) -> State {
        let (l, g) = (sys.length, sys.g);
        let mut x = State::zeros(0.0, 2, 1);
        x.q = Vector::from_vec(vec![l * theta.sin(), -l * theta.cos()]);
        x.v = Vector::from_vec(vec![l * rate * theta.cos(), l * rate * theta.sin()]);
        let acc = -g / l * theta.sin();
        x.a = Vector::from_vec(vec![
            l * (acc * theta.cos() - rate * rate * theta.sin()),
            l * (acc * theta.sin() + rate * rate * theta.cos()),
        ]);
        // m a + Φ_qᵀλ = m g_vec: λ from the component along q.
        let mut phi_q = Matrix::zeros(1, 2);
        sys.constraint_jacobian(0.0, &x.q, 1.0, &mut phi_q);
        let rhs = -sys.mass * (x.a[1] + g);
        let rhs_x = -sys.mass * x.a[0];
        let norm2 = phi_q[(0, 0)].powi(2) + phi_q[(0, 1)].powi(2);
        x.lambda[0] = (phi_q[(0, 0)] * rhs_x + phi_q[(0, 1)] * rhs) / norm2;
        x
    }

    /// Both linearizations give ω² = (g cos θ + L θ̇²)/L on the pendulum: K_R is the multiplier of
    /// Φ = (|x|² − L²)/2, the rod tension over L, and the tangent-space terms vanish (Ẍ_p1 is
    /// radial, C = 0). Hanging at rest that is √(g/L); swinging it includes the centripetal tension.
    #[test]
    fn pendulum_frequency_is_the_tension_over_length() {
        let sys = CartesianPendulum::iftomm();
        for (theta, rate) in [(0.0, 0.0), (0.7, 2.3)] {
            let x = pendulum_state(&sys, theta, rate);
            let exact = ((sys.g * f64::cos(theta) + sys.length * rate * rate) / sys.length).sqrt();
            for kind in [
                LinearizedSystem::Constrained,
                LinearizedSystem::TangentSpace,
            ] {
                let w = omega_max(&sys, &x, kind).expect("frequency");
                assert!(
                    (w - exact).abs() < 1e-12 * exact,
                    "θ = {theta}, θ̇ = {rate}, {kind:?}: {w} vs {exact}"
                );
            }
        }
    }

    /// K_R of the tangent space is the derivative of the reduced residual
    /// r(α) = Nᵀ [M(x) ẍ + Φ_q(x)ᵀλ − Q(x, ẋ, t)] along x = q + N α, ẋ = v + Ẋ_p α, ẍ = a + Ẍ_p1 α
    /// (eq. 51 read as a function of α), checked by central differences on the undriven slider-crank
    /// of `spring-linkage`, whose damper makes C ≠ 0, at an assembled q and arbitrary v, a, λ.
    #[test]
    fn tangent_space_stiffness_matches_finite_differences() {
        use crate::analysis::simulation::assembled;
        use crate::model::parse;
        let ex = crate::examples::find("spring-linkage").expect("embedded");
        let model = parse::from_str_with_overrides(ex.text, ex.file, &[]).expect("valid");
        let sys = crate::system::planar::PlanarSystem::new(&model).expect("valid");
        let (mut x, _) = assembled(&model, &sys).expect("assembles");
        let (n, m) = (sys.n(), sys.m());
        let wave = |k: usize, s: f64| (s * (k as f64 + 1.0)).sin();
        x.v = Vector::from_fn(n, |k, _| 3.0 * wave(k, 0.7));
        x.a = Vector::from_fn(n, |k, _| 20.0 * wave(k, 1.3));
        x.lambda = Vector::from_fn(m, |k, _| 50.0 * wave(k, 2.1));
        let red = reduced_system(&sys, &x, LinearizedSystem::TangentSpace);
        let mut h = Matrix::zeros(m, n);
        sys.constraint_jacobian(x.t, &x.q, 1.0, &mut h);
        let (_, basis) = null_space(&h, RANK_TOL);
        let [xd_p, xdd_p1] = tangent_particular_matrices(&sys, &x, &h, &basis);
        let f = basis.ncols();
        assert_eq!(f, 1, "one degree of freedom");
        let residual = |alpha: &Vector| {
            let q = &x.q + &basis * alpha;
            let v = &x.v + &xd_p * alpha;
            let a = &x.a + &xdd_p1 * alpha;
            let (mut ma, mut forces, mut cf) =
                (Vector::zeros(n), Vector::zeros(n), Vector::zeros(n));
            sys.mass_times(&q, &a, &mut ma);
            sys.forces(x.t, &q, &v, &mut forces);
            sys.add_constraint_force(x.t, &q, &x.lambda, &mut cf);
            basis.transpose() * (ma + cf - forces)
        };
        let eps = 1e-6;
        let scale = red.stiffness.amax();
        for c in 0..f {
            let mut da = Vector::zeros(f);
            da[c] = eps;
            let fd = (residual(&da) - residual(&(-&da))) / (2.0 * eps);
            let err = (fd - red.stiffness.column(c)).amax();
            assert!(
                err < 1e-6 * scale,
                "column {c}: error {err:e}, |K_R| = {scale:e}"
            );
        }
        // The tangent-space terms matter here: K_R differs from the constrained Nᵀ K N.
        let constrained = reduced_system(&sys, &x, LinearizedSystem::Constrained);
        let diff = (&red.stiffness - &constrained.stiffness).amax();
        assert!(diff > 1e-3 * scale);
    }
}
