//! Stiffly accurate ESDIRK schemes in direct second-order form: one implementation for every tableau
//! (ρ∞-Bathe, MSSTC(n), MSSTH(n), the Kennedy–Carpenter pairs). A tableau is data
//! ([`EsdirkTableau`]); a new member is a constructor of its tableau and a registry entry.
//!
//! # The ESDIRK shape
//! An s-stage tableau (A, b, c) with an explicit first stage (a_1j = 0, c_1 = 0), the same diagonal
//! g = a_ii for i ≥ 2, and stiffly accurate (b = last row of A, c_s = 1). In direct second-order form
//! (Zhang, Zhang, Zanoni & Masarati 2022, Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9,
//! "MSD22", section 2: the same
//! formula for q with q̇ as its derivative and for v with q̈) stage i has the unknown u = A_i (its
//! acceleration) and
//!
//! ```text
//! V_i = v_n + h Σ_{j<i} a_ij A_j + h g A_i          (c_v = h g)
//! Q_i = q_n + h Σ_{j<i} a_ij V_j + h g V_i          (c_q = (h g)²)
//! M(Q_i) A_i + Φ_q(Q_i)ᵀ Λ_i = Q(Q_i, V_i, t_n + c_i h),   Φ(Q_i, t_n + c_i h) = 0
//! ```
//!
//! Stage 1 is the end of the previous step (Q_1, V_1, A_1, Λ_1) = (q_n, v_n, a_n, λ_n); each of the
//! s − 1 implicit stages is one integration point, solved in sequence; the step ends at stage s.
//! Newton starts (MSD22 section 3.1) from the constant prediction A_2⁽⁰⁾ = A_1 (eq. 15) at the
//! second stage, and from the second-order prediction of eqs. (12)–(14), applied to the velocity
//! level with the stage times as t_N, t_{N−1}, t_{N−2}, at later stages whose node spacings have
//! a ratio α = (c_i − c_{i−1})/(c_{i−1} − c_{i−2}) of at most 4 in size, of either sign;
//! otherwise from the previous stage (eq. 15). A negative α (nodes out of order, as MSSTH's
//! c = (0, 0.556, 0.1, 0.967, 1.140, 1) at ρ∞ = 0) is the same Hermite cubic, partly an
//! interpolation; MBDyn's multistage solvers predict with it at every stage. Until 2026-11-28 only
//! increasing nodes were extrapolated, and MSSTH(5)'s fourth stage started from its third, 0.87 h
//! earlier: on the flexible four-bar with its deck's masses, Newton diverged there 0.1 s after the
//! first change point (MSSTH(4) likewise), where MBDyn's runs go on. Λ is
//! extrapolated linearly in time over the previous two stages under the same condition. When
//! Newton fails from an extrapolated start, the stage is solved again from the previous stage's
//! values, and every later stage of the run starts from them ([`Scheme::constant_guess`]): on the
//! lateral buckling of a thin beam, MSSTH(4)'s last stage, extrapolated from two stages 0.18 h
//! apart, threw Newton out of its basin as the beam began to buckle.
//!
//! # Multipliers
//! On index-3 constraints the stage multipliers Λ_i of a tableau of stage order 2 converge at first
//! order only (Hairer, Lubich & Roche 1989, LNM 1409), while their weighted sum Σ_j b_j Λ_j, which
//! the velocity update uses (v_{n+1} − v_n = h Σ_j b_j A_j), converges at the velocities' order:
//! h Σ_j b_j Λ_j is the scheme's integral of λ over the step, the impulse of the constraint forces.
//! The state a step reports carries λ_{n+1} = μ′(t_{n+1}), the derivative of the quadratic in t
//! through the impulses μ at t_{n−1}, t_n, t_{n+1} (with μ′(t_n) = λ_n on the first step after a
//! start): with m = Σ_j b_j Λ_j of this step and m₋ of the previous one,
//! λ_{n+1} = m + (m − m₋) h_n/(h_n + h_{n−1}), or 2m − λ_n after a start. The history keeps Λ_s.
//! The work of the drivers over a step uses the same weights ([`Scheme::step_work`]).
//!
//! The stage accelerations A_i behave alike: A_s, the last stage's, leaves the acceleration
//! constraint Φ_q a = γ at first order in h, and Σ_j b_j A_j = (v_{n+1} − v_n)/h is the step's mean
//! acceleration. The reported a_{n+1} is formed from these means as λ_{n+1} is (second order,
//! `tests/multistage_multipliers.rs`); the history keeps A_s, the next step's explicit stage.
//!
//! # Local error
//! A tableau with embedded weights b̂ (order p − 1) estimates the error of the step by the difference
//! of the two solutions: e_q = h Σ_j (b_j − b̂_j) V_j, e_v = h Σ_j (b_j − b̂_j) A_j (Hairer & Wanner
//! 1996, *Solving ODEs II*, §IV.8; applied to y = [q; v]). A second-order tableau without them uses
//! its Taylor constants with divided differences of the stage accelerations (see
//! [`Esdirk::error_constants`]); a tableau of higher order without embedded weights has no estimate.
//!
//! # Filtered estimate
//! When the embedded solution is not L-stable (ESDIRK3(2)4L\[2\]SA: R̂(∞) = 0.218, where R(∞) = 0), the
//! difference keeps a fixed share of every stiff component, and the constraint reactions of an
//! index-3 problem are infinitely stiff: the estimate stops falling with h. With Shampine's filter,
//! which RADAU5 uses (Hairer & Wanner 1996, §IV.8, step size selection), the estimate e = (e_q, e_v)
//! is replaced by (E − hgJ)⁻¹ E e, with E
//! the DAE's mass matrix (I, M, 0) and J its Jacobian at the end of the step, which damps the stiff
//! components by 1/(1 − hgλ) and removes the part of e_q that leaves the constraints. Written as
//! x = e + z, (E − hgJ) z = hg J e, the correction z is one more solve of the last stage's equations,
//! from the end of the step shifted by the estimate: with w the change of the acceleration,
//!
//! ```text
//! x_q = e_q + c_v e_v + c_q w        x_v = e_v + c_v w          (c_v = h g, c_q = c_v²)
//! [M + c_v C + c_q K   Φ_qᵀ] [w ]     [−(r(q + e_q + c_v e_v, v + e_v) − r(q, v))]
//! [c_q Φ_q              0  ] [δλ]  =  [−Φ_q (e_q + c_v e_v)                      ]
//! ```
//!
//! with r the residual of the equations of motion and (q, v) the end of the step: the iteration
//! matrix of the last stage, to which the formulation's Newton iteration converges in one or two
//! iterations (the time loop solves it, [`crate::analysis::step::filter_through_iteration_matrix`]). Every
//! tableau with embedded weights is filtered; the Taylor-constant estimates are not.

