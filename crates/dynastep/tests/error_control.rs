//! Error control on constrained models with the stabilized index-2 formulation (GGL): the error
//! of runs under `rtol` falls as the tolerance is tightened, against independent references (the
//! DOP853 pendulum, the closed-form slider-crank, the minimal-coordinate spatial slider-crank and
//! the IVP Test Set's Andrews); the velocity constraints hold to the Newton tolerance; index 3,
//! with its velocity estimate's normal part replaced, holds per unit step; and the index-3 pairs whose
//! estimate cannot control the error are refused up front.
//! docs/schemes.md, "Error control on constrained models", has the full table
//! (`scripts/error_control.py`).

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::settings::{StepControl, StepSettings};
use util::Run;

const GGL: &str = "stabilized-index2";

/// An adaptive run of `example` with `scheme` in `formulation` at rtol = atol = `rtol`, sampled
/// every `interval` seconds; `control` overrides the example's step control.
fn adaptive(
    example: &str,
    scheme: &str,
    formulation: &str,
    rtol: f64,
    interval: f64,
    control: Option<StepControl>,
) -> Run {
    let mut step = StepSettings {
        rtol: Some(rtol),
        atol: Some(rtol),
        ..Default::default()
    };
    if control.is_some() {
        step.control = control;
    }
    let opts = RunOptions {
        scheme: Some(scheme.into()),
        formulation: Some(formulation.into()),
        output_interval: Some(interval),
        step,
        ..RunOptions::default()
    };
    let run = util::run_with(&util::model(example), &opts);
    run.assert_completed();
    run
}

/// Largest |q_k(t) − reference column| over the rows of a reference file (time in column 0),
/// where `value` reads the run's value at a sample.
fn max_error(run: &Run, file: &str, column: usize, value: impl Fn(usize) -> f64) -> f64 {
    util::reference(file).iter().fold(0.0, |worst, row| {
        let k = util::sample_at(&run.rec, row[0]);
        worst.max((value(k) - row[column]).abs())
    })
}

/// The pendulum's largest position error over 10 s against the DOP853 solution [m].
fn pendulum_error(run: &Run) -> f64 {
    let body = run.body("mass");
    let pose = |k: usize| run.system.body_pose(body, &run.rec.states[k].q);
    let file = "derived_simple_pendulum_10s_dt0.01.csv";
    max_error(run, file, 1, |k| pose(k)[0]).max(max_error(run, file, 2, |k| pose(k)[1]))
}

/// The slider-crank's largest slider error against the closed-form kinematics [m].
fn slider_crank_error(run: &Run) -> f64 {
    let b = run.marker("B");
    let states = run.rec.states.iter().enumerate();
    states.fold(0.0, |worst, (s, st)| {
        worst.max((run.marker_at(b, s)[0] - util::slider_crank_x(st.t)).abs())
    })
}

/// The spatial slider-crank's largest slider error against the minimal-coordinate solution [m].
fn spatial_slider_crank_error(run: &Run) -> f64 {
    let slider = run.body("slider");
    let x = |k: usize| run.system.body_pose(slider, &run.rec.states[k].q)[0];
    max_error(run, "spatial/slider_crank_3d.csv", 1, x)
}

