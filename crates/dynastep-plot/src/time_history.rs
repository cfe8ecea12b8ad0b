//! Time histories of a run folder (`dynastep plot`, `dynastep run --plot`): by default the energy
//! balance, the constraint violations and the trajectories of the markers (or, without markers,
//! of the bodies; three projections for a spatial run); or one panel per column pattern.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::canvas::{render, Figure};
use crate::panel::{Panel, Scale, Series};
use crate::run_folder::RunFolder;
use crate::PlotError;
use dynastep::io::history_table::HistoryTable;

/// Trajectories drawn at most, when the model has no markers and body origins stand in for them.
const MAX_TRAJECTORIES: usize = 8;

/// Panels stacked vertically under a title (and the note of an early stop, in red).
#[derive(Debug, Clone)]
pub struct Stack {
    /// The figure's title.
    pub title: String,
    /// Where the run stopped, if it did.
    pub note: Option<String>,
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
}

impl Figure for Stack {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let (head, body) = root.split_vertically(56);
        head.draw_text(
            &self.title,
            &("sans-serif", 22).into_font().color(&BLACK),
            (12, 6),
        )
        .map_err(err)?;
        if let Some(note) = &self.note {
            let short: String = note.chars().take(150).collect();
            head.draw_text(
                &short,
                &("sans-serif", 14).into_font().color(&RED),
                (12, 34),
            )
            .map_err(err)?;
        }
        let rows = self.rows();
        for (row, area) in rows.iter().zip(body.split_evenly((rows.len(), 1))) {
            for (panel, cell) in row.iter().zip(area.split_evenly((1, row.len()))) {
                panel.draw(&cell)?;
            }
        }
        root.present().map_err(err)
    }
}

impl Stack {
    /// The panels by rows: a panel marked `beside` joins the row of the one before it.
    fn rows(&self) -> Vec<Vec<&Panel>> {
        let mut rows: Vec<Vec<&Panel>> = Vec::new();
        for p in &self.panels {
            match rows.last_mut() {
                Some(row) if p.beside => row.push(p),
                _ => rows.push(vec![p]),
            }
        }
        rows
    }

    /// Writes the stack to `path` (.png or .svg), 1000 pixels wide, 330 per row of panels.
    ///
    /// # Errors
    /// See [`render`]; [`PlotError::Data`] when there is no panel.
    pub fn write(&self, path: &Path) -> Result<(), PlotError> {
        if self.panels.is_empty() {
            return Err(PlotError::Data("nothing to plot: no panel has data".into()));
        }
        render(self, path, (1000, 56 + 330 * self.rows().len() as u32))
    }
}

/// The series of the columns `indices` against t.
fn time_series(run: &RunFolder, indices: &[usize], abs: bool) -> Vec<Series> {
    let t = run.table.t();
    indices
        .iter()
        .map(|&i| Series {
            label: run.table.names[i].clone(),
            points: t
                .iter()
                .zip(&run.table.columns[i])
                .map(|(&t, &v)| (t, if abs { v.abs() } else { v }))
                .collect(),
        })
        .collect()
}

/// A panel of named columns against t, with the stop mark of a run that ended early.
fn time_panel(run: &RunFolder, title: &str, y: &str, indices: &[usize], scale: Scale) -> Panel {
    let mut p = Panel::new(title, "t [s]", y);
    p.y_scale = scale;
    p.series = time_series(run, indices, scale == Scale::Log);
    if run.ending.at.is_some() {
        p.stop = run.ending.at.map(|t| (t, format!("stopped at {t:.6} s")));
    }
    p
}

/// The names of the points whose trajectories are drawn: the markers of the model, else its body
/// origins (a spatial body's centroid; at most [`MAX_TRAJECTORIES`]), else every `.x`/`.y` pair
/// of the history.
fn trajectory_names(run: &RunFolder) -> Vec<String> {
    let pairs: Vec<String> = run.table.planar_points().into_iter().map(|p| p.0).collect();
    let keep = |names: Vec<String>| -> Vec<String> {
        names.into_iter().filter(|n| pairs.contains(n)).collect()
    };
    match &run.model {
        Some(m) if !m.marker_names().is_empty() => {
            keep(m.marker_names().iter().map(|k| k.to_string()).collect())
        }
        // Body origins: the frames' columns (a spatial body's centroid).
        Some(m) => keep(
            m.body_names()
                .iter()
                .map(|b| b.to_string())
                .take(MAX_TRAJECTORIES)
                .collect(),
        ),
        None => pairs.into_iter().take(MAX_TRAJECTORIES).collect(),
    }
}

/// The largest extent of the points `names` along any of x, y, z, padded by 10 % as an axis range
/// is: the least span of each view of a spatial trajectory.
fn largest_extent(table: &HistoryTable, names: &[String]) -> f64 {
    let extent = |col: &[f64]| {
        let finite = col.iter().filter(|v| v.is_finite());
        let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
        if hi > lo {
            1.1 * (hi - lo)
        } else {
            0.0
        }
    };
    ["x", "y", "z"]
        .iter()
        .flat_map(|c| names.iter().map(move |n| format!("{n}.{c}")))
        .filter_map(|column| table.column(&column).map(extent))
        .fold(0.0, f64::max)
}

