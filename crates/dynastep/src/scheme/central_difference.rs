//! The central-difference method, classical and reformulated, and its third-degree generalization
//! G3(α, β), from Fernández de Bustos, Uriarte, Urkullu & Coria (2024), *A Family of Conditionally
//! Explicit Methods for Second-Order ODEs and DAEs*, Mathematics 12:2862, sections 2–4.
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
//! * **Third degree G3(α, β)** (`g3`, section 4, eqs. 15–16): the reformulated history with
//!   v_n = v_{n−1} + h (β a_n + (1 − β) a_{n−1}) and
//!   x_{n+1} = x_n + h v_n + (h²/2)(α a_n + (1 − α) a_{n−1}), so v̂ = v_{n−1} + h (1 − β) a_{n−1},
//!   c_v = h β, q̂_c = x_n + h v̂ + (h²/2)(1 − α) a_{n−1}, c_c = h² (β + α/2). G3(1, ½) is the
//!   reformulated method, operation for operation. Second order for β = ½, first otherwise (§4.1,
//!   eq. 28); α = 4/3 with β = ½ removes the third-order term of the position error (eq. 33). The
//!   undamped limit follows from the characteristic polynomial (eq. 38): Ω_crit = 2 for (1, ½),
//!   √(12/5) = 1.549 for (4/3, ½), √(4/3) = 1.155 for (2, ½) (Table 3).
//! * **Compensated sums** (the (x, v, a) forms): x_{n+1} = x_n + Δx and v_n = v_{n−1} + Δv are
//!   accumulated with Kahan's compensation, so that the rounding of 10⁷ or more additions does not
//!   accumulate (it set a floor of 2e-10 J on the pendulum's energy drift at h = 1e-6; compensated,
//!   the drift follows the h² law down to 1e-8). The classical form keeps its plain differences: its
//!   cancellation is what section 3 demonstrates.
//! * **First step** (all, eq. 7): v_0 is known, so v_e = v_0 (c_v = 0) and
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
//! Properties: second order; for the undamped oscillator stable for Ω = ωh < 2 (it is
//! Newmark with β = 0, γ = ½, and Newmark's limit is Ω_crit = 1/√(γ/2 − β)), relative frequency error +Ω²/24; no numerical damping.

use super::registry::{ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, History, IntegrationPoint, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// The central-difference scheme (see the module documentation).
///
/// History (two levels): `levels[0]` holds the newest positions x_n at t_n (its v, a, λ are not known
/// yet and hold the values of t_{n−1}, except right after a start, when the level is the complete
/// initial state); `levels[1]` is the complete state at t_{n−1}, the newest one reported.
#[derive(Debug, Clone)]
pub struct CentralDifference {
    form: Form,
    history: History,
    t_n: f64,
    h: f64,
    v_hat: Vector,
    qc_hat: Vector,
    c_v: f64,
    c_c: f64,
    new_a: Vector,
    new_lambda: Vector,
    /// Compensations (Kahan 1965) of the running sums x and v of the (x, v, a) forms: the rounding
    /// lost by each update, fed back into the next (n each).
    comp_x: Vector,
    comp_v: Vector,
}

/// Which member of the family.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// Eqs. 4–7: positions stored, v and a by differences.
    Classical,
    /// G3(α, β), eqs. 15–16; `registered` tells the reformulated method (α = 1, β = ½, no
    /// parameters) from the `g3` entry.
    ThirdDegree {
        alpha: f64,
        beta: f64,
        registered: &'static SchemeInfo,
    },
}

impl CentralDifference {
    /// The classical (`reformulated = false`, eqs. 4–7) or the reformulated (eqs. 9 and 12) method.
    pub fn new(reformulated: bool) -> Self {
        if reformulated {
            Self::with_form(Form::ThirdDegree {
                alpha: 1.0,
                beta: 0.5,
                registered: &REFORMULATED,
            })
        } else {
            Self::with_form(Form::Classical)
        }
    }

