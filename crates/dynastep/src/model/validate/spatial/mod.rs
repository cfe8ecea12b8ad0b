//! The rules of a `[spatial]` model: names, inertia and orientation of bodies, joint axes, the
//! bodies each joint kind accepts, spring–dampers and markers. Every path starts with `spatial`.
//! This file walks the table and holds the rules every element shares (unique names, references
//! to bodies, points and directions); each element kind has its own file of rules beside it.

use std::collections::BTreeMap;

use super::super::geometry::{is_usable_length, MIN_LENGTH};
use super::super::spatial::*;
use super::super::types::{
    Axes, Coordinate, DriverKind, DriverSpec, ForceSpec, JointMotion, MarkerSpec, Model, GROUND,
};
use super::checker::{label, p, AsSeg, Checker};
use super::{suggest, PathSeg};

mod beams;
mod bodies;
mod drivers;
mod forces;
mod joints;
mod markers;

use beams::beams;
use bodies::bodies;
use drivers::driver;
use forces::force;
use joints::joint;
use markers::marker;

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
    let explicit = s.bodies.len();
    let x = s.with_beam_nodes();
    let unplaced = beams::unplaced_nodes(s);
    let mut names = bodies(c, &x.bodies[..explicit]);
    beams(c, s, &mut names, explicit, &x.bodies[explicit..], &unplaced);
    let s = &*x;
    let mut joint_names = Names::new();
    for (i, j) in s.joints.iter().enumerate() {
        unique(c, &mut joint_names, "joints", "joint", i, &j.name);
        joint(c, s, &names, i, j);
    }
    let mut driver_names = Names::new();
    for (i, d) in s.drivers.iter().enumerate() {
        unique(c, &mut driver_names, "drivers", "driver", i, &d.name);
        driver(c, s, &names, i, d);
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
        // A node of a beam whose geometry is refused has no body to look in (and no points).
        Some((i, _)) => match s.bodies.get(i) {
            Some(b) => (
                b.points.keys().map(String::as_str).collect(),
                format!("body `{}`", b.name),
            ),
            None => (Vec::new(), "a beam node".into()),
        },
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
