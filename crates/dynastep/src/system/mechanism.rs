//! What a mechanism reports besides its equations: where it starts, its named bodies, markers,
//! joints and drivers, and the values of each at a state.
//!
//! The consumers of a built model (the simulation, the history columns, `summary.json`, the CLI's
//! assembly report) work through this trait and [`System`], never through a concrete system, so a
//! new kind of mechanism (planar, spatial) adds an implementation, not branches in the consumers.
//! Each kind names its own columns: a planar body writes `x, y, theta, vx, vy, omega`, a spatial one
//! its centroid and Euler parameters with their rates.

use super::equations::EquationSystem;
use super::System;
use crate::linalg::Vector;
use crate::state::GivenValues;
use crate::state::State;

/// A built model: a [`System`] with named parts that the outputs report.
///
/// Every `push_*` method appends exactly as many values to `out` as the matching `*_columns`
/// method names, in that order, and allocates nothing once `out` has the capacity.
pub trait Mechanism: System {
    /// The initial state at time `t0` \[s\] from the model: q and v (n entries) from the bodies'
    /// poses and velocities, a (n) and λ (m) zero. Generally not consistent: pass it to
    /// [`crate::analysis::assembly::assemble`].
    fn initial_state(&self, t0: f64) -> State;

    /// The coordinates and velocities marked as given in the model (n entries each), which
    /// assembly holds.
    fn given_values(&self) -> GivenValues;

    /// The equation-based part, when the model is one (`[equations]`): its coordinates get their
    /// own history columns.
    fn equations(&self) -> Option<&EquationSystem> {
        None
    }

    /// Names of the moving bodies, in model order.
    fn body_names(&self) -> Vec<&str>;

    /// Column suffixes of body `b`'s pose, then of its velocity (e.g. `x, y, theta` and
    /// `vx, vy, omega`).
    fn body_columns(&self, b: usize) -> (&'static [&'static str], &'static [&'static str]);

    /// Appends the pose of body `b`'s frame at q (n entries) to `out`, one value per pose column
    /// \[m, rad or Euler parameters\].
    fn push_body_pose(&self, b: usize, q: &Vector, out: &mut Vec<f64>);

    /// Appends the velocity of body `b`'s frame at q, v (n entries) to `out`, one value per
    /// velocity column \[m/s, rad/s\].
    fn push_body_velocity(&self, b: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>);

    /// How far body `b`'s frame moved between q0 and q1 (n entries each): the distance of its
    /// origin \[m\] and the angle of the rotation between the two orientations \[rad\].
    fn body_displacement(&self, b: usize, q0: &Vector, q1: &Vector) -> (f64, f64);

    /// Names of the markers, in model order.
    fn marker_names(&self) -> Vec<&str>;

    /// Column suffixes of marker `k`'s position (and orientation), then of its velocity.
    fn marker_columns(&self, k: usize) -> (&'static [&'static str], &'static [&'static str]);

    /// Appends marker `k`'s global position at q (n entries) to `out` \[m\].
    fn push_marker_position(&self, k: usize, q: &Vector, out: &mut Vec<f64>);

    /// Appends marker `k`'s global velocity at q, v (n entries) to `out` \[m/s\].
    fn push_marker_velocity(&self, k: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>);

    /// Names of the joints, in model order.
    fn joint_names(&self) -> Vec<&str>;

    /// Column suffixes of joint `k`'s reaction in the history (global components, then joint-frame
    /// components where the kind defines a joint frame).
    fn joint_columns(&self, k: usize) -> &'static [&'static str];

    /// Appends the reaction of joint `k` on its body j at q (n) and λ (m), one value per
    /// [`Mechanism::joint_columns`] entry \[N, N m\].
    fn push_joint_history(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>);

    /// Appends the reaction of joint `k` on its body j in global axes to `out`: the force \[N\],
    /// then the torque about the joint point \[N m\] (planar: `f_x, f_y, τ`; spatial: three and
    /// three).
    fn push_joint_reaction(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>);

    /// Names of the drivers, in model order.
    fn driver_names(&self) -> Vec<&str>;

    /// `"torque"` when driver `k` prescribes an angle, `"force"` when it prescribes a length.
    fn driver_unit(&self, k: usize) -> &'static str;

    /// The generalized force of driver `k` from λ (m entries): the torque \[N m\] or force \[N\]
    /// an actuator applies in the direction in which the driven quantity grows (−λ of its row).
    fn driver_effort(&self, k: usize, lambda: &Vector) -> f64;

    /// Names of the history columns of the force elements that report internal loads (a beam's
    /// section forces and moments), in model order; none by default.
    fn element_load_columns(&self) -> Vec<String> {
        Vec::new()
    }

    /// Appends the values of [`Mechanism::element_load_columns`] at q, v (n entries each), one
    /// per column \[N, N m\].
    fn push_element_loads(&self, _q: &Vector, _v: &Vector, _out: &mut Vec<f64>) {}
}
