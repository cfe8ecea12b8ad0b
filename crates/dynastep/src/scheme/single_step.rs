//! SS2, SS3 and SS4: the single-step equivalents of LMS2–4 with auxiliary variables, Zhang, Zhang &
//! Masarati (2021), Comput Mech 67:289–313; Zhang, Zhang, Zanoni & Masarati (2022), *Performance of
//! implicit A-stable time integration methods for multibody system dynamics*, Multibody Syst Dyn,
//! eqs. (4a)–(4e).
//!
//! For a first-order equation in y with derivative ẏ, SS-k carries k − 1 auxiliary derivative-like
//! variables w_1 … w_{k−1} (w_0 ≡ ẏ) and advances with
//!
//! ```text
//! y_{n+1} = y_n + h (γ0 w_{k−1,n+1} + (1 − γ0) w_{k−1,n})                                   (4a)
//! γ_{2m−1} w_{k−m,n+1} + (1 − γ_{2m−1}) w_{k−m,n} = γ_{2m} w_{k−m−1,n+1} + (1 − γ_{2m}) w_{k−m−1,n},
//!                                                                        m = 1 … k − 1   (4b)–(4e)
//! ```
//!
//! so that ρ_SS(E) = (E − 1) Π A_odd(E) and σ_SS(E) = Π A_even(E) with A_i(E) = γ_i E + 1 − γ_i: the
//! characteristic polynomials of LMS-k. The parameters: every even γ = 1/(1 + ρ∞) (each A_even has its
//! root at −ρ∞); γ_odd = (p (1 − ρ∞) + ρ∞)/(1 + ρ∞), with p the roots of 2p − 3 (SS2),
//! 6p² − 15p + 10 (SS3) and 20p³ − 70p² + 84p − 35 (SS4). SS3 and SS4 have a complex-conjugate pair of
//! γ_odd, so some auxiliaries are complex; their real and imaginary parts are stored separately, and y
//! stays real (Zhang et al. 2021; checked to rounding in `tests/lms_family.rs`). The order of the
//! levels follows MBDyn (`y —γ0— w_{k−1} —(γ1|γ2)— … —(γ_{2k−3}|γ_{2k−2})— ẏ`, the real root of SS4
//! next to y); for the linear spectral properties it does not matter.
//!
//! The chain is applied to q (derivative v, auxiliaries u_j) and to v (derivative a, auxiliaries
//! w_j). Every auxiliary at t_{n+1} is affine in the unknown u = a_{n+1}: w_j = ŵ_j + β_j a_{n+1} with
//! β_0 = 1, β_j = γ_even β_{j−1}/γ_odd; hence c_v = h γ0 β_{k−1} = h b0 of LMS-k and c_q = c_v².
//! Newton starts from the predictor of LMS2 (eqs. 12–14, α = 1) after the first step, from a_n
//! (eq. 15) on it. SS-k need no start-up steps.
//!
//! # Start
//! On a smooth solution the auxiliaries lag their derivative: w_j(t) = ẏ(t + δ_j h) + O(h²), with
//! δ_0 = 0 and δ_j = δ_{j−1} + γ_even − γ_odd (the γ_odd of level j; complex for SS3 and SS4), which
//! follows from (4b)–(4e) and ends at δ_{k−1} = ½ − γ0, the condition for second order in (4a).
//! The consistent start (`start = 1`, the default) sets w_j = a_0 + δ_j h ȧ_0 and u_j = v_0 + δ_j h a_0,
//! with the jerk ȧ_0 from the equations of motion ([`Scheme::start_derivatives`]). The start of the
//! paper and MBDyn (`start = 0`) sets every auxiliary equal to its derivative (w_j = a_0, u_j = v_0):
//! u off by O(h) puts q_1 off by O(h²) across the constraints, which an index-3 formulation absorbs
//! as an O(1) error in λ that decays as ρ∞ⁿ, and the work of the drivers then converges at first
//! order (docs/schemes.md, SS-k).
//!
//! The consistent lags are a Taylor expansion, valid where h resolves what sets the jerk. A stiff
//! mode excited at t_0 (a flexible bar whose velocities the assembly changed) can make h ȧ_0 far
//! larger than a_0; when Newton then fails on the first step of a fixed-step run, the step is
//! retaken from the paper's start, and the run's notes say so ([`Scheme::notes`]).
//!
//! # Variable steps
//! Relations (4b)–(4e) do not contain h: the auxiliaries are averages over step *indices*, and with
//! a step that changes they keep the lag δ_j h_old of the old step. Left alone, the schemes drop to
//! first order (on q̈ = −4q with steps alternating h and 2h, the measured order of SS2 is 1.02).
//! When the step changes from h_old to h, the auxiliaries are therefore moved to the lags of the
//! new step, w_j ← ẏ_n + (h/h_old)(w_j − ẏ_n), and u_j likewise about v_n. Since w_j − ẏ_n =
//! δ_j h_old ÿ + O(h²), the moved auxiliary is off by O(h²) only, which enters y_{n+1} multiplied
//! by h: a local error O(h³), of the order of the method's own, so the second order holds
//! (`tests/lms_family.rs`, `single_step_forms_keep_second_order_with_changing_steps`). It is the
//! rescaling that Nordsieck methods apply to their scaled derivative h ẏ (Hairer, Nørsett & Wanner
//! 1993, §III.7), applied to the lags; their O(h²) part is not moved.
//!
//! # Error estimate
//! As LMS2's (Milne's device): the predictor is the cubic Hermite extrapolation of q (from q, v)
//! and of v (from v, a) at t_{n−1} and t_n to t_{n+1}, O(h⁴) accurate, so its difference from the
//! corrector is the step's local error C h³ y⃛ up to O(h⁴). On the first step, with the consistent
//! start, the predictor is the Taylor polynomial through the start's jerk; with the paper's start
//! (no jerk) it is the trapezoidal rule's acceleration-jump estimate h²(a_1 − a_0)/12.

