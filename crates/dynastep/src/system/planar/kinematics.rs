//! Planar kinematic primitives shared by the elements: body frames evaluated from q, the canonical local
//! layout of an element's coordinates ("slots"), the relative position of two points with its first and
//! second derivatives, and the scalar constraint kernels (value, gradient, Hessian) that joints and
//! drivers are built from.
//!
//! # Local layout
//! Every element sees at most two bodies, i and j. Its local coordinates are always the six *slots*
//! `\[x_i, y_i, θ_i, x_j, y_j, θ_j\]` (centroidal coordinates); a slot whose coordinate does not exist
//! (the ground, the rotation of a point mass, the second body of a one-body element) is evaluated with
//! that coordinate frozen (θ = 0 for the ground and a point mass) and dropped when the element writes
//! into a global vector or matrix. A joint or driver also declares which of its gradient and Hessian
//! entries can be non-zero at all ([`LRowMask`], [`LMask`]: a revolute joint's Hessian has only the
//! θθ entries) and writes only those, so the sparse matrices carry no structural zeros. The entries
//! an element writes therefore depend only on which slots exist and on its kind, fixed at
//! construction, so every call writes the same entries in the same order.
//!
//! # Source
//! Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §3.2–3.3 (planar
//! kinematics: `r_P = r + A(φ) s'_P`, `∂(A s')/∂φ = B s' = R A s'`), and Nikravesh 1988, §5.

use crate::linalg::{Sink, Vector};

/// Number of local slots of an element.
pub(crate) const NS: usize = 6;
/// A local vector (one entry per slot).
pub(crate) type LVec = [f64; NS];
/// A local square matrix (slot × slot).
pub(crate) type LMat = [[f64; NS]; NS];

/// Slot of θ_i.
pub(crate) const TI: usize = 2;
/// Slot of θ_j.
pub(crate) const TJ: usize = 5;

/// Which slots of a local row can be non-zero at any q (structurally): entries outside it are
/// exactly zero and are not written.
pub(crate) type LRowMask = [bool; NS];
/// Which entries of a local matrix can be non-zero at any q (structurally).
pub(crate) type LMask = [[bool; NS]; NS];

/// Every slot of a row.
pub(crate) const ALL_SLOTS: LRowMask = [true; NS];
/// The slots of x_i, θ_i, x_j, θ_j: the gradient of d_x, d = r_Pj − r_Pi.
pub(crate) const X_ROW: LRowMask = [true, false, true, true, false, true];
/// The slots of y_i, θ_i, y_j, θ_j: the gradient of d_y.
pub(crate) const Y_ROW: LRowMask = [false, true, true, false, true, true];
/// The slots of θ_i and θ_j: the gradient of a relative angle.
pub(crate) const ANGLE_ROW: LRowMask = [false, false, true, false, false, true];

/// Every entry.
pub(crate) const FULL: LMask = [[true; NS]; NS];
/// No entry: the Hessian of a row linear in q (a relative angle, a coordinate θ).
pub(crate) const NONE: LMask = [[false; NS]; NS];
/// θ_iθ_i and θ_jθ_j only: the Hessian of d = r_Pj − r_Pi, in which each r_P = r + A(θ) s' is
/// linear in r and depends on one θ.
pub(crate) const ROTATIONS: LMask = {
    let mut m = NONE;
    m[TI][TI] = true;
    m[TJ][TJ] = true;
    m
};
/// Row and column θ_i, and θ_jθ_j: the Hessian of u_iᵀ d with u_i = A(θ_i) u' (a prismatic
/// joint's normal row, a prismatic driver).
pub(crate) const AXIS_DOT_D: LMask = {
    let mut m = ROTATIONS;
    let mut a = 0;
    while a < NS {
        m[TI][a] = true;
        m[a][TI] = true;
        a += 1;
    }
    m
};

/// The union of two masks.
pub(crate) const fn union(a: &LMask, b: &LMask) -> LMask {
    let mut m = NONE;
    let mut r = 0;
    while r < NS {
        let mut c = 0;
        while c < NS {
            m[r][c] = a[r][c] || b[r][c];
            c += 1;
        }
        r += 1;
    }
    m
}

/// The vector rotated by +90°: `R a = (−a_y, a_x)`.
#[inline]
pub(crate) fn perp(a: [f64; 2]) -> [f64; 2] {
    [-a[1], a[0]]
}

