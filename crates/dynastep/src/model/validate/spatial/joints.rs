//! The rules of a spatial joint: the bodies each kind accepts, its point, axes or frames, and a
//! distance joint's length.

use super::*;

/// One joint: two different bodies, its point, its axes or frames, the bodies its kind accepts and
/// a distance joint's length.
pub(super) fn joint(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &Names<'_>,
    i: usize,
    j: &SpatialJointSpec,
) {
    use SpatialJointKind as K;
    let kind = format!("{:?}", j.kind).to_lowercase();
    let e = format!("{} ({kind})", label("joint", "spatial.joints", i, &j.name));
    let f = |field: &str| at(&[&"joints", &i, &field]);
    let bi = body_ref(c, names, f("body_i"), &e, &j.body_i);
    let bj = body_ref(c, names, f("body_j"), &e, &j.body_j);
    if j.body_i == j.body_j {
        c.push(
            f("body_j"),
            &e,
            "a joint needs two different bodies".into(),
            "join the body to another body or to `ground`".into(),
        );
    }
    joint_point(c, s, i, j, &e, [bi, bj]);
    joint_axes(c, i, j, &e);
    let point_mass = |b: Option<Option<(usize, SpatialBodyKind)>>| {
        matches!(b, Some(Some((_, SpatialBodyKind::Point))))
    };
    if !matches!(j.kind, K::Spherical | K::Distance) && (point_mass(bi) || point_mass(bj)) {
        c.push(
            f(if point_mass(bi) { "body_i" } else { "body_j" }),
            &e,
            "this joint constrains rotations, which a point mass does not have".into(),
            "use a spherical or distance joint, or make the body rigid".into(),
        );
    }
    if j.kind == K::Distance {
        distance(c, s, i, j, &e);
    }
    if j.length.is_some() && j.kind != K::Distance {
        c.push(
            f("length"),
            &e,
            "only a distance joint has a `length`".into(),
            "remove it".into(),
        );
    }
}

/// A joint's point: the global `at`, or `point_i` and `point_j` on the bodies `b` (as
/// `body_ref` found them), not both.
fn joint_point(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    i: usize,
    j: &SpatialJointSpec,
    e: &str,
    b: [Option<Option<(usize, SpatialBodyKind)>>; 2],
) {
    let f = |field: &str| at(&[&"joints", &i, &field]);
    match j.at {
        Some(x) => {
            c.finite(f("at"), e, "the joint point", &x);
            if j.point_i.is_some() || j.point_j.is_some() {
                c.push(
                    f("at"),
                    e,
                    "give the joint point as `at` or as `point_i` and `point_j`, not both".into(),
                    "remove `at`, or the point names".into(),
                );
            }
        }
        None => {
            for (b, field, point) in [(b[0], "point_i", &j.point_i), (b[1], "point_j", &j.point_j)]
            {
                if let Some(b) = b {
                    point_ref(c, s, b, f(field), e, point.as_deref());
                }
            }
        }
    }
}

/// A joint's frames, or its global `axis` (and a universal joint's perpendicular `axis_j`) where
/// its kind needs one.
fn joint_axes(c: &mut Checker<'_>, i: usize, j: &SpatialJointSpec, e: &str) {
    use SpatialJointKind as K;
    let f = |field: &str| at(&[&"joints", &i, &field]);
    let framed = frames(c, i, j, e);
    let needs_axis = !framed
        && matches!(
            j.kind,
            K::Revolute | K::Cylindrical | K::Prismatic | K::Universal | K::Planar
        );
    let axis = direction(c, f("axis"), e, "axis", j.axis, needs_axis);
    let axis_j = direction(
        c,
        f("axis_j"),
        e,
        "axis_j",
        j.axis_j,
        !framed && j.kind == K::Universal,
    );
    if let (Some(a), Some(b)) = (axis, axis_j) {
        if a.dot(&b).abs() > 1e-6 {
            c.push(
                f("axis_j"),
                e,
                format!(
                    "the cross axes of a universal joint must be perpendicular (cos = {:.3e})",
                    a.dot(&b)
                ),
                "give `axis_j` perpendicular to `axis`".into(),
            );
        }
    }
    if j.axis_j.is_some() && j.kind != K::Universal {
        c.push(
            f("axis_j"),
            e,
            "only a universal joint has `axis_j`".into(),
            "remove it".into(),
        );
    }
}