use nalgebra::Complex;

use super::milne;
use super::predictor::{levels_constant_guess, predict, Known};
use super::registry::{param, start_choice, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{
    Capabilities, EquationForm, History, IntegrationPoint, LocalError, PointSolution, Scheme, State,
};
use crate::linalg::Vector;

type C64 = Complex<f64>;

/// Largest k of the family.
const K_MAX: usize = 4;

/// Roots p of the SS-k polynomials, in chain order from y inward (γ1, γ3, γ5): 2p − 3 = 0;
/// 6p² − 15p + 10 = 0; 20p³ − 70p² + 84p − 35 = 0 (Zhang, Zhang & Masarati 2021).
#[allow(clippy::excessive_precision)]
pub fn odd_roots(k: usize) -> &'static [(f64, f64)] {
    const SS2: [(f64, f64); 1] = [(1.5, 0.0)];
    // p = 5/4 ± i √15/12.
    const SS3: [(f64, f64); 2] = [
        (1.25, 0.322_748_612_183_951_4),
        (1.25, -0.322_748_612_183_951_4),
    ];
    const SS4: [(f64, f64); 3] = [
        (1.342_384_094_858_369_131_7, 0.0),
        (1.078_807_952_570_815_434_2, -0.373_930_645_433_610_122_6),
        (1.078_807_952_570_815_434_2, 0.373_930_645_433_610_122_6),
    ];
    match k {
        2 => &SS2,
        3 => &SS3,
        4 => &SS4,
        _ => panic!("SS-k is defined for k = 2, 3, 4, not {k}"),
    }
}

/// Names of the auxiliary history vectors for k, four per level j = 1 … k − 1 (real and imaginary
/// parts of w_j and u_j).
fn aux_names(k: usize) -> &'static [&'static str] {
    const NAMES: [&str; 4 * (K_MAX - 1)] = [
        "w1 (velocity chain) real part",
        "w1 (velocity chain) imaginary part",
        "u1 (position chain) real part",
        "u1 (position chain) imaginary part",
        "w2 (velocity chain) real part",
        "w2 (velocity chain) imaginary part",
        "u2 (position chain) real part",
        "u2 (position chain) imaginary part",
        "w3 (velocity chain) real part",
        "w3 (velocity chain) imaginary part",
        "u3 (position chain) real part",
        "u3 (position chain) imaginary part",
    ];
    &NAMES[..4 * (k - 1)]
}

