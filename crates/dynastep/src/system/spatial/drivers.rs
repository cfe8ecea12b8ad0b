//! Spatial drivers: a joint's rotation or translation, or a coordinate of a body's centroid,
//! prescribed in time, one row each.
//!
//! With the joint frame (f, g, h) of body i and its copy (f_j, g_j, h_j) in body j (equal at the
//! initial configuration) and d = P_j − P_i:
//!
//! | motion | row Φ |
//! |---|---|
//! | translation | h_iᵀd − f(t) \[m\] |
//! | rotation | cos f(t) · g_iᵀf_j − sin f(t) · f_iᵀf_j = sin(θ − f(t)) |
//! | coordinate k of body j's centroid | e_kᵀ r_j − f(t) \[m\] (a translation from the ground) |
//!
//! where θ is the angle of f_j from f_i about h (g_iᵀf_j = sin θ, f_iᵀf_j = cos θ for a revolute
//! joint): the rotation row is zero at θ = f with unit slope there, so its multiplier is the torque
//! about the axis (Haug 1989, §9.4, the rotational driver written without the angle's branch
//! switch). Both are `Σ c_k(t) K_k(q) − f₀(t)` with [`Kernel`]s K_k, whose time derivatives follow
//! from the coefficients' (Φ_t, γ, Ḣ, Ḧ below).

use super::euler::V3;
use super::joints::SpatialJoint;
use super::kinematics::Expr;
use super::kinematics::{axpy, Cols, Kernel, LMat, LPattern, LVec, Motion, Sides, Slots, NS};
use crate::model::function::TimeFunction;
use crate::model::JointMotion;

/// A driver of a spatial joint or of a body coordinate.
#[derive(Debug, Clone)]
pub(crate) struct SpatialDriver {
    /// Name in the model.
    pub name: String,
    /// What it prescribes.
    pub motion: JointMotion,
    /// The driven joint's slots.
    pub slots: Slots,
    /// The kernels K_k (one for a translation, two for a rotation).
    kernels: Vec<Kernel>,
    /// f(t).
    pub function: TimeFunction,
    /// The slots where Φ_q may be nonzero (over the kernels).
    pub columns: Cols,
    /// The entries where λΦ_qq may be nonzero (over the kernels).
    pub hessian: LPattern,
    /// Row in Φ.
    pub row: usize,
}

/// A time jet (value, first and second time derivatives).
type Jet = [f64; 3];

impl SpatialDriver {
    /// The driver of `joint`'s `motion` by `function`, at row `row`.
    pub fn new(
        name: String,
        motion: JointMotion,
        joint: &SpatialJoint,
        function: TimeFunction,
        row: usize,
    ) -> Self {
        let g = &joint.geometry;
        let [[fi, gi, hi], [fj, _, _]] = g.frame;
        let kernels = match motion {
            JointMotion::Translation => {
                vec![Kernel::dot(
                    Expr::vector(0, hi),
                    Expr::between(g.s[0], g.s[1]),
                )]
            }
            JointMotion::Rotation => vec![
                Kernel::dot(Expr::vector(0, gi), Expr::vector(1, fj)),
                Kernel::dot(Expr::vector(0, fi), Expr::vector(1, fj)),
            ],
        };
        Self::with_kernels(name, motion, joint.slots, kernels, function, row)
    }

    /// The driver of coordinate `axis` (0, 1, 2: x, y, z) of the centroid of the body on side j of
    /// `slots` (side i the ground) by `function`, at row `row`: e_kᵀ r_j − f(t), a translation
    /// along e_k from the global origin.
    pub fn coordinate(
        name: String,
        slots: Slots,
        axis: usize,
        function: TimeFunction,
        row: usize,
    ) -> Self {
        let e_k = Expr::constant(V3::ith(axis, 1.0));
        let kernels = vec![Kernel::dot(Expr::between(V3::zeros(), V3::zeros()), e_k)];
        Self::with_kernels(
            name,
            JointMotion::Translation,
            slots,
            kernels,
            function,
            row,
        )
    }