use super::predictor::{constant_start, first_order_maps, first_order_point, predict, Known};
use super::{History, IntegrationPoint, LocalError, PointSolution, Scheme, State};
use crate::linalg::Vector;

/// A stiffly accurate ESDIRK Butcher tableau with an explicit first stage and a constant diagonal.
#[derive(Debug, Clone, PartialEq)]
pub struct EsdirkTableau {
    /// Stage matrix A (s × s, row-major: `a[i]\[j\]`), lower triangular.
    pub a: Vec<Vec<f64>>,
    /// Weights b (s); equal to the last row of A.
    pub b: Vec<f64>,
    /// Abscissae c (s), with c_1 = 0 and c_s = 1.
    pub c: Vec<f64>,
    /// Embedded weights b̂ (s) of a lower-order solution, for the local error estimate, if any.
    pub b_hat: Option<Vec<f64>>,
}

/// Why a Butcher tableau is not a valid stiffly accurate ESDIRK (shapes, explicit first stage,
/// constant diagonal, row sums, embedded weights); the message says which condition fails.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TableauError(pub String);

impl EsdirkTableau {
    /// Checks and wraps a tableau (A, b, c) with s ≥ 2 stages.
    ///
    /// # Errors
    /// A message when the shapes disagree, the first stage is not explicit, the diagonal of stages
    /// 2..s is not constant and positive, A is not lower triangular, the tableau is not stiffly
    /// accurate (b ≠ last row of A, c_s ≠ 1), or a row sum differs from c_i (tolerance 1e-12).
    pub fn new(a: Vec<Vec<f64>>, b: Vec<f64>, c: Vec<f64>) -> Result<Self, TableauError> {
        let s = c.len();
        if s < 2 || b.len() != s || a.len() != s || a.iter().any(|r| r.len() != s) {
            return Err(TableauError(format!(
                "tableau shapes: A must be s×s, b and c of length s ≥ 2 (s = {s})"
            )));
        }
        if c[0] != 0.0 || a[0].iter().any(|&x| x != 0.0) {
            return Err(TableauError(
                "the first stage must be explicit (c_1 = 0, a_1j = 0)".into(),
            ));
        }
        let g = a[1][1];
        if g.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err(TableauError(format!(
                "the diagonal must be positive (g = {g})"
            )));
        }
        for (i, row) in a.iter().enumerate() {
            if i > 0 && (row[i] - g).abs() > 1e-14 * g.abs().max(1.0) {
                return Err(TableauError(format!(
                    "a[{i}][{i}] = {} differs from the diagonal {g}",
                    row[i]
                )));
            }
            if row[i + 1..].iter().any(|&x| x != 0.0) {
                return Err(TableauError(format!(
                    "row {i} has entries above the diagonal"
                )));
            }
            let sum: f64 = row.iter().sum();
            if (sum - c[i]).abs() > 1e-12 {
                return Err(TableauError(format!("row {i} sums to {sum}, c = {}", c[i])));
            }
        }
        if (c[s - 1] - 1.0).abs() > 1e-14
            || a[s - 1].iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-14)
        {
            return Err(TableauError(
                "the tableau must be stiffly accurate (b = last row of A, c_s = 1)".into(),
            ));
        }
        Ok(EsdirkTableau {
            a,
            b,
            c,
            b_hat: None,
        })
    }

    /// A stiffly accurate tableau from the rows of A below the explicit first stage (row i has i + 1
    /// entries, the last being the diagonal); b is the last row, c the abscissae (s entries).
    ///
    /// # Errors
    /// As [`EsdirkTableau::new`].
    pub fn stiffly_accurate(lower: &[&[f64]], c: &[f64]) -> Result<Self, TableauError> {
        let s = lower.len() + 1;
        let mut a = vec![vec![0.0; s]; s];
        for (row, given) in a.iter_mut().skip(1).zip(lower) {
            if given.len() > s {
                return Err(TableauError(format!(
                    "a row of {} entries in a {s}-stage tableau",
                    given.len()
                )));
            }
            row[..given.len()].copy_from_slice(given);
        }
        let b = a[s - 1].clone();
        EsdirkTableau::new(a, b, c.to_vec())
    }

    /// The same tableau with embedded weights b̂ (s entries).
    ///
    /// # Errors
    /// A message when b̂ has not s entries or does not sum to 1 (tolerance 1e-12).
    pub fn with_embedded(mut self, b_hat: Vec<f64>) -> Result<Self, TableauError> {
        if b_hat.len() != self.stages() {
            return Err(TableauError(format!(
                "embedded weights: {} entries for {} stages",
                b_hat.len(),
                self.stages()
            )));
        }
        let sum: f64 = b_hat.iter().sum();
        if (sum - 1.0).abs() > 1e-12 {
            return Err(TableauError(format!(
                "embedded weights sum to {sum}, not 1"
            )));
        }
        self.b_hat = Some(b_hat);
        Ok(self)
    }

    /// Number of stages s.
    pub fn stages(&self) -> usize {
        self.c.len()
    }

    /// The diagonal g = a_ii (i ≥ 2).
    pub fn diagonal(&self) -> f64 {
        self.a[1][1]
    }
}

