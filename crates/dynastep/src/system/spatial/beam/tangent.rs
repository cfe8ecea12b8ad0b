//! The analytic tangent of the three-node beam element ([`super::element`]): ∂Q/∂q of an
//! undamped element and ∂Q/∂v of a damped one, by the chain rule through the section kinematics
//! of [`super::section`].
//!
//! Writing the variation of a section's rotation as δR_s = (δθ_s)× R_s, every piece is a 3 × 21
//! or 6 × 21 matrix over the element's coordinates (three nodes' r, p):
//!
//! ```text
//! δg_i  = (2/s_i) (δv_i − ½ g_i δs_i)            (s_i, v_i) = p₂* ⊗ p_i, bilinear in p₂ and p_i
//! δθ_s  = (2/|p₂|²) E(p₂) δp₂ + B G(g_s) δg_s     B = A(p₂)/|p₂|²;  δR(g) = (G(g) δg)× R(g)
//! δν_s  = R_sᵀ (δx'_s + x'_s× δθ_s)
//! δκ_s  = R(g_s)ᵀ [y× G − (d/2)(y g_sᵀ + g'_s×)] δg_s + R(g_s)ᵀ G δg'_s,   y = G(g_s) g'_s
//! δf_s  = −f_s× δθ_s + R_s δσ_f,   δm_s = −m_s× δθ_s + R_s δσ_m,   δσ = C δε
//! δ(a × f) = a× δf − f× δa,        δ(2 E(p)ᵀ m) = 2 E(p)ᵀ δm + 2 [[0, −mᵀ], [m, m×]] δp
//! ```
//!
//! with E(p) = [−e, e× + e₀ I] (Haug, *Computer-Aided Kinematics and Dynamics of Mechanical
//! Systems*, 1989, §6.3: ω = 2 E(p) ṗ for unit p), G(g) = d (I + ½ g×) and d = 4/(4 + gᵀg) as in
//! [`super::section`].
//!
//! For ∂Q/∂v of a damped element only δσ = β C δε is left: the geometry does not depend on v.
//! A damped element's ∂Q/∂q would also need the strains' second derivatives (the damping term
//! holds ε̇ = (∂ε/∂q) q̇); [`super::element`] forms that one by dual numbers.
//!
//! The element's tests check this tangent against the dual-number derivative of the force and
//! against central differences.

use nalgebra::{Matrix3, SMatrix, Vector3, Vector6};

use super::element::{BeamElement, NB};
use super::section::{shape, shape_derivative, XI};

/// The derivative of a 3-vector with respect to the element's 21 coordinates (3 × 21).
type D3 = SMatrix<f64, 3, NB>;
/// The derivative of a 6-vector with respect to the element's 21 coordinates (6 × 21).
type D6 = SMatrix<f64, 6, NB>;
/// ∂Q/∂q or ∂Q/∂v of one element (21 × 21; rows and columns in the element's coordinate order).
pub(crate) type ElementTangent = SMatrix<f64, NB, NB>;

/// Column of node i's centroid r_i.
const fn r_col(i: usize) -> usize {
    7 * i
}

/// Column of node i's e₀ (its e follows).
const fn p_col(i: usize) -> usize {
    7 * i + 3
}

/// Node i's centroid.
fn centroid(x: &[f64; NB], i: usize) -> Vector3<f64> {
    Vector3::new(x[r_col(i)], x[r_col(i) + 1], x[r_col(i) + 2])
}

/// Node i's Euler parameters (e₀, e).
fn euler(x: &[f64; NB], i: usize) -> (f64, Vector3<f64>) {
    let c = p_col(i);
    (x[c], Vector3::new(x[c + 1], x[c + 2], x[c + 3]))
}

/// One evaluation point with the derivatives of its rotation and strains.
struct SectionTangent {
    /// R_s (section → global).
    rotation: Matrix3<f64>,
    /// x_s \[m\].
    point: Vector3<f64>,
    /// N_i(ξ_s): x_s = Σ N_i r_i.
    weights: [f64; 3],
    /// ε_s = (ν, κ), before the reference strains are subtracted.
    strain: Vector6<f64>,
    /// δθ_s (3 × 21).
    d_theta: D3,
    /// δε_s (6 × 21).
    d_strain: D6,
}

/// Writes c (δv − h δs) into the four columns of a quaternion from `col`, for
/// δs = [ds₀, dsᵀ] δp and δv = [dv₀, dv] δp.
fn put_quaternion_columns(
    out: &mut D3,
    col: usize,
    c: f64,
    (ds0, ds): (f64, &Vector3<f64>),
    (dv0, dv): (&Vector3<f64>, &Matrix3<f64>),
    h: &Vector3<f64>,
) {
    out.column_mut(col).copy_from(&((dv0 - h * ds0) * c));
    out.fixed_view_mut::<3, 3>(0, col + 1)
        .copy_from(&((dv - h * ds.transpose()) * c));
}

