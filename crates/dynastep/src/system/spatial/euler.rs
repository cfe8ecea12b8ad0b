//! Euler parameters p = (e₀, e₁, e₂, e₃) and the matrices the spatial elements are written with.
//!
//! With e = (e₁, e₂, e₃) and ẽ the cross-product matrix of e (Haug 1989, §6.3; Nikravesh 1988,
//! §6.2):
//!
//! ```text
//! G(p) = [−e, −ẽ + e₀I]      E(p) = [−e, ẽ + e₀I]      (3 × 4)
//! A(p) = E(p) G(p)ᵀ                                    (rotation body → global when pᵀp = 1)
//! ω' = 2 G(p) ṗ (body axes)  ω = 2 E(p) ṗ (global axes)  (when pᵀṗ = 0)
//! ```
//!
//! A(p) is written as the homogeneous quadratic E(p)G(p)ᵀ, not as (2e₀² − 1)I + 2(eeᵀ + e₀ẽ):
//! the two agree on pᵀp = 1, and the derivatives below are exact everywhere, also at the Newton
//! iterates that leave the unit sphere. Both G and E are linear in p, and G(x)y = −G(y)x,
//! E(x)y = −E(y)x. Two 4 × 4 matrices turn products with a fixed 3-vector y around:
//! G(x)ᵀy = Ĝ(y)x and E(x)ᵀy = Ê(y)x. Then for fixed w, s (3-vectors)
//!
//! ```text
//! wᵀA(p)s = ½ pᵀ H(w, s) p      H(w, s) = Ê(w)ᵀĜ(s) + Ĝ(s)ᵀÊ(w)   (symmetric, constant in p)
//! ∂(A(p)s)/∂p = B(p, s),  B(p, s)ᵀw = H(w, s) p,  and B is linear in p
//! ```
//!
//! so every spatial element's first, second and third derivatives follow from H without further
//! differentiation: ∂²(wᵀA s)/∂p² = H(w, s), and third derivatives vanish.

use nalgebra::{Matrix3, Matrix3x4, Matrix4, Vector3, Vector4};

/// A 3-vector.
pub(crate) type V3 = Vector3<f64>;
/// A 4-vector (Euler parameters and their rates).
pub(crate) type V4 = Vector4<f64>;

/// The cross-product matrix ã of a: ã b = a × b.
#[cfg(test)]
pub(crate) fn skew(a: &V3) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// G(p) = [−e, −ẽ + e₀I] (Haug 1989, eq. 6.3.19).
pub(crate) fn g_matrix(p: &V4) -> Matrix3x4<f64> {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    Matrix3x4::new(-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0)
}

/// E(p) = [−e, ẽ + e₀I] (Haug 1989, eq. 6.3.19).
pub(crate) fn e_matrix(p: &V4) -> Matrix3x4<f64> {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    Matrix3x4::new(-e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0)
}

/// Ĝ(y), with G(x)ᵀ y = Ĝ(y) x: `[[0, −yᵀ], [y, −ỹ]]`.
pub(crate) fn g_hat(y: &V3) -> Matrix4<f64> {
    Matrix4::new(
        0.0, -y.x, -y.y, -y.z, //
        y.x, 0.0, y.z, -y.y, //
        y.y, -y.z, 0.0, y.x, //
        y.z, y.y, -y.x, 0.0,
    )
}

/// Ê(y), with E(x)ᵀ y = Ê(y) x: `[[0, −yᵀ], [y, ỹ]]`.
pub(crate) fn e_hat(y: &V3) -> Matrix4<f64> {
    Matrix4::new(
        0.0, -y.x, -y.y, -y.z, //
        y.x, 0.0, -y.z, y.y, //
        y.y, y.z, 0.0, -y.x, //
        y.z, -y.y, y.x, 0.0,
    )
}

/// A(p) = E(p) G(p)ᵀ, the rotation matrix body → global when pᵀp = 1 (Haug 1989, eq. 6.3.23).
pub(crate) fn rotation(p: &V4) -> Matrix3<f64> {
    e_matrix(p) * g_matrix(p).transpose()
}

