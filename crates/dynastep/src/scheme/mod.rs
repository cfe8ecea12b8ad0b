//! The scheme layer: time discretizations, and nothing else.
//!
//! # The one shape every scheme has
//!
//! At each *integration point* (a step, or a stage of a multi-stage method) a scheme expresses the new
//! state as affine functions of one unknown vector `u` (n entries; usually the new acceleration), and
//! names the multipliers λ (m entries) that belong to that point:
//!
//! ```text
//! q_e = q̂ + c_q u     v_e = v̂ + c_v u     a_e = â + c_a u        (where the equations of motion are evaluated, at t_e)
//! q_c = q̂_c + c_c u                                            (where Φ(q_c, t_c) = 0 is imposed)
//! w_f (Φ_q(q_e)ᵀ λ − Q(q_e, v_e, t_e)) + M(q_e) a_e + r_h = 0   (the discrete equilibrium)
//! ```
//!
//! `w_f` and the history residual `r_h` are 1 and 0 for every scheme except HHT, whose equilibrium mixes
//! the force terms of two time levels. Newmark, HHT and generalized-α (one point per step); linear
//! multistep methods in first-order form; ESDIRK stages (one point per stage); and the conditionally
//! explicit family (`c_q = 0`, constraints imposed on the *next* positions) all fit this shape, so one
//! formulation ([`crate::formulation`]) solves them all.
//!
//! The driver owns t and h and hands h to the scheme at every step ([`Scheme::begin_step`]). A scheme
//! receives the converged solution of each point through [`Scheme::accept_point`], keeps it
//! tentatively, and commits it to its [`History`] only in [`Scheme::end_step`]; [`Scheme::reject`]
//! discards the step. [`Scheme::end_step`] reports the newest state at which q, v, a and λ are all
//! known; for the conditionally explicit family that is one step behind the newest positions.
//! Schemes that can estimate their local error do so in [`Scheme::local_error`], and declare it in
//! their [`Capabilities`].
//!
//! # Adding a scheme
//! Write one file with a struct implementing [`Scheme`] and a `pub const INFO: SchemeInfo`, and add the
//! `INFO` to [`REGISTRY`] (in `registry.rs`). Nothing else changes.

pub mod adams;
pub mod bathe;
pub mod central_difference;
pub mod error_constants;
pub mod esdirk;
pub mod explicit_rk;
pub mod generalized_alpha;
pub mod hermite;
pub mod hht;
pub mod higher_degree;
mod history;
pub mod kennedy_carpenter;
pub mod lms;
pub mod lms_variable;
pub mod milne;
pub mod msstc;
pub mod mssth;
pub mod newmark;
pub mod predictor;
mod registry;
pub mod runge_kutta;
pub mod single_step;

pub use history::{History, TimeLevel};
pub use registry::{
    build, find, names_match, ParamInfo, SchemeError, SchemeInfo, SchemeParams, REGISTRY,
};

use crate::linalg::Vector;

pub use crate::state::State;

/// One integration point: the affine maps from the unknown `u` to the state where the equations are
/// evaluated (see the module documentation). All vectors have n entries except `lambda_guess` (m).
#[derive(Debug, Clone)]
pub struct IntegrationPoint {
    /// Time at which the equations of motion are evaluated \[s\].
    pub t_e: f64,
    /// Time at which the position constraints are imposed \[s\].
    pub t_c: f64,
    /// Known part of q_e.
    pub q_hat: Vector,
    /// Known part of v_e.
    pub v_hat: Vector,
    /// Known part of a_e.
    pub a_hat: Vector,
    /// Known part of q_c.
    pub qc_hat: Vector,
    /// ∂q_e/∂u \[s² when u is an acceleration\].
    pub c_q: f64,
    /// ∂v_e/∂u \[s\].
    pub c_v: f64,
    /// ∂a_e/∂u \[-\].
    pub c_a: f64,
    /// ∂q_c/∂u \[s²\]; must be positive.
    pub c_c: f64,
    /// Weight w_f of the force terms Φ_qᵀλ − Q (1 except for HHT).
    pub force_weight: f64,
    /// Whether `residual_history` is used (false: r_h = 0).
    pub has_history_residual: bool,
    /// History residual r_h (n) \[N\].
    pub residual_history: Vector,
    /// Predicted u, the Newton starting value.
    pub u_guess: Vector,
    /// Predicted λ (m), the Newton starting value.
    pub lambda_guess: Vector,
    /// Whether the scheme may extrapolate λ for `lambda_guess` (true until the time loop meets a
    /// singular iteration matrix: then λ is unique only up to the left null space of Φ_q, see
    /// [`predictor::predict`]).
    pub extrapolate_multipliers: bool,
}

