//! The `[spatial]` table of a model file: a mechanism in three dimensions.
//!
//! A model with `[spatial]` is spatial; its bodies, joints, forces and markers are written under
//! it (`[[spatial.bodies]]`, `[[spatial.joints]]`, …), and the top-level planar tables stay empty,
//! so every planar file keeps its meaning. Positions are in metres in the global frame unless a
//! field says "body frame"; a body frame sits at the body's centroid.

// Doc strings become JSON Schema descriptions: units in brackets, not escaped for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::beam::BeamSpec;
use super::types::{Axes, DriverSpec, ForceSpec, MarkerSpec};

/// A spatial mechanism.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpatialSpec {
    /// Gravitational acceleration (gx, gy, gz) [m/s²]; default (0, 0, 0).
    #[serde(default)]
    pub gravity: [f64; 3],
    /// Named points fixed in the global frame [m].
    #[serde(default)]
    pub ground: BTreeMap<String, [f64; 3]>,
    /// Moving bodies.
    #[serde(default)]
    pub bodies: Vec<SpatialBodySpec>,
    /// Joints between two bodies.
    #[serde(default)]
    pub joints: Vec<SpatialJointSpec>,
    /// Rheonomic constraints prescribing a joint's rotation or translation in time.
    #[serde(default)]
    pub drivers: Vec<DriverSpec>,
    /// Force elements (gravity is set by `gravity`).
    #[serde(default)]
    pub forces: Vec<ForceSpec>,
    /// Points whose global position, velocity, orientation and angular velocity are output.
    #[serde(default)]
    pub markers: Vec<MarkerSpec>,
    /// Flexible beams; each generates its nodes as bodies `<name>.0`, `<name>.1`, ….
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beams: Vec<BeamSpec>,
}

/// Kind of a spatial body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpatialBodyKind {
    /// Rigid body: centroid and Euler parameters (7 coordinates).
    #[default]
    Rigid,
    /// Point mass: position only (3 coordinates), no inertia.
    Point,
}

/// The initial orientation of a body frame (body → global). Give exactly one of
/// `euler_parameters`, `matrix`, `axis` with `angle`, or `sequence` with `angles`; none means
/// aligned with the global frame.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrientationSpec {
    /// Euler parameters (e0, e1, e2, e3); normalized on the way in.
    #[serde(default)]
    pub euler_parameters: Option<[f64; 4]>,
    /// Rotation matrix, rows [[a11, a12, a13], …]: columns are the body axes in global axes.
    #[serde(default)]
    pub matrix: Option<[[f64; 3]; 3]>,
    /// Rotation axis (with `angle`) in global axes; need not be unit [-].
    #[serde(default)]
    pub axis: Option<[f64; 3]>,
    /// Rotation angle about `axis` [rad].
    #[serde(default)]
    pub angle: Option<f64>,
    /// Euler or Cardan angle sequence of rotations about moving axes, such as `zxz` (Euler) or
    /// `xyz` (Cardan); with `angles`.
    #[serde(default)]
    pub sequence: Option<String>,
    /// The three angles of `sequence`, in order [rad].
    #[serde(default)]
    pub angles: Option<[f64; 3]>,
}

/// A spatial rigid body or point mass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpatialBodySpec {
    /// Unique name (not `ground`).
    pub name: String,
    /// `rigid` (default) or `point`.
    #[serde(default)]
    pub kind: SpatialBodyKind,
    /// Mass [kg]; positive.
    pub mass: f64,
    /// Principal moments (Ixx, Iyy, Izz) about the centroid in body axes [kg m²]; rigid bodies
    /// give this or `inertia_tensor`.
    #[serde(default)]
    pub inertia: Option<[f64; 3]>,
    /// Full inertia tensor about the centroid in body axes, rows [kg m²]; symmetric, positive
    /// definite, with every principal moment at most the sum of the other two.
    #[serde(default)]
    pub inertia_tensor: Option<[[f64; 3]; 3]>,
    /// Initial centroid position [m] (approximate: assembly corrects it).
    #[serde(default)]
    pub position: [f64; 3],
    /// Initial orientation of the body frame.
    #[serde(default)]
    pub orientation: OrientationSpec,
    /// Initial centroid velocity [m/s], global axes.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Initial angular velocity [rad/s], in `angular_velocity_axes`.
    #[serde(default)]
    pub angular_velocity: [f64; 3],
    /// Axes of `angular_velocity`: `global` (default) or `body`.
    #[serde(default)]
    pub angular_velocity_axes: Axes,
    /// Named points in the body frame, from the centroid [m]. The centroid is point `origin`.
    #[serde(default)]
    pub points: BTreeMap<String, [f64; 3]>,
    /// What the 3-D player and the glTF export draw for the body; default the uniform box with
    /// its mass and inertia. Drawing only: the dynamics use `mass` and `inertia`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ShapeSpec>,
}

