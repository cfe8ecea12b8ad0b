//! Assembly analysis: a consistent initial state from the user's approximate one.
//!
//! 1. **Positions.** Newton's method with least-squares (minimum-norm) steps on Φ(q, t₀) = 0 together
//!    with the joint values marked as given (revolute angles, prismatic displacements held at their
//!    values in the model's poses), moving only the coordinates not marked as given (Haug 1989,
//!    *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.4, with the pseudo-inverse
//!    in place of the partitioned solve).
//! 2. **Velocities.** The velocities closest to the given ones (least change in the free ones, the given
//!    ones held) that satisfy Φ_q v + Φ_t = 0.
//! 3. **Accelerations and multipliers** from `[M Φ_qᵀ; Φ_q 0] [a; λ] = [Q; γ]`, in the least-squares,
//!    minimum-norm sense when Φ_q is rank-deficient.
//!
//! Redundant constraints (rank Φ_q < m) are found from the singular value decomposition of Φ_q and
//! reported by the labels of the constraint rows that take part in a dependency, and of those that
//! depend on the rows before them.
//!
//! Large systems (n + m ≥ [`STARTUP_SPARSE_THRESHOLD`] with `linear_solver = "auto"`, or any size
//! with `"sparse"`) solve the three linear problems with sparse factorizations and certify the full
//! rank of Φ_q without the dense decomposition ([`super::assembly_sparse`]); where it is not full,
//! a sparse elimination on the rows of Φ_q finds the rank and the dependent rows, and the linear
//! problems are solved without those rows (least-norm multipliers restored). Only where that fails
//! too (a singular matrix for another reason) does the dense path above take over.

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

pub use super::assembly_sparse::STARTUP_SPARSE_THRESHOLD;
use super::assembly_sparse::{self as sparse, Triplets};
use super::row_echelon::RowEchelon;
use crate::formulation::LinearSolver;
use crate::linalg::linear::DenseSolver;
use crate::linalg::{Block, Matrix, Sink, Vector};
use crate::scheme::State;
use crate::system::System;

pub use crate::model::settings::RedundancyPolicy;

/// Settings of the assembly analysis (defaults in brackets).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AssemblySettings {
    /// Newton iterations for the positions [50].
    pub max_iterations: usize,
    /// Tolerance on ‖Φ‖∞ [1e-12, in m or rad].
    pub tolerance: f64,
    /// Singular values of Φ_q below `rank_tol · σ_max` count as zero [1e-9].
    pub rank_tol: f64,
    /// What to do with redundant constraints [warn].
    pub redundancy: RedundancyPolicy,
    /// Dense or sparse factorizations [auto: sparse when n + m ≥ [`STARTUP_SPARSE_THRESHOLD`]].
    pub linear_solver: LinearSolver,
}

impl AssemblySettings {
    /// True when a system with n + m = `unknowns` starts up with sparse factorizations.
    pub fn is_sparse_for(&self, unknowns: usize) -> bool {
        match self.linear_solver {
            LinearSolver::Auto => unknowns >= STARTUP_SPARSE_THRESHOLD,
            LinearSolver::Dense => false,
            LinearSolver::Sparse => true,
        }
    }
}

impl Default for AssemblySettings {
    fn default() -> Self {
        AssemblySettings {
            max_iterations: 50,
            tolerance: 1e-12,
            rank_tol: 1e-9,
            linear_solver: LinearSolver::Auto,
            redundancy: RedundancyPolicy::Warn,
        }
    }
}

pub use crate::state::GivenValues;

/// What the assembly found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssemblyReport {
    /// Newton iterations on the positions.
    pub iterations: usize,
    /// Largest change of a coordinate from the user's value [m or rad].
    pub max_position_change: f64,
    /// Rank of Φ_q at the assembled configuration.
    pub rank: usize,
    /// Number of constraint equations m.
    pub constraints: usize,
    /// Labels of the constraint rows involved in redundancies (empty when rank = m).
    pub redundant: Vec<String>,
    /// Labels of the rows that depend on the rows before them, in model order (m − rank of
    /// them): removing these leaves Φ_q with full row rank ([`dependent_constraints`]).
    pub dependent: Vec<String>,
}

