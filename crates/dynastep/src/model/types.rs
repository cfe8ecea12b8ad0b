//! The model as written in a TOML model file: plain data, addressed by names, in SI units and radians.
//!
//! These types are the schema of the model file (a JSON Schema is generated from them with
//! `dynastep schema`). Parsing and validation with file/line/column errors live in
//! [`super::parse`]; turning a valid model into equations lives in [`crate::system::planar`].

// Units are written in brackets, `[kg]`, as the style guide asks; these doc strings also become the
// JSON Schema descriptions, so they are not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::function::FunctionSpec;
use super::settings::{ConstraintSettings, NewtonSettings, RedundancyPolicy, StepSettings};

/// Name of the implicit ground body.
pub const GROUND: &str = "ground";

/// A model: a planar mechanism (bodies, joints, drivers, forces, markers), a spatial one
/// (`spatial`) or an equation-based one (`equations`), with its solver settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Title of the model.
    #[serde(default)]
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: String,
    /// Gravitational acceleration vector (gx, gy) [m/s²]; default (0, 0).
    #[serde(default)]
    pub gravity: [f64; 2],
    /// The ground: named points fixed in the global frame.
    #[serde(default)]
    pub ground: GroundSpec,
    /// Moving bodies.
    #[serde(default)]
    pub bodies: Vec<BodySpec>,
    /// Joints between points of two bodies.
    #[serde(default)]
    pub joints: Vec<JointSpec>,
    /// Rheonomic constraints prescribing a joint value or a body coordinate in time.
    #[serde(default)]
    pub drivers: Vec<DriverSpec>,
    /// Force elements (gravity is set by `gravity`).
    #[serde(default)]
    pub forces: Vec<ForceSpec>,
    /// Points whose global position and velocity are written to the output.
    #[serde(default)]
    pub markers: Vec<MarkerSpec>,
    /// An equation-based model: coordinates, M(q), Q(q, q̇, t), Φ(q, t) and V as expressions
    /// (then the model has no bodies, joints, drivers, forces or markers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equations: Option<super::equations::EquationSpec>,
    /// A spatial mechanism: bodies, joints, forces and markers in three dimensions (then the
    /// model has no planar bodies, joints, drivers, forces or markers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spatial: Option<super::spatial::SpatialSpec>,
    /// Solver settings; the command line overrides them.
    #[serde(default)]
    pub solver: SolverSpec,
}

impl Model {
    /// This model with `solver.constraints.singular_configuration = "stop"`: its index-1
    /// formulations stop at a singular configuration instead of warning, so that a run which
    /// chose its pair (the stiffness switch, the trial's fallback, the trial's explicit
    /// reference) can go on with a position-level pair that passes it.
    pub fn stopping_at_singular_configurations(&self) -> Model {
        let mut m = self.clone();
        m.solver.constraints.singular_configuration = super::settings::SingularityPolicy::Stop;
        m
    }
}

/// The ground body, always named `ground`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroundSpec {
    /// Named points, global coordinates [m].
    #[serde(default)]
    pub points: BTreeMap<String, [f64; 2]>,
}

/// Kind of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BodyKind {
    /// Rigid body with coordinates (x, y, θ) of its body frame.
    #[default]
    Rigid,
    /// Point mass with coordinates (x, y); no rotation, no inertia.
    Point,
}

/// A body coordinate: x, y, θ of a planar body frame; x, y, z of a spatial body's centroid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Coordinate {
    /// x of the body frame origin [m].
    X,
    /// y of the body frame origin [m].
    Y,
    /// Rotation of the body frame [rad] (planar rigid bodies only).
    Theta,
    /// z of a spatial body's centroid [m] (spatial models only).
    Z,
}

