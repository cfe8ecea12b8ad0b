//! The derivatives of the motion above the acceleration at a consistent state, the jerk and the
//! snap, for schemes that carry them: the consistent start of G4 and G5 (Fernández de Bustos,
//! Uriarte, Urkullu & Coria 2024, Mathematics 12:2862, sections 5.2–5.3), offered beside the
//! paper's start, which takes both as zero.
//!
//! Along the exact motion a(t) = A(t, q(t), v(t)), where A solves the index-1 equations
//! `[M Φ_qᵀ; Φ_q 0] [a; λ] = [Q; γ]` ([`consistent_accelerations`]). On the Taylor path
//!
//! ```text
//! q(s) = q₀ + s v₀ + s²/2 a₀ + s³/6 j,   v(s) = v₀ + s a₀ + s²/2 j,   t = t₀ + s
//! ```
//!
//! f(s) = A(t₀ + s, q(s), v(s)) has f′(0) = the jerk whatever j is (only q′(0) = v₀ and v′(0) = a₀
//! enter), and f″(0) = the snap once j is the jerk (v″(0) = j enters). Central differences of step
//! ε give both with an error O(ε²): the jerk first on the path with j = 0, then the snap on the
//! path with that jerk.

use crate::linalg::Vector;
use crate::state::State;
use crate::system::System;

use super::assembly::consistent_accelerations;

/// The first `count` derivatives of the coordinates above the acceleration at `x0` (t, n
/// coordinates, m multipliers; its q and v consistent): the jerk (n entries) \[unit/s³\], and for
/// `count` ≥ 2 the snap \[unit/s⁴\], by central differences of step `eps` \[s\] along the Taylor
/// path of the module documentation (error O(ε²)). Derivatives beyond the snap are not computed:
/// at most two vectors are returned.
///
/// Allocates (it runs once per start, not per step). A singular saddle-point matrix gives the
/// least-squares accelerations, as at assembly.
pub fn start_derivatives<S: System>(sys: &S, x0: &State, eps: f64, count: usize) -> Vec<Vector> {
    let n = sys.n();
    let mut a0 = x0.clone();
    consistent_accelerations(sys, &mut a0);
    let along = |s: f64, jerk: &Vector| -> Vector {
        let mut x = x0.clone();
        x.t = x0.t + s;
        x.q = &x0.q + s * &x0.v + (0.5 * s * s) * &a0.a + (s * s * s / 6.0) * jerk;
        x.v = &x0.v + s * &a0.a + (0.5 * s * s) * jerk;
        consistent_accelerations(sys, &mut x);
        x.a
    };
    let zero = Vector::zeros(n);
    let jerk = (along(eps, &zero) - along(-eps, &zero)) / (2.0 * eps);
    let mut out = vec![jerk];
    if count >= 2 {
        let snap = (along(eps, &out[0]) - 2.0 * &a0.a + along(-eps, &out[0])) / (eps * eps);
        out.push(snap);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::test_problems::AnglePendulum;

    /// The one-angle pendulum θ̈ = −(g/l) sin θ: the jerk −(g/l) cos θ θ̇ and the snap
    /// (g/l) sin θ θ̇² − (g/l) cos θ θ̈, from the chain rule.
    #[test]
    fn pendulum_jerk_and_snap_match_the_chain_rule() {
        let sys = AnglePendulum {
            mass: 1.0,
            length: 1.0,
            g: 9.81,
        };
        let mut x = State::zeros(0.0, 1, 0);
        (x.q[0], x.v[0]) = (1.0, 1.0);
        consistent_accelerations(&sys, &mut x);
        let (th, w, acc) = (1.0_f64, 1.0_f64, x.a[0]);
        assert!((acc + 9.81 * th.sin()).abs() < 1e-12);
        let jerk = -9.81 * th.cos() * w;
        let snap = 9.81 * th.sin() * w * w - 9.81 * th.cos() * acc;
        for eps in [1e-2, 1e-3] {
            let d = start_derivatives(&sys, &x, eps, 2);
            let (ej, es) = ((d[0][0] - jerk).abs(), (d[1][0] - snap).abs());
            println!("eps {eps:e}: jerk error {ej:.2e}, snap error {es:.2e}");
            assert!(ej < 10.0 * eps * eps * jerk.abs().max(1.0), "jerk {ej}");
            assert!(es < 10.0 * eps * eps * snap.abs().max(1.0), "snap {es}");
        }
    }
}
