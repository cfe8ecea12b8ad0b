//! A structurally singular sparse matrix solved without its null space: the unknowns of a
//! redundant constraint pinned to zero.
//!
//! Redundant constraints (Bricard's mechanism has one) make every iteration matrix
//!
//! ```text
//! A = [ K   Bᵀ ]     B = Φ_q (scaled), with a row dependent on the others
//!     [ B   0  ]
//! ```
//!
//! singular, with right and left null spaces (0; μ), Bᵀμ = 0. The least-squares fallback of
//! [`super::linear`] handles any singular matrix, but decomposes it (an SVD, dense) at every
//! Newton iteration: 0.87 ms of Bricard's 0.9 ms step. Removing the unknowns D (one per null
//! vector, [`LeastSquares::null_pivots`](super::linear::LeastSquares)) leaves the regular matrix
//! A_R; this type factors A with the rows and columns of D replaced by those of the identity,
//! which has the factors of A_R, by sparse LU. A solve gives x_R = A_R⁻¹ b_R and x_D = 0, a
//! solution of a consistent system; removing its component along the null space (whose vectors
//! e_d − A_R⁻¹ A_Rd the check below computes anyway) makes it the minimum-norm solution, the one
//! the least-squares fallback gives, so the multipliers of redundant joints are split the same way.
//!
//! Each factorization checks that D still spans the null space: the Schur complement
//! S = A_DD − A_DR A_R⁻¹ A_RD (|D| × |D|, one extra solve per pinned unknown) is zero exactly when
//! A is singular along D. When an entry of S exceeds [`LEAST_SQUARES_RCOND`] of the largest entry
//! of A, or A_R itself turns singular, the rank has changed, [`Pinned::factor`] says so, and the
//! caller goes back to the decomposition.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};

use super::linear::LEAST_SQUARES_RCOND;
use super::sparse::SparseSolver;
use crate::linalg::{max_abs, Vector};

/// The pinned copy of a sparse matrix and its LU (see the module documentation).
pub(crate) struct Pinned {
    /// The pinned unknowns D.
    index: Vec<usize>,
    /// Pattern of the pinned matrix: that of A with the diagonal entries of D added (checked
    /// once, here, not at every factorization).
    pattern: SymbolicSparseColMat<usize>,
    values: Vec<f64>,
    /// Position in `values` of each value of A.
    map: Vec<usize>,
    /// Position in `values` of the diagonal entry of each pinned unknown.
    diagonal: Vec<usize>,
    /// For each pinned unknown d, the entries of A in row d: (column, position in A's values).
    rows: Vec<Vec<(usize, usize)>>,
    /// For each pinned unknown d, the entries of A in column d: (row, position in A's values).
    cols: Vec<Vec<(usize, usize)>>,
    solver: SparseSolver,
    /// An orthonormal basis of the null space of the last factored matrix (one vector of dim
    /// entries per pinned unknown): e_d − A_R⁻¹ A_Rd, orthonormalized.
    null: Vec<Vector>,
}

impl Pinned {
    /// The pinned copy of matrices with the pattern of `a` (dim × dim) and the unknowns `index`.
    /// Allocates.
    pub(crate) fn new(a: SparseColMatRef<'_, usize, f64>, index: Vec<usize>) -> Self {
        let n = a.ncols();
        let (mut col_ptr, mut row_idx, mut map) = (vec![0], Vec::new(), Vec::new());
        let mut diagonal = vec![usize::MAX; index.len()];
        let mut rows = vec![Vec::new(); index.len()];
        let mut cols = vec![Vec::new(); index.len()];
        let mut position = 0;
        for c in 0..n {
            let pinned_col = index.iter().position(|&d| d == c);
            let mut has_diagonal = false;
            for r in a.row_idx_of_col(c) {
                if let Some(k) = pinned_col {
                    cols[k].push((r, position));
                }
                if let Some(k) = index.iter().position(|&d| d == r) {
                    rows[k].push((c, position));
                }
                if r == c {
                    has_diagonal = true;
                    if let Some(k) = pinned_col {
                        diagonal[k] = row_idx.len();
                    }
                }
                map.push(row_idx.len());
                row_idx.push(r);
                position += 1;
            }
            if let (Some(k), false) = (pinned_col, has_diagonal) {
                diagonal[k] = row_idx.len();
                row_idx.push(c);
            }
            col_ptr.push(row_idx.len());
        }
        let values = vec![0.0; row_idx.len()];
        let pattern = SymbolicSparseColMat::new_unsorted_checked(n, n, col_ptr, None, row_idx);
        let null = vec![Vector::zeros(n); index.len()];
        Pinned {
            index,
            pattern,
            values,
            map,
            diagonal,
            rows,
            cols,
            solver: SparseSolver::new(n),
            null,
        }
    }

