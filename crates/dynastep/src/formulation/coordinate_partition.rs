//! Generalized coordinate partitioning (Wehage & Haug 1982, *J. Mech. Des.* 104:247–255; Haug 1989,
//! *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.3.2): q split into dependent
//! coordinates u (r of them, r = rank Φ_q) and independent coordinates v (f = n − r), the dependent
//! ones solved from the constraints given the independent ones.
//!
//! **Choice.** A full-pivoting LU factorization P Φ_q Q = L U (faer, in place, no allocation) picks
//! the dependent coordinates as the first r pivot columns and the independent constraint rows as the
//! first r pivot rows (redundant rows are left out); r is the number of pivots above 1e-9 of the
//! largest at the first choice, and is kept for the run.
//!
//! **When to choose again.** At every check a fresh factorization of Φ_q is compared with the
//! current choice: the current dependent block Φ_u (the independent rows × the current dependent
//! columns, LU with partial pivoting) is ill-conditioned when its smallest pivot falls below
//! `repartition_ratio` (`[solver.constraints]`, 0.1 by default) times the smallest of the r pivots
//! of the fresh factorization; the fresh choice then replaces it. Pivots measure how close a square
//! block is to singular relative to the best block available at that configuration (Haug's §4.4.1
//! uses the same pivots to pick the partition).
//!
//! **Correction.** Newton's method on Φ_rows(q, t) = 0 for u with v held (Haug's step 5), then the
//! dependent velocities from Φ_u u̇ = −(Φ_v v̇ + Φ_t) (eq. 7.2.10).

use faer::dyn_stack::{MemBuffer, MemStack};

use crate::linalg::{norm_inf, Matrix, Vector};
use crate::scheme::{History, LocalError};
use crate::system::System;

use super::{FormulationError, NewtonSettings};
use crate::linalg::linear::DenseSolver;

/// Pivots at or below this fraction of the largest count as zero when the rank is detected.
const RANK_TOL: f64 = 1e-9;

/// The partition and its work space (see the module documentation).
pub struct CoordinatePartition {
    n: usize,
    m: usize,
    /// Rank r of Φ_q (0 before the first choice).
    pub rank: usize,
    /// `dependent[i]`: whether coordinate i is dependent (n).
    pub dependent: Vec<bool>,
    /// Dependent coordinates, in pivot order (r).
    dep: Vec<usize>,
    /// Independent constraint rows, in pivot order (r).
    rows: Vec<usize>,
    jac: Matrix,
    lu: Vec<f64>,
    row_perm: Vec<usize>,
    row_perm_inv: Vec<usize>,
    col_perm: Vec<usize>,
    col_perm_inv: Vec<usize>,
    scratch: MemBuffer,
    block: Matrix,
    block_solver: DenseSolver,
    phi: Vector,
    phi_t: Vector,
    rhs: Vector,
    /// The smallest fresh pivot over the largest, at the last check (how close Φ_q is to losing
    /// rank).
    pub fresh_conditioning: f64,
}

impl std::fmt::Debug for CoordinatePartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoordinatePartition")
            .field("rank", &self.rank)
            .field("dependent", &self.dep)
            .field("rows", &self.rows)
            .finish()
    }
}

impl CoordinatePartition {
    /// Work space for n coordinates and m constraints; no partition yet.
    pub fn new(n: usize, m: usize) -> Self {
        use faer::linalg::lu::full_pivoting::factor;
        let req =
            factor::lu_in_place_scratch::<usize, f64>(m, n, faer::Par::Seq, Default::default());
        CoordinatePartition {
            n,
            m,
            rank: 0,
            dependent: vec![false; n],
            dep: Vec::with_capacity(m.min(n)),
            rows: Vec::with_capacity(m.min(n)),
            jac: Matrix::zeros(m, n),
            lu: vec![0.0; m * n],
            row_perm: vec![0; m],
            row_perm_inv: vec![0; m],
            col_perm: vec![0; n],
            col_perm_inv: vec![0; n],
            scratch: MemBuffer::new(req),
            block: Matrix::zeros(0, 0),
            block_solver: DenseSolver::new(0),
            phi: Vector::zeros(m),
            phi_t: Vector::zeros(m),
            rhs: Vector::zeros(0),
            fresh_conditioning: 1.0,
        }
    }

    /// Number of independent coordinates f = n − r.
    pub fn independent_count(&self) -> usize {
        self.n - self.rank
    }

