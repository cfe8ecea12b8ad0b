//! Dense linear solves of the iteration matrix.
//!
//! [`DenseSolver`] factors with LU and partial pivoting; when the matrix is singular to working precision
//! (redundant constraints, a singular configuration) it falls back to a least-squares (minimum-norm)
//! solution from a singular value decomposition, and counts how often it did. The sparse path
//! ([`super::sparse::SparseSolver`]) densifies a singular matrix and uses the same fallback.
//!
//! Once the decomposition has found a null space (a singular value at most `SINGULAR_PIVOT` (1e-13) of
//! the largest, the threshold the LU's pivots are judged by), every solver decomposes the next
//! matrices first and factors one by LU only when its decomposition finds it regular. Redundant constraints make every
//! iteration matrix singular, but the LU's smallest pivot carries the rounding of the
//! elimination, and now and then it lands above `SINGULAR_PIVOT` (1e-13): the LU then returns a
//! multiplier correction with a component along the null space of Φ_qᵀ of the size of the
//! rounding of the scaled constraint rows Φ/c_c over that pivot, which no later (minimum-norm)
//! correction removes. Measured on Bricard's mechanism (`examples/bricard.toml`, generalized-α,
//! h = 1e-4 s): σ_min/σ_max of the matrix 2e-17 (the next 3e-3), while the LU's smallest pivot
//! was 1.1e-13 to 5.3e-13 of the largest entry on some matrices (23 refactorizations, which only
//! a regular LU allows, in 12 512 factorizations); ‖λ‖∞ grew to 5e8 by t = 1.2477 s, where Φ_qᵀλ
//! (30 N) was computed with a rounding error of 3e-7 N, above the residual tolerance (1.1e-7 N),
//! and Newton stalled. Each such component scales with 1/c_c ∝ 1/h²: h = 1e-3 s finished, and
//! h = 1e-5 s stalled at t = 1.2442 s. Kept to the decomposition, every step takes one Newton
//! iteration at h = 1e-3, 1e-4 and 1e-5 s over the 10 s, and ‖λ‖∞ stays below 46 (h = 1e-4 s,
//! first 1.5 s).
//!
//! The sparse solver then avoids the decomposition at every iteration without going back to an LU
//! of the singular matrix: it pins the unknowns of the null space the decomposition found and
//! factors the regular rest (`linalg/pinned.rs`), with the same minimum-norm solutions.

use crate::linalg::{max_abs, Matrix, Vector};

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
    /// Number of solves of a singular matrix with the unknowns of its null space pinned: the same
    /// minimum-norm solution without a decomposition (sparse solver only, `linalg/pinned.rs`).
    pub pinned_solves: u64,
}

