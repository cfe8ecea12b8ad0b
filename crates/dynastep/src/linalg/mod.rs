//! Linear-algebra vocabulary shared by every layer, and the linear solvers every Newton iteration
//! uses: dense LU with the least-squares fallback ([`linear`]), nalgebra's small fixed-size LU
//! ([`small_dense`]), the sparse LU with its pattern recorded once ([`sparse`]) and its
//! refactorization at a fixed pivot order ([`refactor`]); the null space of a Jacobian and a choice
//! of independent coordinates ([`null_space`]), the SVD pseudo-inverse the tangent space projects
//! with ([`pseudo_inverse`]), and the Newton convergence test every formulation shares
//! ([`convergence`]).
//!
//! Vectors and dense matrices are nalgebra's [`DVector`] and [`DMatrix`] of `f64`. Matrices that the
//! system layer contributes (mass matrix, constraint Jacobian, force Jacobians) are written through the
//! [`Sink`] trait, one entry at a time, so that the same element code can fill a dense matrix, a sparse
//! pattern, or compute a matrix–vector product without ever forming the matrix ([`MatVec`],
//! [`TransposeMatVec`]).
//!
//! **Rule for implementers of [`Sink`] users:** an element adds the same entries, in the same order, on
//! every call (add an explicit `0.0` rather than skipping an entry). A sparse sink may rely on it.

use nalgebra::{DMatrix, DVector};

pub mod convergence;
pub mod linear;
pub mod null_space;
pub(crate) mod pinned;
pub mod pseudo_inverse;
pub mod refactor;
pub mod small_dense;
pub mod sparse;

/// Column vector of `f64` (length given by context: n coordinates, m constraints, …).
pub type Vector = DVector<f64>;
/// Dense column-major matrix of `f64`.
pub type Matrix = DMatrix<f64>;

/// Receives matrix entries: `add(row, col, value)` adds `value` to entry (`row`, `col`).
pub trait Sink {
    /// Adds `value` to the entry at (`row`, `col`).
    ///
    /// # Panics
    /// Implementations may panic when the entry lies outside the target's shape.
    fn add(&mut self, row: usize, col: usize, value: f64);
}

impl Sink for Matrix {
    /// # Panics
    /// When (`row`, `col`) lies outside the matrix.
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        // Column-major slice indexing: nalgebra's two-index lookup costs several times more, and
        // small models assemble every matrix entry by entry.
        let n = self.nrows();
        assert!(row < n, "entry ({row}, {col}) outside the {n}-row matrix");
        self.as_mut_slice()[col * n + row] += value;
    }
}

/// A sink that shifts every entry by a row and column offset and multiplies it by `scale`, used to
/// place a block (such as Φ_q) inside a larger matrix (such as the iteration matrix).
pub struct Block<'a, S: Sink + ?Sized> {
    /// The target.
    pub inner: &'a mut S,
    /// Row offset added to every entry.
    pub row: usize,
    /// Column offset added to every entry.
    pub col: usize,
    /// Factor applied to every value.
    pub scale: f64,
    /// When true, `(r, c)` is written at `(c, r)` (before the offsets are applied).
    pub transpose: bool,
}

impl<S: Sink + ?Sized> Sink for Block<'_, S> {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        let (r, c) = if self.transpose {
            (col, row)
        } else {
            (row, col)
        };
        self.inner
            .add(self.row + r, self.col + c, self.scale * value);
    }
}

/// A sink that accumulates the product `y += A x` of the matrix it is sent with a vector `x`, without
/// forming `A`.
pub struct MatVec<'a> {
    /// The vector multiplied (length = number of columns of A).
    pub x: &'a Vector,
    /// The accumulated product (length = number of rows of A).
    pub y: &'a mut Vector,
}

impl Sink for MatVec<'_> {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        self.y.as_mut_slice()[row] += value * self.x.as_slice()[col];
    }
}

/// A sink that accumulates `y += Aᵀ x` of the matrix it is sent, without forming `A`.
pub struct TransposeMatVec<'a> {
    /// The vector multiplied (length = number of rows of A).
    pub x: &'a Vector,
    /// The accumulated product (length = number of columns of A).
    pub y: &'a mut Vector,
}

impl Sink for TransposeMatVec<'_> {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        self.y.as_mut_slice()[col] += value * self.x.as_slice()[row];
    }
}

