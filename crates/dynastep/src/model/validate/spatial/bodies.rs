//! The rules of a spatial body: mass, inertia (positive definite, triangle inequality),
//! orientation, angular velocity and drawing shape.

use super::*;

pub(super) fn bodies<'m>(c: &mut Checker<'_>, bodies: &'m [SpatialBodySpec]) -> Names<'m> {
    let mut names = Names::new();
    for (i, b) in bodies.iter().enumerate() {
        unique(c, &mut names, "bodies", "body", i, &b.name);
        if let Some(entry) = names.get_mut(b.name.as_str()) {
            if entry.0 == i {
                entry.1 = b.kind;
            }
        }
        body(c, i, b);
    }
    names
}

fn body(c: &mut Checker<'_>, i: usize, b: &SpatialBodySpec) {
    let e = label("body", "spatial.bodies", i, &b.name);
    let f = |field: &str| at(&[&"bodies", &i, &field]);
    if b.name == GROUND {
        c.push(
            f("name"),
            &e,
            "a body may not be named `ground`".into(),
            "the ground is implicit (its points go in [spatial.ground]); rename the body".into(),
        );
    }
    c.positive(
        f("mass"),
        &e,
        "mass",
        b.mass,
        "give the mass in kg, e.g. `mass = 1.0`",
    );
    for (field, x) in [
        ("position", &b.position),
        ("velocity", &b.velocity),
        ("angular_velocity", &b.angular_velocity),
    ] {
        c.finite(f(field), &e, field, x);
    }
    if let Some(j) = &b.inertia {
        c.finite(f("inertia"), &e, "inertia", j);
    }
    if let Some(j) = &b.inertia_tensor {
        c.finite(f("inertia_tensor"), &e, "inertia_tensor", j.as_flattened());
    }
    for (name, x) in &b.points {
        c.finite(at(&[&"bodies", &i, &"points", name]), &e, "a body point", x);
    }
    if let Some(shape) = &b.shape {
        body_shape(c, i, &e, shape);
    }
    match b.kind {
        SpatialBodyKind::Rigid => {
            if let Err((field, message)) = b.inertia_matrix() {
                c.push(f(field), &e, message, "give the principal moments `inertia = [Ixx, Iyy, Izz]` or the full `inertia_tensor` about the centroid in body axes, in kg m²".into());
            }
            if let Err((field, message)) = b.orientation.rotation() {
                let mut path = f("orientation");
                path.push(PathSeg::Key(field.into()));
                c.push(path, &e, message, "give one of `euler_parameters`, `matrix`, `axis` with `angle`, `sequence` with `angles` (docs/model-format.md)".into());
            }
        }
        SpatialBodyKind::Point => {
            let rotational = b.inertia.is_some()
                || b.inertia_tensor.is_some()
                || b.orientation != OrientationSpec::default()
                || b.angular_velocity != [0.0; 3];
            if rotational {
                c.push(
                    f("kind"),
                    &e,
                    "a point mass has no inertia, orientation or angular velocity".into(),
                    "remove them, or make the body `kind = \"rigid\"`".into(),
                );
            }
            if b.points.keys().any(|k| k != "origin") {
                c.push(
                    f("points"),
                    &e,
                    "a point mass has only its own position as a point".into(),
                    "attach elements to `origin`, or make the body rigid".into(),
                );
            }
        }
    }
}

/// A body's drawn shape: every size positive and finite.
fn body_shape(c: &mut Checker<'_>, i: usize, e: &str, shape: &ShapeSpec) {
    let sizes: Vec<(&str, f64)> = match *shape {
        ShapeSpec::Box { size } => vec![("size", size[0]), ("size", size[1]), ("size", size[2])],
        ShapeSpec::Cylinder { radius, length, .. } => vec![("radius", radius), ("length", length)],
        ShapeSpec::Sphere { radius } => vec![("radius", radius)],
    };
    for (field, x) in sizes {
        c.positive(
            at(&[&"bodies", &i, &"shape", &field]),
            e,
            field,
            x,
            "give the shape's sizes in metres, e.g. `shape = { type = \"box\", size = [0.3, 0.02, 0.02] }`",
        );
    }
}
