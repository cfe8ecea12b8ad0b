//! The run settings a model file declares under `[solver]`: Newton (`[solver.newton]`), constraint
//! stabilization and correction (`[solver.constraints]`), error control (`[solver.step]`), where the
//! diagnostics are computed, and what to do with redundant constraints. They are declared here, in
//! the model layer, as plain serde types (the JSON Schema is generated from them); the layers that
//! use them (formulation/, analysis/) re-export them and add their behaviour.

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

/// Linear solver of the Newton iteration matrix.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum LinearSolver {
    /// A dense LU in fixed-size storage (nalgebra, partial pivoting) up to 8 unknowns n + m (the
    /// closed-form inverse up to 3, see [`small_dense`]), sparse LU above.
    ///
    /// Measured (release build, generalized-α, full Newton, loop time over the fixed-size LU's,
    /// 2026-11-26): pendulum (n + m = 3) sparse 1.11, general dense 1.31. Above 8 unknowns the
    /// sparse path, which refactors with the pivots of an earlier factorization and so costs only
    /// the flops of the factors, is the fastest: general dense / sparse 1.76 at 18 (slider-crank),
    /// 2.4 at 29 (double four-bar).
    #[default]
    Auto,
    /// Dense LU with partial pivoting (faer) at every size (kept for comparison and checks: slower
    /// at every size measured).
    Dense,
    /// Sparse LU with partial pivoting and a fill-reducing column ordering, refactored with earlier
    /// pivots while they stay good.
    Sparse,
}

/// Newton iteration settings (defaults in brackets).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct NewtonSettings {
    /// Largest number of iterations (solves) per integration point [25].
    pub max_iterations: usize,
    /// Tolerance on the last position correction, relative to 1 + ‖q‖∞ [1e-10]; the error left
    /// after a simplified or modified Newton correction must be below 1e-3 of it.
    pub position_tol: f64,
    /// Tolerance on the equilibrium residual, relative to the size of its terms [1e-8].
    pub residual_tol: f64,
    /// Linear solver of the iteration matrix: `auto` (a fixed-size dense LU up to n + m = 8, sparse
    /// LU above, measured fastest at each size), `dense` or `sparse` [auto].
    pub linear_solver: LinearSolver,
    /// `full`: a new iteration matrix at every iteration; `modified`: the index-3 formulation keeps
    /// its factored matrix across iterations and steps while Newton contracts fast enough [full].
    pub method: NewtonMethod,
    /// Modified Newton: contraction rate θ = ‖Δ_k‖ / ‖Δ_(k−1)‖ above which the iteration matrix is
    /// assembled and factored again [0.03].
    pub max_contraction: f64,
    /// Modified Newton: relative change of the step size, read from the matrix coefficients of the
    /// integration point (c_v/c_a ∝ h, c_q/c_a ∝ h²), beyond which the matrix is refreshed before the
    /// first iteration [0.2].
    pub max_step_change: f64,
    /// Read the clock around every residual evaluation, assembly, factorization and solve, and
    /// report the sums (summary.json `newton_iterations.time_s`) [false]. Off by default: the clock
    /// reads cost about a fifth of a step of a small model (the pendulum, measured with `perf`).
    pub time_phases: bool,
}

impl NewtonSettings {
    /// The stopping test made of these tolerances ([`crate::linalg::convergence`]).
    pub fn test(&self) -> crate::linalg::convergence::NewtonTest {
        crate::linalg::convergence::NewtonTest {
            position_tol: self.position_tol,
            residual_tol: self.residual_tol,
        }
    }
}

impl Default for NewtonSettings {
    fn default() -> Self {
        NewtonSettings {
            max_iterations: 25,
            position_tol: 1e-10,
            residual_tol: 1e-8,
            linear_solver: LinearSolver::Auto,
            method: NewtonMethod::Full,
            max_contraction: 0.03,
            max_step_change: 0.2,
            time_phases: false,
        }
    }
}

