//! The planar multibody assembler: turns a [`Model`] into a [`System`].
//!
//! # Coordinates
//! Each rigid body contributes `(x_cm, y_cm, θ)`, each point mass `(x_cm, y_cm)`, in the order of
//! `model.bodies`; the ground contributes none. Coordinates are taken at the centre of mass, so the mass
//! matrix is the constant diagonal `diag(m, m, I_cm)` and `∂(M a)/∂q = 0` (Haug 1989, §6.1.2;
//! Nikravesh 1988, §6.3). The user's body-frame values are converted on the way in
//! ([`PlanarSystem::initial_state`]) and out ([`PlanarSystem::body_pose`],
//! [`PlanarSystem::body_velocity`]).
//!
//! # Constraint rows
//! Joints in model order, then drivers in model order (see the `joints` and `drivers` source files for
//! the equations):
//!
//! | element | rows |
//! |---|---|
//! | revolute | x, y |
//! | prismatic | normal, then rotation (omitted when body j is a point mass) |
//! | fixed | x, y, then rotation (omitted when a body is a point mass) |
//! | distance | length: `(dᵀd − L²)/2` |
//! | driver | 1 |
//!
//! Sign convention: `M a + Φ_qᵀ λ = Q`, so `−Φ_qᵀ λ` is the generalized constraint force.
//!
//! # Elements
//! Every element (joint, driver, force) works on the six local *slots* `(x_i, y_i, θ_i, x_j, y_j, θ_j)`
//! of at most two bodies and returns its values with analytic first and second derivatives; the system
//! scatters them into global vectors and sinks. A new kind of body (e.g. spatial) adds a [`Body`]
//! variant and its own kinematic primitives; the [`System`] trait does not change.
//!
//! # Sources
//! Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, ch. 3 (planar joints and
//! drivers), ch. 6 (planar dynamics, TSDA/RSDA); Nikravesh 1988, *Computer-Aided Analysis of Mechanical
//! Systems*, ch. 5–8.

mod body;
mod drivers;
mod evaluation;
mod forces;
mod joints;
mod kinematics;
mod mechanism;
mod rates;
mod resolver;
#[cfg(test)]
mod tests;

use std::cell::{Ref, RefCell};
use std::ops::Range;

pub use body::{Body, PointMass, RigidBody};

use self::drivers::{Driver, DriverType};
use self::evaluation::{Elements, Evaluation, EvaluationCache};
use self::forces::PlanarForce;
use self::joints::{kind_name, Joint, JointType};
use self::kinematics::{cross, lmul, perp, quad, BodyRef, LVec, NS};
use self::resolver::Resolver;
use super::force_elements::ForceElements;
use super::System;
use crate::linalg::{zero, Sink, Vector};
use crate::model::function::FunctionError;
use crate::model::validate::{self, Issue};
use crate::model::{Coordinate, Model};
use crate::state::GivenValues;
use crate::state::State;

/// Why a model cannot be turned into a [`PlanarSystem`]. Every message names the offending entity.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanarError {
    /// The model breaks rules of [`validate::check_elements`]: every issue found, each naming the
    /// entity, the path of the offending value, and how to fix it.
    #[error("{}", issues_text(issues))]
    Invalid {
        /// The issues, in the order of the model's entries.
        issues: Vec<Issue>,
    },
    /// An element refers to a body that does not exist.
    #[error("{element}: unknown body `{body}`; the bodies are: {known}")]
    UnknownBody {
        /// The element, e.g. "joint `B` (revolute)".
        element: String,
        /// The name used.
        body: String,
        /// The existing bodies.
        known: String,
    },
    /// An element refers to a point a body does not have.
    #[error("{element}: body `{body}` has no point `{point}`; its points are: {known}")]
    UnknownPoint {
        /// The element.
        element: String,
        /// The body.
        body: String,
        /// The name used.
        point: String,
        /// The body's points.
        known: String,
    },
    /// A driver or RSDA refers to a joint that does not exist.
    #[error("{element}: unknown joint `{joint}`; the joints are: {known}")]
    UnknownJoint {
        /// The element.
        element: String,
        /// The name used.
        joint: String,
        /// The existing joints.
        known: String,
    },
    /// An element's data is invalid or does not fit the bodies it connects.
    #[error("{element}: {reason}")]
    InvalidElement {
        /// The element.
        element: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A time function does not compile.
    #[error("{element}: {source}")]
    Function {
        /// The element and the function's role, e.g. "driver `crank`, function".
        element: String,
        /// Why.
        source: FunctionError,
    },
}