/// An example and the error measure of its runs.
type Case = (&'static str, fn(&Run) -> f64);

/// The errors of `scheme` in `formulation` on `example` at each tolerance, printed.
fn errors_at(case: Case, scheme: &str, formulation: &str, tolerances: &[f64]) -> Vec<f64> {
    let (example, error) = case;
    let e: Vec<f64> = tolerances
        .iter()
        .map(|&rtol| error(&adaptive(example, scheme, formulation, rtol, 0.01, None)))
        .collect();
    println!("{example} {scheme}/{formulation} at rtol {tolerances:?}: {e:?}");
    e
}

/// Errors of `scheme` with GGL at each tolerance, and a check that each falls below the last.
fn falling_errors(example: &str, scheme: &str, tolerances: &[f64], error: fn(&Run) -> f64) {
    let mut last = f64::INFINITY;
    for &rtol in tolerances {
        let run = adaptive(example, scheme, GGL, rtol, 0.01, None);
        let e = error(&run);
        println!(
            "{example} {scheme}/{GGL} rtol {rtol:e}: error {e:.2e} ({} steps)",
            run.report.steps
        );
        assert!(
            e < last,
            "{example} {scheme}: error {e:e} at rtol {rtol:e} after {last:e}"
        );
        last = e;
    }
}

/// LMS2, LMS3, SS2 and generalized-α with `rtol` in the stabilized index-2 formulation complete
/// the pendulum, the slider-crank and the spatial slider-crank at rtol 1e-4 … 1e-10, and their
/// errors fall as the tolerance is tightened (LMS3 was constant-step until its variable-coefficient
/// formula).
#[test]
fn stabilized_index2_errors_fall_with_the_tolerance() {
    let tolerances = [1e-4, 1e-6, 1e-8, 1e-10];
    for scheme in ["generalized-alpha", "lms2", "lms3", "ss2"] {
        falling_errors("pendulum", scheme, &tolerances, pendulum_error);
        falling_errors("slider-crank", scheme, &tolerances, slider_crank_error);
        falling_errors(
            "spatial-slider-crank",
            scheme,
            &tolerances,
            spatial_slider_crank_error,
        );
    }
}

/// The double four-bar's largest B0 error over 10 s against the 1-DOF reduction [m].
fn double_fourbar_error(run: &Run) -> f64 {
    let b0 = run.marker("B0");
    let file = "derived_double_fourbar_N2_10s_dt0.01.csv";
    max_error(run, file, 1, |k| run.marker_at(b0, k)[0])
        .max(max_error(run, file, 2, |k| run.marker_at(b0, k)[1]))
}

/// Generalized-α in stabilized index 2 on the double four-bar at rtol 1e-8 and 1e-10: the tight run
/// passes the singular configuration at t = 2.657 s (it stopped there with the step at h_min until
/// Newton accepted the floor of its corrections, `FloorWatch`), and its error falls.
#[test]
fn double_fourbar_generalized_alpha_passes_its_singular_configuration_at_tight_tolerance() {
    falling_errors(
        "double-fourbar",
        "generalized-alpha",
        &[1e-8, 1e-10],
        double_fourbar_error,
    );
}

/// The same in the tangent space: at rtol 1e-10 the position changes of a point near a singular
/// configuration stagnate above the tolerance, and the run stopped at h_min at t = 2.657 s until
/// the tangent-space iteration accepted that floor too (docs/tangent_space.md). The error falls
/// from rtol 1e-8 to 1e-10.
#[test]
fn double_fourbar_tangent_space_passes_its_singular_configurations_at_tight_tolerance() {
    let case: Case = ("double-fourbar", double_fourbar_error);
    let e = errors_at(case, "generalized-alpha", "tangent-space", &[1e-8, 1e-10]);
    assert!(e[1] < e[0], "{e:?}");
}

/// LMS2 in stabilized index 2 at rtol 1e-8 and 1e-10 on the two loop models where its variable
/// step used to stall: the error falls at least tenfold over the two decades (measured 31× on the
/// spatial slider-crank, 27× on the double four-bar; before its resampled history stopped
/// amplifying position noise, 4× and none: 1.8e-2 → 4.4e-3 m and 7.7e-3 → 8.3e-3 m).
#[test]
fn lms2_stabilized_index2_errors_fall_tenfold_over_two_decades() {
    let cases: [Case; 2] = [
        ("spatial-slider-crank", spatial_slider_crank_error),
        ("double-fourbar", double_fourbar_error),
    ];
    for case in cases {
        let e = errors_at(case, "lms2", GGL, &[1e-8, 1e-10]);
        assert!(e[1] * 10.0 < e[0], "{}: {e:?}", case.0);
    }
}

/// Andrews' squeezer with generalized-α and `rtol` from 1e-3 to 1e-7 (the example's per-unit-step
/// control): the crank angle's error at 0.03 s falls at every tightening, by more than 100× over
/// the range, and stays below 100·rtol.
#[test]
fn andrews_generalized_alpha_error_falls_a_hundredfold() {
    let mut errors = Vec::new();
    for rtol in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
        let run = adaptive("andrews", "generalized-alpha", GGL, rtol, 1e-3, None);
        let last = run.rec.states.last().unwrap();
        let beta = util::andrews_angles(&run, &last.q)[0];
        let e = (beta - util::ANDREWS_Q_REF[0]).abs();
        println!(
            "andrews rtol {rtol:e}: crank error {e:.2e} rad ({} steps)",
            run.report.steps
        );
        assert!(e < 100.0 * rtol, "rtol {rtol:e}: error {e:e}");
        errors.push(e);
    }
    assert!(errors.windows(2).all(|w| w[1] < w[0]), "{errors:?}");
    assert!(errors[4] < errors[0] / 100.0, "{errors:?}");
}