/// g_i = 2 v_i / s_i of end node i relative to the middle node, and δg_i (nonzero in the
/// columns of p₂ and p_i).
fn relative_parameters(x: &[f64; NB], i: usize) -> (Vector3<f64>, D3) {
    let (m0, m) = euler(x, 1);
    let (b0, b) = euler(x, i);
    let s = m0 * b0 + m.dot(&b);
    let v = b * m0 - m * b0 - m.cross(&b);
    let g = v * (2.0 / s);
    let (c, h) = (2.0 / s, g * 0.5);
    let eye = Matrix3::identity();
    let mut dg = D3::zeros();
    // ∂(s, v)/∂p_i = ([m₀, mᵀ], [−m, m₀ I − m×]).
    let dv_i = eye * m0 - m.cross_matrix();
    put_quaternion_columns(&mut dg, p_col(i), c, (m0, &m), (&-m, &dv_i), &h);
    // ∂(s, v)/∂p₂ = ([b₀, bᵀ], [b, −b₀ I + b×]).
    let dv_m = b.cross_matrix() - eye * b0;
    put_quaternion_columns(&mut dg, p_col(1), c, (b0, &b), (&b, &dv_m), &h);
    (g, dg)
}

/// B = A(p₂)/|p₂|² and its variation (2/|p₂|²) E(p₂) δp₂.
fn base_rotation(x: &[f64; NB]) -> (Matrix3<f64>, D3) {
    let (e0, e) = euler(x, 1);
    let n2 = e0 * e0 + e.dot(&e);
    let ex = e.cross_matrix();
    let a =
        (Matrix3::identity() * (e0 * e0 - e.dot(&e)) + e * e.transpose() * 2.0 + ex * (2.0 * e0))
            / n2;
    let mut d = D3::zeros();
    let c = 2.0 / n2;
    d.column_mut(p_col(1)).copy_from(&(-e * c));
    d.fixed_view_mut::<3, 3>(0, p_col(1) + 1)
        .copy_from(&((ex + Matrix3::identity() * e0) * c));
    (a, d)
}

/// Both evaluation points with their derivatives (see the module documentation).
fn section_tangents(x: &[f64; NB], jacobian: &[f64; 2]) -> [SectionTangent; 2] {
    let (g0, dg0) = relative_parameters(x, 0);
    let (g2, dg2) = relative_parameters(x, 2);
    let (base, d_base) = base_rotation(x);
    let r = [0, 1, 2].map(|i| centroid(x, i));
    std::array::from_fn(|k| {
        let w = shape(XI[k]);
        let dw = shape_derivative(XI[k]).map(|a| a / jacobian[k]);
        let point = r[0] * w[0] + r[1] * w[1] + r[2] * w[2];
        let t = r[0] * dw[0] + r[1] * dw[1] + r[2] * dw[2];
        let (gs, gd) = (g0 * w[0] + g2 * w[2], g0 * dw[0] + g2 * dw[2]);
        let (dgs, dgd) = (dg0 * w[0] + dg2 * w[2], dg0 * dw[0] + dg2 * dw[2]);
        let d = 4.0 / (4.0 + gs.dot(&gs));
        let gx = gs.cross_matrix();
        let cg = (Matrix3::identity() + gx * 0.5) * d;
        let local = Matrix3::identity() + gx * d + gx * gx * (d * 0.5);
        let rotation = base * local;
        let d_theta = d_base + (base * cg) * dgs;
        let mut dt = t.cross_matrix() * d_theta;
        for (i, dwi) in dw.iter().enumerate() {
            for a in 0..3 {
                dt[(a, r_col(i) + a)] += dwi;
            }
        }
        let y = cg * gd;
        let lt = local.transpose();
        let kg =
            lt * (y.cross_matrix() * cg - (y * gs.transpose() + gd.cross_matrix()) * (0.5 * d));
        let mut d_strain = D6::zeros();
        d_strain
            .fixed_rows_mut::<3>(0)
            .copy_from(&(rotation.transpose() * dt));
        d_strain
            .fixed_rows_mut::<3>(3)
            .copy_from(&(kg * dgs + (lt * cg) * dgd));
        let (nu, kappa) = (rotation.transpose() * t, lt * y);
        SectionTangent {
            rotation,
            point,
            weights: w,
            strain: Vector6::new(nu.x, nu.y, nu.z, kappa.x, kappa.y, kappa.z),
            d_theta,
            d_strain,
        }
    })
}

