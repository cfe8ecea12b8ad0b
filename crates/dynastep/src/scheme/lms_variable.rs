//! Variable steps for LMS2 and LMS3: the variable-coefficient formulas on the actual grid (the
//! approach of Hairer, Nørsett & Wanner 1993, *Solving Ordinary Differential Equations I*, §III.5)
//! and the step increase each allows.
//!
//! A step h follows steps H_1 = r_1 h (and, for LMS3, H_2 = r_2 h), so that, with t_n = 0 and h = 1,
//! the levels are at τ_1 = 0, τ_2 = −r_1, τ_3 = −r_1 − r_2. The formula keeps the constant step's
//! b_j up to a factor, β_j = s b_j, so that σ keeps its k-fold root at −ρ∞ whatever the ratios: σ
//! governs the stiff and the constrained modes (in index 3 the normal part w of the velocities
//! obeys Σ β_j w_{n+1−j} ≈ 0). The a_j and s make the formula exact for y = 1, t and t²:
//!
//! ```text
//! Σ a_j = 1,   Σ a_j τ_j + s Σ b_j = 1,   Σ a_j τ_j² + 2 s (b_0 + Σ_{j≥1} b_j τ_j) = 1
//! ```
//!
//! LMS2 has three unknowns (a_1, a_2, s). LMS3 has one more than these conditions fix: a_2 is set
//! to its constant-step value times h/H_1, so that it is the constant step's at equal steps and
//! vanishes after a large decrease (the old levels then weigh as little as in LMS2's formula, where
//! a_2 falls as h/H too). Keeping a_2 itself gave the smallest frozen parasitic roots (0.74 at
//! ρ∞ = 0.6 over ratios 0.2 … 1.5, against 1.28 keeping a_1 and 99 keeping a_3) but was unusable:
//! after a rejection the start-up levels' non-smooth part entered the new step with weight 0.65
//! whatever h, so the estimate did not fall with h (the pendulum in the tangent space stopped at
//! h_min at rtol 1e-6 per unit step), and the step oscillated between two sizes with 7–11 % of the
//! steps rejected. With a_2 ∝ h/H_1 the same runs take LMS2's steps with almost no rejections
//! (docs/schemes.md, the `lms3` section). LMS4 is not covered: no pair of kept coefficients of
//! those tried (constant) stayed below 1.5.
//!
//! The parasitic roots of ρ depend on the ratios, so a step may grow by at most
//! [`max_step_increase`]; where it may not grow at all (LMS2 at ρ∞ = 1, LMS3 at ρ∞ ≥ 0.8) a run with
//! `rtol` is refused.

use super::lms::lms_coefficients;

/// Largest step number with a variable-coefficient formula.
pub const K_VARIABLE: usize = 3;

/// The coefficients (a_1 … a_k, β_0 … β_k), zero-padded to 4 and 5 entries, of LMS-k (k = 2, 3)
/// for a step h after steps H_j = `ratios[j − 1]`·h (k − 1 entries used), from the constant-step
/// coefficients `a` and `b` (see the module documentation). At ratios of 1 they are `a` and `b`.
///
/// # Panics
/// When k is not 2 or 3.
pub fn variable_coefficients(
    k: usize,
    a: &[f64; 4],
    b: &[f64; 5],
    ratios: &[f64],
) -> ([f64; 4], [f64; 5]) {
    assert!(
        (2..=K_VARIABLE).contains(&k),
        "variable steps for LMS2 and LMS3 only, not k = {k}"
    );
    let tau2 = -ratios[0];
    let tau3 = if k == 3 { tau2 - ratios[1] } else { 0.0 };
    let sum_b: f64 = b[..=k].iter().sum();
    // Σ_j b_j t_{n+1−j} with t_{n+1} = 1, t_n = 0.
    let s_b = b[0] + b[2] * tau2 + if k == 3 { b[3] * tau3 } else { 0.0 };
    // The last a_k and s from the t and t² conditions (a_2 set for k = 3), then a_1 from Σ a = 1.
    let (tau, kept) = if k == 2 {
        (tau2, 0.0)
    } else {
        (tau3, a[1] / ratios[0])
    };
    let (rhs1, rhs2) = (1.0 - kept * tau2, 1.0 - kept * tau2 * tau2);
    let det = 2.0 * s_b * tau - sum_b * tau * tau;
    let last = (rhs1 * 2.0 * s_b - sum_b * rhs2) / det;
    let s = (tau * rhs2 - tau * tau * rhs1) / det;
    let mut out_a = [0.0; 4];
    out_a[1] = kept;
    out_a[k - 1] = last;
    out_a[0] = 1.0 - out_a[1..k].iter().sum::<f64>();
    let mut out_b = [0.0; 5];
    for j in 0..=k {
        out_b[j] = s * b[j];
    }
    (out_a, out_b)
}

/// The largest modulus of the parasitic roots of ρ(ζ) = ζ^k − Σ a_j ζ^{k−j} (k = 2, 3; Σ a_j = 1,
/// so ρ = (ζ − 1)·p(ζ)): for k = 2 p = ζ + a_2, for k = 3 p = ζ² + (1 − a_1) ζ + a_3.
fn parasitic_radius(k: usize, a: &[f64; 4]) -> f64 {
    if k == 2 {
        return a[1].abs();
    }
    let (p1, p0) = (1.0 - a[0], a[2]);
    let disc = p1 * p1 - 4.0 * p0;
    if disc >= 0.0 {
        let r = disc.sqrt();
        (0.5 * (-p1 + r)).abs().max((0.5 * (-p1 - r)).abs())
    } else {
        p0.sqrt()
    }
}

