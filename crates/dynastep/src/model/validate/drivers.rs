//! The rules of `[[drivers]]`: a joint driver names a revolute joint between rigid bodies or a
//! prismatic joint; a coordinate driver names a moving body and one of its coordinates; each has a
//! time function that compiles.

use super::super::types::*;
use super::checker::{label, p, Checker};
use super::{suggest, PathSeg};

/// Checks every driver.
pub(super) fn check(c: &mut Checker<'_>, model: &Model) {
    c.names(
        "drivers",
        "driver",
        model.drivers.iter().map(|d| d.name.as_str()),
    );
    for (i, d) in model.drivers.iter().enumerate() {
        let e = label("driver", "drivers", i, &d.name);
        match d.kind {
            DriverKind::Joint => joint_driver(c, &e, i, d),
            DriverKind::Coordinate => coordinate_driver(c, &e, i, d),
        }
        let hint = "a planar joint driver drives the joint's one value, its angle or its travel";
        let at = |f: &str| p(&[&"drivers", &i, &f]);
        c.other_kind_fields(at, &e, "spatial", &[("motion", d.motion.is_some())], hint);
        c.function(at("function"), &e, &d.function);
    }
}

/// A driver of a joint's value: the joint exists and has a value to drive; no `body` or
/// `coordinate`.
fn joint_driver(c: &mut Checker<'_>, e: &str, i: usize, d: &DriverSpec) {
    let at = |f: &str| p(&[&"drivers", &i, &f]);
    if let Some(name) = driven_joint(c, e, at, d, "revolute or prismatic") {
        if let Some(j) = c.joint_ref(at("joint"), e, name) {
            drivable(c, e, i, name, j);
        }
    }
}

/// The joint a joint driver names (`None`, reported, when it names none), after refusing the
/// fields a joint driver does not read; `kinds` says which joints can be driven. Planar and
/// spatial models alike.
pub(super) fn driven_joint<'d>(
    c: &mut Checker<'_>,
    e: &str,
    at: impl Fn(&str) -> Vec<PathSeg>,
    d: &'d DriverSpec,
    kinds: &str,
) -> Option<&'d str> {
    for (f, given) in [
        ("body", d.body.is_some()),
        ("coordinate", d.coordinate.is_some()),
    ] {
        if given {
            c.push(
                at(f),
                e,
                format!("`{f}` is not used by a joint driver"),
                format!("remove `{f}`, or set `type = \"coordinate\"`"),
            );
        }
    }
    if d.joint.is_none() {
        c.push(
            at("joint"),
            e,
            "a joint driver needs `joint`".into(),
            format!("add `joint = \"<name of a {kinds} joint>\"`"),
        );
    }
    d.joint.as_deref()
}

/// Whether joint `name` has a value a driver can prescribe.
fn drivable(c: &mut Checker<'_>, e: &str, i: usize, name: &str, j: &JointSpec) {
    let at = p(&[&"drivers", &i, &"joint"]);
    match j.kind {
        JointKind::Distance | JointKind::Fixed => c.push(
            at,
            e,
            format!(
                "joint `{name}` is a {} joint, which has no value to drive",
                if j.kind == JointKind::Fixed {
                    "fixed"
                } else {
                    "distance"
                }
            ),
            "drive a revolute or prismatic joint (or give a distance joint its `length`)".into(),
        ),
        JointKind::Revolute => {
            for body in [&j.body_i, &j.body_j] {
                if c.is_point_mass(body) {
                    c.push(
                        at.clone(),
                        e,
                        format!("revolute joint `{name}` connects point mass `{body}`, which has no rotation to drive"),
                        "drive a joint between rigid bodies, or use a coordinate driver".into(),
                    );
                }
            }
        }
        JointKind::Prismatic => {}
    }
}

/// A driver of one body coordinate: a moving body, a coordinate it has; no `joint`.
fn coordinate_driver(c: &mut Checker<'_>, e: &str, i: usize, d: &DriverSpec) {
    let at = |f: &str| p(&[&"drivers", &i, &f]);
    let (name, coordinate) = driven_coordinate(c, e, at, d, &c.body_names(false), "\"theta\"");
    let body = name.and_then(|name| c.body_ref(at("body"), e, name, false));
    let problem = match coordinate {
        Some(Coordinate::Theta) if body.is_some_and(|b| b.is_point_mass()) => Some((
            format!(
                "drives `theta`, but body `{}` is a point mass and has no rotation",
                name.unwrap_or_default()
            ),
            "drive `x` or `y`, or make the body rigid",
        )),
        Some(Coordinate::Z) => Some((
            "drives `z`, which a planar body does not have".into(),
            "drive `x`, `y` or `theta`",
        )),
        _ => None,
    };
    if let Some((message, hint)) = problem {
        c.push(at("coordinate"), e, message, hint.into());
    }
}

/// The body and coordinate a coordinate driver names (`None`, reported, when it names none),
/// after refusing the fields a coordinate driver does not read; `bodies` are the names to
/// suggest and `third` the model kind's third coordinate. Planar and spatial models alike.
pub(super) fn driven_coordinate<'d>(
    c: &mut Checker<'_>,
    e: &str,
    at: impl Fn(&str) -> Vec<PathSeg>,
    d: &'d DriverSpec,
    bodies: &[&str],
    third: &str,
) -> (Option<&'d str>, Option<Coordinate>) {
    if d.body.is_none() {
        let hint = format!(
            "add `body = \"<name>\"`; {}",
            suggest("", bodies, "known bodies")
        );
        c.push(
            at("body"),
            e,
            "a coordinate driver needs `body`".into(),
            hint,
        );
    }
    if d.coordinate.is_none() {
        c.push(
            at("coordinate"),
            e,
            "a coordinate driver needs `coordinate`".into(),
            format!("add `coordinate = \"x\"`, `\"y\"` or `{third}`"),
        );
    }
    if d.joint.is_some() {
        c.push(
            at("joint"),
            e,
            "`joint` is not used by a coordinate driver".into(),
            "remove `joint`, or set `type = \"joint\"`".into(),
        );
    }
    (d.body.as_deref(), d.coordinate)
}
