//! The spatial multibody system: rigid bodies in centroid and Euler-parameter coordinates, point
//! masses, joints built from Haug's basic constraints and their drivers, gravity, spring–dampers,
//! applied forces and torques.
//!
//! # Coordinates and rows
//! Each rigid body contributes `(x, y, z, e₀, e₁, e₂, e₃)` (centroid and Euler parameters of its
//! centroidal body frame), each point mass `(x, y, z)`, in model order; v = q̇ (Haug 1989, ch. 11;
//! Nikravesh 1988, ch. 11). The constraint rows are first the normalization ½(pᵀp − 1) of every
//! rigid body (model order), then the joints' rows (model order, see `joints.rs`), then one row per
//! driver (`drivers.rs`).
//!
//! Sign convention as in the planar system: `M a + Φ_qᵀ λ = Q`.
//!
//! # Elements
//! Every joint and force element works on the fourteen local slots of at most two bodies
//! (`kinematics.rs`) and returns exact first, second and third derivatives built from the
//! Euler-parameter identities of `euler.rs`; the tests check each against finite differences.

mod beam;
mod body;
mod build;
mod drivers;
mod element;
pub(crate) mod euler;
mod evaluation;
mod forces;
mod joints;
pub(crate) mod kinematics;
mod loads;
mod mechanism;
mod rsda;
mod shared_rows;
#[cfg(test)]
mod tests;

use std::cell::{Ref, RefCell};

use nalgebra::Matrix4;

use self::body::SpatialBody;
use self::drivers::SpatialDriver;
use self::element::SpatialForce;
use self::euler::V3;
use self::evaluation::{Evaluation, EvaluationCache};
use self::joints::SpatialJoint;
use self::kinematics::{Cols, LMat, LPattern, LVec, Motion, Slots, NS};
use super::force_elements::ForceElements;
use super::System;
use crate::linalg::{Sink, TransposeMatVec, Vector};

pub use build::SpatialError;

/// A marker: a point of a body (or the ground).
#[derive(Debug, Clone)]
pub(crate) struct SpatialMarker {
    pub name: String,
    /// The body, `None` for the ground.
    pub body: Option<usize>,
    /// Body-frame point from the centroid (global point for the ground) \[m\].
    pub s: V3,
    /// The axes of the angle sequence it also writes, if any.
    pub angles: Option<[usize; 3]>,
}

/// A spatial mechanism as a [`System`]. Build it with [`SpatialSystem::new`].
#[derive(Debug, Clone)]
pub struct SpatialSystem {
    bodies: Vec<SpatialBody>,
    joints: Vec<SpatialJoint>,
    drivers: Vec<SpatialDriver>,
    /// The force elements of every kind, in file order (`element.rs`).
    forces: ForceElements<SpatialForce>,
    markers: Vec<SpatialMarker>,
    gravity: V3,
    n: usize,
    m: usize,
    /// Rows of the Euler-parameter normalizations (one per rigid body, first in Φ).
    normalizations: usize,
    /// The joint rows of the last two configurations asked for (`evaluation.rs`): each joint is
    /// evaluated once per configuration.
    cache: RefCell<EvaluationCache>,
}

/// Adds a local row (14 slots) to row `row` of `out`, at the existing slots among `cols` (where it
/// may be nonzero; structural, so that every call writes the same entries).
fn add_row<S: Sink>(out: &mut S, slots: &Slots, row: usize, g: &LVec, cols: Cols, scale: f64) {
    for &(k, i) in slots.existing().iter().filter(|(k, _)| cols.contains(*k)) {
        out.add(row, i, scale * g[k]);
    }
}

/// Adds a local vector (14 slots) to the global vector `out`, every existing slot.
fn add_vector(out: &mut Vector, slots: &Slots, x: &LVec) {
    for &(k, i) in slots.existing() {
        out[i] += x[k];
    }
}

/// Adds a local matrix (14 × 14) to `out`, every pair of existing slots.
fn add_local<S: Sink>(out: &mut S, slots: &Slots, m: &LMat, scale: f64) {
    add_local_in(out, slots, m, &LPattern::ALL, scale);
}

