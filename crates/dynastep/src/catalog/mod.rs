//! The catalog of formulations: what each one is called, what it serves and how its errors are
//! weighed, as data ([`FormulationInfo`]), and the scheme × formulation compatibility rule derived
//! from it ([`compatible`]).
//!
//! It sits between the schemes and the model (layers: linalg, state → scheme → catalog → model →
//! system → formulation → analysis → io → study): the model layer checks a file's
//! `[solver] formulation` against it, and `formulation/` builds the formulation each entry names.
//! Adding a formulation: its entry goes into [`formulations`], its implementation into
//! `formulation/<name>.rs`, and its type into the registry line of `formulation/registry.rs`.

mod compatibility;
pub mod formulations;

pub use compatibility::{compatible, formulations_for, Incompatible};
pub use formulations::{find, UnknownFormulation, FORMULATIONS};

use crate::scheme::EquationForm;

/// Which schemes a formulation can serve, in terms of what a scheme declares in its
/// [`crate::scheme::Capabilities`]: a new formulation states its requirement here and touches no
/// scheme file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemeRequirement {
    /// The form of the equations the scheme must integrate.
    pub form: EquationForm,
    /// Whether the scheme's evaluation positions must depend on the unknown.
    pub positions: Positions,
    /// Schemes that meet the requirement but are refused, each with the evidence why (a known
    /// failure, not a structural reason).
    pub refused: &'static [Refusal],
}

/// Whether a formulation needs the evaluation positions of a scheme to depend on its unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positions {
    /// Either.
    Any,
    /// Only schemes whose evaluation positions depend on the unknown (c_q ≠ 0).
    Implicit,
    /// Only schemes explicit in positions (c_q = 0).
    Explicit,
}

/// A scheme a formulation refuses although it meets the requirement, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// Registry name of the scheme.
    pub scheme: &'static str,
    /// Why, with the evidence (where it is documented).
    pub reason: &'static str,
}

impl SchemeRequirement {
    /// Second-order schemes of either kind of positions (index 3).
    pub const SECOND_ORDER: SchemeRequirement = SchemeRequirement {
        form: EquationForm::SecondOrder,
        positions: Positions::Any,
        refused: &[],
    };
    /// First-order schemes with explicit stages (the acceleration-level formulations).
    pub const FIRST_ORDER: SchemeRequirement = SchemeRequirement {
        form: EquationForm::FirstOrder,
        positions: Positions::Any,
        refused: &[],
    };
}

/// A formulation's registry entry: what `dynastep formulations` lists and what the scheme ×
/// formulation compatibility check reads.
#[derive(Debug, Clone, Copy)]
pub struct FormulationInfo {
    /// Registry name (`[solver] formulation = "…"`, `--formulation`).
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One-line description.
    pub summary: &'static str,
    /// Papers and equations implemented.
    pub source: &'static str,
    /// At which level the constraints are imposed and which levels hold only approximately.
    pub constraint_level: &'static str,
    /// Which schemes it can serve.
    pub schemes: SchemeRequirement,
    /// Which linearized system its steps integrate: what the largest natural frequency ω_max of a
    /// run is computed from (`analysis::natural_frequency`).
    pub linearized: LinearizedSystem,
    /// How the error norm weighs velocity errors (`analysis::step_control::error_norm`).
    pub velocity_error: VelocityError,
    /// The noise of the formulation's states, in units of ε · max_i |q_i|: on the position scale
    /// the error norm asks no step for less (`analysis::step_control::error_norm`). Index 3: 20,
    /// because its velocities and accelerations are computed from positions through the scheme's
    /// 1/h and 1/h² factors, so an estimate built from them carries the positions' rounding times
    /// those factors' constants (γ/β, 1/β) whatever the step; per unit step a tight tolerance's
    /// share h/T falls below that, and the run used to end at h_min (docs/schemes.md, "the
    /// rounding floor of index 3"). 20 because MSSTC(5)'s estimate carries 13 ε there (10, the
    /// smallest rtol Hairer's codes accept, stopped it at rtol 1e-10 on the pendulum).
    /// 0 elsewhere: measured, stabilized index 2 needs none, and a floor there costs accuracy.
    pub estimate_floor: f64,
    /// Schemes that this formulation serves with fixed steps but not with `rtol` on a constrained
    /// model (m > 0): their error estimate, measured, does not control the error there
    /// (`analysis::dynamic::check_settings` refuses the run up front and names a pair that works).
    pub rtol_refused: &'static [Refusal],
    /// The formulation that the refusals of `rtol_refused` recommend instead (empty when there
    /// are none).
    pub rtol_instead: &'static str,
}

/// How the local error of the velocities enters the error norm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VelocityError {
    /// As h·e_v, on the scale of the positions: the velocities of an index-3 formulation are index-2
    /// variables whose error estimate does not fall with h (Hairer & Wanner 1996, *Solving Ordinary
    /// Differential Equations II*, §VII.3, index scaling).
    ScaledByStep,
    /// As e_v on the scale of the velocities, atol + rtol·|v|: the velocities are differential
    /// variables of a first-order ODE y = (q, v) (the acceleration-level formulations).
    Differential,
}

/// The linearized system a formulation integrates, whose largest natural frequency limits the step
/// of a conditionally stable scheme (Fernández de Bustos et al. 2022, Meccanica 57:371, §5, eq. 52
/// and the paragraph after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinearizedSystem {
    /// The constrained linearization M δq̈ + C δq̇ + K δq + Φ_qᵀ δλ = 0, Φ_q δq = 0, with the null
    /// space N of Φ_q held fixed: M_R = Nᵀ M N, K_R = Nᵀ K N (f × f).
    Constrained,
    /// The tangent-space equations of the minimal coordinates α (eq. 52): M_R = Nᵀ M N,
    /// K_R = Nᵀ K N + Nᵀ C Ẋ_p + Nᵀ M Ẍ_p1 (f × f), with Ẋ_p and Ẍ_p1 of eqs. 40 and 47.
    TangentSpace,
}