/// The issues of [`PlanarError::Invalid`], one per line.
fn issues_text(issues: &[Issue]) -> String {
    issues
        .iter()
        .map(Issue::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A marker resolved to coordinates.
#[derive(Debug, Clone, PartialEq)]
struct Marker {
    name: String,
    body: BodyRef,
    /// Point relative to the centre of mass, body axes (ground: global) \[m\].
    s: [f64; 2],
}

/// A planar multibody system built from a [`Model`]; implements [`System`] (see the module
/// documentation for coordinates, row order and sources).
#[derive(Debug, Clone)]
pub struct PlanarSystem {
    bodies: Vec<Body>,
    joints: Vec<Joint>,
    drivers: Vec<Driver>,
    /// Joint values held during assembly (`given = true`), as drivers with constant functions; their
    /// `row` indexes the assembly equations.
    given_joints: Vec<Driver>,
    /// The weights, then the force elements in file order (`forces.rs`).
    forces: ForceElements<PlanarForce>,
    markers: Vec<Marker>,
    n: usize,
    m: usize,
    /// The frames and constraint rows of the last two configurations asked for (see
    /// `evaluation.rs`): each element is evaluated once per configuration.
    cache: RefCell<EvaluationCache>,
}

impl PlanarSystem {
    /// Builds the system of `model`.
    ///
    /// # Errors
    /// [`PlanarError::Invalid`] with every issue [`validate::check_elements`] finds (each with the
    /// path of the offending value; the file reader reports the same issues with file and line);
    /// The other variants only report what the checks should have refused (a bug).
    ///
    /// Never panics.
    pub fn new(model: &Model) -> Result<PlanarSystem, PlanarError> {
        let issues = validate::check_elements(model);
        if !issues.is_empty() {
            return Err(PlanarError::Invalid { issues });
        }
        let mut bodies = Vec::with_capacity(model.bodies.len());
        let mut n = 0;
        for spec in &model.bodies {
            let b = Body::from_spec(spec, n)?;
            n += b.dof();
            bodies.push(b);
        }
        let res = Resolver::new(&bodies, &model.ground.points);
        let mut q0 = Vector::zeros(n);
        let mut v0 = Vector::zeros(n);
        for b in &bodies {
            b.write_initial(&mut q0, &mut v0);
        }
        let mut joints = Vec::with_capacity(model.joints.len());
        let mut m = 0;
        for spec in &model.joints {
            let j = Joint::from_spec(spec, &res, &q0, m)?;
            m += j.rows();
            joints.push(j);
        }
        let mut drivers = Vec::with_capacity(model.drivers.len());
        for spec in &model.drivers {
            drivers.push(Driver::from_spec(spec, &res, &joints, m)?);
            m += 1;
        }
        let given_joints = model
            .joints
            .iter()
            .filter(|j| j.given)
            .enumerate()
            .map(|(row, spec)| Driver::held_joint(spec, &joints, &q0, row))
            .collect::<Result<Vec<_>, _>>()?;
        let mut forces = PlanarForce::gravity(&bodies, model.gravity);
        for spec in &model.forces {
            forces.push(PlanarForce::from_spec(spec, &res, &joints, &q0)?);
        }
        let forces = ForceElements::new(forces);
        let markers = model
            .markers
            .iter()
            .map(|spec| {
                let el = format!("marker `{}`", spec.name);
                let (body, s) = res.point(&el, &spec.body, spec.point.as_deref())?;
                Ok(Marker {
                    name: spec.name.clone(),
                    body,
                    s,
                })
            })
            .collect::<Result<Vec<_>, PlanarError>>()?;
        Ok(PlanarSystem {
            bodies,
            joints,
            drivers,
            given_joints,
            forces,
            markers,
            n,
            m,
            cache: RefCell::new(EvaluationCache::new(n, m)),
        })
    }

    /// The frames and constraint rows (values and gradients) at q, computed on the first request
    /// for this q.
    fn evaluated(&self, q: &Vector) -> Ref<'_, Evaluation> {
        self.evaluated_to(q, false)
    }

    /// [`Self::evaluated`] with the rows' Hessians.
    fn evaluated_with_hessians(&self, q: &Vector) -> Ref<'_, Evaluation> {
        self.evaluated_to(q, true)
    }

    fn evaluated_to(&self, q: &Vector, hessians: bool) -> Ref<'_, Evaluation> {
        let elements = Elements {
            bodies: &self.bodies,
            joints: &self.joints,
            drivers: &self.drivers,
        };
        let k = self.cache.borrow_mut().find_or_fill(&elements, q, hessians);
        Ref::map(self.cache.borrow(), |c| c.slot(k))
    }

    /// Number of moving bodies (the ground excluded).
    pub fn n_bodies(&self) -> usize {
        self.bodies.len()
    }

    /// Body `b` (0 ≤ b < [`Self::n_bodies`], model order).
    ///
    /// # Panics
    /// When `b` is out of range.
    pub fn body(&self, b: usize) -> &Body {
        &self.bodies[b]
    }

    /// Names of the moving bodies, in model order.
    pub fn body_names(&self) -> Vec<&str> {
        self.bodies.iter().map(|b| b.name()).collect()
    }

    /// Index of the moving body called `name`; `None` for an unknown name and for `ground`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name() == name)
    }

    /// Index in q of `coordinate` of body `b`: x_cm, y_cm or θ (centroidal coordinates); `None` for θ
    /// of a point mass or when `b` is out of range.
    pub fn coordinate_index(&self, b: usize, coordinate: Coordinate) -> Option<usize> {
        self.bodies.get(b)?.coordinate(coordinate)
    }

    /// Pose `\[x, y, θ\]` \[m, m, rad\] of the *body frame* origin of body `b` at coordinates q (n
    /// entries). θ = 0 for a point mass.
    ///
    /// # Panics
    /// When `b` ≥ [`Self::n_bodies`] or q is shorter than n.
    pub fn body_pose(&self, b: usize, q: &Vector) -> [f64; 3] {
        self.bodies[b].frame_pose(q)
    }

    /// Velocity `\[vx, vy, ω\]` \[m/s, m/s, rad/s\] of the *body frame* origin of body `b`,
    /// `v_o = v_cm − ω R A com`. ω = 0 for a point mass.
    ///
    /// # Panics
    /// When `b` ≥ [`Self::n_bodies`] or q, v are shorter than n.
    pub fn body_velocity(&self, b: usize, q: &Vector, v: &Vector) -> [f64; 3] {
        self.bodies[b].frame_velocity(q, v)
    }

    /// Names of the model's markers, in model order.
    pub fn marker_names(&self) -> Vec<&str> {
        self.markers.iter().map(|m| m.name.as_str()).collect()
    }

    /// Global position `\[x, y\]` \[m\] and velocity `\[vx, vy\]` \[m/s\] of marker `k` (model order):
    /// `r_P = r_cm + A s'`, `ṙ_P = ṙ_cm + ω R A s'` (Haug 1989, eq. 3.3.5). Ground markers have zero
    /// velocity.
    ///
    /// # Panics
    /// When `k` is out of range or q, v are shorter than n.
    pub fn marker_state(&self, k: usize, q: &Vector, v: &Vector) -> ([f64; 2], [f64; 2]) {
        let mk = &self.markers[k];
        let f = mk.body.frame(q);
        let (vc, w) = mk.body.velocity(v);
        let a = f.rot(mk.s);
        let pa = perp(a);
        (
            [f.r[0] + a[0], f.r[1] + a[1]],
            [vc[0] + w * pa[0], vc[1] + w * pa[1]],
        )
    }

    /// Names of the joints, in model order.
    pub fn joint_names(&self) -> Vec<&str> {
        self.joints.iter().map(|j| j.name.as_str()).collect()
    }

    /// Rows of joint `k` in Φ (and λ).
    ///
    /// # Panics
    /// When `k` is out of range.
    pub fn joint_rows(&self, k: usize) -> Range<usize> {
        let j = &self.joints[k];
        j.first_row..j.first_row + j.rows()
    }

    /// Rows of the drivers in Φ (one each, model order, after the joints).
    pub fn driver_rows(&self) -> Range<usize> {
        let first = self.joints.last().map_or(0, |j| j.first_row + j.rows());
        first..first + self.drivers.len()
    }

    /// Reaction of joint `k` on its body j at coordinates q (n) and multipliers λ (m):
    /// `\[f_x, f_y, τ\]`, the constraint force on body j in global axes \[N\] and the constraint torque on
    /// body j about the joint point P_j \[N m\].
    ///
    /// From `−Φ_qᵀλ` restricted to the joint's rows and body j's coordinates `(x_cm, y_cm, θ)`, which
    /// gives the force and the torque about the centre of mass; the torque is moved to P_j with
    /// `τ_P = τ_cm − a_j × F` (Haug 1989, §6.6, eq. 6.6.8). For the ground as body j the same formula
    /// is applied with the ground's (frozen) coordinates. The torque of a revolute joint is exactly 0;
    /// a point mass takes no torque, so only the moment of the force remains. For a distance joint the
    /// force acts along the rod.
    ///
    /// # Panics
    /// When `k` is out of range, or q, λ are too short.
    pub fn joint_reaction(&self, k: usize, q: &Vector, lambda: &Vector) -> [f64; 3] {
        let j = &self.joints[k];
        let e = self.evaluated(q);
        let mut g = [0.0; 3];
        for r in 0..j.rows() {
            let (l, row) = (lambda[j.first_row + r], &e.rows[j.first_row + r]);
            for (c, gc) in g.iter_mut().enumerate() {
                *gc -= l * row.grad[3 + c];
            }
        }
        let force = [g[0], g[1]];
        let torque = match (j.geometry, j.bj) {
            (JointType::Revolute, _) => 0.0,
            (_, b) => {
                let tau_cm = if b.is_point_mass() { 0.0 } else { g[2] };
                let a = b.frame(q).rot(j.sj);
                tau_cm - cross(a, force)
            }
        };
        [force[0], force[1], torque]
    }

    /// True when the reaction of joint `k` includes a torque: a joint with a rotation row (prismatic
    /// or fixed between rigid bodies). A revolute or distance joint transmits no torque about its
    /// point P_j, so its history has no torque column.
    ///
    /// # Panics
    /// When `k` is out of range.
    pub fn joint_has_torque(&self, k: usize) -> bool {
        matches!(
            self.joints[k].geometry,
            JointType::Prismatic {
                angle0: Some(_),
                ..
            } | JointType::Fixed { angle0: Some(_) }
        )
    }

    /// The unit x axis of the frame of joint `k` in global axes at q (n entries): the sliding axis
    /// of a prismatic joint, the direction from P_i to P_j of a distance joint, body i's x axis for
    /// a revolute or fixed joint (the global x axis when body i is the ground). The y axis is the x
    /// axis turned by +90°.
    ///
    /// # Panics
    /// When `k` is out of range or q is shorter than n.
    pub fn joint_frame_axis(&self, k: usize, q: &Vector) -> [f64; 2] {
        let j = &self.joints[k];
        let fi = j.bi.frame(q);
        match j.geometry {
            JointType::Prismatic { axis, .. } => fi.rot(axis),
            JointType::Distance { .. } => {
                let fj = j.bj.frame(q);
                let (pi, pj) = (fi.rot(j.si), fj.rot(j.sj));
                let d = [
                    fj.r[0] + pj[0] - fi.r[0] - pi[0],
                    fj.r[1] + pj[1] - fi.r[1] - pi[1],
                ];
                let l = d[0].hypot(d[1]);
                if l > 0.0 {
                    [d[0] / l, d[1] / l]
                } else {
                    [1.0, 0.0]
                }
            }
            JointType::Revolute | JointType::Fixed { .. } => fi.rot([1.0, 0.0]),
        }
    }

    /// Names of the drivers, in model order (their rows are [`Self::driver_rows`]).
    pub fn driver_names(&self) -> Vec<&str> {
        self.drivers.iter().map(|d| d.name.as_str()).collect()
    }

    /// True when driver `k` prescribes an angle (its generalized force is a torque \[N m\]), false
    /// when it prescribes a length (a force \[N\]).
    ///
    /// # Panics
    /// When `k` is out of range.
    pub fn driver_is_angular(&self, k: usize) -> bool {
        match &self.drivers[k].geometry {
            DriverType::Revolute { .. } | DriverType::Angle { .. } => true,
            DriverType::Prismatic { .. } | DriverType::Origin { .. } => false,
        }
    }

    /// The generalized force of driver `k` from the multipliers λ (m entries): the torque \[N m\] or
    /// force \[N\] an actuator must apply, in the direction in which the driven quantity g(q) grows,
    /// to produce the prescribed motion. It is −λ of the driver's row, since the constraint force is
    /// −g_qᵀλ; its power is −λ ġ = λᵀΦ_t.
    ///
    /// # Panics
    /// When `k` is out of range or λ is too short.
    pub fn driver_effort(&self, k: usize, lambda: &Vector) -> f64 {
        -lambda[self.drivers[k].row]
    }

    /// The initial state at time `t0` \[s\] from the model: q from the body poses, v from the body-frame
    /// velocities converted to the centres of mass (`v_cm = v_o + ω R A com`); a (n) and λ (m) zero.
    /// The state is generally not consistent: pass it to [`crate::analysis::assembly::assemble`].
    pub fn initial_state(&self, t0: f64) -> State {
        let mut x = State::zeros(t0, self.n, self.m);
        for b in &self.bodies {
            b.write_initial(&mut x.q, &mut x.v);
        }
        x
    }

    /// The coordinates and velocities marked as given in the model (`given`, `given_velocity`), mapped
    /// to the centroidal coordinates (n entries each).
    ///
    /// Approximation: a given body-frame x (or y) holds x_cm (y_cm). This equals holding the frame
    /// origin when θ is also given or the centre of mass is at the origin; otherwise the origin may move
    /// by the rotation of the com offset during assembly. Likewise for velocities.
    pub fn given_values(&self) -> GivenValues {
        let mut g = GivenValues::none(self.n);
        for b in &self.bodies {
            let c = b.common();
            for &k in &c.given {
                if let Some(i) = b.coordinate(k) {
                    g.positions[i] = true;
                }
            }
            for &k in &c.given_velocity {
                if let Some(i) = b.coordinate(k) {
                    g.velocities[i] = true;
                }
            }
        }
        g
    }
}

