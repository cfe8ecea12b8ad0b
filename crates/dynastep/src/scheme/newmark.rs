//! The Newmark family (Newmark 1959) and the single-step second-order machinery shared with
//! generalized-α ([`super::generalized_alpha`]) and HHT-α ([`super::hht`]).
//!
//! Updates (Newmark 1959):
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
//! Plain Newmark is α_m = α_f = 0 (a = q̈); HHT-α is α_m = 0, α_f = −α (see [`super::hht`] for why
//! it is not the force-weighted form).
//!
//! Stability (linear, undamped): unconditionally stable iff 2β ≥ γ ≥ ½; for β < γ/2 stable up to
//! Ω = ωh = 1/√(γ/2 − β): 2 for central differences (β = 0), √6 for Fox–Goodwin (β = 1/12), 2√3 for
//! linear acceleration (β = 1/6). Second order iff γ = ½.

use super::error_constants::ErrorConstants;
use super::predictor::{constant_start, predict, Known};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{
    Capabilities, EquationForm, History, IntegrationPoint, LocalError, PointSolution, Scheme, State,
};
use crate::linalg::{copy, zero, Vector};

/// Auxiliary history vectors of the family: the filtered acceleration a_n and a_{n−1}.
const AUX: &[&str] = &["filtered acceleration a_n", "filtered acceleration a_{n-1}"];
const A: usize = 0;
const A_PREV: usize = 1;