/// H(w, s) = ∂²(wᵀA(p)s)/∂p², constant in p (see the module documentation), written out: with
/// wᵀA(p)s = (e₀² − eᵀe) wᵀs + 2 (wᵀe)(eᵀs) + 2 e₀ eᵀ(s × w),
///
/// ```text
/// H(w, s) = 2 [[wᵀs,      (s × w)ᵀ          ],
///              [s × w,    wsᵀ + swᵀ − wᵀs I ]]
/// ```
///
/// which equals Ê(w)ᵀĜ(s) + Ĝ(s)ᵀÊ(w) (a test checks it) at a tenth of the cost.
pub(crate) fn h_matrix(w: &V3, s: &V3) -> Matrix4<f64> {
    let ws = w.dot(s);
    let c = 2.0 * s.cross(w);
    let (a, b) = (2.0 * w, 2.0 * s);
    Matrix4::new(
        2.0 * ws,
        c.x,
        c.y,
        c.z, //
        c.x,
        a.x * s.x + b.x * w.x - 2.0 * ws,
        a.x * s.y + b.x * w.y,
        a.x * s.z + b.x * w.z, //
        c.y,
        a.y * s.x + b.y * w.x,
        a.y * s.y + b.y * w.y - 2.0 * ws,
        a.y * s.z + b.y * w.z, //
        c.z,
        a.z * s.x + b.z * w.x,
        a.z * s.y + b.z * w.y,
        a.z * s.z + b.z * w.z - 2.0 * ws,
    )
}

/// B(p, s) = ∂(A(p)s)/∂p (3 × 4), linear in p; row k is (H(e_k, s) p)ᵀ. Written out from
/// A(p)s = (e₀² − eᵀe) s + 2 e (eᵀs) + 2 e₀ (e × s):
///
/// ```text
/// B(p, s) = 2 [e₀ s + e × s,   (eᵀs) I + e sᵀ − s eᵀ − e₀ s̃]
/// ```
pub(crate) fn b_matrix(p: &V4, s: &V3) -> Matrix3x4<f64> {
    let (e0, e) = (p[0], V3::new(p[1], p[2], p[3]));
    let c0 = 2.0 * (e0 * s + e.cross(s));
    let es = 2.0 * e.dot(s);
    let (e2, s2, f) = (2.0 * e, 2.0 * s, 2.0 * e0);
    Matrix3x4::new(
        c0.x,
        es + e2.x * s.x - s2.x * e.x,
        e2.x * s.y - s2.x * e.y + f * s.z,
        e2.x * s.z - s2.x * e.z - f * s.y, //
        c0.y,
        e2.y * s.x - s2.y * e.x - f * s.z,
        es + e2.y * s.y - s2.y * e.y,
        e2.y * s.z - s2.y * e.z + f * s.x, //
        c0.z,
        e2.z * s.x - s2.z * e.x + f * s.y,
        e2.z * s.y - s2.z * e.y - f * s.x,
        es + e2.z * s.z - s2.z * e.z,
    )
}

/// B(p, s)ᵀw = H(w, s) p = ∂(wᵀA(p)s)/∂p (4), without forming B: from the expansion of wᵀA(p)s
/// in [`h_matrix`],
///
/// ```text
/// B(p, s)ᵀw = 2 [e₀ wᵀs + eᵀ(s × w),   e₀ (s × w) + w (eᵀs) + s (wᵀe) − (wᵀs) e]
/// ```
///
/// a third of the cost of `b_matrix(p, s).transpose() * w`.
#[inline]
pub(crate) fn bt_times(p: &V4, s: &V3, w: &V3) -> V4 {
    let (e0, e) = (p[0], V3::new(p[1], p[2], p[3]));
    let ws = w.dot(s);
    let c = s.cross(w);
    let v = e0 * c + w * e.dot(s) + s * w.dot(&e) - e * ws;
    2.0 * V4::new(e0 * ws + e.dot(&c), v.x, v.y, v.z)
}

/// Euler parameters of the rotation matrix `a` (Shepperd's method: the largest of the four
/// squares is taken first, so the result is accurate for every rotation), with e₀ ≥ 0.
pub(crate) fn from_rotation(a: &Matrix3<f64>) -> V4 {
    let tr = a.trace();
    let squares = [
        (1.0 + tr) / 4.0,
        (1.0 + 2.0 * a[(0, 0)] - tr) / 4.0,
        (1.0 + 2.0 * a[(1, 1)] - tr) / 4.0,
        (1.0 + 2.0 * a[(2, 2)] - tr) / 4.0,
    ];
    let k = (0..4)
        .max_by(|&i, &j| squares[i].total_cmp(&squares[j]))
        .unwrap_or(0);
    let ek = squares[k].max(0.0).sqrt();
    let f = 0.25 / ek;
    let p = match k {
        0 => V4::new(
            ek,
            (a[(2, 1)] - a[(1, 2)]) * f,
            (a[(0, 2)] - a[(2, 0)]) * f,
            (a[(1, 0)] - a[(0, 1)]) * f,
        ),
        1 => V4::new(
            (a[(2, 1)] - a[(1, 2)]) * f,
            ek,
            (a[(0, 1)] + a[(1, 0)]) * f,
            (a[(0, 2)] + a[(2, 0)]) * f,
        ),
        2 => V4::new(
            (a[(0, 2)] - a[(2, 0)]) * f,
            (a[(0, 1)] + a[(1, 0)]) * f,
            ek,
            (a[(1, 2)] + a[(2, 1)]) * f,
        ),
        _ => V4::new(
            (a[(1, 0)] - a[(0, 1)]) * f,
            (a[(0, 2)] + a[(2, 0)]) * f,
            (a[(1, 2)] + a[(2, 1)]) * f,
            ek,
        ),
    };
    if p[0] < 0.0 {
        -p
    } else {
        p
    }
}

