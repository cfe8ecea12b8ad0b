//! LMS2, LMS3 and LMS4: the linear k-step methods with tunable algorithmic dissipation of Zhang, Zhang
//! & Masarati (2021), *Improved second-order unconditionally stable schemes of linear multi-step and
//! equivalent single-step integration methods*, Comput Mech 67:289–313, as used by Zhang, Zhang,
//! Zanoni & Masarati (2022), *Performance of implicit A-stable time integration methods for multibody
//! system dynamics*, Multibody Syst Dyn, eq. (2).
//!
//! The method is applied to the first-order form y = \[q; v\], ẏ = \[v; a\]:
//!
//! ```text
//! v_{n+1} = Σ_{j=1..k} a_j v_{n+1−j} + h Σ_{j=0..k} b_j a_{n+1−j}
//! q_{n+1} = Σ_{j=1..k} a_j q_{n+1−j} + h Σ_{j=0..k} b_j v_{n+1−j}
//! b_j = C(2k−2, k−1) C(k, j) ρ^j / ((1 + ρ) D_k(ρ)),  D_k(ρ) = Σ_{i=0..k−1} (−1)^i C(2k−1, k−1−i) ρ^i
//! ```
//!
//! with ρ = ρ∞: the σ polynomial has a k-fold root at −ρ, so every root tends to −ρ∞ as Ωh → ∞. The
//! a_j are the "optimal" ones of Zhang et al. (2021) (second order, A-stable, minimum error constant):
//!
//! ```text
//! LMS2: a1 = 4(1 − ρ)/(3 − ρ),  a2 = (3ρ − 1)/(3 − ρ)
//! LMS3: a1 = 3(2ρ² − 9ρ + 5)/D_3,  a2 = −3(5ρ² − 9ρ + 2)/D_3,  a3 = (10ρ² − 5ρ + 1)/D_3
//! LMS4: a1 = 4(−2ρ³ + 13ρ² − 35ρ + 14)/D_4,  a2 = −4(1 − ρ)(7ρ² − 34ρ + 7)/D_4,
//!       a3 = −4(14ρ³ − 35ρ² + 13ρ − 2)/D_4,  a4 = (35ρ³ − 21ρ² + 7ρ − 1)/D_4
//! ```
//!
//! The unknown of the (single) integration point is u = a_{n+1}; the maps are affine with c_v = h b0
//! and c_q = (h b0)². The equilibrium and the position constraints are imposed at t_{n+1}; λ is
//! algebraic there (it has no history). The first k − 1 steps use the trapezoidal rule, eq. (3) of
//! Zhang et al. (2022) (a1 = 1, b = (½, ½)). Newton starts from the explicit second-order predictor of
//! eqs. (12)–(14) at constant step (α = 1: m0 = −12, m1 = 12, n0 = 8, n1 = 5) applied to the velocity
//! level, a⁽⁰⁾ = (m0 v_n + m1 v_{n−1})/h + n0 a_n + n1 a_{n−1}; λ starts from its linear extrapolation
//! 2λ_n − λ_{n−1}. On the first step both start from their values at t_n (eq. 15).
//!
//! Properties (verified in `tests/lms_family.rs`): second order, A-stable for 0 ≤ ρ∞ ≤ 1 (k = 2) and
//! 0 ≤ ρ∞ < 1 (k = 3, 4); ρ∞ = 0 gives BDF2 for k = 2 and second-order BDF-type formulas (not BDF3,
//! BDF4) for k = 3, 4. At ρ∞ = 1 the methods collapse to the trapezoidal rule with k − 1 parasitic
//! roots at −1: a simple root for LMS2 (accepted), a multiple root for LMS3 and LMS4, which are then
//! not zero-stable (refused).

use super::lms_variable::{max_step_increase, variable_coefficients, K_VARIABLE};
use super::milne;
use super::predictor::{levels_constant_guess, predict, Known};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{
    Capabilities, EquationForm, History, IntegrationPoint, LocalError, PointSolution, Scheme, State,
};
use crate::linalg::Vector;

/// Largest step number k of the family.
const K_MAX: usize = 4;

