//! Spatial joints, each a list of [`Kernel`] rows built from Haug's basic constraints
//! (Haug 1989, §9.2–9.3): with d = P_j − P_i, the joint frame (f, g, h) fixed in body i and its
//! copy fixed in body j (both taken from the global frame at the initial configuration), and e_x,
//! e_y, e_z the global axes:
//!
//! | kind | rows |
//! |---|---|
//! | spherical | d·e_x, d·e_y, d·e_z |
//! | revolute | spherical, f_i·h_j, g_i·h_j |
//! | cylindrical | f_i·h_j, g_i·h_j, f_i·d, g_i·d |
//! | prismatic | cylindrical, f_i·g_j |
//! | universal | spherical, a_i·a_j (the two cross axes) |
//! | fixed | spherical, f_i·g_j, g_i·h_j, h_i·f_j |
//! | distance | ½(d·d − L²) |
//! | planar | h_i·d, h_i·f_j, h_i·g_j |

use super::euler::{e_matrix, V3, V4};
use super::kinematics::{p_slot, r_slot, Cols, Expr, Kernel, LPattern, Slots, NS};
use super::shared_rows::SharedRows;
use crate::model::spatial::SpatialJointKind;

/// A joint of a spatial system.
#[derive(Debug, Clone)]
pub(crate) struct SpatialJoint {
    /// Name in the model.
    pub name: String,
    /// Kind.
    pub kind: SpatialJointKind,
    /// Where the two bodies' coordinates are.
    pub slots: Slots,
    /// The rows, in order.
    pub rows: Vec<Kernel>,
    /// The same rows over their distinct expressions, for Φ and Φ_qᵀλ.
    pub shared: SharedRows,
    /// The slots where each row's gradient may be nonzero ([`Kernel::gradient_columns`]): the
    /// row writes only these into Φ_q, Ḣ and Ḧ.
    pub row_columns: Vec<Cols>,
    /// The entries where Σ λ_k Φ_k,qq may be nonzero, over all rows.
    pub hessian: LPattern,
    /// First row in Φ.
    pub first_row: usize,
    /// The joint point in body j's frame \[m\] (for the reaction torque).
    pub s_j: V3,
    /// Body i's joint point in its frame \[m\] (for the reaction of a joint whose body j is the
    /// ground).
    pub s_i: V3,
    /// The body-fixed geometry (points, frames), which drivers of the joint reuse.
    pub geometry: JointGeometry,
}

/// The body-fixed geometry of a joint, already expressed in each body's frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JointGeometry {
    /// Joint point in body i's and body j's frames.
    pub s: [V3; 2],
    /// Joint frame (f, g, h) in body i's and body j's frames.
    pub frame: [[V3; 3]; 2],
    /// Universal joint: body j's cross axis in body j's frame.
    pub axis_j: V3,
    /// Distance joint length \[m\].
    pub length: f64,
}

/// The frame (f, g, h) from an axis h and an optional reference direction for f (its component
/// perpendicular to h), both of any length: right-handed and orthonormal.
pub(crate) fn frame_from(axis: &V3, reference: Option<&V3>) -> [V3; 3] {
    let h = axis.normalize();
    let (f, g) = match reference {
        Some(r) => {
            let f = (r - h * h.dot(r)).normalize();
            (f, h.cross(&f))
        }
        None => complete_frame(&h),
    };
    [f, g, h]
}

/// Two unit vectors f, g completing the unit h to a right-handed frame (f, g, h), chosen from the
/// global axis least aligned with h so that the choice is well conditioned.
pub(crate) fn complete_frame(h: &V3) -> (V3, V3) {
    let k = (0..3)
        .min_by(|&a, &b| h[a].abs().total_cmp(&h[b].abs()))
        .unwrap_or(0);
    let f = V3::ith(k, 1.0).cross(h).normalize();
    (f, h.cross(&f))
}