/// Dense LU solver (faer, partial pivoting, in place, no allocation after construction) with a
/// least-squares fallback (faer SVD, minimum-norm solution) for singular matrices.
pub struct DenseSolver {
    dim: usize,
    /// The LU factors, column-major, dim × dim.
    lu: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    scratch: faer::dyn_stack::MemBuffer,
    singular: bool,
    fallback: Box<LeastSquares>,
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

/// Singular values below this fraction of the largest are treated as zero by the least-squares
/// solves of the iteration matrix.
pub(crate) const LEAST_SQUARES_RCOND: f64 = 1e-10;

/// True when `min_pivot`, the smallest |U_kk| of an LU of the matrix with entries `entries`, marks
/// it singular to working precision: NaN, or at most [`SINGULAR_PIVOT`] times the largest |entry|.
pub(crate) fn singular_pivot(min_pivot: f64, entries: &[f64]) -> bool {
    let scale = max_abs(entries).max(f64::MIN_POSITIVE);
    min_pivot.is_nan() || min_pivot <= SINGULAR_PIVOT * scale
}

/// Minimum-norm least-squares solutions of a dense, possibly singular, square system from its singular
/// value decomposition (faer, several times faster than nalgebra's at n + m ≈ 500, which matters when
/// a singular configuration sends every Newton iteration here). Singular values below
/// [`LEAST_SQUARES_RCOND`] of the largest are treated as zero. Its buffers (the matrix, U, Σ, V,
/// faer's scratch) are sized on the first [`factor`](Self::factor) and reused, so a run whose
/// iteration matrix is singular at every step (redundant constraints) allocates only once.
pub(crate) struct LeastSquares {
    a: faer::Mat<f64>,
    u: faer::Mat<f64>,
    s: faer::Col<f64>,
    v: faer::Mat<f64>,
    /// Σ⁺ Uᵀ b.
    y: Vec<f64>,
    scratch: Option<faer::dyn_stack::MemBuffer>,
    /// False when the last decomposition failed (non-finite entries).
    ok: bool,
    /// True when the last decomposition succeeded and found a singular value at most
    /// [`SINGULAR_PIVOT`] of the largest.
    deficient: bool,
}

/// The minimum-norm least-squares solution of `A x = b` for any shape of A (r × c, b with r
/// entries, x with c), singular values below `rcond · σ_max` treated as zero; NaN entries when the
/// decomposition fails (non-finite A). faer's SVD.
pub(crate) fn min_norm_lstsq(a: &Matrix, b: &Vector, rcond: f64) -> Vector {
    let mut ls = LeastSquares::default();
    ls.factor(a);
    let mut x = Vector::zeros(a.ncols());
    if !ls.solve(b, rcond, &mut x) {
        x.fill(f64::NAN);
    }
    x
}

impl Default for LeastSquares {
    fn default() -> Self {
        LeastSquares {
            a: faer::Mat::zeros(0, 0),
            u: faer::Mat::zeros(0, 0),
            s: faer::Col::zeros(0),
            v: faer::Mat::zeros(0, 0),
            y: Vec::new(),
            scratch: None,
            ok: false,
            deficient: false,
        }
    }
}

impl LeastSquares {
    /// Decomposes `a` (thin SVD), sizing the buffers when its shape is new.
    pub(crate) fn factor(&mut self, a: &Matrix) {
        use faer::linalg::svd::{svd, svd_scratch, ComputeSvdVectors};
        let (r, c) = (a.nrows(), a.ncols());
        let k = r.min(c);
        if self.a.shape() != (r, c) || self.scratch.is_none() {
            self.a = faer::Mat::zeros(r, c);
            self.u = faer::Mat::zeros(r, k);
            self.s = faer::Col::zeros(k);
            self.v = faer::Mat::zeros(c, k);
            self.y = vec![0.0; k];
            let thin = ComputeSvdVectors::Thin;
            let req = svd_scratch::<f64>(r, c, thin, thin, faer::Par::Seq, Default::default());
            self.scratch = Some(faer::dyn_stack::MemBuffer::new(req));
        }
        for j in 0..c {
            for i in 0..r {
                self.a[(i, j)] = a[(i, j)];
            }
        }
        let Some(buffer) = self.scratch.as_mut() else {
            return;
        };
        let stack = faer::dyn_stack::MemStack::new(buffer);
        self.ok = a.iter().all(|x| x.is_finite())
            && svd(
                self.a.as_ref(),
                self.s.as_mut().as_diagonal_mut(),
                Some(self.u.as_mut()),
                Some(self.v.as_mut()),
                faer::Par::Seq,
                stack,
                Default::default(),
            )
            .is_ok();
        let smax = (0..self.s.nrows()).fold(0.0_f64, |m, k| m.max(self.s[k]));
        self.deficient = self.ok && (0..self.s.nrows()).any(|k| self.s[k] <= SINGULAR_PIVOT * smax);
    }

    /// True when the last decomposition found a null space: a singular value at most
    /// [`SINGULAR_PIVOT`] of the largest (see the [module documentation](self)).
    pub(crate) fn is_rank_deficient(&self) -> bool {
        self.deficient
    }

