//! The HTML player of a run (`dynastep animate`): one self-contained file, its JavaScript inlined
//! (`assets/player.html`), that plays the mechanism with play/pause, a time slider and a speed
//! control, and shows the time and the energy error. A spatial run goes to the 3-D player
//! ([`crate::player3d`]); an equation-based run, which has no bodies, gets its coordinates drawn
//! against time with a cursor at the frame.
//!
//! The drawing is computed here from the model (`model.json`) and the history: each body is the
//! polyline of its named points in world coordinates at every frame (two points: a bar; three or
//! more: the polygon of its points ordered by angle about their mean; none: its frame origin),
//! a point mass a disk, each joint a circle at its point on body j, each TSDA spring a zig-zag
//! between its two points, each marker its trace. At most [`MAX_FRAMES`] frames are kept, evenly
//! spaced, so that the page stays light.

use std::path::Path;

use dynastep::model::{BodyKind, ForceSpec, Model, GROUND};
use serde_json::json;

use crate::run_folder::RunFolder;
use crate::PlotError;

/// Most frames written into the page.
pub const MAX_FRAMES: usize = 5000;

/// The player's template; its placeholder takes the data.
const TEMPLATE: &str = include_str!("../assets/player.html");

/// The text in the template that the data replace.
const PLACEHOLDER: &str = "/*DYNASTEP_DATA*/null";

/// A body's pose at every frame, and how to map its local points.
struct Poses<'a> {
    x: &'a [f64],
    y: &'a [f64],
    theta: Option<&'a [f64]>,
}

impl Poses<'_> {
    /// The world position of the local point `p` at row `k`.
    fn world(&self, k: usize, p: [f64; 2]) -> [f64; 2] {
        let th = self.theta.map_or(0.0, |t| t[k]);
        let (s, c) = th.sin_cos();
        [
            self.x[k] + c * p[0] - s * p[1],
            self.y[k] + s * p[0] + c * p[1],
        ]
    }
}

/// The local points drawn for a body, in drawing order (see the module documentation).
fn outline(points: &std::collections::BTreeMap<String, [f64; 2]>) -> Vec<[f64; 2]> {
    let mut pts: Vec<[f64; 2]> = points.values().copied().collect();
    if pts.len() >= 3 {
        let n = pts.len() as f64;
        let cx = pts.iter().map(|p| p[0]).sum::<f64>() / n;
        let cy = pts.iter().map(|p| p[1]).sum::<f64>() / n;
        pts.sort_by(|a, b| {
            (a[1] - cy)
                .atan2(a[0] - cx)
                .total_cmp(&(b[1] - cy).atan2(b[0] - cx))
        });
        pts.push(pts[0]);
    }
    if pts.is_empty() {
        pts.push([0.0, 0.0]);
    }
    pts
}

/// Resolves a (body, point) reference of the model to a function of the frame.
struct Resolver<'a> {
    model: &'a Model,
    run: &'a RunFolder,
}

impl Resolver<'_> {
    fn poses(&self, body: &str) -> Result<Poses<'_>, PlotError> {
        let col = |k: &str| self.run.table.column(&format!("{body}.{k}"));
        match (col("x"), col("y")) {
            (Some(x), Some(y)) => Ok(Poses {
                x,
                y,
                theta: col("theta"),
            }),
            _ => Err(PlotError::Data(format!(
                "{}/history.csv has no columns {body}.x, {body}.y for body `{body}` of model.json; if the run selected its columns ([solver] output_columns), run it again with the bodies' columns among them",
                self.run.dir.display()
            ))),
        }
    }

    fn local(&self, body: &str, point: Option<&str>) -> [f64; 2] {
        let Some(name) = point.filter(|p| *p != "origin") else {
            return [0.0, 0.0];
        };
        let points = if body == GROUND {
            Some(&self.model.ground.points)
        } else {
            self.model
                .bodies
                .iter()
                .find(|b| b.name == body)
                .map(|b| &b.points)
        };
        points
            .and_then(|p| p.get(name))
            .copied()
            .unwrap_or([0.0, 0.0])
    }

    /// The world position of `point` of `body` at each of `rows`, flat (x, y, x, y, …).
    fn track(
        &self,
        body: &str,
        point: Option<&str>,
        rows: &[usize],
    ) -> Result<Vec<f64>, PlotError> {
        let p = self.local(body, point);
        if body == GROUND {
            return Ok(rows.iter().flat_map(|_| p).collect());
        }
        let poses = self.poses(body)?;
        Ok(rows.iter().flat_map(|&k| poses.world(k, p)).collect())
    }
}