/// Per unit step, the tolerance bounds the global error: on the pendulum every second-order family
/// and an ESDIRK end within 100·rtol of the DOP853 solution with the stabilized index-2 formulation.
#[test]
fn pendulum_per_unit_step_within_a_hundred_rtol() {
    for scheme in ["generalized-alpha", "hht", "bathe", "msstc3", "esdirk3-4"] {
        for rtol in [1e-4, 1e-6] {
            let control = Some(StepControl::PerUnitStep);
            let run = adaptive("pendulum", scheme, GGL, rtol, 0.01, control);
            let e = pendulum_error(&run);
            println!("pendulum {scheme} per unit step, rtol {rtol:e}: error {e:.2e}");
            assert!(e < 100.0 * rtol, "{scheme} rtol {rtol:e}: error {e:e}");
        }
    }
}

/// Adams PECE per unit step at rtol 1e-10 on the pendulum ends within 100·rtol in every
/// acceleration-level formulation (0.4 rtol measured). It used to stop at t = 0 (its order-1 start
/// needs h ≈ 2e-12 s, below the old default h_min of 1e-12 of the span), and with a lower h_min it
/// ended 630–680 rtol off between its steps: the cubic dense output was O(h⁴) at steps of 0.017 s.
#[test]
fn adams_pece_per_unit_step_at_rtol_1e_10() {
    let control = Some(StepControl::PerUnitStep);
    for formulation in [
        "direct",
        "baumgarte",
        "projection",
        "partitioning",
        "hybrid",
    ] {
        let run = adaptive("pendulum", "abm", formulation, 1e-10, 0.01, control);
        let e = pendulum_error(&run);
        println!("pendulum abm/{formulation} per unit step, rtol 1e-10: error {e:.2e}");
        assert!(e < 100.0 * 1e-10, "{formulation}: error {e:e}");
    }
}

/// The stabilized index-2 formulation holds the velocity constraints to the Newton tolerance (the
/// index-3 formulation leaves them at the tolerance over h): planar, spatial, and Bricard's
/// redundant loop, with fixed steps.
#[test]
fn velocity_constraints_hold_to_the_newton_tolerance() {
    for (example, t_end) in [
        ("pendulum", 2.0),
        ("slider-crank", 1.0),
        ("spatial-slider-crank", 0.5),
        ("bricard", 0.5),
    ] {
        let opts = RunOptions {
            formulation: Some(GGL.into()),
            t_end: Some(t_end),
            ..RunOptions::default()
        };
        let run = util::run_with(&util::model(example), &opts);
        run.assert_completed();
        let v = run.report.max_violation.velocity;
        let index3 = util::run_with(
            &util::model(example),
            &RunOptions {
                t_end: Some(t_end),
                ..RunOptions::default()
            },
        );
        println!(
            "{example}: velocity violation {v:.1e} (index 3: {:.1e})",
            index3.report.max_violation.velocity
        );
        assert!(v < 1e-11, "{example}: {v:e}");
        assert!(v < index3.report.max_violation.velocity, "{example}");
    }
}

/// Per unit step in index 3: once the velocity estimate's part across the constraint manifold is
/// replaced by the new state's own violation (`formulation/index3_normal_error.rs`), a step's
/// estimate falls with h, and the pendulum's error ends within 100·rtol of the DOP853 solution. Without it
/// ρ∞-Bathe stopped at h_min at every rtol (t = 0.0035 s at 1e-6) and generalized-α at 1e-8.
/// At rtol 1e-10 a step's share of the tolerance falls below the rounding of index-3 states, and
/// the error norm's floor (`FormulationInfo::estimate_floor`) carries the run to t_end; without it
/// all four stopped at h_min (generalized-α at t = 9.0e-4 s), and with a floor of 10 ε instead of
/// 20 MSSTC(5) did.
#[test]
fn index3_per_unit_step_within_a_hundred_rtol() {
    for scheme in ["bathe", "generalized-alpha", "ss2", "esdirk3-4", "msstc5"] {
        for rtol in [1e-4, 1e-6, 1e-10] {
            let control = Some(StepControl::PerUnitStep);
            let run = adaptive("pendulum", scheme, "index3", rtol, 0.01, control);
            let e = pendulum_error(&run);
            println!("pendulum {scheme}/index3 per unit step, rtol {rtol:e}: error {e:.2e}");
            assert!(e < 100.0 * rtol, "{scheme} rtol {rtol:e}: error {e:e}");
        }
    }
}