/// The LMS-k coefficients for spectral radius at infinity ρ∞: (a_1 … a_k, b_0 … b_k), zero-padded.
/// Zhang, Zhang & Masarati (2021), Comput Mech 67:289; Zhang et al. (2022) eq. (2).
///
/// # Panics
/// When k is not 2, 3 or 4.
pub fn lms_coefficients(k: usize, rho_inf: f64) -> ([f64; K_MAX], [f64; K_MAX + 1]) {
    let r = rho_inf;
    let (d, a): (f64, [f64; K_MAX]) = match k {
        2 => {
            let d = 3.0 - r;
            (d, [4.0 * (1.0 - r), 3.0 * r - 1.0, 0.0, 0.0])
        }
        3 => {
            let d = 10.0 - 5.0 * r + r * r;
            let a1 = 3.0 * (2.0 * r * r - 9.0 * r + 5.0);
            let a2 = -3.0 * (5.0 * r * r - 9.0 * r + 2.0);
            (d, [a1, a2, 10.0 * r * r - 5.0 * r + 1.0, 0.0])
        }
        4 => {
            let (r2, r3) = (r * r, r * r * r);
            let d = 35.0 - 21.0 * r + 7.0 * r2 - r3;
            let a1 = 4.0 * (-2.0 * r3 + 13.0 * r2 - 35.0 * r + 14.0);
            let a2 = -4.0 * (1.0 - r) * (7.0 * r2 - 34.0 * r + 7.0);
            let a3 = -4.0 * (14.0 * r3 - 35.0 * r2 + 13.0 * r - 2.0);
            (d, [a1, a2, a3, 35.0 * r3 - 21.0 * r2 + 7.0 * r - 1.0])
        }
        _ => panic!("LMS-k is defined for k = 2, 3, 4, not {k}"),
    };
    // b_j = C(2k−2, k−1) C(k, j) ρ^j / ((1 + ρ) D_k).
    let central = binomial(2 * k - 2, k - 1);
    let mut b = [0.0; K_MAX + 1];
    for (j, bj) in b.iter_mut().enumerate().take(k + 1) {
        *bj = central * binomial(k, j) * r.powi(j as i32) / ((1.0 + r) * d);
    }
    (a.map(|x| x / d), b)
}

/// The binomial coefficient C(n, k) as a float (small arguments only).
fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The LMS-k scheme (see the module documentation). History: k levels, (q, v, a, λ) at t_n … t_{n−k+1}.
///
/// # Variable steps (LMS2 and LMS3)
/// When the step changes, LMS2 and LMS3 take the variable-coefficient formula on the actual grid
/// ([`super::lms_variable`]): the b_j are the constant step's times a factor, so σ keeps its k-fold
/// root at −ρ∞ whatever the ratios, and the a_j (LMS3: a_1, a_3, with a_2 ∝ h/H) and the factor make
/// the formula exact for 1, t and t². The step may grow by at most
/// [`super::lms_variable::max_step_increase`] (the frozen parasitic roots of ρ stay bounded). The
/// formula replaced, on 2026-11-28, a restart from the history interpolated at t_n − h, which put a
/// velocity inconsistency into every changed step: per unit step in index 3 it drove LMS2
/// (ρ∞ = 0.6) to h_min on the pendulum at every rtol, and in stabilized index 2 at rtol 1e-10, and
/// for LMS3 (tried, not kept) it stopped on Andrews and lost the energy balance in index 3
/// (docs/schemes.md). LMS4 declares a constant step (`variable_step: false`) and is refused in
/// adaptive runs: no choice of its two free coefficients kept the frozen parasitic roots below 1.5.
///
/// # Error estimate
/// The predictor–corrector difference: the predictor is the cubic Hermite extrapolation of q (from q,
/// v) and of v (from v, a) at t_{n−1} and t_n to t_{n+1}, whose error is O(h⁴), so the difference from
/// the corrector's q_{n+1}, v_{n+1} is its local error C h³ y⃛ up to O(h⁴) (Milne's device with a
/// predictor one order higher). The trapezoidal first step uses the acceleration-jump estimate of the
/// trapezoidal rule, e_q = h²(a_1 − a_0)/12 (Zienkiewicz & Xie 1991).
#[derive(Debug, Clone)]
pub struct Lms {
    k: usize,
    name: &'static str,
    rho_inf: f64,
    a: [f64; K_MAX],
    b: [f64; K_MAX + 1],
    history: History,
    /// The step that produced `history.levels[1]` \[s\] (0 until known): LMS3's second gap.
    earlier_h: f64,
    /// The largest step increase of an adaptive run ([`Scheme::max_step_increase`]), computed once.
    max_increase: f64,
    // The current step.
    t_n: f64,
    h: f64,
    /// The step's point maps and solution (q̂, v̂, c_q, c_v, u = a_{n+1}).
    point: milne::Corrector,
    new_lambda: Vector,
    correction: super::KeptCorrection,
    /// False once Newton failed from the extrapolated start ([`Scheme::constant_guess`]).
    extrapolation: bool,
}

