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
/// residual above its tolerance is accepted as the floor of the iteration ([`NewtonTest::at_floor`]).
pub const FLOOR_UPDATES: usize = 3;

/// The largest residual, in multiples of `residual_tol` times the size of its terms, that
/// [`NewtonTest::at_floor`] accepts.
pub const FLOOR_RESIDUAL: f64 = 1e3;

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
    /// last `settled_updates` position corrections all lay within the position tolerance (at least
    /// [`FLOOR_UPDATES`] of them), and the residual is within [`FLOOR_RESIDUAL`] times its
    /// tolerance. Near a singular configuration (the N-four-bar passing its flat position) the
    /// positions are determined only to about ε‖q‖/σ_min(Φ_q); an index-3 point at a small step
    /// turns that into an equilibrium residual of ‖M‖ ε‖q‖/(σ_min c_q), which at h = 2.5e-4 on the
    /// N = 40 chain is 1e-4 N while the corrections stay at 1.5e-9 m, within the tolerance of
    /// 4e-9 m: more iterations only move the noise.
    pub fn at_floor(&self, residual: f64, scale: f64, settled_updates: usize) -> bool {
        settled_updates >= FLOOR_UPDATES && residual <= FLOOR_RESIDUAL * self.residual_tol * scale
    }

    /// Whether the error left after an update is small: always after a full Newton step
    /// (`fresh`: its error is quadratic in its correction), else when η times the relative change
    /// `change` is below [`MODIFIED_KAPPA`] · `position_tol`, or the change is rounding.
    pub fn settled(&self, fresh: bool, eta: f64, change: f64) -> bool {
        fresh || eta * change <= MODIFIED_KAPPA * self.position_tol || change <= ROUNDING
    }
}
