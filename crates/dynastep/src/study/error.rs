//! [`StudyError`]: why a sweep or a comparison cannot go on, by what failed. The message of each
//! variant names the value at fault (the `--vary` spec, the shard, the column pattern, the file)
//! and how to fix it.

use crate::io::history_table::HistoryError;

/// Why a sweep or a comparison cannot go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StudyError {
    /// A command-line value that cannot be used: a `--vary` spec or range, a `--shard`, an error
    /// measure.
    #[error("{0}")]
    Usage(String),
    /// The plan has more cases than [`crate::study::sweep::MAX_CASES`].
    #[error("{0}")]
    TooLarge(String),
    /// The shards to merge do not belong together or cannot be read.
    #[error("{0}")]
    Merge(String),
    /// An error measure cannot be computed (a column missing, no common sample time).
    #[error("{0}")]
    Measure(String),
    /// A run (or every candidate reference run) failed.
    #[error("{0}")]
    Run(String),
    /// A time history cannot be read or searched.
    #[error(transparent)]
    History(#[from] HistoryError),
}