    /// Factors Φ_q(q, t) with full pivoting; returns the smallest of the first r pivots in
    /// magnitude (r = the kept rank, detected here on the first call).
    fn factor_fresh<S: System>(&mut self, sys: &S, t: f64, q: &Vector) -> f64 {
        use faer::linalg::lu::full_pivoting::factor;
        let (m, n) = (self.m, self.n);
        self.jac.fill(0.0);
        sys.constraint_jacobian(t, q, 1.0, &mut self.jac);
        self.lu.copy_from_slice(self.jac.as_slice());
        let mat = faer::MatMut::from_column_major_slice_mut(&mut self.lu, m, n);
        let stack = MemStack::new(&mut self.scratch);
        factor::lu_in_place(
            mat,
            &mut self.row_perm,
            &mut self.row_perm_inv,
            &mut self.col_perm,
            &mut self.col_perm_inv,
            faer::Par::Seq,
            stack,
            Default::default(),
        );
        let pivot = |k: usize| self.lu[k + k * m].abs();
        let largest = if m.min(n) > 0 { pivot(0) } else { 0.0 };
        if self.rank == 0 {
            self.rank = (0..m.min(n))
                .take_while(|&k| pivot(k) > RANK_TOL * largest)
                .count();
        }
        let smallest = (0..self.rank).map(pivot).fold(f64::INFINITY, f64::min);
        self.fresh_conditioning = if largest > 0.0 {
            smallest / largest
        } else {
            0.0
        };
        smallest
    }

    /// Adopts the pivots of the last fresh factorization as the partition (allocates only when the
    /// rank changes, i.e. on the first choice).
    fn adopt_fresh(&mut self) {
        let r = self.rank;
        self.dep.clear();
        self.dep.extend_from_slice(&self.col_perm[..r]);
        self.rows.clear();
        self.rows.extend_from_slice(&self.row_perm[..r]);
        self.dependent.fill(false);
        for &i in &self.dep {
            self.dependent[i] = true;
        }
        if self.block.nrows() != r {
            self.block = Matrix::zeros(r, r);
            self.block_solver = DenseSolver::new(r);
            self.rhs = Vector::zeros(r);
        }
    }

    /// Chooses the first partition at the history's newest level, unless there is one (Haug's
    /// step 2); nothing for an unconstrained system.
    pub fn choose_once<S: System>(&mut self, sys: &S, history: &History) {
        if self.m > 0 && self.rank == 0 {
            let x = history.newest();
            self.choose(sys, x.t, &x.q);
        }
    }

    /// Zeroes the dependent entries of `err` (they are solved from the constraints, not integrated
    /// under error control) and returns the number of independent coordinates. All n are judged
    /// before the first partition, and when there is no independent coordinate (a kinematically
    /// driven system, f = 0): an empty norm would let the steps grow without bound, and the
    /// sampled motion and the energy balance's work integral need steps that resolve it.
    pub fn filter(&self, err: &mut LocalError) -> usize {
        if self.rank == 0 || self.independent_count() == 0 {
            return err.q.len();
        }
        for (i, &dep) in self.dependent.iter().enumerate() {
            if dep {
                err.q[i] = 0.0;
                err.v[i] = 0.0;
            }
        }
        self.independent_count()
    }

    /// Chooses the partition at (t, q) (the first time, or unconditionally).
    pub fn choose<S: System>(&mut self, sys: &S, t: f64, q: &Vector) {
        self.factor_fresh(sys, t, q);
        self.adopt_fresh();
    }

    /// Compares the current partition with a fresh factorization at (t, q) and adopts the fresh
    /// one when the current Φ_u is ill-conditioned (see the module documentation). Returns true
    /// when the partition changed.
    pub fn check<S: System>(&mut self, sys: &S, t: f64, q: &Vector, ratio: f64) -> bool {
        let fresh = self.factor_fresh(sys, t, q);
        self.rows.clear();
        self.rows.extend_from_slice(&self.row_perm[..self.rank]);
        self.factor_block();
        if self.block_solver.min_abs_pivot() < ratio * fresh {
            self.adopt_fresh();
            self.factor_block();
            true
        } else {
            false
        }
    }

    /// Factors Φ_u = Φ_q[rows, dependent] from `self.jac`.
    fn factor_block(&mut self) {
        for (c, &j) in self.dep.iter().enumerate() {
            for (r, &i) in self.rows.iter().enumerate() {
                self.block[(r, c)] = self.jac[(i, j)];
            }
        }
        self.block_solver.factor(&self.block);
    }

