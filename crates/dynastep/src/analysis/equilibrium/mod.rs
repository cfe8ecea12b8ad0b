//! Equilibrium analysis: the rest configuration of a mechanism under its applied loads, by the three
//! methods of Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.5:
//!
//! - [`settle`]: integrate the equations of motion with added artificial damping until ‖v‖ and ‖a‖
//!   fall below tolerances;
//! - [`newton`]: Newton's method on the equilibrium equations Φ_qᵀλ = Q(q, 0, t₀), Φ(q, t₀) = 0;
//! - [`potential`]: minimum total potential energy over the independent coordinates (conservative
//!   models), with the influence-coefficient gradient and L-BFGS.
//!
//! Whatever the method, the result is finished the same way ([`finish`]): the multipliers (reactions)
//! from Φ_qᵀλ = Q in the least-squares sense, the residual ‖Φ_qᵀλ − Q‖∞, and the stability of the
//! configuration from the reduced stiffness on the tangent space,
//!
//! ```text
//! K = −∂Q/∂q + ∂(Φ_qᵀλ)/∂q      (n × n, the Hessian of V + λᵀΦ for a conservative model)
//! K_r = Nᵀ K N                  (f × f, N an orthonormal basis of the null space of Φ_q)
//! ```
//!
//! The equilibrium is stable when K_r is positive definite (a strict minimum of the potential on the
//! constraint manifold), unstable when it has a negative eigenvalue. The eigenvalues mix units
//! (N/m and N m/rad) but their signs do not depend on the basis (Sylvester's law of inertia).
//! Time-dependent drivers and loads are frozen at t₀.

pub mod newton;
pub mod potential;
pub mod settle;

use crate::linalg::null_space::null_space;
use crate::linalg::{Matrix, Vector};
use crate::scheme::State;
use crate::system::System;

/// The three methods (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EquilibriumMethod {
    /// Dynamic settling with artificial damping.
    Settle,
    /// Newton's method on the equilibrium equations.
    Newton,
    /// Minimum total potential energy.
    Potential,
}

impl EquilibriumMethod {
    /// All methods, for listings.
    pub const ALL: [EquilibriumMethod; 3] = [
        EquilibriumMethod::Settle,
        EquilibriumMethod::Newton,
        EquilibriumMethod::Potential,
    ];

    /// The name used on the command line and in `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            EquilibriumMethod::Settle => "settle",
            EquilibriumMethod::Newton => "newton",
            EquilibriumMethod::Potential => "potential",
        }
    }

    /// The method called `name`.
    ///
    /// # Errors
    /// [`EquilibriumError::NotApplicable`] listing the methods when `name` is unknown.
    pub fn parse(name: &str) -> Result<Self, EquilibriumError> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                EquilibriumError::NotApplicable(format!(
                    "unknown equilibrium method `{name}`; methods: settle, newton, potential"
                ))
            })
    }
}

/// Settings of the static methods (defaults in brackets).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StaticSettings {
    /// Tolerance on the residual ‖Φ_qᵀλ − Q‖∞ (Newton) or the reduced gradient (potential) and on
    /// ‖Φ‖∞ \[1e-10, N, N m, m, rad\].
    pub tolerance: f64,
    /// Largest number of iterations \[200\].
    pub max_iterations: usize,
    /// Singular values at or below `rank_tol · σ_max` count as zero \[1e-9\].
    pub rank_tol: f64,
}

impl Default for StaticSettings {
    fn default() -> Self {
        StaticSettings {
            tolerance: 1e-10,
            max_iterations: 200,
            rank_tol: 1e-9,
        }
    }
}

/// Stability of an equilibrium (see the module documentation).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stability {
    /// `stable` (K_r positive definite), `unstable` (a negative eigenvalue) or `neutral` (smallest
    /// eigenvalue zero to within 1e-9 of the largest).
    pub verdict: &'static str,
    /// Eigenvalues of the reduced stiffness K_r, ascending (f entries, f the degrees of freedom).
    pub eigenvalues: Vec<f64>,
}

/// An equilibrium found by any method.
#[derive(Debug, Clone, PartialEq)]
pub struct Equilibrium {
    /// The configuration: t = t₀, q (n), v = a = 0, λ (m) with Φ_qᵀλ = Q.
    pub state: State,
    /// ‖Φ_qᵀλ − Q(q, 0, t₀)‖∞ at the result \[N, N m\].
    pub residual: f64,
    /// ‖Φ(q, t₀)‖∞ at the result \[m, rad\].
    pub constraint_violation: f64,
    /// Iterations of the method (Newton or L-BFGS iterations, or time steps of settling).
    pub iterations: usize,
    /// Stability of the configuration.
    pub stability: Stability,
}

