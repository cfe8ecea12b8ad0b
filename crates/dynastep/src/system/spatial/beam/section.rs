//! The kinematics of a three-node beam element at its two evaluation points, written once for any
//! scalar that carries derivatives (f64, or num-dual's dual numbers for the exact Jacobians).
//!
//! The element's 21 coordinates are the three nodes' (r, p): centroid (3) and Euler parameters
//! (4), in node order. At ξ_s = ∓1/√3 (MBDyn's finite-volume points; Ghiringhelli, Masarati &
//! Mantegazza 2000) with the quadratic Lagrange shape functions N(ξ):
//!
//! ```text
//! x_s  = Σ N_i(ξ_s) r_i                        the section's point
//! x'_s = Σ N_i'(ξ_s) r_i / J_s                 J_s = ds/dξ in the reference configuration
//! g_i  = 2 ε_i / e₀_i  of  p₂* ⊗ p_i           Cayley–Gibbs–Rodrigues parameters of node i
//!                                              relative to the middle node (g₂ = 0)
//! g_s  = Σ N_i g_i,   g'_s = Σ N_i' g_i / J_s
//! R_s  = A(p₂)/|p₂|² · R(g_s)                  the section's rotation
//! ν_s  = R_sᵀ x'_s                             force strains (stretch and shear)
//! κ_s  = R(g_s)ᵀ G(g_s) g'_s                   moment strains (twist and bending)
//! ```
//!
//! with R(g) = I + d g× + (d/2) g×g×, G(g) = d (I + ½ g×), d = 4/(4 + gᵀg) (MBDyn's `MatR`,
//! `MatG`). Interpolating rotations relative to the middle node, instead of MBDyn's incremental
//! update, makes the strains a function of q alone (no element state, the same result whatever
//! the load path) and invariant under a rigid rotation of the whole element; it needs the
//! rotation between an end node and the middle one below π.

use num_dual::DualNum;

/// A scalar the section kinematics can be evaluated with.
pub(crate) trait Scalar: DualNum<Primitive = f64> + Copy {}
impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}

/// A 3-vector of scalars.
pub(crate) type V<T> = [T; 3];
/// A 3 × 3 matrix of scalars, rows.
pub(crate) type M<T> = [[T; 3]; 3];

/// The evaluation points ξ_I = −1/√3, ξ_II = +1/√3.
pub(crate) const XI: [f64; 2] = [-0.577_350_269_189_625_8, 0.577_350_269_189_625_8];

/// The quadratic Lagrange shape functions at ξ (nodes at −1, 0, 1).
pub(crate) fn shape(xi: f64) -> [f64; 3] {
    [0.5 * xi * (xi - 1.0), 1.0 - xi * xi, 0.5 * xi * (xi + 1.0)]
}

/// Their derivatives dN/dξ at ξ.
pub(crate) fn shape_derivative(xi: f64) -> [f64; 3] {
    [xi - 0.5, -2.0 * xi, xi + 0.5]
}

/// 0 as a scalar.
fn zero<T: Scalar>() -> T {
    T::from(0.0)
}

/// a + b.
pub(crate) fn add<T: Scalar>(a: &V<T>, b: &V<T>) -> V<T> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// a − b.
pub(crate) fn sub<T: Scalar>(a: &V<T>, b: &V<T>) -> V<T> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// a c.
pub(crate) fn scale<T: Scalar>(a: &V<T>, c: T) -> V<T> {
    [a[0] * c, a[1] * c, a[2] * c]
}

/// aᵀb.
pub(crate) fn dot<T: Scalar>(a: &V<T>, b: &V<T>) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// a × b.
pub(crate) fn cross<T: Scalar>(a: &V<T>, b: &V<T>) -> V<T> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// m x.
pub(crate) fn mul<T: Scalar>(m: &M<T>, x: &V<T>) -> V<T> {
    [dot(&m[0], x), dot(&m[1], x), dot(&m[2], x)]
}

/// mᵀ x.
pub(crate) fn tr_mul<T: Scalar>(m: &M<T>, x: &V<T>) -> V<T> {
    std::array::from_fn(|c| m[0][c] * x[0] + m[1][c] * x[1] + m[2][c] * x[2])
}

/// a b.
fn mat_mul<T: Scalar>(a: &M<T>, b: &M<T>) -> M<T> {
    std::array::from_fn(|r| {
        std::array::from_fn(|c| a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c])
    })
}

/// Σ w_i x_i over three vectors with constant weights.
fn combine<T: Scalar>(w: &[f64; 3], x: &[V<T>; 3]) -> V<T> {
    std::array::from_fn(|k| x[0][k] * w[0] + x[1][k] * w[1] + x[2][k] * w[2])
}

/// Entry (r, k) of the skew-symmetric matrix v× (v× x = v × x): −ε_{rkl} v_l.
fn skew_entry<T: Scalar>(v: &V<T>, r: usize, k: usize) -> T {
    match (r, k) {
        (0, 1) => -v[2],
        (1, 0) => v[2],
        (0, 2) => v[1],
        (2, 0) => -v[1],
        (1, 2) => -v[0],
        (2, 1) => v[0],
        _ => zero(),
    }
}