/// The rows kept as frames: all, or [`MAX_FRAMES`] evenly spaced including the last.
pub(crate) fn frame_rows(rows: usize) -> Vec<usize> {
    if rows <= MAX_FRAMES {
        return (0..rows).collect();
    }
    let mut v: Vec<usize> = (0..MAX_FRAMES)
        .map(|i| i * (rows - 1) / (MAX_FRAMES - 1))
        .collect();
    v.dedup();
    v
}

/// The player's data for `run` (see `assets/player.html` for the fields): a planar run's
/// mechanism, or an equation-based run's coordinates against time (it has no bodies to draw).
///
/// # Errors
/// [`PlotError::Data`] when the folder has no `model.json`, the model is spatial (see
/// [`write_player`]), or the history lacks a body's columns.
pub fn player_data(run: &RunFolder) -> Result<serde_json::Value, PlotError> {
    let model = run.model.as_ref().ok_or_else(|| {
        PlotError::Data(format!(
            "{} has no model.json (written by `dynastep run` since version 0.1 with this command); run the model again",
            run.dir.display()
        ))
    })?;
    use dynastep::model::inventory::ModelKind;
    match model.kind() {
        ModelKind::Planar => {}
        ModelKind::Equations => return Ok(coordinates_data(run, model)),
        ModelKind::Spatial => {
            return Err(PlotError::Data(format!(
                "{} holds a spatial model, which the planar player does not draw; `write_player` sends it to the 3-D player",
                run.dir.display()
            )))
        }
    }
    let r = Resolver { model, run };
    let rows = frame_rows(run.table.rows());
    let t = run.table.t();
    let mut bodies = Vec::new();
    for b in &model.bodies {
        let poses = r.poses(&b.name)?;
        let local = if b.kind == BodyKind::Point {
            vec![[0.0, 0.0]]
        } else {
            outline(&b.points)
        };
        let path: Vec<Vec<f64>> = rows
            .iter()
            .map(|&k| local.iter().flat_map(|&p| poses.world(k, p)).collect())
            .collect();
        bodies.push(json!({"name": b.name, "point": b.kind == BodyKind::Point, "path": path}));
    }
    let mut joints = Vec::new();
    for j in &model.joints {
        let xy = r.track(&j.body_j, j.point_j.as_deref(), &rows)?;
        joints.push(json!({"name": j.name, "xy": xy}));
    }
    let mut springs = Vec::new();
    for f in &model.forces {
        if let ForceSpec::Tsda {
            name,
            body_i,
            point_i,
            body_j,
            point_j,
            ..
        } = f
        {
            let a = r.track(body_i, point_i.as_deref(), &rows)?;
            let b = r.track(body_j, point_j.as_deref(), &rows)?;
            let xy: Vec<f64> = a
                .chunks(2)
                .zip(b.chunks(2))
                .flat_map(|(a, b)| [a[0], a[1], b[0], b[1]])
                .collect();
            springs.push(json!({"name": name, "xy": xy}));
        }
    }
    let mut markers = Vec::new();
    for m in &model.markers {
        if let (Some(x), Some(y)) = (
            run.table.column(&format!("{}.x", m.name)),
            run.table.column(&format!("{}.y", m.name)),
        ) {
            let xy: Vec<f64> = rows.iter().flat_map(|&k| [x[k], y[k]]).collect();
            markers.push(json!({"name": m.name, "xy": xy}));
        }
    }
    let ground: Vec<[f64; 2]> = model.ground.points.values().copied().collect();
    let bounds = bounds(&bodies, &ground);
    let energy = run
        .table
        .column("energy.balance")
        .map(|e| rows.iter().map(|&k| e[k]).collect::<Vec<f64>>());
    Ok(json!({
        "title": run.title,
        "t": rows.iter().map(|&k| t[k]).collect::<Vec<f64>>(),
        "energy_error": energy,
        "bounds": bounds,
        "ground": ground,
        "bodies": bodies,
        "joints": joints,
        "springs": springs,
        "markers": markers,
        "stopped": run.stop_note(),
    }))
}

