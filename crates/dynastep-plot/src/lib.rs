//! Drawing for dynastep: charts (PNG and SVG, through `plotters`) and the self-contained HTML player
//! of a run. Output, not analysis: the core library `dynastep` computes, this crate draws what it
//! computed or what a run folder holds, so that the core does not pull in a plotting stack.
//!
//! | module | draws |
//! |---|---|
//! | [`stability`] | spectral radius and period elongation of schemes (`dynastep stability`) |
//! | [`run_folder`] | reads a run folder: `history.csv`, `summary.json`, `model.json` |
//! | [`panel`] | one panel: labelled series on linear or log axes |
//! | [`time_history`] | time histories of a run (`dynastep plot`, `run --plot`) |
//! | [`work_precision`] | error against cost of several methods (`dynastep compare`) |
//! | [`animation`] | the HTML player of a run (`dynastep animate`); planar runs |
//! | [`player3d`] | the 3-D HTML player of a spatial run |
//! | [`spatial_scene`], [`shape`] | a spatial run as bodies with shapes and poses, joints, springs, markers |
//! | [`gltf_export`] | a spatial run's motion as animated glTF 2.0 (`dynastep export`) |
//! | [`vtk_export`] | a spatial run's motion as a VTK time series for ParaView, in double precision |
//!
//! Text in charts uses the embedded DejaVu Sans font ([`canvas`]), so no system fonts are needed.

pub mod animation;
pub mod canvas;
pub mod gltf_export;
pub mod panel;
pub mod player3d;
pub mod run_folder;
pub mod shape;
pub mod spatial_scene;
pub mod stability;
pub mod time_history;
pub mod vtk_export;
pub mod work_precision;

/// Errors of the drawing functions.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output file's extension is neither `.png` nor `.svg` (or `.html` for the player).
    #[error("{0}")]
    Format(String),
    /// There is nothing to draw, or the data are inconsistent (the message says which).
    #[error("{0}")]
    Data(String),
    /// Drawing or encoding the chart failed.
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The chart file.
        path: String,
        /// What plotters reported.
        message: String,
    },
    /// Reading a CSV file failed.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: String,
        /// The parser's error.
        source: csv::Error,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
}

impl PlotError {
    /// The error of reading or writing `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        PlotError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Writes `bytes` to `path`, a failure as [`PlotError::Io`] naming the file.
pub(crate) fn write_file(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> Result<(), PlotError> {
    std::fs::write(path, bytes).map_err(|e| PlotError::io(path, e))
}

/// The HTML page `template` with the player's `data` in place of its one `placeholder`, every
/// `<` of the JSON escaped so that no string in it can end the page's `<script>`.
pub(crate) fn embed(template: &str, placeholder: &str, data: &serde_json::Value) -> String {
    let json = data.to_string().replace('<', "\\u003c");
    template.replacen(placeholder, &json, 1)
}
