//! The spatial constraint kernels: points and vectors fixed in a body, their sums, and the scalar
//! kernel `scale · uᵀw − offset` from which every joint row is built (Haug 1989, §9.2: the
//! dot-1, dot-2, spherical and distance constraints are all of this form).
//!
//! # Local layout
//! An element sees at most two bodies, i and j. Its local coordinates are the fourteen *slots*
//! `[r_i (3), p_i (4), r_j (3), p_j (4)]`. A slot whose coordinate does not exist (the ground, the
//! Euler parameters of a point mass) is evaluated frozen (r = 0, p = (1, 0, 0, 0)) and dropped when
//! the element writes into a global vector or matrix; the written entries depend only on which
//! slots exist, so every call writes the same entries in the same order.
//!
//! # Derivatives
//! A point `r + A(p)s` or vector `A(p)s` is linear in r and quadratic in p, so (module
//! [`super::euler`]) its p-Jacobian is B(p, s), linear in p: its rate along the motion is B(ṗ, s),
//! its second rate B(p̈, s), the velocity part of its acceleration B(ṗ, s)ṗ, and the Hessian of
//! wᵀ(A s) is the constant H(w, s). The kernels combine these by the product rule; nothing is
//! differentiated numerically.

use nalgebra::{Matrix3, Matrix3x4, Matrix4};

use super::euler::{b_matrix, bt_times, h_matrix, rotation, V3, V4};

/// Number of local slots of an element.
pub(crate) const NS: usize = 14;
/// A local vector (one entry per slot).
pub(crate) type LVec = [f64; NS];
/// A local square matrix (slot × slot).
pub(crate) type LMat = [[f64; NS]; NS];
/// A local 3 × 14 Jacobian of a 3-vector.
pub(crate) type LJac = [[f64; NS]; 3];

/// The local columns (slots) in which a Jacobian may be nonzero, one bit per slot: the products
/// of local Jacobians skip the others (a body-fixed direction touches 4 of the 14 slots, a
/// constant none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Cols(u16);

impl Cols {
    /// Every slot.
    pub const ALL: Cols = Cols((1 << NS) - 1);

    /// The slots of either.
    pub const fn union(self, other: Cols) -> Cols {
        Cols(self.0 | other.0)
    }

    /// True when slot `k` is among these.
    #[inline]
    pub const fn contains(self, k: usize) -> bool {
        self.0 & (1 << k) != 0
    }

    /// True when there is no slot.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The slots `first .. first + len`, added to these.
    const fn with(self, first: usize, len: usize) -> Cols {
        Cols(self.0 | (((1u16 << len) - 1) << first))
    }

    /// The slots, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..NS).filter(move |k| self.0 & (1 << k) != 0)
    }
}

/// The entries of a local matrix (slot × slot) that may be nonzero: the columns of each local
/// row. Structural: it depends on which slots exist and on the body-fixed vectors, not on the
/// state, so that an element writes the same entries at every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LPattern([Cols; NS]);

impl LPattern {
    /// Every entry.
    pub const ALL: LPattern = LPattern([Cols::ALL; NS]);

    /// The columns of local row `r`.
    pub fn row(&self, r: usize) -> Cols {
        self.0[r]
    }

    /// The entries of either.
    pub fn union(mut self, other: LPattern) -> LPattern {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.union(b);
        }
        self
    }

    /// Adds the entries (r, c) and (c, r) for every r in `rows` and c in `cols`.
    fn add_symmetric(&mut self, rows: Cols, cols: Cols) {
        for r in rows.iter() {
            self.0[r] = self.0[r].union(cols);
        }
        for c in cols.iter() {
            self.0[c] = self.0[c].union(rows);
        }
    }
}

/// First slot of side `side`'s position (0 = body i, 1 = body j).
pub(crate) const fn r_slot(side: usize) -> usize {
    7 * side
}

/// First slot of side `side`'s Euler parameters.
pub(crate) const fn p_slot(side: usize) -> usize {
    7 * side + 3
}

/// The state of the two sides of an element, gathered from the global vectors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sides {
    /// Positions (zero for the ground).
    pub r: [V3; 2],
    /// Euler parameters ((1, 0, 0, 0) for the ground and point masses).
    pub p: [V4; 2],
    /// The rotation matrices A(p) of the two sides, computed once for every row of the element.
    pub a: [Matrix3<f64>; 2],
}

