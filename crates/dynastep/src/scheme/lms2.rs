//! LMS2: the linear two-step method with tunable algorithmic dissipation, Zhang, Zhang, Zanoni &
//! Masarati (2022), *Performance of implicit A-stable time integration methods for multibody system
//! dynamics*, Multibody Syst Dyn (shared/seeds/002_8a8e59317f5bc96d.txt), eq. (2) with k = 2; the
//! coefficients are those of shared/reference/integrators.md §1.1.
//!
//! The method is applied to the first-order form y = \[q; v\], ẏ = \[v; a\]:
//!
//! ```text
//! v_{n+1} = a1 v_n + a2 v_{n−1} + h (b0 a_{n+1} + b1 a_n + b2 a_{n−1})
//! q_{n+1} = a1 q_n + a2 q_{n−1} + h (b0 v_{n+1} + b1 v_n + b2 v_{n−1})
//! a1 = 4(1 − ρ)/(3 − ρ),  a2 = (3ρ − 1)/(3 − ρ),  (b0, b1, b2) = 2 (1, 2ρ, ρ²)/((1 + ρ)(3 − ρ))
//! ```
//!
//! with ρ = ρ∞. The unknown of the (single) integration point is u = a_{n+1}; the maps are affine with
//! c_v = h b0 and c_q = (h b0)². The equilibrium and the position constraints are imposed at t_{n+1};
//! λ is algebraic there (it has no history). The first step uses the trapezoidal rule, eq. (3)
//! (a1 = 1, a2 = 0, b = (½, ½, 0)). Newton starts from the explicit second-order predictor of
//! eqs. (12)–(14) at constant step (α = 1: m0 = −12, m1 = 12, n0 = 8, n1 = 5) applied to the
//! velocity level, a⁽⁰⁾ = (m0 v_n + m1 v_{n−1})/h + n0 a_n + n1 a_{n−1}; λ starts from its linear
//! extrapolation 2λ_n − λ_{n−1}. On the first step both start from their values at t_n (eq. 15).
//!
//! Properties (integrators.md §1.1, §8): second order, A-stable for 0 ≤ ρ∞ ≤ 1, every root of the
//! characteristic polynomial tends to −ρ∞ as Ωh → ∞; ρ∞ = 0 is BDF2. At ρ∞ = 1 the method
//! degenerates to the trapezoidal rule with a parasitic root at −1.

