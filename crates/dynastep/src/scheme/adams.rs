//! Adams–Bashforth–Moulton predictor–corrector in PECE mode, variable step and variable order, on
//! the first-order form y = (q, v), ẏ = f = (v, a) (Haug 1989, *Computer-Aided Kinematics and
//! Dynamics of Mechanical Systems*, §7.4; after Shampine & Gordon 1975, *Computer Solution of
//! Ordinary Differential Equations: the Initial Value Problem*, the DE/STEP code).
//!
//! **Order k** follows Haug's naming: the Adams–Bashforth predictor of order k and the Adams–Moulton
//! corrector of order k + 1 (eqs. 7.4.11 and 7.4.15). With variable steps the formulas are written in
//! Newton's divided differences over the stored times τ_i = t_{n−i}, so no step-size history
//! restriction applies:
//!
//! ```text
//! d_j = f[τ_0, …, τ_j]                         (divided differences of the past f, j < k)
//! W_j = ∫_{t_n}^{t_{n+1}} Π_{i<j} (t − τ_i) dt  (8-point Gauss–Legendre: exact up to degree 15)
//! y^p = y_n + Σ_{j<k} W_j d_j                   (P; then E: f^p = f(y^p, t_{n+1}))
//! e_j = f[t_{n+1}, τ_0, …, τ_{j−1}],  e_0 = f^p,  e_j = (e_{j−1} − d_{j−1}) / (t_{n+1} − τ_{j−1})
//! y_{n+1} = y^p + W_k e_k                        (C; then E: f_{n+1} = f(y_{n+1}, t_{n+1}))
//! ```
//!
//! With a constant step these are exactly Haug's backward-difference formulas (W_j d_j = h γ_j ∇^j f;
//! tests/adams_textbook.rs reproduces his Tables 7.4.3 and 7.4.6–7.4.9 and Examples 7.4.4–7.4.5
//! with them, and shows where Tables 7.4.11–7.4.12 differ).
//!
//! **Error estimate** of order k: the difference between the correctors of orders k and k + 1,
//! V_k e_k with V_j = ∫ (t − t_{n+1}) Π_{i<j−1} (t − τ_i) dt, O(h^{k+1}); with a constant step it
//! is h(γ*_k) ∇^k f^p_{n+1}, Haug's eq. 7.4.16 one order down (the step keeps the more accurate
//! order-(k+1) corrector: local extrapolation, as DE/STEP does). The estimates at orders k − 1 and
//! k + 1 come from the same differences.
//!
//! **Start and order selection.** The method starts at order 1 (Euler predictor, trapezoidal
//! corrector) from the single level of a (re)start; with fixed steps the order rises by one per
//! step up to `max_order`, as in Haug's self-starting procedure (Examples 7.4.4–7.4.5). With error
//! control, after each accepted step the order is lowered when the estimate at k − 1 is no larger
//! than at k, and raised when k + 1 past levels exist and the estimate at k + 1 is smaller than at
//! k (Haug §7.4.4; Shampine & Gordon ch. 8 use the same comparison); three rejections in a row drop
//! the order to 1. The history holds max_order + 1 levels, and the differences are rebuilt from
//! them at every step, so a formulation that rewrites the newest level (coordinate projection) is
//! followed without a restart.
//!
//! `corrector = 0` gives the Adams–Bashforth predictor alone (PE mode: one evaluation per step),
//! for Haug's Tables 7.4.3 and 7.4.6–7.4.9; its estimate is then W_k e_k, eq. 7.4.13.

use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{
    Capabilities, EquationForm, History, IntegrationPoint, LocalError, PointSolution, Scheme, State,
};
use crate::linalg::Vector;

/// Largest order (Shampine & Gordon's DE/STEP uses 12).
pub const MAX_ORDER: usize = 12;

