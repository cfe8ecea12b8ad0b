//! Dense factors of small matrices with fixed-size storage, for systems of at most [`SMALL_DIM`]
//! unknowns: nalgebra's LU with partial pivoting on a stack matrix of the exact size, and up to
//! [`INVERSE_DIM`] unknowns nalgebra's closed-form inverse instead, with the least-squares
//! fallback of [`super::linear::DenseSolver`] for singular matrices.
//!
//! Below a handful of unknowns a factorization costs a few dozen flops, and the bookkeeping of a
//! general solver dominates: faer's dense LU (dispatch, scratch, recursion) and the sparse path
//! (CSC slots, refactorization over index arrays) each cost several times the flops. The pendulum
//! (n + m = 3) spent about a quarter of its step there. nalgebra monomorphizes its LU for a
//! matrix whose size is a type (`SMatrix<f64, N, N>`), so the loops have known bounds and nothing
//! is allocated after construction; the size is chosen once, at construction, among
//! 1..=[`SMALL_DIM`].
//!
//! Up to 3 × 3 even that LU (a pivot search, row exchanges and a division per column, then two
//! triangular solves through views) was 12–15 % of the pendulum's step in wall-clock time
//! (`perf`), while the explicit inverse (cofactors over the determinant, then a 3 × 3 product per
//! solve) made its loop 9–10 % faster at h = 1e-3 and 1e-4 (2026-11-26). An explicit inverse is
//! not backward stable as LU is, but its error stays of the order of cond(J)·ε at these sizes, and
//! Newton's iteration needs J⁻¹ only approximately: the residual is evaluated exactly, so an
//! inexact solve can slow the contraction but not move the converged point. A matrix is treated
//! as singular when its determinant is zero or its reciprocal condition number 1/(‖J‖₁‖J⁻¹‖₁),
//! computed exactly from the inverse, is at most the LU path's relative pivot threshold.

use nalgebra::linalg::LU;
use nalgebra::{Const, DimMin, SMatrix};

use super::linear::{singular_pivot, LeastSquares, LinearStats, SINGULAR_PIVOT};
use crate::linalg::{Matrix, Vector};

/// Largest number of unknowns n + m that [`SmallDenseSolver`] takes (and that
/// `linear_solver = "auto"` sends to it).
pub const SMALL_DIM: usize = 8;

/// Largest size factored by its closed-form inverse rather than by LU (see the module
/// documentation).
pub const INVERSE_DIM: usize = 3;

/// Factors held in storage of one fixed size.
trait FixedFactors {
    /// Factors the column-major square `a` of this size; false when it is singular to working
    /// precision.
    fn factor(&mut self, a: &[f64]) -> bool;
    /// Overwrites `b` with the solution for the last factors.
    fn solve_mut(&self, b: &mut Vector);
}

/// The LU factors of an N × N matrix (none before the first factorization).
struct FixedLu<const N: usize>(Option<LU<f64, Const<N>, Const<N>>>)
where
    Const<N>: DimMin<Const<N>, Output = Const<N>>;

impl<const N: usize> FixedFactors for FixedLu<N>
where
    Const<N>: DimMin<Const<N>, Output = Const<N>>,
{
    /// Singular when the smallest |U_kk| is at most [`super::linear::SINGULAR_PIVOT`] of the
    /// largest entry.
    fn factor(&mut self, a: &[f64]) -> bool {
        let lu = self
            .0
            .insert(LU::new(SMatrix::<f64, N, N>::from_column_slice(a)));
        let u = lu.u();
        let min_pivot = (0..N).fold(f64::INFINITY, |m, k| m.min(u[(k, k)].abs()));
        !singular_pivot(min_pivot, a)
    }

    fn solve_mut(&self, b: &mut Vector) {
        if let Some(lu) = &self.0 {
            lu.solve_mut(b);
        }
    }
}

/// The inverse of an N × N matrix, N ≤ [`INVERSE_DIM`], from nalgebra's closed form (cofactors
/// over the determinant). A 3 × 3 whose entries are all below about 1e-102 (or above 1e102) has a
/// determinant that underflows (overflows) and is judged singular, hence solved by the
/// least-squares fallback: no iteration matrix in SI units comes near.
struct FixedInverse<const N: usize>(SMatrix<f64, N, N>);

