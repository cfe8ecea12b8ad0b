//! `dynastep sweep`: the same table and histories for any number of threads, shards that merge into
//! the unsharded table, failed cases recorded without stopping the others.

mod common;
use common::{dynastep, scratch};
use std::path::Path;

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// 3 schemes × 4 step sizes of Andrews' squeezer.
fn andrews_sweep(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "sweep",
        "--example",
        "andrews",
        "--scheme",
        "generalized-alpha,bathe,trapezoidal",
        "--dt",
        "1e-4,5e-5,2.5e-5,2e-5",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = dynastep(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn results_do_not_depend_on_threads_or_shards() {
    let (one, two, shards) = (scratch("jobs1"), scratch("jobs2"), scratch("shards"));
    andrews_sweep(&one, &["--jobs", "1"]);
    andrews_sweep(&two, &["--jobs", "2"]);
    let table = String::from_utf8(read(&one.join("sweep.csv"))).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 1 + 12);
    assert!(
        lines[0].starts_with("case,scheme,dt,status,"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1..].iter().all(|l| l.contains(",completed,")),
        "{table}"
    );
    assert!(
        lines[1].starts_with("0,generalized-alpha,0.0001,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[12].starts_with("11,trapezoidal,2e-5,"),
        "{}",
        lines[12]
    );
    assert_eq!(read(&one.join("sweep.csv")), read(&two.join("sweep.csv")));
    for k in 0..12 {
        let case = format!("case-{k:04}/history.csv");
        assert_eq!(read(&one.join(&case)), read(&two.join(&case)), "{case}");
    }
    andrews_sweep(&shards, &["--shard", "1/2", "--jobs", "2"]);
    andrews_sweep(&shards, &["--shard", "2/2", "--jobs", "1"]);
    let shard1 = String::from_utf8(read(&shards.join("sweep-shard-1-of-2.csv"))).unwrap();
    assert_eq!(shard1.lines().count(), 1 + 6);
    assert!(!shards.join("sweep.csv").exists());
    let o = dynastep(&[
        "sweep",
        "--merge",
        "--quiet",
        "--out",
        shards.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        read(&one.join("sweep.csv")),
        read(&shards.join("sweep.csv"))
    );
}

#[test]
fn a_failed_case_is_recorded_and_the_others_run() {
    let out = scratch("failed-case");
    let o = dynastep(&[
        "sweep",
        "--example",
        "pendulum",
        "--vary",
        "bodies.mass.mass=1,-1,2",
        "--t-end",
        "0.5",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert!(
        rows[0].starts_with("case,bodies.mass.mass,scheme,"),
        "{}",
        rows[0]
    );
    assert!(rows[1].starts_with("0,1,generalized-alpha,") && rows[1].contains(",completed,"));
    assert!(
        rows[2].starts_with("1,-1,") && rows[2].contains(",error,"),
        "{}",
        rows[2]
    );
    assert!(
        rows[2].contains("<command line>:1:18: error: body `mass`: mass must be positive"),
        "{}",
        rows[2]
    );
    assert_eq!(rows.len(), 4, "one line per case");
    assert!(rows[3].starts_with("2,2,") && rows[3].contains(",completed,"));
    assert!(out.join("case-0002/summary.json").exists() && !out.join("case-0001").exists());
    // A case folder is a run folder: `dynastep plot` reads it (model.json gives the geometry).
    assert!(out.join("case-0002/model.json").exists());
    let o = dynastep(&["plot", out.join("case-0002").to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn bad_sweep_specifications_are_refused_before_running() {
    for (args, expected) in [
        (vec!["--vary", "bodies.mass.mass=1:2:1"], "COUNT"),
        (vec!["--shard", "3/2"], "--shard `3/2`"),
        (vec!["--scheme", "nope"], "unknown scheme `nope`"),
    ] {
        let mut all = vec!["sweep", "--example", "pendulum", "--quiet"];
        all.extend(args);
        let o = dynastep(&all);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expected), "{err}");
    }
}

/// scripts/slurm-sweep.sh run as Slurm would run a 3-task array (task ids 4, 5, 6 of
/// `--array=4-6`), then merged: the unsharded table.
#[test]
fn the_slurm_array_script_runs_its_slices() {
    let (whole, array) = (scratch("slurm-whole"), scratch("slurm-array"));
    let sweep = [
        "--example",
        "pendulum",
        "--t-end",
        "0.2",
        "--scheme",
        "generalized-alpha,bathe",
        "--dt",
        "1e-3,5e-4",
    ];
    let mut args = vec!["sweep", "--quiet", "--out", whole.to_str().unwrap()];
    args.extend_from_slice(&sweep);
    assert!(dynastep(&args).status.success());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-sweep.sh");
    for task in 4..=6 {
        let o = std::process::Command::new("bash")
            .arg(&script)
            .arg(&array)
            .args(sweep)
            .env("DYNASTEP", env!("CARGO_BIN_EXE_dynastep"))
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_ARRAY_TASK_MIN", "4")
            .env("SLURM_CPUS_PER_TASK", "2")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(array.join("sweep-shard-3-of-3.csv").exists());
    let o = dynastep(&[
        "sweep",
        "--merge",
        "--quiet",
        "--out",
        array.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(
        read(&whole.join("sweep.csv")),
        read(&array.join("sweep.csv"))
    );
}