/// An ESDIRK scheme in direct second-order form (see the module documentation): s − 1 integration
/// points per step, one per implicit stage.
#[derive(Debug, Clone)]
pub struct Esdirk {
    name: &'static str,
    reported: Vec<(&'static str, f64)>,
    tableau: EsdirkTableau,
    history: History,
    t_n: f64,
    h: f64,
    // Stage values of the current step: index 0 is the explicit first stage, a copy of the history's
    // level t_n taken at begin_step; the others are tentative until end_step.
    qs: Vec<Vector>,
    vs: Vec<Vector>,
    accs: Vec<Vector>,
    lambdas: Vec<Vector>,
    // The reported multipliers and accelerations (see `end_step`): the means Σ_j b_j Λ_j and
    // Σ_j b_j A_j of the last committed step, its step size (0 after a start: none yet) and
    // scratches for the current step's means.
    lambda_mean: Vector,
    lambda_mean_new: Vector,
    acc_mean: Vector,
    acc_mean_new: Vector,
    h_previous: f64,
    // Known parts of the current point.
    q_hat: Vector,
    v_hat: Vector,
    // False once Newton failed from an extrapolated start ([`Scheme::constant_guess`]): the later
    // stages start from the constant prediction.
    extrapolation: bool,
}

/// The value at t_{n+1} of a quantity whose step means are `m1` (this step, size `h`) and `m0`
/// (the previous one, size `h0`; 0 after a start, when `at_n` is the value at t_n): the derivative
/// of the quadratic through its integrals, m1 + (m1 − m0) h/(h + h0), or 2 m1 − x_n after a start
/// (module documentation, "Multipliers"). Every vector has the same length.
fn end_value(out: &mut Vector, m1: &Vector, m0: &Vector, at_n: &Vector, h: f64, h0: f64) {
    for (r, x) in out.iter_mut().enumerate() {
        *x = if h0 > 0.0 {
            m1[r] + (m1[r] - m0[r]) * h / (h + h0)
        } else {
            2.0 * m1[r] - at_n[r]
        };
    }
}

impl Esdirk {
    /// A scheme from a checked tableau; `name` and `reported` are what reports show.
    pub fn new(
        name: &'static str,
        reported: Vec<(&'static str, f64)>,
        tableau: EsdirkTableau,
    ) -> Self {
        Esdirk {
            name,
            reported,
            tableau,
            history: History::new(1, &[]),
            t_n: 0.0,
            h: 0.0,
            qs: Vec::new(),
            vs: Vec::new(),
            accs: Vec::new(),
            lambdas: Vec::new(),
            lambda_mean: Vector::zeros(0),
            lambda_mean_new: Vector::zeros(0),
            acc_mean: Vector::zeros(0),
            acc_mean_new: Vector::zeros(0),
            h_previous: 0.0,
            q_hat: Vector::zeros(0),
            v_hat: Vector::zeros(0),
            extrapolation: true,
        }
    }

    /// Whether stage `i` (0-based) starts Newton from the second-order prediction: the spacings
    /// of its node and the two before it have a ratio of at most 4 in size, of either sign
    /// (module documentation), and no extrapolated start has failed yet in this run.
    fn extrapolates(&self, i: usize) -> bool {
        let c = &self.tableau.c;
        if i < 2 || !self.extrapolation {
            return false;
        }
        let (d1, d2) = (c[i] - c[i - 1], c[i - 1] - c[i - 2]);
        d1 != 0.0 && d2 != 0.0 && (d1 / d2).abs() <= 4.0
    }

    /// The tableau.
    pub fn tableau(&self) -> &EsdirkTableau {
        &self.tableau
    }

    /// The leading local-error constants (C_q3, C_v3) of the direct second-order form (see
    /// [`Scheme::local_error`] of [`Esdirk`]): C_q3 = Σ_j b_j Σ_k a_jk c_k − 1/6 and
    /// C_v3 = Σ_k b_k c_k²/2 − 1/6.
    pub fn error_constants(&self) -> (f64, f64) {
        let t = &self.tableau;
        let s = t.stages();
        let mut cq = 0.0;
        let mut cv = 0.0;
        for j in 0..s {
            let ac: f64 = (0..s).map(|k| t.a[j][k] * t.c[k]).sum();
            cq += t.b[j] * ac;
            cv += t.b[j] * t.c[j] * t.c[j] / 2.0;
        }
        (cq - 1.0 / 6.0, cv - 1.0 / 6.0)
    }
}

impl Scheme for Esdirk {
    fn name(&self) -> &'static str {
        self.name
    }

