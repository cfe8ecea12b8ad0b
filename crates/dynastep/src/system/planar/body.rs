//! Bodies of a planar system: rigid bodies (centroidal coordinates x_cm, y_cm, θ) and point masses
//! (x_cm, y_cm). The ground has no coordinates and is not a [`Body`].
//!
//! Coordinates are taken at the centre of mass so that the mass matrix is constant and diagonal,
//! `diag(m, m, I_cm)` (Haug 1989, §6.1.2, eq. 6.1.20; Nikravesh 1988, §6.3). The user's body frame
//! (origin `r_o`, rotation θ, centre of mass `com` in body axes, points in body axes) is converted:
//! `r_cm = r_o + A(θ) com`, points `s'_P = p − com`. A point mass's frame translates without rotating:
//! its `com` and points are fixed offsets in global axes.

use std::collections::BTreeMap;

use super::kinematics::{perp, BodyRef, Frame};
use super::resolver::unchecked;
use super::PlanarError;
use crate::linalg::{Sink, Vector};
use crate::model::{BodyKind, BodySpec, Coordinate};

/// Name of the point every body (and the ground) has at its frame origin.
pub(crate) const ORIGIN: &str = "origin";

/// Data shared by every kind of body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BodyCommon {
    pub(crate) name: String,
    pub(crate) mass: f64,
    /// Index of x_cm in q.
    pub(crate) col: usize,
    /// Centre of mass in body axes \[m\].
    pub(crate) com: [f64; 2],
    /// Named points in body axes \[m\], `origin` included.
    pub(crate) points: BTreeMap<String, [f64; 2]>,
    /// Initial pose of the body frame (x, y, θ) \[m, m, rad\].
    pub(crate) pose: [f64; 3],
    /// Initial velocity of the body frame (vx, vy, ω) \[m/s, m/s, rad/s\].
    pub(crate) velocity: [f64; 3],
    pub(crate) given: Vec<Coordinate>,
    pub(crate) given_velocity: Vec<Coordinate>,
}

/// A rigid body: coordinates (x_cm, y_cm, θ), mass matrix diag(m, m, I_cm).
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    pub(crate) common: BodyCommon,
    /// Moment of inertia about the centre of mass \[kg m²\].
    pub(crate) inertia: f64,
}

/// A point mass: coordinates (x_cm, y_cm), mass matrix diag(m, m).
#[derive(Debug, Clone, PartialEq)]
pub struct PointMass {
    pub(crate) common: BodyCommon,
}

/// A moving body of a planar system. New kinds of bodies (e.g. spatial bodies) become new variants; the
/// elements only see a body through its coordinates ([`Body::first_coordinate`], [`Body::dof`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A rigid body with 3 coordinates.
    Rigid(RigidBody),
    /// A point mass with 2 coordinates.
    Point(PointMass),
}

impl Body {
    /// Builds a body from its model specification (checked by `model::validate`), with its first
    /// coordinate at index `col` of q.
    ///
    /// # Errors
    /// Only for what the model checks refuse: a rigid body without an inertia.
    pub(crate) fn from_spec(spec: &BodySpec, col: usize) -> Result<Body, PlanarError> {
        let mut points = spec.points.clone();
        points.insert(ORIGIN.into(), [0.0, 0.0]);
        let common = BodyCommon {
            name: spec.name.clone(),
            mass: spec.mass,
            col,
            com: spec.com,
            points,
            pose: [spec.x, spec.y, spec.theta],
            velocity: [spec.vx, spec.vy, spec.omega],
            given: spec.given.clone(),
            given_velocity: spec.given_velocity.clone(),
        };
        match (spec.kind, spec.inertia) {
            (BodyKind::Rigid, Some(inertia)) => Ok(Body::Rigid(RigidBody { common, inertia })),
            (BodyKind::Rigid, None) => Err(unchecked(
                &format!("body `{}`", spec.name),
                "a rigid body without an inertia",
            )),
            (BodyKind::Point, _) => Ok(Body::Point(PointMass { common })),
        }
    }

    pub(crate) fn common(&self) -> &BodyCommon {
        match self {
            Body::Rigid(b) => &b.common,
            Body::Point(b) => &b.common,
        }
    }

    /// Name of the body.
    pub fn name(&self) -> &str {
        &self.common().name
    }