/// Scalar product.
#[inline]
pub(crate) fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// Planar cross product `a × b = a_x b_y − a_y b_x`.
#[inline]
pub(crate) fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// The pose of a body frame at its centre of mass, evaluated from q.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Frame {
    /// Position of the centre of mass (ground: the global origin) \[m\].
    pub r: [f64; 2],
    /// Rotation \[rad\] (0 for the ground and point masses).
    pub theta: f64,
    cos: f64,
    sin: f64,
}

impl Frame {
    /// The global frame: the ground's, and the rotation of a point mass.
    pub(crate) const GROUND: Frame = Frame {
        r: [0.0, 0.0],
        theta: 0.0,
        cos: 1.0,
        sin: 0.0,
    };

    /// A frame at `r` rotated by `theta`.
    pub(crate) fn new(r: [f64; 2], theta: f64) -> Self {
        let (sin, cos) = theta.sin_cos();
        Frame { r, theta, cos, sin }
    }

    /// `A(θ) s` for a vector `s` in body axes.
    #[inline]
    pub(crate) fn rot(&self, s: [f64; 2]) -> [f64; 2] {
        [
            self.cos * s[0] - self.sin * s[1],
            self.sin * s[0] + self.cos * s[1],
        ]
    }
}

/// Which coordinates a body has and where they are in q.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyRef {
    /// The ground: no coordinates.
    Ground,
    /// A point mass with coordinates (x_cm, y_cm) at `col`, `col + 1`.
    Point {
        /// Index of x_cm in q.
        col: usize,
    },
    /// A rigid body with coordinates (x_cm, y_cm, θ) at `col .. col + 3`.
    Rigid {
        /// Index of x_cm in q.
        col: usize,
    },
}

impl BodyRef {
    /// The frame at the centre of mass for coordinates `q`.
    #[inline]
    pub(crate) fn frame(&self, q: &Vector) -> Frame {
        match *self {
            BodyRef::Ground => Frame::GROUND,
            BodyRef::Point { col } => Frame {
                r: [q[col], q[col + 1]],
                ..Frame::GROUND
            },
            BodyRef::Rigid { col } => Frame::new([q[col], q[col + 1]], q[col + 2]),
        }
    }

    /// Velocity of the centre of mass \[m/s\] and angular velocity \[rad/s\] for velocities `v`.
    #[inline]
    pub(crate) fn velocity(&self, v: &Vector) -> ([f64; 2], f64) {
        match *self {
            BodyRef::Ground => ([0.0, 0.0], 0.0),
            BodyRef::Point { col } => ([v[col], v[col + 1]], 0.0),
            BodyRef::Rigid { col } => ([v[col], v[col + 1]], v[col + 2]),
        }
    }

    /// Global columns of (x, y, θ); `None` where the coordinate does not exist.
    pub(crate) fn cols(&self) -> [Option<usize>; 3] {
        match *self {
            BodyRef::Ground => [None; 3],
            BodyRef::Point { col } => [Some(col), Some(col + 1), None],
            BodyRef::Rigid { col } => [Some(col), Some(col + 1), Some(col + 2)],
        }
    }

    /// True for a point mass.
    pub(crate) fn is_point_mass(&self) -> bool {
        matches!(self, BodyRef::Point { .. })
    }
}

/// Global columns of an element's six slots (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slots(pub [Option<usize>; NS]);

impl Slots {
    /// Slots of a two-body element.
    pub(crate) fn pair(i: BodyRef, j: BodyRef) -> Self {
        let (a, b) = (i.cols(), j.cols());
        Slots([a[0], a[1], a[2], b[0], b[1], b[2]])
    }

    /// Slots of a one-body element (the body takes the slots of body i).
    pub(crate) fn single(b: BodyRef) -> Self {
        Self::pair(b, BodyRef::Ground)
    }

    /// The local vector of `v` (0 where a slot does not exist).
    #[inline]
    pub(crate) fn gather(&self, v: &Vector) -> LVec {
        let mut out = [0.0; NS];
        for (o, c) in out.iter_mut().zip(self.0.iter()) {
            if let Some(c) = c {
                *o = v[*c];
            }
        }
        out
    }

    /// Adds `scale · g` as row `row` of a matrix with n columns, at the slots of `mask` only (the
    /// others are structurally zero).
    #[inline]
    pub(crate) fn add_row_masked<S: Sink>(
        &self,
        out: &mut S,
        row: usize,
        scale: f64,
        g: &LVec,
        mask: &LRowMask,
    ) {
        for ((c, x), &m) in self.0.iter().zip(g.iter()).zip(mask.iter()) {
            if let (Some(c), true) = (c, m) {
                out.add(row, *c, scale * x);
            }
        }
    }