/// The stability boundary of PECE of order k on the negative real axis, B_k = −hλ where the
/// method applied to ẏ = λy with constant steps first has a root of modulus above 1 (index k − 1).
/// Computed from the constant-step backward-difference form (Adams–Bashforth of order k,
/// Adams–Moulton of order k + 1, the final evaluation from the corrected value), by bisection on
/// the spectral radius of its companion matrix to 1e-4; the test `stability_boundary_of_each_order`
/// checks them against the scheme itself through the linear stability analysis. Order 1 is Heun's
/// method (B = 2).
pub const STABILITY_BOUNDARY: [f64; MAX_ORDER] = [
    2.0, 2.4, 1.9346, 1.4115, 1.0393, 0.7728, 0.5797, 0.4394, 0.3374, 0.2635, 0.2101, 0.0617,
];

/// A committed step counts as bounded by stability when h·ρ ≥ `STIFF_RATIO`·B_k, with ρ the
/// secant estimate of the Lipschitz constant of f along the step's correction,
/// ρ = ‖f(y_{n+1}) − f(y^p)‖ / ‖y_{n+1} − y^p‖ (the estimate of Shampine's and Hairer's stiffness
/// tests; y_{n+1} after the formulation's projection, f there as the formulation recomputed it).
/// With error control a stiff run holds h·ρ near B_k, where the step controller keeps it. Accurate
/// steps of a high order come near it too (B_12 is 0.06), so the ratio alone does not tell: on
/// the non-stiff examples at rtol 1e-4 to 1e-10 h·ρ/B_k has a median of 0.04–0.7. What tells is
/// how long it stays there: the count of [`Scheme::observe_stiffness`] grows by one per step at
/// or above the ratio and is reset by [`NON_STIFF_STEPS`] steps in a row below it (the reset of
/// Hairer & Wanner's stiffness test in DOPRI5, *Solving ODEs I*, §IV.2). Measured by hand with a
/// print of the ratio (2026-11-29): the count reached at most 189 on the non-stiff examples
/// (the spring linkage at rtol 1e-10; 200 on the light cart-pole at 1e-10, 360 on the stiff
/// pendulum at 1e-6), the whole run on the flyball governor, and above 1 000 on the cantilever,
/// the lateral-buckling beam and the flexible four-bar, whose fast modes bound Adams PECE's step
/// with runs of a few steps below the ratio in between (docs/schemes.md, "The stiffness switch").
pub const STIFF_RATIO: f64 = 0.5;

/// Steps in a row below [`STIFF_RATIO`] that reset the count of steps bounded by stability.
pub const NON_STIFF_STEPS: usize = 6;

/// 8-point Gauss–Legendre nodes on \[−1, 1\] (positive half) and weights.
const GAUSS_X: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];
const GAUSS_W: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// The Adams PECE scheme (see the module documentation).
#[derive(Debug, Clone)]
pub struct AdamsPece {
    max_order: usize,
    corrector: bool,
    history: History,
    /// Order of the next step (before capping by the levels available).
    order: usize,
    /// Order of the current step.
    k: usize,
    rejections: usize,
    /// True once the loop chooses the order (error control); fixed-step runs raise it by one per
    /// step instead.
    adaptive: bool,
    t_n: f64,
    h: f64,
    /// δ_i = τ_i − t_n (i ≤ k).
    delta: Vec<f64>,
    /// W_j (j ≤ k + 1) and V_j (j ≤ k + 1).
    w: Vec<f64>,
    v: Vec<f64>,
    /// Divided differences of the past f, position part (from v) and velocity part (from a).
    dq: Vec<Vector>,
    dv: Vec<Vector>,
    /// e_j, position and velocity parts.
    eq: Vec<Vector>,
    ev: Vec<Vector>,
    /// The tentative new state; `pred` the predicted one.
    new: State,
    pred: State,
    /// Work space of the estimates compared in `select_order`.
    scratch: LocalError,
    /// Committed steps bounded by stability ([`STIFF_RATIO`]) since the last
    /// [`NON_STIFF_STEPS`] in a row that were not.
    stiff_steps: usize,
    /// Committed steps in a row not bounded by stability.
    non_stiff_steps: usize,
}

