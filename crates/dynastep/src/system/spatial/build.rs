//! [`SpatialSystem::new`]: number the coordinates and rows of a checked `[spatial]` model and
//! let each element build itself from the initial configuration.

use std::cell::RefCell;
use std::collections::BTreeMap;

use nalgebra::Matrix3;

use super::beam::element::BeamElement;
use super::beam::Beam;
use super::body::SpatialBody;
use super::drivers::SpatialDriver;
use super::element::SpatialForce;
use super::euler::{e_matrix, from_rotation, V3, V4};
use super::evaluation::EvaluationCache;
use super::forces::Tsda;
use super::joints::{frame_from, JointGeometry, SpatialJoint};
use super::kinematics::{Expr, Slots};
use super::loads::{Load, LoadKind};
use super::rsda::Rsda;
use super::{SpatialMarker, SpatialSystem};
use crate::linalg::Vector;
use crate::model::beam::BeamSpec;
use crate::model::function::{FunctionSpec, TimeFunction};
use crate::model::spatial::{
    sequence_axes, JointFrameSpec, SpatialBodyKind, SpatialBodySpec, SpatialJointKind,
    SpatialJointSpec, SpatialSpec,
};
use crate::model::validate::{self, Issue};
use crate::model::{Axes, Coordinate, DriverKind, DriverSpec, ForceSpec, JointMotion, Model};
use crate::system::force_elements::ForceElements;

/// Why a spatial model cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpatialError {
    /// The model has no `[spatial]` table.
    #[error("the model has no [spatial] table")]
    NotSpatial,
    /// The model breaks rules of [`validate::check_elements`]: every issue found, each naming
    /// the entity, the path of the offending value, and how to fix it.
    #[error("{}", issues.iter().map(Issue::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The issues, in the order of the model's entries.
        issues: Vec<Issue>,
    },
    /// An element the checks accepted could not be built (a bug of dynastep).
    #[error("{element}: {reason}")]
    Unchecked {
        /// The element, e.g. "driver `crank`".
        element: String,
        /// What went wrong.
        reason: String,
    },
}

/// A body resolved for an element: `None` is the ground.
type BodyIndex = Option<usize>;

/// Initial pose of a side: centroid and rotation matrix (the ground: origin and identity).
struct Pose {
    r: V3,
    a: Matrix3<f64>,
}

struct Builder<'m> {
    spec: &'m SpatialSpec,
    bodies: Vec<SpatialBody>,
    rotations: Vec<Matrix3<f64>>,
    index: BTreeMap<&'m str, usize>,
}

impl Builder<'_> {
    fn body(&self, name: &str) -> BodyIndex {
        self.index.get(name).copied()
    }

    fn pose(&self, b: BodyIndex) -> Pose {
        match b {
            Some(i) => Pose {
                r: self.bodies[i].initial.0,
                a: self.rotations[i],
            },
            None => Pose {
                r: V3::zeros(),
                a: Matrix3::identity(),
            },
        }
    }

    /// Body-frame coordinates of a named point (ground: global).
    fn point(&self, b: BodyIndex, name: Option<&str>) -> V3 {
        let name = name.unwrap_or("origin");
        let found = match b {
            Some(i) => self.spec.bodies[i].points.get(name),
            None => self.spec.ground.get(name),
        };
        found.map_or(V3::zeros(), |p| V3::from(*p))
    }

    fn slots(&self, i: BodyIndex, j: BodyIndex) -> Slots {
        let side = |b: BodyIndex| b.map(|k| &self.bodies[k]);
        let (bi, bj) = (side(i), side(j));
        Slots::new(
            [bi.map(|b| b.r), bj.map(|b| b.r)],
            [bi.and_then(|b| b.p), bj.and_then(|b| b.p)],
        )
    }

    fn joint(&self, j: &SpatialJointSpec, first_row: usize) -> SpatialJoint {
        let (bi, bj) = (self.body(&j.body_i), self.body(&j.body_j));
        let (pi, pj) = (self.pose(bi), self.pose(bj));
        let s = match j.at {
            Some(at) => {
                let at = V3::from(at);
                [
                    pi.a.transpose() * (at - pi.r),
                    pj.a.transpose() * (at - pj.r),
                ]
            }
            None => [
                self.point(bi, j.point_i.as_deref()),
                self.point(bj, j.point_j.as_deref()),
            ],
        };
        // The frames: given in each body, or one global frame at the initial configuration
        // fixed into both bodies.
        let (frame, axis_j) = match (j.frame_i, j.frame_j) {
            (Some(fi), Some(fj)) => {
                let side = |f: JointFrameSpec| {
                    frame_from(&V3::from(f.axis), f.reference.map(V3::from).as_ref())
                };
                let frame_j = side(fj);
                ([side(fi), frame_j], frame_j[2])
            }
            _ => {
                let [f, g, h] = frame_from(&j.axis.map_or(V3::z(), V3::from), None);
                let local =
                    |a: &Matrix3<f64>| [a.transpose() * f, a.transpose() * g, a.transpose() * h];
                let axis_j = j.axis_j.map_or(V3::x(), V3::from).normalize();
                ([local(&pi.a), local(&pj.a)], pj.a.transpose() * axis_j)
            }
        };
        let geometry = JointGeometry {
            s,
            frame,
            axis_j,
            length: j.length.unwrap_or_else(|| {
                let ends = (
                    (j.body_i.as_str(), j.point_i.as_deref()),
                    (j.body_j.as_str(), j.point_j.as_deref()),
                );
                self.spec.initial_distance(ends.0, ends.1).unwrap_or(0.0)
            }),
        };
        SpatialJoint::new(
            j.name.clone(),
            j.kind,
            self.slots(bi, bj),
            &geometry,
            first_row,
        )
    }
}

