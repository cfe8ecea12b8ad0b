//! The rules of `[[joints]]`: bodies and points that exist, two different bodies, the fields of
//! each kind (a prismatic axis with a direction, a distance of at least
//! [`MIN_LENGTH`](super::super::geometry::MIN_LENGTH)), and which joints can be `given`.

use super::super::geometry::{is_usable_length, unit_axis, MIN_LENGTH};
use super::super::types::*;
use super::checker::{label, p, BodyRef, Checker};

/// Checks every joint; fills `c.joints`, the name index drivers and RSDAs resolve against.
pub(super) fn check<'m>(c: &mut Checker<'m>, model: &'m Model) {
    c.joints = c.names(
        "joints",
        "joint",
        model.joints.iter().map(|j| j.name.as_str()),
    );
    for (i, j) in model.joints.iter().enumerate() {
        joint(c, i, j);
    }
}

/// The rules of one joint, `joints[i]`.
fn joint<'m>(c: &mut Checker<'m>, i: usize, j: &'m JointSpec) {
    let e = label("joint", "joints", i, &j.name);
    let at = |f: &str| p(&[&"joints", &i, &f]);
    let point_i = j.point_i.as_deref().unwrap_or("origin");
    let point_j = j.point_j.as_deref().unwrap_or("origin");
    let bi = c.body_ref(at("body_i"), &e, &j.body_i, true);
    let bj = c.body_ref(at("body_j"), &e, &j.body_j, true);
    if let Some(b) = bi {
        c.point_ref(at("point_i"), &e, b, point_i);
    }
    if let Some(b) = bj {
        c.point_ref(at("point_j"), &e, b, point_j);
    }
    if j.body_i == j.body_j {
        c.push(
            at("body_j"),
            &e,
            format!("joins body `{}` to itself", j.body_j),
            "body_i and body_j must be different bodies".into(),
        );
    }
    axis(c, &e, i, j);
    length(c, &e, i, j, [bi.zip(Some(point_i)), bj.zip(Some(point_j))]);
    if j.given {
        given(c, &e, i, j, [bi, bj]);
    }
}

/// `axis`: prismatic joints only, with a direction ([`unit_axis`]).
fn axis(c: &mut Checker<'_>, e: &str, i: usize, j: &JointSpec) {
    let at = p(&[&"joints", &i, &"axis"]);
    match (j.kind, j.axis) {
        (JointKind::Prismatic, Some(a)) if unit_axis(a).is_none() => c.push(
            at,
            e,
            format!("the prismatic axis [{}, {}] has no direction", a[0], a[1]),
            "give a non-zero, finite direction in the frame of body i, e.g. `axis = [1.0, 0.0]`"
                .into(),
        ),
        (JointKind::Prismatic, _) | (_, None) => {}
        (_, Some(_)) => c.push(
            at,
            e,
            "`axis` applies to prismatic joints only".into(),
            "remove `axis`, or set `type = \"prismatic\"`".into(),
        ),
    }
}

/// `length`: distance joints only; the given length, or else the initial distance of the points,
/// at least [`MIN_LENGTH`]. `ends` are the resolved bodies and point names (`None`: unresolved).
fn length(
    c: &mut Checker<'_>,
    e: &str,
    i: usize,
    j: &JointSpec,
    ends: [Option<(BodyRef<'_>, &str)>; 2],
) {
    let at = p(&[&"joints", &i, &"length"]);
    match (j.kind, j.length) {
        (JointKind::Distance, Some(l)) if !is_usable_length(l) => c.push(
            at,
            e,
            format!("length must be at least {MIN_LENGTH:e} m and finite, got {l}"),
            "give the rod length in m, or leave it out to use the initial distance; for coincident points use a revolute joint".into(),
        ),
        (JointKind::Distance, None) => {
            let [Some((bi, pi)), Some((bj, pj))] = ends else {
                return;
            };
            let (Some(a), Some(b)) = (bi.initial_position(pi), bj.initial_position(pj)) else {
                return;
            };
            let l = (b[0] - a[0]).hypot(b[1] - a[1]);
            if !is_usable_length(l) {
                c.push(
                    p(&[&"joints", &i, &"body_j"]),
                    e,
                    format!("the points are {l:e} m apart initially, and the joint has no `length`"),
                    "give `length` (m), or move the points apart; for coincident points use a revolute joint".into(),
                );
            }
        }
        (JointKind::Distance, Some(_)) | (_, None) => {}
        (_, Some(_)) => c.push(
            at,
            e,
            "`length` applies to distance joints only".into(),
            "remove `length`, or set `type = \"distance\"`".into(),
        ),
    }
}

/// `given` holds a revolute joint's angle between rigid bodies or a prismatic joint's travel.
fn given(c: &mut Checker<'_>, e: &str, i: usize, j: &JointSpec, ends: [Option<BodyRef<'_>>; 2]) {
    let point_mass = ends.into_iter().flatten().any(|b| b.is_point_mass());
    let holds = match j.kind {
        JointKind::Revolute => !point_mass,
        JointKind::Prismatic => true,
        JointKind::Fixed | JointKind::Distance => false,
    };
    if !holds {
        c.push(
            p(&[&"joints", &i, &"given"]),
            e,
            "`given` holds the value of a revolute joint between rigid bodies or of a prismatic joint".into(),
            "remove `given`, or mark body coordinates as given (`given = [\"theta\"]` on the body)".into(),
        );
    }
}