/// The player's data for an equation-based run: each generalized coordinate's values at the
/// frames, which the page draws against time with a cursor at the frame (no bodies).
fn coordinates_data(run: &RunFolder, model: &Model) -> serde_json::Value {
    let rows = frame_rows(run.table.rows());
    let t = run.table.t();
    let names = model
        .equations
        .as_ref()
        .map(|e| e.coordinates.clone())
        .unwrap_or_default();
    let coordinates: Vec<serde_json::Value> = names
        .iter()
        .filter_map(|name| {
            let c = run.table.column(name)?;
            let values: Vec<f64> = rows.iter().map(|&k| c[k]).collect();
            Some(json!({"name": name, "values": values}))
        })
        .collect();
    let energy = run
        .table
        .column("energy.balance")
        .map(|e| rows.iter().map(|&k| e[k]).collect::<Vec<f64>>());
    json!({
        "title": run.title,
        "t": rows.iter().map(|&k| t[k]).collect::<Vec<f64>>(),
        "energy_error": energy,
        "bounds": [0.0, 0.0, 1.0, 1.0],
        "bodies": [],
        "coordinates": coordinates,
        "stopped": run.stop_note(),
    })
}

/// The box covering every body point of every frame and the ground points, padded by 5 % (and at
/// least 0.05 m).
fn bounds(bodies: &[serde_json::Value], ground: &[[f64; 2]]) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut add = |x: f64, y: f64| {
        if x.is_finite() && y.is_finite() {
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
    };
    for g in ground {
        add(g[0], g[1]);
    }
    for body in bodies {
        for frame in body["path"].as_array().into_iter().flatten() {
            let v: Vec<f64> = frame
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_f64())
                .collect();
            for p in v.chunks(2).filter(|p| p.len() == 2) {
                add(p[0], p[1]);
            }
        }
    }
    if b[0] > b[2] {
        return [-1.0, -1.0, 1.0, 1.0];
    }
    let pad = (0.05 * (b[2] - b[0]).max(b[3] - b[1])).max(0.05);
    [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
}

/// The page for `data`: the template with the data substituted. Every `<` of the JSON becomes
/// `\u003c`, so that no text of the model can close or open a script element.
pub fn page(data: &serde_json::Value) -> String {
    crate::embed(TEMPLATE, PLACEHOLDER, data)
}

/// Writes the player of `run` to `path`: the planar player for a planar run, the 3-D player
/// ([`crate::player3d`]) for a spatial one.
///
/// # Errors
/// See [`player_data`] and [`crate::player3d::player3d_data`]; [`PlotError::Io`] when the file
/// cannot be written.
pub fn write_player(run: &RunFolder, path: &Path) -> Result<(), PlotError> {
    if run
        .model
        .as_ref()
        .is_some_and(|m| m.kind() == dynastep::model::inventory::ModelKind::Spatial)
    {
        return crate::player3d::write_player3d(run, path);
    }
    crate::write_file(path, page(&player_data(run)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_has_one_placeholder_and_escapes_markup() {
        assert_eq!(TEMPLATE.matches(PLACEHOLDER).count(), 1);
        let html = page(&json!({"title": "</script><!--<script>"}));
        assert!(!html.contains(PLACEHOLDER));
        assert!(html.contains("\\u003c/script>\\u003c!--\\u003cscript>"));
    }

    #[test]
    fn outlines_and_frames() {
        let mut pts = std::collections::BTreeMap::new();
        assert_eq!(outline(&pts), vec![[0.0, 0.0]]);
        pts.insert("A".into(), [-0.5, 0.0]);
        pts.insert("B".into(), [0.5, 0.0]);
        assert_eq!(outline(&pts).len(), 2);
        pts.insert("C".into(), [0.0, 1.0]);
        let o = outline(&pts);
        assert_eq!((o.len(), o[0]), (4, o[3]));
        assert_eq!(frame_rows(3), vec![0, 1, 2]);
        let f = frame_rows(20_001);
        assert_eq!((f.len(), f[0], f[f.len() - 1]), (MAX_FRAMES, 0, 20_000));
    }
}
