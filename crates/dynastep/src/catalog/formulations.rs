//! Every formulation's catalog entry: name, aliases, summary, source, the constraint level, the
//! schemes it serves and how its errors are weighed. The implementations are in `formulation/`,
//! each registered by its [`FormulationInfo::name`] (`formulation/registry.rs`); the entries are
//! here, below the model layer, so that a model file's `[solver] formulation` is checked where it
//! is read.

use super::{
    FormulationInfo, LinearizedSystem, Positions, Refusal, SchemeRequirement, VelocityError,
};
use crate::scheme::EquationForm;

/// Registry entry of the index-3 formulation.
pub const INDEX3: FormulationInfo = FormulationInfo {
    name: "index3",
    aliases: &["index-3", "i3"],
    summary: "index-3 DAE with Lagrange multipliers: Newton on (u, lambda) per integration point, constraint rows scaled by 1/c_c, dense or sparse LU, least-squares fallback when singular",
    source: "Bottasso, Bauchau & Cardona (2007) SIAM J. Sci. Comput. 29:397 (scaling); Arnold & Brüls (2007) Multibody Syst Dyn 18:185 (generalized-alpha in index-3 form)",
    constraint_level: "positions (index 3); velocity and acceleration constraints hold only approximately",
    schemes: SchemeRequirement::SECOND_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::ScaledByStep,
    estimate_floor: 20.0,
    rtol_refused: &[
        Refusal { scheme: "trapezoidal", reason: UNDAMPED_NOISE },
        Refusal { scheme: "newmark", reason: UNDAMPED_NOISE },
        Refusal { scheme: "fox-goodwin", reason: UNDAMPED_NOISE },
        Refusal { scheme: "linear-acceleration", reason: UNDAMPED_NOISE },
    ],
    rtol_instead: "stabilized-index2",
};

/// Why index 3 refuses `rtol` for the schemes without numerical dissipation.
const UNDAMPED_NOISE: &str = "without numerical dissipation the index-3 velocities oscillate from step to step at the Newton tolerance over h, and the error estimate, which sees that noise, drives the step to h_min (measured on the pendulum at every rtol from 1e-4 to 1e-10, per step and per unit step: scripts/error_control.py)";
/// Why stabilized index 2 and the tangent space refuse `rtol` for the linear-acceleration method.
const LINEAR_ACCELERATION_ESTIMATE: &str = "the linear-acceleration method is conditionally stable, and its estimate (accurate per step on smooth problems) does not bound its error: per unit step on the pendulum it ended 20 to 540 rtol off in stabilized index 2 and 18 to 2 500 rtol in the tangent space at rtol 1e-6 ... 1e-10 (docs/schemes.md, the every-pair table)";

/// Registry entry of the stabilized index-2 formulation (Gear–Gupta–Leimkuhler).
pub const STABILIZED_INDEX2: FormulationInfo = FormulationInfo {
    name: "stabilized-index2",
    aliases: &["ggl", "si2", "stabilized-index-2"],
    summary: "stabilized index-2 DAE (Gear-Gupta-Leimkuhler): Newton on (u, lambda, z, mu) per integration point; lambda enforces the velocity constraints, mu moves the positions onto the position constraints along M^-1 Phi_q^T; rows scaled as in index3",
    source: "Gear, Gupta & Leimkuhler (1985) J. Comput. Appl. Math. 12-13:77; Hairer & Wanner (1996) Solving ODEs II, §VII.1 and §VII.3 (index-2 error norms)",
    constraint_level: "positions and velocities (both to the Newton tolerance); accelerations hold only approximately",
    schemes: SchemeRequirement {
        form: EquationForm::SecondOrder,
        positions: Positions::Implicit,
        refused: &[],
    },
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::ScaledByStep,
    estimate_floor: 0.0,
    rtol_refused: &[Refusal {
        scheme: "linear-acceleration",
        reason: LINEAR_ACCELERATION_ESTIMATE,
    }],
    rtol_instead: "",
};

/// Why MSSTH(3–5) and the Kennedy–Carpenter ESDIRKs are not served yet (docs/tangent_space.md).
const NOT_YET: &str = "on the double four-bar at h = 1e-3 s the Newton iteration of a stage stops converging near the singular passages (docs/tangent_space.md); not yet understood";
/// Registry entry of the tangent-space formulation.
pub const TANGENT_SPACE: FormulationInfo = FormulationInfo {
    name: "tangent-space",
    aliases: &["tangent", "null-space"],
    summary: "integration of minimal coordinates alpha in the tangent space of the constraint manifold, re-linearized at every Newton iterate (null space from an SVD of Phi_q); positions, velocities and accelerations all satisfy the constraints",
    source: "Fernández de Bustos, Uriarte, Urkullu & García-Marina (2022) Meccanica 57:371, §5 eqs. 32-58",
    constraint_level: "positions, velocities and accelerations (all three, to the Newton tolerance)",
    schemes: SchemeRequirement {
        form: EquationForm::SecondOrder,
        positions: Positions::Implicit,
        refused: &[
            Refusal { scheme: "mssth3", reason: NOT_YET },
            Refusal { scheme: "mssth4", reason: NOT_YET },
            Refusal { scheme: "mssth5", reason: NOT_YET },
            Refusal { scheme: "esdirk3-4", reason: NOT_YET },
            Refusal { scheme: "esdirk3-5", reason: NOT_YET },
            Refusal { scheme: "esdirk4-6", reason: NOT_YET },
        ],
    },
    linearized: LinearizedSystem::TangentSpace,
    velocity_error: VelocityError::ScaledByStep,
    estimate_floor: 0.0,
    rtol_refused: &[Refusal {
        scheme: "linear-acceleration",
        reason: LINEAR_ACCELERATION_ESTIMATE,
    }],
    rtol_instead: "",
};