impl IntegrationPoint {
    /// An integration point for n coordinates and m constraints, with the identity maps of Newmark's
    /// trapezoidal rule at h = 0 (callers fill every field).
    pub fn new(n: usize, m: usize) -> Self {
        IntegrationPoint {
            t_e: 0.0,
            t_c: 0.0,
            q_hat: Vector::zeros(n),
            v_hat: Vector::zeros(n),
            a_hat: Vector::zeros(n),
            qc_hat: Vector::zeros(n),
            c_q: 0.0,
            c_v: 0.0,
            c_a: 1.0,
            c_c: 1.0,
            force_weight: 1.0,
            has_history_residual: false,
            residual_history: Vector::zeros(n),
            u_guess: Vector::zeros(n),
            lambda_guess: Vector::zeros(m),
            extrapolate_multipliers: true,
        }
    }

    /// Makes this an explicit point of a first-order method on y = (q, v) whose `q_hat` and `v_hat`
    /// (n each) the caller has filled: the equations of motion at (t, q̂, v̂), all known, with
    /// u = a (c_q = c_v = 0, c_a = 1, â = 0, q̂_c = q̂), and the Newton starting values `u_guess` (n)
    /// and `lambda_guess` (m).
    pub fn set_explicit(&mut self, t: f64, u_guess: &Vector, lambda_guess: &Vector) {
        self.t_e = t;
        self.t_c = t;
        self.qc_hat.copy_from(&self.q_hat);
        self.a_hat.fill(0.0);
        self.c_q = 0.0;
        self.c_v = 0.0;
        self.c_a = 1.0;
        self.c_c = 1.0;
        self.force_weight = 1.0;
        self.has_history_residual = false;
        self.u_guess.copy_from(u_guess);
        self.lambda_guess.copy_from(lambda_guess);
    }

    /// True when positions at the evaluation point do not depend on u and the constraint point is
    /// distinct from it (the conditionally explicit family).
    pub fn is_explicit_in_positions(&self) -> bool {
        self.c_q == 0.0
    }
}

/// The converged solution at one integration point, handed back to the scheme.
#[derive(Debug)]
pub struct PointSolution<'a> {
    /// The unknown u (n).
    pub u: &'a Vector,
    /// The multipliers λ (m).
    pub lambda: &'a Vector,
    /// The force terms Φ_q(q_e)ᵀλ − Q(q_e, v_e, t_e) (n) \[N\], evaluated at the converged point.
    pub force_terms: &'a Vector,
    /// A correction Δq (n) \[m or rad\] of the point's position that the formulation made beside
    /// the scheme's map q̂_c + c_c u (the stabilized index-2 formulation; `None` for the others).
    /// A scheme that can serve such a formulation (implicit in positions) adds it to the position
    /// it keeps for the point, so that the step ends on the corrected positions; it leaves the
    /// velocities and accelerations alone.
    pub position_correction: Option<&'a Vector>,
}

/// The position correction of a single-point scheme's solved point
/// ([`PointSolution::position_correction`]), kept from `accept_point` until `end_step` adds it to the
/// new positions.
#[derive(Debug, Clone, Default)]
pub struct KeptCorrection {
    dq: Vector,
    active: bool,
}

impl KeptCorrection {
    /// Keeps the correction of `solution`, or none (allocates only when its size changes).
    pub fn record(&mut self, solution: &PointSolution<'_>) {
        self.active = solution.position_correction.is_some();
        if let Some(dq) = solution.position_correction {
            if self.dq.len() == dq.len() {
                self.dq.copy_from(dq);
            } else {
                self.dq = dq.clone();
            }
        }
    }

