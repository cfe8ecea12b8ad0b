//! [`DivergenceWatch`]: stops a run whose energy balance shows that the solution diverged, where the
//! state is still finite (a conditionally stable scheme above its limit, a fixed-step Adams method
//! at an order that is unstable at that step) and the run would otherwise end "completed" with an
//! energy error of 1e200 J.
//!
//! With the balance δ = E − E₀ − W_nc = (T − T₀) + (V − V₀) − W_nc, which is zero on the exact
//! motion, a committed state n fails when both hold:
//!
//! ```text
//! |δ_n|           > max_{m<n} T_m + max_{m<n} |W_m| + (max_{m<n} V_m − min_{m<n} V_m) + r
//! |δ_n − δ_{n−1}| > T_{n−1} + |V_n − V_{n−1}| + |W_n − W_{n−1}| + r
//! ```
//!
//! with r = 8 ε (|E₀| + |V_n| + T_n + |W_n|) for the rounding of the sums. The first says that the
//! error exceeds every energy the run has shown so far (by the triangle inequality
//! |δ| ≤ |T − T₀| + |V − V₀| + |W|, which only an error can exceed), the second that the last interval
//! added more error than all the energy that flowed in it. Neither depends on the zero of the
//! potential, and both bounds are 1, not tuned: each alone misfires (the first on runs that start at
//! rest, the second near equilibrium). The first judged state after the start is only recorded: at
//! a start from rest no energy has been shown yet, and a low-order first step (Adams–Bashforth–
//! Moulton's moves v and not q) makes an error as large as its whole kinetic energy. Only committed
//! states are judged (an interpolated row's error is the interpolation's). A balance, energy or
//! work that is not finite fails the run at once, never reads as zero.

use super::failure::{FailureKind, RunFailure};
use crate::system::Energy;

/// The advice of a divergence in a run at fixed steps.
pub const ADVICE_FIXED_STEP: &str = "reduce the step size (a conditionally stable scheme may be above its limit: see `dynastep stability`), or run with error control (rtol)";

/// The advice of a divergence in a run with error control, which chose its steps (the time loop
/// puts it in place of [`ADVICE_FIXED_STEP`]).
pub const ADVICE_ERROR_CONTROL: &str = "tighten rtol (the error control accepted the steps that diverged), or choose another scheme and formulation (`dynastep compare --auto --rtol R` measures them on the model)";

/// The energies seen so far and the last balance (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct DivergenceWatch {
    /// How many states have been judged (the first is only recorded: see the module documentation).
    judged: usize,
    /// E₀ = T₀ + V₀ \[J\].
    initial: f64,
    /// max T, max |W|, min V and max V over the states diagnosed so far \[J\].
    seen: [f64; 4],
    /// T, V, W and δ of the last diagnosed state \[J\].
    last: [f64; 4],
}

impl DivergenceWatch {
    /// A watch for a run starting with the energy `e0`.
    pub fn new(e0: Energy) -> Self {
        DivergenceWatch {
            judged: 0,
            initial: e0.kinetic + e0.potential,
            seen: [e0.kinetic, 0.0, e0.potential, e0.potential],
            last: [e0.kinetic, e0.potential, 0.0, 0.0],
        }
    }

