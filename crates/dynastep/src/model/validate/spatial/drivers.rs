//! The rules of a spatial driver: a joint that can move the way it prescribes.

use super::*;

/// The rules of a driver: a revolute, prismatic or cylindrical joint and a motion it allows.
pub(super) fn driver(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, d: &SpatialDriverSpec) {
    use SpatialJointKind as K;
    let e = label("driver", "spatial.drivers", i, &d.name);
    let path = |field: &str| at(&[&"drivers", &i, &field]);
    c.function(path("function"), &e, &d.function);
    let Some(joint) = s.joints.iter().find(|j| j.name == d.joint) else {
        let known: Vec<&str> = s.joints.iter().map(|j| j.name.as_str()).collect();
        c.push(
            path("joint"),
            &e,
            format!("unknown joint `{}`", d.joint),
            suggest(&d.joint, &known, "known joints"),
        );
        return;
    };
    let allowed = match (joint.kind, d.motion) {
        (K::Revolute, None | Some(SpatialMotion::Rotation)) => true,
        (K::Prismatic, None | Some(SpatialMotion::Translation)) => true,
        (K::Cylindrical, Some(_)) => true,
        (K::Cylindrical, None) => {
            c.push(
                path("joint"),
                &e,
                "a cylindrical joint rotates and translates".into(),
                "say which: `motion = \"rotation\"` or `motion = \"translation\"`".into(),
            );
            return;
        }
        _ => false,
    };
    if !allowed {
        let kind = format!("{:?}", joint.kind).to_lowercase();
        c.push(path(if d.motion.is_some() { "motion" } else { "joint" }), &e, format!("joint `{}` is {kind}, which has no such motion to drive", d.joint), "drive the rotation of a revolute or cylindrical joint, or the translation of a prismatic or cylindrical one".into());
    }
}
