//! Sparse assembly and sparse LU of the iteration matrix, for large systems.
//!
//! [`CscAssembler`] is a [`Sink`] that builds a compressed-sparse-column (CSC) matrix. The first
//! assembly records the sequence of `(row, col)` entries that the elements add; from it the CSC pattern
//! is built once (duplicates summed), together with a map from the k-th `add` call to its CSC slot.
//! Later assemblies write each value straight into its slot by call counter: no search, no allocation.
//! This relies on the rule of [`crate::linalg`]: an element adds the same entries in the same order on
//! every call. Debug builds check it and panic naming the offending entry.
//!
//! [`SparseSolver`] factors the assembled matrix with faer's sparse LU with partial pivoting (a
//! left-looking, Gilbert–Peierls simplicial factorization) in the columns order of an approximate
//! minimum degree ordering of A + Aᵀ (faer's AMD), KLU's default (Davis & Palamadai Natarajan
//! 2010). The iteration matrices are structurally symmetric (K and the blocks Φ_qᵀ, Φ_q), which
//! AMD orders for, where COLAMD orders for the fill of AᵀA; measured on 2026-11-28 (the
//! refactorization's multiply-adds, counted by a temporary instrumentation of
//! `StaticLu::adopt`), AMD's factors took fewer flops on every example (flyball governor 9 348 → 6 396, spatial slider-crank
//! 1 336 → 686, Bricard 7 045 → 5 846, N = 40 chain 5 702 → 5 258, lateral buckling
//! 30 025 → 24 269) and the George–Ng bound below stayed within a few per cent. Partial pivoting, not Cholesky or LDLᵀ, because the index-3 iteration matrix is a saddle
//! point matrix with a zero diagonal block. The symbolic analysis (the column ordering) is done once;
//! every Newton iteration then refactors numerically into memory reserved at set-up, so the step loop
//! does not allocate. Because partial pivoting may choose different pivot rows from one matrix to the
//! next, and with them a different fill, the factor storage is reserved up to the George–Ng bound
//! (the structure of L and U for any row pivoting lies within that of the Householder vectors H and
//! the factor R of a QR factorization of A Q; George & Ng 1987, SIAM J. Sci. Stat. Comput. 8:877). A
//! singular matrix (a structurally missing pivot, or a pivot tiny relative to the largest entry) is
//! densified and solved in the least-squares sense by the same SVD fallback as
//! [`super::linear::DenseSolver`]. When that decomposition finds a null space (redundant
//! constraints), the next matrices are factored with its unknowns pinned (`pinned.rs`), with the
//! same minimum-norm solutions and no decomposition, until the rank changes.
//!
//! faer's numeric factorization searches the graph of L and chooses every pivot anew each time (53 %
//! of a step of the N = 40 chain). The factors are therefore copied into [`super::refactor`]'s
//! storage, and the next matrices are refactored numerically with the same pivots and pattern, the
//! refactor of KLU, while every old pivot is still the one partial pivoting would choose; otherwise
//! faer factors afresh. The solves always use that copy.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::amd;
use faer::sparse::linalg::lu::simplicial;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat, SymbolicSparseColMatRef};

use super::linear::{singular_pivot, LeastSquares, LinearStats, SINGULAR_PIVOT};
use super::pinned::Pinned;
use super::refactor::StaticLu;
use crate::linalg::{max_abs, Matrix, Sink, Vector};

/// A [`Sink`] that assembles a square matrix (dim × dim) in compressed sparse column form.
///
/// Use: [`begin`](Self::begin), send the entries through [`Sink::add`], [`finish`](Self::finish); then
/// read the matrix with [`matrix`](Self::matrix). The first assembly records the pattern (and
/// allocates); every later one must add the same entries in the same order (explicit zeros included)
/// and allocates nothing.
pub struct CscAssembler {
    dim: usize,
    /// `(row, col)` of every `add` call of the first assembly, in call order.
    calls: Vec<(usize, usize)>,
    /// Values of the first assembly, until the pattern is built.
    first_values: Vec<f64>,
    /// CSC slot of the k-th `add` call.
    slot: Vec<usize>,
    /// Column pointers and sorted row indices, checked once when built (empty before).
    pattern: SymbolicSparseColMat<usize>,
    values: Vec<f64>,
    /// Number of `add` calls so far in the current assembly.
    next: usize,
    built: bool,
}

