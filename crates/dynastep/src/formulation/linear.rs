//! Dense linear solves of the iteration matrix.
//!
//! [`DenseSolver`] factors with LU and partial pivoting; when the matrix is singular to working precision
//! (redundant constraints, a singular configuration) it falls back to a least-squares (minimum-norm)
//! solution from a singular value decomposition, and counts how often it did. The sparse path
//! ([`super::sparse::SparseSolver`]) densifies a singular matrix and uses the same fallback.

use crate::linalg::{Matrix, Vector};

/// Outcome counters of a linear solver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinearStats {
    /// Number of factorizations.
    pub factorizations: u64,
    /// Of these, numeric refactorizations with the pivots and pattern of an earlier one (sparse
    /// solver only, [`super::refactor`]).
    pub refactorizations: u64,
    /// Number of solves that fell back to least squares because the matrix was singular.
    pub least_squares_solves: u64,
}

/// Dense LU solver (faer, partial pivoting, in place, no allocation after construction) with a
/// least-squares fallback (nalgebra SVD, minimum-norm solution) for singular matrices.
pub struct DenseSolver {
    dim: usize,
    /// The LU factors, column-major, dim × dim.
    lu: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    scratch: faer::dyn_stack::MemBuffer,
    singular: bool,
    fallback: LeastSquares,
    /// Counters.
    pub stats: LinearStats,
}

impl std::fmt::Debug for DenseSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseSolver")
            .field("dim", &self.dim)
            .field("stats", &self.stats)
            .finish()
    }
}

/// Smallest |U_kk| relative to the largest entry of the matrix below which it is treated as singular.
pub(crate) const SINGULAR_PIVOT: f64 = 1e-13;

/// Minimum-norm least-squares solutions of a dense, possibly singular, square system from its singular
/// value decomposition (faer, several times faster than nalgebra's at n + m ≈ 500, which matters when
/// a singular configuration sends every Newton iteration here). Singular values below 1e-10 of the
/// largest are treated as zero. Allocates on every [`factor`](Self::factor): it is the fallback for
/// singular iteration matrices.
#[derive(Default)]
pub(crate) struct LeastSquares {
    /// U, the singular values and V of the last factored matrix; `None` when the decomposition
    /// failed (non-finite entries).
    svd: Option<(faer::Mat<f64>, Vec<f64>, faer::Mat<f64>)>,
}

/// The minimum-norm least-squares solution of `A x = b` for any shape of A (r × c, b with r
/// entries, x with c), singular values below `rcond · σ_max` treated as zero; NaN entries when the
/// decomposition fails (non-finite A). faer's SVD.
pub(crate) fn min_norm_lstsq(a: &Matrix, b: &Vector, rcond: f64) -> Vector {
    let mut ls = LeastSquares::default();
    ls.factor(a.clone());
    ls.solve_general(b, rcond)
        .unwrap_or_else(|| Vector::from_element(a.ncols(), f64::NAN))
}

impl LeastSquares {
    /// Decomposes `a`.
    pub(crate) fn factor(&mut self, a: Matrix) {
        let n = a.nrows();
        let m = faer::Mat::<f64>::from_fn(n, a.ncols(), |i, j| a[(i, j)]);
        self.svd = m.thin_svd().ok().map(|svd| {
            let s = (0..svd.S().dim()).map(|k| svd.S()[k]).collect();
            (svd.U().to_owned(), s, svd.V().to_owned())
        });
    }

    /// Overwrites `b` with the minimum-norm least-squares solution of `A x = b` for the matrix of the
    /// last [`factor`](Self::factor); NaN when the decomposition failed (non-finite entries).
    pub(crate) fn solve_in_place(&self, b: &mut Vector) {
        match self.solve_general(b, 1e-10) {
            Some(x) => b.copy_from(&x),
            None => b.fill(f64::NAN),
        }
    }

    /// x = V Σ⁺ Uᵀ b (singular values below `rcond · σ_max` dropped); `None` when the
    /// decomposition failed.
    fn solve_general(&self, b: &Vector, rcond: f64) -> Option<Vector> {
        let (u, s, v) = self.svd.as_ref()?;
        let smax = s.iter().fold(0.0_f64, |m, x| m.max(*x));
        let y: Vec<f64> = (0..s.len())
            .map(|k| {
                if s[k] > smax * rcond {
                    (0..u.nrows()).map(|i| u[(i, k)] * b[i]).sum::<f64>() / s[k]
                } else {
                    0.0
                }
            })
            .collect();
        Some(Vector::from_fn(v.nrows(), |i, _| {
            (0..s.len()).map(|k| v[(i, k)] * y[k]).sum()
        }))
    }
}