/// The trajectory panels, with equal axes: y(x) of the points of [`trajectory_names`] in a planar
/// run; in a spatial run (its points have `.z` columns) three projections side by side, top
/// view y(x), front view z(x) and side view z(y). None when no point has columns.
fn trajectory_panels(run: &RunFolder) -> Vec<Panel> {
    let table = &run.table;
    let names = trajectory_names(run);
    let spatial = !names.is_empty()
        && names
            .iter()
            .all(|n| table.column(&format!("{n}.z")).is_some());
    let views: &[(&str, &str, &str)] = if spatial {
        &[
            ("Trajectories, top view (x–y)", "x", "y"),
            ("front view (x–z)", "x", "z"),
            ("side view (y–z)", "y", "z"),
        ]
    } else {
        &[("Trajectories", "x", "y")]
    };
    let extent = largest_extent(table, &names);
    let mut panels = Vec::new();
    for (k, (title, a, b)) in views.iter().enumerate() {
        let mut p = Panel::new(title, &format!("{a} [m]"), &format!("{b} [m]"));
        p.equal_aspect = true;
        p.min_span = if spatial { extent } else { 0.0 };
        p.beside = k > 0;
        for name in &names {
            if let (Some(u), Some(v)) = (
                table.column(&format!("{name}.{a}")),
                table.column(&format!("{name}.{b}")),
            ) {
                p.series.push(Series {
                    label: name.clone(),
                    points: u.iter().copied().zip(v.iter().copied()).collect(),
                });
            }
        }
        if !p.series.is_empty() {
            panels.push(p);
        }
    }
    panels
}

/// The default panels: energy balance (dynamic runs), constraint violations (log scale), the
/// trajectories of the markers (or body origins) with equal axes (y(x), or three projections
/// side by side for a spatial run), or the coordinates against t for an equation-based model.
/// Panels without data are left out.
pub fn default_panels(run: &RunFolder) -> Vec<Panel> {
    let table = &run.table;
    let mut panels = Vec::new();
    if let Some(i) = table.index("energy.balance") {
        panels.push(time_panel(
            run,
            "Energy balance E − E0 − W_nc",
            "[J]",
            &[i],
            Scale::Linear,
        ));
    }
    // A model without constraints writes zeros there: no panel (a log axis has nothing to show).
    let violations: Vec<usize> = ["position", "velocity", "acceleration"]
        .iter()
        .filter_map(|k| table.index(&format!("constraint.{k}")))
        .filter(|&i| table.columns[i].iter().any(|v| *v != 0.0))
        .collect();
    if !violations.is_empty() {
        panels.push(time_panel(
            run,
            "Constraint violation (norms of Φ, Φ_q v + Φ_t, Φ_q a − γ)",
            "[m, m/s, m/s²]",
            &violations,
            Scale::Log,
        ));
    }
    panels.extend(trajectory_panels(run));
    // An equation-based model has no bodies to draw: its coordinates against time instead.
    let coordinates: Vec<usize> = run
        .model
        .as_ref()
        .and_then(|m| m.equations.as_ref())
        .map(|e| {
            e.coordinates
                .iter()
                .filter_map(|c| table.index(c))
                .collect()
        })
        .unwrap_or_default();
    if !coordinates.is_empty() {
        panels.push(time_panel(
            run,
            "Generalized coordinates",
            "[m or rad]",
            &coordinates,
            Scale::Linear,
        ));
    }
    panels
}

/// One panel per pattern (see [`dynastep::io::history_table::HistoryTable::matching`]): the
/// matching columns against t.
///
/// # Errors
/// [`PlotError::Data`] when a pattern is invalid or matches no column (the message lists a few
/// column names).
pub fn pattern_panels(run: &RunFolder, patterns: &[String]) -> Result<Vec<Panel>, PlotError> {
    patterns
        .iter()
        .map(|p| {
            let found = run
                .table
                .matching(p)
                .map_err(|e| PlotError::Data(e.to_string()))?;
            if found.is_empty() {
                let some: Vec<&str> = run
                    .table
                    .names
                    .iter()
                    .take(12)
                    .map(String::as_str)
                    .collect();
                return Err(PlotError::Data(format!(
                    "no column of {}/history.csv matches `{p}`; columns are e.g. {}",
                    run.dir.display(),
                    some.join(", ")
                )));
            }
            Ok(time_panel(run, p, "", &found, Scale::Linear))
        })
        .collect()
}

/// The stack of `panels` for `run`, titled with its model and its early stop.
pub fn stack(run: &RunFolder, panels: Vec<Panel>) -> Stack {
    Stack {
        title: run.title.clone(),
        note: run.stop_note(),
        panels,
    }
}
