//! The rules of a `[spatial]` model: names, inertia and orientation of bodies, joint axes, the
//! bodies each joint kind accepts, spring–dampers and markers. Every path starts with `spatial`.

use std::collections::BTreeMap;

use super::super::geometry::{is_usable_length, MIN_LENGTH};
use super::super::spatial::*;
use super::super::types::{Model, GROUND};
use super::checker::{label, p, AsSeg, Checker};
use super::{suggest, PathSeg};

/// Shortest axis accepted as a direction \[-\].
const MIN_AXIS: f64 = 1e-12;

/// Body name → (index, kind).
type Names<'m> = BTreeMap<&'m str, (usize, SpatialBodyKind)>;

fn at(segs: &[&dyn AsSeg]) -> Vec<PathSeg> {
    let mut v = p(&[&"spatial"]);
    v.extend(p(segs));
    v
}

/// Checks the `[spatial]` table, and that the planar tables are empty beside it.
pub(super) fn check(c: &mut Checker<'_>, model: &Model, s: &SpatialSpec) {
    no_planar_tables(c, model);
    c.finite(at(&[&"gravity"]), "", "gravity", &s.gravity);
    if model.gravity != [0.0, 0.0] {
        c.push(
            p(&[&"gravity"]),
            "",
            "a spatial model does not apply the top-level (planar) `gravity`".into(),
            format!(
                "give it in the [spatial] table as three components, e.g. `gravity = [{}, {}, 0.0]` under `[spatial]`, and remove the top-level `gravity`",
                model.gravity[0], model.gravity[1]
            ),
        );
    }
    for (name, x) in &s.ground {
        c.finite(at(&[&"ground", name]), "ground", "a ground point", x);
    }
    let names = bodies(c, s);
    let mut joint_names = Names::new();
    for (i, j) in s.joints.iter().enumerate() {
        unique(c, &mut joint_names, "joints", "joint", i, &j.name);
        joint(c, s, &names, i, j);
    }
    let mut driver_names = Names::new();
    for (i, d) in s.drivers.iter().enumerate() {
        unique(c, &mut driver_names, "drivers", "driver", i, &d.name);
        driver(c, s, i, d);
    }
    let mut force_names = Names::new();
    for (i, f) in s.forces.iter().enumerate() {
        unique(c, &mut force_names, "forces", "force", i, f.name());
        force(c, s, &names, i, f);
    }
    let mut marker_names = Names::new();
    for (i, mk) in s.markers.iter().enumerate() {
        unique(c, &mut marker_names, "markers", "marker", i, &mk.name);
        marker(c, s, &names, i, mk);
    }
}

/// The planar tables (`bodies`, `joints`, …) must be empty beside `[spatial]`.
fn no_planar_tables(c: &mut Checker<'_>, model: &Model) {
    let planar = [
        ("bodies", model.bodies.is_empty()),
        ("joints", model.joints.is_empty()),
        ("drivers", model.drivers.is_empty()),
        ("forces", model.forces.is_empty()),
        ("markers", model.markers.is_empty()),
        ("equations", model.equations.is_none()),
    ];
    for (table, empty) in planar {
        if !empty {
            c.push(
                p(&[&table]),
                "",
                format!("a spatial model cannot also have planar `{table}`"),
                format!("move them under [spatial] (`[[spatial.{table}]]`), or remove [spatial]"),
            );
        }
    }
}

/// One marker: a name no body has, a known angle sequence, a point of a known body.
fn marker(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &Names<'_>,
    i: usize,
    mk: &SpatialMarkerSpec,
) {
    let e = label("marker", "spatial.markers", i, &mk.name);
    if s.bodies.iter().any(|b| b.name == mk.name) {
        c.push(
            at(&[&"markers", &i, &"name"]),
            &e,
            format!("marker `{}` has the name of a body; their columns `{0}.x`, `{0}.y`, … in the time history would collide", mk.name),
            format!("rename the marker (e.g. `{}_marker`) or the body", mk.name),
        );
    }
    if let Some(seq) = mk.angles.as_deref().filter(|s| sequence_axes(s).is_none()) {
        c.push(
            at(&[&"markers", &i, &"angles"]),
            &e,
            not_a_sequence(seq),
            "e.g. `angles = \"zxz\"`".into(),
        );
    }
    if let Some(b) = body_ref(c, names, at(&[&"markers", &i, &"body"]), &e, &mk.body) {
        point_ref(
            c,
            s,
            b,
            at(&[&"markers", &i, &"point"]),
            &e,
            mk.point.as_deref(),
        );
    }
}

/// Records a name, refusing empty and duplicate ones.
fn unique<'m>(
    c: &mut Checker<'_>,
    seen: &mut Names<'m>,
    array: &str,
    kind: &str,
    i: usize,
    name: &'m str,
) {
    let path = at(&[&array, &i, &"name"]);
    let entity = label(kind, &format!("spatial.{array}"), i, name);
    if name.is_empty() {
        c.push(
            path,
            &entity,
            format!("the {kind} name is empty"),
            format!("give each {kind} a unique, non-empty name"),
        );
    } else if let Some((first, _)) = seen.get(name) {
        c.push(
            path,
            &entity,
            format!("duplicate {kind} name `{name}` (also spatial.{array}[{first}])"),
            format!("rename one of them: {kind} names must be unique"),
        );
    } else {
        seen.insert(name, (i, SpatialBodyKind::Rigid));
    }
}