impl<const N: usize> FixedFactors for FixedInverse<N>
where
    Const<N>: DimMin<Const<N>, Output = Const<N>>,
{
    /// Singular when the determinant is zero or the reciprocal condition number
    /// 1/(‖A‖₁ ‖A⁻¹‖₁) is at most [`super::linear::SINGULAR_PIVOT`] or not finite (an overflowed
    /// determinant leaves a zero inverse).
    fn factor(&mut self, a: &[f64]) -> bool {
        let m = SMatrix::<f64, N, N>::from_column_slice(a);
        let Some(inverse) = m.try_inverse() else {
            return false;
        };
        self.0 = inverse;
        let rcond = 1.0 / (norm_1(m.as_slice(), N) * norm_1(inverse.as_slice(), N));
        rcond.is_finite() && rcond > SINGULAR_PIVOT
    }

    fn solve_mut(&self, b: &mut Vector) {
        let b = b.as_mut_slice();
        let mut x = [0.0; N];
        for (j, bj) in b.iter().enumerate() {
            for (i, xi) in x.iter_mut().enumerate() {
                *xi += self.0[(i, j)] * bj;
            }
        }
        b.copy_from_slice(&x);
    }
}

/// ‖A‖₁, the largest column sum of |a_ij|, of the column-major n × n `a`.
fn norm_1(a: &[f64], n: usize) -> f64 {
    a.chunks_exact(n)
        .map(|col| col.iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// Empty factors of size dim (1 ≤ dim ≤ [`SMALL_DIM`]).
fn fixed(dim: usize) -> Box<dyn FixedFactors + Send + Sync> {
    match dim {
        1 => Box::new(FixedInverse::<1>(SMatrix::zeros())),
        2 => Box::new(FixedInverse::<2>(SMatrix::zeros())),
        3 => Box::new(FixedInverse::<3>(SMatrix::zeros())),
        4 => Box::new(FixedLu::<4>(None)),
        5 => Box::new(FixedLu::<5>(None)),
        6 => Box::new(FixedLu::<6>(None)),
        7 => Box::new(FixedLu::<7>(None)),
        _ => Box::new(FixedLu::<8>(None)),
    }
}

/// Dense LU with partial pivoting for dim ≤ [`SMALL_DIM`], the closed-form inverse up to
/// [`INVERSE_DIM`] (see the module documentation); a singular matrix (LU: smallest pivot at most
/// 1e-13 of the largest entry; inverse: zero determinant or reciprocal condition number at most
/// 1e-13; either not finite) is solved in the minimum-norm least-squares sense instead. Allocates only at construction and on the first
/// singular matrix.
pub struct SmallDenseSolver {
    dim: usize,
    /// The factors, in storage of size dim (none for dim = 0).
    factors: Option<Box<dyn FixedFactors + Send + Sync>>,
    singular: bool,
    fallback: Box<LeastSquares>,
    /// Counters.
    pub stats: LinearStats,
}

impl std::fmt::Debug for SmallDenseSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmallDenseSolver")
            .field("dim", &self.dim)
            .field("stats", &self.stats)
            .finish()
    }
}

impl SmallDenseSolver {
    /// A solver for dim × dim matrices.
    ///
    /// # Panics
    /// When dim > [`SMALL_DIM`].
    pub fn new(dim: usize) -> Self {
        assert!(dim <= SMALL_DIM, "small dense solver: {dim} > {SMALL_DIM}");
        SmallDenseSolver {
            dim,
            factors: (dim > 0).then(|| fixed(dim)),
            singular: false,
            fallback: Box::default(),
            stats: LinearStats::default(),
        }
    }

    /// Factors `a` (dim × dim). After a matrix whose decomposition found a null space, decomposes
    /// first, and factors by LU (or inverts) only a matrix the decomposition finds regular (see
    /// [`super::linear`]).
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor(&mut self, a: &Matrix) {
        assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
        self.stats.factorizations += 1;
        let Some(factors) = self.factors.as_mut() else {
            return;
        };
        let decomposed = self.singular && self.fallback.is_rank_deficient();
        if decomposed {
            self.fallback.factor(a);
            if self.fallback.is_rank_deficient() {
                return;
            }
        }
        self.singular = !factors.factor(a.as_slice());
        if self.singular && !decomposed {
            self.fallback.factor(a);
        }
    }

    /// True when the last factored matrix was singular to working precision.
    pub fn is_singular(&self) -> bool {
        self.singular
    }

