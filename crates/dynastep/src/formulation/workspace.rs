//! A square matrix and its linear solver, dense or sparse, chosen once per run: the storage every
//! formulation that factors a matrix shares (the index-3 iteration matrix, the acceleration-level
//! saddle-point matrix of [`super::acceleration`]).

use crate::linalg::{Matrix, Sink, Vector};

use super::linear::{DenseSolver, LinearStats};
use super::sparse::{CscAssembler, SparseSolver};
use super::LinearSolver;

/// The terms of a matrix, sent to any [`Sink`]. With `every`, every term is sent even when its
/// coefficient is zero, so that the sequence of entries never changes (the sparse assembler relies
/// on it); without, terms with a zero coefficient may be skipped.
pub trait MatrixTerms {
    /// Adds the matrix to `out`.
    fn add<K: Sink>(&self, every: bool, out: &mut K);
}

/// A dim × dim matrix assembled dense or in compressed sparse column form, with its LU solver.
#[derive(Debug)]
pub enum Workspace {
    /// Dense storage, dense LU with partial pivoting.
    Dense {
        /// The matrix.
        jac: Matrix,
        /// Its solver.
        solver: DenseSolver,
    },
    /// Sparse storage, sparse LU with partial pivoting.
    Sparse {
        /// The matrix.
        jac: CscAssembler,
        /// Its solver.
        solver: Box<SparseSolver>,
    },
}

impl Workspace {
    /// Storage for a dim × dim matrix; sparse when `linear_solver` says so for this size.
    pub fn new(dim: usize, linear_solver: LinearSolver) -> Self {
        if linear_solver.is_sparse_for(dim) {
            Workspace::Sparse {
                jac: CscAssembler::new(dim),
                solver: Box::new(SparseSolver::new(dim)),
            }
        } else {
            Workspace::Dense {
                jac: Matrix::zeros(dim, dim),
                solver: DenseSolver::new(dim),
            }
        }
    }

    /// True on the sparse path.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Workspace::Sparse { .. })
    }

    /// The solver's counters (factorizations, least-squares solves).
    pub fn stats(&self) -> LinearStats {
        match self {
            Workspace::Dense { solver, .. } => solver.stats,
            Workspace::Sparse { solver, .. } => solver.stats,
        }
    }

    /// Assembles `terms` and factors the matrix (least squares when singular).
    pub fn factor<T: MatrixTerms>(&mut self, terms: &T) {
        match self {
            Workspace::Dense { jac, solver } => {
                jac.fill(0.0);
                terms.add(false, jac);
                solver.factor(jac);
            }
            Workspace::Sparse { jac, solver } => {
                jac.begin();
                terms.add(true, jac);
                jac.finish();
                solver.factor(jac.matrix());
            }
        }
    }

    /// True when the last factored matrix was singular (solves are least squares).
    pub fn is_singular(&self) -> bool {
        match self {
            Workspace::Dense { solver, .. } => solver.is_singular(),
            Workspace::Sparse { solver, .. } => solver.is_singular(),
        }
    }

    /// Overwrites `b` (dim) with the solution of the last factored matrix times x = b.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        match self {
            Workspace::Dense { solver, .. } => solver.solve_in_place(b),
            Workspace::Sparse { solver, .. } => solver.solve_in_place(b),
        }
    }
}