    /// Solves Φ(q, t) = 0 for the dependent coordinates of `q` (n) with the independent ones held
    /// (Newton), then the dependent velocities of `v` (n) from the velocity constraints; returns
    /// the Newton iterations.
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] when Newton does not reach `newton.position_tol`;
    /// [`FormulationError::NonFinite`].
    pub fn correct<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        q: &mut Vector,
        v: &mut Vector,
        newton: &NewtonSettings,
    ) -> Result<usize, FormulationError> {
        let tol = newton.test().position_tolerance(q);
        let mut iterations = 0;
        let mut correction = f64::INFINITY;
        loop {
            sys.constraints(t, q, &mut self.phi);
            let violation = self
                .rows
                .iter()
                .fold(0.0_f64, |a, &i| a.max(self.phi[i].abs()));
            if !violation.is_finite() {
                return Err(FormulationError::NonFinite);
            }
            if violation <= tol || correction <= tol {
                break;
            }
            if iterations == newton.max_iterations {
                return Err(FormulationError::NotConverged {
                    iterations,
                    correction,
                    residual: violation,
                });
            }
            self.refactor(sys, t, q);
            for (r, &i) in self.rows.iter().enumerate() {
                self.rhs[r] = -self.phi[i];
            }
            self.block_solver.solve_in_place(&mut self.rhs);
            correction = norm_inf(&self.rhs);
            for (c, &j) in self.dep.iter().enumerate() {
                q[j] += self.rhs[c];
            }
            iterations += 1;
        }
        self.refactor(sys, t, q);
        sys.constraint_time_derivative(t, q, &mut self.phi_t);
        sys.constraint_jacobian_times(t, q, v, &mut self.phi);
        for (r, &i) in self.rows.iter().enumerate() {
            self.rhs[r] = -(self.phi[i] + self.phi_t[i]);
        }
        self.block_solver.solve_in_place(&mut self.rhs);
        for (c, &j) in self.dep.iter().enumerate() {
            v[j] += self.rhs[c];
        }
        if !v.iter().all(|x| x.is_finite()) {
            return Err(FormulationError::NonFinite);
        }
        Ok(iterations)
    }

    /// Φ_q at (t, q) into `self.jac` and its dependent block factored.
    fn refactor<S: System>(&mut self, sys: &S, t: f64, q: &Vector) {
        self.jac.fill(0.0);
        sys.constraint_jacobian(t, q, 1.0, &mut self.jac);
        self.factor_block();
    }

    /// Largest position violation over all m constraint rows (redundant ones included),
    /// ‖Φ(q, t)‖∞ \[m or rad\].
    pub fn violation<S: System>(&mut self, sys: &S, t: f64, q: &Vector) -> f64 {
        sys.constraints(t, q, &mut self.phi);
        norm_inf(&self.phi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::test_problems::CartesianPendulum;

    #[test]
    fn pendulum_partition_and_correction() {
        // Φ = x² + y² − L² at (−L, 0): Φ_q = [−2L, 0]; x is dependent, y independent.
        let sys = CartesianPendulum::iftomm();
        let mut p = CoordinatePartition::new(2, 1);
        let mut q = Vector::from_vec(vec![-1.0, 0.0]);
        p.choose(&sys, 0.0, &q);
        assert_eq!((p.rank, p.dependent.clone()), (1, vec![true, false]));
        // Off the circle and with a velocity that leaves it: the correction holds y and ẏ.
        q[0] = -1.01;
        q[1] = 0.1;
        let mut v = Vector::from_vec(vec![0.3, 0.5]);
        let newton = NewtonSettings::default();
        p.correct(&sys, 0.0, &mut q, &mut v, &newton).unwrap();
        assert_eq!((q[1], v[1]), (0.1, 0.5));
        assert!((q[0] + (1.0_f64 - 0.01).sqrt()).abs() < 1e-12, "{q}");
        assert!((q[0] * v[0] + q[1] * v[1]).abs() < 1e-12, "{v}");
        // Near y = −L the dependent x is ill-conditioned: the check swaps the roles.
        let q = Vector::from_vec(vec![0.01, -1.0]);
        assert!(p.check(&sys, 0.0, &q, 0.1));
        assert_eq!(p.dependent, vec![false, true]);
        assert!(!p.check(&sys, 0.0, &q, 0.1));
    }
}
