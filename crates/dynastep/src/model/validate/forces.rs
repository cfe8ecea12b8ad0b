//! The rules of `[[forces]]`, one function per kind: TSDA (two different bodies, points apart by
//! at least [`MIN_LENGTH`](super::super::geometry::MIN_LENGTH)), RSDA (at a revolute joint between
//! rigid bodies), force (on a moving body) and torque (on a moving rigid body).

use super::super::function::FunctionSpec;
use super::super::geometry::is_usable_length;
use super::super::types::*;
use super::checker::{label, p, Checker};
use super::suggest;

/// Checks every force element.
pub(super) fn check(c: &mut Checker<'_>, model: &Model) {
    c.names("forces", "force", model.forces.iter().map(ForceSpec::name));
    for (i, f) in model.forces.iter().enumerate() {
        let e = label("force", "forces", i, f.name());
        match f {
            ForceSpec::Tsda { .. } => tsda(c, &e, i, f),
            ForceSpec::Rsda { .. } => rsda(c, &e, i, f),
            ForceSpec::Force {
                body,
                point,
                fx,
                fy,
                fz,
                ..
            } => {
                load(c, &e, i, body, point.as_deref(), [fx, fy]);
                let hint = "a planar force has components fx and fy";
                c.other_kind_fields(|f| at(i, f), &e, "spatial", &[("fz", fz.is_some())], hint);
            }
            ForceSpec::Torque { .. } => self::torque(c, &e, i, f),
        }
    }
}

fn at(i: usize, field: &str) -> Vec<super::PathSeg> {
    p(&[&"forces", &i, &field])
}

/// A translational spring-damper-actuator between two points of two different bodies.
fn tsda(c: &mut Checker<'_>, e: &str, i: usize, f: &ForceSpec) {
    let ForceSpec::Tsda {
        body_i,
        point_i,
        body_j,
        point_j,
        stiffness,
        free_length,
        damping,
        actuator,
        ..
    } = f
    else {
        return;
    };
    let (point_i, point_j) = (
        point_i.as_deref().unwrap_or("origin"),
        point_j.as_deref().unwrap_or("origin"),
    );
    let bi = c.body_ref(at(i, "body_i"), e, body_i, true);
    let bj = c.body_ref(at(i, "body_j"), e, body_j, true);
    if let Some(b) = bi {
        c.point_ref(at(i, "point_i"), e, b, point_i);
    }
    if let Some(b) = bj {
        c.point_ref(at(i, "point_j"), e, b, point_j);
    }
    if body_i == body_j {
        c.push(
            at(i, "body_j"),
            e,
            format!("connects body `{body_j}` to itself"),
            "a TSDA acts between two different bodies; use body_i and body_j".into(),
        );
    }
    let ends = bi
        .zip(bj)
        .and_then(|(bi, bj)| Some((bi.initial_position(point_i)?, bj.initial_position(point_j)?)));
    if let Some((a, b)) = ends {
        let l = (b[0] - a[0]).hypot(b[1] - a[1]);
        if !is_usable_length(l) {
            c.push(
                at(i, "body_j"),
                e,
                format!("its points are {l:e} m apart initially, and a TSDA needs a direction"),
                "move the points apart".into(),
            );
        }
    }
    c.finite(at(i, "stiffness"), e, "stiffness", &[*stiffness]);
    c.finite(at(i, "damping"), e, "damping", &[*damping]);
    c.free_length(at(i, "free_length"), e, *free_length);
    if let Some(a) = actuator {
        c.function(at(i, "actuator"), e, a);
    }
}

/// A rotational spring-damper-actuator at a revolute joint between two rigid bodies.
fn rsda(c: &mut Checker<'_>, e: &str, i: usize, f: &ForceSpec) {
    let ForceSpec::Rsda { joint, .. } = f else {
        return;
    };
    if let Some(j) = c.joint_ref(at(i, "joint"), e, joint) {
        if j.kind != JointKind::Revolute {
            let revolute: Vec<&str> = c
                .model
                .joints
                .iter()
                .filter(|j| j.kind == JointKind::Revolute)
                .map(|j| j.name.as_str())
                .collect();
            c.push(
                at(i, "joint"),
                e,
                format!("joint `{joint}` is not revolute; an rsda acts at a revolute joint"),
                suggest(joint, &revolute, "revolute joints"),
            );
            return rsda_values(c, e, i, f);
        }
        for body in [&j.body_i, &j.body_j] {
            if c.is_point_mass(body) {
                c.push(
                    at(i, "joint"),
                    e,
                    format!(
                        "joint `{joint}` connects point mass `{body}`, which cannot take a torque"
                    ),
                    "put the rsda at a joint between rigid bodies".into(),
                );
            }
        }
    }
    rsda_values(c, e, i, f);
}

/// An RSDA's finite parameters and its actuator's time function.
fn rsda_values(c: &mut Checker<'_>, e: &str, i: usize, f: &ForceSpec) {
    let ForceSpec::Rsda {
        stiffness,
        free_angle,
        damping,
        actuator,
        ..
    } = f
    else {
        return;
    };
    c.finite(at(i, "stiffness"), e, "stiffness", &[*stiffness]);
    c.finite(at(i, "free_angle"), e, "free_angle", &[*free_angle]);
    c.finite(at(i, "damping"), e, "damping", &[*damping]);
    if let Some(a) = actuator {
        c.function(at(i, "actuator"), e, a);
    }
}

/// A force at a point of a moving body, its components time functions.
fn load(
    c: &mut Checker<'_>,
    e: &str,
    i: usize,
    body: &str,
    point: Option<&str>,
    components: [&Option<FunctionSpec>; 2],
) {
    if let Some(b) = c.body_ref(at(i, "body"), e, body, false) {
        c.point_ref(at(i, "point"), e, b, point.unwrap_or("origin"));
    }
    let [fx, fy] = components;
    c.optional_functions(|f| at(i, f), e, &[("fx", fx), ("fy", fy)]);
}

/// A torque on a moving rigid body: `torque`, about the z axis.
fn torque(c: &mut Checker<'_>, e: &str, i: usize, f: &ForceSpec) {
    let ForceSpec::Torque {
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
    if let Some(b) = c.body_ref(at(i, "body"), e, body, false) {
        if b.is_point_mass() {
            c.push(
                at(i, "body"),
                e,
                format!("body `{body}` is a point mass, which cannot take a torque"),
                "apply the torque to a rigid body, or use a force".into(),
            );
        }
    }
    let given = [
        ("tx", tx.is_some()),
        ("ty", ty.is_some()),
        ("tz", tz.is_some()),
    ];
    let hint = "a planar torque is `torque`, counter-clockwise about z";
    c.other_kind_fields(|f| at(i, f), e, "spatial", &given, hint);
    match torque {
        Some(t) => c.function(at(i, "torque"), e, t),
        None => c.push(
            at(i, "torque"),
            e,
            "a torque needs its value `torque`".into(),
            "add e.g. `torque = 1.5` [N m], counter-clockwise positive".into(),
        ),
    }
}
