//! A diverged solution ends as a failure, never as "completed" (analysis/divergence.rs): fixed-step
//! Adams–Bashforth–Moulton with Baumgarte stabilization on Andrews' squeezer and the light cart-pole,
//! at steps far above the stability limit of its order 12 (ω_max = 473 rad/s on Andrews: order 12 is
//! stable for ωh < 0.045, h < 9.5e-5 s), used to complete with energy errors of 1e23 … 1e247 J or
//! an infinite one. The same models with error control, and their defaults, still complete.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::failure::FailureKind;
use dynastep::analysis::simulation::RunOptions;
use util::{model, run_with};

/// The status of `example` run with `abm` and `formulation` to 1 s at the fixed step `dt`, or
/// over the example's own span under `rtol` when given.
fn status(example: &str, formulation: &str, dt: Option<f64>, rtol: Option<f64>) -> RunStatus {
    let mut opts = RunOptions {
        scheme: Some("abm".to_string()),
        formulation: Some(formulation.to_string()),
        dt,
        t_end: dt.map(|_| 1.0),
        ..RunOptions::default()
    };
    opts.step.rtol = rtol;
    run_with(&model(example), &opts).report.status
}

#[test]
fn fixed_step_abm_above_its_limit_fails_as_diverged() {
    for (example, dt, by) in [
        ("andrews", 7e-3, 0.021),
        ("andrews", 5e-3, 0.021),
        ("light-cartpole", 1.8e-2, 1.0),
    ] {
        match status(example, "baumgarte", Some(dt), None) {
            RunStatus::Failed { failed_at, reason } => {
                eprintln!("{example} dt = {dt}: {reason}");
                assert!(
                    matches!(reason.kind, FailureKind::Diverged | FailureKind::NonFinite),
                    "{example}: {reason}"
                );
                assert!(failed_at <= by, "{example}: failed only at {failed_at} s");
            }
            other => panic!("{example} dt = {dt}: {other:?}"),
        }
    }
}

/// Negative controls: the light cart-pole with the same pair under error control, and Andrews
/// with abm and coordinate projection under error control (docs/acceleration_level.md), complete.
#[test]
fn with_error_control_abm_completes() {
    for (example, formulation) in [("light-cartpole", "baumgarte"), ("andrews", "projection")] {
        let s = status(example, formulation, None, Some(1e-6));
        assert_eq!(s, RunStatus::Completed, "{example} with {formulation}");
    }
}