/// Adds the entries of a local matrix at the pairs of existing slots in `pattern` (where it may be
/// nonzero) to `out`; `pattern` must not depend on the state, so that every call writes the same
/// entries in the same order.
fn add_local_in<S: Sink>(out: &mut S, slots: &Slots, m: &LMat, pattern: &LPattern, scale: f64) {
    let existing = slots.existing();
    for &(r, i) in existing {
        let cols = pattern.row(r);
        for &(c, j) in existing.iter().filter(|(c, _)| cols.contains(*c)) {
            out.add(i, j, scale * m[r][c]);
        }
    }
}

/// Adds a 4 × 4 block at (first, first).
fn add_block4<S: Sink>(out: &mut S, first: usize, m: &Matrix4<f64>, scale: f64) {
    for a in 0..4 {
        for b in 0..4 {
            out.add(first + a, first + b, scale * m[(a, b)]);
        }
    }
}

impl SpatialSystem {
    /// The Euler-parameter normalization rows ½(pᵀp − 1), one per rigid body, into the first
    /// rows of `out`.
    fn normalization_values(&self, q: &Vector, out: &mut Vector) {
        for (row, (i, _)) in self.rigid().enumerate() {
            out[row] = 0.5 * (q.rows(i, 4).norm_squared() - 1.0);
        }
    }

    /// The normalization rows' part of Φ_qᵀλ, λ_row p, added to `out` (n).
    fn add_normalization_force(&self, q: &Vector, lambda: &Vector, out: &mut Vector) {
        for (row, (i, _)) in self.rigid().enumerate() {
            for k in 0..4 {
                out[i + k] += lambda[row] * q[i + k];
            }
        }
    }

    /// The drivers' rows of Φ at time t \[s\] into `out`.
    fn driver_values(&self, t: f64, q: &Vector, out: &mut Vector) {
        for d in &self.drivers {
            out[d.row] = d.value(t, &d.slots.sides(&d.slots.gather(q)));
        }
    }

    /// The drivers' part of Φ_qᵀλ added to `out` (n).
    fn add_driver_force(&self, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
        let mut sink = TransposeMatVec { x: lambda, y: out };
        for d in &self.drivers {
            let x = d.slots.sides(&d.slots.gather(q));
            add_row(
                &mut sink,
                &d.slots,
                d.row,
                &d.gradient(t, &x),
                d.columns,
                1.0,
            );
        }
    }

    /// The local motion of an element at q, v and (optionally) a.
    fn motion(slots: &Slots, q: &Vector, v: &Vector, a: Option<&Vector>) -> Motion {
        let x = slots.sides(&slots.gather(q));
        let vl = slots.gather(v);
        let al = a.map_or([0.0; NS], |a| slots.gather(a));
        Motion {
            x,
            v: vl,
            pdot: slots.p_rates(&vl),
            a: al,
            pddot: slots.p_rates(&al),
        }
    }

    /// The joint rows (values and gradients) at q, computed on the first request for this q.
    fn evaluated(&self, q: &Vector) -> Ref<'_, Evaluation> {
        let k = self.cache.borrow_mut().find_or_fill(&self.joints, q);
        Ref::map(self.cache.borrow(), |c| c.slot(k))
    }

    /// Rigid bodies with their Euler-parameter index, in row order of the normalizations.
    fn rigid(&self) -> impl Iterator<Item = (usize, &SpatialBody)> {
        self.bodies.iter().filter_map(|b| b.p.map(|i| (i, b)))
    }

    /// Number of moving bodies.
    pub fn n_bodies(&self) -> usize {
        self.bodies.len()
    }
}

impl System for SpatialSystem {
    fn n(&self) -> usize {
        self.n
    }

    fn m(&self) -> usize {
        self.m
    }

