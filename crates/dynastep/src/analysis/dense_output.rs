//! Dense output: the state between two complete states, so that output rows fall at exact multiples
//! of the output interval whatever the steps are.
//!
//! v(t) is the cubic Hermite polynomial through (v, a) at both ends, O(h⁴) (Hairer, Nørsett &
//! Wanner 1993, *Solving Ordinary Differential Equations I*, §II.6); a and λ are interpolated
//! linearly. q(t) is one of two ([`PositionInterpolant`]):
//!
//! - the quintic through (q, v, a), O(h⁶), where the stored a is the model's acceleration at the
//!   stored state (the acceleration-level formulations, whose schemes reach high orders at long
//!   steps). With the cubic, Adams PECE at rtol 1e-10 per unit step on the pendulum (steps up to
//!   0.017 s) was 4e-11 m off at its step points and 4.6e-8 m at the output rows between them;
//! - the cubic through (q, v), O(h⁴), where a is the scheme's algebraic unknown, accurate only to
//!   the scheme's order (index 3, stabilized index 2, the tangent space). The quintic there,
//!   measured on the slider-crank's closed form, made ρ∞-Bathe and ESDIRK3(2)4 in stabilized index
//!   2 four times less accurate at the output rows (1.3e-5 against 3.3e-6 m at rtol 1e-4).
//!
//! v is never taken from the derivative of the quintic, whose weights on q grow as 1/h and would
//! carry the positions' Newton noise into it.

use crate::catalog::VelocityError;
use crate::scheme::hermite::{cubic_weights, quintic_weights};
use crate::scheme::State;

/// How dense output interpolates the positions (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionInterpolant {
    /// The cubic Hermite polynomial through (q, v) at both ends, O(h⁴).
    Cubic,
    /// The quintic Hermite polynomial through (q, v, a) at both ends, O(h⁶).
    Quintic,
}

impl PositionInterpolant {
    /// The interpolant for a formulation whose velocity error is `e`: the quintic where the stored
    /// a is the model's acceleration at the stored state (the acceleration-level formulations,
    /// [`VelocityError::Differential`]), else the cubic (see the module documentation).
    pub fn for_formulation(e: VelocityError) -> Self {
        match e {
            VelocityError::Differential => PositionInterpolant::Quintic,
            VelocityError::ScaledByStep => PositionInterpolant::Cubic,
        }
    }
}

/// Writes the state at time `t` \[s\] between the complete states `x0` (at t_0) and `x1` (at t_1 > t_0)
/// into `out` (shapes as `x0`), q by `positions`. Outside \[t_0, t_1\] the polynomials extrapolate.
///
/// # Panics
/// When the shapes differ.
pub fn interpolate(
    x0: &State,
    x1: &State,
    t: f64,
    positions: PositionInterpolant,
    out: &mut State,
) {
    let h = x1.t - x0.t;
    let theta = if h > 0.0 { (t - x0.t) / h } else { 1.0 };
    let [w0, w1, w2, w3] = cubic_weights(theta);
    let p = quintic_weights(theta);
    let h2 = h * h;
    for i in 0..x0.q.len() {
        out.q[i] = match positions {
            PositionInterpolant::Cubic => {
                w0 * x0.q[i] + h * w1 * x0.v[i] + w2 * x1.q[i] + h * w3 * x1.v[i]
            }
            PositionInterpolant::Quintic => {
                p[0] * x0.q[i]
                    + h * p[1] * x0.v[i]
                    + h2 * p[2] * x0.a[i]
                    + p[3] * x1.q[i]
                    + h * p[4] * x1.v[i]
                    + h2 * p[5] * x1.a[i]
            }
        };
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
    fn harmonic_motion_is_interpolated_to_the_polynomials_orders() {
        // q = sin t: at the midpoint the errors fall 64× (quintic q), 16× (cubic q, v) as h halves.
        let state = |t: f64| {
            let mut x = State::zeros(t, 1, 1);
            x.q[0] = t.sin();
            x.v[0] = t.cos();
            x.a[0] = -t.sin();
            x.lambda[0] = t;
            x
        };
        let mut out = State::zeros(0.0, 1, 1);
        for (positions, order) in [
            (PositionInterpolant::Quintic, 64.0),
            (PositionInterpolant::Cubic, 16.0),
        ] {
            let mut errors = Vec::new();
            for h in [0.2, 0.1, 0.05] {
                let t = 1.0 + 0.5 * h;
                interpolate(&state(1.0), &state(1.0 + h), t, positions, &mut out);
                errors.push(((out.q[0] - t.sin()).abs(), (out.v[0] - t.cos()).abs()));
                assert!((out.lambda[0] - t).abs() < 1e-15);
            }
            for k in 0..2 {
                let ratio = errors[k].0 / errors[k + 1].0;
                assert!(
                    (ratio / order - 1.0).abs() < 0.16,
                    "{positions:?}: q ratio {ratio}"
                );
                let ratio = errors[k].1 / errors[k + 1].1;
                assert!((ratio - 16.0).abs() < 2.5, "v ratio {ratio}");
            }
            // The ends are reproduced.
            interpolate(&state(1.0), &state(1.3), 1.3, positions, &mut out);
            assert_eq!(out.q[0], (1.3_f64).sin());
        }
    }
}