/// LMS2, LMS3 and SS2 per unit step on the pendulum end within 100·rtol in index 3 and stabilized
/// index 2 at rtol 1e-6 and 1e-10. Before LMS2 took its variable-coefficient formula (the
/// interpolated-history restart injected a velocity inconsistency at every step change) it stopped
/// at h_min in index 3 at every rtol and in stabilized index 2 at 1e-10; SS2 stopped in stabilized
/// index 2 at 1e-10 before its Milne estimate was formed from increments and floored at its
/// rounding (`Capabilities::estimate_noise`).
#[test]
fn lms2_lms3_and_ss2_per_unit_step_within_a_hundred_rtol() {
    let control = Some(StepControl::PerUnitStep);
    for (scheme, formulation) in [
        ("lms2", "index3"),
        ("lms2", GGL),
        ("lms3", GGL),
        ("ss2", GGL),
    ] {
        for rtol in [1e-6, 1e-10] {
            let run = adaptive("pendulum", scheme, formulation, rtol, 0.01, control);
            let e = pendulum_error(&run);
            println!("pendulum {scheme}/{formulation} per unit step, rtol {rtol:e}: error {e:.2e}");
            assert!(
                e < 100.0 * rtol,
                "{scheme}/{formulation} rtol {rtol:e}: error {e:e}"
            );
        }
    }
}

/// The same on a spatial model (Euler parameters, whose normalization is a constraint row):
/// generalized-α in index 3 per unit step at rtol 1e-6 on the spatial slider-crank ends within
/// 100·rtol of the minimal-coordinate solution. Before the velocity estimate's normal part was
/// replaced it stopped at h_min at t = 0.47 s.
#[test]
fn index3_per_unit_step_holds_on_a_spatial_model() {
    let control = Some(StepControl::PerUnitStep);
    let rtol = 1e-6;
    let run = adaptive(
        "spatial-slider-crank",
        "generalized-alpha",
        "index3",
        rtol,
        0.01,
        control,
    );
    let e = spatial_slider_crank_error(&run);
    println!(
        "spatial slider-crank, generalized-α/index3 per unit step, rtol {rtol:e}: error {e:.2e} ({} steps)",
        run.report.steps
    );
    assert!(e < 100.0 * rtol, "error {e:e}");
}

/// A run that index 3 cannot keep within the tolerance above h_min (here h_min = 1 ms against a
/// tolerance of 1e-10 on the pendulum, whose first steps need about 20 µs) ends with advice that
/// names the stabilized index-2 formulation.
#[test]
fn an_index3_run_stopped_by_error_control_names_stabilized_index2() {
    let step = StepSettings {
        rtol: Some(1e-10),
        atol: Some(1e-10),
        h_min: Some(1e-3),
        ..Default::default()
    };
    let opts = RunOptions {
        scheme: Some("generalized-alpha".into()),
        formulation: Some("index3".into()),
        step,
        ..RunOptions::default()
    };
    let run = util::run_with(&util::model("pendulum"), &opts);
    let RunStatus::Failed { reason, .. } = &run.report.status else {
        panic!("expected the run to stop: {:?}", run.report.status);
    };
    let text = reason.to_string();
    assert!(text.contains("--formulation stabilized-index2"), "{text}");
}

/// The index-3 position estimate keeps its normal part, which sees the singular configurations of a
/// loop mechanism: generalized-α at rtol 1e-8 (per step) on the N = 40 four-bar chain passes them
/// on the ADAMS trajectory of B0 (0.011 m measured). Replacing the position part as well, as the
/// velocity part is, took this run 0.28 m off (docs/schemes.md, "Index 3: the estimate's normal
/// part").
#[test]
fn index3_generalized_alpha_keeps_the_n40_branch_under_rtol() {
    let run = adaptive(
        "nfourbar40",
        "generalized-alpha",
        "index3",
        1e-8,
        0.05,
        None,
    );
    let b0 = run.marker("B0");
    let rows = util::reference("gdlc06_A02_N40_fourbar_B0_0-20s.csv");
    let worst = rows.iter().fold(0.0_f64, |worst, row| {
        let p = run.marker_at(b0, util::sample_at(&run.rec, row[0]));
        worst.max((p[0] - row[1]).hypot(p[1] - row[2]))
    });
    println!(
        "N = 40, generalized-α/index3 rtol 1e-8: worst |B0 − ADAMS| = {worst:.2e} m ({} steps)",
        run.report.steps
    );
    assert!(worst < 0.05, "B0 left the ADAMS trajectory by {worst:e} m");
}

