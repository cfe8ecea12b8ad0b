//! Test support: every derivative a [`System`] provides, checked against central finite
//! differences (Φ_q, ∂(Φ_qᵀλ)/∂q, Φ_t, γ, Ḣ, Ḧ, ∂Q/∂q, ∂Q/∂v, ∂(M a)/∂q, the non-conservative
//! power), and the rule that every call writes the same sink entries in the same order. Used by
//! the planar and spatial element tests.

use super::System;
use crate::linalg::{same_bits, Matrix, Sink, Vector};

/// Deterministic pseudo-random numbers in \[−1, 1\].
pub(crate) fn noise(k: usize, seed: u64) -> Vector {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    Vector::from_iterator(
        k,
        (0..k).map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }),
    )
}

pub(crate) const H: f64 = 1e-6;

pub(crate) fn assert_close(what: &str, analytic: &Matrix, fd: &Matrix) {
    let scale = 1.0 + analytic.amax().max(fd.amax());
    let err = (analytic - fd).amax();
    assert!(
        err <= 1e-6 * scale,
        "{what}: analytic and finite differences differ by {err:e} (scale {scale})\nanalytic {analytic}\nfinite differences {fd}"
    );
}

/// Central differences of a vector function of q (columns: coordinates).
pub(crate) fn fd_q(n: usize, rows: usize, q: &Vector, f: impl Fn(&Vector) -> Vector) -> Matrix {
    let mut out = Matrix::zeros(rows, n);
    for c in 0..n {
        let mut qp = q.clone();
        qp[c] += H;
        let mut qm = q.clone();
        qm[c] -= H;
        let d = (f(&qp) - f(&qm)) / (2.0 * H);
        out.set_column(c, &d);
    }
    out
}

pub(crate) fn as_matrix(v: &Vector) -> Matrix {
    Matrix::from_column_slice(v.len(), 1, v.as_slice())
}

/// A sink recording the entries it receives, to check that every call writes the same pattern.
#[derive(Default)]
pub(crate) struct Pattern(pub Vec<(usize, usize)>);

impl Sink for Pattern {
    fn add(&mut self, row: usize, col: usize, _value: f64) {
        self.0.push((row, col));
    }
}

/// Checks every derivative of `sys` at (t, q, v) against finite differences.
pub(crate) fn check_derivatives<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    if sys.m() > 0 {
        check_constraints(sys, t, q, v);
        check_jacobian_rates(sys, t, q, v);
    }
    check_forces(sys, t, q, v);
    check_mass_and_power(sys, t, q, v);
    check_sink_pattern(sys, t, q, v);
}

/// Φ(t, q) (m).
fn phi_of<S: System>(sys: &S, q: &Vector, t: f64) -> Vector {
    let mut o = Vector::zeros(sys.m());
    sys.constraints(t, q, &mut o);
    o
}

/// Φ_q(t, q) (m × n), dense.
fn jac_of<S: System>(sys: &S, q: &Vector, t: f64) -> Matrix {
    let mut j = Matrix::zeros(sys.m(), sys.n());
    sys.constraint_jacobian(t, q, 1.0, &mut j);
    j
}

/// Φ_t(t, q) (m).
fn phi_t_of<S: System>(sys: &S, q: &Vector, t: f64) -> Vector {
    let mut o = Vector::zeros(sys.m());
    sys.constraint_time_derivative(t, q, &mut o);
    o
}

/// Q(t, q, v) (n).
fn forces_of<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) -> Vector {
    let mut o = Vector::zeros(sys.n());
    sys.forces(t, q, v, &mut o);
    o
}

/// M(q) (n × n), dense.
fn mass_of<S: System>(sys: &S, q: &Vector) -> Matrix {
    let n = sys.n();
    let mut mm = Matrix::zeros(n, n);
    sys.mass(q, 1.0, &mut mm);
    mm
}

/// Φ_q, ∂(Φ_qᵀλ)/∂q, Φ_t, γ and the matrix-free Φ_qᵀλ.
fn check_constraints<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    let (n, m) = (sys.n(), sys.m());
    let jac = |q: &Vector, t: f64| jac_of(sys, q, t);
    let phi_t = |q: &Vector, t: f64| phi_t_of(sys, q, t);

    // Φ_q.
    assert_close("Φ_q", &jac(q, t), &fd_q(n, m, q, |q| phi_of(sys, q, t)));

    // ∂(Φ_qᵀλ)/∂q.
    let lambda = noise(m, 7);
    let mut k = Matrix::zeros(n, n);
    sys.constraint_force_q(t, q, &lambda, 1.0, &mut k);
    let fd = fd_q(n, n, q, |q| jac(q, t).transpose() * &lambda);
    assert_close("∂(Φ_qᵀλ)/∂q", &k, &fd);

    // Φ_t.
    let fd_t = (phi_of(sys, q, t + H) - phi_of(sys, q, t - H)) / (2.0 * H);
    assert_close("Φ_t", &as_matrix(&phi_t(q, t)), &as_matrix(&fd_t));

    // γ = −d/dt (Φ_q v + Φ_t) along (q + ε v, t + ε) at fixed v.
    let c = |e: f64| {
        let qe = q + v * e;
        jac(&qe, t + e) * v + phi_t(&qe, t + e)
    };
    let fd_g = -(c(H) - c(-H)) / (2.0 * H);
    let mut g = Vector::zeros(m);
    sys.gamma(t, q, v, &mut g);
    assert_close("γ", &as_matrix(&g), &as_matrix(&fd_g));

    // Φ_qᵀλ and Φ_q x through the matrix-free sinks agree with the dense Jacobian.
    let mut y = Vector::zeros(n);
    sys.add_constraint_force(t, q, &lambda, &mut y);
    assert_close(
        "Φ_qᵀλ",
        &as_matrix(&y),
        &as_matrix(&(jac(q, t).transpose() * &lambda)),
    );
    // Both at once, as the index-3 residual asks: the same two vectors to the bit.
    let (mut phi_both, mut y_both) = (Vector::zeros(m), Vector::zeros(n));
    sys.constraints_and_force(t, q, &lambda, &mut phi_both, &mut y_both);
    let phi = phi_of(sys, q, t);
    assert!(
        same_bits(phi_both.as_slice(), phi.as_slice())
            && same_bits(y_both.as_slice(), y.as_slice()),
        "constraints_and_force differs from constraints and add_constraint_force"
    );

    // M a (a system may compute it without forming M) agrees with the assembled M.
    let a = noise(n, 17);
    let mut mass = Matrix::zeros(n, n);
    sys.mass(q, 1.0, &mut mass);
    let mut ma = Vector::from_element(n, f64::NAN);
    sys.mass_times(q, &a, &mut ma);
    assert_close("M a", &as_matrix(&ma), &as_matrix(&(mass * &a)));
}