/// δ(a × f) = a× δf − f× δa for the arm a = x_s − r_node (with δx_s = Σ N_i δr_i); the second
/// term only with `geometry` (∂/∂q).
fn arm_moment_variation(
    s: &SectionTangent,
    r_node: &Vector3<f64>,
    node: usize,
    (f, df): (&Vector3<f64>, &D3),
    geometry: bool,
) -> D3 {
    let mut out = (s.point - r_node).cross_matrix() * df;
    if geometry {
        let fx = f.cross_matrix();
        for (i, wi) in s.weights.iter().enumerate() {
            let c = if i == node { wi - 1.0 } else { *wi };
            let mut block = out.fixed_view_mut::<3, 3>(0, r_col(i));
            block -= fx * c;
        }
    }
    out
}

/// Writes a node's rows of ∂Q: the force rows δF and the Euler-parameter rows
/// δ(2 E(p)ᵀ M) = 2 E(p)ᵀ δM (+ 2 [[0, −Mᵀ], [M, M×]] δp with `geometry`).
fn put_node_rows(
    out: &mut ElementTangent,
    x: &[f64; NB],
    node: usize,
    (df, m, dm): (&D3, &Vector3<f64>, &D3),
    geometry: bool,
) {
    let (e0, e) = euler(x, node);
    let (rr, rp) = (r_col(node), p_col(node));
    out.fixed_rows_mut::<3>(rr).copy_from(df);
    out.fixed_rows_mut::<1>(rp)
        .copy_from(&(e.transpose() * dm * -2.0));
    out.fixed_rows_mut::<3>(rp + 1)
        .copy_from(&((Matrix3::identity() * e0 - e.cross_matrix()) * dm * 2.0));
    if geometry {
        for a in 0..3 {
            out[(rp, rp + 1 + a)] -= 2.0 * m[a];
            out[(rp + 1 + a, rp)] += 2.0 * m[a];
        }
        let mut block = out.fixed_view_mut::<3, 3>(rp + 1, rp + 1);
        block += m.cross_matrix() * 2.0;
    }
}

/// ∂Q/∂q (`wrt_velocity` false) or ∂Q/∂v (true) of element `e` at its coordinates `x` and
/// velocities `xd` (21 each).
///
/// # Panics
/// In debug builds, when asked for ∂Q/∂q of a damped element (the dual-number path's case).
pub(crate) fn element_tangent(
    e: &BeamElement,
    x: &[f64; NB],
    xd: &[f64; NB],
    wrt_velocity: bool,
) -> ElementTangent {
    debug_assert!(wrt_velocity || e.damping == 0.0);
    let geometry = !wrt_velocity;
    let c = SMatrix::<f64, 6, 6>::from_fn(|a, b| e.stiffness[a][b]);
    let s = section_tangents(x, &e.jacobian);
    // Section loads in global axes and their variations, at I (k = 0) and II (k = 1).
    let loads = [0, 1].map(|k| {
        let sk = &s[k];
        let mut eps = sk.strain - Vector6::from_row_slice(&e.reference[k]);
        if e.damping != 0.0 {
            eps += sk.d_strain * SMatrix::<f64, NB, 1>::from_column_slice(xd) * e.damping;
        }
        let sigma = c * eps;
        let d_sigma = if wrt_velocity {
            c * sk.d_strain * e.damping
        } else {
            c * sk.d_strain
        };
        let f = sk.rotation * sigma.fixed_rows::<3>(0);
        let m = sk.rotation * sigma.fixed_rows::<3>(3);
        let mut df = sk.rotation * d_sigma.fixed_rows::<3>(0);
        let mut dm = sk.rotation * d_sigma.fixed_rows::<3>(3);
        if geometry {
            df -= f.cross_matrix() * sk.d_theta;
            dm -= m.cross_matrix() * sk.d_theta;
        }
        (f, m, df, dm)
    });
    let [(f1, m1, df1, dm1), (f2, m2, df2, dm2)] = loads;
    let r = [0, 1, 2].map(|i| centroid(x, i));
    let arm = |k: usize, i: usize, f: &Vector3<f64>, df: &D3| {
        arm_moment_variation(&s[k], &r[i], i, (f, df), geometry)
    };
    let moment = |k: usize, i: usize, f: &Vector3<f64>| (s[k].point - r[i]).cross(f);
    // The node loads of the table in [`super::element`].
    let node_m = [
        moment(0, 0, &f1) + m1,
        m2 - m1 + moment(1, 1, &f2) - moment(0, 1, &f1),
        -(moment(1, 2, &f2) + m2),
    ];
    let node_df = [df1, df2 - df1, -df2];
    let node_dm = [
        arm(0, 0, &f1, &df1) + dm1,
        dm2 - dm1 + arm(1, 1, &f2, &df2) - arm(0, 1, &f1, &df1),
        -(arm(1, 2, &f2, &df2) + dm2),
    ];
    let mut out = ElementTangent::zeros();
    for i in 0..3 {
        put_node_rows(
            &mut out,
            x,
            i,
            (&node_df[i], &node_m[i], &node_dm[i]),
            geometry,
        );
    }
    out
}