/// A body axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BodyAxis {
    /// The body's x axis.
    X,
    /// The body's y axis.
    Y,
    /// The body's z axis.
    #[default]
    Z,
}

/// A shape drawn for a body, centred on its centroid, in its body frame (drawing only).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// A box with edges along the body axes.
    Box {
        /// Edge lengths (l_x, l_y, l_z) [m]; positive.
        size: [f64; 3],
    },
    /// A cylinder along a body axis.
    Cylinder {
        /// Radius [m]; positive.
        radius: f64,
        /// Length [m]; positive.
        length: f64,
        /// The body axis it lies along: `x`, `y` or `z` (default).
        #[serde(default)]
        axis: BodyAxis,
    },
    /// A sphere.
    Sphere {
        /// Radius [m]; positive.
        radius: f64,
    },
}

/// Kind of a spatial joint (Haug 1989, §9.3, built from the basic constraints of §9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpatialJointKind {
    /// Points coincide (3 equations).
    Spherical,
    /// Points coincide, rotation only about `axis` (5).
    Revolute,
    /// Point j on the line through point i along `axis`, rotation only about it (4).
    Cylindrical,
    /// Point j on the line through point i along `axis`, no rotation (5).
    Prismatic,
    /// Points coincide; `axis` on body i and `axis_j` on body j stay perpendicular (Hooke's
    /// joint, 4).
    Universal,
    /// Points coincide, no relative rotation (6).
    Fixed,
    /// Constant distance between the points: a massless rod (1).
    Distance,
    /// Point j in the plane through point i normal to `axis`, rotation only about `axis` (3).
    Planar,
}

/// A joint between a point of body i and a point of body j. The joint frame is given at the
/// initial configuration: `axis` (and `axis_j`) in global axes, fixed in the bodies from there
/// on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpatialJointSpec {
    /// Unique name among joints.
    pub name: String,
    /// Kind.
    #[serde(rename = "type")]
    pub kind: SpatialJointKind,
    /// First body (`ground` allowed).
    pub body_i: String,
    /// Point of body i (default `origin`; on the ground, a point of `[spatial.ground]`).
    #[serde(default)]
    pub point_i: Option<String>,
    /// Second body (`ground` allowed; not the same as body i).
    pub body_j: String,
    /// Point of body j (default `origin`).
    #[serde(default)]
    pub point_j: Option<String>,
    /// The joint point in global coordinates at the initial configuration [m], in place of
    /// `point_i` and `point_j`.
    #[serde(default)]
    pub at: Option<[f64; 3]>,
    /// Joint axis in global axes at the initial configuration [-] (need not be unit): the
    /// rotation axis (revolute, cylindrical), the sliding axis (prismatic, cylindrical), the plane
    /// normal (planar), the cross axis on body i (universal).
    #[serde(default)]
    pub axis: Option<[f64; 3]>,
    /// Universal joint: the cross axis on body j, in global axes at the initial configuration,
    /// perpendicular to `axis` [-].
    #[serde(default)]
    pub axis_j: Option<[f64; 3]>,
    /// Distance: rod length [m]; default the initial distance.
    #[serde(default)]
    pub length: Option<f64>,
    /// The joint frame fixed in body i, in body i's axes (the ground's: global), in place of
    /// `axis` (and `axis_j`); with `frame_j`.
    #[serde(default)]
    pub frame_i: Option<JointFrameSpec>,
    /// The joint frame fixed in body j, in body j's axes; with `frame_i`. The two frames need not
    /// coincide at the initial poses: assembly moves the bodies until the joint holds.
    #[serde(default)]
    pub frame_j: Option<JointFrameSpec>,
}