/// A rigid body or point mass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Unique name (not `ground`).
    pub name: String,
    /// `rigid` (default) or `point`.
    #[serde(default)]
    pub kind: BodyKind,
    /// Mass [kg]; positive.
    pub mass: f64,
    /// Moment of inertia about the centre of mass [kg m²]; positive for rigid bodies, absent for points.
    #[serde(default)]
    pub inertia: Option<f64>,
    /// Initial x of the body frame origin [m] (approximate: assembly corrects it unless given).
    #[serde(default)]
    pub x: f64,
    /// Initial y of the body frame origin [m].
    #[serde(default)]
    pub y: f64,
    /// Initial rotation of the body frame [rad].
    #[serde(default)]
    pub theta: f64,
    /// Centre of mass in the body frame [m]; default the origin.
    #[serde(default)]
    pub com: [f64; 2],
    /// Named points in the body frame [m]. The origin is always available as point `origin`.
    #[serde(default)]
    pub points: BTreeMap<String, [f64; 2]>,
    /// Initial velocity of the body frame origin, x component [m/s].
    #[serde(default)]
    pub vx: f64,
    /// Initial velocity of the body frame origin, y component [m/s].
    #[serde(default)]
    pub vy: f64,
    /// Initial angular velocity [rad/s].
    #[serde(default)]
    pub omega: f64,
    /// Coordinates held at their initial values during assembly.
    #[serde(default)]
    pub given: Vec<Coordinate>,
    /// Velocities held at their initial values during assembly (the others are the least change that
    /// satisfies the velocity constraints).
    #[serde(default)]
    pub given_velocity: Vec<Coordinate>,
}

/// Kind of a joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    /// Points coincide (2 equations).
    Revolute,
    /// Point j slides along an axis fixed in body i, relative rotation locked (2 equations; 1 when
    /// body j is a point mass).
    Prismatic,
    /// Points coincide and relative rotation locked (3 equations; 2 with a point mass).
    Fixed,
    /// Distance between the points is constant: a massless rod (1 equation).
    Distance,
}

/// A joint between a point of body i and a point of body j.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// Unique name among joints.
    pub name: String,
    /// Kind.
    #[serde(rename = "type")]
    pub kind: JointKind,
    /// First body (`ground` allowed).
    pub body_i: String,
    /// Point of body i (default `origin`).
    #[serde(default)]
    pub point_i: Option<String>,
    /// Second body (`ground` allowed; not the same as body i).
    pub body_j: String,
    /// Point of body j (default `origin`).
    #[serde(default)]
    pub point_j: Option<String>,
    /// Prismatic: sliding direction in the frame of body i (need not be unit) [-]; default (1, 0).
    #[serde(default)]
    pub axis: Option<[f64; 2]>,
    /// Distance: rod length [m]; default the distance at the initial poses.
    #[serde(default)]
    pub length: Option<f64>,
    /// Revolute or prismatic: hold the joint value (relative angle θ_j − θ_i, or displacement along
    /// the axis) at its value in the initial poses during assembly; default false.
    #[serde(default)]
    pub given: bool,
}

/// What a driver prescribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DriverKind {
    /// The value of a joint. Planar: the relative angle θ_j − θ_i of a revolute joint [rad], or
    /// the displacement of a prismatic joint along its axis [m]. Spatial: the rotation or
    /// translation (`motion`) of a revolute, prismatic or cylindrical joint from its initial
    /// configuration.
    #[default]
    Joint,
    /// A coordinate of a body: x, y [m] or θ [rad] of a planar body frame; x, y or z [m] of a
    /// spatial body's centroid.
    Coordinate,
}

/// What a spatial joint driver prescribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JointMotion {
    /// The rotation angle about the joint axis of body j's joint frame from body i's, zero at the
    /// initial configuration [rad] (revolute and cylindrical joints).
    Rotation,
    /// The displacement (P_j − P_i) along the joint axis [m] (prismatic and cylindrical joints).
    Translation,
}

/// A rheonomic constraint: driven value − f(t) = 0. One spec for planar and spatial models; a
/// field that only one kind reads (`motion` spatial) is refused at its line in the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DriverSpec {
    /// Unique name among drivers.
    pub name: String,
    /// `joint` (default) or `coordinate`.
    #[serde(rename = "type", default)]
    pub kind: DriverKind,
    /// For `joint`: the driven joint (planar: revolute or prismatic; spatial: revolute,
    /// prismatic or cylindrical).
    #[serde(default)]
    pub joint: Option<String>,
    /// For `coordinate`: the body.
    #[serde(default)]
    pub body: Option<String>,
    /// For `coordinate`: which coordinate.
    #[serde(default)]
    pub coordinate: Option<Coordinate>,
    /// Spatial joint drivers: `rotation` or `translation`; default: rotation for a revolute
    /// joint, translation for a prismatic one (a cylindrical joint needs it).
    #[serde(default)]
    pub motion: Option<JointMotion>,
    /// The prescribed value f(t) [rad or m].
    pub function: FunctionSpec,
}

