//! Artificial damping for dynamic settling to equilibrium (Haug 1989, §7.5 of *Computer-Aided
//! Kinematics and Dynamics of Mechanical Systems*: integrate the equations of motion with added
//! damping until the motion dies out).
//!
//! [`ArtificialDamping`] wraps any [`System`] and adds the mass-proportional (Rayleigh α) force
//! `Q_d = −c M(q) v`, with c \[1/s\]. Each mode of the linearized system gets the damping ratio
//! c / (2ω), so c ≈ 2ω of the slowest mode damps it critically. Everything else is forwarded.

use std::cell::RefCell;

use super::{Energy, System};
use crate::linalg::{Sink, Vector};

/// A system with the added force −c M(q) v (see the module documentation).
#[derive(Debug, Clone)]
pub struct ArtificialDamping<'a, S> {
    /// The undamped system.
    pub inner: &'a S,
    /// Mass-proportional damping coefficient c ≥ 0 \[1/s\].
    pub c: f64,
    /// M v (n entries), so that evaluating the force does not allocate.
    scratch: RefCell<Vector>,
}

impl<'a, S: System> ArtificialDamping<'a, S> {
    /// `inner` with the added damping −c M(q) v, c \[1/s\].
    pub fn new(inner: &'a S, c: f64) -> Self {
        ArtificialDamping {
            inner,
            c,
            scratch: RefCell::new(Vector::zeros(inner.n())),
        }
    }

    /// −c vᵀ M v, written after M v into the scratch vector.
    fn damping_power(&self, q: &Vector, v: &Vector) -> f64 {
        let mut mv = self.scratch.borrow_mut();
        self.inner.mass_times(q, v, &mut mv);
        -self.c * v.dot(&mv)
    }
}

impl<S: System> System for ArtificialDamping<'_, S> {
    fn n(&self) -> usize {
        self.inner.n()
    }
    fn m(&self) -> usize {
        self.inner.m()
    }
    fn mass<K: Sink>(&self, q: &Vector, scale: f64, out: &mut K) {
        self.inner.mass(q, scale, out);
    }
    fn mass_acceleration_q<K: Sink>(&self, q: &Vector, a: &Vector, scale: f64, out: &mut K) {
        self.inner.mass_acceleration_q(q, a, scale, out);
    }
    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        self.inner.forces(t, q, v, out);
        if self.c != 0.0 {
            let mut mv = self.scratch.borrow_mut();
            self.inner.mass_times(q, v, &mut mv);
            out.axpy(-self.c, &*mv, 1.0);
        }
    }
    fn forces_q<K: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut K) {
        self.inner.forces_q(t, q, v, scale, out);
        // ∂(−c M(q) v)/∂q
        self.inner.mass_acceleration_q(q, v, -self.c * scale, out);
    }
    fn forces_v<K: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut K) {
        self.inner.forces_v(t, q, v, scale, out);
        self.inner.mass(q, -self.c * scale, out);
    }
    fn forces_depend_on_velocity(&self) -> bool {
        self.c != 0.0 || self.inner.forces_depend_on_velocity()
    }
    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        self.inner.constraints(t, q, out);
    }
    fn constraint_jacobian<K: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut K) {
        self.inner.constraint_jacobian(t, q, scale, out);
    }
    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector) {
        self.inner.constraint_time_derivative(t, q, out);
    }
    fn constraint_jacobian_rate<K: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut K,
    ) {
        self.inner.constraint_jacobian_rate(t, q, v, scale, out);
    }

    fn constraint_jacobian_second_rate<K: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut K,
    ) {
        self.inner
            .constraint_jacobian_second_rate(t, q, v, a, scale, out);
    }

    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        self.inner.gamma(t, q, v, out);
    }
    fn constraint_force_q<K: Sink>(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut K,
    ) {
        self.inner.constraint_force_q(t, q, lambda, scale, out);
    }
    fn potential_energy(&self, t: f64, q: &Vector) -> f64 {
        self.inner.potential_energy(t, q)
    }
    fn internal_force_scale(&self) -> f64 {
        self.inner.internal_force_scale()
    }
    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        let mut p = self.inner.nonconservative_power(t, q, v);
        if self.c != 0.0 {
            p += self.damping_power(q, v);
        }
        p
    }
    fn assembly_constraint_count(&self) -> usize {
        self.inner.assembly_constraint_count()
    }
    fn assembly_constraints(&self, q: &Vector, out: &mut Vector) {
        self.inner.assembly_constraints(q, out);
    }
    fn assembly_constraint_jacobian<K: Sink>(&self, q: &Vector, scale: f64, out: &mut K) {
        self.inner.assembly_constraint_jacobian(q, scale, out);
    }
    fn breakpoints(&self, out: &mut Vec<f64>) {
        self.inner.breakpoints(out);
    }
    fn constraint_label(&self, row: usize) -> String {
        self.inner.constraint_label(row)
    }
    fn explain_invalid_state(&self, q: &Vector) -> Option<String> {
        self.inner.explain_invalid_state(q)
    }
    fn driving_constraint(&self, row: usize) -> bool {
        self.inner.driving_constraint(row)
    }
    fn coordinate_label(&self, i: usize) -> String {
        self.inner.coordinate_label(i)
    }
    fn energy(&self, t: f64, q: &Vector, v: &Vector, scratch: &mut Vector) -> Energy {
        self.inner.energy(t, q, v, scratch)
    }
    fn mass_times(&self, q: &Vector, a: &Vector, out: &mut Vector) {
        self.inner.mass_times(q, a, out);
    }
    fn add_constraint_force(&self, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
        self.inner.add_constraint_force(t, q, lambda, out);
    }
    fn constraints_and_force(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        phi: &mut Vector,
        force: &mut Vector,
    ) {
        self.inner.constraints_and_force(t, q, lambda, phi, force);
    }
    fn constraint_jacobian_times(&self, t: f64, q: &Vector, x: &Vector, out: &mut Vector) {
        self.inner.constraint_jacobian_times(t, q, x, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::test_problems::LinearOscillator;

    #[test]
    fn adds_mass_proportional_damping() {
        // Unit mass: −c v is added to the force, and its power is −c v².
        let osc = LinearOscillator {
            omega: 2.0,
            xi: 0.0,
        };
        let d = ArtificialDamping::new(&osc, 3.0);
        let (q, v) = (Vector::from_element(1, 0.5), Vector::from_element(1, 1.5));
        let mut f = Vector::zeros(1);
        d.forces(0.0, &q, &v, &mut f);
        assert!((f[0] - (-4.0 * 0.5 - 3.0 * 1.5)).abs() < 1e-15);
        assert!((d.nonconservative_power(0.0, &q, &v) + 3.0 * 1.5 * 1.5).abs() < 1e-15);
        assert!(d.forces_depend_on_velocity());
    }
}
