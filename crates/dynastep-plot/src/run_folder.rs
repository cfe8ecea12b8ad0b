//! A run folder as `dynastep run` leaves it: `history.csv`, `summary.json` (written when the run
//! ends, completed or not) and `model.json` (the model as simulated, overrides applied).

use std::path::{Path, PathBuf};

use dynastep::io::history_table::HistoryTable;
use dynastep::model::Model;

use crate::PlotError;

/// How a run ended, from `summary.json` (or its absence).
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    /// `completed`, `stopped`, `interrupted`, `failed`, or `unknown` without a summary.
    pub status: String,
    /// When it stopped early \[s\].
    pub at: Option<f64>,
    /// Why, for a failed run.
    pub reason: Option<String>,
}

impl Ending {
    /// A sentence saying where and why the run stopped early; `None` for a completed run.
    pub fn note(&self) -> Option<String> {
        match self.status.as_str() {
            "completed" => None,
            "unknown" => Some(
                "no summary.json: the run did not finish (killed?); the history shows what was written"
                    .into(),
            ),
            status => {
                let mut s = format!("the run {status}");
                if let Some(t) = self.at {
                    s.push_str(&format!(" at t = {t} s"));
                }
                if let Some(r) = &self.reason {
                    s.push_str(&format!(": {r}"));
                }
                Some(s)
            }
        }
    }
}

/// The contents of a run folder.
#[derive(Debug, Clone)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
    /// `history.csv`.
    pub table: HistoryTable,
    /// From `summary.json`.
    pub ending: Ending,
    /// The model's name (from the summary, else the folder's name).
    pub title: String,
    /// `model.json`, when the folder has one.
    pub model: Option<Model>,
}

impl RunFolder {
    /// Reads the folder `dir`.
    ///
    /// # Errors
    /// [`PlotError::Io`] when `history.csv` cannot be read; [`PlotError::Data`] when it has no
    /// rows or no column `t`, or `summary.json` / `model.json` exist but cannot be parsed.
    pub fn open(dir: &Path) -> Result<Self, PlotError> {
        let path = dir.join("history.csv");
        let file = std::fs::File::open(&path).map_err(|e| PlotError::io(&path, e))?;
        let table = HistoryTable::read(file, &path.display().to_string())
            .map_err(|e| PlotError::Data(e.to_string()))?;
        if table.rows() == 0 {
            return Err(PlotError::Data(format!(
                "{}: no rows to draw",
                path.display()
            )));
        }
        let mut title = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let mut ending = Ending {
            status: "unknown".into(),
            at: None,
            reason: None,
        };
        let summary = dir.join("summary.json");
        if let Ok(text) = std::fs::read_to_string(&summary) {
            let v: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| PlotError::Data(format!("{}: {e}", summary.display())))?;
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            if let Some(name) = s("model").filter(|n| !n.is_empty()) {
                title = name;
            }
            ending = Ending {
                status: s("status").unwrap_or_else(|| "unknown".into()),
                at: ["failed_at", "stopped_at", "interrupted_at"]
                    .iter()
                    .find_map(|k| v.get(*k).and_then(|x| x.as_f64())),
                reason: s("reason"),
            };
        }
        let model_path = dir.join("model.json");
        let model = match std::fs::read_to_string(&model_path) {
            Ok(text) => Some(
                serde_json::from_str(&text)
                    .map_err(|e| PlotError::Data(format!("{}: {e}", model_path.display())))?,
            ),
            Err(_) => None,
        };
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            table,
            ending,
            title,
            model,
        })
    }

    /// The note of [`Ending::note`], or, for a completed run whose history is cut short, that.
    pub fn stop_note(&self) -> Option<String> {
        let end = self.table.t().last().copied().unwrap_or(0.0);
        let skipped = self.table.skipped_rows;
        self.ending.note().or_else(|| {
            if self.table.truncated {
                Some(format!("history.csv ends in an incomplete row after t = {end} s"))
            } else {
                (skipped > 0).then(|| {
                    format!("{skipped} rows of history.csv are incomplete or not numbers and are left out")
                })
            }
        })
    }
}