impl std::fmt::Debug for CscAssembler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CscAssembler")
            .field("dim", &self.dim)
            .field("calls", &self.calls.len())
            .field("nnz", &self.nnz())
            .field("built", &self.built)
            .finish()
    }
}

impl CscAssembler {
    /// An assembler for dim × dim matrices, with no pattern yet.
    pub fn new(dim: usize) -> Self {
        CscAssembler {
            dim,
            calls: Vec::new(),
            first_values: Vec::new(),
            slot: Vec::new(),
            pattern: SymbolicSparseColMat::new_checked(
                dim,
                dim,
                vec![0; dim + 1],
                None,
                Vec::new(),
            ),
            values: Vec::new(),
            next: 0,
            built: false,
        }
    }

    /// Matrix dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// True once the first assembly has been finished and the pattern built.
    pub fn is_built(&self) -> bool {
        self.built
    }

    /// Number of stored entries (duplicates summed, explicit zeros kept); 0 before the pattern is built.
    pub fn nnz(&self) -> usize {
        self.pattern.row_idx().len()
    }

    /// Starts an assembly: all values become zero and the call counter restarts.
    pub fn begin(&mut self) {
        self.next = 0;
        if self.built {
            self.values.fill(0.0);
        } else {
            self.calls.clear();
            self.first_values.clear();
        }
    }

    /// Ends an assembly. The first time, builds the CSC pattern and the call-to-slot map (allocates).
    ///
    /// # Panics
    /// After the first assembly, when this assembly made fewer `add` calls than the first one (an element
    /// skipped entries, breaking the same-entries-same-order rule of [`Sink`]).
    pub fn finish(&mut self) {
        if self.built {
            assert!(
                self.next == self.slot.len(),
                "sparse assembly: {} add calls, but the first assembly made {}; every element must add \
                 the same entries in the same order on every call (explicit zeros included), see \
                 dynastep::linalg",
                self.next,
                self.slot.len()
            );
        } else {
            self.build();
        }
    }

    fn build(&mut self) {
        let dim = self.dim;
        let calls = &self.calls;
        let mut order: Vec<usize> = (0..calls.len()).collect();
        order.sort_unstable_by_key(|&k| (calls[k].1, calls[k].0));
        let mut col_ptr = vec![0usize; dim + 1];
        let mut row_idx = Vec::new();
        let mut slot = vec![0usize; calls.len()];
        let mut last = None;
        for &k in &order {
            let (r, c) = calls[k];
            if last != Some((r, c)) {
                row_idx.push(r);
                col_ptr[c + 1] += 1;
                last = Some((r, c));
            }
            slot[k] = row_idx.len() - 1;
        }
        for c in 0..dim {
            col_ptr[c + 1] += col_ptr[c];
        }
        let mut values = vec![0.0; row_idx.len()];
        // Sum in call order, as the later assemblies (and the dense sink) do.
        for (k, v) in self.first_values.iter().enumerate() {
            values[slot[k]] += v;
        }
        // Checked once here, not at every `matrix()` (faer's checks cost more than a small
        // model's whole assembly).
        self.pattern = SymbolicSparseColMat::new_checked(dim, dim, col_ptr, None, row_idx);
        self.values = values;
        self.slot = slot;
        self.first_values = Vec::new();
        self.next = self.calls.len();
        self.built = true;
    }

    /// The assembled matrix (dim × dim, rows sorted within each column).
    ///
    /// # Panics
    /// Before the first [`finish`](Self::finish).
    pub fn matrix(&self) -> SparseColMatRef<'_, usize, f64> {
        assert!(self.built, "sparse assembly: no pattern yet (call finish)");
        SparseColMatRef::new(self.pattern.as_ref(), &self.values)
    }

    /// Writes the assembled matrix into the dense `out` (dim × dim), zeros elsewhere.
    ///
    /// # Panics
    /// Before the first [`finish`](Self::finish), or when `out` is not dim × dim.
    pub fn to_dense(&self, out: &mut Matrix) {
        densify(self.matrix(), out);
    }

    #[cold]
    #[inline(never)]
    fn extra_call(&self, row: usize, col: usize) -> ! {
        panic!(
            "sparse assembly: add call #{} at ({row}, {col}), but the first assembly made only {} \
             calls; every element must add the same entries in the same order on every call \
             (explicit zeros included), see dynastep::linalg",
            self.next,
            self.slot.len()
        )
    }

    #[cfg(debug_assertions)]
    #[cold]
    #[inline(never)]
    fn wrong_entry(&self, row: usize, col: usize) -> ! {
        let (r0, c0) = self.calls[self.next];
        panic!(
            "sparse assembly: add call #{} wrote entry ({row}, {col}), but the first assembly wrote \
             ({r0}, {c0}) at that position; every element must add the same entries in the same order \
             on every call (explicit zeros included), see dynastep::linalg",
            self.next
        )
    }
}