/// LMS2 with `rtol` in index 3 (per step): on the pendulum and the slider-crank its error falls at
/// every tightening from 1e-6 to 1e-10, and a hundredfold over the range.
#[test]
fn lms2_index3_errors_fall_with_the_tolerance() {
    let cases: [Case; 2] = [
        ("pendulum", pendulum_error),
        ("slider-crank", slider_crank_error),
    ];
    for case in cases {
        let e = errors_at(case, "lms2", "index3", &[1e-6, 1e-8, 1e-10]);
        assert!(
            e[1] < e[0] && e[2] < e[1] && e[2] * 100.0 < e[0],
            "{}: {e:?}",
            case.0
        );
    }
}

/// The options of a run of `scheme` in `formulation` (the model's own when `None`) with rtol 1e-6.
fn rtol_options(scheme: &str, formulation: Option<&str>) -> RunOptions {
    RunOptions {
        scheme: Some(scheme.into()),
        formulation: formulation.map(Into::into),
        step: StepSettings {
            rtol: Some(1e-6),
            ..Default::default()
        },
        ..RunOptions::default()
    }
}

/// Index 3 refuses `rtol` on a constrained model for the schemes without numerical dissipation,
/// whose estimate sees the velocities' noise, before the first step, and names the pair to use;
/// without constraints the same pair runs.
#[test]
fn index3_refuses_rtol_where_its_estimate_fails() {
    for scheme in ["trapezoidal", "newmark"] {
        let opts = rtol_options(scheme, None);
        let err = Simulation::new(&util::model("pendulum"), &opts).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("constrained model") && message.contains("stabilized-index2"),
            "{scheme}: {message}"
        );
        // The spinning top is an equation-based model without constraints.
        let free = Simulation::new(&util::model("spinning-top"), &opts);
        assert!(free.is_ok(), "{scheme}: {:?}", free.err());
    }
}

/// Stabilized index 2 and the tangent space refuse `rtol` for the linear-acceleration method,
/// whose estimate does not bound its error there (20 to 2 500 rtol per unit step on the pendulum,
/// docs/schemes.md), and name a dissipative scheme instead.
#[test]
fn linear_acceleration_rtol_is_refused_on_constrained_models() {
    for formulation in [GGL, "tangent-space"] {
        let opts = rtol_options("linear-acceleration", Some(formulation));
        let err = Simulation::new(&util::model("pendulum"), &opts).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("does not bound its error") && message.contains("generalized-alpha"),
            "{formulation}: {message}"
        );
    }
}

/// An rtol below 100 ε is refused, from the model file (located at its value) and as a run
/// option: an index-3 run accepted its steps at the error estimate's floor and said it met
/// rtol = 1e-300 (found by a new-user check). 100 ε itself runs.
#[test]
fn an_rtol_below_100_epsilon_is_refused() {
    let ex = dynastep::examples::find("pendulum").expect("example");
    let text = ex.text.replacen(
        "output_interval = 0.01",
        "output_interval = 0.01\n[solver.step]\nrtol = 1e-20",
        1,
    );
    assert_ne!(
        text, ex.text,
        "the example changed: no place for the setting"
    );
    let err = dynastep::model::parse::from_str(&text, "pendulum.toml")
        .expect_err("rtol = 1e-20 must be refused")
        .to_string();
    assert!(
        err.contains("rtol = 1e-20") && err.contains("100 ε"),
        "{err}"
    );
    let model = util::model("pendulum");
    let with_rtol = |rtol: f64| RunOptions {
        scheme: Some("esdirk4-6".into()),
        formulation: Some("index3".into()),
        t_end: Some(0.01),
        step: StepSettings {
            rtol: Some(rtol),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    let refused = Simulation::new(&model, &with_rtol(1e-300)).expect_err("refused");
    assert!(refused.to_string().contains("100 ε"), "{refused}");
    let mut sim = Simulation::new(&model, &with_rtol(100.0 * f64::EPSILON)).expect("runs");
    assert_eq!(sim.run(&mut []).status, RunStatus::Completed);
}