/// The axes in which a vector is given (an applied force or torque, an initial angular velocity),
/// for planar and spatial models alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Axes {
    /// The global frame.
    #[default]
    Global,
    /// The axes of the body the vector belongs to (a follower force).
    Body,
}

/// A force element, one spec for planar and spatial models. A field that only one kind of model
/// has (`fz`, `tx`, `ty`, `tz` spatial; `torque` planar) is refused at its line in the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ForceSpec {
    /// Translational spring–damper–actuator between two points. Tension
    /// f = k (l − l₀) + c l̇ + f_a(t) pulls the points together when positive.
    Tsda {
        /// Unique name among forces.
        name: String,
        /// First body.
        body_i: String,
        /// Point of body i (default `origin`).
        #[serde(default)]
        point_i: Option<String>,
        /// Second body.
        body_j: String,
        /// Point of body j (default `origin`).
        #[serde(default)]
        point_j: Option<String>,
        /// Stiffness k [N/m] (default 0).
        #[serde(default)]
        stiffness: f64,
        /// Free length l₀ [m] (default: the initial distance).
        #[serde(default)]
        free_length: Option<f64>,
        /// Damping c [N s/m] (default 0).
        #[serde(default)]
        damping: f64,
        /// Actuator tension f_a(t) [N] (default none).
        #[serde(default)]
        actuator: Option<FunctionSpec>,
    },
    /// Rotational spring–damper–actuator at a joint: torque on body j
    /// τ = −k (θ_r − θ₀) − c θ̇_r + τ_a(t); the opposite torque acts on body i. Planar: at a
    /// revolute joint, θ_r = θ_j − θ_i. Spatial: about the axis of a revolute or cylindrical
    /// joint, θ_r its rotation from the initial configuration, θ_r − θ₀ taken in (−π, π].
    Rsda {
        /// Unique name among forces.
        name: String,
        /// The joint.
        joint: String,
        /// Stiffness k [N m/rad] (default 0).
        #[serde(default)]
        stiffness: f64,
        /// Free relative angle θ₀ [rad] (default 0).
        #[serde(default)]
        free_angle: f64,
        /// Damping c [N m s/rad] (default 0).
        #[serde(default)]
        damping: f64,
        /// Actuator torque τ_a(t) on body j [N m] (default none).
        #[serde(default)]
        actuator: Option<FunctionSpec>,
    },
    /// A force applied at a point of a body; a missing component is zero.
    Force {
        /// Unique name among forces.
        name: String,
        /// The body.
        body: String,
        /// Point of application (default `origin`).
        #[serde(default)]
        point: Option<String>,
        /// x component f_x(t) [N].
        #[serde(default)]
        fx: Option<FunctionSpec>,
        /// y component f_y(t) [N].
        #[serde(default)]
        fy: Option<FunctionSpec>,
        /// Spatial models only: z component f_z(t) [N].
        #[serde(default)]
        fz: Option<FunctionSpec>,
        /// Axes of the components: `global` (default) or `body` (a follower force).
        #[serde(default)]
        frame: Axes,
    },
    /// A torque applied to a rigid body.
    Torque {
        /// Unique name among forces.
        name: String,
        /// The body.
        body: String,
        /// Planar models: the torque τ(t), counter-clockwise positive [N m].
        #[serde(default)]
        torque: Option<FunctionSpec>,
        /// Spatial models: x component τ_x(t) [N m] (a missing component is zero).
        #[serde(default)]
        tx: Option<FunctionSpec>,
        /// Spatial models: y component τ_y(t) [N m].
        #[serde(default)]
        ty: Option<FunctionSpec>,
        /// Spatial models: z component τ_z(t) [N m].
        #[serde(default)]
        tz: Option<FunctionSpec>,
        /// Spatial models: axes of the components, `global` (default) or `body`. A planar
        /// torque is the same in both.
        #[serde(default)]
        frame: Axes,
    },
}

impl ForceSpec {
    /// How messages name the element: "force `NAME` (KIND)", KIND its `type`.
    pub fn label(&self) -> String {
        let kind = match self {
            ForceSpec::Tsda { .. } => "tsda",
            ForceSpec::Rsda { .. } => "rsda",
            ForceSpec::Force { .. } => "force",
            ForceSpec::Torque { .. } => "torque",
        };
        format!("force `{}` ({kind})", self.name())
    }