impl Sink for CscAssembler {
    /// Adds `value` at (`row`, `col`).
    ///
    /// # Panics
    /// During the first assembly, when the entry lies outside dim × dim. Afterwards, when there are
    /// more calls than in the first assembly, or (debug builds) when the entry is not the one the first
    /// assembly added at this position of the sequence.
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        if self.built {
            let k = self.next;
            let Some(&s) = self.slot.get(k) else {
                self.extra_call(row, col)
            };
            #[cfg(debug_assertions)]
            if self.calls[k] != (row, col) {
                self.wrong_entry(row, col);
            }
            self.values[s] += value;
            self.next = k + 1;
        } else {
            assert!(
                row < self.dim && col < self.dim,
                "sparse assembly: entry ({row}, {col}) outside the {0} x {0} matrix",
                self.dim
            );
            self.calls.push((row, col));
            self.first_values.push(value);
        }
    }
}

/// Writes `a` into the dense `out` (same shape), zeros elsewhere.
fn densify(a: SparseColMatRef<'_, usize, f64>, out: &mut Matrix) {
    assert_eq!(
        (out.nrows(), out.ncols()),
        (a.nrows(), a.ncols()),
        "matrix shape"
    );
    out.fill(0.0);
    for c in 0..a.ncols() {
        for (r, v) in a.row_idx_of_col(c).zip(a.val_of_col(c)) {
            out[(r, c)] += v;
        }
    }
}

/// Sparse LU solver (faer, partial pivoting, AMD column ordering, no allocation after the first
/// factorization) with the least-squares fallback of [`super::linear::DenseSolver`] for singular
/// matrices.
///
/// The first [`factor`](Self::factor) analyses the pattern and reserves the factor storage (allocates);
/// later calls must pass matrices with the same pattern.
pub struct SparseSolver {
    dim: usize,
    /// The column ordering Q (column of A eliminated at each position, and its inverse), from the
    /// first factorization's analysis; empty before.
    col_fwd: Vec<usize>,
    col_inv: Vec<usize>,
    lu: simplicial::SimplicialLu<usize, f64>,
    row_perm: Vec<usize>,
    row_perm_inv: Vec<usize>,
    scratch: MemBuffer,
    singular: bool,
    /// The factors in our own storage, refactored numerically while the pivots stay good.
    refactor: StaticLu,
    fallback: Box<LeastSquares>,
    /// The matrix with the unknowns of its null space pinned, once a decomposition has found
    /// one ([`super::pinned`]); `pinned_active` while it solves the current matrix.
    pinned: Option<Box<Pinned>>,
    pinned_active: bool,
    /// A singular matrix densified for the fallback (0 × 0 until the first one).
    dense: Matrix,
    reserved: (usize, usize),
    /// Counters.
    pub stats: LinearStats,
}

impl std::fmt::Debug for SparseSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseSolver")
            .field("dim", &self.dim)
            .field("reserved", &self.reserved)
            .field("stats", &self.stats)
            .finish()
    }
}

impl SparseSolver {
    /// A solver for sparse matrices of size `dim` × `dim`.
    pub fn new(dim: usize) -> Self {
        let req = StackReq::any_of(&[
            simplicial::factorize_simplicial_numeric_lu_scratch::<usize, f64>(dim, dim),
            simplicial::solve_in_place_scratch::<usize, f64>(dim, 1, faer::Par::Seq),
        ]);
        SparseSolver {
            dim,
            col_fwd: Vec::new(),
            col_inv: Vec::new(),
            lu: simplicial::SimplicialLu::new(),
            row_perm: vec![0; dim],
            row_perm_inv: vec![0; dim],
            scratch: MemBuffer::new(req),
            singular: false,
            refactor: StaticLu::default(),
            fallback: Box::default(),
            pinned: None,
            pinned_active: false,
            dense: Matrix::zeros(0, 0),
            reserved: (0, 0),
            stats: LinearStats::default(),
        }
    }