/// Why assembly failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssemblyError {
    /// Newton on Φ = 0 did not converge.
    #[error("could not assemble the mechanism: ‖Φ‖ = {residual:.3e} after {iterations} iterations; the largest violation is in {worst}. Check the initial poses, the joint points, or which coordinates are marked as given")]
    NotAssembled {
        /// Iterations done.
        iterations: usize,
        /// Final ‖Φ‖∞.
        residual: f64,
        /// Label of the worst constraint row.
        worst: String,
    },
    /// The velocity constraints cannot be met (with the given velocities held, when some are).
    #[error("initial velocities inconsistent: ‖Φ_q v + Φ_t‖ = {residual:.3e} after the velocity projection{held}; the largest violation is in {worst}. {advice}")]
    Velocities {
        /// Remaining violation.
        residual: f64,
        /// Label of the worst row.
        worst: String,
        /// ", with N velocities held as given", or empty when none is held.
        held: String,
        /// What to change: mark fewer velocities as given when some are held; else the
        /// conditioning of the constraints at the initial poses is at fault.
        advice: &'static str,
    },
    /// An initial coordinate or velocity, or a constraint at the initial poses, is not finite or
    /// absurdly large (above [`crate::system::ABSURD`]).
    #[error("cannot assemble: {what} is {value:e}, not a finite number of sensible size (at most {limit:e}); check the model's poses, points and units")]
    Absurd {
        /// What (a coordinate label or constraint row).
        what: String,
        /// The value.
        value: f64,
        /// The limit.
        limit: f64,
    },
    /// Redundant constraints with [`RedundancyPolicy::Error`].
    #[error("redundant constraints (rank of Φ_q is {rank} of {m}) among: {rows}; remove one of them or set redundancy = \"warn\"")]
    Redundant {
        /// Rank.
        rank: usize,
        /// m.
        m: usize,
        /// Labels.
        rows: String,
    },
}

fn dense_jacobian<S: System>(sys: &S, t: f64, q: &Vector) -> Matrix {
    let mut j = Matrix::zeros(sys.m(), sys.n());
    sys.constraint_jacobian(t, q, 1.0, &mut j);
    j
}

fn worst_row<S: System>(sys: &S, r: &Vector) -> String {
    let (i, _) = r.iter().enumerate().fold(
        (0, -1.0),
        |b, (i, v)| if v.abs() > b.1 { (i, v.abs()) } else { b },
    );
    if i < sys.m() {
        sys.constraint_label(i)
    } else {
        format!(
            "given joint value {} (counting the joints marked `given` in model order)",
            i - sys.m() + 1
        )
    }
}

/// [Φ(q, t); g(q) − g₀] (m + k entries): the constraints and the given joint values.
fn stacked_residual<S: System>(sys: &S, t: f64, q: &Vector, out: &mut Vector) {
    let (m, k) = (sys.m(), sys.assembly_constraint_count());
    let mut phi = Vector::zeros(m);
    sys.constraints(t, q, &mut phi);
    let mut g = Vector::zeros(k);
    sys.assembly_constraints(q, &mut g);
    out.rows_mut(0, m).copy_from(&phi);
    out.rows_mut(m, k).copy_from(&g);
}

/// Adds the Jacobian of [`stacked_residual`], (m + k) × n, to `out`: Φ_q in rows 0..m, the given
/// joint values' rows below.
fn add_stacked_jacobian<S: System, K: Sink>(sys: &S, t: f64, q: &Vector, out: &mut K) {
    sys.constraint_jacobian(t, q, 1.0, out);
    let mut rows = Block {
        inner: out,
        row: sys.m(),
        col: 0,
        scale: 1.0,
        transpose: false,
    };
    sys.assembly_constraint_jacobian(q, 1.0, &mut rows);
}

