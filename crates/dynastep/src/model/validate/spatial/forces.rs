//! The rules of spatial force elements: spring–dampers (TSDA, RSDA), applied forces and torques.

use super::*;

/// One spring–damper, force or torque, by kind.
pub(super) fn force(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &Names<'_>,
    i: usize,
    f: &ForceSpec,
) {
    match f {
        ForceSpec::Tsda { .. } => tsda(c, s, names, i, f),
        ForceSpec::Rsda { .. } => rsda(c, s, i, f),
        ForceSpec::Force { .. } => load(c, s, names, i, f),
        ForceSpec::Torque { .. } => torque(c, names, i, f),
    }
}

/// A rotational spring–damper: about the axis of a revolute or cylindrical joint, finite values.
fn rsda(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, f: &ForceSpec) {
    let ForceSpec::Rsda {
        name,
        joint,
        stiffness,
        free_angle,
        damping,
        actuator,
    } = f
    else {
        return;
    };
    let e = format!("{} (rsda)", label("force", "spatial.forces", i, name));
    let path = |field: &str| at(&[&"forces", &i, &field]);
    match s.joints.iter().find(|j| j.name == *joint) {
        None => {
            let known: Vec<&str> = s.joints.iter().map(|j| j.name.as_str()).collect();
            c.push(
                path("joint"),
                &e,
                format!("unknown joint `{joint}`"),
                suggest(joint, &known, "known joints"),
            );
        }
        Some(j)
            if !matches!(
                j.kind,
                SpatialJointKind::Revolute | SpatialJointKind::Cylindrical
            ) =>
        {
            let kind = format!("{:?}", j.kind).to_lowercase();
            c.push(path("joint"), &e, format!("joint `{joint}` is {kind}; an RSDA acts about the axis of a revolute or cylindrical joint"), "attach it to a revolute or cylindrical joint".into());
        }
        Some(_) => {}
    }
    c.finite(path("stiffness"), &e, "stiffness", &[*stiffness]);
    c.finite(path("free_angle"), &e, "free angle", &[*free_angle]);
    c.finite(path("damping"), &e, "damping", &[*damping]);
    if let Some(a) = actuator {
        c.function(path("actuator"), &e, a);
    }
}

/// An applied force: on a moving body, at one of its points, in axes the body has.
fn load(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, f: &ForceSpec) {
    let ForceSpec::Force {
        name,
        body,
        point,
        fx,
        fy,
        fz,
        frame,
    } = f
    else {
        return;
    };
    let e = format!("{} (force)", label("force", "spatial.forces", i, name));
    let path = |field: &str| at(&[&"forces", &i, &field]);
    if let Some(b) = load_body(c, names, path("body"), &e, body) {
        point_ref(c, s, Some(b), path("point"), &e, point.as_deref());
        if b.1 == SpatialBodyKind::Point && *frame == Axes::Body {
            c.push(
                path("frame"),
                &e,
                "a point mass has no body axes".into(),
                "give the components in `global` axes".into(),
            );
        }
    }
    c.optional_functions(path, &e, &[("fx", fx), ("fy", fy), ("fz", fz)]);
}

/// An applied torque: on a moving rigid body (a point mass does not rotate).
fn torque(c: &mut Checker<'_>, names: &Names<'_>, i: usize, f: &ForceSpec) {
    let ForceSpec::Torque {
        name,
        body,
        torque,
        tx,
        ty,
        tz,
        ..
    } = f
    else {
        return;
    };
    let e = format!("{} (torque)", label("force", "spatial.forces", i, name));
    let path = |field: &str| at(&[&"forces", &i, &field]);
    let hint = "give a spatial torque's components tx, ty, tz";
    c.other_kind_fields(path, &e, "planar", &[("torque", torque.is_some())], hint);
    if let Some(b) = load_body(c, names, path("body"), &e, body) {
        if b.1 == SpatialBodyKind::Point {
            c.push(
                path("body"),
                &e,
                "a point mass does not rotate, so a torque does nothing".into(),
                "apply the torque to a rigid body".into(),
            );
        }
    }
    c.optional_functions(path, &e, &[("tx", tx), ("ty", ty), ("tz", tz)]);
}

/// The body an applied load or a coordinate driver acts on: a moving body (not the ground).
pub(super) fn load_body(
    c: &mut Checker<'_>,
    names: &Names<'_>,
    path: Vec<PathSeg>,
    entity: &str,
    name: &str,
) -> Option<(usize, SpatialBodyKind)> {
    match body_ref(c, names, path.clone(), entity, name)? {
        Some(b) => Some(b),
        None => {
            let known: Vec<&str> = names.keys().copied().collect();
            c.push(
                path,
                entity,
                "cannot act on the ground, which does not move".into(),
                suggest(name, &known, "moving bodies"),
            );
            None
        }
    }
}

fn tsda(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, f: &ForceSpec) {
    let ForceSpec::Tsda {
        name,
        body_i,
        point_i,
        body_j,
        point_j,
        stiffness,
        free_length,
        damping,
        actuator,
    } = f
    else {
        return;
    };
    let e = format!("{} (tsda)", label("force", "spatial.forces", i, name));
    let path = |field: &str| at(&[&"forces", &i, &field]);
    let bi = body_ref(c, names, path("body_i"), &e, body_i);
    let bj = body_ref(c, names, path("body_j"), &e, body_j);
    if body_i == body_j {
        c.push(
            path("body_j"),
            &e,
            "a spring–damper needs two different bodies".into(),
            "attach it to another body or to `ground`".into(),
        );
    }
    for (b, field, point) in [(bi, "point_i", point_i), (bj, "point_j", point_j)] {
        if let Some(b) = b {
            point_ref(c, s, b, path(field), &e, point.as_deref());
        }
    }
    c.finite(path("stiffness"), &e, "stiffness", &[*stiffness]);
    c.finite(path("damping"), &e, "damping", &[*damping]);
    c.free_length(path("free_length"), &e, *free_length);
    if let Some(a) = actuator {
        c.function(path("actuator"), &e, a);
    }
    let ends = (
        (body_i.as_str(), point_i.as_deref()),
        (body_j.as_str(), point_j.as_deref()),
    );
    if let Some(l) = s.initial_distance(ends.0, ends.1) {
        if !is_usable_length(l) {
            c.push(
                path("body_j"),
                &e,
                format!("its points are {l:e} m apart initially, and a TSDA needs a direction"),
                "move the points apart".into(),
            );
        }
    }
}
