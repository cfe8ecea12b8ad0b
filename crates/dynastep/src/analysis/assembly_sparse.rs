//! The start-up of large systems with sparse factorizations instead of dense ones: the three linear
//! problems of [`super::assembly`] (the minimum-norm Newton steps of the positions, the least change
//! of the velocities, the consistent accelerations and multipliers) and the check that Φ_q has full
//! row rank, in time about linear in the size of a chain-like mechanism.
//!
//! * **Minimum-norm solutions** of A x = b over the free columns F (x = 0 on the others) come from the
//!   sparse LU of the saddle-point matrix K = [αI A_Fᵀ; A_F 0]: its solution [x; y] has
//!   x = −A_Fᵀ y / α with A_F A_Fᵀ y = −α b, the minimum-norm solution (the dense path computes the
//!   same x from the Cholesky factor of A_F A_Fᵀ). α, the root-mean-square row norm of A, keeps the
//!   two blocks of K of one size. K is regular exactly when A_F has full row rank.
//! * **Full row rank of Φ_q** is certified, not assumed: with the LU of K for A = Φ_q (all columns),
//!   ten steps of inverse iteration estimate the smallest eigenvalue magnitude |λ| of K, and the
//!   smallest singular value of Φ_q follows from σ² = |λ| (|λ| + α) (K's eigenvalues are α and
//!   (α ± √(α² + 4σᵢ²))/2). Inverse iteration approaches |λ| from above, so the check passes only when
//!   σ_min > 1e-6 ‖Φ_q‖_F, three decades above the rank tolerance of the dense check (σ < 1e-9 σ_max;
//!   ‖Φ_q‖_F ≥ σ_max). Anything less certain (a singular K, a small σ) goes to the sparse
//!   elimination of `row_echelon.rs`, which finds the rank and the rows of each dependency.
//! * **Redundant constraints**: where K is singular, the rows that depend on the rows before them
//!   are left out and the rest solved (the same minimum-norm steps and velocities for a consistent
//!   system); the accelerations come from [M Φ_qᵀ; Φ_q 0] without them, and the multipliers from
//!   that solution less its component in the left null space, the least-norm ones the dense
//!   least-squares solve gives. The N = 40 chain with three repeated crank lengths starts in
//!   2.5 ms instead of 104 ms (tests/assembly_sparse.rs); N = 160 in 10 ms.
//! * **Accelerations and multipliers** from the sparse LU of [M Φ_qᵀ; Φ_q 0].
//!
//! Each function returns `None` (or false) where the dense path must take over.

use super::row_echelon::RowEchelon;
use crate::linalg::sparse::{CscAssembler, SparseSolver};
use crate::linalg::{Sink, Vector};
use crate::scheme::State;
use crate::system::System;

/// Smallest n + m for which the start-up takes the sparse path under `linear_solver = "auto"`.
///
/// Measured on the N-four-bar chains (release build, `startup_time_s`, best of three, dense →
/// sparse): n + m = 125: 1.0 → 0.62 ms; 245: 4.0 → 0.98 ms; 485: 24 → 1.6 ms; 965: 174 → 3.1 ms;
/// 1925: 1600 → 6.1 ms. The dense singular value decomposition grows as (n + m)³, the sparse path
/// about linearly. Below the threshold both take under a millisecond, and the dense path keeps the
/// start-up of the small examples bit for bit as it was.
pub const STARTUP_SPARSE_THRESHOLD: usize = 100;

/// Smallest σ_min(Φ_q) / ‖Φ_q‖_F that the sparse rank check accepts as full rank.
const CERTAIN_RANK: f64 = 1e-6;

/// Steps of inverse iteration for the smallest eigenvalue of the saddle-point matrix.
const INVERSE_ITERATIONS: usize = 10;

/// The entries of a sparse m × n matrix as (row, column, value) triplets, gathered through [`Sink`]
/// (duplicates are summed by whoever reads them).
#[derive(Debug, Default)]
pub(crate) struct Triplets(pub Vec<(usize, usize, f64)>);

impl Sink for Triplets {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        self.0.push((row, col, value));
    }
}

impl Triplets {
    /// A x (`rows` entries).
    pub fn times(&self, x: &Vector, rows: usize) -> Vector {
        let mut out = Vector::zeros(rows);
        for &(r, c, v) in &self.0 {
            out[r] += v * x[c];
        }
        out
    }