    fn mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        for b in &self.bodies {
            b.add_mass(q, scale, out);
        }
    }

    /// M a body by body, without forming M (`SpatialBody::add_mass_times`).
    fn mass_times(&self, q: &Vector, a: &Vector, out: &mut Vector) {
        out.fill(0.0);
        for b in &self.bodies {
            b.add_mass_times(q, a, out);
        }
    }

    fn mass_acceleration_q<S: Sink>(&self, q: &Vector, a: &Vector, scale: f64, out: &mut S) {
        for b in &self.bodies {
            b.add_mass_acceleration_q(q, a, scale, out);
        }
    }

    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        out.fill(0.0);
        for b in &self.bodies {
            for k in 0..3 {
                out[b.r + k] += b.mass * self.gravity[k];
            }
            b.add_gyroscopic(q, v, out);
        }
        self.forces.add_forces(t, q, v, out);
    }

    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for b in &self.bodies {
            b.add_gyroscopic_q(v, scale, out);
        }
        self.forces.add_forces_q(t, q, v, scale, out);
    }

    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for b in &self.bodies {
            b.add_gyroscopic_v(q, v, scale, out);
        }
        self.forces.add_forces_v(t, q, v, scale, out);
    }

    fn forces_depend_on_velocity(&self) -> bool {
        self.bodies.iter().any(|b| b.p.is_some()) || self.forces.depend_on_velocity()
    }

    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        self.normalization_values(q, out);
        for j in &self.joints {
            let x = j.slots.sides(&j.slots.gather(q));
            let rows = j.first_row..j.first_row + j.rows.len();
            j.shared.values(&x, &mut out.as_mut_slice()[rows]);
        }
        self.driver_values(t, q, out);
    }

    /// Φ_qᵀλ joint by joint from the rows' shared expressions (`shared_rows.rs`), without their
    /// gradients.
    fn add_constraint_force(&self, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
        self.add_normalization_force(q, lambda, out);
        for j in &self.joints {
            let x = j.slots.sides(&j.slots.gather(q));
            let rows = j.first_row..j.first_row + j.rows.len();
            let mut f = [0.0; NS];
            j.shared
                .add_force(&j.slots, &x, &lambda.as_slice()[rows], &mut f);
            add_vector(out, &j.slots, &f);
        }
        self.add_driver_force(t, q, lambda, out);
    }

    /// Both at once: each joint gathers its sides and evaluates its shared expressions once.
    fn constraints_and_force(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        phi: &mut Vector,
        force: &mut Vector,
    ) {
        self.normalization_values(q, phi);
        self.add_normalization_force(q, lambda, force);
        for j in &self.joints {
            let x = j.slots.sides(&j.slots.gather(q));
            let rows = j.first_row..j.first_row + j.rows.len();
            let mut f = [0.0; NS];
            let (l, phi) = (
                &lambda.as_slice()[rows.clone()],
                &mut phi.as_mut_slice()[rows],
            );
            j.shared.values_and_force(&j.slots, &x, l, phi, &mut f);
            add_vector(force, &j.slots, &f);
        }
        self.driver_values(t, q, phi);
        self.add_driver_force(t, q, lambda, force);
    }

    fn constraint_jacobian<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S) {
        for (row, (i, _)) in self.rigid().enumerate() {
            for k in 0..4 {
                out.add(row, i + k, scale * q[i + k]);
            }
        }
        let e = self.evaluated(q);
        for j in &self.joints {
            for (r, &cols) in j.row_columns.iter().enumerate() {
                let row = j.first_row + r;
                add_row(out, &j.slots, row, &e.gradients[row], cols, scale);
            }
        }
        for d in &self.drivers {
            let x = d.slots.sides(&d.slots.gather(q));
            add_row(out, &d.slots, d.row, &d.gradient(t, &x), d.columns, scale);
        }
    }

    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector) {
        out.fill(0.0);
        for d in &self.drivers {
            out[d.row] = d.time_derivative(t, &d.slots.sides(&d.slots.gather(q)));
        }
    }

    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        for (row, (i, _)) in self.rigid().enumerate() {
            out[row] = -v.rows(i, 4).norm_squared();
        }
        for j in &self.joints {
            let m = Self::motion(&j.slots, q, v, None);
            for (r, k) in j.rows.iter().enumerate() {
                out[j.first_row + r] = k.gamma(&j.slots, &m);
            }
        }
        for d in &self.drivers {
            out[d.row] = d.gamma(t, &Self::motion(&d.slots, q, v, None));
        }
    }

    fn constraint_jacobian_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for (row, (i, _)) in self.rigid().enumerate() {
            for k in 0..4 {
                out.add(row, i + k, scale * v[i + k]);
            }
        }
        for j in &self.joints {
            let m = Self::motion(&j.slots, q, v, None);
            for (r, k) in j.rows.iter().enumerate() {
                let rate = k.rate(&j.slots, &m);
                add_row(
                    out,
                    &j.slots,
                    j.first_row + r,
                    &rate,
                    j.row_columns[r],
                    scale,
                );
            }
        }
        for d in &self.drivers {
            let m = Self::motion(&d.slots, q, v, None);
            add_row(out, &d.slots, d.row, &d.rate(t, &m), d.columns, scale);
        }
    }

    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for (row, (i, _)) in self.rigid().enumerate() {
            for k in 0..4 {
                out.add(row, i + k, scale * a[i + k]);
            }
        }
        for j in &self.joints {
            let m = Self::motion(&j.slots, q, v, Some(a));
            for (r, k) in j.rows.iter().enumerate() {
                let h = k.second_rate(&j.slots, &m);
                add_row(out, &j.slots, j.first_row + r, &h, j.row_columns[r], scale);
            }
        }
        for d in &self.drivers {
            let m = Self::motion(&d.slots, q, v, Some(a));
            add_row(
                out,
                &d.slots,
                d.row,
                &d.second_rate(t, &m),
                d.columns,
                scale,
            );
        }
    }

    fn constraint_force_q<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for (row, (i, _)) in self.rigid().enumerate() {
            add_block4(out, i, &(lambda[row] * Matrix4::identity()), scale);
        }
        for j in &self.joints {
            let x = j.slots.sides(&j.slots.gather(q));
            let mut h = [[0.0; NS]; NS];
            for (r, k) in j.rows.iter().enumerate() {
                k.add_hessian(&j.slots, &x, lambda[j.first_row + r], &mut h);
            }
            add_local_in(out, &j.slots, &h, &j.hessian, scale);
        }
        for d in &self.drivers {
            let x = d.slots.sides(&d.slots.gather(q));
            let mut h = [[0.0; NS]; NS];
            d.add_hessian(t, &x, lambda[d.row], &mut h);
            add_local_in(out, &d.slots, &h, &d.hessian, scale);
        }
    }

    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        let mut u = 0.0;
        for b in &self.bodies {
            u -= b.mass * self.gravity.dot(&b.position(q));
        }
        self.forces.add_potential(q, &mut u);
        u
    }

    fn internal_force_scale(&self) -> f64 {
        self.forces.internal_force_scale()
    }

    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        self.forces.power(t, q, v)
    }

    fn breakpoints(&self, out: &mut Vec<f64>) {
        for d in &self.drivers {
            d.function.breakpoints(out);
        }
        self.forces.breakpoints(out);
    }

    fn driving_constraint(&self, row: usize) -> bool {
        self.drivers.iter().any(|d| d.row == row)
    }

    fn constraint_label(&self, row: usize) -> String {
        if row < self.normalizations {
            let (_, b) = self.rigid().nth(row).expect("row in range");
            return format!("body `{}`: Euler parameter normalization", b.name);
        }
        for j in &self.joints {
            if (j.first_row..j.first_row + j.rows.len()).contains(&row) {
                let kind = format!("{:?}", j.kind).to_lowercase();
                return format!(
                    "joint `{}` ({kind}), {}",
                    j.name,
                    j.row_label(row - j.first_row)
                );
            }
        }
        if let Some(d) = self.drivers.iter().find(|d| d.row == row) {
            return format!("driver `{}`", d.name);
        }
        format!("constraint row {row}")
    }

    /// Names the driver function, the body (weight or gyroscopic forces) or the force element
    /// whose contribution is not finite or beyond [`super::ABSURD`] at (t, q, v), as the planar
    /// system does; `None` when each is sane (the sum alone overflowed, or the state diverged).
    fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        for d in &self.drivers {
            if let Some(problem) = super::driver_function_problem(&d.name, &d.function, t) {
                return Some(problem);
            }
        }
        let insane = |out: &Vector| out.iter().any(|x| !super::sane(*x));
        let mut out = Vector::zeros(self.n);
        for b in &self.bodies {
            out.fill(0.0);
            for k in 0..3 {
                out[b.r + k] += b.mass * self.gravity[k];
            }
            b.add_gyroscopic(q, v, &mut out);
            if insane(&out) {
                return Some(format!(
                    "the weight or the gyroscopic forces of body `{}` are not finite or absurdly large (above {:e}) at t = {t} s; check its mass, inertia and angular velocity, and the gravity",
                    b.name,
                    super::ABSURD
                ));
            }
        }
        self.forces.explain_non_finite(t, q, v)
    }

    fn coordinate_label(&self, i: usize) -> String {
        const NAMES: [&str; 7] = ["x", "y", "z", "e0", "e1", "e2", "e3"];
        for b in &self.bodies {
            if (b.r..b.r + b.dofs()).contains(&i) {
                return format!("{}.{}", b.name, NAMES[i - b.r]);
            }
        }
        format!("q[{i}]")
    }
}
