//! Equilibrium by minimum total potential energy (Haug 1989, §7.5, eqs. 7.5.3–7.5.24), for
//! conservative models.
//!
//! 1. **Partition** q = (u, z) at the start configuration: z, the f independent coordinates, chosen by
//!    [`crate::linalg::null_space::independent_coordinates`].
//! 2. **Reduced potential** V̂(z) = V(q(z)), where the dependent u solve Φ(u, z, t₀) = 0 by Newton
//!    (least-squares steps on the columns of u, started from the last solution).
//! 3. **Gradient** by the influence-coefficient matrix H = ∂u/∂z = −Φ_u⁻¹ Φ_z:
//!    ∇V̂ = V_z + Hᵀ V_u, with V_q = −Q(q, 0, t₀).
//! 4. **Minimize** V̂ with L-BFGS and a Moré–Thuente line search (the `argmin` crate), until
//!    ‖∇V̂‖ falls below the tolerance.
//!
//! The model must be conservative: at the start configuration the applied forces must equal −∂V/∂q
//! (checked by central differences), otherwise the method refuses and names the alternatives.

use std::cell::RefCell;

use argmin::core::{CostFunction, Executor, Gradient, State as _};
use argmin::solver::linesearch::HagerZhangLineSearch;
use argmin::solver::quasinewton::LBFGS;

use super::{finish, Equilibrium, EquilibriumError, StaticSettings};
use crate::linalg::null_space::{independent_coordinates, null_space};
use crate::linalg::{Matrix, Vector};
use crate::system::System;

/// Tolerance on ‖Φ‖∞ when the dependent coordinates are solved \[m, rad\].
const CLOSURE_TOL: f64 = 1e-13;

/// Relative mismatch of Q and −∂V/∂q above which a model counts as non-conservative.
const CONSERVATIVE_TOL: f64 = 1e-6;

/// The reduced problem V̂(z) (see the module documentation).
struct Reduced<'a, S> {
    sys: &'a S,
    t: f64,
    z: Vec<usize>,
    u: Vec<usize>,
    settings: StaticSettings,
    /// The last closed configuration (n entries), the next Newton start.
    q: RefCell<Vector>,
    /// Cost and gradient evaluations so far, bounded by [`EVALUATIONS_PER_ITERATION`] ×
    /// `max_iterations` (the line search evaluates inside an iteration, beyond `max_iters`).
    evaluations: std::cell::Cell<usize>,
    /// Why the last evaluation refused, kept outside the problem: argmin does not hand the problem
    /// back when its line search fails.
    refused: &'a RefCell<Option<String>>,
}

/// Most cost and gradient evaluations per allowed L-BFGS iteration (the line search's own loop).
const EVALUATIONS_PER_ITERATION: usize = 50;

impl<S: System> Reduced<'_, S> {
    /// Counts one evaluation; an error once the budget of `max_iterations` is spent.
    fn count_evaluation(&self) -> Result<(), argmin::core::Error> {
        let n = self.evaluations.get() + 1;
        self.evaluations.set(n);
        let budget = EVALUATIONS_PER_ITERATION * self.settings.max_iterations;
        if n > budget {
            return Err(self.refuse(format!(
                "{budget} evaluations of the potential ({EVALUATIONS_PER_ITERATION} per allowed iteration) without convergence"
            )));
        }
        Ok(())
    }

    /// Records why an evaluation is refused and returns it as argmin's error.
    fn refuse(&self, why: String) -> argmin::core::Error {
        *self.refused.borrow_mut() = Some(why.clone());
        argmin::core::Error::msg(why)
    }

    /// The configuration with independent coordinates `z`, the dependent ones solved from Φ = 0.
    fn close(&self, z: &[f64]) -> Result<Vector, argmin::core::Error> {
        let (n, m) = (self.sys.n(), self.sys.m());
        let mut q = self.q.borrow().clone();
        for (k, &i) in self.z.iter().enumerate() {
            q[i] = z[k];
        }
        let mut phi = Vector::zeros(m);
        for _ in 0..self.settings.max_iterations {
            self.sys.constraints(self.t, &q, &mut phi);
            if m == 0 || phi.amax() <= CLOSURE_TOL {
                *self.q.borrow_mut() = q.clone();
                return Ok(q);
            }
            let mut jac = Matrix::zeros(m, n);
            self.sys.constraint_jacobian(self.t, &q, 1.0, &mut jac);
            let phi_u = Matrix::from_fn(m, self.u.len(), |r, c| jac[(r, self.u[c])]);
            let svd = phi_u.svd(true, true);
            let tol = 1e-12 * svd.singular_values.max();
            let du = svd.solve(&(-&phi), tol).map_err(argmin::core::Error::msg)?;
            for (k, &i) in self.u.iter().enumerate() {
                q[i] += du[k];
            }
        }
        Err(argmin::core::Error::msg(format!(
            "the constraints cannot be closed for the independent coordinates {z:?} (‖Φ‖∞ = {:.3e})",
            phi.amax()
        )))
    }

    /// ∇V̂ = −(Q_z + Hᵀ Q_u) at the closed configuration q.
    fn reduced_gradient(&self, q: &Vector) -> Vec<f64> {
        let (n, m) = (self.sys.n(), self.sys.m());
        let mut f = Vector::zeros(n);
        self.sys.forces(self.t, q, &Vector::zeros(n), &mut f);
        let mut g: Vec<f64> = self.z.iter().map(|&i| -f[i]).collect();
        if m > 0 && !self.u.is_empty() {
            let mut jac = Matrix::zeros(m, n);
            self.sys.constraint_jacobian(self.t, q, 1.0, &mut jac);
            let phi_u = Matrix::from_fn(m, self.u.len(), |r, c| jac[(r, self.u[c])]);
            let phi_z = Matrix::from_fn(m, self.z.len(), |r, c| jac[(r, self.z[c])]);
            let svd = phi_u.svd(true, true);
            let tol = 1e-12 * svd.singular_values.max();
            // H = −Φ_u⁺ Φ_z (n_u × f).
            let h = -svd.solve(&phi_z, tol).expect("U and Vᵀ were computed");
            let f_u = Vector::from_iterator(self.u.len(), self.u.iter().map(|&i| f[i]));
            let ht_fu = h.transpose() * f_u;
            for (gk, c) in g.iter_mut().zip(ht_fu.iter()) {
                *gk -= c;
            }
        }
        g
    }
}

