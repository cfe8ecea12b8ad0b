//! The central-difference method, classical and reformulated, from Fernández de Bustos, Uriarte,
//! Urkullu & Coria (2024), *A Family of Conditionally Explicit Methods for Second-Order ODEs and DAEs*,
//! Mathematics 12:2862 (shared/seeds/000_32f3502d8492161e.txt), sections 2 and 3.
//!
//! # One integration point per step, positions known
//! At step n the positions x_n are known and the equilibrium is solved at t_n for u = a_n (the
//! acceleration at t_n) and λ_n; the constraints are imposed on the *next* positions x_{n+1}
//! (as in eqs. 84–90 of the paper, for the second-degree member of the family):
//!
//! ```text
//! q_e = x_n (c_q = 0),   v_e = v̂ + c_v u,   a_e = u,   q_c = x_{n+1} = q̂_c + c_c u,  t_c = t_n + h
//! M(x_n) a_n + Φ_q(x_n)ᵀ λ_n = Q(x_n, v_n, t_n),   Φ(x_{n+1}, t_n + h) = 0
//! ```
//!
//! * **Classical** (`central-difference`, eqs. 4–7): the history is positions only. Eq. (6) solved
//!   for x_{n+1} is x_{n+1} = 2x_n − x_{n−1} + h² a_n, and the velocity in it is eq. (4),
//!   v_n = (x_{n+1} − x_{n−1})/(2h) = (x_n − x_{n−1})/h + (h/2) a_n, so v̂ = (x_n − x_{n−1})/h,
//!   c_v = h/2, q̂_c = 2x_n − x_{n−1}, c_c = h². The reported v_n and a_n are eqs. (4) and (5) evaluated
//!   on the stored positions after the step, with their cancellation for small h.
//! * **Reformulated** (`central-difference-reformulated`, eqs. 9 and 12, section 3): the history is
//!   (x_n, v_{n−1}, a_{n−1}); v_n = v_{n−1} + (h/2)(a_{n−1} + a_n) (eq. 12) and
//!   x_{n+1} = x_n + h v_n + (h²/2) a_n (eq. 9), so v̂ = v_{n−1} + (h/2) a_{n−1}, c_v = h/2,
//!   q̂_c = x_n + h v̂, c_c = h². No differences of nearby positions are formed.
//! * **First step** (both, eq. 7): v_0 is known, so v_e = v_0 (c_v = 0) and
//!   x_1 = x_0 + h v_0 + (h²/2) a_0 (q̂_c = x_0 + h v_0, c_c = h²/2).
//!
//! The formulation does one linear solve when the system has no constraints and its forces do not
//! depend on velocity, and a Newton iteration otherwise, judging convergence on c_c Δu, the change of
//! x_{n+1}. No drift stabilization is applied: the constraints hold at every x_n, the hidden
//! constraints only to O(h²).
//!
//! # Reported state
//! The state at t_n is complete (v_n, a_n, λ_n known) only after the step that computed x_{n+1}, so
//! [`Scheme::end_step`] reports t_n: the first step reports t_0 again (with a_0 and λ_0 from the
//! step), and a run to t_end takes one step more than (t_end − t_0)/h; the last solution has
//! computed x at t_end + h.
//!
//! Properties: second order; for the undamped oscillator stable for Ω = ωh < 2 (integrators.md §6, §7,
//! Newmark with β = 0, γ = ½), relative frequency error +Ω²/24; no numerical damping.