impl SpatialSystem {
    /// Builds the spatial system of `model` (its `[spatial]` table).
    ///
    /// # Errors
    /// [`SpatialError::NotSpatial`] without `[spatial]`; [`SpatialError::Invalid`] with every
    /// issue of [`validate::check_elements`] (unknown names, degenerate axes, invalid inertia or
    /// orientation, …).
    pub fn new(model: &Model) -> Result<Self, SpatialError> {
        let spec = model.spatial.as_ref().ok_or(SpatialError::NotSpatial)?;
        let issues = validate::check_elements(model);
        if !issues.is_empty() {
            return Err(SpatialError::Invalid { issues });
        }
        let expanded = spec.with_beam_nodes();
        let (b, n) = Builder::with_bodies(&expanded);
        let normalizations = b.bodies.iter().filter(|x| x.p.is_some()).count();
        let (joints, drivers, m) = b.constraints(normalizations)?;
        let forces = b.forces(&joints, &spec.beams, n)?;
        let markers = b.markers();
        Ok(SpatialSystem {
            bodies: b.bodies,
            joints,
            drivers,
            forces,
            markers,
            gravity: V3::from(spec.gravity),
            n,
            m,
            normalizations,
            cache: RefCell::new(EvaluationCache::new(n, m)),
        })
    }
}

/// The body of `s` with its coordinates from column `n`, and its initial rotation matrix (the
/// identity for a point mass).
fn body_from_spec(s: &SpatialBodySpec, n: usize) -> (SpatialBody, Matrix3<f64>) {
    let a = s
        .orientation
        .rotation()
        .unwrap_or_else(|_| Matrix3::identity());
    let p = from_rotation(&a);
    let w = V3::from(s.angular_velocity);
    let w = if s.angular_velocity_axes == Axes::Body {
        a * w
    } else {
        w
    };
    let rigid = s.kind == SpatialBodyKind::Rigid;
    let body = SpatialBody {
        name: s.name.clone(),
        mass: s.mass,
        inertia: if rigid { s.inertia_matrix().ok() } else { None },
        r: n,
        p: rigid.then_some(n + 3),
        initial: (
            V3::from(s.position),
            if rigid {
                p
            } else {
                V4::new(1.0, 0.0, 0.0, 0.0)
            },
            V3::from(s.velocity),
            if rigid {
                0.5 * e_matrix(&p).transpose() * w
            } else {
                V4::zeros()
            },
        ),
    };
    (body, if rigid { a } else { Matrix3::identity() })
}

impl<'m> Builder<'m> {
    /// A builder with every body of `spec` placed, and the number n of coordinates they take
    /// (7 per rigid body, 3 per point mass).
    fn with_bodies(spec: &'m SpatialSpec) -> (Self, usize) {
        let mut b = Builder {
            spec,
            bodies: Vec::new(),
            rotations: Vec::new(),
            index: BTreeMap::new(),
        };
        let mut n = 0;
        for (k, s) in spec.bodies.iter().enumerate() {
            let rigid = s.kind == SpatialBodyKind::Rigid;
            let (body, rotation) = body_from_spec(s, n);
            b.bodies.push(body);
            b.rotations.push(rotation);
            b.index.insert(&s.name, k);
            n += if rigid { 7 } else { 3 };
        }
        (b, n)
    }
}

