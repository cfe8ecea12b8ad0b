//! The local error estimate of the one-point schemes in first-order form, LMS2 and SS-k: Milne's
//! device with a predictor one order above the method (Hairer, Nørsett & Wanner 1993, §III.7).
//! The predictor is the cubic Hermite extrapolation of q (from q, v) and of v (from v, a) through
//! two stored levels, whose error is O(h⁴); its difference from the corrector is therefore the
//! step's local error C h³ y⃛ up to O(h⁴). The first step, with a single level, falls back on the
//! trapezoidal rule's acceleration-jump estimate (Zienkiewicz & Xie 1991).

use super::hermite::cubic_weights;
use super::predictor::first_order_point;
use super::IntegrationPoint;
use super::{LocalError, State};
use crate::linalg::Vector;

/// The corrector of a one-point step in first-order form, the state LMS2 and SS-k keep for the
/// step being solved: q_{n+1} = q̂ + c_q u and v_{n+1} = v̂ + c_v u, with u = a_{n+1} (q̂, v̂, u:
/// n entries; c_q \[s²\], c_v \[s\]).
#[derive(Debug, Clone)]
pub struct Corrector {
    /// Known part q̂ of the new positions (n).
    pub q_hat: Vector,
    /// Known part v̂ of the new velocities (n).
    pub v_hat: Vector,
    /// ∂q_{n+1}/∂u \[s²\].
    pub c_q: f64,
    /// ∂v_{n+1}/∂u \[s\].
    pub c_v: f64,
    /// The solved accelerations a_{n+1} (n).
    pub u: Vector,
}

impl Corrector {
    /// Zero maps for n coordinates (allocates; the schemes call it when n changes).
    pub fn zeros(n: usize) -> Self {
        Corrector {
            q_hat: Vector::zeros(n),
            v_hat: Vector::zeros(n),
            c_q: 0.0,
            c_v: 0.0,
            u: Vector::zeros(n),
        }
    }

    /// Fills the maps of the step's one integration point at t_{n+1} = `t` \[s\] from q̂, v̂ and
    /// c_v ([`first_order_point`]).
    pub fn fill_point(&self, pt: &mut IntegrationPoint, t: f64) {
        first_order_point(pt, t, &self.q_hat, &self.v_hat, self.c_v);
    }

    /// The new position and velocity of coordinate `i`: (q̂_i + c_q u_i, v̂_i + c_v u_i).
    #[inline]
    pub fn at(&self, i: usize) -> (f64, f64) {
        let u = self.u[i];
        (self.q_hat[i] + self.c_q * u, self.v_hat[i] + self.c_v * u)
    }
}

/// Writes into `err` (q and v parts, n each) the corrector minus the cubic Hermite extrapolation
/// through the levels `old` and `last`, `big_h` \[s\] apart, evaluated at θ = (t_{n+1} − t_old)/big_h.
///
/// Both sides are formed as increments from `last` (the Hermite weights on the two values sum to
/// one), so that the estimate carries the rounding of the increments, not that of q: written with
/// the absolute positions, the extrapolation 5 q_{n−1} − 4 q_n + … at θ = 2 put about 20 ulps of
/// |q| into e_q, which per unit step at rtol 1e-10 (a step's tolerance of about one ulp) drove the
/// pendulum's steps to h_min in stabilized index 2 (docs/schemes.md, "the rounding floor").
pub fn predictor_difference(
    old: &State,
    last: &State,
    big_h: f64,
    theta: f64,
    c: &Corrector,
    err: &mut LocalError,
) {
    let w = cubic_weights(theta);
    for i in 0..last.q.len() {
        let u = c.u[i];
        // q_{n+1} − q_n and v_{n+1} − v_n, and the predictor's increments (w[0] + w[2] = 1).
        let dq_new = (c.q_hat[i] - last.q[i]) + c.c_q * u;
        let dv_new = (c.v_hat[i] - last.v[i]) + c.c_v * u;
        let dq_pred = w[0] * (old.q[i] - last.q[i]) + big_h * (w[1] * old.v[i] + w[3] * last.v[i]);
        let dv_pred = w[0] * (old.v[i] - last.v[i]) + big_h * (w[1] * old.a[i] + w[3] * last.a[i]);
        err.q[i] = dq_new - dq_pred;
        err.v[i] = dv_new - dv_pred;
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
