//! The spatial system's named outputs ([`Mechanism`]): body centroids and Euler parameters,
//! global velocities and angular velocities (ω = 2E(p)ṗ), marker points with their body's
//! orientation, joint reactions as force and torque in global axes.

use super::euler::{e_matrix, rotation, V3, V4};
use super::joints::SpatialJoint;
use super::kinematics::NS;
use super::{SpatialMarker, SpatialSystem};
use crate::linalg::Vector;
use crate::model::spatial::sequence_angles;
use crate::model::JointMotion;
use crate::state::GivenValues;
use crate::state::State;
use crate::system::mechanism::Mechanism;

const RIGID_POSE: &[&str] = &["x", "y", "z", "e0", "e1", "e2", "e3"];
const RIGID_VELOCITY: &[&str] = &["vx", "vy", "vz", "wx", "wy", "wz"];
const POINT_POSE: &[&str] = &["x", "y", "z"];
const POINT_VELOCITY: &[&str] = &["vx", "vy", "vz"];
const MARKER_POSE_ANGLES: &[&str] = &[
    "x", "y", "z", "e0", "e1", "e2", "e3", "angle1", "angle2", "angle3",
];
const REACTION: &[&str] = &["fx", "fy", "fz", "tx", "ty", "tz"];

impl SpatialSystem {
    /// Global angular velocity ω = 2E(p)ṗ of body `b` \[rad/s\] (zero for a point mass).
    fn angular_velocity(&self, b: usize, q: &Vector, v: &Vector) -> V3 {
        let body = &self.bodies[b];
        2.0 * e_matrix(&body.euler(q)) * body.euler_rate(v)
    }

    /// Global position of marker `k` and the Euler parameters of its body ((1, 0, 0, 0) on the
    /// ground), with the arm from the body's centroid.
    fn marker_pose(&self, k: usize, q: &Vector) -> (V3, V4, V3) {
        let SpatialMarker { body, s, .. } = &self.markers[k];
        let Some(b) = *body else {
            return (*s, V4::new(1.0, 0.0, 0.0, 0.0), V3::zeros());
        };
        let body = &self.bodies[b];
        let p = body.euler(q);
        let arm = rotation(&p) * s;
        (body.position(q) + arm, p, arm)
    }

    /// Global velocity and angular velocity of marker `k`: ṙ + ω × arm, ω (zero on the ground).
    fn marker_rates(&self, k: usize, q: &Vector, v: &Vector) -> (V3, V3) {
        let Some(b) = self.markers[k].body else {
            return (V3::zeros(), V3::zeros());
        };
        let (_, _, arm) = self.marker_pose(k, q);
        let w = self.angular_velocity(b, q, v);
        let r = self.bodies[b].r;
        (V3::new(v[r], v[r + 1], v[r + 2]) + w.cross(&arm), w)
    }

    /// Reaction of joint `k` on its body j (on body i, negated, when body j is the ground).
    fn reaction(&self, k: usize, q: &Vector, lambda: &Vector) -> (V3, V3) {
        let j = &self.joints[k];
        let x = j.slots.sides(&j.slots.gather(q));
        let mut grads = [([0.0; NS], 0.0); 6];
        for (r, kernel) in j.rows.iter().enumerate() {
            grads[r] = (kernel.gradient(&j.slots, &x), lambda[j.first_row + r]);
        }
        let grads = &grads[..j.rows.len()];
        if j.slots.r[1].is_some() {
            SpatialJoint::reaction_on(1, grads, &x.p[1], &j.s_j)
        } else {
            let (f, t) = SpatialJoint::reaction_on(0, grads, &x.p[0], &j.s_i);
            (-f, -t)
        }
    }
}

impl Mechanism for SpatialSystem {
    fn initial_state(&self, t0: f64) -> State {
        let mut x = State::zeros(t0, self.n, self.m);
        for b in &self.bodies {
            let (r, p, v, pd) = b.initial;
            for k in 0..3 {
                x.q[b.r + k] = r[k];
                x.v[b.r + k] = v[k];
            }
            if let Some(i) = b.p {
                for k in 0..4 {
                    x.q[i + k] = p[k];
                    x.v[i + k] = pd[k];
                }
            }
        }
        x
    }

    fn given_values(&self) -> GivenValues {
        GivenValues::none(self.n)
    }

    fn body_names(&self) -> Vec<&str> {
        self.bodies.iter().map(|b| b.name.as_str()).collect()
    }

