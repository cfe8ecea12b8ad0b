//! The Newton stopping test every formulation shares ([`NewtonTest`]): a position correction is
//! converged at `position_tol · (1 + ‖q‖∞)`, a residual at `residual_tol` times the size of its
//! terms, and after an update with an older iteration matrix the error left, η·δ with
//! η = θ/(1 − θ) (Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*, §IV.8), must
//! be below [`MODIFIED_KAPPA`] · `position_tol`.

use super::{norm_inf, Vector};

/// Modified Newton stops when the error left, η·δ with η = θ/(1−θ) and δ the largest relative
/// change of the last update (positions c_c Δu, velocities c_v Δu and multipliers Δλ, each relative
/// to 1 + its size), is below this fraction of `position_tol`. The velocities and multipliers are in
/// the test because a position error ε is an error ε/c_c in the unknown (an acceleration for
/// Newmark's family, c_c = βh²): a test on positions alone loosened Andrews' squeezer at h = 2.5e-6
/// to first order. The fraction is small because a full Newton step, whose error is quadratic in its
/// correction, leaves far less than the tolerance it checks; 1e-3 keeps the accuracy results of
/// the test suite (measured).
pub const MODIFIED_KAPPA: f64 = 1e-3;

/// A relative change at this multiple of the machine epsilon is rounding: nothing is left to
/// converge.
pub const ROUNDING: f64 = 8.0 * f64::EPSILON;

/// Consecutive updates whose position correction must lie within the position tolerance before a
/// residual above its tolerance is accepted as the floor of the iteration ([`FloorWatch`]).
pub const FLOOR_UPDATES: usize = 3;

/// Consecutive updates that must stagnate within [`FLOOR_CORRECTION`] times the position tolerance
/// ([`FloorWatch`]).
pub const STAGNATION_UPDATES: usize = 5;

/// How far above the position tolerance stagnating corrections may lie and still be the floor.
pub const FLOOR_CORRECTION: f64 = 100.0;

/// Stagnating corrections have not fallen below 1/`FLOOR_CONTRACTION` of the first of their run:
/// a Newton iteration still converging, even linearly at a rate of 0.5, falls further in
/// [`STAGNATION_UPDATES`] updates.
pub const FLOOR_CONTRACTION: f64 = 10.0;

/// The largest residual, in multiples of `residual_tol` times the size of its terms, that the
/// floor test accepts.
pub const FLOOR_RESIDUAL: f64 = 1e3;

/// The recent position corrections of one Newton iteration, watched for the floor the iteration
/// can reach. Near a singular configuration (a four-bar chain passing its flat position) the
/// positions are determined only to about ε‖q‖/σ_min(Φ_q), and a point at a small step turns
/// that into an equilibrium residual of about ‖M‖ ε‖q‖/(σ_min c_q): more iterations only move
/// the noise. Measured: the N = 40 chain at h = 2.5e-4 s (corrections 1.5e-9 m, within the
/// tolerance of 4e-9 m; residual 1e-4 N against a tolerance of 2e-7 N), and the double four-bar
/// in stabilized index 2 at rtol 1e-10 (corrections 1e-10 … 3e-10 m against a tolerance of
/// 7e-12 m, steps down to 1e-11 s).
///
/// The floor is reached when the residual has stopped falling (the last is at least
/// 1/[`FLOOR_CONTRACTION`] of the one two updates before: a converging iteration, modified Newton
/// at its contraction limit of 0.03 included, falls further) and either the last
/// [`FLOOR_UPDATES`] corrections all lay within the position tolerance, or the last
/// [`STAGNATION_UPDATES`] lay within [`FLOOR_CORRECTION`] times it without falling below
/// 1/[`FLOOR_CONTRACTION`] of the first of them; the residual must then be within
/// [`FLOOR_RESIDUAL`] times its tolerance ([`NewtonTest::at_floor`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FloorWatch {
    /// Consecutive corrections within the position tolerance.
    within: usize,
    /// Consecutive corrections within `FLOOR_CORRECTION` times it.
    near: usize,
    /// The first correction of that run.
    first: f64,
    /// The smallest correction of that run.
    smallest: f64,
    /// The residuals after the last three updates, the newest last.
    residuals: [f64; 3],
}

