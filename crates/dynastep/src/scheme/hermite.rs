//! Hermite interpolation between two time levels, for dense output and for the predictor of the
//! one-point schemes' error estimate (`milne.rs`).
//!
//! With θ = (t − t_0)/h ∈ \[0, 1\] (extrapolation outside it) and the values y, first derivatives
//! y′ and, for the quintic, second derivatives y″ at both ends (Hairer, Nørsett & Wanner 1993,
//! *Solving Ordinary Differential Equations I*, §II.6):
//!
//! ```text
//! cubic:   y(θ) = h00 y_0 + h h10 y′_0 + h01 y_1 + h h11 y′_1
//!          h00 = (1 + 2θ)(1 − θ)²,  h10 = θ(1 − θ)²,  h01 = θ²(3 − 2θ),  h11 = θ²(θ − 1)
//! quintic: adds y″ at both ends; exact for polynomials of degree 5.
//! ```
//!
//! Interpolation error: O(h⁴) for the cubic, O(h⁶) for the quintic.

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

/// Quintic Hermite weights at θ for (y_0, h y′_0, h² y″_0, y_1, h y′_1, h² y″_1).
pub fn quintic_weights(theta: f64) -> [f64; 6] {
    let t = theta;
    let (t2, t3) = (t * t, t * t * t);
    let (t4, t5) = (t3 * t, t3 * t2);
    [
        1.0 - 10.0 * t3 + 15.0 * t4 - 6.0 * t5,
        t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5,
        0.5 * t2 - 1.5 * t3 + 1.5 * t4 - 0.5 * t5,
        10.0 * t3 - 15.0 * t4 + 6.0 * t5,
        -4.0 * t3 + 7.0 * t4 - 3.0 * t5,
        0.5 * t3 - t4 + 0.5 * t5,
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

    #[test]
    fn quintic_is_exact_for_quintics() {
        let c = [0.3, -1.0, 0.7, 0.2, -0.4, 0.15];
        let d = |k: usize, t: f64| -> f64 {
            (k..6)
                .map(|i| {
                    let f: f64 = (i - k + 1..=i).map(|j| j as f64).product();
                    c[i] * f * t.powi((i - k) as i32)
                })
                .sum()
        };
        let (t0, h) = (-0.2, 0.9);
        for theta in [-1.0, 0.0, 0.45, 1.0, 2.0] {
            let w = quintic_weights(theta);
            let ends = [
                d(0, t0),
                h * d(1, t0),
                h * h * d(2, t0),
                d(0, t0 + h),
                h * d(1, t0 + h),
                h * h * d(2, t0 + h),
            ];
            let got: f64 = (0..6).map(|i| w[i] * ends[i]).sum();
            let exact = d(0, t0 + theta * h);
            assert!((got - exact).abs() < 1e-11, "θ = {theta}: {got} vs {exact}");
        }
    }
}