/// Euler parameters of a rotation by `angle` \[rad\] about the unit `axis`:
/// (cos(φ/2), sin(φ/2) u) (Haug 1989, eq. 6.3.8).
#[cfg(test)]
pub(crate) fn from_axis_angle(axis: &V3, angle: f64) -> V4 {
    let (s, c) = (0.5 * angle).sin_cos();
    V4::new(c, s * axis.x, s * axis.y, s * axis.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p0() -> V4 {
        // Deliberately off the unit sphere: the identities must hold for every p.
        V4::new(0.7, -0.3, 0.5, 0.2)
    }

    #[test]
    fn rotation_is_orthonormal_on_the_unit_sphere() {
        let p = p0().normalize();
        let a = rotation(&p);
        assert!((a.transpose() * a - Matrix3::identity()).norm() < 1e-14);
        assert!((a.determinant() - 1.0).abs() < 1e-14);
        // The textbook form agrees on the sphere.
        let (e0, e) = (p[0], V3::new(p[1], p[2], p[3]));
        let textbook =
            (2.0 * e0 * e0 - 1.0) * Matrix3::identity() + 2.0 * (e * e.transpose() + e0 * skew(&e));
        assert!((a - textbook).norm() < 1e-14);
        assert!((from_rotation(&a) - p).norm() < 1e-14);
    }

    #[test]
    fn hat_matrices_turn_products_around() {
        let (x, y) = (p0(), V3::new(0.3, -1.1, 0.8));
        assert!((g_matrix(&x).transpose() * y - g_hat(&y) * x).norm() < 1e-15);
        assert!((e_matrix(&x).transpose() * y - e_hat(&y) * x).norm() < 1e-15);
        let z = V4::new(-0.2, 0.4, 0.9, -0.6);
        assert!((g_matrix(&x) * z + g_matrix(&z) * x).norm() < 1e-15);
        assert!((e_matrix(&x) * z + e_matrix(&z) * x).norm() < 1e-15);
    }

    #[test]
    fn b_and_h_are_the_derivatives_of_a_s() {
        let (p, s, w) = (p0(), V3::new(0.4, -0.2, 1.3), V3::new(-0.7, 0.1, 0.5));
        let h = 1e-6;
        let b = b_matrix(&p, &s);
        for k in 0..4 {
            let dp = V4::ith(k, h);
            let fd = (rotation(&(p + dp)) * s - rotation(&(p - dp)) * s) / (2.0 * h);
            assert!((fd - b.column(k)).norm() < 1e-9, "column {k}");
        }
        let hw = h_matrix(&w, &s);
        let m = e_hat(&w).transpose() * g_hat(&s);
        assert!(
            (hw - (m + m.transpose())).norm() < 1e-14,
            "H(w, s) = ÊᵀĜ + ĜᵀÊ"
        );
        for k in 0..3 {
            let row = h_matrix(&V3::ith(k, 1.0), &s) * p;
            assert!(
                (b.row(k).transpose() - row).norm() < 1e-14,
                "row {k} of B is H(e_k, s) p"
            );
        }
        assert!((b.transpose() * w - hw * p).norm() < 1e-14);
        assert!((bt_times(&p, &s, &w) - b.transpose() * w).norm() < 1e-14);
        assert!((0.5 * p.dot(&(hw * p)) - w.dot(&(rotation(&p) * s))).abs() < 1e-14);
    }

    #[test]
    fn angular_velocity_of_a_steady_rotation() {
        let axis = V3::new(1.0, 2.0, -2.0) / 3.0;
        let (phi, rate) = (0.8, 1.7);
        let p = from_axis_angle(&axis, phi);
        let pdot = 0.5 * rate * V4::new(-(0.5 * phi).sin(), 0.0, 0.0, 0.0)
            + 0.5 * rate * (0.5 * phi).cos() * V4::new(0.0, axis.x, axis.y, axis.z);
        assert!((2.0 * e_matrix(&p) * pdot - rate * axis).norm() < 1e-14);
        let body = rotation(&p).transpose() * (rate * axis);
        assert!((2.0 * g_matrix(&p) * pdot - body).norm() < 1e-14);
    }
}
