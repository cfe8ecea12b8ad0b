//! A square matrix and its linear solver, dense or sparse, chosen once per run: the storage every
//! formulation that factors a matrix shares (the index-3 iteration matrix, the acceleration-level
//! saddle-point matrix of [`super::acceleration`]).

use crate::linalg::{zero, Matrix, Sink, Vector};

use super::{LinearSolver, PhaseTimes, Stopwatch};
use crate::linalg::linear::{DenseSolver, LinearStats};
use crate::linalg::small_dense::{SmallDenseSolver, SMALL_DIM};
use crate::linalg::sparse::{CscAssembler, SparseSolver};

/// The terms of a matrix, sent to any [`Sink`]. With `every`, every term is sent even when its
/// coefficient is zero, so that the sequence of entries never changes (the sparse assembler relies
/// on it); without, terms with a zero coefficient may be skipped.
pub trait MatrixTerms {
    /// Adds the matrix to `out`.
    fn add<K: Sink>(&self, every: bool, out: &mut K);
}

/// A dim × dim matrix assembled dense (general or fixed-size LU) or in compressed sparse column
/// form, with its LU solver,
/// and, when its [`Stopwatch`] is on, the time spent assembling, factoring and solving
/// ([`PhaseTimes`], residual left at 0).
#[derive(Debug)]
pub struct Workspace {
    storage: Storage,
    times: PhaseTimes,
    clock: Stopwatch,
}

/// The matrix and its solver.
#[derive(Debug)]
enum Storage {
    /// Dense storage, dense LU with partial pivoting.
    Dense {
        /// The matrix.
        jac: Matrix,
        /// Its solver.
        solver: DenseSolver,
    },
    /// Dense storage, fixed-size LU with partial pivoting (dim ≤ [`SMALL_DIM`]; the closed-form
    /// inverse up to 3).
    Small {
        /// The matrix.
        jac: Matrix,
        /// Its solver.
        solver: SmallDenseSolver,
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
    /// Storage for a dim × dim matrix: `auto` takes the fixed-size dense LU up to [`SMALL_DIM`]
    /// unknowns and the sparse path above. `clock` says whether the phases are timed.
    pub fn new(dim: usize, linear_solver: LinearSolver, clock: Stopwatch) -> Self {
        let storage = match linear_solver {
            LinearSolver::Auto if dim <= SMALL_DIM => Storage::Small {
                jac: Matrix::zeros(dim, dim),
                solver: SmallDenseSolver::new(dim),
            },
            LinearSolver::Auto | LinearSolver::Sparse => Storage::Sparse {
                jac: CscAssembler::new(dim),
                solver: Box::new(SparseSolver::new(dim)),
            },
            LinearSolver::Dense => Storage::Dense {
                jac: Matrix::zeros(dim, dim),
                solver: DenseSolver::new(dim),
            },
        };
        Workspace {
            storage,
            times: PhaseTimes::default(),
            clock,
        }
    }

    /// True on the sparse path.
    pub fn is_sparse(&self) -> bool {
        matches!(self.storage, Storage::Sparse { .. })
    }

    /// The solver's counters (factorizations, least-squares solves).
    pub fn stats(&self) -> LinearStats {
        match &self.storage {
            Storage::Dense { solver, .. } => solver.stats,
            Storage::Small { solver, .. } => solver.stats,
            Storage::Sparse { solver, .. } => solver.stats,
        }
    }

    /// The time spent so far assembling, factoring and solving.
    pub fn times(&self) -> PhaseTimes {
        self.times
    }

    /// Assembles `terms` and factors the matrix (least squares when singular).
    pub fn factor<T: MatrixTerms>(&mut self, terms: &T) {
        let start = self.clock.start();
        match &mut self.storage {
            Storage::Dense { jac, .. } | Storage::Small { jac, .. } => {
                zero(jac.as_mut_slice());
                terms.add(false, jac);
            }
            Storage::Sparse { jac, .. } => {
                jac.begin();
                terms.add(true, jac);
                jac.finish();
            }
        }
        Stopwatch::stop(start, &mut self.times.assembly);
        let start = self.clock.start();
        match &mut self.storage {
            Storage::Dense { jac, solver } => solver.factor(jac),
            Storage::Small { jac, solver } => solver.factor(jac),
            Storage::Sparse { jac, solver } => solver.factor(jac.matrix()),
        }
        Stopwatch::stop(start, &mut self.times.factorization);
    }

    /// True when the last factored matrix was singular (solves are least squares).
    pub fn is_singular(&self) -> bool {
        match &self.storage {
            Storage::Dense { solver, .. } => solver.is_singular(),
            Storage::Small { solver, .. } => solver.is_singular(),
            Storage::Sparse { solver, .. } => solver.is_singular(),
        }
    }

    /// Sets the component of `x` (entries `offset..offset + x.len()` of an unknown vector) along
    /// the null space of the last factored matrix to that of `reference`, when the sparse path
    /// factored it with that null space's unknowns pinned
    /// ([`SparseSolver::keep_null_component`]); otherwise leaves `x`. The dense paths solve such
    /// matrices by least squares, after which the time loop stops extrapolating λ.
    ///
    /// # Panics
    /// On the sparse path with a pinned null space, when `reference` and `x` differ in length or
    /// `offset + x.len()` exceeds dim.
    pub fn keep_null_component(&self, x: &mut [f64], reference: &[f64], offset: usize) {
        if let Storage::Sparse { solver, .. } = &self.storage {
            solver.keep_null_component(x, reference, offset);
        }
    }

    /// Overwrites `b` (dim) with the solution of the last factored matrix times x = b.
    pub fn solve_in_place(&mut self, b: &mut Vector) {
        let start = self.clock.start();
        match &mut self.storage {
            Storage::Dense { solver, .. } => solver.solve_in_place(b),
            Storage::Small { solver, .. } => solver.solve_in_place(b),
            Storage::Sparse { solver, .. } => solver.solve_in_place(b),
        }
        Stopwatch::stop(start, &mut self.times.solve);
    }
}