/// The local layout of an element: which slots exist, and where they are in q.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slots {
    /// Global index of the first position coordinate of each side; `None` for the ground.
    pub r: [Option<usize>; 2],
    /// Global index of the first Euler parameter of each side; `None` for the ground and point
    /// masses.
    pub p: [Option<usize>; 2],
    /// The existing slots, in increasing order, with their global indices (the first `len`
    /// entries): computed once, so that scattering a local row does not decode slots.
    existing: [(usize, usize); NS],
    len: usize,
}

impl Slots {
    /// The layout of an element whose sides have their positions at `r` and Euler parameters at
    /// `p` in q (`None` where a coordinate does not exist).
    pub fn new(r: [Option<usize>; 2], p: [Option<usize>; 2]) -> Self {
        let mut s = Slots {
            r,
            p,
            existing: [(0, 0); NS],
            len: 0,
        };
        for k in 0..NS {
            if let Some(i) = s.decode(k) {
                s.existing[s.len] = (k, i);
                s.len += 1;
            }
        }
        s
    }

    /// The global index of local slot `k`, when it exists.
    fn decode(&self, k: usize) -> Option<usize> {
        let side = k / 7;
        let within = k % 7;
        if within < 3 {
            self.r[side].map(|i| i + within)
        } else {
            self.p[side].map(|i| i + within - 3)
        }
    }

    /// The existing slots and their global indices (local, global), in increasing order.
    #[inline]
    pub fn existing(&self) -> &[(usize, usize)] {
        &self.existing[..self.len]
    }

    /// Gathers the local values of a global vector x (q, v or a).
    pub fn gather(&self, x: &crate::linalg::Vector) -> LVec {
        let mut out = [0.0; NS];
        for &(k, i) in self.existing() {
            out[k] = x[i];
        }
        out
    }

    /// The two sides' positions and Euler parameters at the local values `x` (from [`Slots::gather`]
    /// of q): frozen values where a slot does not exist.
    pub fn sides(&self, x: &LVec) -> Sides {
        let mut s = Sides {
            r: [V3::zeros(); 2],
            p: [V4::new(1.0, 0.0, 0.0, 0.0); 2],
            a: [Matrix3::identity(); 2],
        };
        for side in 0..2 {
            let (r, p) = (r_slot(side), p_slot(side));
            s.r[side] = V3::new(x[r], x[r + 1], x[r + 2]);
            if self.p[side].is_some() {
                s.p[side] = V4::new(x[p], x[p + 1], x[p + 2], x[p + 3]);
                s.a[side] = rotation(&s.p[side]);
            }
        }
        s
    }

    /// The Euler-parameter rates (or accelerations) of both sides from local values `x` of v (or
    /// a): zero where a side has none.
    pub fn p_rates(&self, x: &LVec) -> [V4; 2] {
        let mut out = [V4::zeros(); 2];
        for (side, o) in out.iter_mut().enumerate() {
            if self.p[side].is_some() {
                let p = p_slot(side);
                *o = V4::new(x[p], x[p + 1], x[p + 2], x[p + 3]);
            }
        }
        out
    }
}

/// A point (`r + A s`) or vector (`A s`) fixed in side `side` of an element, with sign ±1, or a
/// constant global vector (`side` = `None`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Term {
    /// 0 = body i, 1 = body j, `None` = a constant of the ground frame.
    pub side: Option<usize>,
    /// +1 or −1.
    pub sign: f64,
    /// Body-frame coordinates \[m or −\].
    pub s: V3,
    /// True for a point (adds the body's position), false for a direction.
    pub point: bool,
}

/// A sum of at most two [`Term`]s: a global vector as a function of the element's slots, such as
/// d = P_j − P_i or a joint axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Expr {
    terms: [Term; 2],
    len: usize,
}

impl Expr {
    /// One term.
    pub fn one(t: Term) -> Self {
        Expr {
            terms: [t, t],
            len: 1,
        }
    }

    /// A direction fixed in side `side` (body-frame components `s`).
    pub fn vector(side: usize, s: V3) -> Self {
        Self::one(Term {
            side: Some(side),
            sign: 1.0,
            s,
            point: false,
        })
    }

    /// A constant global vector.
    pub fn constant(s: V3) -> Self {
        Self::one(Term {
            side: None,
            sign: 1.0,
            s,
            point: false,
        })
    }