/// Registry entry of direct integration.
pub const DIRECT: FormulationInfo = FormulationInfo {
    name: "direct",
    aliases: &["direct-integration"],
    summary: "acceleration-level equations [M Phi_q^T; Phi_q 0][a; lambda] = [Q; gamma] solved at every stage, integrated as a first-order ODE; no correction, drift reported",
    source: "Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.3, eq. 7.2.1",
    constraint_level: "accelerations (index 1); position and velocity violations drift",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
    estimate_floor: 0.0,
    rtol_refused: &[],
    rtol_instead: "",
};

/// Registry entry of Baumgarte stabilization.
pub const BAUMGARTE: FormulationInfo = FormulationInfo {
    name: "baumgarte",
    aliases: &["baumgarte-stabilization", "constraint-stabilization"],
    summary: "acceleration-level equations with gamma replaced by gamma - 2 alpha Phi_dot - beta^2 Phi ([solver.constraints] alpha, beta): violations stay bounded, not zero",
    source: "Baumgarte (1972) Comput Methods Appl Mech Eng 1:1; Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.4, eqs. 7.3.7-7.3.8",
    constraint_level: "accelerations, with the position and velocity violations fed back (bounded drift)",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
    estimate_floor: 0.0,
    rtol_refused: &[],
    rtol_instead: "",
};

/// Registry entry of coordinate projection.
pub const PROJECTION: FormulationInfo = FormulationInfo {
    name: "projection",
    aliases: &["coordinate-projection"],
    summary: "acceleration-level equations, then after every step q projected onto Phi = 0 and v onto Phi_q v + Phi_t = 0 (least squares in the mass or identity metric) and a, lambda recomputed",
    source: "Eich (1993) SIAM J Numer Anal 30:1467; Hairer & Wanner (1996) Solving ODEs II, §VII.2; Fernández de Bustos et al. (2024) Mathematics 12:2862, Table 10",
    constraint_level: "positions, velocities and accelerations at every committed step (to the Newton position tolerance)",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
    estimate_floor: 0.0,
    rtol_refused: &[],
    rtol_instead: "",
};

/// Registry entry of coordinate partitioning.
pub const PARTITIONING: FormulationInfo = FormulationInfo {
    name: "partitioning",
    aliases: &["coordinate-partitioning", "gcp"],
    summary: "generalized coordinate partitioning: acceleration-level equations, error control on the independent coordinates, dependent ones solved from the constraints after every step, repartitioning (and a restart) when Phi_u becomes ill-conditioned",
    source: "Wehage & Haug (1982) J Mech Des 104:247; Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.2",
    constraint_level: "positions and velocities at every committed step (to the Newton position tolerance)",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
    estimate_floor: 0.0,
    rtol_refused: &[],
    rtol_instead: "",
};

/// Registry entry of the hybrid algorithm.
pub const HYBRID: FormulationInfo = FormulationInfo {
    name: "hybrid",
    aliases: &["dads-hybrid"],
    summary: "DADS hybrid algorithm: Baumgarte-stabilized acceleration-level equations, partitioning correction only when |Phi| exceeds [solver.constraints] tolerance, pure partitioning near singular configurations, error control on the independent coordinates",
    source: "Park & Haug (1986) J Mech Transm Autom Des 108:176; Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.5",
    constraint_level: "positions within [solver.constraints] tolerance (corrected when outside), velocities and accelerations stabilized",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
    estimate_floor: 0.0,
    rtol_refused: &[],
    rtol_instead: "",
};

/// All formulations, in the order `dynastep formulations` lists them.
pub const FORMULATIONS: &[FormulationInfo] = &[
    INDEX3,
    STABILIZED_INDEX2,
    TANGENT_SPACE,
    DIRECT,
    BAUMGARTE,
    PROJECTION,
    PARTITIONING,
    HYBRID,
];

/// A formulation name that is not in [`FORMULATIONS`] (nor an alias); the message lists the known
/// ones.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown formulation `{0}`; known formulations: {known} (see `dynastep formulations`)", known = known_names())]
pub struct UnknownFormulation(pub String);

/// The registered names, comma-separated.
fn known_names() -> String {
    FORMULATIONS
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds a formulation by name or alias (case-insensitive; `_` and `-` are equivalent, as for
/// schemes: [`crate::scheme::names_match`]).
pub fn find(name: &str) -> Option<&'static FormulationInfo> {
    FORMULATIONS
        .iter()
        .find(|f| crate::scheme::names_match(name, f.name, f.aliases))
}
