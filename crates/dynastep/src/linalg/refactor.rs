//! Numeric refactorization of a sparse LU with the row pivots and the factor pattern of an earlier
//! factorization, and the triangular solves with the result: the "refactor" of KLU (Davis &
//! Palamadai Natarajan 2010, ACM TOMS 37:36, §2.6), for the Newton iteration matrices of one run,
//! which keep their pattern and change their values a little from one iteration to the next.
//!
//! [`StaticLu::adopt`] copies a factorization P A Q = L U made by faer's partial-pivoting sparse LU
//! (L unit lower triangular, U upper triangular, both indexed by elimination position). For a new
//! matrix with A's pattern, [`StaticLu::refactor`] recomputes the values column by column, left-looking
//! (Gilbert & Peierls 1988): scatter column Q(j) of the new A into a dense work vector at the
//! positions P assigns its rows, subtract L(:, k) U(k, j) for the entries k of U(:, j) in increasing
//! order, then U(:, j) and L(:, j) = x / U(j, j) are read off the known pattern. There is no graph
//! search and no pivot choice, so it costs only the flops of the factors.
//!
//! A refactorization keeps the old pivots only while they stay good: every pivot must be at least
//! [`PIVOT_TOLERANCE`] (0.1) times the largest entry of its column below the diagonal, finite and
//! above the singularity threshold of the caller. Otherwise `refactor` returns false and the caller
//! factors afresh with pivoting, and adopts the new pivots.
//!
//! The storage is reserved once (the caller passes the bounds of any pivoting); neither `adopt` nor
//! `refactor` nor `solve_in_place` allocates after that.

use faer::sparse::linalg::lu::simplicial::SimplicialLu;
use faer::sparse::SparseColMatRef;

use crate::linalg::Vector;

/// Smallest |U(j, j)| / max |x_i| over the entries of column j below the diagonal that a
/// refactorization accepts: threshold partial pivoting with the threshold of UMFPACK's default
/// (Davis 2004, ACM TOMS 30:196, §2.3), which bounds the growth of each column's multipliers by 10.
/// Measured on the N = 40 chain: 99.8 % of the iteration matrices are refactored (43 % with a
/// threshold of 1, which keeps a pivot only while partial pivoting would choose it), the loop is
/// 1.5× faster, and the end point agrees with fresh factorizations to 1e-11 m. Results differ from
/// fresh factorizations at the level of the Newton tolerance; the test suite's accuracy results
/// hold (one adaptive run at rtol = 1e-3, whose step sequence is that sensitive, moves: see
/// `tests/adaptive_steps.rs`).
pub const PIVOT_TOLERANCE: f64 = 0.1;

/// An LU factorization P A Q = L U in elimination positions, with the structure needed to refactor
/// and solve (n × n matrices).
#[derive(Debug, Default)]
pub struct StaticLu {
    n: usize,
    /// Elimination position of each row of A (P), and the row of A at each position.
    row_position: Vec<usize>,
    row_at: Vec<usize>,
    /// Column of A eliminated at each position (Q).
    col_at: Vec<usize>,
    /// L below the diagonal (unit diagonal implicit), by column, row indices in positions.
    l_ptr: Vec<usize>,
    l_idx: Vec<usize>,
    l_val: Vec<f64>,
    /// U above the diagonal, by column, row indices in increasing positions.
    u_ptr: Vec<usize>,
    u_idx: Vec<usize>,
    u_val: Vec<f64>,
    /// Reciprocals of the diagonal of U (of the pivots): the backward solve multiplies by them,
    /// keeping a division off each row's chain of dependent operations.
    pivot_inverse: Vec<f64>,
    /// The same L and U by row, for the solves ([`ByRow`]).
    l_rows: ByRow,
    u_rows: ByRow,
    /// Dense work vector (n), all zeros between calls.
    work: Vec<f64>,
    valid: bool,
}

impl StaticLu {
    /// Storage for n × n factors with up to `nnz_l` entries in L and `nnz_u` in U (diagonals
    /// included); allocates.
    pub fn with_capacity(n: usize, nnz_l: usize, nnz_u: usize) -> Self {
        StaticLu {
            n,
            row_position: vec![0; n],
            row_at: vec![0; n],
            col_at: vec![0; n],
            l_ptr: vec![0; n + 1],
            l_idx: Vec::with_capacity(nnz_l),
            l_val: Vec::with_capacity(nnz_l),
            u_ptr: vec![0; n + 1],
            u_idx: Vec::with_capacity(nnz_u),
            u_val: Vec::with_capacity(nnz_u),
            pivot_inverse: vec![0.0; n],
            l_rows: ByRow::with_capacity(n, nnz_l),
            u_rows: ByRow::with_capacity(n, nnz_u),
            work: vec![0.0; n],
            valid: false,
        }
    }