/// Adds [M Φ_qᵀ; Φ_q 0] at (t, q), (n + m) square, to `out`.
pub(crate) fn add_saddle_point_matrix<S: System, K: Sink>(
    sys: &S,
    t: f64,
    q: &Vector,
    out: &mut K,
) {
    let n = sys.n();
    sys.mass(q, 1.0, out);
    for transpose in [true, false] {
        let (row, col) = if transpose { (0, n) } else { (n, 0) };
        let mut block = Block {
            inner: &mut *out,
            row,
            col,
            scale: 1.0,
            transpose,
        };
        sys.constraint_jacobian(t, q, 1.0, &mut block);
    }
}

/// [Q; γ] at (t, q, v) of `x` (n + m entries): the right-hand side of the accelerations and
/// multipliers.
pub(crate) fn saddle_point_rhs<S: System>(sys: &S, x: &State) -> Vector {
    let (n, m) = (sys.n(), sys.m());
    let mut rhs = Vector::zeros(n + m);
    let mut qf = Vector::zeros(n);
    sys.forces(x.t, &x.q, &x.v, &mut qf);
    rhs.rows_mut(0, n).copy_from(&qf);
    let mut g = Vector::zeros(m);
    sys.gamma(x.t, &x.q, &x.v, &mut g);
    rhs.rows_mut(n, m).copy_from(&g);
    rhs
}

/// The minimum-norm Newton step of the assembly: `dq` (n) with J dq = `rhs` (m + k) over the free
/// coordinates, J the Jacobian of [`stacked_residual`]; sparse LU when `sparse`, with the dense
/// least-squares solution where that fails (rank-deficient J).
fn stacked_step<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    rhs: &Vector,
    free: &[bool],
    settings: &AssemblySettings,
) -> Vector {
    let rows = sys.m() + sys.assembly_constraint_count();
    if settings.is_sparse_for(sys.n() + sys.m()) {
        let mut a = Triplets::default();
        add_stacked_jacobian(sys, t, q, &mut a);
        if let Some(dq) = sparse::min_norm_solve(&a, rows, free, rhs, settings.rank_tol) {
            return dq;
        }
    }
    let mut j = Matrix::zeros(rows, sys.n());
    add_stacked_jacobian(sys, t, q, &mut j);
    restricted_lstsq(&j, rhs, free)
}

/// Minimum-norm least-squares solution of `A x = b` restricted to the columns where `free` is true.
fn restricted_lstsq(a: &Matrix, b: &Vector, free: &[bool]) -> Vector {
    let cols: Vec<usize> = (0..a.ncols()).filter(|&c| free[c]).collect();
    let mut out = Vector::zeros(a.ncols());
    if cols.is_empty() || a.nrows() == 0 {
        return out;
    }
    let sub = Matrix::from_fn(a.nrows(), cols.len(), |r, c| a[(r, cols[c])]);
    // Full row rank (the usual case): x = Aᵀ (A Aᵀ)⁻¹ b by Cholesky, O(m³/3) instead of the SVD's
    // larger constant (the N = 40 four-bar assembles ~30 times faster). A rank-deficient or
    // ill-conditioned A A ᵀ falls back to the SVD.
    let gram = &sub * sub.transpose();
    let scale = gram.diagonal().amax();
    if let Some(chol) = gram.cholesky() {
        let y = chol.solve(b);
        let x = sub.transpose() * y;
        let l = chol.l();
        let dmin = l
            .diagonal()
            .iter()
            .fold(f64::INFINITY, |m, d| m.min(d.abs()));
        if x.iter().all(|v| v.is_finite()) && dmin * dmin > 1e-20 * scale {
            for (k, &c) in cols.iter().enumerate() {
                out[c] = x[k];
            }
            return out;
        }
    }
    let x = crate::linalg::linear::min_norm_lstsq(&sub, b, 1e-12);
    if x.iter().all(|v| v.is_finite()) {
        for (k, &c) in cols.iter().enumerate() {
            out[c] = x[k];
        }
    }
    out
}