impl<S: System> CostFunction for Reduced<'_, S> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, z: &Self::Param) -> Result<f64, argmin::core::Error> {
        self.count_evaluation()?;
        let q = self.close(z)?;
        let v = self.sys.potential_energy(self.t, &q);
        // A potential without a minimum sends the line search out geometrically: stop it when
        // the coordinates or the energy leave the range any mechanism has.
        let far = z
            .iter()
            .any(|x| x.is_nan() || x.abs() >= crate::system::ABSURD);
        if far || !v.is_finite() {
            return Err(self.refuse(format!(
                "the potential energy has no minimum along the search: V = {v:.3e} J at coordinates of size {:.3e} (it decreases without bound, or the model has no rest position)",
                z.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
            )));
        }
        Ok(v)
    }
}

impl<S: System> Gradient for Reduced<'_, S> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, z: &Self::Param) -> Result<Vec<f64>, argmin::core::Error> {
        self.count_evaluation()?;
        let q = self.close(z)?;
        Ok(self.reduced_gradient(&q))
    }
}

/// Refuses a model whose applied forces at q are not −∂V/∂q (central differences).
fn check_conservative<S: System>(sys: &S, t: f64, q: &Vector) -> Result<(), EquilibriumError> {
    let n = sys.n();
    let mut f = Vector::zeros(n);
    sys.forces(t, q, &Vector::zeros(n), &mut f);
    let mut worst = (0, 0.0_f64);
    let mut qp = q.clone();
    for i in 0..n {
        let h = 1e-6 * (1.0 + q[i].abs());
        qp[i] = q[i] + h;
        let vp = sys.potential_energy(t, &qp);
        qp[i] = q[i] - h;
        let vm = sys.potential_energy(t, &qp);
        qp[i] = q[i];
        let mismatch = (f[i] + (vp - vm) / (2.0 * h)).abs();
        if mismatch > worst.1 {
            worst = (i, mismatch);
        }
    }
    if worst.1 > CONSERVATIVE_TOL * f.amax().max(1.0) {
        return Err(EquilibriumError::NotApplicable(format!(
            "minimum potential energy needs a conservative model, but the applied force on {} differs from −∂V/∂q by {:.3e} (an applied force or torque, or an actuator, has no potential); use --method newton or --method settle",
            sys.coordinate_label(worst.0),
            worst.1
        )));
    }
    Ok(())
}

impl<'a, S: System> Reduced<'a, S> {
    /// The problem in the independent coordinates of the null space of Φ_q at `q0` (n entries),
    /// and the start: those coordinates of `q0`.
    fn new(
        sys: &'a S,
        t: f64,
        q0: &Vector,
        settings: &StaticSettings,
        refused: &'a RefCell<Option<String>>,
    ) -> (Self, Vec<f64>) {
        let (n, m) = (sys.n(), sys.m());
        let mut jac = Matrix::zeros(m, n);
        sys.constraint_jacobian(t, q0, 1.0, &mut jac);
        let (_, basis) = null_space(&jac, settings.rank_tol);
        let z = independent_coordinates(&basis);
        let u: Vec<usize> = (0..n).filter(|i| !z.contains(i)).collect();
        let z0: Vec<f64> = z.iter().map(|&i| q0[i]).collect();
        let problem = Reduced {
            sys,
            t,
            z,
            u,
            settings: *settings,
            q: RefCell::new(q0.clone()),
            evaluations: std::cell::Cell::new(0),
            refused,
        };
        (problem, z0)
    }
}