impl DenseSolver {
    /// A solver for matrices of size `dim` × `dim`.
    pub fn new(dim: usize) -> Self {
        use faer::linalg::lu::partial_pivoting::{factor, solve};
        let req =
            factor::lu_in_place_scratch::<usize, f64>(dim, dim, faer::Par::Seq, Default::default())
                .or(solve::solve_in_place_scratch::<usize, f64>(
                    dim,
                    1,
                    faer::Par::Seq,
                ));
        DenseSolver {
            dim,
            lu: vec![0.0; dim * dim],
            perm: vec![0; dim],
            perm_inv: vec![0; dim],
            scratch: faer::dyn_stack::MemBuffer::new(req),
            singular: false,
            fallback: LeastSquares::default(),
            stats: LinearStats::default(),
        }
    }

    /// Factors `a` (dim × dim). Does not allocate unless `a` is singular.
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor(&mut self, a: &Matrix) {
        use faer::linalg::lu::partial_pivoting::factor;
        assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
        self.stats.factorizations += 1;
        self.lu.copy_from_slice(a.as_slice());
        let n = self.dim;
        let scale = a
            .iter()
            .fold(0.0_f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        let mat = faer::MatMut::from_column_major_slice_mut(&mut self.lu, n, n);
        let stack = faer::dyn_stack::MemStack::new(&mut self.scratch);
        factor::lu_in_place(
            mat,
            &mut self.perm,
            &mut self.perm_inv,
            faer::Par::Seq,
            stack,
            Default::default(),
        );
        let min_pivot = (0..n)
            .map(|k| self.lu[k * n + k].abs())
            .fold(f64::INFINITY, f64::min);
        // A NaN pivot counts as singular.
        self.singular = min_pivot.is_nan() || min_pivot <= SINGULAR_PIVOT * scale;
        if self.singular {
            self.fallback.factor(a.clone());
        }
    }

    /// True when the last factored matrix was singular to working precision.
    pub fn is_singular(&self) -> bool {
        self.singular
    }

    /// The smallest pivot of the last factorization in magnitude (infinite for a 0 × 0 matrix): how
    /// close the matrix is to singular.
    pub fn min_abs_pivot(&self) -> f64 {
        let n = self.dim;
        (0..n)
            .map(|k| self.lu[k * n + k].abs())
            .fold(f64::INFINITY, f64::min)
    }

    /// Solves `A x = b` in place (`b` becomes x), with the matrix of the last [`factor`](Self::factor).
    /// For a singular matrix, x is the minimum-norm least-squares solution.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        use faer::linalg::lu::partial_pivoting::solve;
        let n = self.dim;
        if self.singular {
            self.stats.least_squares_solves += 1;
            self.fallback.solve_in_place(b);
            return;
        }
        let lu = faer::MatRef::from_column_major_slice(&self.lu, n, n);
        // SAFETY-free construction: perm and perm_inv come from lu_in_place and are inverse of each other.
        let perm = faer::perm::PermRef::new_checked(&self.perm, &self.perm_inv, n);
        let rhs = faer::MatMut::from_column_major_slice_mut(b.as_mut_slice(), n, 1);
        let stack = faer::dyn_stack::MemStack::new(&mut self.scratch);
        solve::solve_in_place(lu, lu, perm, rhs, faer::Par::Seq, stack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_regular_and_singular_systems() {
        let a = Matrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0]);
        let x = Vector::from_vec(vec![1.0, -2.0, 0.5]);
        let mut b = &a * &x;
        let mut s = DenseSolver::new(3);
        s.factor(&a);
        s.solve_in_place(&mut b);
        assert!((b - x).norm() < 1e-14);
        // Rank-deficient, consistent: minimum-norm solution.
        let a = Matrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
        let mut b = Vector::from_vec(vec![2.0, 2.0]);
        let mut s = DenseSolver::new(2);
        s.factor(&a);
        assert!(s.is_singular());
        s.solve_in_place(&mut b);
        assert!((b - Vector::from_vec(vec![1.0, 1.0])).norm() < 1e-12);
        assert_eq!(s.stats.least_squares_solves, 1);
    }
}