    /// Mass \[kg\].
    pub fn mass(&self) -> f64 {
        self.common().mass
    }

    /// Moment of inertia about the centre of mass \[kg m²\]; `None` for a point mass.
    pub fn inertia(&self) -> Option<f64> {
        match self {
            Body::Rigid(b) => Some(b.inertia),
            Body::Point(_) => None,
        }
    }

    /// Centre of mass in body axes \[m\].
    pub fn com(&self) -> [f64; 2] {
        self.common().com
    }

    /// Number of coordinates: 3 for a rigid body, 2 for a point mass.
    pub fn dof(&self) -> usize {
        match self {
            Body::Rigid(_) => 3,
            Body::Point(_) => 2,
        }
    }

    /// Index in q of the body's first coordinate, x_cm; y_cm and θ follow.
    pub fn first_coordinate(&self) -> usize {
        self.common().col
    }

    pub(crate) fn body_ref(&self) -> BodyRef {
        match self {
            Body::Rigid(b) => BodyRef::Rigid { col: b.common.col },
            Body::Point(b) => BodyRef::Point { col: b.common.col },
        }
    }

    /// Point `name` relative to the centre of mass, body axes \[m\].
    pub(crate) fn point(&self, name: &str) -> Option<[f64; 2]> {
        let c = self.common();
        c.points
            .get(name)
            .map(|p| [p[0] - c.com[0], p[1] - c.com[1]])
    }

    /// Adds `scale · diag(m, m\[, I\])` to `out`.
    pub(crate) fn add_mass<S: Sink>(&self, scale: f64, out: &mut S) {
        let c = self.common();
        out.add(c.col, c.col, scale * c.mass);
        out.add(c.col + 1, c.col + 1, scale * c.mass);
        if let Body::Rigid(b) = self {
            out.add(c.col + 2, c.col + 2, scale * b.inertia);
        }
    }

    /// The body frame pose (x, y, θ) of the origin \[m, m, rad\] from the centroidal coordinates.
    pub(crate) fn frame_pose(&self, q: &Vector) -> [f64; 3] {
        let f = self.body_ref().frame(q);
        let a = f.rot(self.com());
        [f.r[0] - a[0], f.r[1] - a[1], f.theta]
    }

    /// The body frame velocity (vx, vy, ω) of the origin from the centroidal coordinates and velocities.
    pub(crate) fn frame_velocity(&self, q: &Vector, v: &Vector) -> [f64; 3] {
        let b = self.body_ref();
        let (vc, w) = b.velocity(v);
        let a = perp(b.frame(q).rot(self.com()));
        [vc[0] - w * a[0], vc[1] - w * a[1], w]
    }

    /// Writes the initial centroidal coordinates and velocities (from the model's body-frame values,
    /// `v_cm = v_o + ω R A com`) into q and v.
    pub(crate) fn write_initial(&self, q: &mut Vector, v: &mut Vector) {
        let c = self.common();
        let theta = match self {
            Body::Rigid(_) => c.pose[2],
            Body::Point(_) => 0.0,
        };
        let omega = match self {
            Body::Rigid(_) => c.velocity[2],
            Body::Point(_) => 0.0,
        };
        let a = Frame::new([0.0, 0.0], theta).rot(c.com);
        q[c.col] = c.pose[0] + a[0];
        q[c.col + 1] = c.pose[1] + a[1];
        let pa = perp(a);
        v[c.col] = c.velocity[0] + omega * pa[0];
        v[c.col + 1] = c.velocity[1] + omega * pa[1];
        if let Body::Rigid(_) = self {
            q[c.col + 2] = theta;
            v[c.col + 2] = omega;
        }
    }

    /// Index in q of a centroidal coordinate (`None`: θ of a point mass, or z, which no planar
    /// body has).
    pub(crate) fn coordinate(&self, c: Coordinate) -> Option<usize> {
        let col = self.common().col;
        match (c, self) {
            (Coordinate::X, _) => Some(col),
            (Coordinate::Y, _) => Some(col + 1),
            (Coordinate::Theta, Body::Rigid(_)) => Some(col + 2),
            (Coordinate::Theta, Body::Point(_)) | (Coordinate::Z, _) => None,
        }
    }
}

/// Comma-separated sorted names of the points of a map (used in error messages).
pub(crate) fn point_list(points: &BTreeMap<String, [f64; 2]>) -> String {
    points
        .keys()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}