/// Index of the real part of w_j (`chain` = [`VELOCITY_CHAIN`]) or u_j ([`POSITION_CHAIN`]); the
/// imaginary part follows it.
fn slot(j: usize, chain: usize) -> usize {
    4 * (j - 1) + chain
}
const VELOCITY_CHAIN: usize = 0;
const POSITION_CHAIN: usize = 2;

/// The SS-k scheme (see the module documentation). History: the level t_n (and t_{n−1} for the
/// Newton predictor only) and the auxiliaries w_j, u_j.
#[derive(Debug, Clone)]
pub struct SingleStep {
    k: usize,
    name: &'static str,
    rho_inf: f64,
    /// γ0 = γ2 = γ4 = γ6 = 1/(1 + ρ∞).
    gamma_even: f64,
    /// γ1, γ3, γ5 in chain order (from y inward).
    gamma_odd: [C64; K_MAX - 1],
    /// β_j = ∂w_j/∂ẏ_{n+1}, j = 0 … k − 1.
    beta: [C64; K_MAX],
    history: History,
    t_n: f64,
    h: f64,
    /// The step whose lags δ_j h the stored auxiliaries carry (0 before the first step).
    aux_h: f64,
    /// Known parts ŵ_j, û_j of the step, laid out as the auxiliaries.
    hat: Vec<Vector>,
    /// The step's point maps and solution (q̂, v̂, c_q, c_v, u = a_{n+1}).
    point: milne::Corrector,
    new_lambda: Vector,
    correction: super::KeptCorrection,
    /// False once Newton failed from the extrapolated start ([`Scheme::constant_guess`]).
    extrapolation: bool,
    /// Whether the start sets the auxiliaries consistently (`start = 1`, module documentation).
    consistent_start: bool,
    /// True from a start until the first step sets the consistent auxiliaries (h is known then).
    fresh: bool,
    /// The jerk at the start (n), from [`Scheme::set_start_derivatives`].
    start_jerk: Vector,
    /// True while the stored auxiliaries carry the consistent start's lags (the first step after a
    /// start, until it is committed).
    jerk_lags: bool,
    /// First steps retaken from the paper's start ([`Scheme::constant_guess`]), and the first
    /// one's t_n \[s\].
    paper_retakes: (u32, f64),
}

impl SingleStep {
    /// SS-k (k = 2, 3, 4) with spectral radius at infinity ρ∞.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\].
    ///
    /// # Panics
    /// When k is not 2, 3 or 4.
    pub fn new(k: usize, rho_inf: f64) -> Result<Self, SchemeError> {
        let name = match k {
            2 => SS2.name,
            3 => SS3.name,
            4 => SS4.name,
            _ => panic!("SS-k is defined for k = 2, 3, 4, not {k}"),
        };
        SchemeError::check_rho_inf(name, rho_inf)?;
        let r = rho_inf;
        let gamma_even = 1.0 / (1.0 + r);
        let mut gamma_odd = [C64::new(1.0, 0.0); K_MAX - 1];
        for (g, &(re, im)) in gamma_odd.iter_mut().zip(odd_roots(k)) {
            *g = (C64::new(re, im) * (1.0 - r) + r) / (1.0 + r);
        }
        let mut beta = [C64::new(1.0, 0.0); K_MAX];
        for j in 1..k {
            beta[j] = beta[j - 1] * gamma_even / gamma_odd[k - j - 1];
        }
        Ok(SingleStep {
            k,
            name,
            rho_inf,
            gamma_even,
            gamma_odd,
            beta,
            history: History::new(2, aux_names(k)),
            t_n: 0.0,
            h: 0.0,
            aux_h: 0.0,
            hat: Vec::new(),
            point: milne::Corrector::zeros(0),
            new_lambda: Vector::zeros(0),
            correction: Default::default(),
            extrapolation: true,
            consistent_start: true,
            fresh: false,
            start_jerk: Vector::zeros(0),
            jerk_lags: false,
            paper_retakes: (0, f64::NAN),
        })
    }

    /// The same scheme with the consistent start when `consistent`, else the paper's (module
    /// documentation, "Start").
    pub fn with_consistent_start(mut self, consistent: bool) -> Self {
        self.consistent_start = consistent;
        self
    }