    /// Adds `scale · h` into an n × n matrix at the slot pairs of `mask` only (the others are
    /// structurally zero).
    #[inline]
    pub(crate) fn add_block_masked<S: Sink>(
        &self,
        out: &mut S,
        scale: f64,
        h: &LMat,
        mask: &LMask,
    ) {
        for (a, ca) in self.0.iter().enumerate() {
            let Some(ca) = ca else { continue };
            for (b, cb) in self.0.iter().enumerate() {
                if let (Some(cb), true) = (cb, mask[a][b]) {
                    out.add(*ca, *cb, scale * h[a][b]);
                }
            }
        }
    }

    /// Adds `scale · h` into an n × n matrix (every existing slot pair, explicit zeros included).
    #[inline]
    pub(crate) fn add_block<S: Sink>(&self, out: &mut S, scale: f64, h: &LMat) {
        for (a, ca) in self.0.iter().enumerate() {
            let Some(ca) = ca else { continue };
            for (b, cb) in self.0.iter().enumerate() {
                if let Some(cb) = cb {
                    out.add(*ca, *cb, scale * h[a][b]);
                }
            }
        }
    }

    /// Adds the local vector `g` into the global vector `out` (n entries).
    #[inline]
    pub(crate) fn add_vec(&self, out: &mut Vector, g: &LVec) {
        for (c, x) in self.0.iter().zip(g.iter()) {
            if let Some(c) = c {
                out[*c] += x;
            }
        }
    }
}

/// `xᵀ H x` for a local matrix.
#[inline]
pub(crate) fn quad(h: &LMat, x: &LVec) -> f64 {
    let mut s = 0.0;
    for a in 0..NS {
        if x[a] == 0.0 {
            continue;
        }
        let mut r = 0.0;
        for b in 0..NS {
            r += h[a][b] * x[b];
        }
        s += x[a] * r;
    }
    s
}

/// `g · x` for local vectors.
#[inline]
pub(crate) fn ldot(g: &LVec, x: &LVec) -> f64 {
    g.iter().zip(x.iter()).map(|(a, b)| a * b).sum()
}

/// `H x` for a local matrix.
#[inline]
pub(crate) fn lmul(h: &LMat, x: &LVec) -> LVec {
    let mut out = [0.0; NS];
    for (o, row) in out.iter_mut().zip(h.iter()) {
        *o = ldot(row, x);
    }
    out
}

/// The relative position `d = r_Pj − r_Pi` of a point P_i of body i and a point P_j of body j, with
/// its derivatives with respect to the six slots (Haug 1989, eq. 3.3.3):
///
/// ```text
/// ∂d/∂(x_i, y_i, θ_i, x_j, y_j, θ_j) = [−I, −R a_i, I, R a_j]          (2 × 6)
/// ∂²d/∂θ_i² = a_i,   ∂²d/∂θ_j² = −a_j,   all other second derivatives 0
/// ```
///
/// with `a = A(θ) s'` the point's offset from the centre of mass in global axes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PointPair {
    /// d = r_Pj − r_Pi \[m\].
    pub d: [f64; 2],
    /// Offset of P_i from the centre of mass of body i, global axes \[m\].
    pub a_i: [f64; 2],
    /// Offset of P_j from the centre of mass of body j, global axes \[m\].
    pub a_j: [f64; 2],
    /// Column `s` is ∂d/∂slot_s.
    pub dcol: [[f64; 2]; NS],
    /// Frame of body i.
    pub fi: Frame,
}

impl PointPair {
    /// Evaluates the pair for frames `fi`, `fj` and points `si`, `sj` (body axes, relative to the
    /// centre of mass; for the ground, global coordinates).
    pub(crate) fn new(fi: Frame, si: [f64; 2], fj: Frame, sj: [f64; 2]) -> Self {
        let a_i = fi.rot(si);
        let a_j = fj.rot(sj);
        let d = [
            fj.r[0] + a_j[0] - fi.r[0] - a_i[0],
            fj.r[1] + a_j[1] - fi.r[1] - a_i[1],
        ];
        let pi = perp(a_i);
        let pj = perp(a_j);
        PointPair {
            d,
            a_i,
            a_j,
            dcol: [
                [-1.0, 0.0],
                [0.0, -1.0],
                [-pi[0], -pi[1]],
                [1.0, 0.0],
                [0.0, 1.0],
                pj,
            ],
            fi,
        }
    }