    /// The factor storage reserved by the analysis: upper bounds of the entries of (L, U) for any row
    /// pivoting; (0, 0) before the first factorization.
    pub fn reserved(&self) -> (usize, usize) {
        self.reserved
    }

    /// Symbolic analysis of the pattern of `a`: fill-reducing column ordering, and factor storage
    /// reserved for any pivoting (allocates). Done by the first [`factor`](Self::factor).
    fn analyse(&mut self, a: SparseColMatRef<'_, usize, f64>) {
        let n = self.dim;
        let (fwd, inv) = minimum_degree_order(a.symbolic());
        let (fwd, inv) = (&fwd[..], &inv[..]);
        let (nnz_l, nnz_u) = lu_fill_bound(a.symbolic(), fwd);
        // Every numeric factorization asks, at column j, for room for the entries of L (U) so far plus
        // all of column j of L and U: at most the bound + n.
        let (want_l, want_u) = (nnz_l + n, nnz_u + n);
        self.reserve(fwd, inv, want_l, want_u);
        self.refactor = StaticLu::with_capacity(n, want_l, want_u);
        self.reserved = (nnz_l, nnz_u);
        self.col_fwd = fwd.to_vec();
        self.col_inv = inv.to_vec();
    }

    /// Grows the factor storage by factoring synthetic matrices whose factors have at least `want_l`
    /// entries in L and `want_u` in U (faer keeps the storage and only grows it when needed).
    fn reserve(&mut self, fwd: &[usize], inv: &[usize], want_l: usize, want_u: usize) {
        let n = self.dim;
        let perm = faer::perm::PermRef::new_checked(fwd, inv, n);
        let triangle = n * (n + 1) / 2;
        // Column j of B = A Q is column col_perm_fwd[j] of A; unit diagonal, small off-diagonal
        // entries, so that partial pivoting takes row j at step j and makes no fill: the factor
        // holds exactly the entries of the triangle.
        let mut patterns: Vec<Vec<Vec<usize>>> = Vec::new();
        if want_l > triangle || want_u > triangle {
            // Essentially dense: a full matrix gives the largest possible storage.
            patterns.push(vec![(0..n).collect(); n]);
        } else {
            for upper in [false, true] {
                let want = if upper { want_u } else { want_l };
                let mut cols = vec![Vec::new(); n];
                let mut count = 0;
                for (j, col) in cols.iter_mut().enumerate() {
                    col.push(j);
                    count += 1;
                }
                'fill: for (j, col) in cols.iter_mut().enumerate() {
                    let rows = if upper { 0..j } else { j + 1..n };
                    for i in rows {
                        if count >= want {
                            break 'fill;
                        }
                        col.push(i);
                        count += 1;
                    }
                }
                patterns.push(cols);
            }
        }
        for cols in patterns {
            let mut col_ptr = vec![0usize; n + 1];
            let mut row_idx = Vec::new();
            let mut values = Vec::new();
            let small = 0.5 / n as f64;
            for (c, ptr) in col_ptr.iter_mut().skip(1).enumerate() {
                let j = inv[c];
                for &i in &cols[j] {
                    row_idx.push(i);
                    values.push(if i == j { 1.0 } else { small });
                }
                *ptr = row_idx.len();
            }
            let b = SparseColMatRef::new(
                SymbolicSparseColMatRef::new_unsorted_checked(n, n, &col_ptr, None, &row_idx),
                &values,
            );
            let stack = MemStack::new(&mut self.scratch);
            simplicial::factorize_simplicial_numeric_lu(
                &mut self.row_perm,
                &mut self.row_perm_inv,
                &mut self.lu,
                b,
                perm,
                stack,
            )
            .expect("synthetic matrix is regular");
        }
    }

    /// Factors `a` (dim × dim). The first call analyses its pattern and allocates; later calls do not
    /// allocate, except on the first singular `a` (densified for the least-squares fallback,
    /// whose buffers are then reused). After a matrix whose decomposition found a null space,
    /// decomposes first, and factors by LU only a matrix the decomposition finds regular (see
    /// [`super::linear`]).
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor(&mut self, a: SparseColMatRef<'_, usize, f64>) {
        self.pinned_active = false;
        if let Some(pinned) = self.pinned.as_mut() {
            assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
            if pinned.factor(a) {
                self.stats.factorizations += 1;
                self.pinned_active = true;
                return;
            }
            // The rank changed: the decomposition judges this matrix, as below.
            self.pinned = None;
        }
        if self.singular && self.fallback.is_rank_deficient() {
            assert_eq!((a.nrows(), a.ncols()), (self.dim, self.dim), "matrix shape");
            self.decompose(a);
            if self.fallback.is_rank_deficient() {
                self.stats.factorizations += 1;
                self.pin(a);
                return;
            }
            // Regular after all: the LU judges it, with this decomposition as its fallback.
            self.factor_lu(a);
            return;
        }
        self.factor_lu(a);
        if self.singular {
            self.decompose(a);
            if self.fallback.is_rank_deficient() {
                self.pin(a);
            }
        }
    }

    /// Pins the unknowns of the null space the decomposition of `a` found, and solves `a`
    /// pinned when that leaves a regular matrix (see [`super::pinned`]). Allocates.
    fn pin(&mut self, a: SparseColMatRef<'_, usize, f64>) {
        let index = self.fallback.null_pivots();
        if index.is_empty() {
            return;
        }
        let mut pinned = Box::new(Pinned::new(a, index));
        if pinned.factor(a) {
            self.pinned_active = true;
            self.pinned = Some(pinned);
        }
    }

    /// The least-squares fallback's decomposition of `a`, densified.
    fn decompose(&mut self, a: SparseColMatRef<'_, usize, f64>) {
        // The dense copy is sized on the first singular matrix and reused.
        if self.dense.nrows() != self.dim {
            self.dense = Matrix::zeros(self.dim, self.dim);
        }
        densify(a, &mut self.dense);
        self.fallback.factor(&self.dense);
    }

    /// Factors `a` (dim × dim) by sparse LU only, without the least-squares fallback: returns false
    /// (and [`solve_in_place`](Self::solve_in_place) must not be called) when `a` is singular to
    /// working precision. For callers that have a better plan than a dense SVD for singular matrices
    /// (the start-up of large systems, [`crate::analysis::assembly_sparse`]).
    ///
    /// # Panics
    /// When `a` is not dim × dim.
    pub fn factor_lu(&mut self, a: SparseColMatRef<'_, usize, f64>) -> bool {
        let n = self.dim;
        assert_eq!((a.nrows(), a.ncols()), (n, n), "matrix shape");
        if self.col_fwd.len() != n {
            self.analyse(a);
        }
        self.stats.factorizations += 1;
        let scale = max_abs(a.val()).max(f64::MIN_POSITIVE);
        if self.refactor.refactor(a, SINGULAR_PIVOT * scale) {
            self.stats.refactorizations += 1;
            self.singular = false;
            return true;
        }
        let col_perm = faer::perm::PermRef::new_checked(&self.col_fwd, &self.col_inv, n);
        let stack = MemStack::new(&mut self.scratch);
        let factored = simplicial::factorize_simplicial_numeric_lu(
            &mut self.row_perm,
            &mut self.row_perm_inv,
            &mut self.lu,
            a,
            col_perm,
            stack,
        );
        self.singular = match factored {
            Err(_) => true,
            Ok(()) => {
                let u = self.lu.u_factor_unsorted();
                let mut min_pivot = f64::INFINITY;
                for j in 0..n {
                    let pivot = u
                        .row_idx_of_col(j)
                        .zip(u.val_of_col(j))
                        .find(|(i, _)| *i == j)
                        .map_or(0.0, |(_, v)| v.abs());
                    // A NaN pivot counts as singular.
                    if pivot.is_nan() {
                        min_pivot = f64::NAN;
                        break;
                    }
                    min_pivot = min_pivot.min(pivot);
                }
                singular_pivot(min_pivot, a.val())
            }
        };
        if !self.singular {
            self.refactor
                .adopt(&self.lu, &self.row_perm, &self.row_perm_inv, &self.col_fwd);
        }
        !self.singular
    }

    /// True when the last factored matrix was singular to working precision.
    pub fn is_singular(&self) -> bool {
        self.singular
    }

    /// When the last matrix was factored with its null space's unknowns pinned (redundant
    /// constraints, `linalg/pinned.rs`), sets the component of `x` (the entries
    /// `offset..offset + x.len()` of an unknown vector) along that null space to that of
    /// `reference`; otherwise leaves it. For the Newton start of the multipliers, unique only up to
    /// that null space: an extrapolated start keeps the last solved λ's component there.
    ///
    /// # Panics
    /// When the null space is pinned and `reference` and `x` differ in length, or
    /// `offset + x.len()` exceeds dim.
    pub fn keep_null_component(&self, x: &mut [f64], reference: &[f64], offset: usize) {
        if let Some(pinned) = self.pinned.as_ref().filter(|_| self.pinned_active) {
            pinned.keep_null_component(x, reference, offset);
        }
    }

    /// Solves `A x = b` in place (`b` becomes x, dim entries), with the matrix of the last
    /// [`factor`](Self::factor). For a singular matrix, x is the minimum-norm least-squares solution.
    ///
    /// # Panics
    /// Before the first [`factor`](Self::factor), or when `b` does not have dim entries.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        let n = self.dim;
        assert_eq!(b.len(), n, "right-hand side length");
        if let Some(pinned) = self.pinned.as_mut().filter(|_| self.pinned_active) {
            self.stats.pinned_solves += 1;
            pinned.solve_in_place(b);
            return;
        }
        if self.singular {
            self.stats.least_squares_solves += 1;
            self.fallback.solve_in_place(b);
            return;
        }
        self.refactor.solve_in_place(b);
    }
}

