//! The Newmark family (Newmark 1959) and the single-step second-order machinery shared with
//! generalized-α ([`super::generalized_alpha`]) and HHT-α ([`super::hht`]).
//!
//! Updates (shared/reference/integrators.md §6):
//!
//! ```text
//! q_{n+1} = q_n + h v_n + h² [(½ − β) a_n + β a_{n+1}]
//! v_{n+1} = v_n + h [(1 − γ) a_n + γ a_{n+1}]
//! ```
//!
//! `a` is the auxiliary (pseudo-)acceleration of Arnold & Brüls (2007); it is related to the true
//! acceleration q̈ by `(1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n`. The unknown of the
//! integration point is u = q̈_{n+1}, and the equilibrium
//! `M q̈_{n+1} + w_f (Φ_qᵀλ − Q)_{n+1} + r_h = 0`, `Φ(q_{n+1}) = 0` is imposed at t_{n+1}.
//! Plain Newmark is α_m = α_f = 0 (a = q̈); HHT-α uses α_m = α_f = 0 with w_f = 1 + α and
//! r_h = −α (Φ_qᵀλ − Q)_n (Negrut, Rampalli, Ottarsson & Sajdak 2007, the HHT-I3 form).
//!
//! Stability (linear, undamped): unconditionally stable iff 2β ≥ γ ≥ ½; for β < γ/2 stable up to
//! Ω = ωh = 1/√(γ/2 − β): 2 for central differences (β = 0), √6 for Fox–Goodwin (β = 1/12), 2√3 for
//! linear acceleration (β = 1/6). Second order iff γ = ½.