/// How often the Newton iteration matrix is assembled and factored.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum NewtonMethod {
    /// Assemble and factor at every iteration (the default: the accuracy results of the test suite
    /// are established with it).
    #[default]
    Full,
    /// Reuse the last factorization across iterations and steps; refresh it when the contraction rate
    /// exceeds `max_contraction`, when the step size changes by more than `max_step_change`, after a
    /// failed point, and when the point is linear in u. Stops with the Hairer–Wanner test
    /// (see `linalg::convergence::MODIFIED_KAPPA`). Index-3 formulation only; the others always
    /// refresh.
    Modified,
}

/// Settings of the formulations that correct or stabilize the constraints at the acceleration level
/// (`[solver.constraints]`; defaults in brackets). Haug 1989, *Computer-Aided Kinematics and Dynamics
/// of Mechanical Systems*, §7.3.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct ConstraintSettings {
    /// Baumgarte α [1/s] of Φ̈ + 2αΦ̇ + β²Φ = 0 (Haug eq. 7.3.7), used by `baumgarte` and `hybrid` [10].
    pub alpha: f64,
    /// Baumgarte β [1/s] of Φ̈ + 2αΦ̇ + β²Φ = 0, used by `baumgarte` and `hybrid` [10].
    pub beta: f64,
    /// Metric of the coordinate projection: `mass` (the correction closest to the integrated state
    /// in kinetic-energy norm) or `identity` (Euclidean) [mass].
    pub projection: ProjectionMetric,
    /// Constraint tolerance ‖Φ‖∞ [m, rad] up to which the hybrid algorithm accepts an integrated state
    /// without correcting it (its velocity test is ‖Φ_q v + Φ_t‖∞ ≤ tolerance / h) [100 × the Newton
    /// position tolerance: rtol in an adaptive run, 1e-8 otherwise].
    pub tolerance: Option<f64>,
    /// Partitioning: the current dependent coordinates are replaced by a fresh choice when the
    /// smallest pivot of their block Φ_u falls below this fraction of the smallest pivot of a fresh
    /// full-pivoting factorization of Φ_q [0.1].
    pub repartition_ratio: f64,
    /// What the index-1 formulations (`direct`, `baumgarte`, `projection`, `partitioning`,
    /// `hybrid`) do when the motion comes close to a singular configuration of the constraints,
    /// where Φ_q loses rank: `warn` (say so after the run) or `stop` (end the run there)
    /// [warn].
    pub singular_configuration: SingularityPolicy,
}

/// What an index-1 formulation does near a singular configuration (see
/// `formulation::singularity`).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SingularityPolicy {
    /// Go on, and report the closest passage in summary.json and on the terminal (default).
    #[default]
    Warn,
    /// End the run with a failure of kind `singular` at the first close passage.
    Stop,
}

impl Default for ConstraintSettings {
    fn default() -> Self {
        ConstraintSettings {
            alpha: 10.0,
            beta: 10.0,
            projection: ProjectionMetric::Mass,
            tolerance: None,
            repartition_ratio: 0.1,
            singular_configuration: SingularityPolicy::Warn,
        }
    }
}

/// The metric W of a coordinate projection: min ½ ΔqᵀWΔq subject to Φ(q + Δq) = 0.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProjectionMetric {
    /// W = M(q): the kinetic-energy metric, independent of the units of the coordinates.
    #[default]
    Mass,
    /// W = I: the Euclidean metric (mixes metres and radians).
    Identity,
}

/// What to do when the constraints are redundant.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RedundancyPolicy {
    /// Report the redundant constraints and go on with minimum-norm multipliers (default).
    #[default]
    Warn,
    /// Stop with an error.
    Error,
}