impl Lms {
    /// LMS-k (k = 2, 3, 4) with spectral radius at infinity ρ∞.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\], or equal to 1 for k ≥ 3 (k − 1 parasitic
    /// roots at −1: not zero-stable).
    ///
    /// # Panics
    /// When k is not 2, 3 or 4.
    pub fn new(k: usize, rho_inf: f64) -> Result<Self, SchemeError> {
        let name = match k {
            2 => LMS2.name,
            3 => LMS3.name,
            4 => LMS4.name,
            _ => panic!("LMS-k is defined for k = 2, 3, 4, not {k}"),
        };
        SchemeError::check_rho_inf(name, rho_inf)?;
        if k >= 3 && rho_inf >= 1.0 {
            return Err(SchemeError::out_of_range(
                name,
                "rho_inf",
                rho_inf,
                "ρ∞ = 1 collapses the method to the trapezoidal rule with a multiple parasitic root at −1, which is not zero-stable; use ρ∞ < 1 (or lms2, or the trapezoidal rule)",
            ));
        }
        let (a, b) = lms_coefficients(k, rho_inf);
        let z = Vector::zeros(0);
        Ok(Lms {
            k,
            name,
            rho_inf,
            a,
            b,
            history: History::new(k, &[]),
            earlier_h: 0.0,
            max_increase: if k <= K_VARIABLE {
                max_step_increase(k, rho_inf)
            } else {
                super::MAX_STEP_INCREASE
            },
            t_n: 0.0,
            h: 0.0,
            point: milne::Corrector::zeros(0),
            new_lambda: z,
            correction: Default::default(),
            extrapolation: true,
        })
    }

    /// True on the trapezoidal start-up steps (eq. 3): fewer than k levels of history.
    fn starting(&self) -> bool {
        self.history.filled < self.k
    }

    /// True when the step and the k − 1 steps that made the levels in use are equal (bit for bit).
    fn constant_step(&self) -> bool {
        self.h == self.history.h && (self.k < 3 || self.history.h == self.earlier_h)
    }

    /// Coefficients (a, b) of the current step: the trapezoidal start-up (eq. 3) while starting,
    /// the variable-coefficient formula of LMS2 and LMS3 when a step in use changed, else the
    /// constant ones.
    fn step_coefficients(&self) -> ([f64; K_MAX], [f64; K_MAX + 1]) {
        if self.starting() {
            ([1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0, 0.0])
        } else if self.k <= K_VARIABLE && !self.constant_step() {
            let ratios = [self.history.h / self.h, self.earlier_h / self.h];
            variable_coefficients(self.k, &self.a, &self.b, &ratios)
        } else {
            (self.a, self.b)
        }
    }

    /// The known parts v̂, q̂ of the new velocities and positions (everything but b0 h a_{n+1}).
    fn fill_known_parts(&mut self) {
        let h = self.h;
        let (a, b) = self.step_coefficients();
        let used = if self.starting() { 1 } else { self.k };
        let b0 = b[0];
        // As increments from level t_n (Σ a_j = 1), so that the new state carries the rounding
        // of the increment rather than that of Σ a_j q_{n+1−j} (a few ulps of |q|).
        let levels = &self.history.levels;
        let last = &levels[0];
        for i in 0..self.point.q_hat.len() {
            let (mut dv, mut dq) = (0.0, 0.0);
            for (j, x) in levels.iter().enumerate().take(used) {
                let j = j + 1;
                dv += a[j - 1] * (x.v[i] - last.v[i]) + h * b[j] * x.a[i];
                dq += a[j - 1] * (x.q[i] - last.q[i]) + h * b[j] * x.v[i];
            }
            let vh = last.v[i] + dv;
            let qh = last.q[i] + (dq + h * b0 * vh);
            self.point.v_hat[i] = vh;
            self.point.q_hat[i] = qh;
        }
        self.point.c_v = h * b0;
        self.point.c_q = self.point.c_v * self.point.c_v;
    }
}

