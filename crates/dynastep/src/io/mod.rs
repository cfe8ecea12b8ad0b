//! The io layer: results out. [`history`] writes the CSV time history, [`summary`] the machine-readable
//! run summary (`summary.json`).

pub mod history;
pub mod summary;
