//! The 3-D player of a spatial run (`dynastep animate`): one self-contained HTML file
//! (`assets/player3d.html`) whose own Canvas 2-D renderer draws the bodies as shaded boxes,
//! the joints at their points with their axes, spring–dampers, and markers with their trails,
//! under a camera that orbits, zooms and pans with the mouse.
//!
//! The page receives each body's mesh in body axes ([`crate::shape`]) and its pose (centroid
//! and Euler parameters) at every frame; joints, springs and markers as points and directions
//! fixed in a body ([`crate::spatial_scene`]), placed by the page at each frame. At most
//! [`MAX_FRAMES`] frames are kept, evenly spaced, and written with 7 significant digits (far
//! below a pixel), so that a page stays around 2 MB.

use std::path::Path;

use serde_json::{json, Value};

use crate::animation::{frame_rows, MAX_FRAMES};
use crate::run_folder::RunFolder;
use crate::shape::BodyShape;
use crate::spatial_scene::{Attachment, SpatialScene};
use crate::PlotError;

/// The 3-D player's template; its placeholder takes the data.
const TEMPLATE: &str = include_str!("../assets/player3d.html");

/// The text in the template that the data replace.
const PLACEHOLDER: &str = "/*DYNASTEP_DATA*/null";

/// `x` rounded to 7 significant digits, so that its JSON text is short (non-finite values stay:
/// they are written as null).
fn short(x: f64) -> f64 {
    if x.is_finite() {
        format!("{x:.6e}").parse().unwrap_or(x)
    } else {
        x
    }
}

/// An attachment as the page reads it: [body index or −1 for the ground, x, y, z].
fn attachment(a: &Attachment) -> Value {
    let b = a.body.map_or(-1, |b| b as i64);
    json!([b, short(a.local[0]), short(a.local[1]), short(a.local[2])])
}

/// The column `name` at `rows`, if the history has it.
fn column_at(run: &RunFolder, name: &str, rows: &[usize]) -> Option<Vec<f64>> {
    run.table
        .column(name)
        .map(|c| rows.iter().map(|&k| c[k]).collect())
}

/// The points of body `b` where joints, springs and markers attach outside its shape, each
/// once: the page joins them to the centroid with a stick, so that a body reaches its joints.
fn sticks(scene: &SpatialScene, b: usize) -> Vec<[f64; 3]> {
    let joints = scene.joints.iter().flat_map(|j| [j.at, j.other]);
    let springs = scene.springs.iter().flat_map(|s| s.1);
    let markers = scene.markers.iter().map(|m| m.1);
    let mut out: Vec<[f64; 3]> = Vec::new();
    for a in joints.chain(springs).chain(markers) {
        if a.body == Some(b) && !scene.bodies[b].shape.contains(a.local) && !out.contains(&a.local)
        {
            out.push(a.local);
        }
    }
    out
}

/// The 3-D player's data for a spatial `run` (see `assets/player3d.html` for the fields).
///
/// # Errors
/// [`PlotError::Data`] when the folder has no `model.json`, the model is not spatial, or the
/// history lacks a body's columns.
pub fn player3d_data(run: &RunFolder) -> Result<Value, PlotError> {
    let rows = frame_rows(run.table.rows());
    let scene = SpatialScene::read(run, &rows, "the 3-D player")?;
    let bodies: Vec<Value> = scene
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mesh = b.shape.mesh();
            let kind = match b.shape {
                BodyShape::Box { .. } => "box",
                BodyShape::Sphere { .. } => "sphere",
                BodyShape::Cylinder { .. } => "cylinder",
            };
            let vertices: Vec<f64> = mesh.vertices.iter().flatten().map(|&x| short(x)).collect();
            let pose: Vec<f64> = b.poses.iter().flatten().map(|&x| short(x)).collect();
            let sticks: Vec<f64> = sticks(&scene, i)
                .iter()
                .flatten()
                .map(|&x| short(x))
                .collect();
            json!({"name": b.name, "shape": kind, "point": !b.rigid, "vertices": vertices,
                   "faces": mesh.faces, "sticks": sticks, "pose": pose})
        })
        .collect();
    let joints: Vec<Value> = scene
        .joints
        .iter()
        .map(|j| {
            let kind = serde_json::to_value(j.kind).unwrap_or(Value::Null);
            let axes: Vec<Value> = j.axes.iter().map(attachment).collect();
            json!({"name": j.name, "kind": kind, "at": attachment(&j.at),
                   "other": attachment(&j.other), "axes": axes})
        })
        .collect();
    let springs: Vec<Value> = scene
        .springs
        .iter()
        .map(|(name, [a, b])| json!({"name": name, "a": attachment(a), "b": attachment(b)}))
        .collect();
    let markers: Vec<Value> = scene
        .markers
        .iter()
        .map(|(name, a)| json!({"name": name, "at": attachment(a)}))
        .collect();
    let (centre, radius) = scene.bounds();
    Ok(json!({
        "title": run.title,
        "t": scene.t,
        "rows": run.table.rows(),
        "max_frames": MAX_FRAMES,
        "energy_error": column_at(run, "energy.balance", &rows),
        "violation": column_at(run, "constraint.position", &rows),
        "up": scene.up,
        "centre": centre,
        "radius": radius,
        "ground": scene.ground,
        "bodies": bodies,
        "joints": joints,
        "springs": springs,
        "markers": markers,
        "stopped": run.stop_note(),
    }))
}

/// The 3-D page for `data`: the template with the data substituted, every `<` of the JSON
/// written `\u003c` so that no text of the model can close or open a script element.
pub fn page3d(data: &Value) -> String {
    crate::embed(TEMPLATE, PLACEHOLDER, data)
}

/// Writes the 3-D player of a spatial `run` to `path`.
///
/// # Errors
/// See [`player3d_data`]; [`PlotError::Io`] when the file cannot be written.
pub fn write_player3d(run: &RunFolder, path: &Path) -> Result<(), PlotError> {
    crate::write_file(path, page3d(&player3d_data(run)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_has_one_placeholder_and_numbers_are_short() {
        assert_eq!(TEMPLATE.matches(PLACEHOLDER).count(), 1);
        let html = page3d(&json!({"title": "</script>"}));
        assert!(html.contains("\\u003c/script>") && !html.contains(PLACEHOLDER));
        assert_eq!(short(0.123_456_789_012), 0.123_456_8);
        assert_eq!(short(-1.0e-12 / 3.0), -3.333_333e-13);
        assert!(short(f64::NAN).is_nan());
    }
}
