//! Hand-written reference problems implementing [`System`] directly: the scalar test oscillator used by
//! the stability analysis, the pendulum in Cartesian coordinates (an index-3 DAE) and the pendulum in its
//! angle (an ODE). Tests, benchmarks and the stability tool share these definitions.

use super::System;
use crate::linalg::{Sink, Vector};

/// The constraint methods of an unconstrained problem (m = 0): all empty.
macro_rules! no_constraints {
    () => {
        fn constraints(&self, _t: f64, _q: &Vector, _out: &mut Vector) {}
        fn constraint_jacobian<S: Sink>(&self, _t: f64, _q: &Vector, _scale: f64, _out: &mut S) {}
        fn constraint_time_derivative(&self, _t: f64, _q: &Vector, _out: &mut Vector) {}
        fn gamma(&self, _t: f64, _q: &Vector, _v: &Vector, _out: &mut Vector) {}
        fn constraint_jacobian_rate<S: Sink>(
            &self,
            _t: f64,
            _q: &Vector,
            _v: &Vector,
            _scale: f64,
            _out: &mut S,
        ) {
        }
        fn constraint_jacobian_second_rate<S: Sink>(
            &self,
            _t: f64,
            _q: &Vector,
            _v: &Vector,
            _a: &Vector,
            _scale: f64,
            _out: &mut S,
        ) {
        }
        fn constraint_force_q<S: Sink>(
            &self,
            _t: f64,
            _q: &Vector,
            _l: &Vector,
            _s: f64,
            _out: &mut S,
        ) {
        }
    };
}

/// The scalar test equation ẍ + 2ξω ẋ + ω² x = 0 (n = 1, m = 0) with unit mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearOscillator {
    /// Natural angular frequency ω \[rad/s\].
    pub omega: f64,
    /// Damping ratio ξ \[-\].
    pub xi: f64,
}

impl System for LinearOscillator {
    fn n(&self) -> usize {
        1
    }
    fn m(&self) -> usize {
        0
    }
    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale);
    }
    fn forces(&self, _t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        out[0] = -self.omega * self.omega * q[0] - 2.0 * self.xi * self.omega * v[0];
    }
    fn forces_q<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, -scale * self.omega * self.omega);
    }
    fn forces_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, -scale * 2.0 * self.xi * self.omega);
    }
    fn forces_depend_on_velocity(&self) -> bool {
        self.xi != 0.0
    }
    no_constraints!();
    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        0.5 * self.omega * self.omega * q[0] * q[0]
    }
    fn nonconservative_power(&self, _t: f64, _q: &Vector, v: &Vector) -> f64 {
        -2.0 * self.xi * self.omega * v[0] * v[0]
    }
}

/// A point mass on a massless rod pinned at the origin, in Cartesian coordinates q = (x, y) \[m\], with
/// the constraint Φ = (x² + y² − L²)/2 = 0 (n = 2, m = 1) and gravity along −y. With m = 1 kg, L = 1 m,
/// g = 9.81 m/s² and the start (−1, 0) at rest it is the IFToMM simple pendulum
/// (IFToMM library of computational benchmarks, "Simple pendulum").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CartesianPendulum {
    /// Mass \[kg\].
    pub mass: f64,
    /// Rod length \[m\].
    pub length: f64,
    /// Gravitational acceleration \[m/s²\].
    pub g: f64,
}

impl CartesianPendulum {
    /// The IFToMM pendulum: 1 kg, 1 m, 9.81 m/s².
    pub fn iftomm() -> Self {
        CartesianPendulum {
            mass: 1.0,
            length: 1.0,
            g: 9.81,
        }
    }
}

impl System for CartesianPendulum {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        1
    }
    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale * self.mass);
        out.add(1, 1, scale * self.mass);
    }
    fn forces(&self, _t: f64, _q: &Vector, _v: &Vector, out: &mut Vector) {
        out[0] = 0.0;
        out[1] = -self.mass * self.g;
    }
    fn forces_q<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_depend_on_velocity(&self) -> bool {
        false
    }
    fn constraints(&self, _t: f64, q: &Vector, out: &mut Vector) {
        out[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - self.length * self.length);
    }
    fn constraint_jacobian<S: Sink>(&self, _t: f64, q: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale * q[0]);
        out.add(0, 1, scale * q[1]);
    }
    fn constraint_time_derivative(&self, _t: f64, _q: &Vector, out: &mut Vector) {
        out[0] = 0.0;
    }
    fn gamma(&self, _t: f64, _q: &Vector, v: &Vector, out: &mut Vector) {
        out[0] = -(v[0] * v[0] + v[1] * v[1]);
    }
    // Φ_q = [x, y] is linear in q: Ḣ = [ẋ, ẏ], Ḧ = [ẍ, ÿ].
    fn constraint_jacobian_rate<S: Sink>(
        &self,
        _t: f64,
        _q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        self.constraint_jacobian(0.0, v, scale, out);
    }
    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        _t: f64,
        _q: &Vector,
        _v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        self.constraint_jacobian(0.0, a, scale, out);
    }
    fn constraint_force_q<S: Sink>(
        &self,
        _t: f64,
        _q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        out.add(0, 0, scale * lambda[0]);
        out.add(1, 1, scale * lambda[0]);
    }
    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        self.mass * self.g * q[1]
    }
    fn nonconservative_power(&self, _t: f64, _q: &Vector, _v: &Vector) -> f64 {
        0.0
    }
}

/// The pendulum in its angle θ from the downward vertical (n = 1, m = 0): m L² θ̈ = −m g L sin θ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnglePendulum {
    /// Mass \[kg\].
    pub mass: f64,
    /// Length \[m\].
    pub length: f64,
    /// Gravitational acceleration \[m/s²\].
    pub g: f64,
}

impl System for AnglePendulum {
    fn n(&self) -> usize {
        1
    }
    fn m(&self) -> usize {
        0
    }
    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale * self.mass * self.length * self.length);
    }
    fn forces(&self, _t: f64, q: &Vector, _v: &Vector, out: &mut Vector) {
        out[0] = -self.mass * self.g * self.length * q[0].sin();
    }
    fn forces_q<S: Sink>(&self, _t: f64, q: &Vector, _v: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, -scale * self.mass * self.g * self.length * q[0].cos());
    }
    fn forces_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_depend_on_velocity(&self) -> bool {
        false
    }
    no_constraints!();
    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        -self.mass * self.g * self.length * q[0].cos()
    }
    fn nonconservative_power(&self, _t: f64, _q: &Vector, _v: &Vector) -> f64 {
        0.0
    }
}

/// Haug's (1989, §7.4) test equation x' = x posed as q̈ = q (n = 1, m = 0, unit mass): from
/// q(0) = q̇(0) = 1 the exact solution is q = q̇ = e^t, and the first-order form (q, q̇)' = (q̇, q)
/// makes every Adams formula follow x' = x bit for bit in each component.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Growth;

impl System for Growth {
    fn n(&self) -> usize {
        1
    }
    fn m(&self) -> usize {
        0
    }
    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale);
    }
    fn forces(&self, _t: f64, q: &Vector, _v: &Vector, out: &mut Vector) {
        out[0] = q[0];
    }
    fn forces_q<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, scale: f64, out: &mut S) {
        out.add(0, 0, scale);
    }
    fn forces_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_depend_on_velocity(&self) -> bool {
        false
    }
    no_constraints!();
    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        -0.5 * q[0] * q[0]
    }
    fn nonconservative_power(&self, _t: f64, _q: &Vector, _v: &Vector) -> f64 {
        0.0
    }
}