    fn parameters(&self) -> Vec<(&'static str, f64)> {
        self.reported.clone()
    }

    fn points_per_step(&self) -> usize {
        self.tableau.stages() - 1
    }

    fn start(&mut self, x0: &State, _force_terms: &Vector) {
        let s = self.tableau.stages();
        let (n, m) = (x0.q.len(), x0.lambda.len());
        self.history.reset(x0);
        if self.qs.len() != s
            || self.q_hat.len() != n
            || self.lambdas.first().map(|l| l.len()) != Some(m)
        {
            self.qs = vec![x0.q.clone(); s];
            self.vs = vec![x0.v.clone(); s];
            self.accs = vec![x0.a.clone(); s];
            self.lambdas = vec![x0.lambda.clone(); s];
            self.lambda_mean = Vector::zeros(m);
            self.lambda_mean_new = Vector::zeros(m);
            self.acc_mean = Vector::zeros(n);
            self.acc_mean_new = Vector::zeros(n);
            self.q_hat = Vector::zeros(n);
            self.v_hat = Vector::zeros(n);
        }
        self.h_previous = 0.0;
    }

    fn begin_step(&mut self, t_n: f64, h: f64) {
        self.t_n = t_n;
        self.h = h;
        let x = &self.history.levels[0];
        self.qs[0].copy_from(&x.q);
        self.vs[0].copy_from(&x.v);
        self.accs[0].copy_from(&x.a);
        self.lambdas[0].copy_from(&x.lambda);
    }

