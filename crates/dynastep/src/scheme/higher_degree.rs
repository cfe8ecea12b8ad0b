//! The fourth- and fifth-degree conditionally explicit methods G4(α, β, γ) and G5(α, β, γ, ζ) of
//! Fernández de Bustos, Uriarte, Urkullu & Coria (2024), *A Family of Conditionally Explicit Methods
//! for Second-Order ODEs and DAEs*, Mathematics 12:2862, sections 5–5.3 and 8.
//!
//! # The scheme
//! A method of degree p carries the derivatives d_0 = x, d_1 = v, …, d_{p−1} of the coordinates; the
//! unknown of a step is the highest one, u = d_{p−1} (the jerk for p = 4, the snap for p = 5), at t_n.
//! With the weights w_0 … w_{p−2} (w_0 = α, w_1 = β, w_2 = γ, w_3 = ζ), every derivative below the
//! highest is its Taylor polynomial from t_{n−1}, closed by a weighted mean of u_{n−1} and u_n:
//!
//! ```text
//! d_k(t_n)  = Σ_{i=0}^{p−2−k} hⁱ/i! d_{k+i}(t_{n−1}) + h^{p−1−k}/(p−1−k)! ((1 − w_k) u_{n−1} + w_k u_n),  k = 1 … p−2
//! x(t_n+h) = Σ_{i=0}^{p−2}   hⁱ/i! d_i(t_n)         + h^{p−1}/(p−1)!     ((1 − w_0) u_{n−1} + w_0 u_n)
//! ```
//!
//! For p = 4 these are eqs. 40–42 (x, v, a), for p = 5 eqs. 69–72 (x, v, a, jerk). (For p = 3 they
//! would be G3's eqs. 15–16, which `central_difference.rs` implements.) The equilibrium is written
//! at t_n with the known positions x_n (eq. 43 / 73):
//!
//! ```text
//! M(x_n) a_n + Φ_q(x_n)ᵀ λ_n = Q(x_n, v_n, t_n),     Φ(x_{n+1}, t_n + h) = 0   (eqs. 84–90)
//! ```
//!
//! The coefficients of u in v_n, a_n and x_{n+1} are c_1 = β h^{p−2}/(p−2)!, c_2 = γ h^{p−3}/(p−3)!
//! and c_0 = Σ_{i=1}^{p−2} hⁱ/i! c_i + α h^{p−1}/(p−1)!: c_0 = h³ (α + 3β + 3γ)/6 for p = 4 and
//! h⁴ (α + 4β + 6γ + 4ζ)/24 for p = 5; c_0/c_2 and c_1/c_2 are the first column of the paper's
//! amplification matrices (eqs. 67 and 74).
//!
//! **The unknown handed to the formulation is a_n, not u.** With a_n = A + c_2 u (A known), the
//! point's maps are c_q = 0, c_a = 1, c_v = c_1/c_2, c_c = c_0/c_2, and u = (a_n − A)/c_2 is recovered
//! when the step is committed. The two unknowns give the same solution, but with u itself the
//! iteration matrix carries c_2 M next to O(1) constraint rows, and c_2 = γh²/2 = 5e-11 for G5 at
//! h = 1e-5: Newton then stalls at an equilibrium residual of 1e-6 on Andrews' squeezer. The
//! change of x(t + Δt) per iteration, c_c Δa_n = c_0 Δu, is the same either way.
//!
//! With constraints this is the paper's DAE form: the constraints are imposed on x(t + Δt) and λ
//! belongs to t; no index reduction, no drift stabilization. Newton, when needed (constraints,
//! velocity-dependent forces), is judged on that change of x(t + Δt), as section 8 recommends.
//!
//! # Start-up (section 5.2: "jerk … introduced as x⃛(0) = 0")
//! The first step solves the equilibrium at t_0 for a_0 with v_0 known and takes every derivative
//! above the acceleration as zero at t_0: x_1 = x_0 + h v_0 + (h²/2) a_0, as the central differences'
//! eq. 7. This is the paper's start (`start = 0`, the default). From a state whose jerk is not zero
//! it enters the velocities with an error O(h²) once, and G4 and G5 fall to second order.
//!
//! `start = 1` is the consistent start: the time loop computes the jerk (and for G5 the snap) at
//! t_0 from the time derivatives of the equations of motion
//! ([`crate::analysis::start_derivatives`]), the first step takes
//! x_1 = x_0 + h v_0 + (h²/2) a_0 + (h³/6) j_0 (+ (h⁴/24) s_0), and the history starts with them.
//!
//! # Compensated sums
//! x_{n+1} = x_n + Δx and v_n = v_{n−1} + Δv are accumulated with Kahan's compensation, as in the
//! G3 implementation (the rounding of 10⁷ plain additions otherwise sets a floor on the energy error
//! at h = 1e-6). The increments are formed without the running sums, so the compensation sees them
//! whole.
//!
//! # Reported state
//! As for the central differences: v_n, a_n, λ_n are known only after the step that computes
//! x_{n+1}, so each step reports t_n, one step behind the newest positions.
//!
//! # Stability (checked with `dynastep stability`, docs/schemes.md)
//! * G4(1/4, 1/3, 1/2): Ω_crit = 1.264911 (the paper's 1.264911, section 5.2);
//! * G4(3/4, 1/3, 1/2), the default: Ω_crit = √3 = 1.732051 (the paper prints 1.7310020041);
//! * G4(5/4, 1/3, 1/2): unstable at every Ω, ρ = 1 + Ω²/3 to leading order (Table 5: 1.0033389 at
//!   Ω = 0.1);
//! * G5(4/5, 1, 1, 1), the paper's recommended set and the default: also unstable at every Ω
//!   (ρ − 1 ≈ 0.27 Ω², a parasitic root near −1), where the paper claims Δt ≤ 0.6/ω. The paper's
//!   matrix (eq. 74) has 3/4 where eqs. 69–72 give 3/8 in its top-right entry; with that entry ρ
//!   stays within 1.008 up to Ω ≈ 0.65 and then rises steeply, which is the curve of its Fig. 9.

