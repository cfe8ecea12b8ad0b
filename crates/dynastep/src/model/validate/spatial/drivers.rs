//! The rules of a spatial driver: a joint that can move the way it prescribes, or a coordinate
//! of a moving body's centroid. The fields every driver of either kind of model shares are
//! checked by the planar rules' [`driven_joint`] and [`driven_coordinate`].

use super::super::drivers::{driven_coordinate, driven_joint};
use super::forces::load_body;
use super::*;

/// The rules of a driver: a revolute, prismatic or cylindrical joint and a motion it allows, or
/// x, y or z of a moving body.
pub(super) fn driver(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &Names<'_>,
    i: usize,
    d: &DriverSpec,
) {
    let e = label("driver", "spatial.drivers", i, &d.name);
    let path = |field: &str| at(&[&"drivers", &i, &field]);
    c.function(path("function"), &e, &d.function);
    if d.kind == DriverKind::Coordinate {
        return coordinate(c, names, &e, path, d);
    }
    let Some(name) = driven_joint(c, &e, path, d, "revolute, prismatic or cylindrical") else {
        return;
    };
    let Some(joint) = s.joints.iter().find(|j| j.name == name) else {
        let known: Vec<&str> = s.joints.iter().map(|j| j.name.as_str()).collect();
        c.push(
            path("joint"),
            &e,
            format!("unknown joint `{name}`"),
            suggest(name, &known, "known joints"),
        );
        return;
    };
    motion(c, &e, path, joint, d.motion);
}

/// Whether `joint` has the `motion` to drive (or, without one, a single motion).
fn motion(
    c: &mut Checker<'_>,
    e: &str,
    path: impl Fn(&str) -> Vec<PathSeg>,
    joint: &SpatialJointSpec,
    motion: Option<JointMotion>,
) {
    use SpatialJointKind as K;
    let allowed = match (joint.kind, motion) {
        (K::Revolute, None | Some(JointMotion::Rotation)) => true,
        (K::Prismatic, None | Some(JointMotion::Translation)) => true,
        (K::Cylindrical, Some(_)) => true,
        (K::Cylindrical, None) => {
            c.push(
                path("joint"),
                e,
                "a cylindrical joint rotates and translates".into(),
                "say which: `motion = \"rotation\"` or `motion = \"translation\"`".into(),
            );
            return;
        }
        _ => false,
    };
    if !allowed {
        let kind = format!("{:?}", joint.kind).to_lowercase();
        c.push(path(if motion.is_some() { "motion" } else { "joint" }), e, format!("joint `{}` is {kind}, which has no such motion to drive", joint.name), "drive the rotation of a revolute or cylindrical joint, or the translation of a prismatic or cylindrical one".into());
    }
}

/// A driver of x, y or z of a moving body's centroid; no `joint` or `motion`.
fn coordinate(
    c: &mut Checker<'_>,
    names: &Names<'_>,
    e: &str,
    path: impl Fn(&str) -> Vec<PathSeg> + Copy,
    d: &DriverSpec,
) {
    let bodies: Vec<&str> = names.keys().copied().collect();
    let (body, coordinate) = driven_coordinate(c, e, path, d, &bodies, "\"z\"");
    if let Some(body) = body {
        load_body(c, names, path("body"), e, body);
    }
    if coordinate == Some(Coordinate::Theta) {
        c.push(
            path("coordinate"),
            e,
            "a spatial body has no single angle `theta` to drive".into(),
            "drive `x`, `y` or `z` of the centroid, or the `rotation` of a revolute joint".into(),
        );
    }
    if d.motion.is_some() {
        c.push(
            path("motion"),
            e,
            "`motion` is not used by a coordinate driver".into(),
            "remove `motion`, or set `type = \"joint\"`".into(),
        );
    }
}