    /// Judges the state at `t` \[s\] with energy `e`, work of the non-conservative forces `work` and
    /// balance `balance` \[J\], then records it.
    ///
    /// # Errors
    /// A [`FailureKind::NonFinite`] failure when one of them is not finite, a
    /// [`FailureKind::Diverged`] one when the rule of the module documentation holds.
    pub fn check(&mut self, t: f64, e: Energy, work: f64, balance: f64) -> Result<(), RunFailure> {
        let (kinetic, potential) = (e.kinetic, e.potential);
        if ![kinetic, potential, work, balance]
            .iter()
            .all(|x| x.is_finite())
        {
            return Err(RunFailure::new(
                FailureKind::NonFinite,
                format!("at t = {t:.6} s the energy balance is not finite (kinetic {kinetic:e} J, potential {potential:e} J, work {work:e} J): the solution diverged"),
            )
            .advise(ADVICE_FIXED_STEP));
        }
        let [last_t, last_v, last_w, last_d] = self.last;
        let rounding =
            8.0 * f64::EPSILON * (self.initial.abs() + potential.abs() + kinetic + work.abs());
        let [max_t, max_w, min_v, max_v] = self.seen;
        let range = max_t + max_w + (max_v - min_v) + rounding;
        let flow = last_t + (potential - last_v).abs() + (work - last_w).abs() + rounding;
        self.judged += 1;
        if self.judged > 1 && balance.abs() > range && (balance - last_d).abs() > flow {
            return Err(RunFailure::new(
                FailureKind::Diverged,
                format!("at t = {t:.6} s the energy error E − E₀ − W_nc = {balance:.3e} J exceeds every energy the run had shown ({range:.3e} J) and the energy that flowed in the last interval ({flow:.3e} J): the solution diverged"),
            )
            .advise(ADVICE_FIXED_STEP));
        }
        self.seen = [
            max_t.max(kinetic),
            max_w.max(work.abs()),
            min_v.min(potential),
            max_v.max(potential),
        ];
        self.last = [kinetic, potential, work, balance];
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn energy(kinetic: f64, potential: f64) -> Energy {
        Energy { kinetic, potential }
    }

    /// A pendulum that swings (T ↔ V, δ at the rounding level) passes; one whose kinetic energy
    /// jumps to 10⁶ J in a step fails as diverged; a NaN balance fails as not finite.
    #[test]
    fn swinging_passes_blowing_up_fails() {
        let mut w = DivergenceWatch::new(energy(0.0, 0.0));
        for k in 1..100 {
            let t = 0.01 * k as f64;
            let v = -9.81 * (1.0 - (3.0 * t).cos());
            let error = 1e-9 * t;
            assert!(w.check(t, energy(-v + error, v), 0.0, error).is_ok(), "{t}");
        }
        let e = w.check(1.0, energy(1e6, -5.0), 0.0, 1e6).unwrap_err();
        assert_eq!(e.kind, FailureKind::Diverged, "{e}");
        let mut w = DivergenceWatch::new(energy(0.0, 0.0));
        let e = w.check(0.1, energy(1.0, -1.0), 0.0, f64::NAN).unwrap_err();
        assert_eq!(e.kind, FailureKind::NonFinite, "{e}");
    }

    /// From rest near an equilibrium, a balance at the Newton noise (1e-12 J, larger than anything
    /// the run has shown) passes because the step's own flow, not the run's, is the second bound.
    #[test]
    fn noise_at_rest_passes_when_the_flow_covers_it() {
        let mut w = DivergenceWatch::new(energy(0.0, 1.0));
        assert!(w.check(0.01, energy(0.0, 1.0 + 1e-12), 0.0, 1e-12).is_ok());
        assert!(w
            .check(0.02, energy(1e-24, 1.0 - 1e-12), 0.0, -1e-12)
            .is_ok());
    }
}

#[cfg(test)]
mod start_tests {
    use super::*;

    /// The first step of a first-order start from rest: v moves, q does not, and the step's kinetic
    /// energy (3.4e-3 J) is all error while no energy has been shown; then the motion goes on.
    #[test]
    fn a_low_order_start_from_rest_is_not_divergence() {
        let e = |kinetic, potential| Energy { kinetic, potential };
        let mut w = DivergenceWatch::new(e(0.0, -5.3));
        assert!(w.check(0.01, e(3.4e-3, -5.3), 0.0, 3.4e-3).is_ok());
        assert!(w.check(0.02, e(1.4e-2, -5.313), 0.0, 1.0e-3).is_ok());
        assert!(w.check(0.03, e(3.0e-2, -5.33), 0.0, 1.0e-3).is_ok());
        assert!(w.check(0.04, e(5.3e-2, -5.353), 0.0, 1.0e-3).is_ok());
    }
}