    /// True when factors are held (after [`adopt`](Self::adopt) or a successful
    /// [`refactor`](Self::refactor)).
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Forgets the factors: the next matrix must be factored afresh.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Copies faer's factorization: `lu` with `row_perm` (row of A at each position; `row_perm_inv`
    /// its inverse) and the column order `col_perm_fwd` (column of A eliminated at each position).
    /// Allocates only when the factors exceed the reserved capacity.
    pub fn adopt(
        &mut self,
        lu: &SimplicialLu<usize, f64>,
        row_perm: &[usize],
        row_perm_inv: &[usize],
        col_perm_fwd: &[usize],
    ) {
        let n = self.n;
        self.row_at.copy_from_slice(row_perm);
        self.row_position.copy_from_slice(row_perm_inv);
        self.col_at.copy_from_slice(col_perm_fwd);
        let (l, u) = (lu.l_factor_unsorted(), lu.u_factor_unsorted());
        self.l_idx.clear();
        self.l_val.clear();
        self.u_idx.clear();
        self.u_val.clear();
        for j in 0..n {
            for (i, v) in l.row_idx_of_col(j).zip(l.val_of_col(j)) {
                if i != j {
                    self.l_idx.push(i);
                    self.l_val.push(*v);
                }
            }
            self.l_ptr[j + 1] = self.l_idx.len();
            for (k, v) in u.row_idx_of_col(j).zip(u.val_of_col(j)) {
                if k == j {
                    self.pivot_inverse[j] = v.recip();
                } else {
                    self.u_idx.push(k);
                    self.u_val.push(*v);
                }
            }
            self.u_ptr[j + 1] = self.u_idx.len();
        }
        self.l_rows.transpose(&self.l_ptr, &self.l_idx);
        self.u_rows.transpose(&self.u_ptr, &self.u_idx);
        self.l_rows.copy_values(&self.l_val);
        self.u_rows.copy_values(&self.u_val);
        self.valid = true;
    }

    /// Recomputes the factors for `a`, which must have the pattern of the matrix adopted (entries
    /// outside it are a logic error of the caller and make the result wrong), with the same pivots.
    /// Returns false, and holds no factors, when a pivot is not finite, is at most `singular`, or is
    /// smaller than [`PIVOT_TOLERANCE`] times an entry below it.
    pub fn refactor(&mut self, a: SparseColMatRef<'_, usize, f64>, singular: f64) -> bool {
        if !self.valid {
            return false;
        }
        let x = &mut self.work;
        for j in 0..self.n {
            for (r, v) in a
                .row_idx_of_col(self.col_at[j])
                .zip(a.val_of_col(self.col_at[j]))
            {
                x[self.row_position[r]] += v;
            }
            let (u0, u1) = (self.u_ptr[j], self.u_ptr[j + 1]);
            let u_column = self.u_idx[u0..u1].iter().zip(&mut self.u_val[u0..u1]);
            for (&k, u) in u_column {
                let ukj = x[k];
                x[k] = 0.0;
                *u = ukj;
                if ukj != 0.0 {
                    let column = self.l_ptr[k]..self.l_ptr[k + 1];
                    let rows = self.l_idx[column.clone()].iter();
                    for (&i, &l) in rows.zip(&self.l_val[column]) {
                        x[i] -= l * ukj;
                    }
                }
            }
            let pivot = x[j];
            x[j] = 0.0;
            let (l0, l1) = (self.l_ptr[j], self.l_ptr[j + 1]);
            let largest = self.l_idx[l0..l1]
                .iter()
                .fold(0.0_f64, |m, &i| m.max(x[i].abs()));
            let good = pivot.is_finite()
                && pivot.abs() > singular
                && pivot.abs() >= PIVOT_TOLERANCE * largest;
            let inverse = pivot.recip();
            let l_column = self.l_idx[l0..l1].iter().zip(&mut self.l_val[l0..l1]);
            for (&i, l) in l_column {
                *l = x[i] * inverse;
                x[i] = 0.0;
            }
            if !good {
                // Clear what the remaining columns would have left (nothing: every column clears
                // its own pattern) and give up.
                self.valid = false;
                return false;
            }
            self.pivot_inverse[j] = inverse;
        }
        self.l_rows.copy_values(&self.l_val);
        self.u_rows.copy_values(&self.u_val);
        true
    }