impl Scheme for Lms {
    fn name(&self) -> &'static str {
        self.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        const A: [&str; K_MAX] = ["a1", "a2", "a3", "a4"];
        const B: [&str; K_MAX + 1] = ["b0", "b1", "b2", "b3", "b4"];
        let mut p = vec![("rho_inf", self.rho_inf)];
        p.extend((0..self.k).map(|j| (A[j], self.a[j])));
        p.extend((0..=self.k).map(|j| (B[j], self.b[j])));
        p
    }

    fn points_per_step(&self) -> usize {
        1
    }

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        self.earlier_h = 0.0;
        if self.point.q_hat.len() != n || self.new_lambda.len() != m {
            self.point = milne::Corrector::zeros(n);
            self.new_lambda = Vector::zeros(m);
        }
        self.point.u.copy_from(&x0.a);
        self.new_lambda.copy_from(&x0.lambda);
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
    }

    fn max_step_increase(&self) -> f64 {
        self.max_increase
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        self.fill_known_parts();
        self.point.fill_point(pt, self.t_n + self.h);
        let levels = &self.history.levels;
        let ratio = || self.h / self.history.h;
        let before = (self.extrapolation && self.history.filled >= 2)
            .then(|| (Known::of(&levels[1]), ratio()));
        predict(pt, Known::of(&levels[0]), before, self.h);
    }

    fn constant_guess(&mut self, _k: usize, pt: &mut IntegrationPoint) -> bool {
        levels_constant_guess(&self.history, &mut self.extrapolation, pt)
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.point.u.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
        self.correction.record(sol);
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        let (levels, big_h) = (&self.history.levels, self.history.h);
        if self.history.filled < 2 {
            milne::trapezoidal_step_error(self.h, &levels[0].a, &self.point.u, err);
            return true;
        }
        // Extrapolation over [t_{n−1}, t_n] (length H, the last step) to t_n + h.
        let theta = 1.0 + self.h / big_h;
        milne::predictor_difference(&levels[1], &levels[0], big_h, theta, &self.point, err);
        true
    }

    fn end_step(&mut self, state: &mut State) {
        // The new level overwrites the oldest buffer (level n − k + 1 is no longer needed).
        let hist = &mut self.history;
        hist.shift();
        let x = &mut hist.levels[0];
        for i in 0..x.q.len() {
            (x.q[i], x.v[i]) = self.point.at(i);
            x.a[i] = self.point.u[i];
        }
        self.correction.apply(&mut x.q);
        x.lambda.copy_from(&self.new_lambda);
        x.t = self.t_n + self.h;
        self.earlier_h = hist.h;
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

const SOURCE: &str = "Zhang, Zhang & Masarati (2021) Comput Mech 67:289-313 (coefficients); Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, eqs. 2, 3 (trapezoidal start), 12-15 (predictor)";

const ESTIMATE: &str = "predictor-corrector difference with a cubic Hermite predictor (Milne's device); trapezoidal start-up: Zienkiewicz & Xie (1991)";

/// The capabilities of LMS-k; LMS2 and LMS3 run with variable steps.
const fn caps(variable_step: bool) -> Capabilities {
    Capabilities {
        order: 2,
        explicit_in_positions: false,
        unconditionally_stable: true,
        error_estimate: Some(ESTIMATE),
        error_order: 3,
        variable_step,
        form: EquationForm::SecondOrder,
        estimate_noise: 10.0,
    }
}

/// ρ∞ of LMS3 and LMS4.
const RHO_INF_BELOW_ONE: [ParamInfo; 1] = [ParamInfo {
    name: "rho_inf",
    default: 0.6,
    description: "spectral radius at infinity, 0 ≤ ρ∞ < 1 (0: a second-order BDF-type formula; 1 is refused: not zero-stable)",
}];

/// Registry entry of LMS2.
pub const LMS2: SchemeInfo = SchemeInfo {
    name: "lms2",
    aliases: &["lms-2", "ms2"],
    family: "linear multistep",
    summary: "linear two-step method with tunable rho_inf in first-order form y = [q; v]; second order, A-stable, all roots -> -rho_inf at infinity; trapezoidal first step; variable steps by a variable-coefficient formula",
    source: SOURCE,
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (0: BDF2; 1: degenerate, trapezoidal with a parasitic root at −1)",
    }],
    build: |p: &SchemeParams| Ok(Box::new(Lms::new(2, param(p, "rho_inf"))?) as Box<dyn Scheme>),
    caps: caps(true),
};

