//! The rotational spring–damper–actuator at a revolute or cylindrical joint (Haug 1989, §11.5.2):
//! torque on body j about the joint axis τ = −k (θ − θ₀) − c θ̇ + τ_a(t), the opposite on body i.
//!
//! The angle comes from the joint's rotation kernels K₁ = g_iᵀf_j = r sin θ, K₂ = f_iᵀf_j =
//! r cos θ ([`SpatialJoint::rotation_kernels`]): θ = atan2(K₁, K₂), measured from the initial
//! configuration, and θ − θ₀ is taken in (−π, π] (a spring twisted by more than half a turn
//! springs back the short way: the system carries no turn count). With a = ∇K₁, b = ∇K₂:
//!
//! ```text
//! ∇θ = (K₂ a − K₁ b) / r²
//! ∇²θ = [(K₁² − K₂²)(a bᵀ + b aᵀ) − 2 K₁K₂ (a aᵀ − b bᵀ)] / r⁴ + (K₂ ∇²K₁ − K₁ ∇²K₂) / r²
//! Q = τ ∇θ,  ∂Q/∂q = ∇θ (−k ∇θ − c ∇²θ v)ᵀ + τ ∇²θ,  ∂Q/∂v = −c ∇θ ∇θᵀ
//! ```

use super::joints::SpatialJoint;
use super::kinematics::{Kernel, LMat, LVec, Motion, Sides, Slots, NS};
use crate::model::function::TimeFunction;

/// A rotational spring–damper–actuator.
#[derive(Debug, Clone)]
pub(crate) struct Rsda {
    /// The joint's slots.
    pub slots: Slots,
    /// K₁, K₂.
    kernels: [Kernel; 2],
    /// Stiffness \[N m/rad\].
    pub k: f64,
    /// Free angle \[rad\].
    pub free_angle: f64,
    /// Damping \[N m s/rad\].
    pub c: f64,
    /// Actuator torque τ_a(t) \[N m\].
    pub actuator: Option<TimeFunction>,
}

/// The angle's state: θ − θ₀ in (−π, π], ∇θ and θ̇.
struct Angle {
    delta: f64,
    grad: LVec,
    rate: f64,
}

impl Rsda {
    /// The element at `joint`.
    pub fn new(
        joint: &SpatialJoint,
        k: f64,
        free_angle: f64,
        c: f64,
        actuator: Option<TimeFunction>,
    ) -> Self {
        Rsda {
            slots: joint.slots,
            kernels: joint.rotation_kernels(),
            k,
            free_angle,
            c,
            actuator,
        }
    }

    fn values(&self, x: &Sides) -> (f64, f64) {
        (self.kernels[0].value(x), self.kernels[1].value(x))
    }

    fn angle(&self, m: &Motion) -> Angle {
        let (k1, k2) = self.values(&m.x);
        let r2 = k1 * k1 + k2 * k2;
        let (a, b) = (
            self.kernels[0].gradient(&self.slots, &m.x),
            self.kernels[1].gradient(&self.slots, &m.x),
        );
        let mut grad = [0.0; NS];
        for i in 0..NS {
            grad[i] = (k2 * a[i] - k1 * b[i]) / r2;
        }
        let rate = grad.iter().zip(&m.v).map(|(g, v)| g * v).sum();
        Angle {
            delta: self.delta(&m.x),
            grad,
            rate,
        }
    }

    /// The torque τ \[N m\].
    fn torque(&self, t: f64, a: &Angle) -> f64 {
        let actuator = self.actuator.as_ref().map_or(0.0, |f| f.value(t));
        -self.k * a.delta - self.c * a.rate + actuator
    }

    /// The local generalized force τ ∇θ (14).
    pub fn force(&self, t: f64, m: &Motion) -> LVec {
        let a = self.angle(m);
        let tau = self.torque(t, &a);
        a.grad.map(|g| tau * g)
    }

    /// ∇²θ (14 × 14).
    fn angle_hessian(&self, x: &Sides) -> LMat {
        let (k1, k2) = self.values(x);
        let r2 = k1 * k1 + k2 * k2;
        let (a, b) = (
            self.kernels[0].gradient(&self.slots, x),
            self.kernels[1].gradient(&self.slots, x),
        );
        let mut h = [[0.0; NS]; NS];
        self.kernels[0].add_hessian(&self.slots, x, k2 / r2, &mut h);
        self.kernels[1].add_hessian(&self.slots, x, -k1 / r2, &mut h);
        let (s, d) = ((k1 * k1 - k2 * k2) / (r2 * r2), 2.0 * k1 * k2 / (r2 * r2));
        for i in 0..NS {
            for j in 0..NS {
                h[i][j] += s * (a[i] * b[j] + b[i] * a[j]) - d * (a[i] * a[j] - b[i] * b[j]);
            }
        }
        h
    }

    /// Adds the local ∂Q/∂q (14 × 14) to `kq`.
    pub fn add_position_derivative(&self, t: f64, m: &Motion, kq: &mut LMat) {
        let a = self.angle(m);
        let tau = self.torque(t, &a);
        let h = self.angle_hessian(&m.x);
        let mut tau_q = [0.0; NS];
        for (j, tj) in tau_q.iter_mut().enumerate() {
            let hv: f64 = (0..NS).map(|i| h[j][i] * m.v[i]).sum();
            *tj = -self.k * a.grad[j] - self.c * hv;
        }
        for i in 0..NS {
            for j in 0..NS {
                kq[i][j] += a.grad[i] * tau_q[j] + tau * h[i][j];
            }
        }
    }

    /// Adds the local ∂Q/∂v = −c ∇θ ∇θᵀ to `kv`.
    pub fn add_velocity_derivative(&self, m: &Motion, kv: &mut LMat) {
        let a = self.angle(m);
        for (row, gi) in kv.iter_mut().zip(&a.grad) {
            for (e, gj) in row.iter_mut().zip(&a.grad) {
                *e -= self.c * gi * gj;
            }
        }
    }

    /// θ − θ₀ in (−π, π].
    fn delta(&self, x: &Sides) -> f64 {
        let (k1, k2) = self.values(x);
        let d = k1.atan2(k2) - self.free_angle;
        d - (d / std::f64::consts::TAU).round() * std::f64::consts::TAU
    }

    /// Potential energy ½ k (θ − θ₀)² \[J\].
    pub fn potential(&self, x: &Sides) -> f64 {
        0.5 * self.k * self.delta(x).powi(2)
    }

    /// Power of the damper and the actuator (−c θ̇ + τ_a) θ̇ \[W\].
    pub fn power(&self, t: f64, m: &Motion) -> f64 {
        let a = self.angle(m);
        let actuator = self.actuator.as_ref().map_or(0.0, |f| f.value(t));
        (-self.c * a.rate + actuator) * a.rate
    }

    /// Appends the times where the actuator is not smooth.
    pub fn breakpoints(&self, out: &mut Vec<f64>) {
        if let Some(f) = &self.actuator {
            f.breakpoints(out);
        }
    }
}
