//! The io layer: results out. [`history`] writes the CSV time history, [`history_table`] reads it
//! back (or a reference solution), [`summary`] writes the machine-readable run summary
//! (`summary.json`).

pub mod history;
pub mod history_table;
pub mod summary;