    /// d = P_j − P_i from body-frame points s_i of body i and s_j of body j.
    pub fn between(s_i: V3, s_j: V3) -> Self {
        let point = |side, sign, s| Term {
            side: Some(side),
            sign,
            s,
            point: true,
        };
        Expr {
            terms: [point(1, 1.0, s_j), point(0, -1.0, s_i)],
            len: 2,
        }
    }

    fn terms(&self) -> &[Term] {
        &self.terms[..self.len]
    }

    /// The value at the sides' state.
    pub fn value(&self, x: &Sides) -> V3 {
        let mut out = V3::zeros();
        for t in self.terms() {
            out += t.sign
                * match t.side {
                    None => t.s,
                    Some(k) => {
                        let a = x.a[k] * t.s;
                        if t.point {
                            x.r[k] + a
                        } else {
                            a
                        }
                    }
                };
        }
        out
    }

    /// The Jacobian with respect to the slots, 3 × 14 (`slots` says which exist). With `p` the
    /// Euler parameters of the sides it is the Jacobian itself; with their rates (or
    /// accelerations) in place of `p` and `translations` false, it is the Jacobian's rate (second
    /// rate), since the p-blocks B(p, s) are linear in p and the r-blocks constant.
    pub fn jacobian(&self, slots: &Slots, p: &[V4; 2], translations: bool) -> LJac {
        let mut out = [[0.0; NS]; 3];
        for t in self.terms() {
            let Some(k) = t.side else { continue };
            if t.point && translations && slots.r[k].is_some() {
                for (c, row) in out.iter_mut().enumerate() {
                    row[r_slot(k) + c] += t.sign;
                }
            }
            if slots.p[k].is_some() {
                let b: Matrix3x4<f64> = b_matrix(&p[k], &t.s);
                for (c, row) in out.iter_mut().enumerate() {
                    for e in 0..4 {
                        row[p_slot(k) + e] += t.sign * b[(c, e)];
                    }
                }
            }
        }
        out
    }

    /// Adds `scale · Jᵀw` (14) to `out` without forming J, the Jacobian [`Self::jacobian`] returns
    /// for the same `p` and `translations`: ±w on a point's position slots (with `translations`),
    /// ±B(p, s)ᵀw on the Euler-parameter slots. The gradients of every kernel are sums of these.
    #[inline]
    pub fn add_jt_times(
        &self,
        slots: &Slots,
        p: &[V4; 2],
        w: &V3,
        translations: bool,
        scale: f64,
        out: &mut LVec,
    ) {
        for t in self.terms() {
            let Some(k) = t.side else { continue };
            let f = scale * t.sign;
            if t.point && translations && slots.r[k].is_some() {
                for c in 0..3 {
                    out[r_slot(k) + c] += f * w[c];
                }
            }
            if slots.p[k].is_some() {
                let g = bt_times(&p[k], &t.s, w);
                for e in 0..4 {
                    out[p_slot(k) + e] += f * g[e];
                }
            }
        }
    }

    /// J y (3) for the Jacobian with translations at the Euler parameters `p` and local values y
    /// (14; v gives the expression's rate), without forming J.
    #[inline]
    pub fn times(&self, slots: &Slots, p: &[V4; 2], y: &LVec) -> V3 {
        let mut out = V3::zeros();
        for t in self.terms() {
            let Some(k) = t.side else { continue };
            if t.point && slots.r[k].is_some() {
                let r = r_slot(k);
                out += t.sign * V3::new(y[r], y[r + 1], y[r + 2]);
            }
            if slots.p[k].is_some() {
                let o = p_slot(k);
                let yp = V4::new(y[o], y[o + 1], y[o + 2], y[o + 3]);
                out += t.sign * (b_matrix(&p[k], &t.s) * yp);
            }
        }
        out
    }

    /// The components (bits 0, 1, 2 for x, y, z) in which the value may be nonzero: all three for
    /// a term that moves (a body's direction, a point of a body that moves), those of s for a
    /// constant (a ground vector or point, the direction of a point mass, whose A stays I).
    fn components(&self, slots: &Slots) -> u16 {
        let mut c = 0;
        for t in self.terms() {
            let moves = t
                .side
                .is_some_and(|k| slots.p[k].is_some() || (t.point && slots.r[k].is_some()));
            for k in 0..3 {
                if moves || t.s[k] != 0.0 {
                    c |= 1 << k;
                }
            }
        }
        c
    }

