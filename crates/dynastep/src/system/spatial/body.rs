//! A spatial body: a rigid body with centroid r and Euler parameters p (seven coordinates, v = q̇),
//! or a point mass with r only (three).
//!
//! The body frame sits at the centroid; J' is the inertia tensor about the centroid in body axes.
//! With ω' = 2G(p)ṗ (Haug 1989, §11.1; Nikravesh 1988, §11.3):
//!
//! ```text
//! M = diag(m I₃, 4 G(p)ᵀ J' G(p))                       (7 × 7)
//! Q_p = 8 G(ṗ)ᵀ J' G(ṗ) p                               (gyroscopic, velocity-dependent)
//! T = ½ m ṙᵀṙ + 2 ṗᵀ G(p)ᵀ J' G(p) ṗ = ½ m ṙᵀṙ + ½ ω'ᵀ J' ω'
//! ```
//!
//! Lagrange's equations with T written this way give exactly M p̈ = Q_p + (applied) with the
//! normalization pᵀp = 1 as a constraint row ([`super::SpatialSystem`] adds ½(pᵀp − 1) = 0 per
//! rigid body). M is singular along p (G(p)p = 0); the normalization row makes the saddle-point
//! matrices regular.

use nalgebra::{Matrix3, Matrix4};

use super::euler::{g_hat, g_matrix, V3, V4};
use crate::linalg::{Sink, Vector};

/// One moving body of a spatial system.
#[derive(Debug, Clone)]
pub(crate) struct SpatialBody {
    /// Name in the model.
    pub name: String,
    /// Mass \[kg\].
    pub mass: f64,
    /// Inertia tensor about the centroid in body axes \[kg m²\]; `None` for a point mass.
    pub inertia: Option<Matrix3<f64>>,
    /// Index of x in q.
    pub r: usize,
    /// Index of e₀ in q (rigid bodies).
    pub p: Option<usize>,
    /// Initial centroid position \[m\], Euler parameters, centroid velocity \[m/s\] and Euler
    /// parameter rates \[1/s\].
    pub initial: (V3, V4, V3, V4),
}

/// The 4 × 4 rotational block of M: 4 G(p)ᵀ J' G(p).
pub(crate) fn rotational_mass(p: &V4, j: &Matrix3<f64>) -> Matrix4<f64> {
    let g = g_matrix(p);
    4.0 * g.transpose() * j * g
}

impl SpatialBody {
    /// Number of coordinates: 7 for a rigid body, 3 for a point mass.
    pub fn dofs(&self) -> usize {
        if self.p.is_some() {
            7
        } else {
            3
        }
    }

    /// Centroid position at q.
    pub fn position(&self, q: &Vector) -> V3 {
        V3::new(q[self.r], q[self.r + 1], q[self.r + 2])
    }

    /// Euler parameters at q ((1, 0, 0, 0) for a point mass).
    pub fn euler(&self, q: &Vector) -> V4 {
        match self.p {
            Some(i) => V4::new(q[i], q[i + 1], q[i + 2], q[i + 3]),
            None => V4::new(1.0, 0.0, 0.0, 0.0),
        }
    }

    /// Euler parameter rates (or accelerations) from v (or a); zero for a point mass.
    pub fn euler_rate(&self, v: &Vector) -> V4 {
        match self.p {
            Some(i) => V4::new(v[i], v[i + 1], v[i + 2], v[i + 3]),
            None => V4::zeros(),
        }
    }

    /// Adds `scale · M` of this body to `out`.
    pub fn add_mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        for k in 0..3 {
            out.add(self.r + k, self.r + k, scale * self.mass);
        }
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let m = rotational_mass(&self.euler(q), j);
            add_block4(out, i, &m, scale);
        }
    }

    /// Adds M a of this body to `out` (n entries): m a_r and 4 G(p)ᵀ J' (G(p) a_p), without
    /// forming the 4 × 4 block (a third of the flops of [`Self::add_mass`] and a product).
    pub fn add_mass_times(&self, q: &Vector, a: &Vector, out: &mut Vector) {
        for k in 0..3 {
            out[self.r + k] += self.mass * a[self.r + k];
        }
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let g = g_matrix(&self.euler(q));
            let f = 4.0 * g.transpose() * (j * (g * self.euler_rate(a)));
            for k in 0..4 {
                out[i + k] += f[k];
            }
        }
    }

    /// Adds `scale · ∂(M a)/∂q`: 4[Ĝ(J'G(p)a_p) − G(p)ᵀJ'G(a_p)] on the Euler parameters.
    pub fn add_mass_acceleration_q<S: Sink>(
        &self,
        q: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let (p, ap) = (self.euler(q), self.euler_rate(a));
            let g = g_matrix(&p);
            let m = 4.0 * (g_hat(&(j * g * ap)) - g.transpose() * j * g_matrix(&ap));
            add_block4(out, i, &m, scale);
        }
    }

    /// Adds the gyroscopic generalized force 8 G(ṗ)ᵀ J' G(ṗ) p to `out` (n entries).
    pub fn add_gyroscopic(&self, q: &Vector, v: &Vector, out: &mut Vector) {
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let (p, pd) = (self.euler(q), self.euler_rate(v));
            let gd = g_matrix(&pd);
            let f = 8.0 * gd.transpose() * (j * (gd * p));
            for k in 0..4 {
                out[i + k] += f[k];
            }
        }
    }

    /// Adds `scale · ∂Q_gyro/∂q` = 8 G(ṗ)ᵀ J' G(ṗ) to `out`.
    pub fn add_gyroscopic_q<S: Sink>(&self, v: &Vector, scale: f64, out: &mut S) {
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let gd = g_matrix(&self.euler_rate(v));
            add_block4(out, i, &(8.0 * gd.transpose() * j * gd), scale);
        }
    }

    /// Adds `scale · ∂Q_gyro/∂v` = 8[Ĝ(y) − G(ṗ)ᵀ J' G(p)], y = J'G(ṗ)p, to `out`.
    pub fn add_gyroscopic_v<S: Sink>(&self, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        if let (Some(i), Some(j)) = (self.p, &self.inertia) {
            let (p, pd) = (self.euler(q), self.euler_rate(v));
            let gd = g_matrix(&pd);
            let y = j * (gd * p);
            let m = 8.0 * (g_hat(&y) - gd.transpose() * j * g_matrix(&p));
            add_block4(out, i, &m, scale);
        }
    }
}

/// Adds `scale · m` (4 × 4) at (first, first) of `out`, every entry (explicit zeros included).
fn add_block4<S: Sink>(out: &mut S, first: usize, m: &Matrix4<f64>, scale: f64) {
    for a in 0..4 {
        for b in 0..4 {
            out.add(first + a, first + b, scale * m[(a, b)]);
        }
    }
}
