//! The spatial system's force elements and their registry.
//!
//! Each kind implements [`ForceElement`] (`system/force_elements.rs`, shared with the planar
//! system); [`SpatialForce`] holds any kind, and the system keeps them in one
//! `ForceElements<SpatialForce>` list in file order. A new kind of force element (a bushing, a
//! beam) implements the trait in its own file and adds one name to the `force_elements!` line
//! below.

use super::beam::Beam;
use super::forces::Tsda;
use super::loads::Load;
use super::rsda::Rsda;
use super::{add_local, add_vector, SpatialSystem};
use crate::linalg::{Sink, Vector};
use crate::system::force_elements::ForceElement;
use crate::system::spatial::kinematics::NS;

/// Adds `scale ·` the local matrix (14 × 14) that `fill` writes to `out` through `slots`.
fn add_local_matrix<S: Sink>(
    slots: &super::kinematics::Slots,
    scale: f64,
    out: &mut S,
    fill: impl FnOnce(&mut super::kinematics::LMat),
) {
    let mut k = [[0.0; NS]; NS];
    fill(&mut k);
    add_local(out, slots, &k, scale);
}

impl ForceElement for Tsda {
    fn add_force(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        let f = self.force(t, &SpatialSystem::motion(&self.slots, q, v, None));
        add_vector(out, &self.slots, &f);
    }
    fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        let m = SpatialSystem::motion(&self.slots, q, v, None);
        add_local_matrix(&self.slots, scale, out, |k| {
            self.add_position_derivative(t, &m, k)
        });
    }
    fn add_force_v<S: Sink>(&self, _t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        let m = SpatialSystem::motion(&self.slots, q, v, None);
        add_local_matrix(&self.slots, scale, out, |k| {
            self.add_velocity_derivative(&m, k)
        });
    }
    fn depends_on_velocity(&self) -> bool {
        self.c != 0.0
    }
    fn potential(&self, q: &Vector) -> f64 {
        Tsda::potential(self, &self.slots.sides(&self.slots.gather(q)))
    }
    fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        Tsda::power(self, t, &SpatialSystem::motion(&self.slots, q, v, None))
    }
    fn breakpoints(&self, out: &mut Vec<f64>) {
        Tsda::breakpoints(self, out);
    }
}

impl ForceElement for Rsda {
    fn add_force(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        let f = self.force(t, &SpatialSystem::motion(&self.slots, q, v, None));
        add_vector(out, &self.slots, &f);
    }
    fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        let m = SpatialSystem::motion(&self.slots, q, v, None);
        add_local_matrix(&self.slots, scale, out, |k| {
            self.add_position_derivative(t, &m, k)
        });
    }
    fn add_force_v<S: Sink>(&self, _t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        let m = SpatialSystem::motion(&self.slots, q, v, None);
        add_local_matrix(&self.slots, scale, out, |k| {
            self.add_velocity_derivative(&m, k)
        });
    }
    fn depends_on_velocity(&self) -> bool {
        self.c != 0.0
    }
    fn potential(&self, q: &Vector) -> f64 {
        Rsda::potential(self, &self.slots.sides(&self.slots.gather(q)))
    }
    fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        Rsda::power(self, t, &SpatialSystem::motion(&self.slots, q, v, None))
    }
    fn breakpoints(&self, out: &mut Vec<f64>) {
        Rsda::breakpoints(self, out);
    }
}

impl ForceElement for Load {
    fn add_force(&self, t: f64, q: &Vector, _v: &Vector, out: &mut Vector) {
        Load::add_force(self, t, q, out);
    }
    fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, _v: &Vector, scale: f64, out: &mut S) {
        Load::add_force_q(self, t, q, scale, out);
    }
    fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        Load::power(self, t, q, v)
    }
    fn breakpoints(&self, out: &mut Vec<f64>) {
        Load::breakpoints(self, out);
    }
}

impl ForceElement for Beam {
    fn add_force(&self, _t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        Beam::add_force(self, q, v, out);
    }
    fn add_force_q<S: Sink>(&self, _t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        self.add_jacobian(q, v, false, scale, out);
    }
    fn add_force_v<S: Sink>(&self, _t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        if self.damped() {
            self.add_jacobian(q, v, true, scale, out);
        }
    }
    fn depends_on_velocity(&self) -> bool {
        self.damped()
    }
    fn potential(&self, q: &Vector) -> f64 {
        self.strain_energy(q)
    }
    fn power(&self, _t: f64, q: &Vector, v: &Vector) -> f64 {
        Beam::power(self, q, v)
    }
    fn internal_force_scale(&self) -> f64 {
        Beam::internal_force_scale(self)
    }
}

/// Defines [`SpatialForce`], one variant per kind, and forwards [`ForceElement`] to the kinds.
macro_rules! force_elements {
    ($($kind:ident),* $(,)?) => {
        /// A force element of any kind (the registry of the module documentation).
        #[derive(Debug, Clone)]
        // A few elements per model, evaluated in the hot loop: inline variants, no indirection.
        #[allow(clippy::large_enum_variant)]
        pub(crate) enum SpatialForce {
            $(
                #[doc = concat!("A [`", stringify!($kind), "`].")]
                $kind($kind),
            )*
        }

        impl ForceElement for SpatialForce {
            fn add_force(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
                match self { $(SpatialForce::$kind(e) => ForceElement::add_force(e, t, q, v, out)),* }
            }
            fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
                match self { $(SpatialForce::$kind(e) => ForceElement::add_force_q(e, t, q, v, scale, out)),* }
            }
            fn add_force_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
                match self { $(SpatialForce::$kind(e) => ForceElement::add_force_v(e, t, q, v, scale, out)),* }
            }
            fn depends_on_velocity(&self) -> bool {
                match self { $(SpatialForce::$kind(e) => ForceElement::depends_on_velocity(e)),* }
            }
            fn potential(&self, q: &Vector) -> f64 {
                match self { $(SpatialForce::$kind(e) => ForceElement::potential(e, q)),* }
            }
            fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
                match self { $(SpatialForce::$kind(e) => ForceElement::power(e, t, q, v)),* }
            }
            fn breakpoints(&self, out: &mut Vec<f64>) {
                match self { $(SpatialForce::$kind(e) => ForceElement::breakpoints(e, out)),* }
            }
            fn internal_force_scale(&self) -> f64 {
                match self { $(SpatialForce::$kind(e) => ForceElement::internal_force_scale(e)),* }
            }
        }
    };
}

force_elements!(Tsda, Rsda, Load, Beam);
