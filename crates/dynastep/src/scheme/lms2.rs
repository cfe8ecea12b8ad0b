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

use super::hermite::{cubic_weights, quintic_weights};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, History, IntegrationPoint, LocalError, PointSolution, Scheme, State};
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

/// The LMS2 scheme (see the module documentation). History: two levels, (q, v, a, λ) at t_n and
/// t_{n−1}.
///
/// # Variable steps
/// The coefficients are those of a constant step. When the step changes from h_{n−1} to h, the level
/// t_{n−1} is replaced, for this step, by the state at t_n − h interpolated with the quintic Hermite
/// polynomial through (q, v, a) at t_{n−1} and t_n (error O(h⁶), below the method's O(h³) local
/// error), and λ by linear interpolation: the restart-from-interpolated-history strategy (Hairer,
/// Nørsett & Wanner 1993, §III.5). The committed history is not touched before the step is accepted.
///
/// # Error estimate
/// The predictor–corrector difference: the predictor is the cubic Hermite extrapolation of q (from q,
/// v) and of v (from v, a) at t_{n−1} and t_n to t_{n+1}, whose error is O(h⁴), so the difference from
/// the corrector's q_{n+1}, v_{n+1} is its local error C h³ y⃛ up to O(h⁴) (Milne's device with a
/// predictor one order higher). The trapezoidal first step uses the acceleration-jump estimate of the
/// trapezoidal rule, e_q = h²(a_1 − a_0)/12 (Zienkiewicz & Xie 1991).
#[derive(Debug, Clone)]
pub struct Lms2 {
    rho_inf: f64,
    coef: [f64; 5],
    history: History,
    // The current step.
    t_n: f64,
    h: f64,
    /// Level t_n − h: levels\[1\] when the step is unchanged, else interpolated into `resampled`.
    use_resampled: bool,
    resampled: State,
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
            history: History::new(2, &[]),
            t_n: 0.0,
            h: 0.0,
            use_resampled: false,
            resampled: State::zeros(0.0, 0, 0),
            q_hat: z.clone(),
            v_hat: z.clone(),
            c_q: 0.0,
            c_v: 0.0,
            new_a: z.clone(),
            new_lambda: z,
        })
    }

    /// True on the trapezoidal start-up step (eq. 3): one level of history.
    fn first(&self) -> bool {
        self.history.filled < 2
    }

    /// Coefficients of the current step: the trapezoidal start-up (eq. 3) on the first step.
    fn step_coefficients(&self) -> [f64; 5] {
        if self.first() {
            [1.0, 0.0, 0.5, 0.5, 0.0]
        } else {
            self.coef
        }
    }

    /// The level at t_n − h used by this step.
    fn previous(&self) -> &State {
        previous_level(&self.history, &self.resampled, self.use_resampled)
    }

    /// Interpolates the history at t_n − h into `resampled` (quintic Hermite in q, v, a; linear λ).
    fn resample(&mut self, h: f64) {
        let (x0, x1) = (&self.history.levels[1], &self.history.levels[0]);
        let big_h = self.history.h;
        let w = quintic_weights(1.0 - h / big_h);
        let r = &mut self.resampled;
        for i in 0..x0.q.len() {
            let y = [
                x0.q[i],
                big_h * x0.v[i],
                big_h * big_h * x0.a[i],
                x1.q[i],
                big_h * x1.v[i],
                big_h * big_h * x1.a[i],
            ];
            let dot = |k: usize| (0..6).map(|j| w[k][j] * y[j]).sum::<f64>();
            r.q[i] = dot(0);
            r.v[i] = dot(1) / big_h;
            r.a[i] = dot(2) / (big_h * big_h);
        }
        let theta = 1.0 - h / big_h;
        for j in 0..x0.lambda.len() {
            r.lambda[j] = x0.lambda[j] + theta * (x1.lambda[j] - x0.lambda[j]);
        }
        r.t = self.t_n - h;
    }
}

