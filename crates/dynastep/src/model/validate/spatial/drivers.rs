//! The rules of a spatial driver: a joint that can move the way it prescribes. The fields every
//! joint driver shares are checked by the planar rules' [`driven_joint`].

use super::super::drivers::driven_joint;
use super::*;

/// The rules of a driver: a revolute, prismatic or cylindrical joint and a motion it allows.
pub(super) fn driver(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, d: &DriverSpec) {
    let e = label("driver", "spatial.drivers", i, &d.name);
    let path = |field: &str| at(&[&"drivers", &i, &field]);
    c.function(path("function"), &e, &d.function);
    if d.kind == DriverKind::Coordinate {
        c.push(
            path("type"),
            &e,
            "a spatial model drives joints only, not body coordinates".into(),
            "drive the body through a joint: e.g. a prismatic joint to `ground` with a `translation` driver".into(),
        );
        return;
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
