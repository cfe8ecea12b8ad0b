//! A flexible beam: the chain of three-node geometrically exact elements ([`element`]) that a
//! `[[spatial.beams]]` entry generates, as one force element of the spatial system.
//!
//! Element k joins nodes 2k, 2k + 1, 2k + 2 of the beam (its node bodies `<beam>.0`, …). Each
//! element's evaluation ([`section`]) and its finite-volume forces ([`element`]) are independent
//! of the others; the beam sums them.

pub(crate) mod element;
pub(crate) mod section;
pub(crate) mod tangent;
#[cfg(test)]
mod tests;

use self::element::{BeamElement, SectionLoads};
use crate::linalg::{Sink, Vector};

/// A beam: its elements in order along it.
#[derive(Debug, Clone)]
pub(crate) struct Beam {
    /// Its name in the model.
    pub name: String,
    /// The elements.
    pub elements: Vec<BeamElement>,
}

impl Beam {
    /// Adds every element's generalized force at (q, v) to `out` (n).
    pub fn add_force(&self, q: &Vector, v: &Vector, out: &mut Vector) {
        for e in &self.elements {
            e.add_force(q, v, out);
        }
    }

    /// Adds `scale ·` ∂Q/∂q (or ∂Q/∂v with `wrt_velocity`) of every element to `out` (n × n).
    pub fn add_jacobian<S: Sink>(
        &self,
        q: &Vector,
        v: &Vector,
        wrt_velocity: bool,
        scale: f64,
        out: &mut S,
    ) {
        for e in &self.elements {
            e.add_jacobian(q, v, wrt_velocity, scale, out);
        }
    }

    /// True when the section law has damping.
    pub fn damped(&self) -> bool {
        self.elements.iter().any(|e| e.damping != 0.0)
    }

    /// The largest section load at the reference strains, |C ε₀|∞ \[N or N m\] (EA for a
    /// straight beam: see [`crate::system::System::internal_force_scale`]).
    pub fn internal_force_scale(&self) -> f64 {
        self.elements
            .iter()
            .flat_map(|e| e.reference_loads())
            .flatten()
            .fold(0.0, |m, x| m.max(x.abs()))
    }

    /// The strain energy \[J\].
    pub fn strain_energy(&self, q: &Vector) -> f64 {
        self.elements.iter().map(|e| e.strain_energy(q)).sum()
    }

    /// The power of the forces beyond −dU/dt \[W\] (see [`element`]).
    pub fn power(&self, q: &Vector, v: &Vector) -> f64 {
        self.elements.iter().map(|e| e.power(q, v)).sum()
    }

    /// The section loads of element `k` in section axes (N, S_y, S_z, M_t, M_y, M_z) at its two
    /// points \[N, N m\].
    pub fn section_loads(&self, k: usize, q: &Vector, v: &Vector) -> SectionLoads {
        self.elements[k].section_loads(q, v)
    }
}