    /// The lags δ_1 … δ_{k−1} of the auxiliaries behind their derivative, in steps (module
    /// documentation, "Start"); index 0 holds δ_0 = 0.
    pub fn lags(&self) -> [C64; K_MAX] {
        let mut delta = [C64::new(0.0, 0.0); K_MAX];
        for j in 1..self.k {
            delta[j] = delta[j - 1] + self.gamma_even - self.gamma_odd[self.k - j - 1];
        }
        delta
    }

    /// Sets the auxiliaries of the consistent start at the level t_n for the step h: w_j = a + δ_j h ȧ,
    /// u_j = v + δ_j h a.
    fn set_consistent_auxiliaries(&mut self) {
        let delta = self.lags();
        let x = &self.history.levels[0];
        for (j, delta_j) in delta.iter().enumerate().take(self.k).skip(1) {
            let d = delta_j * self.h;
            for (chain, value, rate) in [
                (VELOCITY_CHAIN, &x.a, &self.start_jerk),
                (POSITION_CHAIN, &x.v, &x.a),
            ] {
                let s = slot(j, chain);
                for i in 0..value.len() {
                    let w = d * rate[i] + value[i];
                    (self.history.aux[s][i], self.history.aux[s + 1][i]) = (w.re, w.im);
                }
            }
        }
    }

    /// Sets every auxiliary at t_n equal to its derivative, with zero imaginary part (the paper's
    /// start): w_j = a, u_j = v.
    fn set_paper_auxiliaries(&mut self) {
        let x = &self.history.levels[0];
        for j in 1..self.k {
            for (chain, value) in [(VELOCITY_CHAIN, &x.a), (POSITION_CHAIN, &x.v)] {
                let s = slot(j, chain);
                self.history.aux[s].copy_from(value);
                self.history.aux[s + 1].fill(0.0);
            }
        }
    }

    /// Moves the stored auxiliaries from the lags of the step `aux_h` to those of the step h:
    /// w_j ← a_n + (h/aux_h)(w_j − a_n), u_j ← v_n + (h/aux_h)(u_j − v_n) (module documentation,
    /// "Variable steps"). Composes exactly, so a rejected step needs no undo.
    fn move_auxiliaries(&mut self, h: f64) {
        let ratio = h / self.aux_h;
        let x = &self.history.levels[0];
        for j in 1..self.k {
            for (chain, rate) in [(VELOCITY_CHAIN, &x.a), (POSITION_CHAIN, &x.v)] {
                let s = slot(j, chain);
                for (i, &centre) in rate.iter().enumerate() {
                    let re = &mut self.history.aux[s][i];
                    *re = centre + ratio * (*re - centre);
                    self.history.aux[s + 1][i] *= ratio;
                }
            }
        }
        self.aux_h = h;
    }

    /// The auxiliary j (1 … k − 1) of `chain` at t_n, component i.
    fn aux(&self, j: usize, chain: usize, i: usize) -> C64 {
        let s = slot(j, chain);
        C64::new(self.history.aux[s][i], self.history.aux[s + 1][i])
    }

    /// Runs the chain (4b)–(4e) for component i: from the known part `hat0` of the new derivative and
    /// its value `old0` at t_n, stores ŵ_j (or û_j) and returns the known part of the new y and y_n's
    /// increment weight, i.e. ŷ − y_n = h (γ0 ŵ_{k−1} + (1 − γ0) w_{k−1,n}).
    fn chain(&mut self, chain: usize, i: usize, hat0: f64, old0: f64) -> f64 {
        let ge = self.gamma_even;
        let (mut prev_hat, mut prev_old) = (C64::new(hat0, 0.0), C64::new(old0, 0.0));
        for j in 1..self.k {
            let go = self.gamma_odd[self.k - j - 1];
            let old = self.aux(j, chain, i);
            let w_hat = (prev_hat * ge + prev_old * (1.0 - ge) - old * (1.0 - go)) / go;
            let s = slot(j, chain);
            (self.hat[s][i], self.hat[s + 1][i]) = (w_hat.re, w_hat.im);
            (prev_hat, prev_old) = (w_hat, old);
        }
        self.h * (prev_hat * ge + prev_old * (1.0 - ge)).re
    }

