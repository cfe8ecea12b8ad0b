//! Local error estimates of the second-order single-step schemes from the jump of the acceleration:
//! the estimator of Zienkiewicz & Xie (1991), *A simple error estimator and adaptive time stepping
//! procedure for dynamic analysis*, Earthquake Eng. Struct. Dyn. 20:871–887, extended to the
//! velocities and to the filtered acceleration of generalized-α (the idea of Hulbert & Jang 1995,
//! Comput. Methods Appl. Mech. Eng. 126:155–178).
//!
//! # The constants
//! In the Newmark updates
//! `q_{n+1} = q_n + h v_n + h²[(½ − β) a_n + β a_{n+1}]`, `v_{n+1} = v_n + h[(1 − γ) a_n + γ a_{n+1}]`
//! the variable a follows, once the start-up transient is over, a shifted copy of the true
//! acceleration: `a_n = q̈(t_n + δh) + κ h² q⁗ + O(h³)`. Taylor expansion of the updates against the
//! exact solution gives the local errors (exact history in, error of one step out):
//!
//! ```text
//! e_q = C_q3 h³ q⃛ + C_q4 h⁴ q⁗ + O(h⁵), C_q3 = β + δ/2 − 1/6,
//!                                       C_q4 = (½ − β)(δ²/2 + κ) + β((1 + δ)²/2 + κ) − 1/24
//! e_v = C_v2 h² q⃛ + C_v3 h³ q⁗ + O(h⁴),  C_v2 = γ + δ − ½,
//!                                       C_v3 = [(1 − γ) δ² + γ (1 + δ)²]/2 + κ − 1/6
//! ```
//!
//! Generalized-α (Arnold & Brüls 2007, `(1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n`):
//! δ = α_m − α_f, κ = [(1 − α_f) − (1 − α_m)(1 + δ)² − α_m δ²]/2. HHT-α in the index-3 form
//! `M q̈_{n+1} + (1 + α) F_{n+1} − α F_n = 0` has q̈_{n+1} ≈ (1 + α) q̈(t_{n+1}) − α q̈(t_n), the same
//! expansion as generalized-α with α_m = 0, α_f = −α. Plain Newmark: δ = κ = 0, so C_q3 = β − 1/6
//! (Zienkiewicz & Xie's constant), C_q4 = β/2 − 1/24 and C_v3 = γ/2 − 1/6. The trapezoidal rule
//! gives C_q3 = C_v3 = C_q4 = 1/12. The position estimate uses the h⁴ term only where C_q3 vanishes:
//! the linear-acceleration method (β = 1/6), whose position error is then (1/24) h⁴ q⁗.
//!
//! # The estimate
//! The derivatives come from the accelerations of the step and the step before:
//! `h q⃛ ≈ a_{n+1} − a_n` and `q⁗ ≈ 2[(a_{n+1} − a_n)/h − (a_n − a_{n−1})/h_{n−1}]/(h + h_{n−1})`
//! (divided differences, valid for variable steps). On the first step, where a_{n−1} is unknown, the
//! q⁗ term is left out.

use crate::linalg::Vector;

use super::LocalError;

/// |C_q3| below which the position estimate uses the h⁴ term instead.
const C_VANISHES: f64 = 1e-12;

/// The leading local-error constants of a Newmark-type update (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorConstants {
    /// C_q3: position error per h³ q⃛.
    pub c_q3: f64,
    /// C_q4: position error per h⁴ q⁗.
    pub c_q4: f64,
    /// C_v2: velocity error per h² q⃛ (zero for second-order γ).
    pub c_v2: f64,
    /// C_v3: velocity error per h³ q⁗.
    pub c_v3: f64,
}

impl ErrorConstants {
    /// The constants of the Newmark updates (γ, β) with the generalized-α filter (α_m, α_f); HHT-α
    /// is α_m = 0, α_f = −α.
    pub fn newmark(gamma: f64, beta: f64, alpha_m: f64, alpha_f: f64) -> Self {
        let d = alpha_m - alpha_f;
        let kappa = ((1.0 - alpha_f) - (1.0 - alpha_m) * (1.0 + d).powi(2) - alpha_m * d * d) / 2.0;
        ErrorConstants {
            c_q3: beta + d / 2.0 - 1.0 / 6.0,
            c_q4: (0.5 - beta) * (d * d / 2.0 + kappa) + beta * ((1.0 + d).powi(2) / 2.0 + kappa)
                - 1.0 / 24.0,
            c_v2: gamma + d - 0.5,
            c_v3: ((1.0 - gamma) * d * d + gamma * (1.0 + d).powi(2)) / 2.0 + kappa - 1.0 / 6.0,
        }
    }

    /// Writes the estimate of the step of size `h` from the accelerations `a_new` (a_{n+1}), `a`
    /// (a_n) and, when known, `previous = (a_{n−1}, h_{n−1})` into `err` (all vectors n entries).
    pub fn estimate(
        &self,
        h: f64,
        a_new: &Vector,
        a: &Vector,
        previous: Option<(&Vector, f64)>,
        err: &mut LocalError,
    ) {
        for i in 0..a.len() {
            let jump = a_new[i] - a[i];
            let q4 = match previous {
                Some((a_old, h_old)) if h_old > 0.0 => {
                    2.0 * (jump / h - (a[i] - a_old[i]) / h_old) / (h + h_old)
                }
                _ => 0.0,
            };
            // The leading term only: where C_q3 vanishes (linear acceleration), the h⁴ term.
            // Adding the h⁴ term everywhere feeds the divided difference of index-3
            // accelerations into every estimate; on Andrews' squeezer that made the error
            // non-monotone in rtol.
            err.q[i] = if self.c_q3.abs() > C_VANISHES {
                self.c_q3 * h * h * jump
            } else {
                self.c_q4 * h.powi(4) * q4
            };
            err.v[i] = self.c_v2 * h * jump + self.c_v3 * h * h * h * q4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trapezoidal_and_two_half_steps() {
        let c = ErrorConstants::newmark(0.5, 0.25, 0.0, 0.0);
        assert!((c.c_q3 - 1.0 / 12.0).abs() < 1e-15 && c.c_v2 == 0.0);
        assert!((c.c_q4 - 1.0 / 12.0).abs() < 1e-15);
        assert!((c.c_v3 - 1.0 / 12.0).abs() < 1e-15);
        // Generalized-α at ρ∞ = 1 is the trapezoidal rule.
        let (am, af) = (0.5, 0.5);
        let g = ErrorConstants::newmark(0.5, 0.25, am, af);
        assert_eq!(g, c);
    }
}