/// Registry entry of LMS3.
pub const LMS3: SchemeInfo = SchemeInfo {
    name: "lms3",
    aliases: &["lms-3", "ms3"],
    family: "linear multistep",
    summary: "linear three-step method with tunable rho_inf in first-order form y = [q; v]; second order, A-stable, all three roots -> -rho_inf at infinity; trapezoidal first two steps; variable steps by a variable-coefficient formula",
    source: SOURCE,
    params: &RHO_INF_BELOW_ONE,
    build: |p: &SchemeParams| Ok(Box::new(Lms::new(3, param(p, "rho_inf"))?) as Box<dyn Scheme>),
    caps: caps(true),
};

/// Registry entry of LMS4.
pub const LMS4: SchemeInfo = SchemeInfo {
    name: "lms4",
    aliases: &["lms-4", "ms4"],
    family: "linear multistep",
    summary: "linear four-step method with tunable rho_inf in first-order form y = [q; v]; second order, A-stable, all four roots -> -rho_inf at infinity; trapezoidal first three steps; constant step",
    source: SOURCE,
    params: &RHO_INF_BELOW_ONE,
    build: |p: &SchemeParams| Ok(Box::new(Lms::new(4, param(p, "rho_inf"))?) as Box<dyn Scheme>),
    caps: caps(false),
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact rationals of Zhang et al. (2021) at ρ∞ = 0 and 0.6 (as printed in the paper).
    #[test]
    fn coefficients_match_the_published_rationals() {
        let cases: [(usize, f64, &[f64], &[f64]); 6] = [
            (2, 0.0, &[4.0 / 3.0, -1.0 / 3.0], &[2.0 / 3.0, 0.0, 0.0]),
            (
                2,
                0.6,
                &[2.0 / 3.0, 1.0 / 3.0],
                &[25.0 / 48.0, 5.0 / 8.0, 3.0 / 16.0],
            ),
            (3, 0.0, &[1.5, -0.6, 0.1], &[0.6, 0.0, 0.0, 0.0]),
            (
                3,
                0.6,
                &[3.0 / 23.0, 15.0 / 23.0, 5.0 / 23.0],
                &[375.0 / 736.0, 675.0 / 736.0, 405.0 / 736.0, 81.0 / 736.0],
            ),
            (
                4,
                0.0,
                &[1.6, -0.8, 8.0 / 35.0, -1.0 / 35.0],
                &[4.0 / 7.0, 0.0, 0.0, 0.0, 0.0],
            ),
            (
                4,
                0.6,
                &[-86.0 / 193.0, 136.0 / 193.0, 118.0 / 193.0, 25.0 / 193.0],
                &[0.50599, 1.21438, 1.09294, 0.43718, 0.065576],
            ),
        ];
        for (k, rho, a_ref, b_ref) in cases {
            let (a, b) = lms_coefficients(k, rho);
            for (x, y) in a.iter().zip(a_ref) {
                assert!((x - y).abs() < 1e-14, "k = {k}, ρ = {rho}: a {a:?}");
            }
            for (x, y) in b.iter().zip(b_ref) {
                // LMS4 at 0.6: five published digits.
                assert!((x - y).abs() < 1e-5, "k = {k}, ρ = {rho}: b {b:?}");
            }
        }
    }

    /// Order 2: Σ a_j = 1 (C0), and C1 = C2 = 0 for the first-order form.
    #[test]
    fn order_conditions_hold_for_every_rho() {
        for k in 2..=4 {
            for i in 0..=10 {
                let rho = 0.099 * i as f64;
                let (a, b) = lms_coefficients(k, rho);
                let c = |p: i32| {
                    // Residual of y = t^p on the grid t_{n+1−j} = 1 − j: C_p ∝ Σ a_j (1−j)^p + p Σ b_j (1−j)^{p−1} − 1.
                    let mut s = -1.0;
                    for j in 1..=k {
                        s += a[j - 1] * (1.0 - j as f64).powi(p);
                    }
                    for (j, bj) in b.iter().enumerate().take(k + 1) {
                        if p > 0 {
                            s += p as f64 * bj * (1.0 - j as f64).powi(p - 1);
                        }
                    }
                    s
                };
                for p in 0..=2 {
                    assert!(c(p).abs() < 1e-13, "k = {k}, ρ = {rho}: C{p} = {}", c(p));
                }
                assert!(c(3).abs() > 1e-3, "k = {k}: not of order 3");
            }
        }
    }

    #[test]
    fn rho_one_is_refused_for_three_and_four_steps() {
        assert!(Lms::new(2, 1.0).is_ok());
        for k in [3, 4] {
            let e = Lms::new(k, 1.0).unwrap_err();
            assert!(e.to_string().contains("zero-stable"), "{e}");
        }
    }
}