    /// The estimate of the first step (module documentation, "Error estimate"): against the cubic
    /// Taylor polynomial through the start's jerk, or, without one (the paper's start), the
    /// trapezoidal rule's h²(a_1 − a_0)/12.
    fn first_step_error(&self, err: &mut LocalError) {
        let (h, x) = (self.h, &self.history.levels[0]);
        if !self.jerk_lags {
            milne::trapezoidal_step_error(h, &x.a, &self.point.u, err);
            return;
        }
        for i in 0..x.q.len() {
            let j = self.start_jerk[i];
            let q_pred = x.q[i] + h * (x.v[i] + h * (x.a[i] / 2.0 + h * j / 6.0));
            let v_pred = x.v[i] + h * (x.a[i] + h * j / 2.0);
            let (q_new, v_new) = self.point.at(i);
            err.q[i] = q_new - q_pred;
            err.v[i] = v_new - v_pred;
        }
    }

    /// Fills q̂, v̂, ŵ_j, û_j and c_q, c_v for the current step.
    fn fill_known_parts(&mut self) {
        let h = self.h;
        self.point.c_v = h * self.gamma_even * self.beta[self.k - 1].re;
        self.point.c_q = self.point.c_v * self.point.c_v;
        for i in 0..self.point.q_hat.len() {
            let (q_n, v_n, a_n) = {
                let x = &self.history.levels[0];
                (x.q[i], x.v[i], x.a[i])
            };
            let v_hat = v_n + self.chain(VELOCITY_CHAIN, i, 0.0, a_n);
            self.point.v_hat[i] = v_hat;
            // u_0 = v_{n+1} = v̂ + c_v a_{n+1}: its known part is v̂, and every β picks up c_v.
            self.point.q_hat[i] = q_n + self.chain(POSITION_CHAIN, i, v_hat, v_n);
        }
    }
}