    fn point(&mut self, k: usize, pt: &mut IntegrationPoint) {
        let i = k + 1; // stage index (0-based); stage 0 is explicit
        let (h, tab) = (self.h, &self.tableau);
        let g = tab.diagonal();
        let row = &tab.a[i];
        let n = self.qs[0].len();
        for r in 0..n {
            let mut vh = self.vs[0][r];
            let mut qh = self.qs[0][r];
            for (j, &aij) in row.iter().enumerate().take(i) {
                vh += h * aij * self.accs[j][r];
                qh += h * aij * self.vs[j][r];
            }
            self.v_hat[r] = vh;
            self.q_hat[r] = qh + h * g * vh;
        }
        first_order_point(pt, self.t_n + tab.c[i] * h, &self.q_hat, &self.v_hat, h * g);
        // Prediction, section 3.1 of MSD22.
        let (d1, d2) = if i >= 2 {
            (tab.c[i] - tab.c[i - 1], tab.c[i - 1] - tab.c[i - 2])
        } else {
            (0.0, 0.0)
        };
        let known = |j: usize| Known {
            v: &self.vs[j],
            a: &self.accs[j],
            lambda: &self.lambdas[j],
        };
        let before = self.extrapolates(i).then(|| (known(i - 2), d1 / d2));
        predict(pt, known(i - 1), before, d1 * h);
    }

    fn constant_guess(&mut self, k: usize, pt: &mut IntegrationPoint) -> bool {
        let i = k + 1;
        if !self.extrapolates(i) {
            return false;
        }
        let last = Known {
            v: &self.vs[i - 1],
            a: &self.accs[i - 1],
            lambda: &self.lambdas[i - 1],
        };
        constant_start(pt, last);
        self.extrapolation = false;
        true
    }

    fn accept_point(&mut self, k: usize, sol: &PointSolution<'_>) {
        let i = k + 1;
        let c_v = self.h * self.tableau.diagonal();
        let c_q = c_v * c_v;
        for r in 0..self.q_hat.len() {
            let u = sol.u[r];
            self.accs[i][r] = u;
            self.vs[i][r] = self.v_hat[r] + c_v * u;
            self.qs[i][r] = self.q_hat[r] + c_q * u;
        }
        if let Some(dq) = sol.position_correction {
            self.qs[i] += dq;
        }
        self.lambdas[i].copy_from(sol.lambda);
    }

    /// With embedded weights: the difference of the two solutions (module documentation).
    /// Otherwise, for a second-order tableau, the estimate from the stages: with the stage
    /// accelerations A_i ≈ q̈(t_n + c_i h), h q⃛ ≈ A_s − A_1 and h² q⁗ ≈ 2 A\[c_1, c_2, c_s\] (a second
    /// divided difference in c), so e_q = C_q3 h² (A_s − A_1) and e_v = C_v3 h · 2 A\[c_1, c_2, c_s\]
    /// (constants from [`Esdirk::error_constants`]; the Taylor expansion of the stage equations, as
    /// for [`super::error_constants`]). A tableau of order ≥ 3 without embedded weights has
    /// C_q3 = C_v3 = 0 and no estimate.
    fn local_error(&self, err: &mut LocalError) -> bool {
        let (t, h) = (&self.tableau, self.h);
        let s = t.stages();
        if let Some(b_hat) = &t.b_hat {
            err.q.fill(0.0);
            err.v.fill(0.0);
            for (j, (b, bh)) in t.b.iter().zip(b_hat).enumerate() {
                let d = h * (b - bh);
                err.q.axpy(d, &self.vs[j], 1.0);
                err.v.axpy(d, &self.accs[j], 1.0);
            }
            return true;
        }
        let (cq, cv) = self.error_constants();
        if cq.abs() < 1e-12 && cv.abs() < 1e-12 {
            return false;
        }
        let (c1, c2, cs) = (t.c[0], t.c[1], t.c[s - 1]);
        let second = s >= 3 && c2 > c1 && cs > c2;
        let (a1, a2, a_s) = (&self.accs[0], &self.accs[1], &self.accs[s - 1]);
        for r in 0..a1.len() {
            err.q[r] = cq * h * h * (a_s[r] - a1[r]) / (cs - c1);
            err.v[r] = if second {
                let dd = ((a_s[r] - a2[r]) / (cs - c2) - (a2[r] - a1[r]) / (c2 - c1)) / (cs - c1);
                cv * h * 2.0 * dd
            } else {
                0.0
            };
        }
        true
    }