fn bodies<'m>(c: &mut Checker<'_>, s: &'m SpatialSpec) -> Names<'m> {
    let mut names = Names::new();
    for (i, b) in s.bodies.iter().enumerate() {
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

/// A body reference: `Some(None)` for the ground, `Some(Some(kind))` for a body.
fn body_ref(
    c: &mut Checker<'_>,
    names: &Names<'_>,
    path: Vec<PathSeg>,
    entity: &str,
    name: &str,
) -> Option<Option<(usize, SpatialBodyKind)>> {
    if name == GROUND {
        return Some(None);
    }
    match names.get(name) {
        Some(&b) => Some(Some(b)),
        None => {
            let mut known: Vec<&str> = names.keys().copied().collect();
            known.push(GROUND);
            c.push(
                path,
                entity,
                format!("unknown body `{name}`"),
                suggest(name, &known, "known bodies"),
            );
            None
        }
    }
}

fn point_ref(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    body: Option<(usize, SpatialBodyKind)>,
    path: Vec<PathSeg>,
    entity: &str,
    point: Option<&str>,
) {
    let point = point.unwrap_or("origin");
    if point == "origin" {
        return;
    }
    let (points, whose): (Vec<&str>, String) = match body {
        None => (
            s.ground.keys().map(String::as_str).collect(),
            "the ground".into(),
        ),
        Some((i, _)) => (
            s.bodies[i].points.keys().map(String::as_str).collect(),
            format!("body `{}`", s.bodies[i].name),
        ),
    };
    if !points.contains(&point) {
        let mut known = points.clone();
        known.push("origin");
        c.push(
            path,
            entity,
            format!("{whose} has no point `{point}`"),
            suggest(point, &known, &format!("points of {whose}")),
        );
    }
}

/// Checks a direction: present when required, finite and not degenerate.
fn direction(
    c: &mut Checker<'_>,
    path: Vec<PathSeg>,
    entity: &str,
    what: &str,
    axis: Option<[f64; 3]>,
    required: bool,
) -> Option<nalgebra::Vector3<f64>> {
    match axis {
        None if required => {
            c.push(path, entity, format!("this joint needs `{what}`"), format!("add `{what} = [x, y, z]`, a direction in global axes at the initial configuration"));
            None
        }
        None => None,
        Some(a) => {
            let v = nalgebra::Vector3::from(a);
            if !(v.norm() > MIN_AXIS && v.norm().is_finite()) {
                c.push(
                    path,
                    entity,
                    format!(
                        "the joint axis `{what}` = {a:?} is degenerate (zero length or not finite)"
                    ),
                    "give a direction with non-zero length, e.g. [0, 0, 1]".into(),
                );
                return None;
            }
            Some(v.normalize())
        }
    }
}

/// One joint: two different bodies, its point, its axes or frames, the bodies its kind accepts and
/// a distance joint's length.
fn joint(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, j: &SpatialJointSpec) {
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

/// One spring–damper, force or torque, by kind.
fn force(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, f: &SpatialForceSpec) {
    match f {
        SpatialForceSpec::Tsda { .. } => tsda(c, s, names, i, f),
        SpatialForceSpec::Rsda { .. } => rsda(c, s, i, f),
        SpatialForceSpec::Force { .. } => load(c, s, names, i, f),
        SpatialForceSpec::Torque { .. } => torque(c, names, i, f),
    }
}

/// A rotational spring–damper: about the axis of a revolute or cylindrical joint, finite values.
fn rsda(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, f: &SpatialForceSpec) {
    let SpatialForceSpec::Rsda {
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
fn load(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, f: &SpatialForceSpec) {
    let SpatialForceSpec::Force {
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
    for (field, f) in [("fx", fx), ("fy", fy), ("fz", fz)] {
        if let Some(f) = f {
            c.function(path(field), &e, f);
        }
    }
}

/// An applied torque: on a moving rigid body (a point mass does not rotate).
fn torque(c: &mut Checker<'_>, names: &Names<'_>, i: usize, f: &SpatialForceSpec) {
    let SpatialForceSpec::Torque {
        name,
        body,
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
    for (field, f) in [("tx", tx), ("ty", ty), ("tz", tz)] {
        if let Some(f) = f {
            c.function(path(field), &e, f);
        }
    }
}

/// The body an applied load acts on: a moving body (not the ground).
fn load_body(
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

/// The rules of a driver: a revolute, prismatic or cylindrical joint and a motion it allows.
fn driver(c: &mut Checker<'_>, s: &SpatialSpec, i: usize, d: &SpatialDriverSpec) {
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

fn tsda(c: &mut Checker<'_>, s: &SpatialSpec, names: &Names<'_>, i: usize, f: &SpatialForceSpec) {
    let SpatialForceSpec::Tsda {
        name,
        body_i,
        point_i,
        body_j,
        point_j,
        stiffness,
        free_length,
        damping,
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
