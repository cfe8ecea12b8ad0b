//! Spatial force elements: the translational spring–damper–actuator (TSDA) between two body
//! points (Haug 1989, §11.5.1; Nikravesh 1988, §11.6).
//!
//! With d = P_j − P_i, l = |d|, u = d/l and tension f = k (l − l₀) + c l̇ + f_a(t) (positive pulls
//! the points together), the generalized force is Q = −f D_qᵀ u. Its derivatives (f_a depends on
//! t only):
//!
//! ```text
//! ∂Q/∂q = −D_qᵀu f_q − f (D_qᵀ u_q + ∂²(uᵀd)/∂q²|_u),  u_q = (I − uuᵀ) D_q / l
//! f_q = k uᵀD_q + c (ḋᵀ u_q + uᵀ Ḋ_q),                Ḋ_q = d(D_q)/dt
//! ∂Q/∂v = −c D_qᵀu uᵀD_q
//! ```

use super::euler::V3;
use super::kinematics::{
    add_jt_j, axpy, j_times, jt_times, Expr, LJac, LMat, LVec, Motion, Sides, Slots, NS,
};
use crate::model::function::TimeFunction;

/// A spring–damper–actuator between two points.
#[derive(Debug, Clone)]
pub(crate) struct Tsda {
    /// Where the two bodies' coordinates are.
    pub slots: Slots,
    /// d = P_j − P_i.
    pub d: Expr,
    /// Stiffness \[N/m\].
    pub k: f64,
    /// Free length \[m\].
    pub free_length: f64,
    /// Damping \[N s/m\].
    pub c: f64,
    /// Actuator tension f_a(t) \[N\].
    pub actuator: Option<TimeFunction>,
}

/// A TSDA's state: length, its rate, direction, and D_q.
struct Stretch {
    l: f64,
    ldot: f64,
    u: V3,
    dq: LJac,
}

impl Tsda {
    /// Length l, its rate l̇ = uᵀ D_q v and the direction u, without forming D_q (the residual's
    /// path; [`Tsda::stretch`] forms it for the derivatives).
    fn length_rate(&self, m: &Motion) -> (f64, f64, V3) {
        let d = self.d.value(&m.x);
        let l = d.norm();
        let u = if l > 0.0 { d / l } else { V3::zeros() };
        (l, u.dot(&self.d.times(&self.slots, &m.x.p, &m.v)), u)
    }

    fn stretch(&self, m: &Motion) -> Stretch {
        let d = self.d.value(&m.x);
        let dq = self.d.jacobian(&self.slots, &m.x.p, true);
        let l = d.norm();
        let u = if l > 0.0 { d / l } else { V3::zeros() };
        Stretch {
            l,
            ldot: u.dot(&j_times(&dq, &m.v)),
            u,
            dq,
        }
    }

    /// The actuator's tension f_a(t) \[N\] (0 without one).
    fn actuator(&self, t: f64) -> f64 {
        self.actuator.as_ref().map_or(0.0, |f| f.value(t))
    }

    /// The tension f \[N\] at time t, length l and rate l̇.
    fn tension(&self, t: f64, l: f64, ldot: f64) -> f64 {
        self.k * (l - self.free_length) + self.c * ldot + self.actuator(t)
    }

    /// The local generalized force −f D_qᵀu (14) at time t.
    pub fn force(&self, t: f64, m: &Motion) -> LVec {
        let (l, ldot, u) = self.length_rate(m);
        let mut q = [0.0; NS];
        let f = self.tension(t, l, ldot);
        self.d
            .add_jt_times(&self.slots, &m.x.p, &u, true, -f, &mut q);
        q
    }

    /// Adds the local ∂Q/∂v = −c D_qᵀu uᵀD_q (14 × 14) to `kv`.
    pub fn add_velocity_derivative(&self, m: &Motion, kv: &mut LMat) {
        let s = self.stretch(m);
        if s.l == 0.0 {
            return;
        }
        let lq = jt_times(&s.dq, &s.u);
        for r in 0..NS {
            for c in 0..NS {
                kv[r][c] -= self.c * lq[r] * lq[c];
            }
        }
    }

    /// Adds the local ∂Q/∂q (14 × 14) at time t to `kq`.
    pub fn add_position_derivative(&self, t: f64, m: &Motion, kq: &mut LMat) {
        let s = self.stretch(m);
        if s.l == 0.0 {
            return;
        }
        let f = self.tension(t, s.l, s.ldot);
        // u_q = (I − uuᵀ) D_q / l, row by row.
        let mut uq = s.dq;
        for k in 0..NS {
            let col = V3::new(s.dq[0][k], s.dq[1][k], s.dq[2][k]);
            let c = (col - s.u * s.u.dot(&col)) / s.l;
            for (r, row) in uq.iter_mut().enumerate() {
                row[k] = c[r];
            }
        }
        let lq = jt_times(&s.dq, &s.u);
        let ddq = self.d.jacobian(&self.slots, &m.pdot, false);
        let ddot = j_times(&s.dq, &m.v);
        let mut ldq = jt_times(&uq, &ddot);
        axpy(&mut ldq, 1.0, &jt_times(&ddq, &s.u));
        let mut fq = [0.0; NS];
        axpy(&mut fq, self.k, &lq);
        axpy(&mut fq, self.c, &ldq);
        for r in 0..NS {
            for c in 0..NS {
                kq[r][c] -= lq[r] * fq[c];
            }
        }
        let c = self.d.columns(&self.slots);
        add_jt_j(&s.dq, c, &uq, c, -f, kq);
        self.d.add_hessian(&self.slots, &s.u, -f, kq);
    }

    /// Potential energy ½ k (l − l₀)² \[J\] at the sides' state.
    pub fn potential(&self, x: &Sides) -> f64 {
        let l = self.d.value(x).norm();
        0.5 * self.k * (l - self.free_length).powi(2)
    }

    /// Power of the damper and the actuator −(c l̇ + f_a) l̇ \[W\] at time t.
    pub fn power(&self, t: f64, m: &Motion) -> f64 {
        let (_, ldot, _) = self.length_rate(m);
        -(self.c * ldot + self.actuator(t)) * ldot
    }

    /// Appends the times where the actuator is not smooth.
    pub fn breakpoints(&self, out: &mut Vec<f64>) {
        if let Some(f) = &self.actuator {
            f.breakpoints(out);
        }
    }
}
