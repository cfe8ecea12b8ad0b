//! Cubic Hermite interpolation between two time levels, for dense output and for the predictor of
//! the one-point schemes' error estimate (`milne.rs`).
//!
//! With θ = (t − t_0)/h ∈ \[0, 1\] (extrapolation outside it) and the values y and first derivatives
//! y′ at both ends (Hairer, Nørsett & Wanner 1993, *Solving Ordinary Differential Equations I*,
//! §II.6):
//!
//! ```text
//! cubic:   y(θ) = h00 y_0 + h h10 y′_0 + h01 y_1 + h h11 y′_1
//!          h00 = (1 + 2θ)(1 − θ)²,  h10 = θ(1 − θ)²,  h01 = θ²(3 − 2θ),  h11 = θ²(θ − 1)
//! ```
//!
//! Interpolation error: O(h⁴).

/// Cubic Hermite basis weights (h00, h10, h01, h11) at θ; multiply h10 and h11 by h.
pub fn cubic_weights(theta: f64) -> [f64; 4] {
    let s = 1.0 - theta;
    [
        (1.0 + 2.0 * theta) * s * s,
        theta * s * s,
        theta * theta * (3.0 - 2.0 * theta),
        theta * theta * (theta - 1.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubic_is_exact_for_cubics() {
        let y = |t: f64| 1.0 - 2.0 * t + 0.5 * t * t + 0.3 * t * t * t;
        let dy = |t: f64| -2.0 + t + 0.9 * t * t;
        let (t0, h) = (0.4, 0.7);
        for theta in [-0.5, 0.0, 0.3, 1.0, 1.7] {
            let w = cubic_weights(theta);
            let got = w[0] * y(t0) + h * w[1] * dy(t0) + w[2] * y(t0 + h) + h * w[3] * dy(t0 + h);
            assert!((got - y(t0 + theta * h)).abs() < 1e-13, "θ = {theta}");
        }
    }
}