/// The rank of Φ_q at (t, q) by the dense decompositions, with the rows involved in its
/// dependencies and those that depend on the rows before them written into `report`.
fn dense_rank_check<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    rank_tol: f64,
    report: &mut AssemblyReport,
) -> usize {
    let (rank, labels) = redundant_constraints(sys, t, q, rank_tol);
    report.redundant = labels;
    if rank < sys.m() {
        report.dependent = dependent_constraints(sys, t, q, rank_tol);
    }
    rank
}

/// [`dense_rank_check`] by sparse elimination on the rows of Φ_q ([`RowEchelon`]), in time about
/// linear in the size of the mechanism.
fn sparse_rank_check<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    rank_tol: f64,
    report: &mut AssemblyReport,
) -> usize {
    let (n, m) = (sys.n(), sys.m());
    let e = RowEchelon::of(&sparse::constraint_triplets(sys, t, q), m, n, rank_tol);
    if e.rank < m {
        report.redundant = (0..m)
            .filter(|&r| e.involved[r])
            .map(|r| sys.constraint_label(r))
            .collect();
        report.dependent = e
            .dependent
            .iter()
            .map(|&r| sys.constraint_label(r))
            .collect();
    }
    e.rank
}

/// Rank of Φ_q and the labels of the rows involved in its dependencies.
pub fn redundant_constraints<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    rank_tol: f64,
) -> (usize, Vec<String>) {
    let m = sys.m();
    if m == 0 {
        return (0, Vec::new());
    }
    let j = dense_jacobian(sys, t, q);
    // Left null space of Φ_q from the SVD of Φ_qᵀ (n × m): its right singular vectors with σ ≈ 0.
    // With more constraints than coordinates the thin SVD has only n of the m vectors; zero rows
    // appended to make Φ_qᵀ square (max(n, m) × m) leave its null space as it is and give all m.
    let n = j.ncols();
    let mut jt = Matrix::zeros(n.max(m), m);
    jt.rows_mut(0, n).copy_from(&j.transpose());
    let svd = jt.svd(false, true);
    let v_t = svd.v_t.expect("requested");
    let smax = svd.singular_values.iter().fold(0.0_f64, |a, v| a.max(*v));
    let mut rank = 0;
    let mut involved = vec![false; m];
    for (k, s) in svd.singular_values.iter().enumerate() {
        if *s > rank_tol * smax {
            rank += 1;
        } else {
            for r in 0..m {
                if v_t[(k, r)].abs() > 1e-6 {
                    involved[r] = true;
                }
            }
        }
    }
    let labels = (0..m)
        .filter(|&r| involved[r] && rank < m)
        .map(|r| sys.constraint_label(r))
        .collect();
    (rank, labels)
}

/// The constraint rows that depend on the rows before them, in row order (model order): rows are
/// taken one by one and kept when their component orthogonal to the kept rows exceeds
/// `rank_tol` times the largest row norm (modified Gram–Schmidt on Φ_q's rows, dense, O(m² n):
/// called at start-up only, when rank < m). Removing the returned rows leaves a full-rank Φ_q;
/// the choice is the last row of each dependency, which names a joint where the set of
/// [`redundant_constraints`] can name a whole loop.
pub fn dependent_constraints<S: System>(sys: &S, t: f64, q: &Vector, rank_tol: f64) -> Vec<String> {
    let j = dense_jacobian(sys, t, q);
    let scale = (0..j.nrows())
        .map(|r| j.row(r).norm())
        .fold(0.0_f64, f64::max);
    let mut kept: Vec<nalgebra::RowDVector<f64>> = Vec::new();
    let mut dependent = Vec::new();
    for r in 0..j.nrows() {
        let mut row = j.row(r).clone_owned();
        for k in &kept {
            let c = row.dot(k);
            row -= k * c;
        }
        let norm = row.norm();
        if norm > rank_tol * scale {
            kept.push(row / norm);
        } else {
            dependent.push(sys.constraint_label(r));
        }
    }
    dependent
}

