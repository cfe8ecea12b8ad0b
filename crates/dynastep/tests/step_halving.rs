//! A fixed step whose Newton iteration fails is taken again in halves (`[solver.step]
//! max_halvings`, analysis/step_sizer.rs), and the run then goes on with its fixed step on the grid
//! t_0 + k·h. The case: the light cart-pole (examples/light-cartpole.toml, ESDIRK3(2)4L with
//! stabilized index 2) at a fixed dt = 3e-5 s, whose first vertical passage at t = 0.4515 s, where
//! |θ'| spikes to 4429 rad/s for about a microsecond, makes Newton fail on one step.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::RunOptions;
use dynastep::analysis::step_control::StepSettings;
use util::{model, run_with, Run};

const DT: f64 = 3e-5;

/// The light cart-pole to 0.5 s at the fixed step [`DT`], every step written, with at most
/// `max_halvings` halvings of a failing step (the default when `None`).
fn cartpole(max_halvings: Option<u32>) -> Run {
    let opts = RunOptions {
        dt: Some(DT),
        t_end: Some(0.5),
        output_interval: Some(0.0),
        step: StepSettings {
            max_halvings,
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    run_with(&model("light-cartpole"), &opts)
}

/// Distance of `t` from the nearest grid time k·DT, relative to DT.
fn off_grid(t: f64) -> f64 {
    (t / DT - (t / DT).round()).abs()
}

#[test]
fn a_failing_fixed_step_is_taken_in_halves_and_the_run_returns_to_its_grid() {
    let stopped = cartpole(Some(0));
    let RunStatus::Failed { failed_at, reason } = &stopped.report.status else {
        panic!("without halvings the run should stop at the passage");
    };
    assert!(
        (0.4514..0.4516).contains(failed_at),
        "{failed_at}: {reason}"
    );
    assert_eq!(stopped.report.halved_steps, 0);

    let halved = cartpole(None);
    halved.assert_completed();
    let report = &halved.report;
    assert_eq!(report.halved_steps, 1, "{:?}", report.notes);
    assert!(report.rejected_steps >= 1);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("failed on 1 fixed step") && n.contains("max_halvings = 0")),
        "{:?}",
        report.notes
    );

    // Up to the failing step both runs are the same run, to the bit.
    let before: Vec<_> = stopped
        .rec
        .states
        .iter()
        .filter(|x| x.t < *failed_at)
        .collect();
    assert!(before.len() > 15_000);
    for (a, b) in before.iter().zip(&halved.rec.states) {
        assert!(a.t == b.t && a.q == b.q && a.v == b.v, "t = {}", a.t);
    }

    // Every row before the shortened last step lies on the grid but the midpoint of the one step
    // that was split, and the run takes one step more than the grid has.
    let off: Vec<f64> = halved
        .rec
        .states
        .iter()
        .map(|x| x.t)
        .filter(|&t| t < 0.5 - DT && off_grid(t) > 1e-6)
        .collect();
    assert_eq!(off.len(), 1, "{off:?}");
    assert!((off_grid(off[0]) - 0.5).abs() < 1e-6 && off[0] > *failed_at - DT);
    let grid_steps = (0.5 / DT).ceil() as u64;
    assert_eq!(report.steps, grid_steps + 1);
}
