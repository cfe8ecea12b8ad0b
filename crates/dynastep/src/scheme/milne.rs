//! The local error estimate of the one-point schemes in first-order form, LMS2 and SS-k: Milne's
//! device with a predictor one order above the method (Hairer, Nørsett & Wanner 1993, §III.7).
//! The predictor is the cubic Hermite extrapolation of q (from q, v) and of v (from v, a) through
//! two stored levels, whose error is O(h⁴); its difference from the corrector is therefore the
//! step's local error C h³ y⃛ up to O(h⁴). The first step, with a single level, falls back on the
//! trapezoidal rule's acceleration-jump estimate (Zienkiewicz & Xie 1991).

use super::hermite::cubic_weights;
use super::{LocalError, State};
use crate::linalg::Vector;

/// The corrector of a one-point step in first-order form: q_{n+1} = q̂ + c_q u and
/// v_{n+1} = v̂ + c_v u, with u = a_{n+1} (q̂, v̂, u: n entries; c_q \[s²\], c_v \[s\]).
pub struct Corrector<'a> {
    /// Known part q̂ of the new positions (n).
    pub q_hat: &'a Vector,
    /// Known part v̂ of the new velocities (n).
    pub v_hat: &'a Vector,
    /// ∂q_{n+1}/∂u \[s²\].
    pub c_q: f64,
    /// ∂v_{n+1}/∂u \[s\].
    pub c_v: f64,
    /// The solved accelerations a_{n+1} (n).
    pub u: &'a Vector,
}

/// Writes into `err` (q and v parts, n each) the corrector minus the cubic Hermite extrapolation
/// through the levels `old` and `last`, `big_h` \[s\] apart, evaluated at θ = (t_{n+1} − t_old)/big_h.
pub fn predictor_difference(
    old: &State,
    last: &State,
    big_h: f64,
    theta: f64,
    c: &Corrector<'_>,
    err: &mut LocalError,
) {
    let w = cubic_weights(theta);
    for i in 0..last.q.len() {
        let u = c.u[i];
        let (q_new, v_new) = (c.q_hat[i] + c.c_q * u, c.v_hat[i] + c.c_v * u);
        let q_pred =
            w[0] * old.q[i] + big_h * w[1] * old.v[i] + w[2] * last.q[i] + big_h * w[3] * last.v[i];
        let v_pred =
            w[0] * old.v[i] + big_h * w[1] * old.a[i] + w[2] * last.v[i] + big_h * w[3] * last.a[i];
        err.q[i] = q_new - q_pred;
        err.v[i] = v_new - v_pred;
    }
}

/// The trapezoidal rule's estimate for a step of size `h` \[s\] from accelerations `a_n` to `u`
/// (n each): e_q = h²(u − a_n)/12, e_v = 0.
pub fn trapezoidal_step_error(h: f64, a_n: &Vector, u: &Vector, err: &mut LocalError) {
    for i in 0..a_n.len() {
        err.q[i] = h * h * (u[i] - a_n[i]) / 12.0;
        err.v[i] = 0.0;
    }
}