    /// Root-mean-square row norm ‖A‖_F / √rows, and ‖A‖_F (duplicates counted apart: exact for the
    /// Jacobians of the elements, which add each entry once per element).
    fn norms(&self, rows: usize) -> (f64, f64) {
        let frobenius = self.0.iter().map(|e| e.2 * e.2).sum::<f64>().sqrt();
        (frobenius / (rows.max(1) as f64).sqrt(), frobenius)
    }
}

/// Φ_q (m × n), the constraint Jacobian at (t, q).
pub(crate) fn constraint_triplets<S: System>(sys: &S, t: f64, q: &Vector) -> Triplets {
    let mut a = Triplets::default();
    sys.constraint_jacobian(t, q, 1.0, &mut a);
    a
}

/// The sparse LU of K = [αI A_Fᵀ; A_F 0] ((n + rows) square); `None` when K is singular.
struct SaddlePoint {
    solver: SparseSolver,
    n: usize,
    rows: usize,
    alpha: f64,
}

impl SaddlePoint {
    fn factor(a: &Triplets, n: usize, rows: usize, free: &[bool]) -> Option<SaddlePoint> {
        let (alpha, _) = a.norms(rows);
        if !(alpha > 0.0 && alpha.is_finite()) {
            return None;
        }
        let mut asm = CscAssembler::new(n + rows);
        asm.begin();
        for i in 0..n {
            asm.add(i, i, alpha);
        }
        for &(r, c, v) in a.0.iter().filter(|e| free[e.1]) {
            asm.add(n + r, c, v);
            asm.add(c, n + r, v);
        }
        asm.finish();
        let mut solver = SparseSolver::new(n + rows);
        solver.factor_lu(asm.matrix()).then_some(SaddlePoint {
            solver,
            n,
            rows,
            alpha,
        })
    }

    /// The minimum-norm x (n) with A_F x = b (`rows` entries), zero outside the free columns.
    fn min_norm(&mut self, b: &Vector) -> Vector {
        let mut rhs = Vector::zeros(self.n + self.rows);
        rhs.rows_mut(self.n, self.rows).copy_from(b);
        self.solver.solve_in_place(&mut rhs);
        rhs.rows(0, self.n).into_owned()
    }

    /// The smallest singular value of A_F, estimated by inverse iteration on K (from above: the
    /// iteration's growth approaches ‖K⁻¹‖ from below).
    fn smallest_singular_value(&mut self) -> f64 {
        let dim = self.n + self.rows;
        // A fixed start with components along every eigenvector (no symmetry of the chain can hide
        // one direction from all of them), so the check is reproducible.
        let mut z = Vector::from_fn(dim, |i, _| 1.0 + 0.5 * (1.0 + i as f64).sin());
        z /= z.norm();
        let mut growth = 0.0;
        for _ in 0..INVERSE_ITERATIONS {
            self.solver.solve_in_place(&mut z);
            growth = z.norm();
            if !(growth.is_finite() && growth > 0.0) {
                return 0.0;
            }
            z /= growth;
        }
        let lambda = 1.0 / growth;
        (lambda * (lambda + self.alpha)).sqrt()
    }
}

/// Minimum-norm solution of A x = b restricted to the columns where `free` is true, A given by its
/// triplets (`rows` × n). When A restricted to those columns is rank-deficient (redundant
/// constraints), the rows that depend on the rows before them ([`RowEchelon`], with `rank_tol`)
/// are left out and the rest solved: for a consistent system (redundant constraints at a
/// consistent configuration, and to first order near one) the same solution. `None` when even
/// that fails (the dense path then finds the least-squares solution).
pub(crate) fn min_norm_solve(
    a: &Triplets,
    rows: usize,
    free: &[bool],
    b: &Vector,
    rank_tol: f64,
) -> Option<Vector> {
    let n = free.len();
    if rows == 0 || !free.iter().any(|&f| f) {
        return Some(Vector::zeros(n));
    }
    let finite = |x: Vector| x.iter().all(|v| v.is_finite()).then_some(x);
    if let Some(mut k) = SaddlePoint::factor(a, n, rows, free) {
        return finite(k.min_norm(b));
    }
    let on_free = Triplets(a.0.iter().copied().filter(|e| free[e.1]).collect());
    let kept = KeptRows::new(&RowEchelon::of(&on_free, rows, n, rank_tol), rows);
    let reduced = kept.triplets(&on_free);
    let mut k = SaddlePoint::factor(&reduced, n, kept.count, free)?;
    finite(k.min_norm(&kept.vector(b)))
}

/// The rows of a matrix that do not depend on the rows before them, renumbered.
struct KeptRows {
    /// New index of each row, or `None` for a dependent row.
    index: Vec<Option<usize>>,
    count: usize,
}