use super::registry::{SchemeError, SchemeInfo, SchemeParams};
use super::{IntegrationPoint, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// The central-difference scheme (see the module documentation).
#[derive(Debug, Clone)]
pub struct CentralDifference {
    reformulated: bool,
    h: f64,
    t0: f64,
    steps: u64,
    /// Positions x_n (the evaluation point of the current step).
    x: Vector,
    /// Positions x_{n−1} (classical).
    x_old: Vector,
    /// Velocity at t_n on the first step (v_0), v_{n−1} afterwards (reformulated).
    v_old: Vector,
    /// Acceleration a_{n−1} (the Newton start; and the history of the reformulated method).
    a_old: Vector,
    lambda_old: Vector,
    v_hat: Vector,
    qc_hat: Vector,
    c_v: f64,
    c_c: f64,
    new_a: Vector,
    new_lambda: Vector,
}

impl CentralDifference {
    /// The classical (`reformulated = false`, eqs. 4–7) or the reformulated (eqs. 9 and 12) method.
    pub fn new(reformulated: bool) -> Self {
        let z = Vector::zeros(0);
        CentralDifference {
            reformulated,
            h: 0.0,
            t0: 0.0,
            steps: 0,
            x: z.clone(),
            x_old: z.clone(),
            v_old: z.clone(),
            a_old: z.clone(),
            lambda_old: z.clone(),
            v_hat: z.clone(),
            qc_hat: z.clone(),
            c_v: 0.0,
            c_c: 0.0,
            new_a: z.clone(),
            new_lambda: z,
        }
    }
}

impl Scheme for CentralDifference {
    fn name(&self) -> &'static str {
        if self.reformulated {
            REFORMULATED.name
        } else {
            CLASSICAL.name
        }
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, h: f64, x0: &State, _force_terms: &Vector) {
        let n = x0.q.len();
        self.h = h;
        self.t0 = x0.t;
        self.steps = 0;
        self.x = x0.q.clone();
        self.x_old = x0.q.clone();
        self.v_old = x0.v.clone();
        self.a_old = x0.a.clone();
        self.lambda_old = x0.lambda.clone();
        self.v_hat = Vector::zeros(n);
        self.qc_hat = Vector::zeros(n);
        self.new_a = x0.a.clone();
        self.new_lambda = x0.lambda.clone();
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let h = self.h;
        let n = self.x.len();
        if self.steps == 0 {
            // Eq. (7): v_0 known.
            self.c_v = 0.0;
            self.c_c = 0.5 * h * h;
            for i in 0..n {
                self.v_hat[i] = self.v_old[i];
                self.qc_hat[i] = self.x[i] + h * self.v_old[i];
            }
        } else if self.reformulated {
            // Eqs. (12) and (9).
            self.c_v = 0.5 * h;
            self.c_c = h * h;
            for i in 0..n {
                let vh = self.v_old[i] + 0.5 * h * self.a_old[i];
                self.v_hat[i] = vh;
                self.qc_hat[i] = self.x[i] + h * vh;
            }
        } else {
            // Eqs. (4)-(6).
            self.c_v = 0.5 * h;
            self.c_c = h * h;
            for i in 0..n {
                self.v_hat[i] = (self.x[i] - self.x_old[i]) / h;
                self.qc_hat[i] = 2.0 * self.x[i] - self.x_old[i];
            }
        }
        let t_n = self.t0 + self.steps as f64 * h;
        pt.t_e = t_n;
        pt.t_c = t_n + h;
        pt.q_hat.copy_from(&self.x);
        pt.v_hat.copy_from(&self.v_hat);
        pt.a_hat.fill(0.0);
        pt.qc_hat.copy_from(&self.qc_hat);
        pt.c_q = 0.0;
        pt.c_v = self.c_v;
        pt.c_a = 1.0;
        pt.c_c = self.c_c;
        pt.force_weight = 1.0;
        pt.has_history_residual = false;
        pt.u_guess.copy_from(&self.a_old);
        pt.lambda_guess.copy_from(&self.lambda_old);
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_a.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
    }

    fn end_step(&mut self, state: &mut State) {
        let h = self.h;
        let first = self.steps == 0;
        state.t = self.t0 + self.steps as f64 * h;
        state.q.copy_from(&self.x);
        for i in 0..self.x.len() {
            let u = self.new_a[i];
            let x_next = self.qc_hat[i] + self.c_c * u;
            let (v, a) = if first || self.reformulated {
                (self.v_hat[i] + self.c_v * u, u)
            } else {
                // Eqs. (4) and (5) on the stored positions.
                (
                    (x_next - self.x_old[i]) / (2.0 * h),
                    (x_next - 2.0 * self.x[i] + self.x_old[i]) / (h * h),
                )
            };
            state.v[i] = v;
            state.a[i] = a;
            self.x_old[i] = self.x[i];
            self.x[i] = x_next;
            self.v_old[i] = v;
            self.a_old[i] = u;
        }
        state.lambda.copy_from(&self.new_lambda);
        self.lambda_old.copy_from(&self.new_lambda);
        self.steps += 1;
    }
}

const SOURCE: &str = "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862 (shared/seeds/000_32f3502d8492161e.txt)";

/// The classical central-difference method, eqs. (4)–(7).
pub const CLASSICAL: SchemeInfo = SchemeInfo {
    name: "central-difference",
    aliases: &["central-differences", "cd"],
    family: "conditionally explicit",
    summary: "classical central differences (positions stored; v and a by differences, which cancel at small steps); second order, stable for Omega < 2; state reported one step behind the newest positions",
    source: "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862, eqs. 4-7, constraints as in eqs. 84-90 (shared/seeds/000_32f3502d8492161e.txt)",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(CentralDifference::new(false)) as Box<dyn Scheme>),
};

/// The reformulated central-difference method, eqs. (9) and (12), which avoids the cancellation.
pub const REFORMULATED: SchemeInfo = SchemeInfo {
    name: "central-difference-reformulated",
    aliases: &["central-differences-reformulated", "cd-reformulated"],
    family: "conditionally explicit",
    summary: "central differences reformulated in (x, v, a) without cancellation (section 3); same solutions as the classical form in exact arithmetic; second order, stable for Omega < 2",
    source: SOURCE,
    params: &[],
    build: |_: &SchemeParams| -> Result<Box<dyn Scheme>, SchemeError> {
        Ok(Box::new(CentralDifference::new(true)))
    },
};
