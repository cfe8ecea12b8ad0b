//! The Newton starting values of the implicit families, section 3.1 of Zhang, Zhang, Zanoni &
//! Masarati (2022), *Performance of implicit A-stable time integration methods for multibody system
//! dynamics*, Multibody Syst Dyn, applied at the velocity level (ẏ = a):
//!
//! ```text
//! a⁽⁰⁾ = (m0 v_{N−1} + m1 v_{N−2})/(t_N − t_{N−1}) + n0 a_{N−1} + n1 a_{N−2}                (12)
//! α = (t_N − t_{N−1})/(t_{N−1} − t_{N−2}),  m0 = −6α²(1 + α), m1 = −m0,
//! n0 = (1 + α)(1 + 3α),  n1 = α(2 + 3α)                                                    (14)
//! ```
//!
//! second order; with one known level the constant prediction a⁽⁰⁾ = a_{N−1} (eq. 15). λ starts from
//! its linear extrapolation λ_{N−1} + α(λ_{N−1} − λ_{N−2}) while
//! [`IntegrationPoint::extrapolate_multipliers`] allows it, else from λ_{N−1}.
//!
//! The extrapolation saves modified Newton factorizations (the ESDIRKs on Andrews' squeezer:
//! MSSTC(5) 0.46 per step with it, 1.3 without; full Newton's counts do not change). It must stop
//! with redundant constraints: λ is then determined only up to the left null space of Φ_q, the
//! least-squares Newton corrections never remove a component there, and the extrapolation fed one
//! in at every step as that null space turned with the configuration. On Bricard's mechanism the
//! equilibrium residual stalled at ~1e-7 and LMS2, LMS3 and SS2 stopped within 2 s (h = 1e-3 s).
//! The time loop clears the flag at the first least-squares solve. On the sparse path, which solves
//! such matrices with their null space's unknowns pinned (`linalg/pinned.rs`, the same
//! minimum-norm corrections), the index-3 formulation keeps the extrapolation but resets the
//! start's component along the null vector μ of the last factored matrix to that of the last
//! solved λ (`Workspace::keep_null_component`): only the start moves, the extrapolation no longer
//! walks λ along μ, and modified Newton keeps its good start. History on Bricard (h = 1e-3 s):
//! extrapolated past pinned solves, λ's component along μ drove the reactions from 28 N to 1 200 N
//! in 10 s, the motion unchanged; removing that component from each *solved* λ changed
//! ESDIRK4(3)6L's solution at rtol 1e-4 (error at t = 1 s 3.2e-3 instead of 7.7e-5: at large steps
//! μ is not null at the solved configuration, and the removal changed Φ_qᵀλ); stopping the
//! extrapolation made generalized-α with modified Newton refresh its matrix at 8 675 of 10 000
//! steps (690 with the start's component reset).

use super::{History, IntegrationPoint, State};
use crate::linalg::{copy, Vector};

/// One known level for the predictor: velocities, accelerations (n entries) and multipliers (m).
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// v at the level \[m/s, rad/s\] (n).
    pub v: &'a Vector,
    /// a at the level \[m/s², rad/s²\] (n).
    pub a: &'a Vector,
    /// λ at the level (m).
    pub lambda: &'a Vector,
}

impl<'a> Known<'a> {
    /// The level of a complete state.
    pub fn of(x: &'a State) -> Self {
        Known {
            v: &x.v,
            a: &x.a,
            lambda: &x.lambda,
        }
    }
}