    /// The slots the value depends on: the position slots of its points (its Jacobian there is
    /// ±I), and the Euler parameters of the sides of terms with s ≠ 0 (B(p, 0) = 0).
    fn dependence(&self, slots: &Slots) -> (Cols, Cols) {
        let (mut r, mut p) = (Cols(0), Cols(0));
        for t in self.terms() {
            let Some(k) = t.side else { continue };
            if t.point && slots.r[k].is_some() {
                r = r.with(r_slot(k), 3);
            }
            if slots.p[k].is_some() && t.s != V3::zeros() {
                p = p.with(p_slot(k), 4);
            }
        }
        (r, p)
    }

    /// The slots where Jᵀw may be nonzero when w may be nonzero in the components `w` (bits):
    /// the position slots of those components, and the Euler parameters it depends on.
    fn jt_columns(&self, slots: &Slots, w: u16) -> Cols {
        if w == 0 {
            return Cols(0);
        }
        let (r, p) = self.dependence(slots);
        let r = Cols(r.0 & (w | w << 7));
        r.union(p)
    }

    /// The Euler-parameter blocks where [`Self::add_hessian`] writes H(w, s) ≠ 0: one per term
    /// with s ≠ 0 on a side with Euler parameters.
    fn hessian_blocks(&self, slots: &Slots) -> LPattern {
        let mut h = LPattern::default();
        for t in self.terms() {
            let Some(k) = t.side else { continue };
            if slots.p[k].is_some() && t.s != V3::zeros() {
                let b = Cols(0).with(p_slot(k), 4);
                h.add_symmetric(b, b);
            }
        }
        h
    }

    /// The slots in which [`Self::jacobian`] (with translations) may be nonzero: those the
    /// value depends on.
    pub fn columns(&self, slots: &Slots) -> Cols {
        let (r, p) = self.dependence(slots);
        r.union(p)
    }

    /// The velocity-dependent part of the acceleration, Σ ± B(ṗ, s) ṗ (the rest is the Jacobian
    /// times the local accelerations).
    pub fn acceleration_from_rates(&self, slots: &Slots, pdot: &[V4; 2]) -> V3 {
        let mut out = V3::zeros();
        for t in self.terms() {
            if let Some(k) = t.side.filter(|&k| slots.p[k].is_some()) {
                out += t.sign * (b_matrix(&pdot[k], &t.s) * pdot[k]);
            }
        }
        out
    }

    /// Adds the Hessian of wᵀ·(this expression) with w held fixed, times `scale`, to `out`: the
    /// constant blocks ± H(w, s) on each side's Euler parameters.
    pub fn add_hessian(&self, slots: &Slots, w: &V3, scale: f64, out: &mut LMat) {
        for t in self.terms() {
            let Some(k) = t.side.filter(|&k| slots.p[k].is_some()) else {
                continue;
            };
            let h: Matrix4<f64> = h_matrix(w, &t.s);
            let o = p_slot(k);
            for a in 0..4 {
                for b in 0..4 {
                    out[o + a][o + b] += scale * t.sign * h[(a, b)];
                }
            }
        }
    }
}

/// Jᵀ x for a local Jacobian J (3 × 14) and a 3-vector x.
pub(crate) fn jt_times(j: &LJac, x: &V3) -> LVec {
    let mut out = [0.0; NS];
    for (k, o) in out.iter_mut().enumerate() {
        *o = j[0][k] * x.x + j[1][k] * x.y + j[2][k] * x.z;
    }
    out
}

/// J y for a local Jacobian J and local vector y.
pub(crate) fn j_times(j: &LJac, y: &LVec) -> V3 {
    let row = |r: &[f64; NS]| r.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
    V3::new(row(&j[0]), row(&j[1]), row(&j[2]))
}

/// `out += scale · aᵀ b` for local Jacobians a, b (14 × 14) that vanish outside the columns
/// `ca` and `cb`.
pub(crate) fn add_jt_j(a: &LJac, ca: Cols, b: &LJac, cb: Cols, scale: f64, out: &mut LMat) {
    for r in ca.iter() {
        for c in cb.iter() {
            out[r][c] += scale * (a[0][r] * b[0][c] + a[1][r] * b[1][c] + a[2][r] * b[2][c]);
        }
    }
}