impl KeptRows {
    fn new(e: &RowEchelon, rows: usize) -> Self {
        let mut index = vec![None; rows];
        let mut count = 0;
        let mut dependent = e.dependent.iter().peekable();
        for (r, slot) in index.iter_mut().enumerate() {
            if dependent.peek() == Some(&&r) {
                dependent.next();
            } else {
                *slot = Some(count);
                count += 1;
            }
        }
        KeptRows { index, count }
    }

    /// The kept rows of `a`, renumbered.
    fn triplets(&self, a: &Triplets) -> Triplets {
        Triplets(
            a.0.iter()
                .filter_map(|&(r, c, v)| self.index[r].map(|k| (k, c, v)))
                .collect(),
        )
    }

    /// The kept entries of `b`, renumbered.
    fn vector(&self, b: &Vector) -> Vector {
        let mut out = Vector::zeros(self.count);
        for (r, k) in self.index.iter().enumerate() {
            if let Some(k) = k {
                out[*k] = b[r];
            }
        }
        out
    }
}

/// A [`Sink`] for a saddle-point matrix [X Aᵀ; A 0] (n + rows square) that leaves out the rows
/// (and the matching columns) of the dependent rows of A.
struct WithoutRows<'a, K> {
    inner: &'a mut K,
    n: usize,
    kept: &'a KeptRows,
}

impl<K: Sink> Sink for WithoutRows<'_, K> {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        let map = |i: usize| {
            if i < self.n {
                Some(i)
            } else {
                self.kept.index[i - self.n].map(|k| self.n + k)
            }
        };
        if let (Some(r), Some(c)) = (map(row), map(col)) {
            self.inner.add(r, c, value);
        }
    }
}

/// True when Φ_q (m × n, at (t, q)) certainly has full row rank (see the module documentation);
/// false means "not certain", and the dense decomposition must decide.
pub(crate) fn certainly_full_rank<S: System>(sys: &S, t: f64, q: &Vector) -> bool {
    let (n, m) = (sys.n(), sys.m());
    if m > n {
        return false;
    }
    let a = constraint_triplets(sys, t, q);
    let (_, frobenius) = a.norms(m);
    let all = vec![true; n];
    match SaddlePoint::factor(&a, n, m, &all) {
        Some(mut k) => k.smallest_singular_value() > CERTAIN_RANK * frobenius,
        None => false,
    }
}

/// Solves [M Φ_qᵀ; Φ_q 0] [a; λ] = [Q; γ] at (t, q, v) of `x` by sparse LU and writes a (n) and
/// λ (m) into `x`. With redundant constraints (the matrix singular) the rows of Φ_q that depend
/// on the rows before them ([`RowEchelon`], with `rank_tol`) are left out and get λ = 0: the
/// accelerations are the same, the multipliers one of the sets that balance the same forces (the
/// dense path gives the minimum-norm one). Returns false, leaving `x` as it was, when even that
/// fails.
pub(crate) fn consistent_accelerations<S: System>(sys: &S, x: &mut State, rank_tol: f64) -> bool {
    let (n, m) = (sys.n(), sys.m());
    let all = KeptRows {
        index: (0..m).map(Some).collect(),
        count: m,
    };
    if accelerations_with(sys, x, &all) {
        return true;
    }
    let a = constraint_triplets(sys, x.t, &x.q);
    let echelon = RowEchelon::of(&a, m, n, rank_tol);
    let kept = KeptRows::new(&echelon, m);
    if kept.count == m || !accelerations_with(sys, x, &kept) {
        return false;
    }
    least_norm_multipliers(&mut x.lambda, &echelon.null_vectors);
    true
}

/// Removes from λ (m) its component in the left null space of Φ_q spanned by `null` (sparse
/// vectors): λ − Y (YᵀY)⁻¹ Yᵀ λ, the multipliers of least norm among those that balance the same
/// forces (Φ_qᵀ λ unchanged), as the dense path's least-squares solution gives.
fn least_norm_multipliers(lambda: &mut Vector, null: &[Vec<(usize, f64)>]) {
    let d = null.len();
    let dot = |y: &[(usize, f64)], z: &Vector| y.iter().map(|&(r, v)| v * z[r]).sum::<f64>();
    let dense: Vec<Vector> = null
        .iter()
        .map(|y| {
            let mut v = Vector::zeros(lambda.len());
            for &(r, c) in y {
                v[r] = c;
            }
            v
        })
        .collect();
    let gram = crate::linalg::Matrix::from_fn(d, d, |i, j| dot(&null[i], &dense[j]));
    let b = Vector::from_fn(d, |i, _| dot(&null[i], lambda));
    if let Some(c) = gram.cholesky().map(|ch| ch.solve(&b)) {
        for (y, ci) in dense.iter().zip(c.iter()) {
            lambda.axpy(-ci, y, 1.0);
        }
    }
}