    /// Adds the kept correction (n) to the positions `q` (n); nothing when none was kept.
    pub fn apply(&self, q: &mut Vector) {
        if self.active {
            *q += &self.dq;
        }
    }
}

/// What a scheme can do, declared in its registry entry. The CLI lists it, the time loop checks it
/// (a scheme without an error estimate or without variable steps is refused in adaptive mode), and the
/// scheme × formulation × problem test matrix is generated from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capabilities {
    /// Order of accuracy of the positions (global error O(h^order)).
    pub order: u32,
    /// True when the positions where the equations of motion are evaluated do not depend on the
    /// unknown (c_q = 0): the equilibrium is explicit when the forces do not depend on velocity.
    pub explicit_in_positions: bool,
    /// True when the scheme is stable for every step on the undamped linear oscillator (no Ω_crit).
    /// A conditionally stable scheme that is implicit in positions is unstable on index-3
    /// constraints at every step size (their modes have infinite frequency).
    pub unconditionally_stable: bool,
    /// The local error estimator and its source, or `None` when the scheme has none.
    pub error_estimate: Option<&'static str>,
    /// The power of h of the local error estimate: order + 1 for an estimate of the step's own
    /// error, order for an embedded pair (the error of its lower-order solution); 0 without one.
    /// The step-size controller's exponent follows from it.
    pub error_order: u32,
    /// True when the scheme handles a step size that changes from step to step.
    pub variable_step: bool,
    /// The form of the equations the scheme integrates, from which the formulations that can serve
    /// it follow (each formulation states what it requires; see
    /// `crate::formulation::compatible`). A scheme names no formulation.
    pub form: EquationForm,
    /// The rounding its error estimate carries, in units of ε · max_i |q_i|: the error norm asks
    /// no step for less on the position scale (the larger of this and the formulation's
    /// [`crate::catalog::FormulationInfo::estimate_floor`]; `analysis::step_control::error_norm`).
    /// 10 for LMS2 and SS-k, whose estimate extrapolates the two stored position levels (weights
    /// up to 5 at θ = 2, so the levels' own rounding, half an ulp each, reaches the estimate as a
    /// few ulps); per unit step at rtol 1e-10 a step's share of the tolerance falls to about one
    /// ulp, and their steps used to shrink to h_min on the pendulum (docs/schemes.md). 0 elsewhere.
    pub estimate_noise: f64,
}

/// The largest factor by which the step-size controller lets a step grow (Hairer, Nørsett &
/// Wanner 1993, §II.4: a factor between 1.5 and 5), unless [`Scheme::max_step_increase`] asks for
/// less.
pub const MAX_STEP_INCREASE: f64 = 5.0;

/// The form of the equations a scheme integrates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EquationForm {
    /// The second-order equations M a + Φ_qᵀλ = Q at integration points where q, v, a are affine
    /// maps of one unknown (q = q̂ + c_q u, …); a formulation solves each point for u and λ.
    SecondOrder,
    /// The first-order ODE y' = (v, a) with explicit stages: a formulation supplies the
    /// accelerations at each stage (the acceleration-level formulations).
    FirstOrder,
}

/// The local error estimate of one step: the estimated errors of the new positions (n) and
/// velocities (n), written by [`Scheme::local_error`].
#[derive(Debug, Clone, PartialEq)]
pub struct LocalError {
    /// Estimated error of q_{n+1} (n) \[m, rad\].
    pub q: Vector,
    /// Estimated error of v_{n+1} (n) \[m/s, rad/s\].
    pub v: Vector,
}

impl LocalError {
    /// Zero estimates for n coordinates.
    pub fn zeros(n: usize) -> Self {
        LocalError {
            q: Vector::zeros(n),
            v: Vector::zeros(n),
        }
    }
}

/// A time discretization (see the module documentation for the contract).
///
/// The driver owns the time t and the step h. For each step it calls
/// `begin_step(t_n, h)`, then `for k in 0..points_per_step() { point(k, ..); solve; accept_point(k, ..) }`,
/// then optionally `local_error(..)`, and finally either `end_step(..)`, which commits the step, or
/// `reject()`, which leaves the scheme exactly as it was before `begin_step`. A scheme may not assume
/// that h stays constant unless it declares `variable_step: false`. `begin_step`, `point`,
/// `accept_point`, `local_error`, `end_step` and `reject` must not allocate.
pub trait Scheme: Send {
    /// Registry name of the scheme (e.g. `"generalized-alpha"`).
    fn name(&self) -> &'static str;