/// A joint frame given in a body's own axes: its axis h (the rotation or sliding axis, the plane
/// normal, or a universal joint's cross axis on that body) and a reference direction f
/// perpendicular to it (its component perpendicular to h is taken). Rotation drivers and RSDAs
/// measure the angle between the two bodies' f; prismatic and fixed joints lock it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JointFrameSpec {
    /// The axis h in the body's axes [-] (need not be unit).
    pub axis: [f64; 3],
    /// The reference direction f [-]; default: perpendicular to h, from the body axis least
    /// aligned with h.
    #[serde(default)]
    pub reference: Option<[f64; 3]>,
}

/// The message for a string that is not an Euler or Cardan sequence.
pub fn not_a_sequence(seq: &str) -> String {
    format!("`{seq}` is not an Euler or Cardan sequence: three of x, y, z, no two consecutive alike (e.g. `zxz`, `xyz`)")
}

/// The axes (0 = x, 1 = y, 2 = z) of an Euler or Cardan sequence such as `zxz` or `xyz`: three
/// letters, no two consecutive alike; `None` otherwise.
pub fn sequence_axes(seq: &str) -> Option<[usize; 3]> {
    let axes: Vec<usize> = seq
        .chars()
        .map(|c| "xyz".find(c.to_ascii_lowercase()))
        .collect::<Option<_>>()?;
    match axes[..] {
        [i, j, k] if i != j && j != k => Some([i, j, k]),
        _ => None,
    }
}

/// The angles (α₁, α₂, α₃) \[rad\] of the rotation matrix `a` in the sequence `axes`
/// ([`sequence_axes`]), rotations about moving axes: a = R_i(α₁) R_j(α₂) R_k(α₃). α₂ is in
/// [−π/2, π/2] for a Cardan sequence (i ≠ k) and in [0, π] for an Euler one (i = k); α₁ and α₃
/// in (−π, π]. At the singular α₂ (gimbal lock) only a combination of α₁ and α₃ is determined:
/// α₃ is returned as 0.
pub fn sequence_angles(axes: [usize; 3], a: &nalgebra::Matrix3<f64>) -> [f64; 3] {
    let [i, j, k] = axes;
    // ε = +1 when (i, j) is followed cyclically (x → y → z), −1 otherwise.
    let e = if (j + 3 - i) % 3 == 1 { 1.0 } else { -1.0 };
    if i != k {
        let s2 = (e * a[(i, k)]).clamp(-1.0, 1.0);
        let a2 = s2.asin();
        if s2.abs() > 1.0 - 1e-12 {
            return [(e * a[(k, j)]).atan2(a[(j, j)]), a2, 0.0];
        }
        [
            (-e * a[(j, k)]).atan2(a[(k, k)]),
            a2,
            (-e * a[(i, j)]).atan2(a[(i, i)]),
        ]
    } else {
        // Euler: l is the third axis.
        let l = 3 - i - j;
        let c2 = a[(i, i)].clamp(-1.0, 1.0);
        let a2 = c2.acos();
        if c2.abs() > 1.0 - 1e-12 {
            return [(e * a[(l, j)]).atan2(a[(j, j)]), a2, 0.0];
        }
        [
            a[(j, i)].atan2(-e * a[(l, i)]),
            a2,
            a[(i, j)].atan2(e * a[(i, l)]),
        ]
    }
}

/// Rotation matrix about the global axis `axis` (0 = x, 1 = y, 2 = z) by `angle` \[rad\].
fn axis_rotation(axis: usize, angle: f64) -> nalgebra::Matrix3<f64> {
    let v = nalgebra::Vector3::ith(axis, 1.0);
    *nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_unchecked(v), angle).matrix()
}

