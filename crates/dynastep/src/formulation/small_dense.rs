//! Dense LU of small matrices with fixed-size storage: nalgebra's LU with partial pivoting on a
//! stack matrix of the exact size, for systems of at most [`SMALL_DIM`] unknowns, with the
//! least-squares fallback of [`super::linear::DenseSolver`] for singular matrices.
//!
//! Below a handful of unknowns a factorization costs a few dozen flops, and the bookkeeping of a
//! general solver dominates: faer's dense LU (dispatch, scratch, recursion) and the sparse path
//! (CSC slots, refactorization over index arrays) each cost several times the flops. The pendulum
//! (n + m = 3) spent about a quarter of its step there. nalgebra monomorphizes its LU for a
//! matrix whose size is a type (`SMatrix<f64, N, N>`), so the loops have known bounds and nothing
//! is allocated after construction; the size is chosen once, at construction, among
//! 1..=[`SMALL_DIM`].

use nalgebra::linalg::LU;
use nalgebra::{Const, DimMin, SMatrix};

use super::linear::{singular_pivot, LeastSquares, LinearStats};
use crate::linalg::{Matrix, Vector};

/// Largest number of unknowns n + m that [`SmallDenseSolver`] takes (and that
/// `linear_solver = "auto"` sends to it).
pub const SMALL_DIM: usize = 8;

/// LU factors held in storage of one fixed size.
trait FixedLu {
    /// Factors the column-major square `a` of this size; returns the smallest |U_kk|.
    fn factor(&mut self, a: &[f64]) -> f64;
    /// Overwrites `b` with the solution for the last factors (false when a pivot is zero).
    fn solve_mut(&self, b: &mut Vector) -> bool;
}

/// The factors of an N × N matrix (none before the first factorization).
struct Fixed<const N: usize>(Option<LU<f64, Const<N>, Const<N>>>)
where
    Const<N>: DimMin<Const<N>, Output = Const<N>>;

impl<const N: usize> FixedLu for Fixed<N>
where
    Const<N>: DimMin<Const<N>, Output = Const<N>>,
{
    fn factor(&mut self, a: &[f64]) -> f64 {
        let lu = self
            .0
            .insert(LU::new(SMatrix::<f64, N, N>::from_column_slice(a)));
        let u = lu.u();
        (0..N).fold(f64::INFINITY, |m, k| m.min(u[(k, k)].abs()))
    }

    fn solve_mut(&self, b: &mut Vector) -> bool {
        self.0.as_ref().is_some_and(|lu| lu.solve_mut(b))
    }
}

/// Empty factors of size dim (1 ≤ dim ≤ [`SMALL_DIM`]).
fn fixed(dim: usize) -> Box<dyn FixedLu + Send + Sync> {
    match dim {
        1 => Box::new(Fixed::<1>(None)),
        2 => Box::new(Fixed::<2>(None)),
        3 => Box::new(Fixed::<3>(None)),
        4 => Box::new(Fixed::<4>(None)),
        5 => Box::new(Fixed::<5>(None)),
        6 => Box::new(Fixed::<6>(None)),
        7 => Box::new(Fixed::<7>(None)),
        _ => Box::new(Fixed::<8>(None)),
    }
}

/// Dense LU with partial pivoting for dim ≤ [`SMALL_DIM`] (see the module documentation); a
/// singular matrix (smallest pivot at most 1e-13 of the largest entry, or not finite) is solved in
/// the minimum-norm least-squares sense instead. Allocates only at construction and on the first
/// singular matrix.
pub struct SmallDenseSolver {
    dim: usize,
    /// The factors, in storage of size dim (none for dim = 0).
    factors: Option<Box<dyn FixedLu + Send + Sync>>,
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

    /// Factors `a` (dim × dim).
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor(&mut self, a: &Matrix) {
        assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
        self.stats.factorizations += 1;
        let Some(factors) = self.factors.as_mut() else {
            return;
        };
        let min_pivot = factors.factor(a.as_slice());
        self.singular = singular_pivot(min_pivot, a.as_slice());
        if self.singular {
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