    /// Solves `A x = b` in place (`b`, dim entries, becomes x) with the matrix of the last
    /// [`factor`](Self::factor); for a singular matrix, x is the minimum-norm least-squares
    /// solution.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        if self.singular {
            self.stats.least_squares_solves += 1;
            self.fallback.solve_in_place(b);
        } else if let Some(factors) = &self.factors {
            factors.solve_mut(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size solves a diagonally dominant system to rounding, with row exchanges (a zero
    /// leading entry forces the first pivot off the diagonal).
    #[test]
    fn solves_every_size_with_pivoting() {
        for n in 1..=SMALL_DIM {
            let a = Matrix::from_fn(n, n, |i, j| {
                if i == j {
                    if i == 0 && n > 1 {
                        0.0
                    } else {
                        4.0 + i as f64
                    }
                } else {
                    1.0 / (1.0 + i as f64 + 2.0 * j as f64)
                }
            });
            let x = Vector::from_fn(n, |i, _| 1.0 - 0.3 * i as f64);
            let mut b = &a * &x;
            let mut s = SmallDenseSolver::new(n);
            s.factor(&a);
            assert!(!s.is_singular());
            s.solve_in_place(&mut b);
            assert!((b - &x).amax() < 1e-14, "n = {n}");
        }
    }

    /// The closed-form inverse's singularity test is relative: a well-conditioned matrix of any
    /// scale whose determinant is representable (entries from about 1e-100 to 1e100) is regular,
    /// one whose reciprocal condition number is below 1e-13 is singular
    /// (1e-15: two rows equal but for rounding), as the LU path judges them.
    #[test]
    fn inverse_judges_singularity_by_condition_not_scale() {
        let mut small = SmallDenseSolver::new(3);
        let mut lu = FixedLu::<4>(None);
        for scale in [1e-100, 1.0, 1e100] {
            let a = Matrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 0.0])
                * scale;
            small.factor(&a);
            assert!(!small.is_singular(), "scale {scale:e}");
        }
        // Beyond, the determinant over- or underflows: judged singular, and the least-squares
        // fallback still solves the system.
        for scale in [1e-120, 1e120] {
            let a = Matrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 0.0])
                * scale;
            let x = Vector::from_vec(vec![1.0, -2.0, 0.5]);
            let mut b = &a * &x;
            small.factor(&a);
            assert!(small.is_singular(), "scale {scale:e}");
            small.solve_in_place(&mut b);
            assert!((&b - &x).amax() < 1e-12, "scale {scale:e}: {b}");
        }
        for eps in [1e-15, 1e-10] {
            let rows = [1.0, 1.0, 0.0, 1.0, 1.0 + eps, 0.0, 0.0, 0.0, 1.0];
            small.factor(&Matrix::from_row_slice(3, 3, &rows));
            // The same rows in a 4 × 4 with a unit last row and column take the LU path.
            let mut b = Matrix::identity(4, 4);
            b.view_mut((0, 0), (3, 3))
                .copy_from(&Matrix::from_row_slice(3, 3, &rows));
            let lu_regular = lu.factor(b.as_slice());
            assert_eq!(small.is_singular(), eps < 1e-13, "eps {eps:e}");
            assert_eq!(!lu_regular, small.is_singular(), "eps {eps:e}");
        }
    }

    /// On an index-3 iteration matrix of the pendulum's shape ([c_a m I, w Φ_qᵀ; Φ_q, 0], zero
    /// diagonal entry), the inverse and the LU path solve to the same x within cond(J)·ε.
    #[test]
    fn inverse_and_lu_agree_on_a_saddle_point_matrix() {
        let (x, y) = (0.6, -0.8);
        let rows = [1.1, 0.0, 0.9 * x, 0.0, 1.1, 0.9 * y, x, y, 0.0];
        let a = Matrix::from_row_slice(3, 3, &rows);
        let b = Vector::from_vec(vec![0.3, -9.81, 1e-3]);
        let mut small = SmallDenseSolver::new(3);
        small.factor(&a);
        let mut via_inverse = b.clone();
        small.solve_in_place(&mut via_inverse);
        let mut lu = FixedLu::<3>(None);
        assert!(lu.factor(a.as_slice()));
        let mut via_lu = b.clone();
        lu.solve_mut(&mut via_lu);
        let cond = a.norm() * a.clone().try_inverse().unwrap().norm();
        let d = (&via_inverse - &via_lu).amax() / via_lu.amax();
        assert!(d < cond * f64::EPSILON, "{d:e} (cond {cond:.1})");
        assert!((&a * &via_inverse - &b).amax() < 1e-14 * b.amax());
    }

    /// A singular matrix (two equal rows, consistent right-hand side) gets the minimum-norm
    /// solution, as the general dense solver gives it.
    #[test]
    fn singular_matrices_fall_back_to_least_squares() {
        let a = Matrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 3.0]);
        let b = Vector::from_vec(vec![5.0, 5.0, 3.0]);
        let mut small = SmallDenseSolver::new(3);
        small.factor(&a);
        assert!(small.is_singular());
        let mut x = b.clone();
        small.solve_in_place(&mut x);
        // Minimum norm on x₀ + 2x₁ = 5: (1, 2) with x₂ = 1.
        let want = Vector::from_vec(vec![1.0, 2.0, 1.0]);
        assert!((&x - &want).amax() < 1e-12, "{x}");
        assert_eq!(small.stats.least_squares_solves, 1);
    }
}
