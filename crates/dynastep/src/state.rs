//! The state vocabulary every layer shares, below the systems: a complete state at one time and
//! the initial values a user holds during assembly. The systems produce and consume these; the
//! schemes, formulations and analyses pass them around.

use crate::linalg::{copy, Vector};

/// A complete state of the system at one time: t \[s\], q (n), v (n), a (n), λ (m).
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Time \[s\].
    pub t: f64,
    /// Generalized coordinates (n).
    pub q: Vector,
    /// Generalized velocities (n).
    pub v: Vector,
    /// Generalized accelerations (n).
    pub a: Vector,
    /// Lagrange multipliers (m).
    pub lambda: Vector,
}

impl State {
    /// A state of zeros for n coordinates and m constraints at time t.
    pub fn zeros(t: f64, n: usize, m: usize) -> Self {
        State {
            t,
            q: Vector::zeros(n),
            v: Vector::zeros(n),
            a: Vector::zeros(n),
            lambda: Vector::zeros(m),
        }
    }

    /// Copies `other` into `self` without allocating (shapes must match).
    ///
    /// # Panics
    /// When the shapes differ.
    pub fn copy_from(&mut self, other: &State) {
        self.t = other.t;
        copy(&mut self.q, &other.q);
        copy(&mut self.v, &other.v);
        copy(&mut self.a, &other.a);
        copy(&mut self.lambda, &other.lambda);
    }
}

/// Which initial values the user marked as given (held during assembly). Both vectors have n entries.
#[derive(Debug, Clone, PartialEq)]
pub struct GivenValues {
    /// Coordinate i is held at its initial value.
    pub positions: Vec<bool>,
    /// Velocity i is held at its initial value.
    pub velocities: Vec<bool>,
}

impl GivenValues {
    /// Nothing held, for n coordinates.
    pub fn none(n: usize) -> Self {
        GivenValues {
            positions: vec![false; n],
            velocities: vec![false; n],
        }
    }
}