use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{IntegrationPoint, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// The LMS2 coefficients (a1, a2, b0, b1, b2) for spectral radius at infinity ρ∞ (integrators.md
/// §1.1; MSD22 eq. 2).
pub fn lms2_coefficients(rho_inf: f64) -> [f64; 5] {
    let r = rho_inf;
    let d = 3.0 - r;
    let s = 2.0 / ((1.0 + r) * d);
    [
        4.0 * (1.0 - r) / d,
        (3.0 * r - 1.0) / d,
        s,
        s * 2.0 * r,
        s * r * r,
    ]
}

/// The LMS2 scheme (see the module documentation). History: (q, v, a, λ) at t_n and t_{n−1}.
#[derive(Debug, Clone)]
pub struct Lms2 {
    rho_inf: f64,
    coef: [f64; 5],
    h: f64,
    t0: f64,
    steps: u64,
    // Level n (newest) and n − 1.
    q: Vector,
    v: Vector,
    a: Vector,
    lambda: Vector,
    q_old: Vector,
    v_old: Vector,
    a_old: Vector,
    lambda_old: Vector,
    // Known parts of the current point, and its solution.
    q_hat: Vector,
    v_hat: Vector,
    c_q: f64,
    c_v: f64,
    new_a: Vector,
    new_lambda: Vector,
}

impl Lms2 {
    /// LMS2 with spectral radius at infinity ρ∞.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\].
    pub fn new(rho_inf: f64) -> Result<Self, SchemeError> {
        SchemeError::check_rho_inf(INFO.name, rho_inf)?;
        let z = Vector::zeros(0);
        Ok(Lms2 {
            rho_inf,
            coef: lms2_coefficients(rho_inf),
            h: 0.0,
            t0: 0.0,
            steps: 0,
            q: z.clone(),
            v: z.clone(),
            a: z.clone(),
            lambda: z.clone(),
            q_old: z.clone(),
            v_old: z.clone(),
            a_old: z.clone(),
            lambda_old: z.clone(),
            q_hat: z.clone(),
            v_hat: z.clone(),
            c_q: 0.0,
            c_v: 0.0,
            new_a: z.clone(),
            new_lambda: z,
        })
    }

    /// Coefficients of the current step: the trapezoidal start-up (eq. 3) on the first step.
    fn step_coefficients(&self) -> [f64; 5] {
        if self.steps == 0 {
            [1.0, 0.0, 0.5, 0.5, 0.0]
        } else {
            self.coef
        }
    }
}

impl Scheme for Lms2 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        let [a1, a2, b0, b1, b2] = self.coef;
        vec![
            ("rho_inf", self.rho_inf),
            ("a1", a1),
            ("a2", a2),
            ("b0", b0),
            ("b1", b1),
            ("b2", b2),
        ]
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, h: f64, x0: &State, _force_terms: &Vector) {
        let n = x0.q.len();
        self.h = h;
        self.t0 = x0.t;
        self.steps = 0;
        self.q = x0.q.clone();
        self.v = x0.v.clone();
        self.a = x0.a.clone();
        self.lambda = x0.lambda.clone();
        self.q_old = x0.q.clone();
        self.v_old = x0.v.clone();
        self.a_old = x0.a.clone();
        self.lambda_old = x0.lambda.clone();
        self.q_hat = Vector::zeros(n);
        self.v_hat = Vector::zeros(n);
        self.new_a = x0.a.clone();
        self.new_lambda = x0.lambda.clone();
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let h = self.h;
        let [a1, a2, b0, b1, b2] = self.step_coefficients();
        self.c_v = h * b0;
        self.c_q = self.c_v * self.c_v;
        for i in 0..self.q.len() {
            let vh =
                a1 * self.v[i] + a2 * self.v_old[i] + h * (b1 * self.a[i] + b2 * self.a_old[i]);
            self.v_hat[i] = vh;
            self.q_hat[i] = a1 * self.q[i]
                + a2 * self.q_old[i]
                + h * (b1 * self.v[i] + b2 * self.v_old[i])
                + h * b0 * vh;
        }
        pt.t_e = self.t0 + (self.steps + 1) as f64 * h;
        pt.t_c = pt.t_e;
        pt.q_hat.copy_from(&self.q_hat);
        pt.v_hat.copy_from(&self.v_hat);
        pt.a_hat.fill(0.0);
        pt.qc_hat.copy_from(&self.q_hat);
        pt.c_q = self.c_q;
        pt.c_v = self.c_v;
        pt.c_a = 1.0;
        pt.c_c = self.c_q;
        pt.force_weight = 1.0;
        pt.has_history_residual = false;
        if self.steps == 0 {
            // Constant prediction, eq. (15).
            pt.u_guess.copy_from(&self.a);
            pt.lambda_guess.copy_from(&self.lambda);
        } else {
            // Second-order prediction, eqs. (12)-(14) with α = 1.
            let (m0, m1, n0, n1) = (-12.0, 12.0, 8.0, 5.0);
            for i in 0..self.q.len() {
                pt.u_guess[i] =
                    (m0 * self.v[i] + m1 * self.v_old[i]) / h + n0 * self.a[i] + n1 * self.a_old[i];
            }
            for j in 0..self.lambda.len() {
                pt.lambda_guess[j] = 2.0 * self.lambda[j] - self.lambda_old[j];
            }
        }
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_a.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
    }

    fn end_step(&mut self, state: &mut State) {
        // Shift level n to n − 1, then write the new level n.
        std::mem::swap(&mut self.q, &mut self.q_old);
        std::mem::swap(&mut self.v, &mut self.v_old);
        std::mem::swap(&mut self.a, &mut self.a_old);
        std::mem::swap(&mut self.lambda, &mut self.lambda_old);
        for i in 0..self.q.len() {
            let u = self.new_a[i];
            self.q[i] = self.q_hat[i] + self.c_q * u;
            self.v[i] = self.v_hat[i] + self.c_v * u;
            self.a[i] = u;
        }
        self.lambda.copy_from(&self.new_lambda);
        self.steps += 1;
        state.t = self.t0 + self.steps as f64 * self.h;
        state.q.copy_from(&self.q);
        state.v.copy_from(&self.v);
        state.a.copy_from(&self.a);
        state.lambda.copy_from(&self.lambda);
    }
}

/// Registry entry.
pub const INFO: SchemeInfo = SchemeInfo {
    name: "lms2",
    aliases: &["lms-2", "ms2"],
    family: "linear multistep",
    summary: "linear two-step method with tunable rho_inf in first-order form y = [q; v]; second order, A-stable, all roots -> -rho_inf at infinity; trapezoidal first step",
    source: "Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, eqs. 2, 3, 12-14 (shared/seeds/002_8a8e59317f5bc96d.txt); coefficients integrators.md §1.1",
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (0: BDF2; 1: degenerate, trapezoidal with a parasitic root at −1)",
    }],
    build: |p: &SchemeParams| Ok(Box::new(Lms2::new(param(p, "rho_inf"))?) as Box<dyn Scheme>),
};