    fn body_columns(&self, b: usize) -> (&'static [&'static str], &'static [&'static str]) {
        if self.bodies[b].p.is_some() {
            (RIGID_POSE, RIGID_VELOCITY)
        } else {
            (POINT_POSE, POINT_VELOCITY)
        }
    }

    fn push_body_pose(&self, b: usize, q: &Vector, out: &mut Vec<f64>) {
        let body = &self.bodies[b];
        out.extend(q.rows(body.r, body.dofs()).iter());
    }

    fn push_body_velocity(&self, b: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        let body = &self.bodies[b];
        out.extend(v.rows(body.r, 3).iter());
        if body.p.is_some() {
            out.extend(self.angular_velocity(b, q, v).iter());
        }
    }

    fn body_displacement(&self, b: usize, q0: &Vector, q1: &Vector) -> (f64, f64) {
        let body = &self.bodies[b];
        let dr = (body.position(q1) - body.position(q0)).norm();
        let (p0, p1) = (body.euler(q0), body.euler(q1));
        let c = (p0.dot(&p1).abs() / (p0.norm() * p1.norm())).min(1.0);
        (dr, 2.0 * c.acos())
    }

    fn marker_names(&self) -> Vec<&str> {
        self.markers.iter().map(|m| m.name.as_str()).collect()
    }

    fn marker_columns(&self, k: usize) -> (&'static [&'static str], &'static [&'static str]) {
        match self.markers[k].angles {
            Some(_) => (MARKER_POSE_ANGLES, RIGID_VELOCITY),
            None => (RIGID_POSE, RIGID_VELOCITY),
        }
    }

    /// The point, its body's Euler parameters (normalized), then the angles of the marker's
    /// sequence when it has one.
    fn push_marker_position(&self, k: usize, q: &Vector, out: &mut Vec<f64>) {
        let (r, p, _) = self.marker_pose(k, q);
        let p = p / p.norm();
        out.extend(r.iter().chain(p.iter()));
        if let Some(axes) = self.markers[k].angles {
            out.extend(sequence_angles(axes, &rotation(&p)));
        }
    }

    fn push_marker_velocity(&self, k: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        let (rdot, w) = self.marker_rates(k, q, v);
        out.extend(rdot.iter().chain(w.iter()));
    }

    fn joint_names(&self) -> Vec<&str> {
        self.joints.iter().map(|j| j.name.as_str()).collect()
    }

    fn joint_columns(&self, _k: usize) -> &'static [&'static str] {
        REACTION
    }

    fn push_joint_history(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        self.push_joint_reaction(k, q, lambda, out);
    }

    fn push_joint_reaction(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        let (f, t) = self.reaction(k, q, lambda);
        out.extend(f.iter().chain(t.iter()));
    }

    fn driver_names(&self) -> Vec<&str> {
        self.drivers.iter().map(|d| d.name.as_str()).collect()
    }

    fn driver_unit(&self, k: usize) -> &'static str {
        match self.drivers[k].motion {
            JointMotion::Rotation => "torque",
            JointMotion::Translation => "force",
        }
    }

    /// −λ of the driver's row: the torque about the joint axis \[N m\] of a rotation driver (its
    /// row has unit slope in the angle at the prescribed value) or the force along the axis \[N\]
    /// of a translation driver.
    fn driver_effort(&self, k: usize, lambda: &Vector) -> f64 {
        -lambda[self.drivers[k].row]
    }

    /// Per beam section j (element j / 2, its point I for even j and II for odd j, in order along
    /// the beam): `<beam>.sec<j>.N`, `.Vy`, `.Vz` (axial and shear forces \[N\]), `.T`, `.My`,
    /// `.Mz` (torsional and bending moments \[N m\]), in section axes.
    fn element_load_columns(&self) -> Vec<String> {
        let mut names = Vec::new();
        for b in self.beams() {
            for j in 0..2 * b.elements.len() {
                names.extend(
                    SECTION_LOADS
                        .iter()
                        .map(|c| format!("{}.sec{j}.{c}", b.name)),
                );
            }
        }
        names
    }

    fn push_element_loads(&self, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        for b in self.beams() {
            for k in 0..b.elements.len() {
                out.extend(b.section_loads(k, q, v).iter().flatten());
            }
        }
    }
}

/// Column suffixes of a beam section's loads, in section axes.
const SECTION_LOADS: [&str; 6] = ["N", "Vy", "Vz", "T", "My", "Mz"];

impl SpatialSystem {
    /// The beams among the force elements, in order.
    pub(crate) fn beams(&self) -> impl Iterator<Item = &super::beam::Beam> {
        self.forces.elements().filter_map(|e| match e {
            super::element::SpatialForce::Beam(b) => Some(b),
            _ => None,
        })
    }
}
