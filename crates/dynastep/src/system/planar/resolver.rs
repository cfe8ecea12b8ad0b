//! Name resolution while a [`super::PlanarSystem`] is built: bodies, points and joints by name,
//! and time functions compiled with the element's name in their errors.
//!
//! The builder runs on a model that passed [`crate::model::validate::check_elements`], where every
//! name resolves; the errors here only keep a model built around that check from panicking.

use std::collections::{BTreeMap, HashMap};

use super::body::{point_list, Body, ORIGIN};
use super::joints::Joint;
use super::kinematics::BodyRef;
use super::PlanarError;
use crate::model::function::{FunctionSpec, TimeFunction};
use crate::model::GROUND;

/// Bodies, ground points and joints by name.
pub(crate) struct Resolver<'a> {
    pub(crate) bodies: &'a [Body],
    index: HashMap<&'a str, usize>,
    ground: BTreeMap<String, [f64; 2]>,
}

impl<'a> Resolver<'a> {
    /// The resolver of `bodies` and the ground's `points` (the point `origin` added).
    pub(crate) fn new(bodies: &'a [Body], ground_points: &BTreeMap<String, [f64; 2]>) -> Self {
        let mut ground = ground_points.clone();
        ground.insert(ORIGIN.into(), [0.0, 0.0]);
        Resolver {
            bodies,
            index: bodies
                .iter()
                .enumerate()
                .map(|(k, b)| (b.name(), k))
                .collect(),
            ground,
        }
    }

    fn known_bodies(&self) -> String {
        std::iter::once(GROUND)
            .chain(self.bodies.iter().map(|b| b.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The body named `name` (`None` index: the ground).
    pub(crate) fn body(
        &self,
        element: &str,
        name: &str,
    ) -> Result<(BodyRef, Option<usize>), PlanarError> {
        if name == GROUND {
            return Ok((BodyRef::Ground, None));
        }
        match self.index.get(name) {
            Some(&k) => Ok((self.bodies[k].body_ref(), Some(k))),
            None => Err(PlanarError::UnknownBody {
                element: element.into(),
                body: name.into(),
                known: self.known_bodies(),
            }),
        }
    }

    /// Body and point (relative to the centre of mass in body axes; global for the ground).
    pub(crate) fn point(
        &self,
        element: &str,
        body: &str,
        point: Option<&str>,
    ) -> Result<(BodyRef, [f64; 2]), PlanarError> {
        let point = point.unwrap_or(ORIGIN);
        let (b, k) = self.body(element, body)?;
        let found = match k {
            None => self.ground.get(point).copied(),
            Some(k) => self.bodies[k].point(point),
        };
        found
            .map(|s| (b, s))
            .ok_or_else(|| PlanarError::UnknownPoint {
                element: element.into(),
                body: body.into(),
                point: point.into(),
                known: match k {
                    None => point_list(&self.ground),
                    Some(k) => point_list(&self.bodies[k].common().points),
                },
            })
    }
}

/// The joint named `name` among `joints`.
pub(crate) fn find_joint<'j>(
    joints: &'j [Joint],
    element: &str,
    name: &str,
) -> Result<&'j Joint, PlanarError> {
    joints
        .iter()
        .find(|j| j.name == name)
        .ok_or_else(|| PlanarError::UnknownJoint {
            element: element.into(),
            joint: name.into(),
            known: joints
                .iter()
                .map(|j| j.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Compiles a time function; its errors name `element`.
pub(crate) fn compile(element: &str, spec: &FunctionSpec) -> Result<TimeFunction, PlanarError> {
    TimeFunction::new(spec).map_err(|source| PlanarError::Function {
        element: element.into(),
        source,
    })
}

/// The error for what [`crate::model::validate::check_elements`] should have refused and did not:
/// `what` says what the builder could not do. A bug of dynastep, reported rather than panicking.
pub(crate) fn unchecked(element: &str, what: &str) -> PlanarError {
    PlanarError::InvalidElement {
        element: element.into(),
        reason: format!(
            "{what}; the model checks let this through, which is a bug of dynastep: please report it"
        ),
    }
}