/// The rules of a joint's frames given in each body (`frame_i`, `frame_j`): both or neither, not
/// with the global `axis`/`axis_j`, axes with a direction and references not along them. True
/// when the joint has them.
fn frames(c: &mut Checker<'_>, i: usize, j: &SpatialJointSpec, e: &str) -> bool {
    let f = |field: &str| at(&[&"joints", &i, &field]);
    match (j.frame_i, j.frame_j) {
        (None, None) => return false,
        (Some(_), None) | (None, Some(_)) => {
            let missing = if j.frame_i.is_none() {
                "frame_i"
            } else {
                "frame_j"
            };
            c.push(
                f(if j.frame_i.is_none() {
                    "frame_j"
                } else {
                    "frame_i"
                }),
                e,
                format!("`frame_i` and `frame_j` go together; `{missing}` is missing"),
                "give the joint frame in both bodies, or `axis` in global axes alone".into(),
            );
        }
        (Some(_), Some(_)) => {}
    }
    for field in ["axis", "axis_j"] {
        let given = if field == "axis" {
            j.axis.is_some()
        } else {
            j.axis_j.is_some()
        };
        if given {
            c.push(
                f(field),
                e,
                format!("`{field}` (global) and `frame_i`/`frame_j` (per body) both give the joint's axes"),
                "keep one of the two forms".into(),
            );
        }
    }
    for (field, frame) in [("frame_i", j.frame_i), ("frame_j", j.frame_j)] {
        let Some(frame) = frame else { continue };
        let mut path = f(field);
        path.push(PathSeg::Key("axis".into()));
        let Some(h) = direction(c, path, e, "axis", Some(frame.axis), true) else {
            continue;
        };
        if let Some(r) = frame.reference {
            let r = nalgebra::Vector3::from(r);
            let across = (r - h * h.dot(&r)).norm();
            if !(across > MIN_AXIS * r.norm().max(1.0) && across.is_finite()) {
                let mut path = f(field);
                path.push(PathSeg::Key("reference".into()));
                c.push(
                    path,
                    e,
                    "the reference direction lies along the axis (or is zero)".into(),
                    "give a direction across the axis, e.g. perpendicular to it".into(),
                );
            }
        }
    }
    true
}

/// A distance joint joins two named points, and its length (given, or else the initial
/// distance) is usable (the rules of the planar distance joint).
fn distance(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, j: &SpatialJointSpec, e: &str) {
    let f = |field: &str| at(&[&"joints", &i, &field]);
    if j.at.is_some() {
        c.push(
            f("at"),
            e,
            "a distance joint joins two points, and `at` makes them one".into(),
            "give `point_i` and `point_j` instead".into(),
        );
        return;
    }
    let ends = (
        (j.body_i.as_str(), j.point_i.as_deref()),
        (j.body_j.as_str(), j.point_j.as_deref()),
    );
    match (j.length, s.initial_distance(ends.0, ends.1)) {
        (Some(l), _) if !is_usable_length(l) => c.push(
            f("length"),
            e,
            format!("length must be at least {MIN_LENGTH:e} m and finite, got {l}"),
            "give the rod length in m, or leave it out to use the initial distance; for coincident points use a spherical joint".into(),
        ),
        (None, Some(l)) if !is_usable_length(l) => c.push(
            f("point_j"),
            e,
            format!("the points are {l:e} m apart initially, and the joint has no `length`"),
            "give `length` (m), or move the points apart; for coincident points use a spherical joint".into(),
        ),
        _ => {}
    }
}
