//! `examples/double-fourbar.toml` (IFToMM, N = 2) and `examples/nfourbar40.toml` (GDLC06 A02, N = 40)
//! against the 1-DOF parallelogram reduction and the official ADAMS trajectory.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::simulation::RunOptions;
use dynastep::analysis::step_control::StepSettings;

/// B0 at t = 10 s for N = 2 (DOP853 on the 1-DOF reduction, rtol 1e-13).
const B0_10: [f64; 2] = util::DOUBLE_FOURBAR_B0_10;

/// Runs the double four-bar; returns (B0 error at 10 s, max B0 error vs the derived reference every
/// 0.5 s, max |E − E0|).
fn double_fourbar(scheme: &str, params: &[(&str, f64)], h: f64) -> (f64, f64, f64) {
    let model = util::model("double-fourbar");
    let run = util::run(&model, scheme, params, h, Some(10.0), Some(0.01));
    run.assert_completed();
    let b0 = run.marker("B0");
    let last = run.rec.states.len() - 1;
    let end = run.marker_at(b0, last);
    let end_err = (end[0] - B0_10[0]).abs().max((end[1] - B0_10[1]).abs());
    let derived = util::reference("derived_double_fourbar_N2_10s_dt0.01.csv");
    let mut worst = 0.0f64;
    for row in derived.iter().step_by(50) {
        let p = run.marker_at(b0, util::sample_at(&run.rec, row[0]));
        worst = worst.max((p[0] - row[1]).abs()).max((p[1] - row[2]).abs());
    }
    let de = run.report.max_energy_error;
    println!(
        "{scheme} {params:?} h = {h:e}: B0(10) = ({:.10}, {:.10}), error {end_err:.3e}; max error every 0.5 s {worst:.3e}; max |E - E0| = {de:.3e} J; steps {}, Newton iterations {}",
        end[0], end[1], run.report.steps, run.report.newton.iterations
    );
    (end_err, worst, de)
}

#[test]
fn double_fourbar_h1e_3() {
    let (end_err, worst, de) = double_fourbar("generalized-alpha", &[("rho_inf", 0.95)], 1e-3);
    assert!(
        end_err < 1e-3 && worst < 1e-3,
        "B0 error {end_err:e}, {worst:e}"
    );
    assert!(de < 5e-3, "energy error {de:e}");
}

/// Small steps through the singular (flat) configurations: at h = 5e-5 and 2e-5 the index-3
/// point there can only settle its positions (corrections 3e-10 m, within the tolerance), while its
/// residual stays near 1e-5 N, above the 1e-8 relative tolerance; these runs failed before the
/// Newton test accepted that floor (`NewtonTest::at_floor`). The accuracy must follow the step.
#[test]
fn double_fourbar_small_steps_pass_the_singular_configurations() {
    for (h, bound) in [(5e-5, 2e-6), (2e-5, 1e-6)] {
        let (end_err, worst, _) = double_fourbar("generalized-alpha", &[("rho_inf", 0.9)], h);
        assert!(
            end_err < bound && worst < bound,
            "h = {h:e}: B0 error {end_err:e}, {worst:e}"
        );
    }
}

/// Exudyn's setting (generalized-α, ρ∞ = 0.95, h = 1.25e-4 s): B0 = (0.3284573768, 0.9445187937),
/// max |E − E0| = 1.80e-5 J.
#[test]
fn double_fourbar_exudyn_setting() {
    let (end_err, _, de) = double_fourbar("generalized-alpha", &[("rho_inf", 0.95)], 1.25e-4);
    assert!(end_err < 2e-6, "B0 error {end_err:e}");
    assert!(de < 4e-5, "energy error {de:e}");
}

/// Exudyn's coarse run (generalized-α, ρ∞ = 0.95, h = 1e-2 s) reports max |E − E0| = 0.114 J; the
/// IFToMM double four-bar accepts 0.1 J of drift (Fernández de Bustos et al. 2022, sec. 7).
#[test]
fn double_fourbar_exudyn_coarse_energy_error() {
    let model = util::model("double-fourbar");
    let run = util::run(
        &model,
        "generalized-alpha",
        &[("rho_inf", 0.95)],
        1e-2,
        Some(10.0),
        Some(0.0),
    );
    run.assert_completed();
    let de = run.report.max_energy_error;
    println!("h = 1e-2: max |E - E0| = {de:.5} J (Exudyn 0.114 J)");
    assert!((de - 0.114).abs() < 2e-3, "energy error {de}");
}