impl FloorWatch {
    /// Records the correction of an update, with the position tolerance and the residual at its
    /// result.
    pub fn record(&mut self, correction: f64, tolerance: f64, residual: f64) {
        self.residuals = [self.residuals[1], self.residuals[2], residual];
        self.within = if correction <= tolerance {
            self.within + 1
        } else {
            0
        };
        if correction <= FLOOR_CORRECTION * tolerance {
            if self.near == 0 {
                self.first = correction;
                self.smallest = correction;
            }
            self.near += 1;
            self.smallest = self.smallest.min(correction);
        } else {
            self.near = 0;
        }
    }

    /// Whether the corrections have settled at the floor and the residual stopped falling (see the
    /// type's documentation).
    pub fn settled(&self) -> bool {
        let [earlier, _, last] = self.residuals;
        let residual_stalled = last * FLOOR_CONTRACTION >= earlier;
        residual_stalled
            && (self.within >= FLOOR_UPDATES
                || (self.near >= STAGNATION_UPDATES
                    && self.smallest * FLOOR_CONTRACTION >= self.first))
    }
}

/// The two tolerances of a Newton iteration and the tests made of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonTest {
    /// Tolerance on a position correction, relative to 1 + ‖q‖∞.
    pub position_tol: f64,
    /// Tolerance on a residual, relative to the size of its terms.
    pub residual_tol: f64,
}

impl NewtonTest {
    /// The largest converged position correction at the positions `q` (n):
    /// `position_tol · (1 + ‖q‖∞)` \[m or rad, as q\].
    pub fn position_tolerance(&self, q: &Vector) -> f64 {
        self.position_tol * (1.0 + norm_inf(q))
    }

    /// Whether a residual of size `residual` is converged, `scale` being the size of its terms.
    pub fn balanced(&self, residual: f64, scale: f64) -> bool {
        residual <= self.residual_tol * scale
    }

    /// Whether a residual that misses [`Self::balanced`] is the floor the iteration can reach: the
    /// corrections have settled there (`watch`) and the residual is within [`FLOOR_RESIDUAL`]
    /// times its tolerance.
    pub fn at_floor(&self, residual: f64, scale: f64, watch: &FloorWatch) -> bool {
        watch.settled() && residual <= FLOOR_RESIDUAL * self.residual_tol * scale
    }

    /// Whether the error left after an update is small: always after a full Newton step
    /// (`fresh`: its error is quadratic in its correction), else when η times the relative change
    /// `change` is below [`MODIFIED_KAPPA`] · `position_tol`, or the change is rounding.
    pub fn settled(&self, fresh: bool, eta: f64, change: f64) -> bool {
        fresh || eta * change <= MODIFIED_KAPPA * self.position_tol || change <= ROUNDING
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_settled_corrections_or_stagnation_not_convergence() {
        // Residuals of noise (not falling), as at the floor.
        let watch = |corrections: &[f64]| {
            let mut w = FloorWatch::default();
            let noise = [3e-5, 1e-5, 4e-5, 2e-5];
            for (k, &c) in corrections.iter().enumerate() {
                w.record(c, 1e-9, noise[k % 4]);
            }
            w.settled()
        };
        // Within the tolerance three times in a row.
        assert!(watch(&[1e-3, 5e-10, 8e-10, 3e-10]));
        assert!(!watch(&[5e-10, 8e-10, 2e-9, 3e-10]));
        // Above it but stagnating: five corrections of the same size (the double four-bar's).
        assert!(watch(&[3e-8, 4e-8, 2e-8, 3e-8, 3e-8]));
        assert!(!watch(&[3e-8, 4e-8, 2e-8, 3e-8]));
        // Converging linearly at a rate of 0.5 is not stagnating.
        assert!(!watch(&[8e-8, 4e-8, 2e-8, 1e-8, 5e-9, 2.5e-9]));
        // Too far above the tolerance to be a floor.
        assert!(!watch(&[3e-6; 8]));
        // Settled corrections while the residual still falls (modified Newton converging).
        let mut w = FloorWatch::default();
        for (c, r) in [(5e-10, 1e-3), (3e-10, 3e-5), (2e-10, 1e-6), (1e-10, 3e-8)] {
            w.record(c, 1e-9, r);
        }
        assert!(!w.settled());
        // The residual must still be near its tolerance.
        let test = NewtonTest {
            position_tol: 1e-10,
            residual_tol: 1e-8,
        };
        let mut w = FloorWatch::default();
        (0..3).for_each(|_| w.record(1e-10, 1e-9, 9e-5));
        assert!(test.at_floor(9e-5, 10.0, &w));
        assert!(!test.at_floor(2e-4, 10.0, &w));
    }
}