/// The single-step second-order scheme with Newmark updates and the Arnold–Brüls acceleration
/// filter (α_m, α_f).
///
/// History: one level (t_n, q_n, v_n, the true acceleration q̈_n, λ_n) and the auxiliary vectors of
/// `AUX` (a_{n−1} serves the error estimate).
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
    /// Leading local-error constants (see [`super::error_constants`]).
    pub error_constants: ErrorConstants,
    history: History,
    // The current step: t_n, h, the effective a_n (rescaled when h changed), and the tentative
    // solution of its point.
    t_n: f64,
    h: f64,
    a_start: Vector,
    new_qdd: Vector,
    new_lambda: Vector,
    correction: super::KeptCorrection,
    new_a: Vector,
    // The Newton starting values: q̈ and λ of the level before the last, and the step between them
    // (0 when there is none: after a start or restart).
    guess_v: Vector,
    guess_qdd: Vector,
    guess_lambda: Vector,
    guess_h: f64,
    // The predictor's q̈ for the current point, whether Newton starts from it, and whether it
    // may (false after a point restarted from the constant start, `Scheme::constant_guess`).
    predicted: Vector,
    extrapolate: bool,
    extrapolation_allowed: bool,
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
    ) -> Self {
        let z = Vector::zeros(0);
        NewmarkFamily {
            name,
            reported,
            gamma,
            beta,
            alpha_m,
            alpha_f,
            error_constants: ErrorConstants::newmark(gamma, beta, alpha_m, alpha_f),
            history: History::new(1, AUX),
            t_n: 0.0,
            h: 0.0,
            a_start: z.clone(),
            new_qdd: z.clone(),
            new_lambda: z.clone(),
            correction: Default::default(),
            new_a: z.clone(),
            guess_v: z.clone(),
            guess_qdd: z.clone(),
            guess_lambda: z.clone(),
            guess_h: 0.0,
            predicted: z,
            extrapolate: false,
            extrapolation_allowed: true,
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
        )
    }

    /// The step size of the last committed step (0 before the first).
    fn last_h(&self) -> f64 {
        self.history.h
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

    fn start(&mut self, x0: &State, _force_terms0: &Vector) {
        let n = x0.q.len();
        self.history.reset(x0);
        // Arnold–Brüls start a_0 = q̈_0 (Arnold & Brüls 2007: this makes a first-order accurate as an
        // approximation of q̈(t_n + (α_m − α_f) h) at the first steps; q stays second order).
        self.history.aux[A].copy_from(&x0.a);
        self.history.aux[A_PREV].copy_from(&x0.a);
        for v in [
            &mut self.a_start,
            &mut self.new_qdd,
            &mut self.new_a,
            &mut self.guess_v,
            &mut self.guess_qdd,
            &mut self.predicted,
        ] {
            if v.len() != n {
                *v = Vector::zeros(n);
            }
        }
        for v in [&mut self.new_lambda, &mut self.guess_lambda] {
            if v.len() != x0.lambda.len() {
                *v = Vector::zeros(x0.lambda.len());
            }
        }
        self.guess_h = 0.0;
        self.extrapolate = false;
        self.new_qdd.copy_from(&x0.a);
        self.new_lambda.copy_from(&x0.lambda);
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        let (x, a) = (&self.history.levels[0], &self.history.aux[A]);
        // a_n ≈ q̈(t_n + δ h_{n−1}); after a change of step it is moved to q̈(t_n + δ h) to first order:
        // a_n ← q̈_n + (h/h_{n−1})(a_n − q̈_n). An unchanged step keeps a_n bit for bit.
        let h_old = self.last_h();
        if h_old > 0.0 && h != h_old {
            let r = h / h_old;
            let start = self.a_start.as_mut_slice().iter_mut();
            for (s, (qdd, a)) in start.zip(x.a.as_slice().iter().zip(a.as_slice())) {
                *s = qdd + r * (a - qdd);
            }
        } else {
            copy(&mut self.a_start, a);
        }
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let (h, g, b, am, af) = (self.h, self.gamma, self.beta, self.alpha_m, self.alpha_f);
        let x = &self.history.levels[0];
        let a = &self.a_start;
        let s = 1.0 / (1.0 - am);
        // a_{n+1} = s[(1 − α_f) u + α_f q̈_n − α_m a_n]  =  a_known + s (1 − α_f) u
        // q̂ = q_n + h v_n + h²(½ − β) a_n + h² β a_known
        let hats = pt
            .q_hat
            .as_mut_slice()
            .iter_mut()
            .zip(pt.v_hat.as_mut_slice());
        let last =
            x.q.as_slice()
                .iter()
                .zip(x.v.as_slice())
                .zip(x.a.as_slice());
        for ((q_hat, v_hat), (((q, v), qdd), a)) in hats.zip(last.zip(a.as_slice())) {
            let a_known = s * (af * qdd - am * a);
            *q_hat = q + h * v + h * h * ((0.5 - b) * a + b * a_known);
            *v_hat = v + h * ((1.0 - g) * a + g * a_known);
        }
        zero(pt.a_hat.as_mut_slice());
        copy(&mut pt.qc_hat, &pt.q_hat);
        pt.c_q = h * h * b * s * (1.0 - af);
        pt.c_v = h * g * s * (1.0 - af);
        pt.c_a = 1.0;
        pt.c_c = pt.c_q;
        pt.t_e = self.t_n + h;
        pt.t_c = self.t_n + h;
        pt.force_weight = 1.0;
        pt.has_history_residual = false;
        // Newton's starting q̈ and λ: the second-order predictor of Zhang, Zhang, Zanoni &
        // Masarati (2022), Multibody Syst Dyn, §3.1, eqs. (12)-(14), on the last two levels (λ
        // linearly extrapolated while `pt.extrapolate_multipliers` allows, see `predict`), while
        // it came closer to the solution than the last q̈ did (it does not where q̈ alternates
        // from step to step, as with the undamped trapezoidal rule in index 3); else the last q̈
        // and λ. Both or neither: modified Newton started from an extrapolated q̈ with the last λ
        // spends its first correction on λ, measures a contraction above its 0.03 at the second
        // and refreshed its matrix at 89 458 of the pendulum's 100 000 steps (h = 1e-4 s); with
        // both extrapolated, at 1 298, with 2.1 iterations per step against 3.5 from the last
        // level's values (`dynastep run --example pendulum --dt 1e-4 --set
        // 'solver.newton.method="modified"'`). Full Newton's counts do not change.
        let before = (self.guess_h > 0.0).then(|| {
            let old = Known {
                v: &self.guess_v,
                a: &self.guess_qdd,
                lambda: &self.guess_lambda,
            };
            (old, h / self.guess_h)
        });
        predict(pt, Known::of(x), before, h);
        copy(&mut self.predicted, &pt.u_guess);
        if !(self.extrapolate && self.extrapolation_allowed) {
            copy(&mut pt.u_guess, &x.a);
            copy(&mut pt.lambda_guess, &x.lambda);
        }
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        let (am, af) = (self.alpha_m, self.alpha_f);
        let s = 1.0 / (1.0 - am);
        let last = &self.history.levels[0].a;
        let miss = |guess: &Vector| {
            let pairs = sol.u.as_slice().iter().zip(guess.as_slice());
            pairs.fold(0.0_f64, |m, (u, g)| m.max((u - g).abs()))
        };
        self.extrapolate = self.guess_h > 0.0 && miss(&self.predicted) < miss(last);
        copy(&mut self.new_qdd, sol.u);
        copy(&mut self.new_lambda, sol.lambda);
        self.correction.record(sol);
        let x = &self.history.levels[0];
        let known = x.a.as_slice().iter().zip(self.a_start.as_slice());
        let new_a = self.new_a.as_mut_slice().iter_mut().zip(sol.u.as_slice());
        for ((new_a, u), (qdd, a)) in new_a.zip(known) {
            *new_a = s * ((1.0 - af) * u + af * qdd - am * a);
        }
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        let h_old = self.last_h();
        let previous = (h_old > 0.0).then_some((&self.history.aux[A_PREV], h_old));
        self.error_constants
            .estimate(self.h, &self.new_a, &self.a_start, previous, err);
        true
    }

    fn end_step(&mut self, state: &mut State) {
        let (h, g, b) = (self.h, self.gamma, self.beta);
        let hist = &mut self.history;
        let x = &mut hist.levels[0];
        copy(&mut self.guess_v, &x.v);
        copy(&mut self.guess_qdd, &x.a);
        copy(&mut self.guess_lambda, &x.lambda);
        self.guess_h = h;
        let accelerations = self.a_start.as_slice().iter().zip(self.new_a.as_slice());
        let qv = x.q.as_mut_slice().iter_mut().zip(x.v.as_mut_slice());
        for ((q, v), (a, a_new)) in qv.zip(accelerations) {
            *q += h * *v + h * h * ((0.5 - b) * a + b * a_new);
            *v += h * ((1.0 - g) * a + g * a_new);
        }
        self.correction.apply(&mut x.q);
        x.t = self.t_n + h;
        copy(&mut x.a, &self.new_qdd);
        copy(&mut x.lambda, &self.new_lambda);
        hist.h = h;
        copy(&mut hist.aux[A_PREV], &self.a_start);
        copy(&mut hist.aux[A], &self.new_a);
        state.copy_from(&hist.levels[0]);
    }

    fn constant_guess(&mut self, _k: usize, pt: &mut IntegrationPoint) -> bool {
        if !(self.extrapolate && self.extrapolation_allowed) {
            return false;
        }
        constant_start(pt, Known::of(&self.history.levels[0]));
        self.extrapolation_allowed = false;
        true
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}

/// What every member of the family (generalized-α and HHT included) can do with the index-3
/// formulation; the order and `unconditionally_stable` differ between members.
pub(crate) const fn caps(order: u32, unconditionally_stable: bool) -> Capabilities {
    Capabilities {
        order,
        explicit_in_positions: false,
        unconditionally_stable,
        error_estimate: Some(ESTIMATOR),
        error_order: 3,
        variable_step: true,
        form: EquationForm::SecondOrder,
        estimate_noise: 0.0,
    }
}

/// The estimator every member uses (module `error_constants`).
pub const ESTIMATOR: &str = "acceleration jump, Zienkiewicz & Xie (1991) Earthquake Eng. Struct. Dyn. 20:871, with the constants of the filtered/shifted acceleration (Hulbert & Jang 1995, CMAME 126:155); see scheme/error_constants.rs";

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

const SOURCE: &str =
    "Newmark (1959), J. Eng. Mech. Div. 85(EM3); index-3 form as in Géradin & Cardona (2001)";

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
    caps: caps(2, true),
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
    caps: caps(2, true),
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
    caps: caps(2, false),
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
    caps: caps(2, false),
};