use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{IntegrationPoint, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// The single-step second-order scheme with Newmark updates, the Arnold–Brüls acceleration filter
/// (α_m, α_f) and the HHT force weighting (α).
#[derive(Debug, Clone)]
pub struct NewmarkFamily {
    name: &'static str,
    reported: Vec<(&'static str, f64)>,
    /// Newmark γ.
    pub gamma: f64,
    /// Newmark β.
    pub beta: f64,
    /// Generalized-α α_m.
    pub alpha_m: f64,
    /// Generalized-α α_f.
    pub alpha_f: f64,
    /// HHT α ∈ \[−⅓, 0\] (0: no force weighting).
    pub alpha_hht: f64,
    h: f64,
    t0: f64,
    t: f64,
    steps: u64,
    q: Vector,
    v: Vector,
    qdd: Vector,
    a: Vector,
    lambda: Vector,
    /// (Φ_qᵀλ − Q) at the current time level, for HHT.
    force_terms: Vector,
    // Newest solution (point 0), kept until end_step.
    new_qdd: Vector,
    new_lambda: Vector,
    new_force_terms: Vector,
}

impl NewmarkFamily {
    /// A member of the family; `name` and `reported` are what reports show.
    ///
    /// # Panics
    /// Never; admissibility of the parameters is checked by the registry constructors.
    pub fn new(
        name: &'static str,
        reported: Vec<(&'static str, f64)>,
        gamma: f64,
        beta: f64,
        alpha_m: f64,
        alpha_f: f64,
        alpha_hht: f64,
    ) -> Self {
        let z = Vector::zeros(0);
        NewmarkFamily {
            name,
            reported,
            gamma,
            beta,
            alpha_m,
            alpha_f,
            alpha_hht,
            h: 0.0,
            t0: 0.0,
            t: 0.0,
            steps: 0,
            q: z.clone(),
            v: z.clone(),
            qdd: z.clone(),
            a: z.clone(),
            lambda: z.clone(),
            force_terms: z.clone(),
            new_qdd: z.clone(),
            new_lambda: z.clone(),
            new_force_terms: z,
        }
    }

    /// Plain Newmark with the given γ and β.
    pub fn newmark(name: &'static str, gamma: f64, beta: f64) -> Self {
        Self::new(
            name,
            vec![("gamma", gamma), ("beta", beta)],
            gamma,
            beta,
            0.0,
            0.0,
            0.0,
        )
    }
}

impl Scheme for NewmarkFamily {
    fn name(&self) -> &'static str {
        self.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        self.reported.clone()
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, h: f64, x0: &State, force_terms0: &Vector) {
        self.h = h;
        self.t0 = x0.t;
        self.t = x0.t;
        self.steps = 0;
        self.q = x0.q.clone();
        self.v = x0.v.clone();
        self.qdd = x0.a.clone();
        // Arnold–Brüls start a_0 = q̈_0 (integrators.md §6 notes this makes a first-order accurate as an
        // approximation of q̈(t_n + (α_m − α_f) h) at the first steps; q stays second order).
        self.a = x0.a.clone();
        self.lambda = x0.lambda.clone();
        self.force_terms = force_terms0.clone();
        self.new_qdd = x0.a.clone();
        self.new_lambda = x0.lambda.clone();
        self.new_force_terms = Vector::zeros(x0.q.len());
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let (h, g, b, am, af) = (self.h, self.gamma, self.beta, self.alpha_m, self.alpha_f);
        let s = 1.0 / (1.0 - am);
        // a_{n+1} = s[(1 − α_f) u + α_f q̈_n − α_m a_n]  =  a_known + s (1 − α_f) u
        // q̂ = q_n + h v_n + h²(½ − β) a_n + h² β a_known
        for i in 0..self.q.len() {
            let a_known = s * (af * self.qdd[i] - am * self.a[i]);
            pt.q_hat[i] = self.q[i] + h * self.v[i] + h * h * ((0.5 - b) * self.a[i] + b * a_known);
            pt.v_hat[i] = self.v[i] + h * ((1.0 - g) * self.a[i] + g * a_known);
        }
        pt.a_hat.fill(0.0);
        pt.qc_hat.copy_from(&pt.q_hat);
        pt.c_q = h * h * b * s * (1.0 - af);
        pt.c_v = h * g * s * (1.0 - af);
        pt.c_a = 1.0;
        pt.c_c = pt.c_q;
        pt.t_e = self.t + h;
        pt.t_c = self.t + h;
        if self.alpha_hht != 0.0 {
            pt.force_weight = 1.0 + self.alpha_hht;
            pt.has_history_residual = true;
            pt.residual_history.copy_from(&self.force_terms);
            pt.residual_history *= -self.alpha_hht;
        } else {
            pt.force_weight = 1.0;
            pt.has_history_residual = false;
        }
        pt.u_guess.copy_from(&self.qdd);
        pt.lambda_guess.copy_from(&self.lambda);
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_qdd.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
        self.new_force_terms.copy_from(sol.force_terms);
    }

    fn end_step(&mut self, state: &mut State) {
        let (h, g, b, am, af) = (self.h, self.gamma, self.beta, self.alpha_m, self.alpha_f);
        let s = 1.0 / (1.0 - am);
        for i in 0..self.q.len() {
            let a_new = s * ((1.0 - af) * self.new_qdd[i] + af * self.qdd[i] - am * self.a[i]);
            self.q[i] += h * self.v[i] + h * h * ((0.5 - b) * self.a[i] + b * a_new);
            self.v[i] += h * ((1.0 - g) * self.a[i] + g * a_new);
            self.a[i] = a_new;
        }
        self.qdd.copy_from(&self.new_qdd);
        self.lambda.copy_from(&self.new_lambda);
        if self.alpha_hht != 0.0 {
            self.force_terms.copy_from(&self.new_force_terms);
        }
        self.steps += 1;
        self.t = self.t0 + self.steps as f64 * h;
        state.t = self.t;
        state.q.copy_from(&self.q);
        state.v.copy_from(&self.v);
        state.a.copy_from(&self.qdd);
        state.lambda.copy_from(&self.lambda);
    }
}

fn build_newmark(p: &SchemeParams) -> Result<Box<dyn Scheme>, SchemeError> {
    let (gamma, beta) = (param(p, "gamma"), param(p, "beta"));
    if gamma < 0.5 {
        return Err(SchemeError::out_of_range(
            "newmark",
            "gamma",
            gamma,
            "γ < ½ amplifies every mode; use γ ≥ ½ (½ for second order)",
        ));
    }
    if beta <= 0.0 {
        return Err(SchemeError::out_of_range(
            "newmark",
            "beta",
            beta,
            "β must be positive here (β = 0 is the explicit central difference: use scheme `central-difference`)",
        ));
    }
    Ok(Box::new(NewmarkFamily::newmark("newmark", gamma, beta)))
}

const SOURCE: &str = "Newmark (1959), J. Eng. Mech. Div. 85(EM3); shared/reference/integrators.md §6; index-3 form as in Géradin & Cardona (2001)";

/// Newmark with free γ and β.
pub const NEWMARK: SchemeInfo = SchemeInfo {
    name: "newmark",
    aliases: &[],
    family: "second-order single-step",
    summary: "Newmark family with free gamma and beta; second order iff gamma = 1/2; unconditionally stable iff 2 beta >= gamma >= 1/2",
    source: SOURCE,
    params: &[
        ParamInfo { name: "gamma", default: 0.5, description: "γ ≥ ½; ½ gives second order, > ½ adds numerical damping" },
        ParamInfo { name: "beta", default: 0.25, description: "β > 0; unconditionally stable iff β ≥ γ/2, else Ω_crit = 1/√(γ/2 − β)" },
    ],
    build: build_newmark,
};

/// Trapezoidal rule (average acceleration): Newmark γ = ½, β = ¼. Conserves energy of linear systems.
pub const TRAPEZOIDAL: SchemeInfo = SchemeInfo {
    name: "trapezoidal",
    aliases: &["average-acceleration"],
    family: "second-order single-step",
    summary: "Newmark gamma = 1/2, beta = 1/4: second order, unconditionally stable, no numerical damping",
    source: SOURCE,
    params: &[],
    build: |_| Ok(Box::new(NewmarkFamily::newmark("trapezoidal", 0.5, 0.25))),
};

/// Fox–Goodwin: Newmark γ = ½, β = 1/12. Fourth-order phase accuracy, stable for Ω ≤ √6.
pub const FOX_GOODWIN: SchemeInfo = SchemeInfo {
    name: "fox-goodwin",
    aliases: &[],
    family: "second-order single-step",
    summary: "Newmark gamma = 1/2, beta = 1/12: fourth-order phase error, conditionally stable up to Omega = sqrt(6)",
    source: SOURCE,
    params: &[],
    build: |_| Ok(Box::new(NewmarkFamily::newmark("fox-goodwin", 0.5, 1.0 / 12.0))),
};

/// Linear acceleration: Newmark γ = ½, β = 1/6. Stable for Ω ≤ 2√3.
pub const LINEAR_ACCELERATION: SchemeInfo = SchemeInfo {
    name: "linear-acceleration",
    aliases: &[],
    family: "second-order single-step",
    summary: "Newmark gamma = 1/2, beta = 1/6: conditionally stable up to Omega = 2 sqrt(3)",
    source: SOURCE,
    params: &[],
    build: |_| {
        Ok(Box::new(NewmarkFamily::newmark(
            "linear-acceleration",
            0.5,
            1.0 / 6.0,
        )))
    },
};