/// Refuses initial values that no library routine should be handed: non-finite or absurdly large
/// coordinates, velocities or constraint values (a point at 1e308 m made the SVD run forever).
fn check_inputs<S: System>(sys: &S, x: &State) -> Result<(), AssemblyError> {
    use crate::system::{sane, ABSURD};
    let absurd = |what: String, value: f64| AssemblyError::Absurd {
        what,
        value,
        limit: ABSURD,
    };
    for (i, (q, v)) in x.q.iter().zip(x.v.iter()).enumerate() {
        if !sane(*q) {
            return Err(absurd(
                format!("coordinate {}", sys.coordinate_label(i)),
                *q,
            ));
        }
        if !sane(*v) {
            return Err(absurd(
                format!("velocity of {}", sys.coordinate_label(i)),
                *v,
            ));
        }
    }
    let mut phi = Vector::zeros(sys.m());
    sys.constraints(x.t, &x.q, &mut phi);
    if let Some(r) = phi.iter().position(|p| !sane(*p)) {
        return Err(absurd(sys.constraint_label(r), phi[r]));
    }
    Ok(())
}

/// Assembles a consistent initial state at time `x.t` in place: positions, velocities, then
/// accelerations and multipliers (shapes: q, v, a with n entries; λ with m).
///
/// # Errors
/// [`AssemblyError`] when Φ = 0 cannot be met, when the velocity constraints cannot be met with the
/// given velocities held, or when constraints are redundant and the policy is
/// [`RedundancyPolicy::Error`].
pub fn assemble<S: System>(
    sys: &S,
    x: &mut State,
    given: &GivenValues,
    settings: &AssemblySettings,
) -> Result<AssemblyReport, AssemblyError> {
    let m = sys.m();
    let t = x.t;
    let mut report = AssemblyReport {
        constraints: m,
        ..Default::default()
    };
    check_inputs(sys, x)?;
    let q_user = x.q.clone();
    let free_q: Vec<bool> = given.positions.iter().map(|g| !g).collect();
    let free_v: Vec<bool> = given.velocities.iter().map(|g| !g).collect();
    let k = sys.assembly_constraint_count();
    let sparse = settings.is_sparse_for(sys.n() + m);
    if m + k > 0 {
        report.iterations = assemble_positions(sys, x, &free_q, settings)?;
    }
    if m > 0 {
        let rank = if sparse && sparse::certainly_full_rank(sys, t, &x.q) {
            m
        } else if sparse {
            sparse_rank_check(sys, t, &x.q, settings.rank_tol, &mut report)
        } else {
            dense_rank_check(sys, t, &x.q, settings.rank_tol, &mut report)
        };
        report.rank = rank;
        if rank < m && settings.redundancy == RedundancyPolicy::Error {
            return Err(AssemblyError::Redundant {
                rank,
                m,
                rows: report.redundant.join(", "),
            });
        }
        assemble_velocities(sys, x, &free_v, settings, sparse)?;
    }
    report.max_position_change = (&x.q - &q_user).amax();
    if !(sparse && sparse::consistent_accelerations(sys, x, settings.rank_tol)) {
        consistent_accelerations(sys, x);
    }
    Ok(report)
}