/// Euler parameters (e₀, e) of a node.
pub(crate) type Quaternion<T> = (T, V<T>);

/// p* ⊗ b: the rotation of frame b relative to frame a (A(a)ᵀ A(b)), unnormalized.
pub(crate) fn relative<T: Scalar>(a: &Quaternion<T>, b: &Quaternion<T>) -> Quaternion<T> {
    let s = a.0 * b.0 + dot(&a.1, &b.1);
    let v = sub(
        &sub(&scale(&b.1, a.0), &scale(&a.1, b.0)),
        &cross(&a.1, &b.1),
    );
    (s, v)
}

/// The rotation matrix of Euler parameters p divided by |p|² (a rotation for any p ≠ 0):
/// ((e₀² − eᵀe) I + 2 e eᵀ + 2 e₀ e×) / |p|².
pub(crate) fn rotation<T: Scalar>(p: &Quaternion<T>) -> M<T> {
    let (e0, e) = (p.0, p.1);
    let n2 = e0 * e0 + dot(&e, &e);
    let inv = n2.recip();
    let c = (e0 * e0 - dot(&e, &e)) * inv;
    let two = inv * 2.0;
    std::array::from_fn(|r| {
        std::array::from_fn(|k| {
            let mut a = e[r] * e[k] * two;
            if r == k {
                a += c;
            }
            a + skew_entry(&e, r, k) * e0 * two
        })
    })
}

/// The Cayley–Gibbs–Rodrigues rotation R(g) = I + d g× + (d/2) g×g×, d = 4/(4 + gᵀg).
pub(crate) fn cgr_rotation<T: Scalar>(g: &V<T>) -> M<T> {
    let d = (dot(g, g) + 4.0).recip() * 4.0;
    let gg = dot(g, g);
    std::array::from_fn(|r| {
        std::array::from_fn(|k| {
            // g×g× = g gᵀ − gᵀg I.
            let mut a = g[r] * g[k] * d * 0.5;
            if r == k {
                a += T::from(1.0) - gg * d * 0.5;
            }
            a + skew_entry(g, r, k) * d
        })
    })
}

/// G(g) g' = d (g' + ½ g × g'): the angular rate (in the frame the rotation acts from) of R(g)
/// along a path with derivative g'.
pub(crate) fn cgr_rate<T: Scalar>(g: &V<T>, gd: &V<T>) -> V<T> {
    let d = (dot(g, g) + 4.0).recip() * 4.0;
    scale(&add(gd, &scale(&cross(g, gd), T::from(0.5))), d)
}

/// One evaluation point of an element: the section's rotation (section → global), its point and
/// its strains (ν, κ) before the reference strains are subtracted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Section<T> {
    /// R_s.
    pub rotation: M<T>,
    /// x_s \[m\].
    pub point: V<T>,
    /// (ν_x, ν_y, ν_z, κ_x, κ_y, κ_z) \[-, 1/m\].
    pub strain: [T; 6],
}

/// The nodes' (r, p) from the element's 21 coordinates.
#[inline]
pub(crate) fn nodes<T: Scalar>(x: &[T; 21]) -> [(V<T>, Quaternion<T>); 3] {
    std::array::from_fn(|i| {
        let o = 7 * i;
        (
            [x[o], x[o + 1], x[o + 2]],
            (x[o + 3], [x[o + 4], x[o + 5], x[o + 6]]),
        )
    })
}

/// The two sections of an element with coordinates `x` (see the module documentation);
/// `jacobian` holds J_I, J_II \[m\].
#[inline]
pub(crate) fn sections<T: Scalar>(x: &[T; 21], jacobian: &[f64; 2]) -> [Section<T>; 2] {
    let n = nodes(x);
    let r = [n[0].0, n[1].0, n[2].0];
    let mid = n[1].1;
    let g: [V<T>; 3] = std::array::from_fn(|i| {
        if i == 1 {
            return [zero(); 3];
        }
        let (s, v) = relative(&mid, &n[i].1);
        scale(&v, s.recip() * 2.0)
    });
    let base = rotation(&mid);
    let at = |k: usize| {
        let (w, dw) = (shape(XI[k]), shape_derivative(XI[k]));
        let inv_j = 1.0 / jacobian[k];
        let point = combine(&w, &r);
        let tangent = scale(&combine(&dw, &r), T::from(inv_j));
        let gs = combine(&w, &g);
        let gd = scale(&combine(&dw, &g), T::from(inv_j));
        let local = cgr_rotation(&gs);
        let rotation = mat_mul(&base, &local);
        let nu = tr_mul(&rotation, &tangent);
        let kappa = tr_mul(&local, &cgr_rate(&gs, &gd));
        Section {
            rotation,
            point,
            strain: [nu[0], nu[1], nu[2], kappa[0], kappa[1], kappa[2]],
        }
    };
    [at(0), at(1)]
}