impl OrientationSpec {
    /// The rotation matrix body → global, or what is wrong with the specification (the field at
    /// fault and the message). Euler parameters are normalized; a matrix must be orthonormal
    /// with determinant +1 to 1e-9; an axis must have length > 1e-12; a sequence names three
    /// axes of `x`, `y`, `z`, no two consecutive alike (rotations about the moving axes, applied
    /// left to right: A = R₁(α₁) R₂(α₂) R₃(α₃)).
    ///
    /// # Errors
    /// `(field, message)` for a missing, conflicting or degenerate specification.
    pub fn rotation(&self) -> Result<nalgebra::Matrix3<f64>, (&'static str, String)> {
        use nalgebra::Matrix3;
        let given = [
            ("euler_parameters", self.euler_parameters.is_some()),
            ("matrix", self.matrix.is_some()),
            ("axis", self.axis.is_some() || self.angle.is_some()),
            ("sequence", self.sequence.is_some() || self.angles.is_some()),
        ];
        let forms: Vec<&str> = given.iter().filter(|g| g.1).map(|g| g.0).collect();
        if forms.len() > 1 {
            return Err((
                forms[1],
                format!("give one orientation form, not {}", forms.join(" and ")),
            ));
        }
        if let Some(p) = self.euler_parameters {
            return euler_parameter_rotation(p);
        }
        if let Some(m) = self.matrix {
            let a = Matrix3::from_fn(|r, c| m[r][c]);
            let off = (a.transpose() * a - Matrix3::identity()).norm();
            if !(off < 1e-9 && (a.determinant() - 1.0).abs() < 1e-9) {
                return Err((
                    "matrix",
                    format!(
                        "not a rotation matrix (‖AᵀA − I‖ = {off:.1e}, det A = {:.6})",
                        a.determinant()
                    ),
                ));
            }
            return Ok(a);
        }
        if self.axis.is_some() || self.angle.is_some() {
            let (Some(axis), Some(angle)) = (self.axis, self.angle) else {
                let missing = if self.axis.is_none() { "axis" } else { "angle" };
                return Err((
                    missing,
                    format!("`axis` and `angle` go together; `{missing}` is missing"),
                ));
            };
            return axis_angle_rotation(axis, angle);
        }
        if self.sequence.is_some() || self.angles.is_some() {
            let (Some(seq), Some(angles)) = (&self.sequence, self.angles) else {
                let missing = if self.sequence.is_none() {
                    "sequence"
                } else {
                    "angles"
                };
                return Err((
                    missing,
                    format!("`sequence` and `angles` go together; `{missing}` is missing"),
                ));
            };
            let Some(axes) = sequence_axes(seq) else {
                return Err(("sequence", not_a_sequence(seq)));
            };
            return Ok(axis_rotation(axes[0], angles[0])
                * axis_rotation(axes[1], angles[1])
                * axis_rotation(axes[2], angles[2]));
        }
        Ok(Matrix3::identity())
    }
}

/// The rotation of Euler parameters `p` (normalized), or why they give none: not finite, or of
/// zero length.
fn euler_parameter_rotation(p: [f64; 4]) -> Result<nalgebra::Matrix3<f64>, (&'static str, String)> {
    let n = p.iter().map(|e| e * e).sum::<f64>().sqrt();
    if p.iter().any(|e| !e.is_finite()) || !n.is_finite() {
        return Err((
            "euler_parameters",
            format!("Euler parameters {p:?} are not finite numbers"),
        ));
    }
    if n <= 1e-12 {
        return Err(("euler_parameters", "Euler parameters of zero length".into()));
    }
    let q = nalgebra::Quaternion::new(p[0] / n, p[1] / n, p[2] / n, p[3] / n);
    Ok(*nalgebra::UnitQuaternion::new_unchecked(q)
        .to_rotation_matrix()
        .matrix())
}

/// The rotation by `angle` \[rad\] about `axis` (normalized), or why it gives none: not finite,
/// or an axis of zero length.
fn axis_angle_rotation(
    axis: [f64; 3],
    angle: f64,
) -> Result<nalgebra::Matrix3<f64>, (&'static str, String)> {
    let v = nalgebra::Vector3::from(axis);
    if !(v.norm().is_finite() && angle.is_finite()) {
        return Err((
            "axis",
            "the rotation axis and angle must be finite numbers".into(),
        ));
    }
    if v.norm() <= 1e-12 {
        return Err(("axis", "the rotation axis has zero length".into()));
    }
    Ok(*nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(v), angle).matrix())
}