impl AdamsPece {
    /// The scheme with orders 1 … `max_order` (≤ 12), PECE or (`corrector` false) PE.
    pub fn new(max_order: usize, corrector: bool) -> Self {
        let z = || vec![Vector::zeros(0); MAX_ORDER + 2];
        AdamsPece {
            max_order,
            corrector,
            history: History::new(max_order + 1, &[]),
            order: 1,
            k: 1,
            rejections: 0,
            adaptive: false,
            t_n: 0.0,
            h: 0.0,
            delta: vec![0.0; MAX_ORDER + 2],
            w: vec![0.0; MAX_ORDER + 3],
            v: vec![0.0; MAX_ORDER + 3],
            dq: z(),
            dv: z(),
            eq: z(),
            ev: z(),
            new: State::zeros(0.0, 0, 0),
            pred: State::zeros(0.0, 0, 0),
            scratch: LocalError::zeros(0),
            stiff_steps: 0,
            non_stiff_steps: 0,
        }
    }

    /// Number of past levels the differences use: k for the step, one more for the k + 1
    /// estimate when stored.
    fn levels_used(&self) -> usize {
        (self.k + 1).min(self.history.filled)
    }

    /// The divided differences d_j of the stored levels, j < levels_used().
    fn differences(&mut self) {
        let l = self.levels_used();
        for j in 0..l {
            let x = &self.history.levels[j];
            self.dq[j].copy_from(&x.v);
            self.dv[j].copy_from(&x.a);
        }
        for level in 1..l {
            for j in (level..l).rev() {
                let span = self.delta[j - level] - self.delta[j];
                let (lo, hi) = self.dq.split_at_mut(j);
                hi[0].axpy(1.0 / span, &lo[j - 1], -1.0 / span);
                let (lo, hi) = self.dv.split_at_mut(j);
                hi[0].axpy(1.0 / span, &lo[j - 1], -1.0 / span);
            }
        }
    }

    /// The weights W_j and V_j for j ≤ levels_used(), by Gauss–Legendre quadrature over the step.
    fn weights(&mut self) {
        let l = self.levels_used();
        self.w.fill(0.0);
        self.v.fill(0.0);
        for (x, wg) in GAUSS_X.iter().zip(GAUSS_W) {
            for s in [-1.0, 1.0] {
                let tau = 0.5 * self.h * (1.0 + s * x);
                let weight = 0.5 * self.h * wg;
                let mut p = 1.0;
                let mut pv = tau - self.h;
                for j in 0..=l {
                    self.w[j] += weight * p;
                    if j >= 1 {
                        self.v[j] += weight * pv;
                        pv *= tau - self.delta[j - 1];
                    }
                    if j < l {
                        p *= tau - self.delta[j];
                    }
                }
            }
        }
    }

    /// e_j for j ≤ levels_used() from f^p (position part v^p, velocity part a^p).
    fn new_differences(&mut self) {
        let l = self.levels_used();
        self.eq[0].copy_from(&self.pred.v);
        self.ev[0].copy_from(&self.pred.a);
        for j in 1..=l {
            let span = self.h - self.delta[j - 1];
            let (lo, hi) = self.eq.split_at_mut(j);
            hi[0].copy_from(&lo[j - 1]);
            hi[0].axpy(-1.0 / span, &self.dq[j - 1], 1.0 / span);
            let (lo, hi) = self.ev.split_at_mut(j);
            hi[0].copy_from(&lo[j - 1]);
            hi[0].axpy(-1.0 / span, &self.dv[j - 1], 1.0 / span);
        }
    }