    /// The scheme's parameters with their values, for reports (e.g. `\[("rho_inf", 0.8)\]`).
    fn parameters(&self) -> Vec<(&'static str, f64)>;

    /// Number of integration points (stages) per step.
    fn points_per_step(&self) -> usize;

    /// True when the step's last integration point only evaluates a and λ at the step's new state:
    /// the new q and v and the local error estimate are known before it, and its solution enters
    /// nothing but the committed state's a and λ (the final E of Adams PECE). A formulation that
    /// recomputes a and λ at the committed state anyway
    /// ([`crate::formulation::Formulation::recomputes_accelerations_after_step`]: coordinate
    /// projection, partitioning) makes that point redundant, and [`crate::analysis::step`] skips
    /// it. False, the default.
    fn last_point_only_evaluates(&self) -> bool {
        false
    }

    /// (Re)starts from a consistent state `initial` (t, n coordinates, m multipliers), whose force
    /// terms Φ_qᵀλ − Q (n) \[N\] are `force_terms`: the history becomes that single level. Allocates
    /// only when the shapes differ from the previous start, so a restart inside a run is free.
    fn start(&mut self, initial: &State, force_terms: &Vector);

    /// How many derivatives of the coordinates above the acceleration the scheme takes from the
    /// equations of motion at a start: 1 for the jerk, 2 for the jerk and the snap; 0, the default,
    /// for none. The time loop computes them
    /// ([`crate::analysis::start_derivatives::start_derivatives`]) and hands them over with
    /// [`Scheme::set_start_derivatives`] right after [`Scheme::start`].
    fn start_derivatives(&self) -> usize {
        0
    }

    /// Takes the derivatives asked for by [`Scheme::start_derivatives`] at the state of the last
    /// [`Scheme::start`]: `derivatives[0]` the jerk, `derivatives[1]` the snap (n entries each). The
    /// default ignores them.
    fn set_start_derivatives(&mut self, _derivatives: &[Vector]) {}

    /// Begins a step from t_n, the newest level of the history, to t_n + h \[s\].
    fn begin_step(&mut self, t_n: f64, h: f64);

    /// Fills the affine maps of point `k` (0 ≤ k < points_per_step) of the current step.
    fn point(&mut self, k: usize, pt: &mut IntegrationPoint);

    /// Records the converged solution of point `k` (tentatively: nothing is committed before
    /// [`Scheme::end_step`]).
    fn accept_point(&mut self, k: usize, solution: &PointSolution<'_>);

    /// Writes the estimated local error of the step just solved (all points accepted, not yet
    /// committed) into `err`; returns false, leaving `err` alone, when the scheme has no estimate.
    fn local_error(&self, _err: &mut LocalError) -> bool {
        false
    }

    /// For a scheme whose estimate must be filtered through the iteration matrix (an embedded pair
    /// that is not L-stable, see [`esdirk`]), called after [`Scheme::local_error`] wrote `err`:
    /// fills `pt` with a point of the last stage's iteration matrix whose starting value gives the
    /// step's end shifted by the estimate, q̂ + c_q u_guess = q_{n+1} + e_q + c_v e_v and
    /// v̂ + c_v u_guess = v_{n+1} + e_v, and returns true. Its solution u gives the filtered
    /// estimate e_q + c_v e_v + c_q (u − u_guess), e_v + c_v (u − u_guess) (computed by
    /// [`crate::analysis::step::filter_through_iteration_matrix`]). False, the default: no filter.
    fn error_filter_point(&self, _err: &LocalError, _pt: &mut IntegrationPoint) -> bool {
        false
    }

    /// After Newton failed on point `k` from an extrapolated start: writes the constant start
    /// (the last known level's u and λ) into `pt.u_guess` and `pt.lambda_guess` and returns true,
    /// so that the point is tried once more from there, and starts every later point of the run
    /// from the constant prediction; false (the default) when the point's start was not
    /// extrapolated. Extrapolation across a sudden change (a beam that starts to buckle)
    /// can throw Newton out of its basin, where the constant start stays in it (measured:
    /// MSSTH(4) on the lateral buckling of a thin beam, docs/reproductions.md).
    fn constant_guess(&mut self, _k: usize, _pt: &mut IntegrationPoint) -> bool {
        false
    }

    /// What the scheme did during the run that its settings do not say, in words, for the run's
    /// report (`RunReport::notes`, summary.json `notes`): SS-k's first step retaken from the
    /// paper's start. Called once, after the run. Empty, the default.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// True when [`Scheme::start`] puts the scheme back at its first order (variable-order
    /// multistep methods), so that a restart needs a step fit for that order. False, the default.
    fn restarts_at_first_order(&self) -> bool {
        false
    }

    /// Called once after each committed step (after the formulation's correction) when the run
    /// watches for stiffness ([`crate::analysis::dynamic::DynamicSettings::stop_when_stiff`]):
    /// the number of committed steps, this one included, whose size was bounded by the scheme's
    /// linear stability rather than by its accuracy, since the last few in a row that were not.
    /// Only Adams PECE estimates it (`scheme/adams.rs`, [`adams::STIFF_RATIO`]); 0, the default,
    /// for the others.
    fn observe_stiffness(&mut self) -> usize {
        0
    }

    /// For schemes of variable order, called after the loop accepted the step just solved (before
    /// [`Scheme::end_step`]): chooses the order of the next step from the error estimates of this
    /// step at neighbouring orders, each measured by `norm` (the loop's error norm, filtered by the
    /// formulation), and returns the norm of the estimate for the chosen order with its power of h
    /// (what the step-size controller needs). `None`, the default: the order is fixed.
    fn select_order(
        &mut self,
        _norm: &mut dyn FnMut(&mut LocalError) -> f64,
    ) -> Option<(f64, u32)> {
        None
    }

    /// The work ∫ P dt \[J\] over the step just solved (all points accepted, before
    /// [`Scheme::end_step`]) by the scheme's own quadrature over its stages, with
    /// `power(t, q, v, λ)` \[W\] the integrand at a stage (q, v with n entries, λ with m). A
    /// multi-stage scheme advances its velocities with these weights (v_{n+1} − v_n = h Σ b_j A_j),
    /// so the work of the multipliers converges with the velocities even where the stage λ
    /// themselves converge at a lower order (index 3). `None`, the default: the time loop uses the
    /// trapezoidal rule on the committed states.
    fn step_work(
        &self,
        _power: &mut dyn FnMut(f64, &Vector, &Vector, &Vector) -> f64,
    ) -> Option<f64> {
        None
    }

    /// Commits the step: the history advances, and the newest complete state (q, v, a, λ all known)
    /// is written into `state`.
    fn end_step(&mut self, state: &mut State);

    /// Discards the step begun by [`Scheme::begin_step`]; the scheme is left exactly as before it.
    /// Schemes that write only tentative buffers before `end_step` need no code here.
    fn reject(&mut self) {}

    /// The largest factor h_{n+1}/h_n by which an adaptive run may let the step grow from one
    /// accepted step to the next: [`MAX_STEP_INCREASE`] unless the scheme's stability needs less
    /// (LMS2, LMS3: [`lms_variable::max_step_increase`], the zero-stability of their
    /// variable-coefficient formulas).
    fn max_step_increase(&self) -> f64 {
        MAX_STEP_INCREASE
    }

    /// The committed history (see [`History`]).
    fn history(&self) -> &History;

    /// The committed history, for a formulation to rewrite between steps.
    fn history_mut(&mut self) -> &mut History;

    /// The scheme's declared capabilities (from its registry entry).
    fn capabilities(&self) -> Capabilities {
        find(self.name())
            .map(|info| info.caps)
            .unwrap_or(Capabilities {
                order: 1,
                explicit_in_positions: false,
                unconditionally_stable: false,
                error_estimate: None,
                error_order: 0,
                variable_step: false,
                form: EquationForm::SecondOrder,
                estimate_noise: 0.0,
            })
    }
}