    /// Factors `a` (the pattern given to [`Pinned::new`]) with D pinned, and checks that D still
    /// spans its null space (see the module documentation). False when it does not, or when A_R
    /// is singular: then [`Pinned::solve_in_place`] must not be called.
    pub(crate) fn factor(&mut self, a: SparseColMatRef<'_, usize, f64>) -> bool {
        let values = a.val();
        self.values.fill(0.0);
        for (p, &v) in values.iter().enumerate() {
            self.values[self.map[p]] = v;
        }
        for k in 0..self.index.len() {
            for &(_, p) in self.rows[k].iter().chain(&self.cols[k]) {
                self.values[self.map[p]] = 0.0;
            }
            self.values[self.diagonal[k]] = 1.0;
        }
        if !self
            .solver
            .factor_lu(SparseColMatRef::new(self.pattern.as_ref(), &self.values))
        {
            return false;
        }
        let bound = LEAST_SQUARES_RCOND * max_abs(values).max(f64::MIN_POSITIVE);
        if !(0..self.index.len()).all(|k| self.schur_column_is_zero(values, k, bound)) {
            return false;
        }
        self.orthonormalize_null_space();
        true
    }

    /// True when column k of S = A_DD − A_DR A_R⁻¹ A_RD is at most `bound` in every entry; leaves
    /// the null vector e_d − A_R⁻¹ A_Rd (d the k-th pinned unknown) in `null[k]`.
    fn schur_column_is_zero(&mut self, values: &[f64], k: usize, bound: f64) -> bool {
        let z = &mut self.null[k];
        z.fill(0.0);
        for &(r, p) in &self.cols[k] {
            if !self.index.contains(&r) {
                z[r] = values[p];
            }
        }
        self.solver.solve_in_place(z);
        let schur_zero = (0..self.index.len()).all(|j| {
            let mut s = 0.0;
            for &(c, p) in &self.rows[j] {
                if c == self.index[k] {
                    s += values[p];
                } else if !self.index.contains(&c) {
                    s -= values[p] * z[c];
                }
            }
            s.abs() <= bound
        });
        z.neg_mut();
        z[self.index[k]] = 1.0;
        schur_zero
    }

    /// Modified Gram–Schmidt on the null vectors.
    fn orthonormalize_null_space(&mut self) {
        for k in 0..self.null.len() {
            let (done, rest) = self.null.split_at_mut(k);
            let v = &mut rest[0];
            for u in done.iter() {
                let c = u.dot(v);
                v.axpy(-c, u, 1.0);
            }
            let norm = v.norm();
            *v /= norm;
        }
    }

    /// Sets the component of `x` (the entries `offset..offset + x.len()` of an unknown vector) along
    /// the null space of the last successfully factored matrix to that of `reference` (same
    /// length): x ← x − Σ μ μᵀ(x − reference), μ the null vectors' entries there. For the Newton
    /// start of the multipliers (`reference` the last solved λ): the null vectors of a saddle-point
    /// matrix with redundant constraints are (0; μ), Bᵀμ = 0, the minimum-norm corrections never
    /// change λ along μ, and an extrapolated start would move it there at every point.
    ///
    /// # Panics
    /// When `reference` and `x` differ in length, or `offset + x.len()` exceeds dim.
    pub(crate) fn keep_null_component(&self, x: &mut [f64], reference: &[f64], offset: usize) {
        assert_eq!(reference.len(), x.len(), "reference length");
        for u in &self.null {
            let part = &u.as_slice()[offset..offset + x.len()];
            let c: f64 = (part.iter().zip(x.iter()).zip(reference))
                .map(|((ui, xi), ri)| ui * (xi - ri))
                .sum();
            x.iter_mut().zip(part).for_each(|(xi, ui)| *xi -= c * ui);
        }
    }