impl SpatialBodySpec {
    /// The inertia tensor about the centroid in body axes, or what is wrong with it (the field
    /// and the message): exactly one of `inertia`, `inertia_tensor` for a rigid body, symmetric
    /// to 1e-9 relative, positive definite, and every principal moment at most the sum of the
    /// other two (the triangle inequality of a real mass distribution).
    ///
    /// # Errors
    /// `(field, message)`.
    pub fn inertia_matrix(&self) -> Result<nalgebra::Matrix3<f64>, (&'static str, String)> {
        use nalgebra::Matrix3;
        let j = match (self.inertia, self.inertia_tensor) {
            (Some(_), Some(_)) => {
                return Err((
                    "inertia_tensor",
                    "give `inertia` or `inertia_tensor`, not both".into(),
                ))
            }
            (Some(d), None) => Matrix3::from_diagonal(&nalgebra::Vector3::from(d)),
            (None, Some(t)) => Matrix3::from_fn(|r, c| t[r][c]),
            (None, None) => {
                return Err((
                    "inertia",
                    "a rigid body needs `inertia` (principal moments) or `inertia_tensor`".into(),
                ))
            }
        };
        let field = if self.inertia.is_some() {
            "inertia"
        } else {
            "inertia_tensor"
        };
        if j.iter().any(|x| !x.is_finite()) {
            return Err((field, "the inertia must be finite".into()));
        }
        if (j - j.transpose()).norm() > 1e-9 * j.norm() {
            return Err((field, "the inertia tensor is not symmetric".into()));
        }
        let moments = j.symmetric_eigenvalues();
        let min = moments.min();
        if min <= 0.0 {
            return Err((field, format!("the inertia tensor is not positive definite (smallest principal moment {min:e} kg m²)")));
        }
        let sum = moments.sum();
        let max = moments.max();
        if max > sum - max + 1e-12 * sum {
            return Err((field, format!("principal moments {:.6e}, {:.6e}, {:.6e} kg m² violate the triangle inequality (each must be at most the sum of the other two)", moments[0], moments[1], moments[2])));
        }
        Ok(j)
    }
}

impl SpatialSpec {
    /// The spec with every beam's nodes appended to `bodies` and `beams` emptied, so that every
    /// rule and builder that looks bodies up by name finds the nodes (borrowed when there is no
    /// beam). A beam whose geometry is invalid adds no node (its own rules report it). Expanding
    /// twice adds nothing.
    pub fn with_beam_nodes(&self) -> std::borrow::Cow<'_, SpatialSpec> {
        if self.beams.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut s = self.clone();
        for b in std::mem::take(&mut s.beams) {
            s.bodies.extend(b.node_bodies().unwrap_or_default());
        }
        std::borrow::Cow::Owned(s)
    }

    /// The initial global position \[m\] of `point` (default `origin`, the centroid) of `body`
    /// (`ground` allowed: its named points are global): the body's centroid plus the point
    /// rotated by the body's initial orientation. `None` when the body or point is unknown or
    /// the orientation invalid (the validator reports those).
    pub fn initial_point(&self, body: &str, point: Option<&str>) -> Option<nalgebra::Vector3<f64>> {
        let point = point.unwrap_or("origin");
        if body == super::types::GROUND {
            return match point {
                "origin" => Some(nalgebra::Vector3::zeros()),
                name => self.ground.get(name).map(|p| nalgebra::Vector3::from(*p)),
            };
        }
        let b = self.bodies.iter().find(|b| b.name == body)?;
        let s = match point {
            "origin" => nalgebra::Vector3::zeros(),
            name => nalgebra::Vector3::from(*b.points.get(name)?),
        };
        let a = match b.kind {
            SpatialBodyKind::Rigid => b.orientation.rotation().ok()?,
            SpatialBodyKind::Point => nalgebra::Matrix3::identity(),
        };
        Some(nalgebra::Vector3::from(b.position) + a * s)
    }

    /// The initial distance \[m\] between `point_i` of `body_i` and `point_j` of `body_j` (see
    /// [`SpatialSpec::initial_point`]).
    pub fn initial_distance(
        &self,
        (body_i, point_i): (&str, Option<&str>),
        (body_j, point_j): (&str, Option<&str>),
    ) -> Option<f64> {
        Some((self.initial_point(body_j, point_j)? - self.initial_point(body_i, point_i)?).norm())
    }
}