/// Writes the Newton starting values `u_guess` (n) and `lambda_guess` (m) of `pt`: eqs. (12)–(14)
/// from the levels t_{N−1} (`last`) and t_{N−2} (`before`) with `dt` = t_N − t_{N−1} \[s\] and
/// α = dt/(t_{N−1} − t_{N−2}), or eq. (15) from `last` alone when `before` is `None`.
pub fn predict(
    pt: &mut IntegrationPoint,
    last: Known<'_>,
    before: Option<(Known<'_>, f64)>,
    dt: f64,
) {
    let Some((old, alpha)) = before else {
        constant_start(pt, last);
        return;
    };
    let m0 = -6.0 * alpha * alpha * (1.0 + alpha);
    let (m1, n0, n1) = (
        -m0,
        (1.0 + alpha) * (1.0 + 3.0 * alpha),
        alpha * (2.0 + 3.0 * alpha),
    );
    let v = last.v.as_slice().iter().zip(old.v.as_slice());
    let a = last.a.as_slice().iter().zip(old.a.as_slice());
    for (u, ((v1, v2), (a1, a2))) in pt.u_guess.as_mut_slice().iter_mut().zip(v.zip(a)) {
        *u = (m0 * v1 + m1 * v2) / dt + n0 * a1 + n1 * a2;
    }
    if pt.extrapolate_multipliers {
        let lambda = last.lambda.as_slice().iter().zip(old.lambda.as_slice());
        for (l, (l1, l2)) in pt.lambda_guess.as_mut_slice().iter_mut().zip(lambda) {
            *l = l1 + alpha * (l1 - l2);
        }
    } else {
        copy(&mut pt.lambda_guess, last.lambda);
    }
}

/// The constant start of eq. (15), u = a and λ = λ of `last`, written into `pt`'s guesses: where
/// [`crate::scheme::Scheme::constant_guess`] restarts a point whose extrapolated start failed.
pub fn constant_start(pt: &mut IntegrationPoint, last: Known<'_>) {
    copy(&mut pt.u_guess, last.a);
    copy(&mut pt.lambda_guess, last.lambda);
}

/// [`crate::scheme::Scheme::constant_guess`] of a scheme that extrapolates from the last two
/// levels of its `history` while `extrapolation` holds (LMS, SS): the constant start from the
/// last level, and no more extrapolation; false when the start was not extrapolated.
pub fn levels_constant_guess(
    history: &History,
    extrapolation: &mut bool,
    pt: &mut IntegrationPoint,
) -> bool {
    if !(*extrapolation && history.filled >= 2) {
        return false;
    }
    constant_start(pt, Known::of(&history.levels[0]));
    *extrapolation = false;
    true
}

/// Fills the affine maps of the one integration point of a scheme in first-order form y = \[q; v\]
/// with unknown u = a_N at t_N (an LMS-k or SS-k step, an ESDIRK stage): q = q̂ + c_v² u,
/// v = v̂ + c_v u, a = u; equilibrium and position constraints both at t_N, no history residual.
/// `q_hat`, `v_hat` have n entries; `c_v` \[s\] is h b0 (h γ for an ESDIRK stage).
pub fn first_order_point(
    pt: &mut IntegrationPoint,
    t_n1: f64,
    q_hat: &Vector,
    v_hat: &Vector,
    c_v: f64,
) {
    pt.q_hat.copy_from(q_hat);
    pt.v_hat.copy_from(v_hat);
    first_order_maps(pt, t_n1, c_v);
}

/// [`first_order_point`] for a point whose `q_hat` and `v_hat` (n each) the caller has already
/// written into `pt`.
pub fn first_order_maps(pt: &mut IntegrationPoint, t_n1: f64, c_v: f64) {
    pt.t_e = t_n1;
    pt.t_c = t_n1;
    pt.a_hat.fill(0.0);
    pt.qc_hat.copy_from(&pt.q_hat);
    pt.c_v = c_v;
    pt.c_q = c_v * c_v;
    pt.c_a = 1.0;
    pt.c_c = pt.c_q;
    pt.force_weight = 1.0;
    pt.has_history_residual = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eqs. (12)–(14) are exact for a cubic velocity v(t) = t³ at any step ratio α.
    #[test]
    fn second_order_prediction_is_exact_for_a_cubic_velocity() {
        for alpha in [0.5, 1.0, 2.0] {
            let (t2, t1) = (-1.0 / alpha, 0.0);
            let dt = 1.0;
            let v = |t: f64| t * t * t;
            let a = |t: f64| 3.0 * t * t;
            let vec = |x: f64| Vector::from_element(1, x);
            let (v1, a1, v2, a2, l) = (vec(v(t1)), vec(a(t1)), vec(v(t2)), vec(a(t2)), vec(0.0));
            let mut pt = IntegrationPoint::new(1, 1);
            let last = Known {
                v: &v1,
                a: &a1,
                lambda: &l,
            };
            let old = Known {
                v: &v2,
                a: &a2,
                lambda: &l,
            };
            predict(&mut pt, last, Some((old, alpha)), dt);
            assert!(
                (pt.u_guess[0] - a(t1 + dt)).abs() < 1e-12,
                "α = {alpha}: {}",
                pt.u_guess[0]
            );
        }
    }
}