    /// For a rank-deficient matrix, one index per vector of its right null space (the columns of
    /// V whose singular value is at most [`SINGULAR_PIVOT`] of the largest), chosen by Gaussian
    /// elimination with partial pivoting on those vectors, so that no two share a pivot: the
    /// unknowns that, held at zero, leave a regular system when the left null space has the same
    /// support (a saddle-point matrix with redundant constraint rows). Empty otherwise.
    /// Allocates.
    pub(crate) fn null_pivots(&self) -> Vec<usize> {
        if !self.deficient {
            return Vec::new();
        }
        let smax = (0..self.s.nrows()).fold(0.0_f64, |m, k| m.max(self.s[k]));
        let null: Vec<usize> = (0..self.s.nrows())
            .filter(|&k| self.s[k] <= SINGULAR_PIVOT * smax)
            .collect();
        let mut basis = Matrix::from_fn(self.v.nrows(), null.len(), |i, j| self.v[(i, null[j])]);
        let mut pivots = Vec::with_capacity(null.len());
        for j in 0..basis.ncols() {
            let column = basis.column(j);
            let Some(p) = (0..column.len())
                .filter(|i| !pivots.contains(i))
                .max_by(|&a, &b| column[a].abs().total_cmp(&column[b].abs()))
            else {
                break;
            };
            let pivot = basis[(p, j)];
            if pivot == 0.0 {
                break;
            }
            for k in j + 1..basis.ncols() {
                let factor = basis[(p, k)] / pivot;
                for i in 0..basis.nrows() {
                    basis[(i, k)] -= factor * basis[(i, j)];
                }
            }
            pivots.push(p);
        }
        pivots
    }

    /// Overwrites `b` with the minimum-norm least-squares solution of `A x = b` for the (square)
    /// matrix of the last [`factor`](Self::factor); NaN when the decomposition failed.
    pub(crate) fn solve_in_place(&mut self, b: &mut Vector) {
        if !self.project(b, LEAST_SQUARES_RCOND) {
            b.fill(f64::NAN);
            return;
        }
        for i in 0..self.v.nrows() {
            b[i] = (0..self.y.len()).map(|k| self.v[(i, k)] * self.y[k]).sum();
        }
    }

    /// x = V Σ⁺ Uᵀ b (singular values below `rcond · σ_max` dropped) into `x` (columns of A
    /// entries); false when the decomposition failed.
    fn solve(&mut self, b: &Vector, rcond: f64, x: &mut Vector) -> bool {
        if !self.project(b, rcond) {
            return false;
        }
        for i in 0..self.v.nrows() {
            x[i] = (0..self.y.len()).map(|k| self.v[(i, k)] * self.y[k]).sum();
        }
        true
    }

    /// y = Σ⁺ Uᵀ b; false when the decomposition failed.
    fn project(&mut self, b: &Vector, rcond: f64) -> bool {
        if !self.ok {
            return false;
        }
        let smax = (0..self.s.nrows()).fold(0.0_f64, |m, k| m.max(self.s[k]));
        for k in 0..self.y.len() {
            self.y[k] = if self.s[k] > smax * rcond {
                (0..self.u.nrows())
                    .map(|i| self.u[(i, k)] * b[i])
                    .sum::<f64>()
                    / self.s[k]
            } else {
                0.0
            };
        }
        true
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
            fallback: Box::default(),
            stats: LinearStats::default(),
        }
    }

    /// Factors `a` (dim × dim). Does not allocate, except on the first singular `a` (the
    /// fallback's buffers). After a matrix whose decomposition found a null space, decomposes
    /// first, and factors by LU only a matrix the decomposition finds regular (see the module
    /// documentation).
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor(&mut self, a: &Matrix) {
        use faer::linalg::lu::partial_pivoting::factor;
        assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
        self.stats.factorizations += 1;
        let decomposed = self.singular && self.fallback.is_rank_deficient();
        if decomposed {
            // After a null space (see the module documentation): no LU while one persists.
            self.fallback.factor(a);
            if self.fallback.is_rank_deficient() {
                // The smallest pivot reads 0.
                self.lu.fill(0.0);
                return;
            }
        }
        self.lu.copy_from_slice(a.as_slice());
        let n = self.dim;
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
        self.singular = singular_pivot(min_pivot, a.as_slice());
        if self.singular && !decomposed {
            self.fallback.factor(a);
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
