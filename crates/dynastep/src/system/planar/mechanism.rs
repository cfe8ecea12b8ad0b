//! The planar system's named outputs ([`Mechanism`]): body frames as `(x, y, θ)`, markers and
//! reactions in the plane, joint-frame reaction components.

use super::{Body, PlanarSystem};
use crate::linalg::Vector;
use crate::state::GivenValues;
use crate::state::State;
use crate::system::mechanism::Mechanism;

const RIGID_POSE: &[&str] = &["x", "y", "theta"];
const RIGID_VELOCITY: &[&str] = &["vx", "vy", "omega"];
const POINT_POSE: &[&str] = &["x", "y"];
const POINT_VELOCITY: &[&str] = &["vx", "vy"];
const REACTION: &[&str] = &["fx", "fy", "fx_joint", "fy_joint"];
const REACTION_TORQUE: &[&str] = &["fx", "fy", "torque", "fx_joint", "fy_joint"];

impl Mechanism for PlanarSystem {
    fn initial_state(&self, t0: f64) -> State {
        PlanarSystem::initial_state(self, t0)
    }

    fn given_values(&self) -> GivenValues {
        PlanarSystem::given_values(self)
    }

    fn body_names(&self) -> Vec<&str> {
        PlanarSystem::body_names(self)
    }

    fn body_columns(&self, b: usize) -> (&'static [&'static str], &'static [&'static str]) {
        match self.body(b) {
            Body::Point(_) => (POINT_POSE, POINT_VELOCITY),
            Body::Rigid(_) => (RIGID_POSE, RIGID_VELOCITY),
        }
    }

    fn push_body_pose(&self, b: usize, q: &Vector, out: &mut Vec<f64>) {
        let p = self.body_pose(b, q);
        let k = self.body_columns(b).0.len();
        out.extend_from_slice(&p[..k]);
    }

    fn push_body_velocity(&self, b: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        let w = self.body_velocity(b, q, v);
        let k = self.body_columns(b).1.len();
        out.extend_from_slice(&w[..k]);
    }

    fn body_displacement(&self, b: usize, q0: &Vector, q1: &Vector) -> (f64, f64) {
        let (p0, p1) = (self.body_pose(b, q0), self.body_pose(b, q1));
        ((p1[0] - p0[0]).hypot(p1[1] - p0[1]), (p1[2] - p0[2]).abs())
    }

    fn marker_names(&self) -> Vec<&str> {
        PlanarSystem::marker_names(self)
    }

    fn marker_columns(&self, _k: usize) -> (&'static [&'static str], &'static [&'static str]) {
        (POINT_POSE, POINT_VELOCITY)
    }

    fn push_marker_position(&self, k: usize, q: &Vector, out: &mut Vec<f64>) {
        let mk = &self.markers[k];
        let f = mk.body.frame(q);
        let a = f.rot(mk.s);
        out.extend_from_slice(&[f.r[0] + a[0], f.r[1] + a[1]]);
    }

    fn push_marker_velocity(&self, k: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        out.extend_from_slice(&self.marker_state(k, q, v).1);
    }

    fn joint_names(&self) -> Vec<&str> {
        PlanarSystem::joint_names(self)
    }

    fn joint_columns(&self, k: usize) -> &'static [&'static str] {
        if self.joint_has_torque(k) {
            REACTION_TORQUE
        } else {
            REACTION
        }
    }

    /// Global `f_x, f_y`, the torque about P_j when the joint has one, then the force in the
    /// joint frame ([`PlanarSystem::joint_frame_axis`] and that axis turned by +90°).
    fn push_joint_history(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        let f = self.joint_reaction(k, q, lambda);
        let e = self.joint_frame_axis(k, q);
        out.extend_from_slice(&[f[0], f[1]]);
        if self.joint_has_torque(k) {
            out.push(f[2]);
        }
        out.extend_from_slice(&[e[0] * f[0] + e[1] * f[1], -e[1] * f[0] + e[0] * f[1]]);
    }

    fn push_joint_reaction(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        out.extend_from_slice(&self.joint_reaction(k, q, lambda));
    }

    fn driver_names(&self) -> Vec<&str> {
        PlanarSystem::driver_names(self)
    }

    fn driver_unit(&self, k: usize) -> &'static str {
        if self.driver_is_angular(k) {
            "torque"
        } else {
            "force"
        }
    }

    fn driver_effort(&self, k: usize, lambda: &Vector) -> f64 {
        PlanarSystem::driver_effort(self, k, lambda)
    }
}