    /// The third-degree method G3(α, β) (section 4, eqs. 15–16).
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when α or β is not finite, or β + α/2 ≤ 0 (then x_{n+1} does not
    /// depend on a_n, and neither the constraints nor a force can determine it).
    pub fn third_degree(alpha: f64, beta: f64) -> Result<Self, SchemeError> {
        if !alpha.is_finite() {
            return Err(SchemeError::out_of_range(
                G3.name,
                "alpha",
                alpha,
                "α must be finite",
            ));
        }
        if !(beta.is_finite() && beta + 0.5 * alpha > 0.0) {
            return Err(SchemeError::out_of_range(
                G3.name,
                "beta",
                beta,
                "β must be finite with β + α/2 > 0: otherwise x(t + h) does not depend on the acceleration solved at t",
            ));
        }
        Ok(Self::with_form(Form::ThirdDegree {
            alpha,
            beta,
            registered: &G3,
        }))
    }

    fn with_form(form: Form) -> Self {
        let z = Vector::zeros(0);
        CentralDifference {
            form,
            history: History::new(2, &[]),
            t_n: 0.0,
            h: 0.0,
            v_hat: z.clone(),
            qc_hat: z.clone(),
            c_v: 0.0,
            c_c: 0.0,
            new_a: z.clone(),
            new_lambda: z.clone(),
            comp_x: z.clone(),
            comp_v: z,
        }
    }

    /// True on the first step, eq. (7): the history is the complete initial state.
    fn first(&self) -> bool {
        self.history.filled < 2
    }
}

impl Scheme for CentralDifference {
    fn name(&self) -> &'static str {
        match self.form {
            Form::Classical => CLASSICAL.name,
            Form::ThirdDegree { registered, .. } => registered.name,
        }
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        match self.form {
            Form::ThirdDegree {
                alpha,
                beta,
                registered,
            } if registered.name == G3.name => vec![("alpha", alpha), ("beta", beta)],
            _ => Vec::new(),
        }
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        if self.v_hat.len() != n || self.new_lambda.len() != m {
            self.v_hat = Vector::zeros(n);
            self.qc_hat = Vector::zeros(n);
            self.new_a = Vector::zeros(n);
            self.new_lambda = Vector::zeros(m);
            self.comp_x = Vector::zeros(n);
            self.comp_v = Vector::zeros(n);
        }
        self.comp_x.fill(0.0);
        self.comp_v.fill(0.0);
        self.new_a.copy_from(&x0.a);
        self.new_lambda.copy_from(&x0.lambda);
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let h = self.h;
        let first = self.first();
        let x = &self.history.levels[0].q;
        let old = &self.history.levels[1];
        let n = x.len();
        if first {
            // Eq. (7): v_0 known.
            let v0 = &self.history.levels[0].v;
            self.c_v = 0.0;
            self.c_c = 0.5 * h * h;
            for i in 0..n {
                self.v_hat[i] = v0[i];
                self.qc_hat[i] = x[i] + h * v0[i];
            }
        } else if let Form::ThirdDegree { alpha, beta, .. } = self.form {
            // Eqs. (16) and (15); (12) and (9) for α = 1, β = ½.
            self.c_v = h * beta;
            self.c_c = h * h * (beta + 0.5 * alpha);
            let (wv, wq) = (h * (1.0 - beta), 0.5 * h * h * (1.0 - alpha));
            for i in 0..n {
                let vh = old.v[i] + wv * old.a[i];
                self.v_hat[i] = vh;
                self.qc_hat[i] = x[i] + h * vh + wq * old.a[i];
            }
        } else {
            // Eqs. (4)-(6).
            self.c_v = 0.5 * h;
            self.c_c = h * h;
            for i in 0..n {
                self.v_hat[i] = (x[i] - old.q[i]) / h;
                self.qc_hat[i] = 2.0 * x[i] - old.q[i];
            }
        }
        pt.t_e = self.t_n;
        pt.t_c = self.t_n + h;
        pt.q_hat.copy_from(x);
        pt.v_hat.copy_from(&self.v_hat);
        pt.a_hat.fill(0.0);
        pt.qc_hat.copy_from(&self.qc_hat);
        pt.c_q = 0.0;
        pt.c_v = self.c_v;
        pt.c_a = 1.0;
        pt.c_c = self.c_c;
        pt.force_weight = 1.0;
        pt.has_history_residual = false;
        // Newton starts from the last solution (a_{n−1}, λ_{n−1}), which levels[0] holds.
        pt.u_guess.copy_from(&self.history.levels[0].a);
        pt.lambda_guess.copy_from(&self.history.levels[0].lambda);
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_a.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
    }