/// The approximate minimum degree ordering of the pattern of A + Aᵀ (faer's AMD; Amestoy, Davis &
/// Duff 1996, SIAM J. Matrix Anal. Appl. 17:886), as (column at each position, position of each
/// column). Allocates.
fn minimum_degree_order(a: SymbolicSparseColMatRef<'_, usize>) -> (Vec<usize>, Vec<usize>) {
    let n = a.ncols();
    let (mut fwd, mut inv) = (vec![0usize; n], vec![0usize; n]);
    let mut mem = MemBuffer::new(amd::order_maybe_unsorted_scratch::<usize>(
        n,
        a.compute_nnz(),
    ));
    amd::order_maybe_unsorted(
        &mut fwd,
        &mut inv,
        a,
        amd::Control::default(),
        MemStack::new(&mut mem),
    )
    .expect("minimum degree ordering (out of memory)");
    (fwd, inv)
}

/// Upper bounds of the entries of L and U in P A Q = L U for the column ordering Q (`fwd[j]` is the
/// column of A eliminated j-th) and *any* row pivoting P: the entries of the
/// Householder vectors H and of the factor R of A Q = Q' R, computed without numerical values by row
/// merging along the column elimination tree (George & Ng 1987).
fn lu_fill_bound(a: SymbolicSparseColMatRef<'_, usize>, fwd: &[usize]) -> (usize, usize) {
    let n = a.ncols();
    let m = a.nrows();
    // Rows of A Q, with their (permuted) column indices.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); m];
    for (j, &c) in fwd.iter().enumerate() {
        for i in a.row_idx_of_col(c) {
            rows[i].push(j);
        }
    }
    // Rows whose leading column is k.
    let mut leading: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in rows.iter().enumerate() {
        if let Some(&k) = r.iter().min() {
            leading[k].push(i);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut r_rows: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut h = vec![0usize; n];
    let mut mark = vec![usize::MAX; n];
    let (mut nnz_h, mut nnz_r) = (0usize, 0usize);
    for k in 0..n {
        let mut merged = vec![k];
        mark[k] = k;
        let mut hk = leading[k].len();
        for &i in &leading[k] {
            for &j in &rows[i] {
                if mark[j] != k {
                    mark[j] = k;
                    merged.push(j);
                }
            }
        }
        for c in std::mem::take(&mut children[k]) {
            hk += h[c].saturating_sub(1);
            for j in std::mem::take(&mut r_rows[c]) {
                if j != c && mark[j] != k {
                    mark[j] = k;
                    merged.push(j);
                }
            }
        }
        h[k] = hk.max(1);
        nnz_h += h[k];
        nnz_r += merged.len();
        if let Some(&parent) = merged.iter().filter(|&&j| j != k).min() {
            children[parent].push(k);
        }
        r_rows[k] = merged;
    }
    (nnz_h, nnz_r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(asm: &mut CscAssembler, entries: &[(usize, usize, f64)]) {
        asm.begin();
        for &(r, c, v) in entries {
            asm.add(r, c, v);
        }
        asm.finish();
    }

    #[test]
    fn assembler_sums_duplicates_and_replays() {
        let entries = [
            (0, 0, 2.0),
            (1, 0, 1.0),
            (0, 0, 1.0),
            (2, 2, 0.0),
            (1, 1, 3.0),
        ];
        let mut asm = CscAssembler::new(3);
        assemble(&mut asm, &entries);
        assert_eq!(asm.nnz(), 4);
        let mut d = Matrix::zeros(3, 3);
        asm.to_dense(&mut d);
        assert_eq!(d[(0, 0)], 3.0);
        assert_eq!(d[(1, 0)], 1.0);
        assert_eq!(d[(1, 1)], 3.0);
        let entries2 = [
            (0, 0, 1.0),
            (1, 0, 1.0),
            (0, 0, 1.0),
            (2, 2, 4.0),
            (1, 1, 5.0),
        ];
        assemble(&mut asm, &entries2);
        asm.to_dense(&mut d);
        assert_eq!(d[(0, 0)], 2.0);
        assert_eq!(d[(2, 2)], 4.0);
        assert_eq!(d[(1, 1)], 5.0);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "wrote entry (1, 1), but the first assembly wrote (1, 0)")]
    fn assembler_rejects_a_different_sequence() {
        let mut asm = CscAssembler::new(2);
        assemble(&mut asm, &[(0, 0, 1.0), (1, 0, 1.0)]);
        assemble(&mut asm, &[(0, 0, 1.0), (1, 1, 1.0)]);
    }

    #[test]
    #[should_panic(expected = "1 add calls, but the first assembly made 2")]
    fn assembler_rejects_a_shorter_sequence() {
        let mut asm = CscAssembler::new(2);
        assemble(&mut asm, &[(0, 0, 1.0), (1, 0, 1.0)]);
        assemble(&mut asm, &[(0, 0, 1.0)]);
    }

    #[test]
    fn sparse_solver_matches_dense_and_falls_back_when_singular() {
        // Saddle-point matrix with a zero diagonal block: [[M, Gᵀ], [G, 0]].
        let n = 6;
        let mut asm = CscAssembler::new(n);
        let mut dense = Matrix::zeros(n, n);
        let mut entries = Vec::new();
        for i in 0..4 {
            entries.push((i, i, 1.0 + i as f64));
        }
        for (r, c, v) in [(4, 0, 1.0), (4, 1, -1.0), (5, 2, 1.0), (5, 3, 2.0)] {
            entries.push((r, c, v));
            entries.push((c, r, v));
        }
        assemble(&mut asm, &entries);
        asm.to_dense(&mut dense);
        let x = Vector::from_fn(n, |i, _| 1.0 + i as f64);
        let mut b = &dense * &x;
        let mut s = SparseSolver::new(n);
        s.factor(asm.matrix());
        assert!(!s.is_singular());
        s.solve_in_place(&mut b);
        assert!((b - &x).norm() < 1e-13);
        let (l, u) = s.reserved();
        assert!(l >= n && u >= n);
        // A redundant constraint: the second row of G repeats the first.
        let singular: Vec<_> = entries
            .iter()
            .map(|&(r, c, v)| match (r, c) {
                (5, 2) | (2, 5) => (r, c, 0.0),
                (5, 3) | (3, 5) => (r, c, 0.0),
                _ => (r, c, v),
            })
            .collect();
        assemble(&mut asm, &singular);
        s.factor(asm.matrix());
        assert!(s.is_singular());
        let mut b = Vector::from_element(n, 1.0);
        asm.to_dense(&mut dense);
        let least_squares = super::super::linear::min_norm_lstsq(&dense, &b, 1e-10);
        s.solve_in_place(&mut b);
        // The decomposition found the null space, and the matrix is solved with it pinned
        // (super::pinned): the minimum-norm least-squares solution, without an SVD solve.
        assert!(
            (&b - &least_squares).amax() < 1e-13,
            "{b} vs {least_squares}"
        );
        assert_eq!(s.stats.least_squares_solves, 0);
    }

    #[test]
    fn fill_bound_covers_the_factors() {
        // A pseudo-random sparse matrix with a zero-free diagonal.
        let n = 40;
        let mut asm = CscAssembler::new(n);
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let mut entries = Vec::new();
        for i in 0..n {
            entries.push((i, i, 0.1 + rnd()));
            for _ in 0..2 {
                let j = (rnd() * n as f64) as usize % n;
                entries.push((i, j, rnd() - 0.5));
            }
        }
        assemble(&mut asm, &entries);
        let mut s = SparseSolver::new(n);
        s.factor(asm.matrix());
        let (l, u) = s.reserved();
        assert!(s.lu.l_factor_unsorted().compute_nnz() <= l);
        assert!(s.lu.u_factor_unsorted().compute_nnz() <= u);
    }

    /// A pseudo-random n × n pattern with a zero-free diagonal, and values from `rnd`.
    fn random_entries(n: usize, seed: u64, diagonal: f64) -> Vec<(usize, usize, f64)> {
        let mut seed = seed;
        let mut rnd = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let mut entries = Vec::new();
        for i in 0..n {
            entries.push((i, i, diagonal + rnd()));
            for k in 0..3 {
                let j = (i * 7 + 3 * k + 1) % n;
                entries.push((i, j, rnd() - 0.5));
            }
        }
        entries
    }

    fn solves_exactly(s: &mut SparseSolver, asm: &CscAssembler, n: usize) -> f64 {
        let mut dense = Matrix::zeros(n, n);
        asm.to_dense(&mut dense);
        let x = Vector::from_fn(n, |i, _| (1.0 + i as f64).sin());
        let mut b = &dense * &x;
        s.solve_in_place(&mut b);
        (b - x).amax()
    }

    /// A second matrix with the pattern of the first and nearby values is refactored with the
    /// first one's pivots (no fresh factorization), and solves as exactly as a fresh one.
    #[test]
    fn refactor_keeps_the_pivots_of_a_nearby_matrix() {
        let n = 60;
        let mut asm = CscAssembler::new(n);
        let first = random_entries(n, 7, 0.05);
        assemble(&mut asm, &first);
        let mut s = SparseSolver::new(n);
        assert!(s.factor_lu(asm.matrix()));
        assert_eq!(s.stats.refactorizations, 0);
        assert!(solves_exactly(&mut s, &asm, n) < 1e-12);
        let nearby: Vec<_> = first
            .iter()
            .enumerate()
            .map(|(k, &(r, c, v))| (r, c, v * (1.0 + 0.01 * (k as f64).cos())))
            .collect();
        assemble(&mut asm, &nearby);
        assert!(s.factor_lu(asm.matrix()));
        assert_eq!((s.stats.factorizations, s.stats.refactorizations), (2, 1));
        let e = solves_exactly(&mut s, &asm, n);
        assert!(e < 1e-12, "{e}");
    }

    /// When an old pivot becomes small against the entries below it, the refactorization refuses
    /// and a fresh pivoting factorization takes over (and is then refactored in turn).
    #[test]
    fn refactor_refuses_a_degraded_pivot() {
        let mut asm = CscAssembler::new(2);
        assemble(
            &mut asm,
            &[(0, 0, 2.0), (1, 0, 1.0), (0, 1, 1.0), (1, 1, 1.0)],
        );
        let mut s = SparseSolver::new(2);
        assert!(s.factor_lu(asm.matrix()));
        // Partial pivoting chose row 0 (2 > 1); now that pivot is 1e-3 against 1 below it.
        assemble(
            &mut asm,
            &[(0, 0, 1e-3), (1, 0, 1.0), (0, 1, 1.0), (1, 1, 1.0)],
        );
        assert!(s.factor_lu(asm.matrix()));
        assert_eq!(s.stats.refactorizations, 0);
        assert!(solves_exactly(&mut s, &asm, 2) < 1e-14);
        // The new pivot order (row 1 first) serves the next nearby matrix.
        assemble(
            &mut asm,
            &[(0, 0, 2e-3), (1, 0, 1.0), (0, 1, 1.0), (1, 1, 1.5)],
        );
        assert!(s.factor_lu(asm.matrix()));
        assert_eq!(s.stats.refactorizations, 1);
        assert!(solves_exactly(&mut s, &asm, 2) < 1e-14);
        // A singular matrix is never accepted by the refactorization.
        assemble(
            &mut asm,
            &[(0, 0, 1.0), (1, 0, 1.0), (0, 1, 1.0), (1, 1, 1.0)],
        );
        assert!(!s.factor_lu(asm.matrix()));
        assert_eq!(s.stats.refactorizations, 1);
    }
}
