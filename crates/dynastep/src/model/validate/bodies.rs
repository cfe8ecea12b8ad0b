//! The rules of `[[bodies]]`: names, mass and inertia by kind, finite pose and velocity, points,
//! and the coordinates a point mass does not have.

use super::super::types::*;
use super::checker::{label, p, Checker};

/// Checks every body; fills `c.bodies`, the name index the other elements resolve against.
pub(super) fn check<'m>(c: &mut Checker<'m>, model: &'m Model) {
    c.bodies = c.names(
        "bodies",
        "body",
        model.bodies.iter().map(|b| b.name.as_str()),
    );
    for (i, b) in model.bodies.iter().enumerate() {
        body(c, i, b);
    }
}

/// The rules of one body, `bodies[i]`.
fn body(c: &mut Checker<'_>, i: usize, b: &BodySpec) {
    let e = label("body", "bodies", i, &b.name);
    let at = |f: &str| p(&[&"bodies", &i, &f]);
    if b.name == GROUND {
        c.push(
            at("name"),
            &e,
            "a body may not be named `ground`".into(),
            "the ground is implicit (its points go in [ground.points]); rename the body".into(),
        );
    }
    c.positive(
        at("mass"),
        &e,
        "mass",
        b.mass,
        "give the mass in kg, e.g. `mass = 1.0`",
    );
    match (b.kind, b.inertia) {
    (BodyKind::Rigid, None) => c.push(
        at("inertia"),
        &e,
        "a rigid body needs an `inertia`".into(),
        "add `inertia = <moment of inertia about the centre of mass in kg m²>`, or set `kind = \"point\"` for a point mass".into(),
    ),
    (BodyKind::Rigid, Some(j)) => c.positive(at("inertia"), &e, "inertia", j, "give the moment of inertia about the centre of mass in kg m²"),
    (BodyKind::Point, Some(_)) => c.push(
        at("inertia"),
        &e,
        "a point mass has no inertia".into(),
        "remove `inertia`, or set `kind = \"rigid\"`".into(),
    ),
    (BodyKind::Point, None) => {}
}
    for (f, v) in [
        ("x", b.x),
        ("y", b.y),
        ("theta", b.theta),
        ("vx", b.vx),
        ("vy", b.vy),
        ("omega", b.omega),
    ] {
        c.finite(at(f), &e, &format!("`{f}`"), &[v]);
    }
    c.finite(at("com"), &e, "`com`", &b.com);
    c.points(&p(&[&"bodies", &i]), &e, &b.points);
    for (field, list) in [("given", &b.given), ("given_velocity", &b.given_velocity)] {
        for (k, coord) in list.iter().enumerate() {
            let problem = match coord {
                Coordinate::Theta if b.kind == BodyKind::Point => (
                    format!("`{field}` lists `theta`, but a point mass has no rotation"),
                    "a point mass has coordinates x and y only; remove `theta`",
                ),
                Coordinate::Z => (
                    format!("`{field}` lists `z`, which a planar body does not have"),
                    "a planar body has coordinates x, y and theta; remove `z`",
                ),
                _ => continue,
            };
            c.push(
                p(&[&"bodies", &i, &field, &k]),
                &e,
                problem.0,
                problem.1.into(),
            );
        }
    }
}