/// [`consistent_accelerations`] with the `kept` rows of Φ_q only.
fn accelerations_with<S: System>(sys: &S, x: &mut State, kept: &KeptRows) -> bool {
    let (n, m) = (sys.n(), sys.m());
    let dim = n + kept.count;
    let mut asm = CscAssembler::new(dim);
    asm.begin();
    super::assembly::add_saddle_point_matrix(
        sys,
        x.t,
        &x.q,
        &mut WithoutRows {
            inner: &mut asm,
            n,
            kept,
        },
    );
    asm.finish();
    let mut solver = SparseSolver::new(dim);
    if !solver.factor_lu(asm.matrix()) {
        return false;
    }
    let full = super::assembly::saddle_point_rhs(sys, x);
    let mut rhs = Vector::zeros(dim);
    rhs.rows_mut(0, n).copy_from(&full.rows(0, n));
    rhs.rows_mut(n, kept.count)
        .copy_from(&kept.vector(&full.rows(n, m).into_owned()));
    solver.solve_in_place(&mut rhs);
    if !rhs.iter().all(|v| v.is_finite()) {
        return false;
    }
    x.a.copy_from(&rhs.rows(0, n));
    for (r, k) in kept.index.iter().enumerate() {
        x.lambda[r] = k.map_or(0.0, |k| rhs[n + k]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::planar::PlanarSystem;

    fn example(name: &str) -> PlanarSystem {
        let ex = crate::examples::find(name).expect("embedded example");
        let model = crate::model::parse::from_str(ex.text, ex.file).expect("parses");
        PlanarSystem::new(&model).expect("builds")
    }

    /// The check certifies the N = 40 chain (so its start-up needs no dense decomposition) and its
    /// estimate of σ_min agrees with the dense singular values of Φ_q to a few per cent.
    #[test]
    fn certifies_the_chain_and_estimates_sigma_min() {
        let sys = example("nfourbar40");
        let x = sys.initial_state(0.0);
        assert!(certainly_full_rank(&sys, 0.0, &x.q));
        let a = constraint_triplets(&sys, 0.0, &x.q);
        let (n, m) = (sys.n(), sys.m());
        let mut k = SaddlePoint::factor(&a, n, m, &vec![true; n]).expect("regular");
        let estimate = k.smallest_singular_value();
        let mut dense = crate::linalg::Matrix::zeros(m, n);
        sys.constraint_jacobian(0.0, &x.q, 1.0, &mut dense);
        let exact = dense
            .singular_values()
            .iter()
            .fold(f64::INFINITY, |s, v| s.min(*v));
        println!("σ_min: estimate {estimate:.6e}, SVD {exact:.6e}");
        assert!(estimate >= exact * (1.0 - 1e-9) && estimate < 1.05 * exact);
    }

    /// Two copies of one constraint row: the saddle-point matrix is singular and the check declines.
    #[test]
    fn declines_a_repeated_row() {
        let mut a = Triplets::default();
        for r in 0..2 {
            a.add(r, 0, 1.0);
            a.add(r, 1, 2.0);
        }
        assert!(SaddlePoint::factor(&a, 3, 2, &[true; 3])
            .is_none_or(|mut k| k.smallest_singular_value() < 1e-12));
        // With the second row independent the minimum-norm solution is exact.
        let mut b = Triplets::default();
        b.add(0, 0, 1.0);
        b.add(0, 1, 2.0);
        b.add(1, 2, 4.0);
        let x = min_norm_solve(&b, 2, &[true; 3], &Vector::from_vec(vec![5.0, 8.0]), 1e-9).unwrap();
        // x = (1, 2, 2): the minimum-norm point of x₀ + 2x₁ = 5 is (1, 2); x₂ = 8/4.
        assert!((x - Vector::from_vec(vec![1.0, 2.0, 2.0])).amax() < 1e-14);
        // x₁ held: x₀ = 5 alone.
        let x = min_norm_solve(
            &b,
            2,
            &[true, false, true],
            &Vector::from_vec(vec![5.0, 8.0]),
            1e-9,
        )
        .unwrap();
        assert!((x - Vector::from_vec(vec![5.0, 0.0, 2.0])).amax() < 1e-14);
    }
}
