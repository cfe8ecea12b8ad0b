//! Time derivatives of the constraint gradients along the motion, Ḣ = dΦ_q/dt and Ḧ = d²Φ_q/dt², row by
//! row, for the tangent-space formulation (Fernández de Bustos, Uriarte, Urkullu & García-Marina 2022,
//! Meccanica 57:371, eqs. 35–48).
//!
//! For a scalar row φ of the six local slots (see [`super::kinematics`]) with gradient g, Hessian G and
//! third derivatives T, and local velocities v and accelerations a:
//!
//! ```text
//! ḣ = d g/dt = G v                      ḧ = d² g/dt² = T[v, v, ·] + G a
//! ```
//!
//! None of the planar rows has an explicit dependence of its gradient on time (drivers enter as
//! g(q) − f(t)), so Φ_qt = 0. This file supplies the one new ingredient, the contraction
//! `T[v, v, ·]` of each kernel, written out by the product rule from the derivatives of
//! `a = A(θ) s'`: ∂a/∂θ = R a, ∂²a/∂θ² = −a, ∂³a/∂θ³ = −R a (R the rotation by +90°).

use super::kinematics::{dot, perp, LVec, PointPair, NS, TI, TJ};

/// The velocity-contracted derivatives of d = r_Pj − r_Pi for local velocities `v` (ω_i = v[TI],
/// ω_j = v[TJ]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairRates {
    /// ḋ = Σ_a (∂d/∂slot_a) v_a \[m/s\].
    pub d_dot: [f64; 2],
    /// Column c is Σ_a v_a ∂²d/∂slot_a∂slot_c.
    pub e: [[f64; 2]; NS],
    /// Σ_ab v_a v_b ∂²d/∂slot_a∂slot_b.
    pub d2vv: [f64; 2],
    /// Column c is Σ_ab v_a v_b ∂³d/∂slot_a∂slot_b∂slot_c.
    pub d3vv: [[f64; 2]; NS],
}

impl PairRates {
    /// Evaluates the contractions for the pair `p` and local velocities `v`.
    pub(crate) fn new(p: &PointPair, v: &LVec) -> Self {
        let (wi, wj) = (v[TI], v[TJ]);
        let mut d_dot = [0.0; 2];
        for (col, va) in p.dcol.iter().zip(v.iter()) {
            d_dot[0] += col[0] * va;
            d_dot[1] += col[1] * va;
        }
        let mut e = [[0.0; 2]; NS];
        e[TI] = [p.a_i[0] * wi, p.a_i[1] * wi];
        e[TJ] = [-p.a_j[0] * wj, -p.a_j[1] * wj];
        let d2vv = [
            p.a_i[0] * wi * wi - p.a_j[0] * wj * wj,
            p.a_i[1] * wi * wi - p.a_j[1] * wj * wj,
        ];
        // ∂³d/∂θ_i³ = ∂(a_i)/∂θ_i = R a_i;  ∂³d/∂θ_j³ = −∂(a_j)/∂θ_j = −R a_j.
        let (pi, pj) = (perp(p.a_i), perp(p.a_j));
        let mut d3vv = [[0.0; 2]; NS];
        d3vv[TI] = [pi[0] * wi * wi, pi[1] * wi * wi];
        d3vv[TJ] = [-pj[0] * wj * wj, -pj[1] * wj * wj];
        PairRates {
            d_dot,
            e,
            d2vv,
            d3vv,
        }
    }
}

/// `T[v, v, ·]` of component `k` of d (revolute and fixed joints).
pub(crate) fn component(r: &PairRates, k: usize) -> LVec {
    let mut out = [0.0; NS];
    for (o, c) in out.iter_mut().zip(r.d3vv.iter()) {
        *o = c[k];
    }
    out
}

/// `T[v, v, ·]` of `(dᵀd − L²)/2` (distance joint): with d_a = ∂d/∂slot_a,
/// `T_c = 2 e_c·ḋ + d_c·(Σ v v ∂²d) + d·(Σ v v ∂³d)_c`.
pub(crate) fn half_square_distance(p: &PointPair, r: &PairRates) -> LVec {
    let mut out = [0.0; NS];
    for (c, o) in out.iter_mut().enumerate() {
        *o = 2.0 * dot(r.e[c], r.d_dot) + dot(p.dcol[c], r.d2vv) + dot(p.d, r.d3vv[c]);
    }
    out
}

/// `T[v, v, ·]` of `wᵀ d` with w = A_i w' fixed in body i (prismatic normal row and prismatic driver),
/// by the product rule over the eight ways of sharing three derivatives between w(θ_i) and d:
///
/// ```text
/// T_c = w·(Σvv∂³d)_c + 2ω_i (Rw)·e_c − ω_i² w·d_c
///       + δ_c,θi [ (Rw)·(Σvv∂²d) − 2ω_i w·ḋ − ω_i² (Rw)·d ]
/// ```
pub(crate) fn body_vector_dot(p: &PointPair, r: &PairRates, w_body: [f64; 2], wi: f64) -> LVec {
    let w = p.fi.rot(w_body);
    let pw = perp(w);
    let mut out = [0.0; NS];
    for (c, o) in out.iter_mut().enumerate() {
        *o = dot(w, r.d3vv[c]) + 2.0 * wi * dot(pw, r.e[c]) - wi * wi * dot(w, p.dcol[c]);
    }
    out[TI] += dot(pw, r.d2vv) - 2.0 * wi * dot(w, r.d_dot) - wi * wi * dot(pw, p.d);
    out
}

/// `T[v, v, ·]` of the body-frame origin coordinate `x_cm − (A com)_k` (coordinate driver x or y):
/// only ∂³/∂θ³ = (R A com)_k is non-zero.
pub(crate) fn frame_origin(a_com: [f64; 2], k: usize, w: f64) -> LVec {
    let mut out = [0.0; NS];
    out[TI] = perp(a_com)[k] * w * w;
    out
}
