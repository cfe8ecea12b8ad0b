//! Equilibrium by Newton's method on the equilibrium equations (Haug 1989, §7.5, eq. 7.5.2):
//!
//! ```text
//! R(q, λ) = [Φ_qᵀλ − Q(q, 0, t₀); Φ(q, t₀)] = 0,    J = [K  Φ_qᵀ; Φ_q  0]
//! ```
//!
//! with K the tangent stiffness −∂Q/∂q + ∂(Φ_qᵀλ)/∂q (see [`super`]). The first λ balances Q at the start
//! configuration (least squares). Steps are damped so that no coordinate moves by more than 0.5 (m or
//! rad) in one iteration; a singular J is solved in the least-squares sense. Newton converges to the
//! equilibrium nearest the start, stable or not: the stability verdict tells which.
//!
//! The residual is converged at `tolerance · max(1, internal force scale)`: a flexible beam's
//! forces are differences of section forces of size EA, which Q carries with EA times the rounding
//! error ([`System::internal_force_scale`]).
//!
//! Large deformations are reached by following the loads: [`solve_increments`] solves at K equal
//! steps of time from t₀ to t_end, each from the last solution, so that time functions of the
//! model (a ramp) give the load path. The elements have no state, so the result does not depend
//! on K once each increment converges.

use super::{finish, residual, stiffness, Equilibrium, EquilibriumError, StaticSettings};
use crate::linalg::linear::DenseSolver;
use crate::linalg::{Block, Matrix, Vector};
use crate::system::System;

/// Finds an equilibrium near `q0` (n entries) at time `t` \[s\].
///
/// # Errors
/// [`EquilibriumError::NotConverged`] when the residual does not fall below the tolerance.
pub fn solve<S: System>(
    sys: &S,
    t: f64,
    q0: &Vector,
    settings: &StaticSettings,
) -> Result<Equilibrium, EquilibriumError> {
    let (n, m) = (sys.n(), sys.m());
    let mut q = q0.clone();
    let mut lambda = super::balancing_multipliers(sys, t, &q);
    let mut jac = Matrix::zeros(n + m, n + m);
    let mut rhs = Vector::zeros(n + m);
    let mut r = Vector::zeros(n);
    let mut phi = Vector::zeros(m);
    let mut solver = DenseSolver::new(n + m);
    let mut norm = f64::INFINITY;
    for it in 0..=settings.max_iterations {
        residual(sys, t, &q, &lambda, &mut r);
        sys.constraints(t, &q, &mut phi);
        norm = r.amax().max(if m > 0 { phi.amax() } else { 0.0 });
        if norm <= settings.tolerance * sys.internal_force_scale().max(1.0) {
            return Ok(finish(sys, t, &q, it, settings.rank_tol));
        }
        if it == settings.max_iterations || !norm.is_finite() {
            break;
        }
        jac.fill(0.0);
        let k = stiffness(sys, t, &q, &lambda);
        // The constraint rows and columns are scaled to the stiffness, so that the LU's pivots do
        // not span the range between a beam's EA/ℓ and the unit entries of Φ_q (which the
        // singularity test, relative to the largest entry, would read as a null space).
        let s = k.amax().max(1.0);
        jac.view_mut((0, 0), (n, n)).copy_from(&k);
        for transpose in [true, false] {
            let (row, col) = if transpose { (0, n) } else { (n, 0) };
            let mut block = Block {
                inner: &mut jac,
                row,
                col,
                scale: s,
                transpose,
            };
            sys.constraint_jacobian(t, &q, 1.0, &mut block);
        }
        rhs.rows_mut(0, n).copy_from(&(-&r));
        rhs.rows_mut(n, m).copy_from(&(-&phi * s));
        solver.factor(&jac);
        solver.solve_in_place(&mut rhs);
        let step = rhs.rows(0, n).amax();
        let damp = if step > 0.5 { 0.5 / step } else { 1.0 };
        q += rhs.rows(0, n) * damp;
        lambda += rhs.rows(n, m) * (damp * s);
    }
    Err(EquilibriumError::NotConverged {
        method: "newton",
        iterations: settings.max_iterations,
        residual: norm,
        hint: "start nearer the equilibrium (change the initial poses), or use --method settle"
            .into(),
    })
}

/// Follows the loads from `t0` to `t_end` \[s\] in `increments` equal steps of time, solving
/// [`solve`] at each from the last solution (q0 at the start, n entries). Returns the equilibrium
/// at `t_end` with the iterations of every increment summed.
///
/// # Errors
/// [`EquilibriumError::NotConverged`] naming the increment and time where Newton failed;
/// [`EquilibriumError::NotApplicable`] when `increments` is 0 or `t_end` is not after `t0`.
pub fn solve_increments<S: System>(
    sys: &S,
    (t0, t_end): (f64, f64),
    increments: usize,
    q0: &Vector,
    settings: &StaticSettings,
) -> Result<Equilibrium, EquilibriumError> {
    if increments == 0 || t_end.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
        return Err(EquilibriumError::NotApplicable(format!(
            "load increments need at least one increment and t_end after t0 (got {increments} increments from {t0} s to {t_end} s)"
        )));
    }
    let mut q = q0.clone();
    let mut iterations = 0;
    for k in 1..=increments {
        let t = t0 + (t_end - t0) * k as f64 / increments as f64;
        let mut e = solve(sys, t, &q, settings).map_err(|e| match e {
            EquilibriumError::NotConverged {
                method,
                iterations,
                residual,
                ..
            } => EquilibriumError::NotConverged {
                method,
                iterations,
                residual,
                hint: format!(
                    "at load increment {k} of {increments} (t = {t} s); take more increments"
                ),
            },
            other => other,
        })?;
        iterations += e.iterations;
        q.copy_from(&e.state.q);
        if k == increments {
            e.iterations = iterations;
            return Ok(e);
        }
    }
    unreachable!("the loop returns at its last increment")
}