impl Scheme for SingleStep {
    fn name(&self) -> &'static str {
        self.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        const RE: [&str; K_MAX - 1] = ["gamma1_re", "gamma3_re", "gamma5_re"];
        const IM: [&str; K_MAX - 1] = ["gamma1_im", "gamma3_im", "gamma5_im"];
        let mut p = vec![
            ("rho_inf", self.rho_inf),
            ("start", f64::from(u8::from(self.consistent_start))),
            ("gamma_even", self.gamma_even),
        ];
        for j in 0..self.k - 1 {
            p.push((RE[j], self.gamma_odd[j].re));
            p.push((IM[j], self.gamma_odd[j].im));
        }
        p
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        if self.point.q_hat.len() != n
            || self.new_lambda.len() != m
            || self.hat.len() != 4 * (self.k - 1)
        {
            self.hat = vec![Vector::zeros(n); 4 * (self.k - 1)];
            self.point = milne::Corrector::zeros(n);
            self.new_lambda = Vector::zeros(m);
        }
        // Every auxiliary starts equal to its derivative (the paper's start); the consistent one
        // adds the lags at the first step, when h is known.
        self.set_paper_auxiliaries();
        self.jerk_lags = false;
        if self.start_jerk.len() != n {
            self.start_jerk = Vector::zeros(n);
        }
        self.start_jerk.fill(0.0);
        self.fresh = self.consistent_start;
        self.aux_h = 0.0;
        self.point.u.copy_from(&x0.a);
        self.new_lambda.copy_from(&x0.lambda);
    }

    fn start_derivatives(&self) -> usize {
        usize::from(self.consistent_start)
    }

    fn set_start_derivatives(&mut self, derivatives: &[Vector]) {
        if let Some(jerk) = derivatives.first() {
            self.start_jerk.copy_from(jerk);
        }
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        if self.fresh {
            self.set_consistent_auxiliaries();
            self.jerk_lags = true;
            self.fresh = false;
            self.aux_h = h;
        } else if self.aux_h == 0.0 {
            self.aux_h = h;
        } else if h != self.aux_h {
            self.move_auxiliaries(h);
        }
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        self.fill_known_parts();
        self.point.fill_point(pt, self.t_n + self.h);
        let levels = &self.history.levels;
        let alpha = || self.h / self.history.h;
        let before = (self.extrapolation && self.history.filled >= 2)
            .then(|| (Known::of(&levels[1]), alpha()));
        predict(pt, Known::of(&levels[0]), before, self.h);
    }

    /// On the first step from the consistent start, retakes it from the paper's start: the
    /// consistent lags follow the jerk at t_n, which modes the step does not resolve can set
    /// (measured: the flexible four-bar, whose assembly changed the bars' velocities by 9.2e-3
    /// m/s, diverges from it at h = 4e-3 s); the run's notes say so. Otherwise the constant
    /// Newton start after an extrapolated one.
    fn constant_guess(&mut self, k: usize, pt: &mut IntegrationPoint) -> bool {
        if self.jerk_lags {
            self.jerk_lags = false;
            self.set_paper_auxiliaries();
            if self.paper_retakes.0 == 0 {
                self.paper_retakes.1 = self.t_n;
            }
            self.paper_retakes.0 += 1;
            self.point(k, pt);
            return true;
        }
        levels_constant_guess(&self.history, &mut self.extrapolation, pt)
    }

    fn notes(&self) -> Vec<String> {
        let (count, t) = self.paper_retakes;
        if count == 0 {
            return Vec::new();
        }
        vec![format!(
            "{}: Newton failed on the first step from the consistent start at t = {t:.9} s, and \
             the step was retaken from the paper's start (every auxiliary equal to its \
             derivative); {count} time(s) in the run. Set `start = 0` to begin from it.",
            self.name
        )]
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.point.u.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
        self.correction.record(sol);
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        if self.history.filled < 2 {
            self.first_step_error(err);
            return true;
        }
        // Extrapolation over [t_{n−1}, t_n] (length H, the last step) to t_n + h.
        let (levels, big_h) = (&self.history.levels, self.history.h);
        let theta = 1.0 + self.h / big_h;
        milne::predictor_difference(&levels[1], &levels[0], big_h, theta, &self.point, err);
        true
    }

    fn end_step(&mut self, state: &mut State) {
        self.jerk_lags = false;
        let hist = &mut self.history;
        hist.shift();
        for i in 0..self.point.q_hat.len() {
            let u = self.point.u[i];
            for j in 1..self.k {
                // w_j = ŵ_j + β_j a_{n+1}; u_j = û_j + β_j c_v a_{n+1}.
                for (chain, scale) in [(VELOCITY_CHAIN, 1.0), (POSITION_CHAIN, self.point.c_v)] {
                    let s = slot(j, chain);
                    let w =
                        C64::new(self.hat[s][i], self.hat[s + 1][i]) + self.beta[j] * (scale * u);
                    (hist.aux[s][i], hist.aux[s + 1][i]) = (w.re, w.im);
                }
            }
            let x = &mut hist.levels[0];
            (x.q[i], x.v[i]) = self.point.at(i);
            x.a[i] = u;
        }
        let x = &mut hist.levels[0];
        self.correction.apply(&mut x.q);
        x.lambda.copy_from(&self.new_lambda);
        x.t = self.t_n + self.h;
        hist.h = self.h;
        state.copy_from(&hist.levels[0]);
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}

const SOURCE: &str = "Zhang, Zhang & Masarati (2021) Comput Mech 67:289-313 (parameters); Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, eqs. 4a-4e, 12-15 (predictor)";

const CAPS: Capabilities = Capabilities {
    order: 2,
    explicit_in_positions: false,
    unconditionally_stable: true,
    error_estimate: Some(ESTIMATE),
    error_order: 3,
    variable_step: true,
    form: EquationForm::SecondOrder,
    estimate_noise: 10.0,
};

const ESTIMATE: &str = "predictor-corrector difference with a cubic Hermite predictor (Milne's device), as LMS2; first step: Taylor predictor through the start's jerk, or the trapezoidal rule's acceleration-jump estimate with start = 0";

const PARAMS: [ParamInfo; 2] = [
    ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (0: strongest dissipation; 1: none)",
    },
    ParamInfo {
        name: "start",
        default: 1.0,
        description: "1: consistent start, each auxiliary lagging its derivative by delta_j h (second-order multipliers in index 3); 0: the paper's and MBDyn's, every auxiliary equal to its derivative (first-order driver work on constrained models)",
    },
];