    /// h·ρ/B_k of the step just committed (see [`STIFF_RATIO`]): the newest history level against
    /// the prediction of the same step. `None` for a PE scheme, before the first step, or when the
    /// correction was zero.
    fn stability_ratio(&self) -> Option<f64> {
        let x = self.history.newest();
        if !self.corrector || self.history.filled < 2 || x.t != self.t_n + self.h {
            return None;
        }
        let (mut df, mut dy) = (0.0, 0.0);
        for i in 0..x.q.len() {
            let (eq, ev, ea) = (
                x.q[i] - self.pred.q[i],
                x.v[i] - self.pred.v[i],
                x.a[i] - self.pred.a[i],
            );
            df += ev * ev + ea * ea;
            dy += eq * eq + ev * ev;
        }
        (dy > 0.0).then(|| self.h * (df / dy).sqrt() / STABILITY_BOUNDARY[self.k - 1])
    }

    /// The error estimate at order `j` (1 ≤ j ≤ levels_used()) into `err`.
    fn estimate(&self, j: usize, err: &mut LocalError) {
        let c = if self.corrector { self.v[j] } else { self.w[j] };
        err.q.copy_from(&self.eq[j]);
        err.q *= c;
        err.v.copy_from(&self.ev[j]);
        err.v *= c;
    }
}