    /// With embedded weights: the last stage's point with q̂ = Q_s + e_q + c_v e_v − c_q A_s and
    /// v̂ = V_s + e_v − c_v A_s (c_v = h g, c_q = c_v²), started from (A_s, Λ_s); see the module
    /// documentation, "Filtered estimate".
    fn error_filter_point(&self, err: &LocalError, pt: &mut IntegrationPoint) -> bool {
        if self.tableau.b_hat.is_none() {
            return false;
        }
        let s = self.tableau.stages();
        let c_v = self.h * self.tableau.diagonal();
        let c_q = c_v * c_v;
        let (q, v, a) = (&self.qs[s - 1], &self.vs[s - 1], &self.accs[s - 1]);
        for r in 0..q.len() {
            pt.q_hat[r] = q[r] + err.q[r] + c_v * err.v[r] - c_q * a[r];
            pt.v_hat[r] = v[r] + err.v[r] - c_v * a[r];
        }
        first_order_maps(pt, self.t_n + self.h, c_v);
        pt.u_guess.copy_from(a);
        pt.lambda_guess.copy_from(&self.lambdas[s - 1]);
        true
    }

    /// h Σ_j b_j P(t_n + c_j h, Q_j, V_j, Λ_j): the quadrature the velocity update uses.
    fn step_work(
        &self,
        power: &mut dyn FnMut(f64, &Vector, &Vector, &Vector) -> f64,
    ) -> Option<f64> {
        let t = &self.tableau;
        let mut sum = 0.0;
        for j in 0..t.stages() {
            let tj = self.t_n + t.c[j] * self.h;
            sum += t.b[j] * power(tj, &self.qs[j], &self.vs[j], &self.lambdas[j]);
        }
        Some(self.h * sum)
    }

    /// Stiffly accurate: the last stage is the new state (and the next step's explicit stage). The
    /// reported multipliers and accelerations are not Λ_s and A_s, which converge at first order
    /// only on index-3 constraints (stage order 2), but the scheme's own integrals of them (see the
    /// module documentation, "Multipliers").
    fn end_step(&mut self, state: &mut State) {
        let s = self.tableau.stages();
        self.lambda_mean_new.fill(0.0);
        for (b, lambda) in self.tableau.b.iter().zip(&self.lambdas) {
            self.lambda_mean_new.axpy(*b, lambda, 1.0);
        }
        self.acc_mean_new.fill(0.0);
        for (b, acc) in self.tableau.b.iter().zip(&self.accs) {
            self.acc_mean_new.axpy(*b, acc, 1.0);
        }
        let x = &mut self.history.levels[0];
        std::mem::swap(&mut x.q, &mut self.qs[s - 1]);
        std::mem::swap(&mut x.v, &mut self.vs[s - 1]);
        std::mem::swap(&mut x.a, &mut self.accs[s - 1]);
        std::mem::swap(&mut x.lambda, &mut self.lambdas[s - 1]);
        x.t = self.t_n + self.h;
        self.history.h = self.h;
        state.copy_from(&self.history.levels[0]);
        let (h, h0) = (self.h, self.h_previous);
        let (m1, m0) = (&self.lambda_mean_new, &self.lambda_mean);
        end_value(&mut state.lambda, m1, m0, &self.lambdas[0], h, h0);
        end_value(
            &mut state.a,
            &self.acc_mean_new,
            &self.acc_mean,
            &self.accs[0],
            h,
            h0,
        );
        std::mem::swap(&mut self.lambda_mean, &mut self.lambda_mean_new);
        std::mem::swap(&mut self.acc_mean, &mut self.acc_mean_new);
        self.h_previous = h;
    }

    fn history(&self) -> &History {
        &self.history
    }

    fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }
}