    /// A driver of the row Σ c_k(t) K_k − f₀(t), with its structural patterns.
    fn with_kernels(
        name: String,
        motion: JointMotion,
        slots: Slots,
        kernels: Vec<Kernel>,
        function: TimeFunction,
        row: usize,
    ) -> Self {
        let columns = kernels
            .iter()
            .fold(Cols::default(), |c, k| c.union(k.gradient_columns(&slots)));
        let hessian = kernels.iter().fold(LPattern::default(), |h, k| {
            h.union(k.hessian_pattern(&slots))
        });
        SpatialDriver {
            name,
            motion,
            slots,
            kernels,
            function,
            columns,
            hessian,
            row,
        }
    }

    /// The coefficient jets c_k(t) and f₀(t).
    fn coefficients(&self, t: f64) -> ([Jet; 2], Jet) {
        let (f, fd, fdd) = self.function.eval(t);
        match self.motion {
            JointMotion::Translation => ([[1.0, 0.0, 0.0], [0.0; 3]], [f, fd, fdd]),
            JointMotion::Rotation => {
                let (s, c) = f.sin_cos();
                (
                    [
                        [c, -s * fd, -c * fd * fd - s * fdd],
                        [-s, -c * fd, s * fd * fd - c * fdd],
                    ],
                    [0.0; 3],
                )
            }
        }
    }

    /// Φ at time t.
    pub fn value(&self, t: f64, x: &Sides) -> f64 {
        let (c, f0) = self.coefficients(t);
        self.kernels
            .iter()
            .zip(&c)
            .map(|(k, c)| c[0] * k.value(x))
            .sum::<f64>()
            - f0[0]
    }

    /// Φ_t = Σ ċ_k K_k − ḟ₀.
    pub fn time_derivative(&self, t: f64, x: &Sides) -> f64 {
        let (c, f0) = self.coefficients(t);
        self.kernels
            .iter()
            .zip(&c)
            .map(|(k, c)| c[1] * k.value(x))
            .sum::<f64>()
            - f0[1]
    }

    /// Φ_q (14) = Σ c_k ∇K_k.
    pub fn gradient(&self, t: f64, x: &Sides) -> LVec {
        let (c, _) = self.coefficients(t);
        let mut g = [0.0; NS];
        for (k, c) in self.kernels.iter().zip(&c) {
            axpy(&mut g, c[0], &k.gradient(&self.slots, x));
        }
        g
    }

    /// γ = Σ (c_k γ_k − c̈_k K_k − 2 ċ_k ∇K_k·v) + f̈₀.
    pub fn gamma(&self, t: f64, m: &Motion) -> f64 {
        let (c, f0) = self.coefficients(t);
        let mut gamma = f0[2];
        for (k, c) in self.kernels.iter().zip(&c) {
            let rate: f64 = k
                .gradient(&self.slots, &m.x)
                .iter()
                .zip(&m.v)
                .map(|(a, b)| a * b)
                .sum();
            gamma += c[0] * k.gamma(&self.slots, m) - c[2] * k.value(&m.x) - 2.0 * c[1] * rate;
        }
        gamma
    }

    /// Ḣ row = Σ (ċ_k ∇K_k + c_k Ḣ_k).
    pub fn rate(&self, t: f64, m: &Motion) -> LVec {
        let (c, _) = self.coefficients(t);
        let mut h = [0.0; NS];
        for (k, c) in self.kernels.iter().zip(&c) {
            axpy(&mut h, c[1], &k.gradient(&self.slots, &m.x));
            axpy(&mut h, c[0], &k.rate(&self.slots, m));
        }
        h
    }

    /// Ḧ row = Σ (c̈_k ∇K_k + 2 ċ_k Ḣ_k + c_k Ḧ_k).
    pub fn second_rate(&self, t: f64, m: &Motion) -> LVec {
        let (c, _) = self.coefficients(t);
        let mut h = [0.0; NS];
        for (k, c) in self.kernels.iter().zip(&c) {
            axpy(&mut h, c[2], &k.gradient(&self.slots, &m.x));
            axpy(&mut h, 2.0 * c[1], &k.rate(&self.slots, m));
            axpy(&mut h, c[0], &k.second_rate(&self.slots, m));
        }
        h
    }

    /// Adds λ Φ_qq = Σ λ c_k ∇²K_k to `out`.
    pub fn add_hessian(&self, t: f64, x: &Sides, lambda: f64, out: &mut LMat) {
        let (c, _) = self.coefficients(t);
        for (k, c) in self.kernels.iter().zip(&c) {
            k.add_hessian(&self.slots, x, lambda * c[0], out);
        }
    }
}