/// Ḣ = dΦ_q/dt along (q + τ v, t + τ), and Ḧ = dḢ/dt along (q + τ v + τ²a/2, v + τ a, t + τ).
fn check_jacobian_rates<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    let (n, m) = (sys.n(), sys.m());
    let a = noise(n, 13);
    let rate = |q: &Vector, v: &Vector, t: f64| {
        let mut j = Matrix::zeros(m, n);
        sys.constraint_jacobian_rate(t, q, v, 1.0, &mut j);
        j
    };
    let fd_rate = (jac_of(sys, &(q + v * H), t + H) - jac_of(sys, &(q - v * H), t - H)) / (2.0 * H);
    assert_close("Ḣ", &rate(q, v, t), &fd_rate);
    let path = |e: f64| rate(&(q + v * e + &a * (0.5 * e * e)), &(v + &a * e), t + e);
    let fd_second = (path(H) - path(-H)) / (2.0 * H);
    let mut second = Matrix::zeros(m, n);
    sys.constraint_jacobian_second_rate(t, q, v, &a, 1.0, &mut second);
    assert_close("Ḧ", &second, &fd_second);
}

/// ∂Q/∂q and ∂Q/∂v, and that Q ignores v when the system says so.
fn check_forces<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    let n = sys.n();
    let mut kq = Matrix::zeros(n, n);
    sys.forces_q(t, q, v, 1.0, &mut kq);
    assert_close("∂Q/∂q", &kq, &fd_q(n, n, q, |q| forces_of(sys, t, q, v)));
    let mut kv = Matrix::zeros(n, n);
    sys.forces_v(t, q, v, 1.0, &mut kv);
    assert_close("∂Q/∂v", &kv, &fd_q(n, n, v, |v| forces_of(sys, t, q, v)));
    if !sys.forces_depend_on_velocity() {
        assert_eq!(
            kv.amax(),
            0.0,
            "Q depends on v but forces_depend_on_velocity is false"
        );
    }
}

/// ∂(M a)/∂q against finite differences of M(q) a, and the non-conservative power.
fn check_mass_and_power<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    let n = sys.n();
    let a = noise(n, 17);
    let mut ma_q = Matrix::zeros(n, n);
    sys.mass_acceleration_q(q, &a, 1.0, &mut ma_q);
    assert_close("∂(M a)/∂q", &ma_q, &fd_q(n, n, q, |q| mass_of(sys, q) * &a));

    // P_nc = Q·v + dV/dt + ½ vᵀ Ṁ v: the conservative part of Q is −∇V, and the inertia terms of a
    // configuration-dependent M in Q have the power −½ vᵀ Ṁ v (zero for planar body coordinates).
    let dv_dt = (sys.potential_energy(t + H, &(q + v * H))
        - sys.potential_energy(t - H, &(q - v * H)))
        / (2.0 * H);
    let m_dot = (mass_of(sys, &(q + v * H)) - mass_of(sys, &(q - v * H))) / (2.0 * H);
    let p = sys.nonconservative_power(t, q, v);
    let expected = forces_of(sys, t, q, v).dot(v) + dv_dt + 0.5 * v.dot(&(m_dot * v));
    assert!(
        (p - expected).abs() <= 1e-6 * (1.0 + p.abs()),
        "non-conservative power {p} vs Q·v + dV/dt = {expected}"
    );
}

/// Same entries in the same order on every call (a sparse sink relies on it).
fn check_sink_pattern<S: System>(sys: &S, t: f64, q: &Vector, v: &Vector) {
    let (n, m) = (sys.n(), sys.m());
    let q2 = q + noise(n, 3) * 0.1;
    let v2 = v + noise(n, 4);
    let lambda = noise(m, 5);
    let lambda_n = noise(n, 6);
    let pattern = |q: &Vector, v: &Vector| {
        let mut p = Pattern::default();
        sys.mass(q, 1.0, &mut p);
        sys.constraint_jacobian(t, q, 1.0, &mut p);
        sys.constraint_jacobian_rate(t, q, v, 1.0, &mut p);
        sys.constraint_jacobian_second_rate(t, q, v, &lambda_n, 1.0, &mut p);
        sys.constraint_force_q(t, q, &lambda, 1.0, &mut p);
        sys.forces_q(t, q, v, 1.0, &mut p);
        sys.forces_v(t, q, v, 1.0, &mut p);
        p.0
    };
    assert_eq!(pattern(q, v), pattern(&q2, &v2), "sink pattern changed");
}