/// `out += scale · (aᵀ b + bᵀ a)` for local Jacobians a, b that vanish outside the columns `ca`
/// and `cb`: one product, added with its transpose.
pub(crate) fn add_jt_j_symmetric(
    a: &LJac,
    ca: Cols,
    b: &LJac,
    cb: Cols,
    scale: f64,
    out: &mut LMat,
) {
    for r in ca.iter() {
        for c in cb.iter() {
            let v = scale * (a[0][r] * b[0][c] + a[1][r] * b[1][c] + a[2][r] * b[2][c]);
            out[r][c] += v;
            out[c][r] += v;
        }
    }
}

/// `out += scale · x` for local vectors.
pub(crate) fn axpy(out: &mut LVec, scale: f64, x: &LVec) {
    for (o, v) in out.iter_mut().zip(x) {
        *o += scale * v;
    }
}

/// The local kinematic state an element is evaluated at: slot values of q (as [`Sides`]), v and
/// a, with the Euler-parameter rates and accelerations split out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Motion {
    /// Positions and orientations.
    pub x: Sides,
    /// Local velocities (14).
    pub v: LVec,
    /// Euler-parameter rates of each side.
    pub pdot: [V4; 2],
    /// Local accelerations (14; zero when not needed).
    pub a: LVec,
    /// Euler-parameter accelerations of each side.
    pub pddot: [V4; 2],
}

/// The scalar kernel `scale · uᵀw − offset` of two expressions: the dot-1 (two body vectors),
/// dot-2 (a body vector and d), spherical (d and a constant axis) and distance (`½ dᵀd − ½ L²`)
/// constraints of Haug 1989, §9.2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Kernel {
    pub u: Expr,
    pub w: Expr,
    pub scale: f64,
    pub offset: f64,
}

impl Kernel {
    /// `uᵀw` (scale 1, no offset).
    pub fn dot(u: Expr, w: Expr) -> Self {
        Kernel {
            u,
            w,
            scale: 1.0,
            offset: 0.0,
        }
    }

    /// The values of u and w at the sides' state.
    fn values(&self, x: &Sides) -> (V3, V3) {
        (self.u.value(x), self.w.value(x))
    }

    /// Φ at the sides' state.
    pub fn value(&self, x: &Sides) -> f64 {
        let (u, w) = self.values(x);
        self.scale * u.dot(&w) - self.offset
    }

    /// Φ_q (14): `scale · (U_qᵀ w + W_qᵀ u)`.
    pub fn gradient(&self, slots: &Slots, x: &Sides) -> LVec {
        self.value_and_gradient(slots, x).1
    }

    /// Φ and Φ_q (14) at the sides' state, from one evaluation of u and w.
    pub fn value_and_gradient(&self, slots: &Slots, x: &Sides) -> (f64, LVec) {
        let (u, w) = self.values(x);
        let mut g = [0.0; NS];
        self.u
            .add_jt_times(slots, &x.p, &w, true, self.scale, &mut g);
        self.w
            .add_jt_times(slots, &x.p, &u, true, self.scale, &mut g);
        (self.scale * u.dot(&w) - self.offset, g)
    }

    /// The rates u̇ = U_q v and ẇ = W_q v along the motion m.
    fn rates(&self, slots: &Slots, m: &Motion) -> (V3, V3) {
        (
            self.u.times(slots, &m.x.p, &m.v),
            self.w.times(slots, &m.x.p, &m.v),
        )
    }

    /// Ḣ row = dΦ_q/dt (14) along the motion m (accelerations unused):
    /// `scale · (U_qᵀẇ + U̇_qᵀw + W_qᵀu̇ + Ẇ_qᵀu)`, U̇_q the Jacobian at ṗ without translations.
    pub fn rate(&self, slots: &Slots, m: &Motion) -> LVec {
        let (u, w) = self.values(&m.x);
        let (ud, wd) = self.rates(slots, m);
        let (p, pd, s) = (&m.x.p, &m.pdot, self.scale);
        let mut h = [0.0; NS];
        self.u.add_jt_times(slots, p, &wd, true, s, &mut h);
        self.u.add_jt_times(slots, pd, &w, false, s, &mut h);
        self.w.add_jt_times(slots, p, &ud, true, s, &mut h);
        self.w.add_jt_times(slots, pd, &u, false, s, &mut h);
        h
    }

