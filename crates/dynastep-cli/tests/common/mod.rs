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
///
/// The folder is removed when the returned guard drops, unless the test is failing (the thread
/// panics): then it stays in the system's temporary folder as evidence. Without this, every test
/// run left its folders behind, and the long runs' histories filled CI's disk.
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "dynastep-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A scratch folder that removes itself when the test passes; see [`scratch`].
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