/// Level t_{n−1} of the history, or its resampling at t_n − h.
fn previous_level<'a>(
    history: &'a History,
    resampled: &'a State,
    use_resampled: bool,
) -> &'a State {
    if use_resampled {
        resampled
    } else {
        &history.levels[1]
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

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        if self.q_hat.len() != n || self.new_lambda.len() != m {
            self.resampled = State::zeros(x0.t, n, m);
            self.q_hat = Vector::zeros(n);
            self.v_hat = Vector::zeros(n);
            self.new_a = Vector::zeros(n);
            self.new_lambda = Vector::zeros(m);
        }
        self.new_a.copy_from(&x0.a);
        self.new_lambda.copy_from(&x0.lambda);
        self.use_resampled = false;
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        self.use_resampled = !self.first() && h != self.history.h;
        if self.use_resampled {
            self.resample(h);
        }
    }

    fn point(&mut self, _k: usize, pt: &mut IntegrationPoint) {
        let h = self.h;
        let [a1, a2, b0, b1, b2] = self.step_coefficients();
        self.c_v = h * b0;
        self.c_q = self.c_v * self.c_v;
        let first = self.first();
        let x = &self.history.levels[0];
        let old = previous_level(&self.history, &self.resampled, self.use_resampled);
        for i in 0..x.q.len() {
            let vh = a1 * x.v[i] + a2 * old.v[i] + h * (b1 * x.a[i] + b2 * old.a[i]);
            self.v_hat[i] = vh;
            self.q_hat[i] =
                a1 * x.q[i] + a2 * old.q[i] + h * (b1 * x.v[i] + b2 * old.v[i]) + h * b0 * vh;
        }
        pt.t_e = self.t_n + h;
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
        let (x, old) = (&self.history.levels[0], self.previous());
        if first {
            // Constant prediction, eq. (15).
            pt.u_guess.copy_from(&x.a);
            pt.lambda_guess.copy_from(&x.lambda);
        } else {
            // Second-order prediction, eqs. (12)-(14) with α = 1.
            let (m0, m1, n0, n1) = (-12.0, 12.0, 8.0, 5.0);
            for i in 0..x.q.len() {
                pt.u_guess[i] = (m0 * x.v[i] + m1 * old.v[i]) / h + n0 * x.a[i] + n1 * old.a[i];
            }
            for j in 0..x.lambda.len() {
                pt.lambda_guess[j] = 2.0 * x.lambda[j] - old.lambda[j];
            }
        }
    }

    fn accept_point(&mut self, _k: usize, sol: &PointSolution<'_>) {
        self.new_a.copy_from(sol.u);
        self.new_lambda.copy_from(sol.lambda);
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        let h = self.h;
        let x = &self.history.levels[0];
        if self.first() {
            for i in 0..x.q.len() {
                err.q[i] = h * h * (self.new_a[i] - x.a[i]) / 12.0;
                err.v[i] = 0.0;
            }
            return true;
        }
        let old = self.previous();
        let w = cubic_weights(2.0);
        for i in 0..x.q.len() {
            let u = self.new_a[i];
            let (q_new, v_new) = (self.q_hat[i] + self.c_q * u, self.v_hat[i] + self.c_v * u);
            let q_pred = w[0] * old.q[i] + h * w[1] * old.v[i] + w[2] * x.q[i] + h * w[3] * x.v[i];
            let v_pred = w[0] * old.v[i] + h * w[1] * old.a[i] + w[2] * x.v[i] + h * w[3] * x.a[i];
            err.q[i] = q_new - q_pred;
            err.v[i] = v_new - v_pred;
        }
        true
    }

    fn end_step(&mut self, state: &mut State) {
        // The new level overwrites the oldest buffer (level n − 1 is no longer needed).
        let hist = &mut self.history;
        hist.shift();
        let x = &mut hist.levels[0];
        for i in 0..x.q.len() {
            let u = self.new_a[i];
            x.q[i] = self.q_hat[i] + self.c_q * u;
            x.v[i] = self.v_hat[i] + self.c_v * u;
            x.a[i] = u;
        }
        x.lambda.copy_from(&self.new_lambda);
        x.t = self.t_n + self.h;
        hist.h = self.h;
        self.use_resampled = false;
        state.copy_from(&hist.levels[0]);
    }

    fn reject(&mut self) {
        self.use_resampled = false;
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
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
    caps: Capabilities {
        order: 2,
        explicit_in_positions: false,
        unconditionally_stable: true,
        error_estimate: Some("predictor-corrector difference with a cubic Hermite predictor (Milne's device); trapezoidal first step: Zienkiewicz & Xie (1991)"),
        error_order: 3,
        variable_step: true,
        formulations: &["index3"],
    },
};