/// SS-k with the registry's parameters.
fn build_ss(
    k: usize,
    name: &'static str,
    p: &SchemeParams,
) -> Result<Box<dyn Scheme>, SchemeError> {
    let scheme = SingleStep::new(k, param(p, "rho_inf"))?;
    Ok(Box::new(
        scheme.with_consistent_start(start_choice(name, p)?),
    ))
}

/// Registry entry of SS2.
pub const SS2: SchemeInfo = SchemeInfo {
    name: "ss2",
    aliases: &["ss-2"],
    family: "single step with auxiliary variables",
    summary: "single-step equivalent of LMS2 with one auxiliary variable per chain; second order, A-stable, roots -> -rho_inf at infinity; self-starting; variable steps by moving the auxiliaries' lags",
    source: SOURCE,
    params: &PARAMS,
    build: |p: &SchemeParams| build_ss(2, "ss2", p),
    caps: CAPS,
};

/// Registry entry of SS3.
pub const SS3: SchemeInfo = SchemeInfo {
    name: "ss3",
    aliases: &["ss-3"],
    family: "single step with auxiliary variables",
    summary: "single-step equivalent of LMS3 with two (complex) auxiliary variables per chain; second order, A-stable, roots -> -rho_inf at infinity; self-starting; variable steps by moving the auxiliaries' lags",
    source: SOURCE,
    params: &PARAMS,
    build: |p: &SchemeParams| build_ss(3, "ss3", p),
    caps: CAPS,
};

/// Registry entry of SS4.
pub const SS4: SchemeInfo = SchemeInfo {
    name: "ss4",
    aliases: &["ss-4"],
    family: "single step with auxiliary variables",
    summary: "single-step equivalent of LMS4 with three (partly complex) auxiliary variables per chain; second order, A-stable, roots -> -rho_inf at infinity; self-starting; variable steps by moving the auxiliaries' lags",
    source: SOURCE,
    params: &PARAMS,
    build: |p: &SchemeParams| build_ss(4, "ss4", p),
    caps: CAPS,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The lags end at δ_{k−1} = ½ − γ0, real: the condition (4a) must meet for second order, so
    /// the consistent start's auxiliaries agree with the scheme's own second-order accuracy.
    #[test]
    fn the_last_lag_is_half_minus_gamma0() {
        for k in 2..=4 {
            for rho in [0.0, 0.5, 0.6, 1.0] {
                let s = SingleStep::new(k, rho).unwrap();
                let last = s.lags()[k - 1];
                let want = 0.5 - s.gamma_even;
                assert!(
                    (last.re - want).abs() < 1e-14 && last.im.abs() < 1e-14,
                    "SS{k} rho {rho}: {last} against {want}"
                );
            }
        }
    }

    /// The roots solve their polynomials, and b0 = γ0 β_{k−1} equals LMS-k's b0 (the product of the even
    /// γ over the odd ones, Zhang et al. 2021).
    #[test]
    fn roots_and_leading_coefficient_match_lms() {
        let polys: [&[f64]; 3] = [
            &[-3.0, 2.0],
            &[10.0, -15.0, 6.0],
            &[-35.0, 84.0, -70.0, 20.0],
        ];
        for k in 2..=4 {
            for &(re, im) in odd_roots(k) {
                let p = C64::new(re, im);
                let value = polys[k - 2]
                    .iter()
                    .rev()
                    .fold(C64::new(0.0, 0.0), |acc, &c| acc * p + c);
                assert!(value.norm() < 1e-13, "k = {k}: residual {value}");
            }
            for rho in [0.0, 0.3, 0.6, 0.9, 1.0] {
                let s = SingleStep::new(k, rho).unwrap();
                let b0 = s.gamma_even * s.beta[k - 1];
                let lms_b0 = super::super::lms::lms_coefficients(k, rho).1[0];
                assert!(
                    b0.im.abs() < 1e-15 && (b0.re - lms_b0).abs() < 1e-14,
                    "k = {k}, ρ = {rho}: {b0}"
                );
            }
        }
    }
}