/// Newton on Φ stacked with the given joint values' equations (k rows, assembly only), moving the
/// `free` positions of `x` with damped steps; the iterations it took.
///
/// # Errors
/// [`AssemblyError::NotAssembled`] when the residual is still above the tolerance after
/// `settings.max_iterations`, or is not finite.
fn assemble_positions<S: System>(
    sys: &S,
    x: &mut State,
    free_q: &[bool],
    settings: &AssemblySettings,
) -> Result<usize, AssemblyError> {
    let t = x.t;
    let mut phi = Vector::zeros(sys.m() + sys.assembly_constraint_count());
    for it in 0..=settings.max_iterations {
        stacked_residual(sys, t, &x.q, &mut phi);
        let r = phi.amax();
        if r <= settings.tolerance {
            return Ok(it);
        }
        if it == settings.max_iterations || !r.is_finite() {
            break;
        }
        let dq = stacked_step(sys, t, &x.q, &(-&phi), free_q, settings);
        // Damped step: never move an angle by more than 0.5 rad or a point by much in one iteration.
        let step = dq.amax();
        let damp = if step > 0.5 { 0.5 / step } else { 1.0 };
        x.q += dq * damp;
    }
    stacked_residual(sys, t, &x.q, &mut phi);
    Err(AssemblyError::NotAssembled {
        iterations: settings.max_iterations,
        residual: phi.amax(),
        worst: worst_row(sys, &phi),
    })
}

/// Velocities: the least change of the `free` velocities of `x` that meets Φ_q v + Φ_t = 0.
///
/// # Errors
/// [`AssemblyError::Velocities`] when the velocity constraints cannot be met with the given
/// velocities held.
fn assemble_velocities<S: System>(
    sys: &S,
    x: &mut State,
    free_v: &[bool],
    settings: &AssemblySettings,
    sparse: bool,
) -> Result<(), AssemblyError> {
    let (t, m) = (x.t, sys.m());
    let mut phi_t = Vector::zeros(m);
    sys.constraint_time_derivative(t, &x.q, &mut phi_t);
    let res = if sparse {
        let a = sparse::constraint_triplets(sys, t, &x.q);
        let rv = -(a.times(&x.v, m) + &phi_t);
        let dv = sparse::min_norm_solve(&a, m, free_v, &rv, settings.rank_tol)
            .unwrap_or_else(|| restricted_lstsq(&dense_jacobian(sys, t, &x.q), &rv, free_v));
        x.v += dv;
        a.times(&x.v, m) + &phi_t
    } else {
        let j = dense_jacobian(sys, t, &x.q);
        let rv = -(&j * &x.v + &phi_t);
        x.v += restricted_lstsq(&j, &rv, free_v);
        &j * &x.v + &phi_t
    };
    let scale = 1.0 + x.v.amax();
    if res.amax() > 1e-8 * scale {
        let held = free_v.iter().filter(|f| !**f).count();
        return Err(AssemblyError::Velocities {
            residual: res.amax(),
            worst: worst_row(sys, &res),
            held: if held > 0 {
                format!(", with {held} velocities held as given")
            } else {
                String::new()
            },
            advice: if held > 0 {
                "Mark fewer velocities as given"
            } else {
                "No velocity is held, so the constraint Jacobian at the initial poses is too ill-conditioned to project on: check the joint points and units (points far from the bodies, mixed mm and m)"
            },
        });
    }
    Ok(())
}

/// Solves `[M Φ_qᵀ; Φ_q 0] [a; λ] = [Q; γ]` at (t, q, v) of `x` and writes a and λ into `x`
/// (least squares, minimum norm, when the matrix is singular).
pub fn consistent_accelerations<S: System>(sys: &S, x: &mut State) {
    let (n, m) = (sys.n(), sys.m());
    let mut a = Matrix::zeros(n + m, n + m);
    add_saddle_point_matrix(sys, x.t, &x.q, &mut a);
    let mut rhs = saddle_point_rhs(sys, x);
    let mut solver = DenseSolver::new(n + m);
    solver.factor(&a);
    solver.solve_in_place(&mut rhs);
    x.a.copy_from(&rhs.rows(0, n));
    x.lambda.copy_from(&rhs.rows(n, m));
}