    fn end_step(&mut self, state: &mut State) {
        let h = self.h;
        let first = self.first();
        let stores_rates = !matches!(self.form, Form::Classical);
        let hist = &mut self.history;
        // levels[0] (x_n) becomes the complete level t_n; the stale oldest buffer receives x_{n+1}.
        hist.shift();
        let (newest, rest) = hist.levels.split_at_mut(1);
        let (next, x) = (&mut newest[0], &mut rest[0]);
        if let (Form::ThirdDegree { alpha, beta, .. }, false) = (self.form, first) {
            // Eqs. (16) and (15) as compensated sums: v and x change by O(h) of their size per
            // step, and plain additions lose about an ulp of x and v each step (10⁷ ulps at
            // h = 1e-6 over 10 s). The formulation's solution u is the same; only the sums differ.
            for i in 0..x.q.len() {
                let (u, a_old) = (self.new_a[i], x.a[i]);
                let dv = h * (beta * u + (1.0 - beta) * a_old);
                let v = compensated_add(x.v[i], dv, &mut self.comp_v[i]);
                let dx = h * v + 0.5 * h * h * (alpha * u + (1.0 - alpha) * a_old);
                let x_next = compensated_add(x.q[i], dx, &mut self.comp_x[i]);
                x.v[i] = v;
                x.a[i] = u;
                next.q[i] = x_next;
                next.v[i] = v;
                next.a[i] = u;
            }
        }
        for i in 0..x.q.len() {
            if stores_rates && !first {
                break;
            }
            let u = self.new_a[i];
            let x_next = self.qc_hat[i] + self.c_c * u;
            let (v, a) = if first || stores_rates {
                (self.v_hat[i] + self.c_v * u, u)
            } else {
                // Eqs. (4) and (5) on the stored positions; `next.q` still holds x_{n−1}.
                (
                    (x_next - next.q[i]) / (2.0 * h),
                    (x_next - 2.0 * x.q[i] + next.q[i]) / (h * h),
                )
            };
            x.v[i] = v;
            x.a[i] = a;
            next.q[i] = x_next;
            next.v[i] = v;
            next.a[i] = u;
        }
        x.t = self.t_n;
        x.lambda.copy_from(&self.new_lambda);
        next.lambda.copy_from(&self.new_lambda);
        next.t = self.t_n + h;
        hist.h = h;
        state.copy_from(&hist.levels[1]);
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}

/// `sum + increment` by Kahan's compensated summation: `comp` carries the rounding lost by the
/// previous additions to this sum and receives that of this one.
pub(crate) fn compensated_add(sum: f64, increment: f64, comp: &mut f64) -> f64 {
    let y = increment - *comp;
    let t = sum + y;
    *comp = (t - sum) - y;
    t
}

/// Fixed steps only (the classical form's differences and eq. 7's start assume a constant h); no
/// error estimate; works with the index-3 formulation (constraints on the next positions).
const CAPS: Capabilities = Capabilities {
    order: 2,
    explicit_in_positions: true,
    unconditionally_stable: false,
    error_estimate: None,
    error_order: 0,
    variable_step: false,
    form: EquationForm::SecondOrder,
    estimate_noise: 0.0,
};

const SOURCE: &str = "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862";

/// The classical central-difference method, eqs. (4)–(7).
pub const CLASSICAL: SchemeInfo = SchemeInfo {
    name: "central-difference",
    aliases: &["central-differences", "cd"],
    family: "conditionally explicit",
    summary: "classical central differences (positions stored; v and a by differences, which cancel at small steps); second order, stable for Omega < 2; state reported one step behind the newest positions",
    source: "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862, eqs. 4-7, constraints as in eqs. 84-90",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(CentralDifference::new(false)) as Box<dyn Scheme>),
    caps: CAPS,
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
    caps: CAPS,
};

/// G3(α, β), the third-degree member of the family (section 4). Defaults: α = 4/3, β = ½, the set
/// whose position error is of fourth order (eq. 33; Table 2's middle column).
pub const G3: SchemeInfo = SchemeInfo {
    name: "g3",
    aliases: &["third-degree", "g3-central-difference"],
    family: "conditionally explicit",
    summary: "third-degree conditionally explicit method G3(alpha, beta), central differences generalized with the acceleration of two steps; beta = 1/2 second order; Omega_crit 2 (alpha = 1), 1.549 (4/3), 1.155 (2)",
    source: "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862, section 4, eqs. 15-16, 37-38, Tables 2-3; constraints as in eqs. 84-90",
    params: &[
        ParamInfo {
            name: "alpha",
            default: 4.0 / 3.0,
            description: "weight of a(t) in x(t + h), eq. 15 (1: reformulated central differences; 4/3: fourth-order position error; 2: the paper's most accurate set on the pendulum)",
        },
        ParamInfo {
            name: "beta",
            default: 0.5,
            description: "weight of a(t) in v(t), eq. 16 (1/2: second order; other values first order); beta + alpha/2 > 0",
        },
    ],
    build: |p: &SchemeParams| -> Result<Box<dyn Scheme>, SchemeError> {
        Ok(Box::new(CentralDifference::third_degree(p["alpha"], p["beta"])?))
    },
    caps: CAPS,
};
