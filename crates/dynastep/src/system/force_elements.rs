//! Force elements behind one interface, and the one loop over them that planar and spatial
//! systems share.
//!
//! [`ForceElement`] is what a force element adds to the equations of motion: its generalized force
//! Q (n entries), its Jacobians ∂Q/∂q and ∂Q/∂v, its potential energy, the power of its
//! non-conservative part, and the breakpoints of its time functions. Each kind of model keeps its
//! elements, of every kind, in one [`ForceElements`] list in file order (the planar list starts
//! with the bodies' weights), and each `System` method runs the list's loop. An element gathers
//! the coordinates it needs from q and v, evaluates locally and scatters into the global vector or
//! matrix, so the loop does not know the dimension of the model.
//!
//! A new kind of force element (a bushing, a beam) implements the trait in its own file and adds
//! one name to the registry of its model kind (`force_elements!` in `system/spatial/element.rs`).

use crate::linalg::{Sink, Vector};

/// A force element (see the module documentation). q, v have n entries; forces are in N and N m
/// on the coordinates' conjugates, energies in J, powers in W.
pub(crate) trait ForceElement {
    /// Adds its generalized force at (t, q, v) to `out` (n).
    fn add_force(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector);
    /// Adds `scale ·` ∂Q/∂q at (t, q, v) to `out` (n × n).
    fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S);
    /// Adds `scale ·` ∂Q/∂v at (t, q, v) to `out` (n × n); nothing for a force that does not
    /// depend on the velocities.
    fn add_force_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    /// True when its force depends on the velocities.
    fn depends_on_velocity(&self) -> bool {
        false
    }
    /// Its potential energy at q \[J\] (0 for a force without one).
    fn potential(&self, _q: &Vector) -> f64 {
        0.0
    }
    /// The power of its non-conservative part at (t, q, v) \[W\].
    fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64;
    /// Appends the times where its time functions are not smooth.
    fn breakpoints(&self, _out: &mut Vec<f64>) {}
    /// The size of the internal forces that cancel in its Q \[N\] (a beam's section forces at its
    /// reference strains); 0 for an element whose Q is not such a difference. See
    /// [`crate::system::System::internal_force_scale`].
    fn internal_force_scale(&self) -> f64 {
        0.0
    }
}

/// The force elements of a system in file order, each with the label messages name it by (e.g.
/// "force `spring` (tsda)"), and the loops every `System` method runs over them.
#[derive(Debug, Clone)]
pub(crate) struct ForceElements<E> {
    elements: Vec<E>,
    labels: Vec<String>,
    /// True when any element depends on the velocities (fixed at construction).
    velocity: bool,
    /// The largest element's internal force scale \[N\] (fixed at construction).
    internal: f64,
}

impl<E: ForceElement> ForceElements<E> {
    /// The list of `(label, element)` pairs, in order.
    pub fn new(elements: Vec<(String, E)>) -> Self {
        let (labels, elements): (Vec<_>, Vec<_>) = elements.into_iter().unzip();
        let velocity = elements.iter().any(E::depends_on_velocity);
        let internal = elements
            .iter()
            .map(E::internal_force_scale)
            .fold(0.0, f64::max);
        ForceElements {
            elements,
            labels,
            velocity,
            internal,
        }
    }

    /// Adds every element's Q at (t, q, v) to `out` (n).
    pub fn add_forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        for e in &self.elements {
            e.add_force(t, q, v, out);
        }
    }

    /// Adds `scale ·` every element's ∂Q/∂q to `out` (n × n).
    pub fn add_forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for e in &self.elements {
            e.add_force_q(t, q, v, scale, out);
        }
    }

    /// Adds `scale ·` every element's ∂Q/∂v to `out` (n × n).
    pub fn add_forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for e in &self.elements {
            e.add_force_v(t, q, v, scale, out);
        }
    }

    /// The elements, in order.
    pub fn elements(&self) -> impl Iterator<Item = &E> {
        self.elements.iter()
    }

    /// True when any element depends on the velocities.
    pub fn depend_on_velocity(&self) -> bool {
        self.velocity
    }

    /// The largest internal force scale of its elements \[N\].
    pub fn internal_force_scale(&self) -> f64 {
        self.internal
    }

    /// Adds every element's potential energy at q to `u` \[J\], in order.
    pub fn add_potential(&self, q: &Vector, u: &mut f64) {
        for e in &self.elements {
            *u += e.potential(q);
        }
    }

    /// The sum of the elements' non-conservative powers at (t, q, v) \[W\].
    pub fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        self.elements.iter().map(|e| e.power(t, q, v)).sum()
    }

    /// Appends every element's breakpoints to `out`.
    pub fn breakpoints(&self, out: &mut Vec<f64>) {
        for e in &self.elements {
            e.breakpoints(out);
        }
    }

    /// Names the first element whose force at (t, q, v) is not finite or beyond
    /// [`super::ABSURD`]; `None` when each is sane. Allocates (used once, after a failure).
    pub fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        let mut out = Vector::zeros(q.len());
        for (e, label) in self.elements.iter().zip(&self.labels) {
            out.fill(0.0);
            e.add_force(t, q, v, &mut out);
            if out.iter().any(|x| !super::sane(*x)) {
                return Some(format!(
                    "{label} gives a non-finite or absurdly large force (above {:e}) at t = {t} s; check its time function, its parameters and units, or (for a TSDA) whether its points coincide",
                    super::ABSURD
                ));
            }
        }
        None
    }
}