    /// ∂²d/∂slot_a∂slot_b.
    #[inline]
    pub(crate) fn d2(&self, a: usize, b: usize) -> [f64; 2] {
        if a == TI && b == TI {
            self.a_i
        } else if a == TJ && b == TJ {
            [-self.a_j[0], -self.a_j[1]]
        } else {
            [0.0, 0.0]
        }
    }
}

/// One scalar constraint (or scalar function) of the slots: value, gradient and Hessian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Row {
    /// Value.
    pub phi: f64,
    /// ∂φ/∂slot.
    pub grad: LVec,
    /// ∂²φ/∂slot².
    pub hess: LMat,
}

impl Row {
    /// A row of zeros.
    pub(crate) const ZERO: Row = Row {
        phi: 0.0,
        grad: [0.0; NS],
        hess: [[0.0; NS]; NS],
    };

    /// Component `k` (0: x, 1: y) of d (revolute and fixed joints, Haug 1989, eq. 3.3.6); the
    /// Hessian only with `hessian` (zero otherwise).
    #[inline]
    pub(crate) fn component(p: &PointPair, k: usize, hessian: bool) -> Row {
        let mut r = Row::ZERO;
        r.phi = p.d[k];
        for a in 0..NS {
            r.grad[a] = p.dcol[a][k];
        }
        if hessian {
            r.hess[TI][TI] = p.a_i[k];
            r.hess[TJ][TJ] = -p.a_j[k];
        }
        r
    }

    /// `(dᵀd − L²)/2` (distance joint, Haug 1989, eq. 3.3.2 written in squared form so it stays smooth
    /// at d = 0; `length` = L \[m\]); the Hessian only with `hessian` (zero otherwise).
    #[inline]
    pub(crate) fn half_square_distance(p: &PointPair, length: f64, hessian: bool) -> Row {
        let mut r = Row::ZERO;
        r.phi = 0.5 * (dot(p.d, p.d) - length * length);
        for a in 0..NS {
            r.grad[a] = dot(p.d, p.dcol[a]);
        }
        if hessian {
            // dcol_aᵀ dcol_b + dᵀ ∂²d/∂a∂b; the second term lives on the two θθ entries only.
            for a in 0..NS {
                for b in a..NS {
                    let h = dot(p.dcol[a], p.dcol[b]);
                    r.hess[a][b] = h;
                    r.hess[b][a] = h;
                }
            }
            r.hess[TI][TI] += dot(p.d, p.d2(TI, TI));
            r.hess[TJ][TJ] += dot(p.d, p.d2(TJ, TJ));
        }
        r
    }

    /// `wᵀ d` with `w = A_i w'` a vector fixed in body i (`w_body` = w' in body axes): the normal row of
    /// a prismatic joint (Haug 1989, eq. 3.3.11) and the prismatic joint driver. With
    /// `∂w/∂θ_i = R w`, `∂²w/∂θ_i² = −w`. The Hessian only with `hessian` (zero otherwise).
    #[inline]
    pub(crate) fn body_vector_dot(p: &PointPair, w_body: [f64; 2], hessian: bool) -> Row {
        let w = p.fi.rot(w_body);
        let pw = perp(w);
        let mut r = Row::ZERO;
        r.phi = dot(w, p.d);
        for a in 0..NS {
            r.grad[a] = dot(w, p.dcol[a]);
        }
        r.grad[TI] += dot(pw, p.d);
        if !hessian {
            return r;
        }
        // wᵀ ∂²d/∂a∂b lives on the two θθ entries only.
        r.hess[TI][TI] = dot(w, p.d2(TI, TI));
        r.hess[TJ][TJ] = dot(w, p.d2(TJ, TJ));
        for b in 0..NS {
            let x = dot(pw, p.dcol[b]);
            r.hess[TI][b] += x;
            r.hess[b][TI] += x;
        }
        r.hess[TI][TI] -= dot(w, p.d);
        r
    }

    /// `θ_j − θ_i − c` (relative rotation; Haug 1989, eq. 3.3.10).
    #[inline]
    pub(crate) fn relative_angle(fi: &Frame, fj: &Frame, c: f64) -> Row {
        let mut r = Row::ZERO;
        r.phi = fj.theta - fi.theta - c;
        r.grad[TI] = -1.0;
        r.grad[TJ] = 1.0;
        r
    }
}
