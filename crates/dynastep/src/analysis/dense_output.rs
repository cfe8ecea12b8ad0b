//! Dense output: the state between two complete states, so that output rows fall at exact multiples
//! of the output interval whatever the steps are.
//!
//! q(t) is the cubic Hermite polynomial through (q, v) at both ends and v(t) the one through (v, a)
//! (Hairer, Nørsett & Wanner 1993, *Solving Ordinary Differential Equations I*, §II.6): both
//! O(h⁴) accurate, better than the O(h²) global error of the schemes here. a and λ are interpolated
//! linearly.

use crate::scheme::hermite::cubic_weights;
use crate::scheme::State;

/// Writes the state at time `t` \[s\] between the complete states `x0` (at t_0) and `x1` (at t_1 > t_0)
/// into `out` (shapes as `x0`). Outside \[t_0, t_1\] the polynomials extrapolate.
///
/// # Panics
/// When the shapes differ.
pub fn interpolate(x0: &State, x1: &State, t: f64, out: &mut State) {
    let h = x1.t - x0.t;
    let theta = if h > 0.0 { (t - x0.t) / h } else { 1.0 };
    let [w0, w1, w2, w3] = cubic_weights(theta);
    for i in 0..x0.q.len() {
        out.q[i] = w0 * x0.q[i] + h * w1 * x0.v[i] + w2 * x1.q[i] + h * w3 * x1.v[i];
        out.v[i] = w0 * x0.v[i] + h * w1 * x0.a[i] + w2 * x1.v[i] + h * w3 * x1.a[i];
        out.a[i] = x0.a[i] + theta * (x1.a[i] - x0.a[i]);
    }
    for j in 0..x0.lambda.len() {
        out.lambda[j] = x0.lambda[j] + theta * (x1.lambda[j] - x0.lambda[j]);
    }
    out.t = t;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_motion_is_interpolated_to_fourth_order() {
        // q = sin t: the error at the midpoint falls 16× when h halves.
        let state = |t: f64| {
            let mut x = State::zeros(t, 1, 1);
            x.q[0] = t.sin();
            x.v[0] = t.cos();
            x.a[0] = -t.sin();
            x.lambda[0] = t;
            x
        };
        let mut out = State::zeros(0.0, 1, 1);
        let mut errors = Vec::new();
        for h in [0.2, 0.1, 0.05] {
            interpolate(&state(1.0), &state(1.0 + h), 1.0 + 0.5 * h, &mut out);
            errors.push(((out.q[0] - (1.0 + 0.5 * h).sin()).abs(), out.v[0]));
            assert!((out.lambda[0] - (1.0 + 0.5 * h)).abs() < 1e-15);
        }
        for k in 0..2 {
            let ratio = errors[k].0 / errors[k + 1].0;
            assert!((ratio - 16.0).abs() < 1.0, "ratio {ratio}");
        }
        // The ends are reproduced.
        interpolate(&state(1.0), &state(1.3), 1.3, &mut out);
        assert_eq!(out.q[0], (1.3_f64).sin());
    }
}
