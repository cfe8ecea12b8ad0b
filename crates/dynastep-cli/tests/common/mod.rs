//! Helpers shared by the program's integration tests.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `dynastep` program with `args` to completion.
pub fn dynastep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dynastep"))
        .args(args)
        .output()
        .expect("runs")
}

/// An empty scratch folder for one test, unique per test binary, process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "dynastep-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
