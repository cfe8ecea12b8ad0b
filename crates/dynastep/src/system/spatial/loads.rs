//! Applied forces and torques on spatial bodies, with components given as time functions in global
//! or body axes (Haug 1989, §11.2; Nikravesh 1988, §11.4). With w(t) the components, s the point
//! (body frame) and A = A(p):
//!
//! | load | Q_r | Q_p | ∂Q_p/∂p (∂Q_r/∂p) |
//! |---|---|---|---|
//! | force, global axes | w | B(p, s)ᵀw = H(w, s) p | H(w, s) |
//! | force, body axes | A w | B(p, s)ᵀA w | H(Aw, s) + B(p, s)ᵀB(p, w) (B(p, w)) |
//! | torque, global axes | 0 | 2 E(p)ᵀ w = 2 Ê(w) p | 2 Ê(w) |
//! | torque, body axes | 0 | 2 G(p)ᵀ w = 2 Ĝ(w) p | 2 Ĝ(w) |
//!
//! None depends on v; the power is F·ṙ_P (forces) or τ·ω (torques).

use nalgebra::Matrix4;

use super::euler::{b_matrix, e_hat, e_matrix, g_hat, g_matrix, h_matrix, rotation, V3, V4};
use crate::linalg::{Sink, Vector};
use crate::model::function::TimeFunction;

/// What a load applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadKind {
    /// A force at a point, components in global axes.
    GlobalForce,
    /// A force at a point, components in body axes (a follower force).
    BodyForce,
    /// A torque, components in global axes.
    GlobalTorque,
    /// A torque, components in body axes.
    BodyTorque,
}

/// An applied force or torque on one body.
#[derive(Debug, Clone)]
pub(crate) struct Load {
    /// What it applies.
    pub kind: LoadKind,
    /// Index of the body's x in q.
    pub r: usize,
    /// Index of its e₀ in q (rigid bodies).
    pub p: Option<usize>,
    /// Point of application in the body frame \[m\] (forces).
    pub s: V3,
    /// The components' functions (`None` is zero) \[N or N m\].
    pub components: [Option<TimeFunction>; 3],
}

impl Load {
    /// The components w(t).
    fn w(&self, t: f64) -> V3 {
        let c = |k: usize| self.components[k].as_ref().map_or(0.0, |f| f.value(t));
        V3::new(c(0), c(1), c(2))
    }

    fn euler(&self, x: &Vector) -> V4 {
        self.p.map_or(V4::new(1.0, 0.0, 0.0, 0.0), |i| {
            V4::new(x[i], x[i + 1], x[i + 2], x[i + 3])
        })
    }

    /// The generalized force on the body's translations (3) and Euler parameters (4).
    fn generalized(&self, t: f64, q: &Vector) -> (V3, V4) {
        let (w, p) = (self.w(t), self.euler(q));
        match self.kind {
            LoadKind::GlobalForce => (w, h_matrix(&w, &self.s) * p),
            LoadKind::BodyForce => {
                let f = rotation(&p) * w;
                (f, b_matrix(&p, &self.s).transpose() * f)
            }
            LoadKind::GlobalTorque => (V3::zeros(), 2.0 * e_hat(&w) * p),
            LoadKind::BodyTorque => (V3::zeros(), 2.0 * g_hat(&w) * p),
        }
    }

    /// Adds the generalized force to `out` (n entries).
    pub fn add_force(&self, t: f64, q: &Vector, out: &mut Vector) {
        let (fr, fp) = self.generalized(t, q);
        for k in 0..3 {
            out[self.r + k] += fr[k];
        }
        if let Some(i) = self.p {
            for k in 0..4 {
                out[i + k] += fp[k];
            }
        }
    }

    /// Adds `scale · ∂Q/∂q` to `out`, every entry of its blocks.
    pub fn add_force_q<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S) {
        let Some(i) = self.p else { return };
        let (w, p) = (self.w(t), self.euler(q));
        let pp: Matrix4<f64> = match self.kind {
            LoadKind::GlobalForce => h_matrix(&w, &self.s),
            LoadKind::BodyForce => {
                let bw = b_matrix(&p, &w);
                for a in 0..3 {
                    for b in 0..4 {
                        out.add(self.r + a, i + b, scale * bw[(a, b)]);
                    }
                }
                h_matrix(&(rotation(&p) * w), &self.s) + b_matrix(&p, &self.s).transpose() * bw
            }
            LoadKind::GlobalTorque => 2.0 * e_hat(&w),
            LoadKind::BodyTorque => 2.0 * g_hat(&w),
        };
        for a in 0..4 {
            for b in 0..4 {
                out.add(i + a, i + b, scale * pp[(a, b)]);
            }
        }
    }

    /// The power of the load at (t, q, v) \[W\]: F·ṙ_P or τ·ω.
    pub fn power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        let (w, p) = (self.w(t), self.euler(q));
        let pd = self.euler_rate(v);
        match self.kind {
            LoadKind::GlobalForce | LoadKind::BodyForce => {
                let f = if self.kind == LoadKind::BodyForce {
                    rotation(&p) * w
                } else {
                    w
                };
                let rd = V3::new(v[self.r], v[self.r + 1], v[self.r + 2]);
                f.dot(&(rd + b_matrix(&p, &self.s) * pd))
            }
            LoadKind::GlobalTorque => w.dot(&(2.0 * e_matrix(&p) * pd)),
            LoadKind::BodyTorque => w.dot(&(2.0 * g_matrix(&p) * pd)),
        }
    }

    fn euler_rate(&self, v: &Vector) -> V4 {
        self.p
            .map_or(V4::zeros(), |i| V4::new(v[i], v[i + 1], v[i + 2], v[i + 3]))
    }

    /// Appends the times where a component is not smooth.
    pub fn breakpoints(&self, out: &mut Vec<f64>) {
        for f in self.components.iter().flatten() {
            f.breakpoints(out);
        }
    }
}