    /// Solves A x = b in place (`b` becomes x, n entries) with the factors held.
    ///
    /// The triangular solves run by rows, each entry a sum in a register (y_i = b_i − Σ_j L_ij y_j,
    /// then w_i = (y_i − Σ_j U_ij w_j) / U_ii), in the order the column-oriented solves subtract
    /// in (j increasing for L, decreasing for U): the same operations on the same numbers, so
    /// the same result to the bit, without the column form's chains of loads and stores through
    /// the work vector. Measured with modified Newton: the flyball governor (n = 52, 1 210 entries
    /// in L and U) 0.95 → 0.62 µs per solve; Bricard (n = 70, 1 250 entries) stayed at 2.1 µs, its
    /// long rows of U being one chain of dependent subtractions in either form. The backward
    /// solve multiplies by the pivots' reciprocals, stored when the factors are made (the same
    /// number `recip` gave at every solve before): a division per row was on that chain, and
    /// without it Bricard's modified-Newton loop (10 000 steps at h = 1e-3) fell from 0.100 to
    /// 0.092 s (best of five, 2026-11-29). Four partial sums per row instead of one chain gained
    /// nothing there (0.093 s) and were not kept.
    ///
    /// # Panics
    /// When no factors are held or `b` does not have n entries.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        assert!(self.valid, "refactor: no factors");
        assert_eq!(b.len(), self.n, "right-hand side length");
        let y = &mut self.work;
        // y = P b, then L z = y (unit lower), then U w = z.
        for i in 0..self.n {
            let mut s = b[self.row_at[i]];
            for (j, l) in self.l_rows.row(i) {
                s -= l * y[j];
            }
            y[i] = s;
        }
        for i in (0..self.n).rev() {
            let mut s = y[i];
            for (j, u) in self.u_rows.row(i).rev() {
                s -= u * y[j];
            }
            y[i] = s * self.pivot_inverse[i];
        }
        // x = Q w.
        for (j, wj) in y.iter_mut().enumerate() {
            b[self.col_at[j]] = *wj;
            *wj = 0.0;
        }
    }
}

/// A triangular factor stored by columns, copied by rows: the column of each entry in increasing
/// order, and where its value sits in the column storage. The pattern is transposed when a
/// factorization is adopted, the values copied after every refactorization.
#[derive(Debug, Default)]
struct ByRow {
    ptr: Vec<usize>,
    col: Vec<usize>,
    /// Position of each entry in the column storage.
    src: Vec<usize>,
    val: Vec<f64>,
}

impl ByRow {
    /// Storage for n rows and up to `nnz` entries; allocates.
    fn with_capacity(n: usize, nnz: usize) -> Self {
        ByRow {
            ptr: vec![0; n + 1],
            col: Vec::with_capacity(nnz),
            src: Vec::with_capacity(nnz),
            val: Vec::with_capacity(nnz),
        }
    }

    /// The row pattern of the column pattern (`col_ptr`, `row_idx`), by a counting sort: columns
    /// in increasing order within each row. Allocates only beyond the reserved capacity.
    fn transpose(&mut self, col_ptr: &[usize], row_idx: &[usize]) {
        let nnz = row_idx.len();
        self.ptr.fill(0);
        for &i in row_idx {
            self.ptr[i + 1] += 1;
        }
        for i in 1..self.ptr.len() {
            self.ptr[i] += self.ptr[i - 1];
        }
        self.col.resize(nnz, 0);
        self.src.resize(nnz, 0);
        self.val.resize(nnz, 0.0);
        // ptr[i] serves as row i's cursor, then is shifted back.
        for j in 0..col_ptr.len() - 1 {
            for (p, &i) in row_idx
                .iter()
                .enumerate()
                .take(col_ptr[j + 1])
                .skip(col_ptr[j])
            {
                let at = self.ptr[i];
                (self.col[at], self.src[at]) = (j, p);
                self.ptr[i] += 1;
            }
        }
        for i in (1..self.ptr.len()).rev() {
            self.ptr[i] = self.ptr[i - 1];
        }
        self.ptr[0] = 0;
    }

    /// Copies the values from the column storage.
    fn copy_values(&mut self, by_column: &[f64]) {
        for (v, &p) in self.val.iter_mut().zip(&self.src) {
            *v = by_column[p];
        }
    }

    /// Row i's entries: (column, value), columns increasing.
    #[inline]
    fn row(&self, i: usize) -> impl DoubleEndedIterator<Item = (usize, f64)> + '_ {
        let range = self.ptr[i]..self.ptr[i + 1];
        self.col[range.clone()]
            .iter()
            .copied()
            .zip(self.val[range].iter().copied())
    }
}