impl Scheme for AdamsPece {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("max_order", self.max_order as f64),
            ("corrector", f64::from(u8::from(self.corrector))),
        ]
    }

    fn points_per_step(&self) -> usize {
        if self.corrector {
            2
        } else {
            1
        }
    }

    /// PECE's final E: the corrector has given q and v, and the estimate comes from the predictor's
    /// evaluation.
    fn last_point_only_evaluates(&self) -> bool {
        self.corrector
    }

    fn start(&mut self, initial: &State, _force_terms: &Vector) {
        self.history.reset(initial);
        let (n, m) = (initial.q.len(), initial.lambda.len());
        if self.new.q.len() != n || self.new.lambda.len() != m {
            for buf in [&mut self.dq, &mut self.dv, &mut self.eq, &mut self.ev] {
                for b in buf.iter_mut() {
                    *b = Vector::zeros(n);
                }
            }
            self.new = State::zeros(initial.t, n, m);
            self.pred = State::zeros(initial.t, n, m);
            self.scratch = LocalError::zeros(n);
        }
        self.order = 1;
        self.rejections = 0;
        self.adaptive = false;
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        self.k = self.order.min(self.history.filled).clamp(1, self.max_order);
        for i in 0..self.history.filled.min(self.k + 1) {
            self.delta[i] = self.history.levels[i].t - t_n;
        }
        self.differences();
        self.weights();
        let x = self.history.newest();
        self.pred.q.copy_from(&x.q);
        self.pred.v.copy_from(&x.v);
        for j in 0..self.k {
            self.pred.q.axpy(self.w[j], &self.dq[j], 1.0);
            self.pred.v.axpy(self.w[j], &self.dv[j], 1.0);
        }
    }

    fn point(&mut self, k: usize, pt: &mut IntegrationPoint) {
        let (x, guess) = if k == 0 {
            (&self.pred, self.history.newest())
        } else {
            (&self.new, &self.pred)
        };
        pt.q_hat.copy_from(&x.q);
        pt.v_hat.copy_from(&x.v);
        pt.set_explicit(self.t_n + self.h, &guess.a, &guess.lambda);
    }

    fn accept_point(&mut self, k: usize, solution: &PointSolution<'_>) {
        if k == 0 {
            self.pred.a.copy_from(solution.u);
            self.pred.lambda.copy_from(solution.lambda);
            self.new_differences();
            self.new.q.copy_from(&self.pred.q);
            self.new.v.copy_from(&self.pred.v);
            self.new.a.copy_from(solution.u);
            self.new.lambda.copy_from(solution.lambda);
            if self.corrector {
                let c = self.w[self.k];
                self.new.q.axpy(c, &self.eq[self.k], 1.0);
                self.new.v.axpy(c, &self.ev[self.k], 1.0);
            }
        } else {
            self.new.a.copy_from(solution.u);
            self.new.lambda.copy_from(solution.lambda);
        }
    }

    fn local_error(&self, err: &mut LocalError) -> bool {
        self.estimate(self.k, err);
        true
    }

    fn restarts_at_first_order(&self) -> bool {
        true
    }

    fn select_order(&mut self, norm: &mut dyn FnMut(&mut LocalError) -> f64) -> Option<(f64, u32)> {
        // The scratch estimate is moved out and back (an empty vector does not allocate).
        let mut err = std::mem::replace(&mut self.scratch, LocalError::zeros(0));
        self.estimate(self.k, &mut err);
        let at_k = norm(&mut err);
        let mut best = (at_k, self.k);
        if self.k > 1 {
            self.estimate(self.k - 1, &mut err);
            let lower = norm(&mut err);
            if lower <= at_k {
                best = (lower, self.k - 1);
            }
        }
        if best.1 == self.k && self.k < self.max_order && self.levels_used() > self.k {
            self.estimate(self.k + 1, &mut err);
            let higher = norm(&mut err);
            if higher < at_k {
                best = (higher, self.k + 1);
            }
        }
        self.scratch = err;
        self.order = best.1;
        self.adaptive = true;
        Some((best.0, best.1 as u32 + 1))
    }

    fn end_step(&mut self, state: &mut State) {
        self.new.t = self.t_n + self.h;
        self.history.shift();
        self.history.levels[0].copy_from(&self.new);
        self.history.h = self.h;
        self.rejections = 0;
        if self.history.filled > self.order && self.order < self.max_order && !self.adaptive {
            self.order += 1;
        }
        state.copy_from(&self.new);
    }

    fn reject(&mut self) {
        self.rejections += 1;
        if self.rejections >= 3 {
            self.order = 1;
        }
    }

    fn observe_stiffness(&mut self) -> usize {
        match self.stability_ratio() {
            Some(r) if r >= STIFF_RATIO => {
                self.stiff_steps += 1;
                self.non_stiff_steps = 0;
            }
            _ => {
                self.non_stiff_steps += 1;
                if self.non_stiff_steps >= NON_STIFF_STEPS {
                    self.stiff_steps = 0;
                }
            }
        }
        self.stiff_steps
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
    name: "abm",
    aliases: &["adams", "adams-pece", "abm-pece"],
    family: "Adams predictor-corrector",
    summary: "Adams-Bashforth-Moulton PECE on y = (q, v), variable step and order 1-12 (AB order k, AM order k+1), self-starting at order 1; 2 evaluations per step",
    source: "Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.4, eqs. 7.4.11-7.4.16; Shampine & Gordon (1975) Computer Solution of ODEs (DE/STEP)",
    params: &[
        ParamInfo {
            name: "max_order",
            default: 12.0,
            description: "largest order k (1 to 12); with fixed steps the order rises to it by one per step",
        },
        ParamInfo {
            name: "corrector",
            default: 1.0,
            description: "1: PECE (predictor of order k, corrector of order k + 1); 0: the Adams-Bashforth predictor alone (PE)",
        },
    ],
    build: |p: &SchemeParams| {
        let k = param(p, "max_order");
        if !(1.0..=MAX_ORDER as f64).contains(&k) || k.fract() != 0.0 {
            return Err(SchemeError::out_of_range(
                INFO.name,
                "max_order",
                k,
                "must be a whole number from 1 to 12",
            ));
        }
        let c = param(p, "corrector");
        if c != 0.0 && c != 1.0 {
            return Err(SchemeError::out_of_range(
                INFO.name,
                "corrector",
                c,
                "must be 1 (PECE) or 0 (predictor alone)",
            ));
        }
        Ok(Box::new(AdamsPece::new(k as usize, c == 1.0)) as Box<dyn Scheme>)
    },
    caps: Capabilities {
        order: 2,
        explicit_in_positions: true,
        unconditionally_stable: false,
        error_estimate: Some("difference of the correctors of orders k and k + 1 from the same divided differences, O(h^(k+1)); orders k - 1 and k + 1 for the choice of order (scheme/adams.rs)"),
        error_order: 2,
        variable_step: true,
        form: EquationForm::FirstOrder,
        estimate_noise: 0.0,
    },
};