/// Step ratios ω = h/H on which [`max_step_increase`] judges the formula, besides the increase ω
/// itself: decreases down to the controller's 1/5, and the constant step.
const DECREASES: [f64; 5] = [0.2, 0.35, 0.5, 0.7, 1.0];

/// The largest frozen parasitic radius of LMS-k at ρ∞ over every combination of k − 1 successive
/// ratios from [`DECREASES`] and ω.
fn worst_radius(k: usize, rho_inf: f64, omega: f64) -> f64 {
    let (a, b) = lms_coefficients(k, rho_inf);
    let mut grid = [omega; DECREASES.len() + 1];
    grid[..DECREASES.len()].copy_from_slice(&DECREASES);
    let mut worst = 0.0_f64;
    for &w0 in &grid {
        for &w1 in if k == 3 { &grid[..] } else { &grid[..1] } {
            // ω_j = h_j / h_{j−1}: H_1 = h/ω_0, H_2 = H_1/ω_1.
            let ratios = [1.0 / w0, 1.0 / (w0 * w1)];
            let (av, _) = variable_coefficients(k, &a, &b, &ratios);
            worst = worst.max(parasitic_radius(k, &av));
        }
    }
    worst
}

/// Largest factor ω = h/H by which LMS-k (k = 2, 3) at ρ∞ lets its step grow: at most 2 (the usual
/// bound of variable-step BDF2, zero-stable below 1 + √2), lowered until the frozen parasitic roots
/// of ρ, over every sequence of k − 1 ratios from 1/5 to ω, stay within the larger of 0.8 and what
/// the decreases alone give. LMS2: 2 up to ρ∞ = 0.6, 1 at ρ∞ = 1 (its constant-step parasitic root
/// is on the unit circle); LMS3: 2 at ρ∞ = 0.3, 1.25 at 0.6, 1 from 0.8 on.
///
/// # Panics
/// When k is not 2 or 3.
pub fn max_step_increase(k: usize, rho_inf: f64) -> f64 {
    let bound = worst_radius(k, rho_inf, 1.0).max(0.8);
    if worst_radius(k, rho_inf, 2.0) <= bound {
        return 2.0;
    }
    let (mut lo, mut hi) = (1.0, 2.0);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if worst_radius(k, rho_inf, mid) <= bound {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formulas integrate y = t² exactly on uneven grids (order 2), give the constant-step
    /// coefficients at equal steps, and keep σ ∝ (ζ + ρ∞)^k.
    #[test]
    fn variable_coefficients_are_exact_for_quadratics() {
        let y = |t: f64| 0.7 - 1.3 * t + 2.1 * t * t;
        let dy = |t: f64| -1.3 + 4.2 * t;
        for k in 2..=3 {
            for rho in [0.0, 0.3, 0.6, 0.9] {
                let (a_c, b_c) = lms_coefficients(k, rho);
                let (a, b) = variable_coefficients(k, &a_c, &b_c, &[1.0, 1.0]);
                for j in 0..4 {
                    assert!((a[j] - a_c[j]).abs() < 1e-13, "k {k}, ρ {rho}: a {a:?}");
                }
                for j in 0..5 {
                    assert!((b[j] - b_c[j]).abs() < 1e-13, "k {k}, ρ {rho}: b {b:?}");
                }
                for ratios in [[0.2, 1.0], [0.5, 3.0], [1.7, 0.4], [5.0, 5.0]] {
                    let h = 0.3;
                    let (a, b) = variable_coefficients(k, &a_c, &b_c, &ratios);
                    let t = [h, 0.0, -ratios[0] * h, -(ratios[0] + ratios[1]) * h];
                    let lhs = y(t[0]) - (1..=k).map(|j| a[j - 1] * y(t[j])).sum::<f64>();
                    let rhs = h * (0..=k).map(|j| b[j] * dy(t[j])).sum::<f64>();
                    assert!(
                        (lhs - rhs).abs() < 1e-12,
                        "k {k}, ρ {rho}, {ratios:?}: {lhs} vs {rhs}"
                    );
                    for j in 0..=k {
                        assert!(
                            (b[j] * b_c[0] - b[0] * b_c[j]).abs() < 1e-13,
                            "σ ∝ b: {b:?}"
                        );
                    }
                }
            }
        }
    }

    /// The increase each allows: 2 where the frozen roots stay small (LMS2 up to ρ∞ = 0.6, LMS3 at
    /// 0.3), less above, none for LMS2 at ρ∞ = 1 and LMS3 at 0.9; and at the limit the roots are
    /// within the bound.
    #[test]
    fn step_increases_keep_the_parasitic_roots_bounded() {
        assert_eq!(max_step_increase(2, 0.6), 2.0);
        assert_eq!(max_step_increase(3, 0.3), 2.0);
        assert!((max_step_increase(2, 1.0) - 1.0).abs() < 1e-6);
        assert!((max_step_increase(3, 0.9) - 1.0).abs() < 1e-6);
        for k in 2..=3 {
            for rho in [0.0, 0.3, 0.6, 0.7, 0.9] {
                let w = max_step_increase(k, rho);
                assert!((1.0..=2.0).contains(&w), "k {k}, ρ {rho}: ω {w}");
                let bound = worst_radius(k, rho, 1.0).max(0.8);
                assert!(
                    worst_radius(k, rho, w) <= bound + 1e-12,
                    "k {k}, ρ {rho}: ω {w}"
                );
                assert!(
                    bound < 1.0 || (k == 2 && rho == 1.0),
                    "k {k}, ρ {rho}: {bound}"
                );
            }
        }
    }
}
