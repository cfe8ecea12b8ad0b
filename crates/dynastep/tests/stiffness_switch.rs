//! The stiffness switch of `--scheme auto` (`study::switch`): Adams PECE's stability boundaries,
//! the watch that stops a run whose steps they bound, and the examples on either side of it.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::{Recorder, RunReport, RunStatus, STIFF_STEPS};
use dynastep::analysis::failure::FailureKind;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::stability::analyse;
use dynastep::analysis::step_control::StepSettings;
use dynastep::scheme::adams::STABILITY_BOUNDARY;
use dynastep::scheme::SchemeParams;
use dynastep::study::switch::StiffnessSwitch;

/// A run of `example` at `rtol` through the switch, as `dynastep run --scheme auto` makes it: the
/// switch's state and the last run's status.
fn switched_run(example: &str, rtol: f64) -> (StiffnessSwitch, RunStatus) {
    let (switch, report, _) = recorded_switched_run(example, &RunOptions::default(), rtol);
    (switch, report.status)
}

/// [`switched_run`] with `base` options, its samples recorded (restarted when the run is made
/// again from the start, kept when it goes on).
fn recorded_switched_run(
    example: &str,
    base: &RunOptions,
    rtol: f64,
) -> (StiffnessSwitch, RunReport, Recorder) {
    let model = util::model(example);
    let mut switch = StiffnessSwitch::new(&model, rtol);
    let run_model = model.stopping_at_singular_configurations();
    let mut recorder = Recorder::default();
    loop {
        let opts = switch.options(base);
        let mut sim = Simulation::new(&run_model, &opts).unwrap();
        switch.prepare(&mut sim);
        let report = switch.run(&mut sim, &mut [&mut recorder]);
        if !switch.after_run(&report) {
            return (switch, report, recorder);
        }
        if !switch.goes_on() {
            recorder = Recorder::default();
        }
    }
}

/// Each B_k of the table, against the scheme itself: Adams PECE of fixed order k on the critically
/// damped oscillator (ξ = 1: a double eigenvalue λ = −ω of the first-order form), through the
/// linear stability analysis, is stable at Ω = ωh = 0.98 B_k and unstable at 1.02 B_k.
#[test]
fn stability_boundary_of_each_order() {
    for (i, b) in STABILITY_BOUNDARY.iter().enumerate() {
        let k = i + 1;
        let params = SchemeParams::from([("max_order".to_string(), k as f64)]);
        let report = analyse("abm", &params, 1.0, &[0.98 * b, 1.02 * b]).unwrap();
        let (below, above) = (
            report.points[0].spectral_radius,
            report.points[1].spectral_radius,
        );
        println!("order {k}: B = {b}, radius {below:.6} below, {above:.6} above");
        assert!(below <= 1.0 + 1e-6, "order {k}: {below} at 0.98 B");
        assert!(above > 1.0 + 1e-4, "order {k}: {above} at 1.02 B");
    }
}