    /// γ = −(Φ̈ − Φ_q a) along the motion m: `−scale · (ü₀ᵀw + 2u̇ᵀẇ + uᵀẅ₀)`, with ü₀, ẅ₀ the
    /// velocity parts of the accelerations.
    pub fn gamma(&self, slots: &Slots, m: &Motion) -> f64 {
        let (u, w) = self.values(&m.x);
        let (ud, wd) = self.rates(slots, m);
        let u0 = self.u.acceleration_from_rates(slots, &m.pdot);
        let w0 = self.w.acceleration_from_rates(slots, &m.pdot);
        -self.scale * (u0.dot(&w) + 2.0 * ud.dot(&wd) + u.dot(&w0))
    }

    /// Ḧ row = d²Φ_q/dt² (14) along the motion m (with accelerations):
    /// `scale · (U_qᵀẅ + 2U̇_qᵀẇ + Ü_qᵀw + W_qᵀü + 2Ẇ_qᵀu̇ + Ẅ_qᵀu)`.
    pub fn second_rate(&self, slots: &Slots, m: &Motion) -> LVec {
        let (u, w) = self.values(&m.x);
        let (ud, wd) = self.rates(slots, m);
        let (p, pd, pdd, s) = (&m.x.p, &m.pdot, &m.pddot, self.scale);
        let udd = self.u.times(slots, p, &m.a) + self.u.acceleration_from_rates(slots, pd);
        let wdd = self.w.times(slots, p, &m.a) + self.w.acceleration_from_rates(slots, pd);
        let mut h = [0.0; NS];
        self.u.add_jt_times(slots, p, &wdd, true, s, &mut h);
        self.u.add_jt_times(slots, pd, &wd, false, 2.0 * s, &mut h);
        self.u.add_jt_times(slots, pdd, &w, false, s, &mut h);
        self.w.add_jt_times(slots, p, &udd, true, s, &mut h);
        self.w.add_jt_times(slots, pd, &ud, false, 2.0 * s, &mut h);
        self.w.add_jt_times(slots, pdd, &u, false, s, &mut h);
        h
    }

    /// The slots where Φ_q may be nonzero (structural, see [`LPattern`]): U_qᵀw + W_qᵀu.
    pub fn gradient_columns(&self, slots: &Slots) -> Cols {
        let u = self.u.jt_columns(slots, self.w.components(slots));
        u.union(self.w.jt_columns(slots, self.u.components(slots)))
    }

    /// The entries where λΦ_qq may be nonzero (structural): U_qᵀW_q and its transpose, whose
    /// position–position entries pair equal components only (both position blocks are ±I), and
    /// the blocks H(w, s), H(u, s) on the Euler parameters each expression depends on.
    pub fn hessian_pattern(&self, slots: &Slots) -> LPattern {
        let (ur, up) = self.u.dependence(slots);
        let (wr, wp) = self.w.dependence(slots);
        let mut h = LPattern::default();
        for a in ur.iter() {
            for b in wr.iter().filter(|b| b % 7 == a % 7) {
                h.add_symmetric(Cols(1 << a), Cols(1 << b));
            }
        }
        h.add_symmetric(ur, wp);
        h.add_symmetric(up, wr);
        h.add_symmetric(up, wp);
        if self.w.components(slots) != 0 {
            h = h.union(self.u.hessian_blocks(slots));
        }
        if self.u.components(slots) != 0 {
            h = h.union(self.w.hessian_blocks(slots));
        }
        h
    }

    /// Adds `λ · Φ_qq` (14 × 14) to `out`.
    pub fn add_hessian(&self, slots: &Slots, x: &Sides, lambda: f64, out: &mut LMat) {
        let (u, w) = self.values(x);
        let l = lambda * self.scale;
        let (cu, cw) = (self.u.columns(slots), self.w.columns(slots));
        if !cu.is_empty() && !cw.is_empty() {
            let uq = self.u.jacobian(slots, &x.p, true);
            let wq = self.w.jacobian(slots, &x.p, true);
            add_jt_j_symmetric(&uq, cu, &wq, cw, l, out);
        }
        self.u.add_hessian(slots, &w, l, out);
        self.w.add_hessian(slots, &u, l, out);
    }
}