/// Runs the N = 40 four-bar to `t_end` with generalized-α (ρ∞ = 0.95) at step h; returns the max B0
/// error against the ADAMS file.
fn nfourbar40(h: f64, t_end: f64) -> f64 {
    let opts = RunOptions {
        scheme: Some("generalized-alpha".to_string()),
        params: [("rho_inf".to_string(), 0.95)].into_iter().collect(),
        dt: Some(h),
        ..RunOptions::default()
    };
    nfourbar40_with(&opts, t_end)
}

/// Runs the N = 40 four-bar to `t_end` with the given options; returns the max B0 error against the
/// ADAMS file (every 0.05 s).
fn nfourbar40_with(opts: &RunOptions, t_end: f64) -> f64 {
    let model = util::model("nfourbar40");
    let opts = RunOptions {
        t_end: Some(t_end),
        output_interval: Some(0.05),
        ..opts.clone()
    };
    let run = util::run_with(&model, &opts);
    run.assert_completed();
    let b0 = run.marker("B0");
    let official = util::reference("gdlc06_A02_N40_fourbar_B0_0-20s.csv");
    let mut worst = 0.0f64;
    let mut rows = 0;
    for row in official.iter().take_while(|r| r[0] <= t_end + 1e-9) {
        let p = run.marker_at(b0, util::sample_at(&run.rec, row[0]));
        worst = worst.max((p[0] - row[1]).abs()).max((p[1] - row[2]).abs());
        rows += 1;
    }
    println!(
        "N = 40, {:?} ({:?}), {t_end} s: max |B0 - ADAMS| over {rows} rows = {worst:.3e} m; max |E - E0| = {:.3e} J; {} steps; wall {:.2} s",
        opts.scheme, opts.formulation,
        run.report.max_energy_error, run.report.steps, run.report.wall_time_s
    );
    worst
}