impl Builder<'_> {
    /// The joints, then the drivers, with constraint rows from `first_row` (after the
    /// normalizations); the total number of rows m.
    fn constraints(
        &self,
        first_row: usize,
    ) -> Result<(Vec<SpatialJoint>, Vec<SpatialDriver>, usize), SpatialError> {
        let mut m = first_row;
        let mut joints = Vec::new();
        for j in &self.spec.joints {
            let joint = self.joint(j, m);
            m += joint.rows.len();
            joints.push(joint);
        }
        let mut drivers = Vec::new();
        for d in &self.spec.drivers {
            drivers.push(self.driver(d, &joints, m)?);
            m += 1;
        }
        Ok((joints, drivers, m))
    }

    /// The force elements (spring–dampers, rotational spring–dampers, applied loads) in file
    /// order, then the beams.
    fn forces(
        &self,
        joints: &[SpatialJoint],
        beams: &[BeamSpec],
        n: usize,
    ) -> Result<ForceElements<SpatialForce>, SpatialError> {
        let mut forces = Vec::with_capacity(self.spec.forces.len() + beams.len());
        for f in &self.spec.forces {
            let element = match f {
                ForceSpec::Tsda { .. } => SpatialForce::Tsda(self.tsda(f)?),
                ForceSpec::Rsda { .. } => SpatialForce::Rsda(self.rsda(f, joints)?),
                _ => SpatialForce::Load(self.load(f)?),
            };
            forces.push((f.label(), element));
        }
        for b in beams {
            forces.push((
                format!("beam `{}`", b.name),
                SpatialForce::Beam(self.beam(b, n)?),
            ));
        }
        Ok(ForceElements::new(forces))
    }

    /// The markers: a point of a body, with the angle sequence they report.
    fn markers(&self) -> Vec<SpatialMarker> {
        self.spec
            .markers
            .iter()
            .map(|mk| {
                let body = self.body(&mk.body);
                SpatialMarker {
                    name: mk.name.clone(),
                    body,
                    s: self.point(body, mk.point.as_deref()),
                    angles: mk.angles.as_deref().and_then(sequence_axes),
                }
            })
            .collect()
    }
}

impl Builder<'_> {
    /// A beam's elements on its nodes, with their reference configuration the nodes' initial
    /// poses (`n` coordinates in all).
    fn beam(&self, b: &BeamSpec, n: usize) -> Result<Beam, SpatialError> {
        let element = format!("beam `{}`", b.name);
        let stiffness = b
            .stiffness_matrix()
            .map_err(|(_, e)| unchecked(&element, &e))?;
        let mut q0 = Vector::zeros(n);
        let mut node = |k: usize| -> Result<(usize, usize), SpatialError> {
            let i = self
                .body(&b.node_name(k))
                .ok_or_else(|| unchecked(&element, "a node is missing"))?;
            let body = &self.bodies[i];
            let p = body
                .p
                .ok_or_else(|| unchecked(&element, "a node is a point mass"))?;
            q0.fixed_rows_mut::<3>(body.r).copy_from(&body.initial.0);
            q0.fixed_rows_mut::<4>(p).copy_from(&body.initial.1);
            Ok((body.r, p))
        };
        let count = b.nodes().map_err(|(_, e)| unchecked(&element, &e))?.len();
        let nodes = (0..count).map(&mut node).collect::<Result<Vec<_>, _>>()?;
        let elements = nodes
            .windows(3)
            .step_by(2)
            .map(|w| BeamElement::new([w[0], w[1], w[2]], &q0, stiffness, b.damping))
            .collect();
        Ok(Beam {
            name: b.name.clone(),
            elements,
        })
    }

    /// A spring–damper–actuator (`f` is a `tsda`).
    fn tsda(&self, f: &ForceSpec) -> Result<Tsda, SpatialError> {
        let ForceSpec::Tsda {
            body_i,
            point_i,
            body_j,
            point_j,
            stiffness,
            free_length,
            damping,
            actuator,
            name,
        } = f
        else {
            unreachable!("tsda() is called on spring–dampers only")
        };
        let (bi, bj) = (self.body(body_i), self.body(body_j));
        let (si, sj) = (
            self.point(bi, point_i.as_deref()),
            self.point(bj, point_j.as_deref()),
        );
        let initial = self
            .spec
            .initial_distance((body_i, point_i.as_deref()), (body_j, point_j.as_deref()))
            .unwrap_or(0.0);
        let element = format!("force `{name}`");
        Ok(Tsda {
            slots: self.slots(bi, bj),
            d: Expr::between(si, sj),
            k: *stiffness,
            free_length: free_length.unwrap_or(initial),
            c: *damping,
            actuator: actuator
                .as_ref()
                .map(|a| compiled(&element, a))
                .transpose()?,
        })
    }
}