    /// Solves A x = b in place with D pinned (`b` becomes x, dim entries), for the matrix of the
    /// last successful [`Pinned::factor`]: x_R = A_R⁻¹ b_R with x_D = 0, then its component along
    /// the null space removed. For a consistent b that is the minimum-norm solution, the one the
    /// least-squares fallback gives: without the projection the multipliers of the redundant
    /// joints drifted along the null space step after step (Bricard's reactions grew from 6.5 N
    /// to 3 400 N in 10 s, positions unchanged).
    pub(crate) fn solve_in_place(&mut self, b: &mut Vector) {
        for &d in &self.index {
            b[d] = 0.0;
        }
        self.solver.solve_in_place(b);
        for u in &self.null {
            let c = u.dot(b);
            b.axpy(-c, u, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::Matrix;
    use faer::sparse::SparseColMat;

    /// A saddle-point matrix [[K, Bᵀ], [B, 0]] whose third constraint row is the sum of the first
    /// two, in CSC form, and the same matrix dense.
    fn redundant() -> (SparseColMat<usize, f64>, Matrix) {
        let k = [[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]];
        let b = [[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [1.0, 1.0, 1.0]];
        let dense = Matrix::from_fn(6, 6, |i, j| match (i < 3, j < 3) {
            (true, true) => k[i][j],
            (true, false) => b[j - 3][i],
            (false, true) => b[i - 3][j],
            (false, false) => 0.0,
        });
        let mut triplets = Vec::new();
        for j in 0..6 {
            for i in 0..6 {
                if dense[(i, j)] != 0.0 {
                    triplets.push(faer::sparse::Triplet::new(i, j, dense[(i, j)]));
                }
            }
        }
        (
            SparseColMat::try_new_from_triplets(6, 6, &triplets).unwrap(),
            dense,
        )
    }

    /// Pinned, the redundant system gives the minimum-norm solution of A x = b (consistent b), as
    /// the least-squares fallback does.
    #[test]
    fn a_pinned_solve_solves_the_consistent_system() {
        let (a, dense) = redundant();
        let x_true = Vector::from_vec(vec![0.3, -0.2, 0.5, 0.1, -0.4, 0.0]);
        let b = &dense * &x_true;
        let mut ls = super::super::linear::LeastSquares::default();
        ls.factor(&dense);
        let index = ls.null_pivots();
        assert_eq!(index.len(), 1);
        assert!(index[0] >= 3, "a multiplier is pinned, not {index:?}");
        let mut pinned = Pinned::new(a.as_ref(), index.clone());
        assert!(pinned.factor(a.as_ref()));
        let mut x = b.clone();
        pinned.solve_in_place(&mut x);
        assert!((&dense * &x - &b).amax() < 1e-13);
        let mut min_norm = b.clone();
        ls.solve_in_place(&mut min_norm);
        assert!((&x - &min_norm).amax() < 1e-13, "{x} vs {min_norm}");
    }

    /// When the pinned row stops being dependent (the rank changes), the factorization says so.
    #[test]
    fn a_row_that_becomes_independent_is_reported() {
        let (a, dense) = redundant();
        let mut ls = super::super::linear::LeastSquares::default();
        ls.factor(&dense);
        let mut pinned = Pinned::new(a.as_ref(), ls.null_pivots());
        let mut changed = a.clone();
        // Perturb one entry of the third constraint row: no longer the sum of the other two.
        let col = 0;
        let (start, end) = (changed.col_ptr()[col], changed.col_ptr()[col + 1]);
        let rows: Vec<usize> = changed.row_idx()[start..end].to_vec();
        let at = rows.iter().position(|&r| r == 5).unwrap();
        changed.val_mut()[start + at] += 0.1;
        // Keep the matrix symmetric: the transposed entry too.
        let (start, end) = (changed.col_ptr()[5], changed.col_ptr()[6]);
        let rows: Vec<usize> = changed.row_idx()[start..end].to_vec();
        let at = rows.iter().position(|&r| r == 0).unwrap();
        changed.val_mut()[start + at] += 0.1;
        assert!(!pinned.factor(changed.as_ref()));
        assert!(pinned.factor(a.as_ref()));
    }
}