/// The error of a minimization that stopped after `iterations` at `residual`, and why.
fn not_converged(iterations: usize, residual: f64, why: String) -> EquilibriumError {
    EquilibriumError::NotConverged {
        method: "potential",
        iterations,
        residual,
        hint: format!("{why}; try --method newton or settle"),
    }
}

/// Finds the minimum of the potential energy near `q0` (n entries, satisfying Φ = 0) at time `t`.
///
/// # Errors
/// [`EquilibriumError::NotApplicable`] for a non-conservative model;
/// [`EquilibriumError::NotConverged`] when L-BFGS stops above the tolerance or the constraints
/// cannot be closed.
pub fn solve<S: System>(
    sys: &S,
    t: f64,
    q0: &Vector,
    settings: &StaticSettings,
) -> Result<Equilibrium, EquilibriumError> {
    check_conservative(sys, t, q0)?;
    let refused = RefCell::new(None);
    let (problem, z0) = Reduced::new(sys, t, q0, settings, &refused);
    let solver = LBFGS::new(HagerZhangLineSearch::new(), 10)
        .with_tolerance_grad(settings.tolerance)
        .and_then(|s| s.with_tolerance_cost(0.0))
        .map_err(|e| not_converged(0, f64::NAN, e.to_string()))?;
    let result = Executor::new(problem, solver)
        .configure(|s| s.param(z0).max_iters(settings.max_iterations as u64))
        .run()
        .map_err(|e| not_converged(0, f64::NAN, e.to_string()))?;
    let state = result.state();
    let iterations = state.get_iter() as usize;
    if let Some(why) = refused.borrow().clone() {
        return Err(not_converged(iterations, f64::NAN, why));
    }
    // The last iterate, not the "best" by cost: near the minimum the costs agree to rounding and
    // only the gradient tells the iterates apart.
    let z_best = state
        .get_param()
        .cloned()
        .ok_or_else(|| not_converged(iterations, f64::NAN, "no iterate".into()))?;
    let q = result
        .problem
        .problem
        .as_ref()
        .expect("the executor returns its problem")
        .close(&z_best)
        .map_err(|e| not_converged(iterations, f64::NAN, e.to_string()))?;
    let gradient = result
        .problem
        .problem
        .as_ref()
        .expect("the executor returns its problem")
        .reduced_gradient(&q);
    let norm = gradient.iter().fold(0.0_f64, |a, g| a.max(g.abs()));
    if norm > settings.tolerance {
        return Err(not_converged(
            iterations,
            norm,
            format!("L-BFGS stopped ({:?})", state.get_termination_reason()),
        ));
    }
    let found = finish(sys, t, &q, iterations, settings.rank_tol);
    if found.stability.verdict == "unstable" {
        // L-BFGS stops wherever the gradient vanishes; a start on a maximum or saddle stays there.
        return Err(not_converged(
            iterations,
            norm,
            "it stopped at a stationary point that is not a minimum (the start is a maximum or a saddle of the potential); move the start away from it".into(),
        ));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::simulation::assembled;
    use crate::model::parse;

    fn linkage() -> crate::system::planar::PlanarSystem {
        let ex = crate::examples::find("spring-linkage").expect("embedded");
        let model = parse::from_str_with_overrides(ex.text, ex.file, &[]).expect("valid");
        crate::system::planar::PlanarSystem::new(&model).expect("valid")
    }

    #[test]
    fn reduced_gradient_matches_finite_differences() {
        let ex = crate::examples::find("spring-linkage").expect("embedded");
        let model = parse::from_str_with_overrides(ex.text, ex.file, &[]).expect("valid");
        let sys = linkage();
        let (x0, _) = assembled(&model, &sys).expect("assembles");
        let (n, m) = (sys.n(), sys.m());
        let mut jac = Matrix::zeros(m, n);
        sys.constraint_jacobian(0.0, &x0.q, 1.0, &mut jac);
        let (_, basis) = null_space(&jac, 1e-9);
        let z = independent_coordinates(&basis);
        assert_eq!(z.len(), 1);
        let u: Vec<usize> = (0..n).filter(|i| !z.contains(i)).collect();
        let p = Reduced {
            sys: &sys,
            t: 0.0,
            z: z.clone(),
            u,
            settings: StaticSettings::default(),
            q: RefCell::new(x0.q.clone()),
            evaluations: std::cell::Cell::new(0),
            refused: &RefCell::new(None),
        };
        let z0 = x0.q[z[0]];
        let g = p.gradient(&vec![z0]).expect("closes")[0];
        let h = 1e-6;
        let fd = (p.cost(&vec![z0 + h]).expect("closes") - p.cost(&vec![z0 - h]).expect("closes"))
            / (2.0 * h);
        assert!(
            (g - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "gradient {g} vs {fd}"
        );
    }
}