impl SpatialJoint {
    /// Builds the rows of a joint of `kind` between the sides in `slots`.
    pub fn new(
        name: String,
        kind: SpatialJointKind,
        slots: Slots,
        g: &JointGeometry,
        first_row: usize,
    ) -> Self {
        let d = Expr::between(g.s[0], g.s[1]);
        let [[fi, gi, hi], [fj, gj, hj]] = g.frame;
        let on_i = |v: V3| Expr::vector(0, v);
        let on_j = |v: V3| Expr::vector(1, v);
        let spherical = (0..3).map(|k| Kernel::dot(d, Expr::constant(V3::ith(k, 1.0))));
        let dot = |u, w| Kernel::dot(u, w);
        let mut rows: Vec<Kernel> = Vec::new();
        use SpatialJointKind as K;
        match kind {
            K::Spherical => rows.extend(spherical),
            K::Revolute => {
                rows.extend(spherical);
                rows.extend([dot(on_i(fi), on_j(hj)), dot(on_i(gi), on_j(hj))]);
            }
            K::Cylindrical | K::Prismatic => {
                rows.extend([
                    dot(on_i(fi), on_j(hj)),
                    dot(on_i(gi), on_j(hj)),
                    dot(on_i(fi), d),
                    dot(on_i(gi), d),
                ]);
                if kind == K::Prismatic {
                    rows.push(dot(on_i(fi), on_j(gj)));
                }
            }
            K::Universal => {
                rows.extend(spherical);
                rows.push(dot(on_i(hi), on_j(g.axis_j)));
            }
            K::Fixed => {
                rows.extend(spherical);
                rows.extend([
                    dot(on_i(fi), on_j(gj)),
                    dot(on_i(gi), on_j(hj)),
                    dot(on_i(hi), on_j(fj)),
                ]);
            }
            K::Distance => rows.push(Kernel {
                u: d,
                w: d,
                scale: 0.5,
                offset: 0.5 * g.length * g.length,
            }),
            K::Planar => rows.extend([
                dot(on_i(hi), d),
                dot(on_i(hi), on_j(fj)),
                dot(on_i(hi), on_j(gj)),
            ]),
        }
        SpatialJoint {
            name,
            kind,
            slots,
            row_columns: rows.iter().map(|k| k.gradient_columns(&slots)).collect(),
            hessian: rows.iter().fold(LPattern::default(), |h, k| {
                h.union(k.hessian_pattern(&slots))
            }),
            shared: SharedRows::new(&rows),
            rows,
            first_row,
            s_j: g.s[1],
            s_i: g.s[0],
            geometry: *g,
        }
    }

    /// The two kernels of the joint's rotation angle θ about its axis, measured from the initial
    /// configuration: `[g_iᵀf_j, f_iᵀf_j]`, which are (sin θ, cos θ) for a revolute joint (used
    /// by rotation drivers and rotational spring–dampers).
    pub fn rotation_kernels(&self) -> [Kernel; 2] {
        let [[fi, gi, _], [fj, _, _]] = self.geometry.frame;
        [
            Kernel::dot(Expr::vector(0, gi), Expr::vector(1, fj)),
            Kernel::dot(Expr::vector(0, fi), Expr::vector(1, fj)),
        ]
    }

    /// What row `r` of this joint constrains, for reports of redundant constraints.
    pub fn row_label(&self, r: usize) -> &'static str {
        use SpatialJointKind as K;
        const SPHERICAL: [&str; 3] = ["x", "y", "z"];
        match (self.kind, r) {
            (K::Spherical | K::Revolute | K::Universal | K::Fixed, 0..=2) => SPHERICAL[r],
            (K::Revolute, 3) | (K::Cylindrical | K::Prismatic, 0) => "axis ⟂ f",
            (K::Revolute, _) | (K::Cylindrical | K::Prismatic, 1) => "axis ⟂ g",
            (K::Cylindrical | K::Prismatic, 2) => "point on axis, f",
            (K::Cylindrical | K::Prismatic, 3) => "point on axis, g",
            (K::Prismatic, _) => "rotation about the axis",
            (K::Universal, _) => "cross axes ⟂",
            (K::Fixed, 3) => "rotation about h",
            (K::Fixed, 4) => "rotation about f",
            (K::Fixed, _) => "rotation about g",
            (K::Distance, _) => "length",
            (K::Planar, 0) => "point in plane",
            (K::Planar, 1) => "plane normal ⟂ f",
            (K::Planar, _) => "plane normal ⟂ g",
            (K::Spherical | K::Cylindrical, _) => "row out of range",
        }
    }

    /// The reaction on side `side` (0 = body i, 1 = body j) from the joint's rows' gradients and
    /// multipliers `grads` (one pair per row): the force \[N\] and the torque about the joint point
    /// \[N m\], global axes. `p` are that body's Euler parameters and `s` the joint point in its
    /// frame \[m\]. The force is −Σλ ∂Φ/∂r; the torque about the centroid is ½ E(p) Q_p / pᵀp
    /// with Q_p = −Σλ ∂Φ/∂p (Haug 1989, §11.6), moved to the joint point.
    pub fn reaction_on(side: usize, grads: &[([f64; NS], f64)], p: &V4, s: &V3) -> (V3, V3) {
        let (mut f, mut qp) = (V3::zeros(), V4::zeros());
        for (g, l) in grads {
            for k in 0..3 {
                f[k] -= l * g[r_slot(side) + k];
            }
            for k in 0..4 {
                qp[k] -= l * g[p_slot(side) + k];
            }
        }
        // Q_p = 2 E(p)ᵀ n (+ a multiple of p, which E(p) removes): n = ½ E(p) Q_p / pᵀp.
        let n_cm = 0.5 * e_matrix(p) * qp / p.norm_squared();
        let arm = super::euler::rotation(p) * s;
        (f, n_cm - arm.cross(&f))
    }
}