/// Where a dynamic run starts (`[solver] start`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StartState {
    /// The poses and velocities of the model file, made consistent by assembly (default).
    #[default]
    Given,
    /// The static equilibrium under the loads at the start time, found by Newton's method from
    /// the file's poses, at rest: a flexible structure starts sagged under gravity instead of
    /// oscillating about its sag (the settling phase MBDyn's decks run with damping).
    Equilibrium,
}

/// The scheme name that asks for the stiffness switch (`study/switch.rs`): Adams PECE with
/// projection, going on with ESDIRK4(3)6L in stabilized index 2 where the model turns out stiff.
/// A `[solver] scheme` of a model file, for `dynastep run` and Python's `Model.run`, which then
/// need a tolerance; the switch chooses the parameters and the formulation.
pub const AUTO_SCHEME: &str = "auto";

/// Smallest relative tolerance a run takes, 100 ε ≈ 2.2e-14: below it the local error estimate
/// is itself rounding, no step can be shown to meet the tolerance, and an index-3 run would accept
/// its steps at the estimate's floor while saying it met rtol (MATLAB's ode45 and SciPy's
/// solve_ivp raise a smaller rtol to the same bound, with a warning).
pub const MIN_RTOL: f64 = 100.0 * f64::EPSILON;

/// The message of an rtol below [`MIN_RTOL`].
pub fn rtol_too_small(rtol: f64) -> String {
    format!(
        "[solver.step] rtol = {rtol:e} is below 100 ε = {MIN_RTOL:.1e}, where double precision cannot show a step to meet it"
    )
}

/// Step-size settings (`[solver.step]`, `--rtol` …): the error control of an adaptive run, and the
/// halving of a failing fixed step. A run is adaptive when `rtol` is given; otherwise its steps are
/// fixed.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct StepSettings {
    /// Relative tolerance of the local error; giving it makes the run adaptive (`dt` is then only the
    /// first step, chosen automatically when absent) [none: fixed steps].
    pub rtol: Option<f64>,
    /// Absolute tolerance of the local error, in the units of each coordinate and velocity [rtol].
    pub atol: Option<f64>,
    /// Smallest step [s]; a step that fails below it ends the run [1e-14 × the run's span].
    pub h_min: Option<f64>,
    /// Largest step [s] [the run's span].
    pub h_max: Option<f64>,
    /// What the tolerance bounds: "per-step" (each step's local error) or "per-unit-step" (each
    /// step's local error per unit of its share h/T of the run, so that the local errors of the run
    /// sum to at most the tolerance) [per-step].
    pub control: Option<StepControl>,
    /// Fixed steps only: how many times a step whose Newton iteration fails is halved before the
    /// run stops (the step is taken again in 2 equal parts, a failing part again in 2, …; the run
    /// then goes on with `dt`); 0 stops at the first failing step. Schemes whose step cannot vary
    /// (the central-difference families, LMS4) are never halved [4].
    pub max_halvings: Option<u32>,
    /// Fixed steps only, while a halving is left: the most Newton iterations a point may take
    /// before its step counts as failing and is taken in halves (the last halving's parts get the
    /// full `[solver.newton] max_iterations`). An iteration that needs many more than full
    /// Newton's few is outside its region of quadratic convergence, where it can settle on a
    /// spurious solution (the flexible four-bar's change points). Index 3 and stabilized index 2
    /// [8].
    pub halve_after_iterations: Option<usize>,
}

/// What the error tolerance of an adaptive run bounds (see the module documentation).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StepControl {
    /// Error per step: every step's local error norm is at most 1.
    #[default]
    PerStep,
    /// Error per unit step: every step's local error norm is at most h/T (T the run's span).
    PerUnitStep,
}

/// Where a run computes its diagnostics (energy balance, constraint violations); the work W_nc of
/// the non-conservative forces is integrated over every step either way.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticsAt {
    /// At the output samples only: the maxima in the report are over the samples.
    #[default]
    OutputSamples,
    /// At every committed step as well: the maxima are over every step.
    EveryStep,
}