/// Copies `src` into `dst`. nalgebra's `copy_from` walks rows and columns generically, and a
/// call to `memcpy` costs more than the copy itself for the vectors of one or two bodies (the step
/// loop copies states some twenty times per step): lengths up to 4 are copied with fixed-length
/// moves, longer ones as one slice copy.
///
/// # Panics
/// When the lengths differ.
#[inline]
pub fn copy(dst: &mut Vector, src: &Vector) {
    let (d, s) = (dst.as_mut_slice(), src.as_slice());
    assert_eq!(d.len(), s.len(), "copy: lengths differ");
    match d.len() {
        1 => d[0] = s[0],
        2 => d[..2].copy_from_slice(&s[..2]),
        3 => d[..3].copy_from_slice(&s[..3]),
        4 => d[..4].copy_from_slice(&s[..4]),
        _ => d.copy_from_slice(s),
    }
}

/// Sets every entry of `x` (a vector's or a column-major matrix's `as_mut_slice()`) to zero, with
/// fixed-length stores up to 4 entries and 9 (a 3 × 3 matrix): nalgebra's `fill` walks a generic
/// iterator, and a call to `memset` costs more than the stores for a body or two.
#[inline]
pub fn zero(x: &mut [f64]) {
    match x.len() {
        1 => x[0] = 0.0,
        2 => x[..2].fill(0.0),
        3 => x[..3].fill(0.0),
        4 => x[..4].fill(0.0),
        9 => x[..9].fill(0.0),
        _ => x.fill(0.0),
    }
}

/// Below this magnitude an entry of an evaluation's input is set to zero by [`flush_tiny`]: far
/// below the rounding of any quantity in SI units, and high enough that the product of two such
/// entries (1e-300) stays out of the subnormal range (below 2.2e-308), whose arithmetic takes tens
/// of cycles per operation.
pub const TINY: f64 = 1e-150;

/// Sets the entries of `x` below [`TINY`] in magnitude to zero; NaN and infinities are kept. A
/// component of the motion that a scheme's numerical damping lets decay geometrically (the spatial
/// slider-crank's parasitic components in index 3 with ρ∞ = 0.9, a factor of about 0.9 per step)
/// fell from rounding to 1e-300 within 5 000 steps, and its products with the model's numbers went
/// subnormal: at h = 1e-4 s its 50 000 steps ran 4.6 times slower per step than the first 5 000.
/// Once flushed, such a component stays exactly zero.
#[inline]
pub fn flush_tiny(x: &mut [f64]) {
    for v in x.iter_mut() {
        *v = tiny_to_zero(*v);
    }
}

/// `v`, or zero when it is below [`TINY`] in magnitude: [`flush_tiny`] of one entry, for a loop
/// that computes the entries anyway.
#[inline]
pub fn tiny_to_zero(v: f64) -> f64 {
    if v.abs() < TINY {
        0.0
    } else {
        v
    }
}

/// Infinity norm (largest absolute entry) of a vector; 0 for an empty vector.
pub fn norm_inf(x: &Vector) -> f64 {
    max_abs(x.as_slice())
}

/// Largest |x_i| of a slice (a vector's part, a matrix's entries); 0 for an empty slice.
pub fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
}

/// True when `a` and `b` hold the same numbers, bit for bit (so +0 ≠ −0 and a NaN equals only
/// itself), compared over the shorter of the two.
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries below 1e-150 go to zero, NaN and infinities stay, the rest is untouched; and the
    /// product of two entries that survive is not subnormal.
    #[test]
    fn tiny_entries_are_flushed() {
        let mut x = [
            1e-151,
            -3e-200,
            5e-324,
            1e-150,
            -2e-149,
            1.0,
            f64::NAN,
            f64::INFINITY,
        ];
        flush_tiny(&mut x);
        assert_eq!(&x[..6], &[0.0, 0.0, 0.0, 1e-150, -2e-149, 1.0]);
        assert!(x[6].is_nan() && x[7] == f64::INFINITY);
        assert!((TINY * TINY).is_normal());
    }

    #[test]
    fn matvec_sinks_match_dense_products() {
        let a = Matrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let x = Vector::from_vec(vec![1.0, -1.0, 2.0]);
        let mut y = Vector::zeros(2);
        let mut s = MatVec { x: &x, y: &mut y };
        for r in 0..2 {
            for c in 0..3 {
                s.add(r, c, a[(r, c)]);
            }
        }
        assert_eq!(y, &a * &x);
        let z = Vector::from_vec(vec![1.0, 3.0]);
        let mut w = Vector::zeros(3);
        let mut s = TransposeMatVec { x: &z, y: &mut w };
        for r in 0..2 {
            for c in 0..3 {
                s.add(r, c, a[(r, c)]);
            }
        }
        assert_eq!(w, a.transpose() * &z);
        let mut big = Matrix::zeros(5, 5);
        let mut b = Block {
            inner: &mut big,
            row: 2,
            col: 1,
            scale: 2.0,
            transpose: true,
        };
        b.add(0, 1, 3.0);
        assert_eq!(big[(3, 1)], 6.0);
    }
}