/// The DADS way on N = 40, adaptive at rtol = 1e-8: Adams PECE with coordinate projection follows
/// the ADAMS trajectory through the first singular configuration (near 1.2 s) within 1e-4 m.
/// Over the whole 20 s the acceleration-level pairs are at the mercy of rounding: a change of
/// gravity by one unit in the last place, or of the sparse LU's pivot order, turns 3.7e-4 m into a
/// lost branch or a stall (docs/acceleration_level.md gives the runs), so no 20 s accuracy is
/// asserted for them; the index-3 runs are insensitive (`nfourbar40_index3_ignores_one_ulp`).
#[test]
fn nfourbar40_adams_pece_with_projection() {
    let opts = RunOptions {
        scheme: Some("abm".to_string()),
        formulation: Some("projection".to_string()),
        step: StepSettings {
            rtol: Some(1e-8),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    let worst = nfourbar40_with(&opts, 1.5);
    assert!(worst < 1e-4, "B0 error {worst:e}");
}

/// The watch on singular configurations (`formulation/singularity.rs`) on N = 40 with Adams PECE
/// and projection. How close a run steps to a crossing is chance (rounding decides it): at rtol
/// 1e-8 the run left the ADAMS branch at t ≈ 17 s with the sparse solver's column ordering before
/// 2026-11-28 and passes every crossing at a ratio of 2.4e-6 or more with the present one; at rtol
/// 3e-8 it now passes within 1.0e-8 at t ≈ 5.18 s. With `singular_configuration = "stop"` the run
/// ends at that passage with a failure of kind `singular`; with the default `warn` it goes on and
/// its report names the passage.
#[test]
fn nfourbar40_index1_run_reports_the_singular_configuration() {
    use dynastep::analysis::dynamic::RunStatus;
    use dynastep::analysis::failure::FailureKind;
    use dynastep::model::settings::SingularityPolicy;
    let opts = RunOptions {
        scheme: Some("abm".to_string()),
        formulation: Some("projection".to_string()),
        t_end: Some(18.0),
        step: StepSettings {
            rtol: Some(3e-8),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    let mut model = util::model("nfourbar40");
    let warned = util::run_with(&model, &opts);
    warned.assert_completed();
    let passage = warned
        .report
        .closest_singularity
        .expect("projection watches");
    println!("warn: closest passage {passage:?}");
    assert!(
        passage.is_singular() && (5.0..5.5).contains(&passage.t),
        "{passage:?}"
    );
    model.solver.constraints.singular_configuration = SingularityPolicy::Stop;
    let stopped = util::run_with(&model, &opts);
    match &stopped.report.status {
        RunStatus::Failed { failed_at, reason } => {
            println!("stop: at {failed_at} s: {reason}");
            assert_eq!(reason.kind, FailureKind::Singular, "{reason}");
            assert!((5.0..5.5).contains(failed_at), "{failed_at}");
        }
        other => panic!("the run did not stop at the singular configuration: {other:?}"),
    }
}

/// The hybrid algorithm on N = 40 with RK4 (h = 1e-3 s) and Dormand–Prince (rtol = 1e-8) completes
/// the 20 s through the twenty singular configurations (a minute of dense 242 × 243
/// factorizations for the partition checks: in the slow suite). Its accuracy depends on rounding
/// (docs/acceleration_level.md), so only the completed run is asserted; the errors are printed.
#[test]
#[ignore = "slow: about a minute in release"]
fn nfourbar40_hybrid_with_runge_kutta() {
    for (scheme, dt, rtol) in [("rk4", Some(1e-3), None), ("dopri5", None, Some(1e-8))] {
        let opts = RunOptions {
            scheme: Some(scheme.to_string()),
            formulation: Some("hybrid".to_string()),
            dt,
            step: StepSettings {
                rtol,
                ..StepSettings::default()
            },
            ..RunOptions::default()
        };
        let worst = nfourbar40_with(&opts, 20.0);
        assert!(worst.is_finite(), "{scheme}: B0 error {worst:e}");
    }
}

/// The index-3 generalized-α run of the full GDLC06 A02 problem does not depend on rounding:
/// gravity changed by one unit in the last place either way gives the same B0 error to 1e-8 m
/// (measured: within 1.1e-9 m of 3.97e-4 m), and
/// every run meets the benchmark's 1e-3 m (three 20 s runs: in the slow suite).
#[test]
#[ignore = "slow: three full N = 40 runs"]
fn nfourbar40_index3_ignores_one_ulp() {
    let mut errors = Vec::new();
    for g in [
        -9.81,
        f64::from_bits((-9.81f64).to_bits() + 1),
        f64::from_bits((-9.81f64).to_bits() - 1),
    ] {
        let mut model = util::model("nfourbar40");
        model.gravity = [0.0, g];
        let opts = RunOptions {
            scheme: Some("generalized-alpha".to_string()),
            params: [("rho_inf".to_string(), 0.95)].into_iter().collect(),
            dt: Some(1e-3),
            t_end: Some(20.0),
            output_interval: Some(0.05),
            ..RunOptions::default()
        };
        let run = util::run_with(&model, &opts);
        run.assert_completed();
        let b0 = run.marker("B0");
        let official = util::reference("gdlc06_A02_N40_fourbar_B0_0-20s.csv");
        let worst = official.iter().fold(0.0f64, |w, row| {
            let p = run.marker_at(b0, util::sample_at(&run.rec, row[0]));
            w.max((p[0] - row[1]).abs()).max((p[1] - row[2]).abs())
        });
        println!("g = {g:?}: max |B0 - ADAMS| = {worst:.6e} m");
        errors.push(worst);
    }
    assert!(errors.iter().all(|&e| e < 1e-3), "{errors:?}");
    assert!(
        (errors[1] - errors[0]).abs() < 1e-8 && (errors[2] - errors[0]).abs() < 1e-8,
        "{errors:?}"
    );
}

#[test]
fn nfourbar40_first_half_second() {
    let worst = nfourbar40(2e-3, 0.5);
    assert!(worst < 1e-4, "B0 error {worst:e}");
}

/// The whole GDLC06 A02 run: 20 000 steps of n + m = 485 (about 7 s with the sparse solver).
#[test]
fn nfourbar40_full_run() {
    let worst = nfourbar40(1e-3, 20.0);
    assert!(
        worst < 1e-3,
        "B0 error {worst:e} (GDLC06 high precision is 1e-3)"
    );
}
