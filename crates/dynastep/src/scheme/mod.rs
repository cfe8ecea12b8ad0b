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
//! A scheme receives the converged solution of each point through [`Scheme::accept_point`] and keeps the
//! history it needs. [`Scheme::end_step`] reports the newest state at which q, v, a and λ are all known;
//! for the conditionally explicit family that is one step behind the newest positions.
//!
//! # Adding a scheme
//! Write one file with a struct implementing [`Scheme`] and a `pub const INFO: SchemeInfo`, and add the
//! `INFO` to [`REGISTRY`] (in `registry.rs`). Nothing else changes.

pub mod bathe;
pub mod central_difference;
pub mod generalized_alpha;
pub mod hht;
pub mod lms2;
pub mod newmark;
mod registry;

pub use registry::{build, find, ParamInfo, SchemeError, SchemeInfo, SchemeParams, REGISTRY};

use crate::linalg::Vector;

/// A complete state of the system at one time: t \[s\], q (n), v (n), a (n), λ (m).
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Time \[s\].
    pub t: f64,
    /// Generalized coordinates (n).
    pub q: Vector,
    /// Generalized velocities (n).
    pub v: Vector,
    /// Generalized accelerations (n).
    pub a: Vector,
    /// Lagrange multipliers (m).
    pub lambda: Vector,
}

impl State {
    /// A state of zeros for n coordinates and m constraints at time t.
    pub fn zeros(t: f64, n: usize, m: usize) -> Self {
        State {
            t,
            q: Vector::zeros(n),
            v: Vector::zeros(n),
            a: Vector::zeros(n),
            lambda: Vector::zeros(m),
        }
    }

    /// Copies `other` into `self` without allocating (shapes must match).
    ///
    /// # Panics
    /// When the shapes differ.
    pub fn copy_from(&mut self, other: &State) {
        self.t = other.t;
        self.q.copy_from(&other.q);
        self.v.copy_from(&other.v);
        self.a.copy_from(&other.a);
        self.lambda.copy_from(&other.lambda);
    }
}

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
        }
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
}

/// A time discretization (see the module documentation for the contract).
///
/// The driver calls, for a run with constant step h:
/// `start(h, x0)`, then per step `for k in 0..points_per_step() { point(k, ..); solve; accept_point(k, ..) }`
/// and `end_step(..)`. `point`, `accept_point` and `end_step` must not allocate.
pub trait Scheme: Send {
    /// Registry name of the scheme (e.g. `"generalized-alpha"`).
    fn name(&self) -> &'static str;

    /// The scheme's parameters with their values, for reports (e.g. `\[("rho_inf", 0.8)\]`).
    fn parameters(&self) -> Vec<(&'static str, f64)>;

    /// Number of integration points (stages) per step.
    fn points_per_step(&self) -> usize;

    /// Prepares a run with constant step `h` \[s\] from a consistent state `initial` (n coordinates, m
    /// multipliers), whose force terms Φ_qᵀλ − Q (n) \[N\] are `force_terms`. May allocate.
    fn start(&mut self, h: f64, initial: &State, force_terms: &Vector);

    /// Fills the affine maps of point `k` (0 ≤ k < points_per_step) of the current step.
    fn point(&mut self, k: usize, pt: &mut IntegrationPoint);

    /// Records the converged solution of point `k`.
    fn accept_point(&mut self, k: usize, solution: &PointSolution<'_>);

    /// Writes the newest complete state (q, v, a, λ all known) after the step into `state`, and advances
    /// the scheme's internal time level.
    fn end_step(&mut self, state: &mut State);
}
