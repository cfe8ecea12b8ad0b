//! `dynastep plot`, `dynastep animate` and `dynastep export`: drawings of a run folder and its
//! motion for other viewers (see the crate dynastep-plot).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use dynastep_plot::animation::write_player;
use dynastep_plot::gltf_export::write_gltf;
use dynastep_plot::run_folder::RunFolder;
use dynastep_plot::time_history::{default_panels, pattern_panels, stack};
use dynastep_plot::vtk_export::write_vtk;

#[derive(Args)]
pub struct PlotArgs {
    /// The run folder (with history.csv; summary.json and model.json when present).
    pub dir: PathBuf,
    /// One panel per pattern of column names against t, e.g. `--columns 'crank*.theta' --columns
    /// energy.*` (shell-style: *, ?, [..]); default: energy balance, constraint violations and
    /// marker trajectories.
    #[arg(long = "columns", value_name = "PATTERN")]
    pub columns: Vec<String>,
    /// File name stem of the charts, written as STEM.png and STEM.svg in the run folder.
    #[arg(long, default_value = "plot")]
    pub name: String,
}

#[derive(Args)]
pub struct AnimateArgs {
    /// The run folder (with history.csv and model.json).
    pub dir: PathBuf,
    /// The HTML file to write (default: DIR/animation.html).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The formats `dynastep export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// glTF 2.0, binary (.glb): one node per body with its shape, one animation of every row.
    #[value(alias = "glb")]
    Gltf,
    /// VTK time series for ParaView (.pvd + one .vtu per row), in double precision.
    #[value(alias = "pvd", alias = "vtu")]
    Vtk,
}

/// `dynastep export`: where and how to write a spatial run's motion.
#[derive(Args)]
pub struct ExportArgs {
    /// The run folder of a spatial run (with history.csv and model.json).
    pub dir: PathBuf,
    /// The format.
    #[arg(long, value_enum, default_value = "gltf")]
    pub format: ExportFormat,
    /// The file to write (default: DIR/motion.glb, or DIR/motion.pvd with its frames in
    /// DIR/motion/).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Draws the panels of `dir` into STEM.png and STEM.svg there; returns the PNG's path and the note
/// of an early stop.
pub fn plot_folder(
    dir: &Path,
    columns: &[String],
    stem: &str,
) -> Result<(PathBuf, Option<String>)> {
    let run = RunFolder::open(dir).map_err(|e| anyhow!("{e}"))?;
    let panels = if columns.is_empty() {
        default_panels(&run)
    } else {
        pattern_panels(&run, columns).map_err(|e| anyhow!("{e}"))?
    };
    let figure = stack(&run, panels);
    let png = dir.join(format!("{stem}.png"));
    figure.write(&png).map_err(|e| anyhow!("{e}"))?;
    figure
        .write(&dir.join(format!("{stem}.svg")))
        .map_err(|e| anyhow!("{e}"))?;
    Ok((png, run.stop_note()))
}

pub fn plot(args: PlotArgs) -> Result<ExitCode> {
    let (png, note) = plot_folder(&args.dir, &args.columns, &args.name)?;
    if let Some(note) = note {
        eprintln!("note: {note}; the charts show the history up to there");
    }
    eprintln!(
        "wrote {} and {}.svg",
        png.display(),
        png.with_extension("").display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn animate(args: AnimateArgs) -> Result<ExitCode> {
    let run = RunFolder::open(&args.dir).map_err(|e| anyhow!("{e}"))?;
    let out = args.out.unwrap_or_else(|| args.dir.join("animation.html"));
    write_player(&run, &out).map_err(|e| anyhow!("{e}"))?;
    if let Some(note) = run.stop_note() {
        eprintln!("note: {note}; the animation plays the history up to there");
    }
    eprintln!("wrote {} (open it in a web browser)", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes the motion of the run in `args.dir` in the chosen format, and says what it wrote.
pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let run = RunFolder::open(&args.dir).map_err(|e| anyhow!("{e}"))?;
    let (done, out, viewer) = match args.format {
        ExportFormat::Gltf => {
            let out = args.out.unwrap_or_else(|| args.dir.join("motion.glb"));
            (write_gltf(&run, &out), out, "Blender or any glTF viewer")
        }
        ExportFormat::Vtk => {
            let out = args.out.unwrap_or_else(|| args.dir.join("motion.pvd"));
            (write_vtk(&run, &out), out, "ParaView")
        }
    };
    let done = done.map_err(|e| anyhow!("{e}"))?;
    if let Some(note) = run.stop_note() {
        eprintln!("note: {note}; the export holds the history up to there");
    }
    if done.dropped > 0 {
        eprintln!(
            "note: the last {} rows of history.csv are left out (not finite, or not later than the row before)",
            done.dropped
        );
    }
    eprintln!(
        "wrote {} ({} bodies, {} frames; open it in {viewer})",
        out.display(),
        done.bodies,
        done.frames
    );
    Ok(ExitCode::SUCCESS)
}