use super::central_difference::compensated_add;
use super::registry::{param, start_choice, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, History, IntegrationPoint, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// Highest degree implemented; derivatives d_0 … d_{MAX_DEGREE−1} are indexed by k.
const MAX_DEGREE: usize = 5;

/// The method of degree 4 or 5 (see the module documentation).
///
/// History (two levels, as the central differences): `levels[0]` holds the newest positions x_n
/// (its v, a, λ are those of t_{n−1}); `levels[1]` is the complete state at t_{n−1}. The
/// auxiliary vectors hold the derivatives above the acceleration at t_{n−1}: the jerk (p = 4), or
/// the jerk and the snap (p = 5); the last one is u_{n−1}.
#[derive(Debug, Clone)]
pub struct HigherDegree {
    info: &'static SchemeInfo,
    /// Degree p (4 or 5).
    degree: usize,
    /// w_0 … w_{p−2}: α, β, γ, ζ.
    weights: [f64; MAX_DEGREE - 1],
    history: History,
    t_n: f64,
    h: f64,
    /// Known parts of the increments of d_1 … d_{p−2} over the step: d_k(t_n) = d_k(t_{n−1}) +
    /// delta_hat[k] + coef[k] u (index 0 unused; index k ≤ p − 2).
    delta_hat: [Vector; MAX_DEGREE - 1],
    /// Coefficients of u in d_k(t_n) (index 0: in x(t_n + h), i.e. c_c).
    coef: [f64; MAX_DEGREE - 1],
    /// Known part of x(t_n + h) − x_n.
    dx_hat: Vector,
    new_u: Vector,
    new_lambda: Vector,
    /// Kahan compensations of the running sums x and v (n each).
    comp_x: Vector,
    comp_v: Vector,
    /// Whether the start takes the jerk and snap from the equations of motion (`start = 1`).
    consistent_start: bool,
    /// The jerk and the snap at t_0 (n each): zero for the paper's start.
    start_aux: [Vector; 2],
}

const FOURTH_AUX: &[&str] = &["jerk at the newest complete level"];
const FIFTH_AUX: &[&str] = &[
    "jerk at the newest complete level",
    "snap at the newest complete level",
];

/// n! for small n.
fn factorial(n: usize) -> f64 {
    (1..=n).map(|i| i as f64).product()
}

impl HigherDegree {
    /// G4(α, β, γ), eqs. 40–43.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when a weight is not finite or γ = 0 (then a_n does not depend on
    /// the jerk, and the equilibrium cannot determine it).
    pub fn fourth(alpha: f64, beta: f64, gamma: f64) -> Result<Self, SchemeError> {
        Self::new(&G4, 4, &[alpha, beta, gamma])
    }

    /// The same scheme with the consistent start (module documentation) when `consistent`.
    pub fn with_consistent_start(mut self, consistent: bool) -> Self {
        self.consistent_start = consistent;
        self
    }

    /// G5(α, β, γ, ζ), eqs. 69–73.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when a weight is not finite or γ = 0 (then a_n does not depend on
    /// the snap).
    pub fn fifth(alpha: f64, beta: f64, gamma: f64, zeta: f64) -> Result<Self, SchemeError> {
        Self::new(&G5, 5, &[alpha, beta, gamma, zeta])
    }

    fn new(info: &'static SchemeInfo, degree: usize, w: &[f64]) -> Result<Self, SchemeError> {
        for (p, value) in info.params.iter().zip(w) {
            if !value.is_finite() {
                return Err(SchemeError::out_of_range(
                    info.name,
                    p.name,
                    *value,
                    "must be finite",
                ));
            }
        }
        if w[2] == 0.0 {
            return Err(SchemeError::out_of_range(
                info.name,
                "gamma",
                0.0,
                "γ must not be 0: a(t) would not depend on the unknown, which the equilibrium at t then cannot determine",
            ));
        }
        let mut weights = [0.0; MAX_DEGREE - 1];
        weights[..w.len()].copy_from_slice(w);
        let z = Vector::zeros(0);
        Ok(HigherDegree {
            info,
            degree,
            weights,
            history: History::new(2, if degree == 4 { FOURTH_AUX } else { FIFTH_AUX }),
            t_n: 0.0,
            h: 0.0,
            delta_hat: std::array::from_fn(|_| z.clone()),
            coef: [0.0; MAX_DEGREE - 1],
            dx_hat: z.clone(),
            new_u: z.clone(),
            new_lambda: z.clone(),
            comp_x: z.clone(),
            comp_v: z.clone(),
            consistent_start: false,
            start_aux: [z.clone(), z],
        })
    }

    /// True on the first step (the history is the complete initial state).
    fn first(&self) -> bool {
        self.history.filled < 2
    }

    /// d_k(t_{n−1}) for 1 ≤ k ≤ p − 1, entry i, from the complete level and the auxiliaries.
    fn old_derivative(&self, k: usize, i: usize) -> f64 {
        let old = &self.history.levels[1];
        match k {
            1 => old.v[i],
            2 => old.a[i],
            _ => self.history.aux[k - 3][i],
        }
    }

    /// Fills `delta_hat`, `coef` and `dx_hat` for a step after the first (the module's formulas).
    fn prepare_step(&mut self) {
        let (p, h) = (self.degree, self.h);
        let n = self.dx_hat.len();
        let top = p - 1;
        for k in 1..=p - 2 {
            let m = top - k;
            let hm = h.powi(m as i32) / factorial(m);
            self.coef[k] = self.weights[k] * hm;
            for i in 0..n {
                let mut s = 0.0;
                for j in 1..=p - 2 - k {
                    s += h.powi(j as i32) / factorial(j) * self.old_derivative(k + j, i);
                }
                let u_old = self.old_derivative(top, i);
                self.delta_hat[k][i] = s + hm * (1.0 - self.weights[k]) * u_old;
            }
        }
        let ht = h.powi(top as i32) / factorial(top);
        let mut c_c = self.weights[0] * ht;
        for k in 1..=p - 2 {
            c_c += h.powi(k as i32) / factorial(k) * self.coef[k];
        }
        self.coef[0] = c_c;
        for i in 0..n {
            let mut s = ht * (1.0 - self.weights[0]) * self.old_derivative(top, i);
            for k in 1..=p - 2 {
                let d_hat = self.old_derivative(k, i) + self.delta_hat[k][i];
                s += h.powi(k as i32) / factorial(k) * d_hat;
            }
            self.dx_hat[i] = s;
        }
    }
}

impl Scheme for HigherDegree {
    fn name(&self) -> &'static str {
        self.info.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        let weights = self.info.params.iter().zip(self.weights);
        let mut list: Vec<(&'static str, f64)> = weights
            .take(self.degree - 1)
            .map(|(p, w)| (p.name, w))
            .collect();
        list.push(("start", f64::from(u8::from(self.consistent_start))));
        list
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        if self.dx_hat.len() != n || self.new_lambda.len() != m {
            for d in &mut self.delta_hat {
                *d = Vector::zeros(n);
            }
            self.dx_hat = Vector::zeros(n);
            self.new_u = Vector::zeros(n);
            self.new_lambda = Vector::zeros(m);
            self.comp_x = Vector::zeros(n);
            self.comp_v = Vector::zeros(n);
        }
        if self.start_aux[0].len() != n {
            self.start_aux = [Vector::zeros(n), Vector::zeros(n)];
        }
        for d in &mut self.start_aux {
            d.fill(0.0);
        }
        self.comp_x.fill(0.0);
        self.comp_v.fill(0.0);
        self.new_u.fill(0.0);
        self.new_lambda.copy_from(&x0.lambda);
    }

    fn start_derivatives(&self) -> usize {
        if self.consistent_start {
            self.degree - 3
        } else {
            0
        }
    }

    fn set_start_derivatives(&mut self, derivatives: &[Vector]) {
        for (mine, given) in self.start_aux.iter_mut().zip(derivatives) {
            mine.copy_from(given);
        }
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let h = self.h;
        let x = &self.history.levels[0];
        pt.t_e = self.t_n;
        pt.t_c = self.t_n + h;
        pt.q_hat.copy_from(&x.q);
        pt.c_q = 0.0;
        pt.force_weight = 1.0;
        pt.has_history_residual = false;
        pt.lambda_guess.copy_from(&x.lambda);
        if self.first() {
            // Start-up: u = a_0, v_0 known, higher derivatives those of the start (zero for the
            // paper's).
            pt.v_hat.copy_from(&x.v);
            pt.a_hat.fill(0.0);
            for i in 0..x.q.len() {
                pt.qc_hat[i] = x.q[i] + h * x.v[i] + self.start_terms(i);
            }
            (pt.c_v, pt.c_a, pt.c_c) = (0.0, 1.0, 0.5 * h * h);
            pt.u_guess.copy_from(&x.a);
            return;
        }
        self.prepare_step();
        // The unknown handed over is a_n = A + c_2 d_top (module documentation), so every map is
        // divided by c_2.
        let (r1, r0) = (self.coef[1] / self.coef[2], self.coef[0] / self.coef[2]);
        let old = &self.history.levels[1];
        let top_old = &self.history.aux[self.degree - 4];
        for i in 0..old.q.len() {
            let a_known = old.a[i] + self.delta_hat[2][i];
            pt.v_hat[i] = old.v[i] + self.delta_hat[1][i] - r1 * a_known;
            pt.qc_hat[i] = self.history.levels[0].q[i] + self.dx_hat[i] - r0 * a_known;
            // Newton starts from the top derivative of t_{n−1}.
            pt.u_guess[i] = a_known + self.coef[2] * top_old[i];
        }
        pt.a_hat.fill(0.0);
        (pt.c_v, pt.c_a, pt.c_c) = (r1, 1.0, r0);
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_u.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
    }

    fn end_step(&mut self, state: &mut State) {
        if self.first() {
            self.commit_first();
        } else {
            self.commit();
        }
        self.history.h = self.h;
        state.copy_from(&self.history.levels[1]);
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}

impl HigherDegree {
    /// (h³/6) j_0 + (h⁴/24) s_0 of x_1, entry i: the start's derivatives above the acceleration
    /// (zero for the paper's start; the snap only for G5).
    fn start_terms(&self, i: usize) -> f64 {
        let h = self.h;
        let c3 = h * h * h / 6.0;
        let c4 = if self.degree == 5 { h * c3 / 4.0 } else { 0.0 };
        c3 * self.start_aux[0][i] + c4 * self.start_aux[1][i]
    }

    /// Commits the start-up step: a_0 = u, x_1 = x_0 + h v_0 + (h²/2) a_0 + the start's terms
    /// ([`HigherDegree::start_terms`]); the auxiliaries take the start's derivatives.
    fn commit_first(&mut self) {
        let (h, t_n) = (self.h, self.t_n);
        let c3 = h * h * h / 6.0;
        let c4 = if self.degree == 5 { h * c3 / 4.0 } else { 0.0 };
        let hist = &mut self.history;
        hist.shift();
        let (newest, rest) = hist.levels.split_at_mut(1);
        let (next, x) = (&mut newest[0], &mut rest[0]);
        for i in 0..x.q.len() {
            let a = self.new_u[i];
            let dx = h * x.v[i]
                + 0.5 * h * h * a
                + c3 * self.start_aux[0][i]
                + c4 * self.start_aux[1][i];
            x.a[i] = a;
            next.q[i] = compensated_add(x.q[i], dx, &mut self.comp_x[i]);
            next.v[i] = x.v[i];
            next.a[i] = a;
        }
        for (aux, d) in hist.aux.iter_mut().zip(&self.start_aux) {
            aux.copy_from(d);
        }
        x.t = t_n;
        x.lambda.copy_from(&self.new_lambda);
        next.lambda.copy_from(&self.new_lambda);
        next.t = t_n + h;
    }

    /// Commits a regular step: d_k(t_n) from the increments, x_{n+1} from them (compensated sums for
    /// x and v), the auxiliaries advanced to t_n.
    fn commit(&mut self) {
        let (h, t_n, p) = (self.h, self.t_n, self.degree);
        let top = p - 1;
        let ht = h.powi(top as i32) / factorial(top);
        let hist = &mut self.history;
        hist.shift();
        // After the shift, levels[1] holds x_n with copies of t_{n−1}'s v and a (d_1, d_2 at
        // t_{n−1}); the auxiliaries still hold t_{n−1}'s higher derivatives.
        let (newest, rest) = hist.levels.split_at_mut(1);
        let (next, x) = (&mut newest[0], &mut rest[0]);
        for i in 0..x.q.len() {
            // The solved a_n, and the top derivative u it implies (as in `point`).
            let a_n = self.new_u[i];
            let u = (a_n - (x.a[i] + self.delta_hat[2][i])) / self.coef[2];
            // d_k(t_n), k = 1 … p − 2, then the new top derivative u.
            let mut d = [0.0; MAX_DEGREE];
            for (k, dk) in d.iter_mut().enumerate().take(p - 1).skip(1) {
                let increment = self.delta_hat[k][i] + self.coef[k] * u;
                *dk = match k {
                    1 => compensated_add(x.v[i], increment, &mut self.comp_v[i]),
                    2 => a_n,
                    _ => hist.aux[k - 3][i] + increment,
                };
            }
            d[top] = u;
            let mut dx =
                ht * ((1.0 - self.weights[0]) * hist.aux[top - 3][i] + self.weights[0] * u);
            for (k, dk) in d.iter().enumerate().take(p - 1).skip(1) {
                dx += h.powi(k as i32) / factorial(k) * dk;
            }
            x.v[i] = d[1];
            x.a[i] = d[2];
            for (aux, dk) in hist.aux.iter_mut().zip(&d[3..p]) {
                aux[i] = *dk;
            }
            next.q[i] = compensated_add(x.q[i], dx, &mut self.comp_x[i]);
            next.v[i] = d[1];
            next.a[i] = d[2];
        }
        x.t = t_n;
        x.lambda.copy_from(&self.new_lambda);
        next.lambda.copy_from(&self.new_lambda);
        next.t = t_n + h;
    }
}

/// Fixed steps only (the start-up and the Taylor weights assume a constant h); no error estimate;
/// index-3 formulation (constraints on the next positions).
const CAPS: Capabilities = Capabilities {
    order: 3,
    explicit_in_positions: true,
    unconditionally_stable: false,
    error_estimate: None,
    error_order: 0,
    variable_step: false,
    form: EquationForm::SecondOrder,
    estimate_noise: 0.0,
};

/// G4(α, β, γ), section 5. Defaults α = 3/4, β = 1/3, γ = 1/2: the paper's best stable set
/// (section 5.2, Table 4's last column).
pub const G4: SchemeInfo = SchemeInfo {
    name: "g4",
    aliases: &["fourth-degree", "g4-central-difference"],
    family: "conditionally explicit",
    summary: "fourth-degree conditionally explicit method G4(alpha, beta, gamma): the jerk is the unknown, positions known at the equilibrium; third order; Omega_crit sqrt(3) at the defaults, 1.265 for alpha = 1/4, unstable (rho = 1 + Omega^2/3) for alpha = 5/4",
    source: "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862, section 5, eqs. 40-43, 67, Tables 4-5; start-up with zero jerk (section 5.2); constraints as in eqs. 84-90",
    params: &[
        ParamInfo {
            name: "alpha",
            default: 0.75,
            description: "weight of the jerk at t in x(t + h), eq. 40 (3/4: the most stable, Omega_crit = sqrt(3); 1/4: 1.265; 5/4: most accurate but unstable)",
        },
        ParamInfo {
            name: "beta",
            default: 1.0 / 3.0,
            description: "weight of the jerk at t in v(t), eq. 41 (beta = 2 gamma / 3 cancels the h^3 velocity error, eq. 58)",
        },
        ParamInfo {
            name: "gamma",
            default: 0.5,
            description: "weight of the jerk at t in a(t), eq. 42; must not be 0",
        },        ParamInfo {
            name: "start",
            default: 0.0,
            description: "0: the paper's start, derivatives above the acceleration zero at t0 (section 5.2; second order from a state whose jerk is not zero); 1: consistent start, the jerk and snap at t0 from the time derivatives of the equations of motion",
        },
    ],
    build: |p: &SchemeParams| -> Result<Box<dyn Scheme>, SchemeError> {
        Ok(Box::new(
            HigherDegree::fourth(param(p, "alpha"), param(p, "beta"), param(p, "gamma"))?
                .with_consistent_start(start_choice(G4.name, p)?),
        ))
    },
    caps: CAPS,
};

/// G5(α, β, γ, ζ), section 5.3. Defaults α = 4/5, β = γ = ζ = 1: the set the paper recommends as
/// conditionally stable (Table 6), which the scheme as written is not (module documentation).
pub const G5: SchemeInfo = SchemeInfo {
    name: "g5",
    aliases: &["fifth-degree", "g5-central-difference"],
    family: "conditionally explicit",
    summary: "fifth-degree conditionally explicit method G5(alpha, beta, gamma, zeta): the snap is the unknown; the paper's set (4/5, 1, 1, 1) is weakly unstable at every step (rho - 1 = 0.27 Omega^2), not stable below Omega = 0.6 as the paper states",
    source: "Fernández de Bustos, Uriarte, Urkullu & Coria (2024) Mathematics 12:2862, section 5.3, eqs. 69-74, Table 6; DAE form section 8, eqs. 84-90, Table 11",
    params: &[
        ParamInfo {
            name: "alpha",
            default: 0.8,
            description: "weight of the snap at t in x(t + h), eq. 69 (6/5 with beta = 1/4, gamma = 1/3, zeta = 1/2 is the Taylor-optimal set, unstable)",
        },
        ParamInfo {
            name: "beta",
            default: 1.0,
            description: "weight of the snap at t in v(t), eq. 70",
        },
        ParamInfo {
            name: "gamma",
            default: 1.0,
            description: "weight of the snap at t in a(t), eq. 71; must not be 0",
        },
        ParamInfo {
            name: "zeta",
            default: 1.0,
            description: "weight of the snap at t in the jerk at t, eq. 72",
        },        ParamInfo {
            name: "start",
            default: 0.0,
            description: "0: the paper's start, derivatives above the acceleration zero at t0 (section 5.2; second order from a state whose jerk is not zero); 1: consistent start, the jerk and snap at t0 from the time derivatives of the equations of motion",
        },
    ],
    build: |p: &SchemeParams| -> Result<Box<dyn Scheme>, SchemeError> {
        Ok(Box::new(
            HigherDegree::fifth(
                param(p, "alpha"),
                param(p, "beta"),
                param(p, "gamma"),
                param(p, "zeta"),
            )?
            .with_consistent_start(start_choice(G5.name, p)?),
        ))
    },
    caps: CAPS,
};