/// The error for what [`validate::check_elements`] should have refused and did not: a bug of
/// dynastep, reported rather than panicking.
fn unchecked(element: &str, what: &str) -> SpatialError {
    SpatialError::Unchecked {
        element: element.into(),
        reason: format!(
            "{what}; the model checks let this through, which is a bug of dynastep: please report it"
        ),
    }
}

/// A function the validator already compiled.
fn compiled(element: &str, f: &FunctionSpec) -> Result<TimeFunction, SpatialError> {
    TimeFunction::new(f)
        .map_err(|e| unchecked(element, &format!("its function does not compile ({e})")))
}

impl Builder<'_> {
    /// A driver of a joint built before it, or of a body's centroid coordinate.
    fn driver(
        &self,
        d: &DriverSpec,
        joints: &[SpatialJoint],
        row: usize,
    ) -> Result<SpatialDriver, SpatialError> {
        let element = format!("driver `{}`", d.name);
        let function = compiled(&element, &d.function)?;
        if d.kind == DriverKind::Coordinate {
            let body = d.body.as_deref().and_then(|b| self.body(b));
            let axis = match d.coordinate {
                Some(Coordinate::X) => 0,
                Some(Coordinate::Y) => 1,
                Some(Coordinate::Z) => 2,
                _ => return Err(unchecked(&element, "no coordinate x, y or z to drive")),
            };
            let body = body.ok_or_else(|| unchecked(&element, "it drives no moving body"))?;
            let slots = self.slots(None, Some(body));
            return Ok(SpatialDriver::coordinate(
                d.name.clone(),
                slots,
                axis,
                function,
                row,
            ));
        }
        let joint = joints
            .iter()
            .find(|j| Some(&j.name) == d.joint.as_ref())
            .ok_or_else(|| unchecked(&element, "its joint does not exist"))?;
        let motion = d.motion.unwrap_or(match joint.kind {
            SpatialJointKind::Prismatic => JointMotion::Translation,
            _ => JointMotion::Rotation,
        });
        Ok(SpatialDriver::new(
            d.name.clone(),
            motion,
            joint,
            function,
            row,
        ))
    }

    /// A rotational spring–damper at a joint built before it (`f` is an `rsda`).
    fn rsda(&self, f: &ForceSpec, joints: &[SpatialJoint]) -> Result<Rsda, SpatialError> {
        let ForceSpec::Rsda {
            name,
            joint,
            stiffness,
            free_angle,
            damping,
            actuator,
        } = f
        else {
            unreachable!("rsda() is called on rotational spring–dampers only")
        };
        let element = format!("force `{name}`");
        let joint = joints
            .iter()
            .find(|j| j.name == *joint)
            .ok_or_else(|| unchecked(&element, "its joint does not exist"))?;
        let actuator = actuator
            .as_ref()
            .map(|a| compiled(&element, a))
            .transpose()?;
        Ok(Rsda::new(
            joint,
            *stiffness,
            *free_angle,
            *damping,
            actuator,
        ))
    }

    /// An applied force or torque (`f` is a `force` or `torque`).
    fn load(&self, f: &ForceSpec) -> Result<Load, SpatialError> {
        let element = format!("force `{}`", f.name());
        let (body, point, components, frame, torque) = match f {
            ForceSpec::Force {
                body,
                point,
                fx,
                fy,
                fz,
                frame,
                ..
            } => (body, point.as_deref(), [fx, fy, fz], frame, false),
            ForceSpec::Torque {
                body,
                tx,
                ty,
                tz,
                frame,
                ..
            } => (body, None, [tx, ty, tz], frame, true),
            ForceSpec::Tsda { .. } | ForceSpec::Rsda { .. } => {
                unreachable!("load() is called on loads only")
            }
        };
        let index = self
            .body(body)
            .ok_or_else(|| unchecked(&element, "it acts on the ground"))?;
        let kind = match (torque, frame) {
            (false, Axes::Global) => LoadKind::GlobalForce,
            (false, Axes::Body) => LoadKind::BodyForce,
            (true, Axes::Global) => LoadKind::GlobalTorque,
            (true, Axes::Body) => LoadKind::BodyTorque,
        };
        let mut functions = [None, None, None];
        for (out, c) in functions.iter_mut().zip(components) {
            *out = c.as_ref().map(|c| compiled(&element, c)).transpose()?;
        }
        Ok(Load {
            kind,
            r: self.bodies[index].r,
            p: self.bodies[index].p,
            s: self.point(Some(index), point),
            components: functions,
        })
    }
}