/// Why an equilibrium analysis failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EquilibriumError {
    /// The iteration did not reach the tolerance.
    #[error("{method}: no equilibrium found after {iterations} iterations (residual {residual:.3e}); {hint}")]
    NotConverged {
        /// Method name.
        method: &'static str,
        /// Iterations done.
        iterations: usize,
        /// Last residual.
        residual: f64,
        /// What to try.
        hint: String,
    },
    /// The method does not apply to this model.
    #[error("{0}")]
    NotApplicable(String),
    /// A signal (Ctrl-C, SIGTERM) ended the settling run at a step boundary.
    #[error("settle: interrupted at t = {at} s before the motion died out")]
    Interrupted {
        /// Time of the last committed step \[s\].
        at: f64,
    },
}

/// The residual Φ_qᵀλ − Q(q, 0, t) (n entries) into `out`.
pub(crate) fn residual<S: System>(sys: &S, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
    let v = Vector::zeros(sys.n());
    sys.forces(t, q, &v, out);
    out.neg_mut();
    if sys.m() > 0 {
        sys.add_constraint_force(t, q, lambda, out);
    }
}

/// The tangent stiffness K = −∂Q/∂q + ∂(Φ_qᵀλ)/∂q at rest (n × n).
pub(crate) fn stiffness<S: System>(sys: &S, t: f64, q: &Vector, lambda: &Vector) -> Matrix {
    let n = sys.n();
    let mut k = Matrix::zeros(n, n);
    sys.forces_q(t, q, &Vector::zeros(n), -1.0, &mut k);
    if sys.m() > 0 {
        sys.constraint_force_q(t, q, lambda, 1.0, &mut k);
    }
    k
}

/// The multipliers that balance the applied forces at q, least squares (minimum norm) in
/// Φ_qᵀλ = Q(q, 0, t).
pub(crate) fn balancing_multipliers<S: System>(sys: &S, t: f64, q: &Vector) -> Vector {
    let (n, m) = (sys.n(), sys.m());
    if m == 0 {
        return Vector::zeros(0);
    }
    let mut jt = Matrix::zeros(n, m);
    sys.constraint_jacobian(
        t,
        q,
        1.0,
        &mut crate::linalg::Block {
            inner: &mut jt,
            row: 0,
            col: 0,
            scale: 1.0,
            transpose: true,
        },
    );
    let mut f = Vector::zeros(n);
    sys.forces(t, q, &Vector::zeros(n), &mut f);
    let svd = jt.svd(true, true);
    let tol = 1e-12 * svd.singular_values.max();
    svd.solve(&f, tol).expect("U and Vᵀ were computed")
}

/// The stability of the equilibrium (q, λ) from the reduced stiffness.
pub fn stability<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    lambda: &Vector,
    rank_tol: f64,
) -> Stability {
    let (n, m) = (sys.n(), sys.m());
    let mut jac = Matrix::zeros(m, n);
    sys.constraint_jacobian(t, q, 1.0, &mut jac);
    let (_, basis) = null_space(&jac, rank_tol);
    let k = stiffness(sys, t, q, lambda);
    let kr = basis.transpose() * k * &basis;
    let kr = (&kr + kr.transpose()) * 0.5;
    let mut eigenvalues: Vec<f64> = kr.symmetric_eigenvalues().iter().copied().collect();
    eigenvalues.sort_by(f64::total_cmp);
    let largest = eigenvalues.iter().fold(0.0_f64, |a, e| a.max(e.abs()));
    let smallest = eigenvalues.first().copied().unwrap_or(0.0);
    let verdict = if eigenvalues.is_empty() {
        // No degree of freedom: nothing can move.
        "stable"
    } else if smallest.abs() <= 1e-9 * largest {
        "neutral"
    } else if smallest > 0.0 {
        "stable"
    } else {
        "unstable"
    };
    Stability {
        verdict,
        eigenvalues,
    }
}

/// Completes an equilibrium configuration q at time t found by any method: multipliers, residuals
/// and stability.
pub fn finish<S: System>(
    sys: &S,
    t: f64,
    q: &Vector,
    iterations: usize,
    rank_tol: f64,
) -> Equilibrium {
    let (n, m) = (sys.n(), sys.m());
    let lambda = balancing_multipliers(sys, t, q);
    let mut r = Vector::zeros(n);
    residual(sys, t, q, &lambda, &mut r);
    let mut phi = Vector::zeros(m);
    sys.constraints(t, q, &mut phi);
    let mut state = State::zeros(t, n, m);
    state.q.copy_from(q);
    state.lambda.copy_from(&lambda);
    Equilibrium {
        residual: r.amax(),
        constraint_violation: if m > 0 { phi.amax() } else { 0.0 },
        iterations,
        stability: stability(sys, t, q, &lambda, rank_tol),
        state,
    }
}
