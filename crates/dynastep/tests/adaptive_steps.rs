//! The time loop of issue "one time loop": error-controlled steps on index-3 problems, dense output
//! at exact multiples of the output interval, t_end honoured, observers that stop a run, and the
//! refusals of settings that cannot work.
//!
//! References: the IVP Test Set value of Andrews' crank angle at 0.03 s (15.81077119629904 rad); the
//! official ADAMS trajectory of B0 for the N = 40 four-bar (reference/gdlc06_A02_…); the DOP853 light
//! cart-pole solution (reference/derived_light_cartpole_10s_dt0.01.csv).

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::{Flow, Observer, RunStatus, Sample};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::step_control::{StepControl, StepSettings};
use dynastep::model::Model;
use dynastep::system::System;
use util::{model, reference, Run};

const ANDREWS_BETA: f64 = 15.81077119629904;

fn adaptive(model: &Model, scheme: &str, rtol: f64, output_interval: Option<f64>) -> Run {
    let opts = RunOptions {
        scheme: Some(scheme.into()),
        output_interval,
        step: StepSettings {
            rtol: Some(rtol),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(model, &opts).unwrap_or_else(|e| panic!("{e}"));
    let mut rec = dynastep::analysis::dynamic::Recorder::default();
    let report = sim.run(&mut [&mut rec]);
    Run {
        system: sim.system,
        report,
        rec,
    }
}

/// Andrews' squeezer with generalized-α in index 3 at rtol = 1e-3 … 1e-7, with the example's
/// error-per-unit-step control: every run completes, the crank-angle error at 0.03 s against the
/// IVP Test Set stays below 100 rtol, falls by more than 100× over the four decades, and falls at
/// every tightening. Error-per-step control misses the first by 9–21× (900–2 100 rtol): asserted
/// too, so that the docs' comparison stays true.
///
/// Before the index-3 velocity estimate's normal part was replaced
/// (`formulation/index3_normal_error.rs`), the error at rtol = 1e-3 depended on rounding (a change
/// of the sparse refactorization's pivot threshold moved it from 3.1e-3 to 7.2e-4 rad, on either
/// side of the 1.6e-3 rad at 1e-4), and the first two errors' order was not asserted; now they fall
/// (2.1e-3, then 1.3e-3 rad).
#[test]
fn andrews_error_falls_with_rtol() {
    let m = model("andrews");
    let mut errors = Vec::new();
    for k in 3..=7 {
        let rtol = 10f64.powi(-k);
        let r = adaptive(&m, "generalized-alpha", rtol, Some(0.01));
        r.assert_completed();
        let e = crank_error(&r);
        println!(
            "rtol {rtol:.0e}: {} steps, {} rejected, error {e:.3e} rad = {:.0} rtol",
            r.report.steps,
            r.report.rejected_steps,
            e / rtol
        );
        assert!(r.report.final_state.t == 0.03, "ends at t_end exactly");
        assert!(e < 100.0 * rtol, "rtol {rtol:e}: error {e:e}");
        errors.push(e);
    }
    for w in errors.windows(2) {
        assert!(w[1] < w[0], "error must fall with rtol: {errors:?}");
    }
    assert!(errors[0] / errors[4] > 100.0, "{errors:?}");
    // Per step, the same runs end above 100 rtol.
    let mut per_step = m.clone();
    per_step.solver.step.control = Some(StepControl::PerStep);
    for k in [3, 5] {
        let rtol = 10f64.powi(-k);
        let r = adaptive(&per_step, "generalized-alpha", rtol, Some(0.01));
        r.assert_completed();
        let e = crank_error(&r);
        println!(
            "per step, rtol {rtol:.0e}: {} steps, error {e:.3e} rad = {:.0} rtol",
            r.report.steps,
            e / rtol
        );
        assert!(e > 100.0 * rtol, "per step at {rtol:e}: {e:e}");
    }
}

/// The Kennedy–Carpenter ESDIRK pairs run Andrews' squeezer at rtol = 1e-3 … 1e-7 (per unit step)
/// with the same criterion as generalized-α: every run completes, the error falls monotonically, by
/// more than 100× over the four decades, and stays below 100 rtol. ESDIRK3(2)4L\[2\]SA, whose
/// embedded solution is not L-stable, needs its estimate filtered through the iteration matrix for
/// this (without the filter it stopped at t = 0.021 s at rtol 1e-3: docs/examples.md).
#[test]
fn esdirk_pairs_error_falls_with_rtol() {
    let m = model("andrews");
    for scheme in ["esdirk3-4", "esdirk3-5", "esdirk4-6"] {
        let mut errors = Vec::new();
        for k in 3..=7 {
            let rtol = 10f64.powi(-k);
            let r = adaptive(&m, scheme, rtol, Some(0.01));
            r.assert_completed();
            let e = crank_error(&r);
            println!(
                "{scheme} rtol {rtol:.0e}: {} steps, {} rejected, {} Newton iterations, error {e:.3e} rad = {:.1} rtol",
                r.report.steps,
                r.report.rejected_steps,
                r.report.newton.iterations,
                e / rtol
            );
            assert!(e < 100.0 * rtol, "{scheme} rtol {rtol:e}: error {e:e}");
            errors.push(e);
        }
        for w in errors.windows(2) {
            assert!(
                w[1] < w[0],
                "{scheme}: error must fall with rtol: {errors:?}"
            );
        }
        assert!(errors[0] / errors[4] > 100.0, "{scheme}: {errors:?}");
    }
}

/// The crank angle's distance from the IVP Test Set value at the end of a run.
fn crank_error(r: &Run) -> f64 {
    let crank = r.body("OF");
    let beta = r.system.body_pose(crank, &r.report.final_state.q)[2];
    (beta - ANDREWS_BETA).abs()
}

/// The N = 40 four-bar with tight Newton tolerances fails at its singular configuration with fixed
/// steps (t ≈ 1.244 s) and completes the 20 s with error control, rejecting steps at the singular
/// passages.
#[test]
fn nfourbar40_passes_singular_configurations_adaptively() {
    let mut m = model("nfourbar40");
    m.solver.newton.position_tol = 1e-12;
    let r = adaptive(&m, "generalized-alpha", 1e-6, Some(0.05));
    r.assert_completed();
    assert!(
        r.report.rejected_steps > 0,
        "the singular passages need rejections"
    );
    let b0 = r.marker("B0");
    let rows = reference("gdlc06_A02_N40_fourbar_B0_0-20s.csv");
    let mut worst = 0.0_f64;
    for row in &rows {
        let s = util::sample_at(&r.rec, row[0]);
        let p = r.marker_at(b0, s);
        worst = worst.max((p[0] - row[1]).hypot(p[1] - row[2]));
    }
    // Reported, not asserted: at rtol 1e-6 the run takes another branch at a singular configuration
    // (docs/examples.md).
    println!(
        "N = 40 adaptive: {} steps, {} rejected, worst |B0 - ADAMS| = {worst:.2e} m",
        r.report.steps, r.report.rejected_steps
    );
    assert!(worst.is_finite());
}

/// Output rows fall at exact multiples of the interval, in fixed and adaptive mode, and the last row
/// is at t_end.
#[test]
fn rows_fall_on_exact_multiples() {
    let mut m = model("pendulum");
    m.solver.t_end = Some(1.0);
    let fixed = util::run(&m, "generalized-alpha", &[], 3e-3, Some(1.0), Some(0.07));
    let adaptive = adaptive(&m, "generalized-alpha", 1e-6, Some(0.07));
    for r in [&fixed, &adaptive] {
        r.assert_completed();
        let t: Vec<f64> = r.rec.states.iter().map(|s| s.t).collect();
        assert_eq!(t.len(), 16, "{t:?}");
        for (k, &tk) in t.iter().enumerate().take(15) {
            assert_eq!(tk, k as f64 * 0.07);
        }
        assert_eq!(*t.last().unwrap(), 1.0);
        assert_eq!(r.report.final_state.t, 1.0);
    }
    // The interpolated rows are as accurate as the steps: P1 against the DOP853 solution.
    let rows = reference("derived_simple_pendulum_10s_dt0.01.csv");
    let p1 = adaptive.marker("P1");
    for (s, state) in adaptive.rec.states.iter().enumerate() {
        let row = rows
            .iter()
            .find(|r| (r[0] - state.t).abs() < 1e-9)
            .expect("reference row");
        let p = adaptive.marker_at(p1, s);
        let e = (p[0] - row[1]).hypot(p[1] - row[2]);
        assert!(e < 1e-3, "t = {}: {e}", state.t);
    }
}

/// With a row at every step (interval 0), the last row and the final state are at t_end exactly,
/// also when the last fixed step's t_n + h overshoots it in the last digit (199 · 0.05 + 0.05 =
/// 10.000000000000002 > 10).
#[test]
fn every_step_rows_end_at_t_end_exactly() {
    let m = model("pendulum");
    let t_n: f64 = 199.0 * 0.05;
    assert!(t_n + 0.05 > 10.0, "the case no longer overshoots");
    let run = util::run(&m, "generalized-alpha", &[], 0.05, Some(10.0), Some(0.0));
    run.assert_completed();
    let last = run.rec.states.last().expect("rows").t;
    assert_eq!(last, 10.0);
    assert_eq!(run.report.final_state.t, 10.0);
    assert_eq!(run.rec.states.len(), 201);
}

/// t_end is honoured when dt does not divide the span: the last step of a variable-step scheme is
/// shortened; a fixed-step-only scheme steps past and the row at t_end is interpolated.
#[test]
fn t_end_is_honoured_when_dt_does_not_divide_the_span() {
    let m = model("pendulum");
    for scheme in ["generalized-alpha", "central-difference-reformulated"] {
        let r = util::run(&m, scheme, &[], 0.3e-2, Some(1.0), Some(0.3));
        r.assert_completed();
        assert_eq!(r.report.final_state.t, 1.0, "{scheme}");
        assert_eq!(r.rec.states.last().unwrap().t, 1.0, "{scheme}");
        // Still on the pendulum's circle.
        let p = r.marker_at(r.marker("P1"), r.rec.states.len() - 1);
        assert!((p[0].hypot(p[1]) - 1.0).abs() < 1e-5, "{scheme}: {p:?}");
    }
}

/// Settings that cannot work are refused before the run, with a message that says why.
#[test]
fn hopeless_settings_are_refused() {
    let m = model("pendulum");
    let refuse = |opts: RunOptions, needle: &str| {
        let e = Simulation::new(&m, &opts).expect_err("refused").to_string();
        assert!(e.contains(needle), "{e}");
    };
    refuse(
        RunOptions {
            output_interval: Some(1e-300),
            ..RunOptions::default()
        },
        "output interval",
    );
    refuse(
        RunOptions {
            scheme: Some("central-difference".into()),
            step: StepSettings {
                rtol: Some(1e-6),
                ..Default::default()
            },
            ..RunOptions::default()
        },
        "no local error estimate",
    );
    refuse(
        RunOptions {
            formulation: Some("index-4".into()),
            ..RunOptions::default()
        },
        "unknown formulation",
    );
}

/// An observer that stops the run at t ≥ 0.5 s.
struct StopAtHalf;

impl<S: System> Observer<S> for StopAtHalf {
    fn sample(
        &mut self,
        _: &S,
        s: &Sample<'_>,
    ) -> Result<Flow, dynastep::analysis::dynamic::ObserverError> {
        Ok(if s.state.t >= 0.5 {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }
}

#[test]
fn an_observer_stops_the_run_without_failing() {
    let m = model("pendulum");
    let opts = RunOptions {
        output_interval: Some(0.1),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&m, &opts).unwrap();
    let report = sim.run(&mut [&mut StopAtHalf]);
    assert_eq!(report.status, RunStatus::Stopped { stopped_at: 0.5 });
    assert_eq!(report.final_state.t, 0.5);
}

/// The benchmark's score e = sqrt((1/1001) Σ [(Δx/l)² + Δθ²]) of the samples `(t, x, θ)` against
/// the DOP853 reference (l = 1 m).
fn cartpole_score(samples: impl Iterator<Item = (f64, f64, f64)>) -> f64 {
    let rows = reference("derived_light_cartpole_10s_dt0.01.csv");
    let mut sum = 0.0;
    let mut n = 0;
    for ((t, x, theta), row) in samples.zip(&rows) {
        assert!((t - row[0]).abs() < 1e-12);
        sum += (x - row[1]).powi(2) + (theta - row[2]).powi(2);
        n += 1;
    }
    assert_eq!(n, rows.len());
    (sum / n as f64).sqrt()
}

/// The benchmark's score of a run of the body-coordinate model `light-cartpole`: x of the cart and
/// θ = atan2(tip.x − cart.x, cart.y − tip.y).
fn body_coordinates_score(run: &Run) -> f64 {
    let (cart, tip) = (run.body("cart"), run.body("tip"));
    cartpole_score(run.rec.states.iter().map(|state| {
        let c = run.system.body_pose(cart, &state.q);
        let p = run.system.body_pose(tip, &state.q);
        (state.t, c[0], (p[0] - c[0]).atan2(c[1] - p[1]))
    }))
}

/// The light cart-pole in minimal coordinates (an ODE, `light-cartpole-minimal`) with the
/// example's own settings, ESDIRK4(3)6L[2]SA2 at rtol = atol = 1e-12: an adaptive implicit
/// scheme meets the benchmark's criterion e ≤ 1e-6 (the time-loop issue's last criterion; the
/// body-coordinate index-3 model does not, see `light_cartpole_needs_error_control`).
#[test]
fn light_cartpole_minimal_meets_the_benchmark() {
    let m = model("light-cartpole-minimal");
    let r = util::run_with(&m, &RunOptions::default());
    r.assert_completed();
    let e = cartpole_score(r.rec.states.iter().map(|s| (s.t, s.q[0], s.q[1])));
    println!(
        "light cart-pole, minimal coordinates, esdirk4-6 rtol 1e-12: e = {e:.2e} ({} steps, {} rejected)",
        r.report.steps, r.report.rejected_steps
    );
    assert!(e <= 1e-6, "{e}");
}

/// The light cart-pole in body coordinates with the example's own settings, ESDIRK3(2)4L[2]SA in
/// the stabilized index-2 formulation at rtol = atol = 1e-12: an implicit scheme under error control
/// meets the benchmark's criterion e ≤ 1e-6 in body coordinates (measured 6.9e-7; in index 3 one
/// run met it, ρ∞-Bathe at rtol 1e-11 with 5.5e-7, but not the next tolerance, 4.7e-6 at 1e-12:
/// docs/examples.md).
#[test]
fn light_cartpole_body_coordinates_meets_the_benchmark() {
    let m = model("light-cartpole");
    assert_eq!(m.solver.formulation.as_deref(), Some("stabilized-index2"));
    let r = util::run_with(&m, &RunOptions::default());
    r.assert_completed();
    let e = body_coordinates_score(&r);
    println!(
        "light cart-pole, body coordinates, esdirk3-4 + stabilized-index2 rtol 1e-12: e = {e:.2e} ({} steps, {} rejected)",
        r.report.steps, r.report.rejected_steps
    );
    assert!(e <= 1e-6, "{e}");
}

/// The light cart-pole in body coordinates with the acceleration-level coordinate projection and
/// Dormand–Prince 5(4) at rtol = atol = 1e-10 (explicit, so not the time-loop issue's criterion):
/// also e ≤ 1e-6. The velocities are differential variables there, and the embedded estimate sees
/// the spike's truncation error; the index-3 estimate carries the noise of the constraint
/// Newton iteration instead (docs/examples.md).
#[test]
fn light_cartpole_body_coordinates_with_projection_and_dopri5() {
    let m = model("light-cartpole");
    let opts = RunOptions {
        scheme: Some("dopri5".into()),
        formulation: Some("projection".into()),
        step: StepSettings {
            rtol: Some(1e-10),
            atol: Some(1e-10),
            h_min: Some(1e-14),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let r = util::run_with(&m, &opts);
    r.assert_completed();
    let e = body_coordinates_score(&r);
    println!(
        "light cart-pole, projection + dopri5 rtol 1e-10: e = {e:.2e} ({} steps, {} rejected)",
        r.report.steps, r.report.rejected_steps
    );
    assert!(e <= 1e-6, "{e}");
}

/// The light cart-pole through its 11 vertical passages with error control, in body coordinates
/// (the example's stabilized index-2 formulation, generalized-α at rtol 1e-10). The benchmark's own
/// criterion (e ≤ 1e-6) is not reached at this tolerance (docs/examples.md gives the numbers;
/// `light_cartpole_body_coordinates_meets_the_benchmark` reaches it).
/// The bound guards the passages (a run that loses one is off by order one), and fixed steps of the
/// adaptive run's mean size lose them (e of order one: the energy error after the first passage
/// is about 1e4 J). An earlier version of this test ran its "fixed" run with the example's rtol
/// still set, an adaptive run with another first step, and concluded the opposite.
#[test]
fn light_cartpole_needs_error_control() {
    let m = model("light-cartpole");
    let r = adaptive(&m, "generalized-alpha", 1e-10, Some(0.01));
    r.assert_completed();
    let score = body_coordinates_score;
    let e = score(&r);
    let mean_h = r.report.h_sum / r.report.steps as f64;
    // Fixed steps: without the example's `[solver.step]`, whose rtol would make `dt` only the first
    // step, and without halving a step whose Newton iteration fails (which would make it a
    // variable-step run).
    let mut fixed_model = m.clone();
    fixed_model.solver.step = StepSettings {
        max_halvings: Some(0),
        ..Default::default()
    };
    let fixed = util::run(
        &fixed_model,
        "generalized-alpha",
        &[],
        mean_h,
        Some(10.0),
        Some(0.01),
    );
    assert!(fixed.report.rejected_steps == 0 && fixed.report.h_min == mean_h);
    let e_fixed = if matches!(fixed.report.status, RunStatus::Completed) {
        score(&fixed)
    } else {
        f64::INFINITY
    };
    println!(
        "light cart-pole rtol 1e-10: e = {e:.2e} ({} steps, {} rejected, h from {:.1e} s); fixed h = {mean_h:.1e}: e = {e_fixed:.2e}",
        r.report.steps, r.report.rejected_steps, r.report.h_min
    );
    assert!(e < 1e-2, "{e}");
    assert!(e_fixed > 0.1, "fixed steps: {e_fixed}");
}