/// Adams PECE with projection at `rtol`, watching for stiffness, on `example` over [0, t_end].
fn watched(example: &str, rtol: f64, t_end: Option<f64>) -> RunStatus {
    let model = util::model(example);
    let opts = RunOptions {
        scheme: Some("abm".into()),
        formulation: Some("projection".into()),
        t_end,
        step: StepSettings {
            rtol: Some(rtol),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).unwrap();
    sim.settings.stop_when_stiff = true;
    sim.run(&mut []).status
}

/// The flyball governor's stiff spring-dampers bound Adams PECE's step from the start: the watch
/// stops the run within its first 0.1 s (after STIFF_STEPS steps, about 0.05 s), at a loose and a
/// tight tolerance. So do the cantilever beam's fast bending modes, within its first 0.01 s
/// (unwatched, Adams PECE takes 45 000 steps over its 0.1 s at rtol 1e-4, 40 % of its attempts
/// rejected, with runs of a few steps below the ratio in between).
#[test]
fn the_flyball_governor_and_a_beam_are_found_stiff() {
    for (example, rtol, within) in [
        ("flyball-governor", 1e-4, 0.1),
        ("flyball-governor", 1e-8, 0.1),
        ("cantilever", 1e-4, 0.01),
        ("cantilever", 1e-7, 0.01),
    ] {
        match watched(example, rtol, None) {
            RunStatus::Failed { failed_at, reason } => {
                assert_eq!(reason.kind, FailureKind::Stiff, "{example}: {reason}");
                assert!(
                    failed_at < within,
                    "{example} at {rtol}: stopped at {failed_at} s"
                );
                assert!(reason.to_string().contains(&STIFF_STEPS.to_string()));
            }
            other => panic!("{example} at rtol {rtol}: not found stiff: {other:?}"),
        }
    }
}

/// The non-stiff examples run under the watch without being found stiff, at rtol 1e-4 and 1e-8
/// (the planar and spatial mechanisms of docs/performance.md's cross-engine and spatial
/// sections; the double four-bar and Bricard over their first 5 s: Bricard at 1e-4 diverges
/// later, see `a_failed_first_pair_is_run_again_with_the_implicit_one`).
#[test]
fn the_smooth_examples_are_not_found_stiff() {
    for (example, t_end) in [
        ("pendulum", None),
        ("andrews", None),
        ("double-fourbar", Some(5.0)),
        ("spatial-top", None),
        ("spatial-slider-crank", None),
        ("bricard", Some(5.0)),
    ] {
        for rtol in [1e-4, 1e-8] {
            let status = watched(example, rtol, t_end);
            assert!(
                matches!(status, RunStatus::Completed),
                "{example} at rtol {rtol}: {status:?}"
            );
        }
    }
}

/// The switch's pairs: with constraints, projection and the stabilized index-2 form; without, the
/// plain ODE and index 3. The switch is made once.
#[test]
fn the_switch_goes_once_to_its_implicit_pair() {
    let mut s = StiffnessSwitch::new(&util::model("pendulum"), 1e-6);
    assert_eq!(s.chosen, "abm / projection");
    assert!(s.watches());
    assert!(s.switch(0.03, "stiff".into(), 0.01));
    assert_eq!(s.chosen, "esdirk4-6 / stabilized-index2");
    assert!(!s.watches());
    assert!(!s.switch(0.5, "stiff again".into(), 0.1));
    assert_eq!(s.switched.as_ref().unwrap().stopped_at, 0.03);
}

/// Adams PECE with projection diverges on Bricard's mechanism at rtol 1e-4 (its energy grows from
/// t = 5.7 s, which the error control lets through); the switch then runs the implicit pair, which
/// completes. On the flyball governor the switch is made for stiffness.
#[test]
fn a_failed_first_pair_is_run_again_with_the_implicit_one() {
    let base = RunOptions {
        output_interval: Some(0.1),
        ..RunOptions::default()
    };
    let (s, report, rec) = recorded_switched_run("bricard", &base, 1e-4);
    assert!(matches!(report.status, RunStatus::Completed), "{report:?}");
    let w = s.switched.expect("switched");
    assert!(w.reason.contains("diverged"), "{}", w.reason);
    assert!(w.stopped_at > 1.0 && w.loop_time_s > 0.0, "{w:?}");
    // Made again from the start: the second pair's rows alone, from t = 0.
    assert!(!w.went_on, "{w:?}");
    assert_eq!(rec.states.len(), 101);
    assert_eq!(rec.states[0].t, 0.0);
    assert_eq!(s.chosen, "esdirk4-6 / stabilized-index2");
    let (s, status) = switched_run("flyball-governor", 1e-4);
    assert!(matches!(status, RunStatus::Completed), "{status:?}");
    assert!(s.switched.unwrap().reason.contains("stiff"));
}

/// Found stiff, the run goes on from where Adams PECE stopped (the flyball governor at rtol 1e-6,
/// t ≈ 0.05 s, over its first 2 s): one history on the output grid, the counters of both pairs,
/// the energy balance of the start; and its end is as accurate as the implicit pair's own run
/// from the start, against that pair at rtol 1e-9.
#[test]
fn found_stiff_the_run_goes_on_from_where_it_stopped() {
    let (interval, rtol) = (0.01, 1e-6);
    let base = RunOptions {
        output_interval: Some(interval),
        t_end: Some(2.0),
        ..RunOptions::default()
    };
    let (s, report, rec) = recorded_switched_run("flyball-governor", &base, rtol);
    assert!(matches!(report.status, RunStatus::Completed), "{report:?}");
    let w = s.switched.clone().expect("switched");
    assert!(w.went_on && w.reason.contains("stiff"), "{w:?}");
    // Every row once, on the grid, from t = 0 to 2 s.
    let t: Vec<f64> = rec.states.iter().map(|x| x.t).collect();
    assert_eq!(t.len(), 201, "{:?}", &t[..8]);
    for (k, tk) in t.iter().enumerate() {
        assert!((tk - k as f64 * interval).abs() < 1e-9, "row {k} at {tk}");
    }
    // The first pair's STIFF_STEPS steps and more are in the count, the energy reference is the
    // start's: the balance stays small across the switch.
    assert!(report.steps as usize > STIFF_STEPS && report.t_start == 0.0);
    let k = (w.stopped_at / interval).ceil() as usize;
    let across = rec.energy_balance[k - 2..k + 3]
        .iter()
        .fold(0.0_f64, |m, e| m.max(e.abs()));
    println!(
        "switched at {} s; balance across it {across:.3e} J, max {:.3e} J",
        w.stopped_at, report.max_energy_error
    );
    assert!(across < 1e-3, "{:?}", &rec.energy_balance[k - 2..k + 3]);
    // W_nc goes on from its value at the switch (the dampers' work, about -2e-3 J by then, a
    // tenth of that over each row's interval).
    let (w0, w1) = (rec.work_nc[k - 1], rec.work_nc[k]);
    assert!(
        w0 < -1e-3 && (w1 - w0).abs() < 0.2 * w0.abs(),
        "W_nc {w0} then {w1}"
    );
    // The end against the implicit pair from the start.
    let direct = |r: f64| {
        let opts = RunOptions {
            scheme: Some("esdirk4-6".into()),
            formulation: Some("stabilized-index2".into()),
            step: StepSettings {
                rtol: Some(r),
                ..StepSettings::default()
            },
            ..base.clone()
        };
        let mut sim = Simulation::new(&util::model("flyball-governor"), &opts).unwrap();
        sim.run(&mut []).final_state.q
    };
    let reference = direct(1e-9);
    let e_direct = (direct(rtol) - &reference).amax();
    let e_switched = (&report.final_state.q - &reference).amax();
    println!("end error: switched {e_switched:.3e}, implicit pair from the start {e_direct:.3e}");
    assert!(
        e_switched < 3.0 * e_direct + 10.0 * rtol,
        "{e_switched} vs {e_direct}"
    );
}

/// The edges of going on, on the flyball governor at rtol 1e-6 (found stiff at t_s ≈ 0.052 s):
/// a run ending at t_s completes (nothing is left to go on with); a row just after t_s (the
/// output grid's first point 3e-13 s past it) is written once, by the second pair; "per unit
/// step" spreads the tolerance over the whole run, not over what is left of it.
#[test]
fn the_switch_at_the_edges_of_the_run() {
    let rtol = 1e-6;
    let short = RunOptions {
        t_end: Some(0.2),
        ..RunOptions::default()
    };
    let (s, _, _) = recorded_switched_run("flyball-governor", &short, rtol);
    let t_s = s.switched.expect("switched").stopped_at;
    // Ending where the switch would be made.
    let at_end = RunOptions {
        t_end: Some(t_s),
        ..RunOptions::default()
    };
    let (_, report, _) = recorded_switched_run("flyball-governor", &at_end, rtol);
    assert!(matches!(report.status, RunStatus::Completed), "{report:?}");
    // A grid point just after t_s, then the others, then t_end = 0.2 s.
    let interval = t_s + 3e-13;
    let near = RunOptions {
        t_end: Some(0.2),
        output_interval: Some(interval),
        ..RunOptions::default()
    };
    let (s, _, rec) = recorded_switched_run("flyball-governor", &near, rtol);
    assert!(s.switched.expect("switched").went_on);
    let t: Vec<f64> = rec.states.iter().map(|x| x.t).collect();
    let expected: Vec<f64> = (0..4).map(|k| k as f64 * interval).chain([0.2]).collect();
    assert_eq!(t.len(), expected.len(), "{t:?}");
    for (got, want) in t.iter().zip(&expected) {
        assert!((got - want).abs() < 1e-12, "{t:?}");
    }
    // Per unit step: the whole span, 0.2 s.
    let per_unit = RunOptions {
        step: StepSettings {
            control: Some(dynastep::analysis::step_control::StepControl::PerUnitStep),
            ..StepSettings::default()
        },
        ..short
    };
    let (s, report, _) = recorded_switched_run("flyball-governor", &per_unit, rtol);
    assert!(s.switched.expect("switched").went_on);
    assert_eq!(report.tolerances.expect("adaptive").span, 0.2);
}