    /// The element's unique name among forces.
    pub fn name(&self) -> &str {
        match self {
            ForceSpec::Tsda { name, .. }
            | ForceSpec::Rsda { name, .. }
            | ForceSpec::Force { name, .. }
            | ForceSpec::Torque { name, .. } => name,
        }
    }
}

/// A named point whose global position and velocity are output: `<name>.x`, `.y`, `.vx`, `.vy` in
/// a planar model; in a spatial one also `.z`, `.vz`, its body's Euler parameters and angular
/// velocity. One spec for both kinds of model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkerSpec {
    /// Unique name among markers.
    pub name: String,
    /// The body (`ground` allowed).
    pub body: String,
    /// Point of the body (default `origin`).
    #[serde(default)]
    pub point: Option<String>,
    /// Spatial models only: also write the body's orientation as angles `<name>.angle1`,
    /// `.angle2`, `.angle3` \[rad\] of this Euler or Cardan sequence (moving axes, as
    /// `orientation.sequence`), e.g. `zxz`. A planar marker's angle is its body's θ.
    #[serde(default)]
    pub angles: Option<String>,
}

/// Solver settings stored with the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    /// Scheme name (see `dynastep schemes`); default `generalized-alpha`. `auto`: the stiffness
    /// switch of `dynastep run` and Python (Adams PECE with projection, then ESDIRK4(3)6L in
    /// stabilized index 2 where the model turns out stiff), with `[solver.step] rtol` or a
    /// tolerance given to the run, and no `formulation` or `[solver.params]`.
    #[serde(default)]
    pub scheme: Option<String>,
    /// Scheme parameters by name.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Step size [s].
    #[serde(default)]
    pub dt: Option<f64>,
    /// Start time [s] (default 0).
    #[serde(default)]
    pub t_start: Option<f64>,
    /// End time [s].
    #[serde(default)]
    pub t_end: Option<f64>,
    /// Output interval [s] (default: every step, or 1/1000 of the run when that is longer).
    #[serde(default)]
    pub output_interval: Option<f64>,
    /// Formulation name (see `dynastep formulations`); default `index3`.
    #[serde(default)]
    pub formulation: Option<String>,
    /// Error control: giving `rtol` makes the run adaptive, with `dt` only the first step.
    #[serde(default)]
    pub step: StepSettings,
    /// Newton settings.
    #[serde(default)]
    pub newton: NewtonSettings,
    /// Constraint stabilization and correction of the acceleration-level formulations (`baumgarte`,
    /// `projection`, `partitioning`, `hybrid`).
    #[serde(default)]
    pub constraints: ConstraintSettings,
    /// Redundant constraints: `warn` (default) or `error`.
    #[serde(default)]
    pub redundancy: RedundancyPolicy,
    /// Also write accelerations to the history, as its last columns: per body `<body>.ax`, `.ay`
    /// (`.az`) [m/s²] and `.alpha` (planar) or `.alphax`, `.alphay`, `.alphaz` (spatial, global
    /// axes) [rad/s²]; per coordinate of an `[equations]` model `<name>_ddot`. Default false.
    #[serde(default)]
    pub accelerations: bool,
    /// Where the run starts: `given` (the file's poses and velocities, default) or `equilibrium`
    /// (the static equilibrium under the loads at the start time, at rest).
    #[serde(default)]
    pub start: super::settings::StartState,
    /// Most steps a run may take (accepted and rejected) [default 1e9]: a fixed-step run that
    /// would need more is refused at start, an adaptive one fails when it gets there.
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Where the energy balance and constraint violations are computed: `output-samples` (default;
    /// the summary's maxima are over the history's rows) or `every-step` (maxima over every step).
    #[serde(default)]
    pub diagnostics: super::settings::DiagnosticsAt,
    /// The history columns to write, as glob patterns over the column names (`*` any run of
    /// characters, `?` any one, `[abc]` one of a set), e.g. `["midspan.*", "energy.*"]`. `t` is
    /// always written; the others keep the history's order. Default: every column. A pattern
    /// that matches no column of the run stops it before the first step.
    #[serde(default)]
    pub output_columns: Option<Vec<String>>,
}