impl System for PlanarSystem {
    fn breakpoints(&self, out: &mut Vec<f64>) {
        for d in &self.drivers {
            d.function.breakpoints(out);
        }
        self.forces.breakpoints(out);
    }

    fn n(&self) -> usize {
        self.n
    }

    fn m(&self) -> usize {
        self.m
    }

    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        for b in &self.bodies {
            b.add_mass(scale, out);
        }
    }

    fn mass_acceleration_q<S: Sink>(&self, _q: &Vector, _a: &Vector, _scale: f64, _out: &mut S) {
        // Planar body coordinates have a constant mass matrix.
    }

    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        zero(out.as_mut_slice());
        self.forces.add_forces(t, q, v, out);
    }

    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        self.forces.add_forces_q(t, q, v, scale, out);
    }

    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        self.forces.add_forces_v(t, q, v, scale, out);
    }

    fn forces_depend_on_velocity(&self) -> bool {
        self.forces.depend_on_velocity()
    }

    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        let e = self.evaluated(q);
        for (o, row) in out.as_mut_slice().iter_mut().zip(&e.rows) {
            *o = row.phi;
        }
        for d in &self.drivers {
            out[d.row] -= d.function.value(t);
        }
    }

    fn constraint_jacobian<S: Sink>(&self, _t: f64, q: &Vector, scale: f64, out: &mut S) {
        let e = self.evaluated(q);
        for j in &self.joints {
            for r in 0..j.rows() {
                let row = &e.rows[j.first_row + r];
                j.slots
                    .add_row_masked(out, j.first_row + r, scale, &row.grad, j.row_mask(r));
            }
        }
        for d in &self.drivers {
            d.slots
                .add_row_masked(out, d.row, scale, &e.rows[d.row].grad, d.row_mask());
        }
    }

    fn constraint_jacobian_rate<S: Sink>(
        &self,
        _t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        // Ḣ row = G v (every planar row has Φ_qt = 0, see rates.rs).
        let e = self.evaluated_with_hessians(q);
        for j in &self.joints {
            let vl = j.slots.gather(v);
            for r in 0..j.rows() {
                let g = lmul(&e.rows[j.first_row + r].hess, &vl);
                j.slots
                    .add_row_masked(out, j.first_row + r, scale, &g, j.row_mask(r));
            }
        }
        for d in &self.drivers {
            let vl = d.slots.gather(v);
            let g = lmul(&e.rows[d.row].hess, &vl);
            d.slots.add_row_masked(out, d.row, scale, &g, d.row_mask());
        }
    }

    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        _t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        // Ḧ row = T[v, v, ·] + G a (rates.rs).
        let e = self.evaluated_with_hessians(q);
        let mut third = [[0.0; NS]; 3];
        let sum = |t: &LVec, g: LVec| -> LVec { std::array::from_fn(|c| t[c] + g[c]) };
        for j in &self.joints {
            let (vl, al) = (j.slots.gather(v), j.slots.gather(a));
            let nr = j.eval_second_rates(q, &vl, &mut third);
            for (r, t3) in third.iter().enumerate().take(nr) {
                let row = sum(t3, lmul(&e.rows[j.first_row + r].hess, &al));
                j.slots
                    .add_row_masked(out, j.first_row + r, scale, &row, j.row_mask(r));
            }
        }
        for d in &self.drivers {
            let (vl, al) = (d.slots.gather(v), d.slots.gather(a));
            let row = sum(&d.eval_second_rates(q, &vl), lmul(&e.rows[d.row].hess, &al));
            d.slots
                .add_row_masked(out, d.row, scale, &row, d.row_mask());
        }
    }

    fn assembly_constraint_count(&self) -> usize {
        self.given_joints.len()
    }

    fn assembly_constraints(&self, q: &Vector, out: &mut Vector) {
        let e = self.evaluated(q);
        for d in &self.given_joints {
            out[d.row] = d.eval_with(|b| e.frames.of(b), false).phi - d.function.value(0.0);
        }
    }

    fn assembly_constraint_jacobian<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        let e = self.evaluated(q);
        for d in &self.given_joints {
            let row = d.eval_with(|b| e.frames.of(b), false);
            d.slots
                .add_row_masked(out, d.row, scale, &row.grad, d.row_mask());
        }
    }

    fn constraint_time_derivative(&self, t: f64, _q: &Vector, out: &mut Vector) {
        for j in &self.joints {
            for r in 0..j.rows() {
                out[j.first_row + r] = 0.0;
            }
        }
        for d in &self.drivers {
            out[d.row] = -d.function.eval(t).1;
        }
    }

    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        let e = self.evaluated_with_hessians(q);
        for j in &self.joints {
            let vl = j.slots.gather(v);
            for r in j.first_row..j.first_row + j.rows() {
                out[r] = -quad(&e.rows[r].hess, &vl);
            }
        }
        for d in &self.drivers {
            let vl = d.slots.gather(v);
            out[d.row] = -quad(&e.rows[d.row].hess, &vl) + d.function.eval(t).2;
        }
    }

    fn constraint_force_q<S: Sink>(
        &self,
        _t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        let e = self.evaluated_with_hessians(q);
        for j in &self.joints {
            let mut h = [[0.0; NS]; NS];
            for r in 0..j.rows() {
                let (l, row) = (lambda[j.first_row + r], &e.rows[j.first_row + r]);
                for (ha, ra) in h.iter_mut().zip(row.hess.iter()) {
                    for (x, y) in ha.iter_mut().zip(ra.iter()) {
                        *x += l * y;
                    }
                }
            }
            j.slots.add_block_masked(out, scale, &h, j.hessian_mask());
        }
        for d in &self.drivers {
            let l = scale * lambda[d.row];
            d.slots
                .add_block_masked(out, l, &e.rows[d.row].hess, d.hessian_mask());
        }
    }

    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        // −0.0 is the neutral element of a sum (0.0 + −0.0 would turn a −0 potential into +0).
        let mut u = -0.0;
        self.forces.add_potential(q, &mut u);
        u
    }

    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        self.forces.power(t, q, v)
    }

    fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        for d in &self.drivers {
            if let Some(problem) = super::driver_function_problem(&d.name, &d.function, t) {
                return Some(problem);
            }
        }
        self.forces.explain_non_finite(t, q, v)
    }

    fn driving_constraint(&self, row: usize) -> bool {
        self.driver_rows().contains(&row)
    }

    fn coordinate_label(&self, i: usize) -> String {
        for b in &self.bodies {
            let first = b.first_coordinate();
            if (first..first + b.dof()).contains(&i) {
                let name = ["x_cm", "y_cm", "theta"][i - first];
                return format!("{}.{name}", b.name());
            }
        }
        format!("q[{i}]")
    }

    fn constraint_label(&self, row: usize) -> String {
        for j in &self.joints {
            let r = j.first_row;
            if (r..r + j.rows()).contains(&row) {
                return format!(
                    "joint `{}` ({}), {}",
                    j.name,
                    kind_name(j.kind),
                    j.row_name(row - r)
                );
            }
        }
        match self.drivers.iter().find(|d| d.row == row) {
            Some(d) => format!("driver `{}`", d.name),
            None => format!("constraint row {row}"),
        }
    }
}
