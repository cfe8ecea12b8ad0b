//! The DADS way (Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*,
//! §7.3–7.4): acceleration-level formulations (direct integration, Baumgarte, projection,
//! partitioning, hybrid) with explicit Runge–Kutta and Adams PECE, against analytic orders, the IVP
//! test set (Andrews) and the independent double four-bar reference.

#[path = "common/examples.rs"]
mod common;
#[path = "common/pendulum.rs"]
mod pendulum;

use common::{andrews_angles, model, run_with, Run, ANDREWS_Q_REF};
use dynastep::analysis::dynamic::{DynamicSettings, RunStatus};
use dynastep::analysis::simulation::RunOptions;
use dynastep::analysis::step_control::StepSettings;
use dynastep::scheme::SchemeParams;

/// Runs an example with a scheme and formulation, fixed `dt` or adaptive with `rtol`.
fn simulate(
    example: &str,
    scheme: &str,
    formulation: &str,
    dt: Option<f64>,
    rtol: Option<f64>,
    t_end: Option<f64>,
) -> Run {
    let opts = RunOptions {
        scheme: Some(scheme.to_string()),
        formulation: Some(formulation.to_string()),
        dt,
        t_end,
        step: StepSettings {
            rtol,
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    run_with(&model(example), &opts)
}

/// Error at t = 1 s of the pendulum angle ODE (θ₀ = 1 rad, at rest) with `scheme` and step h,
/// direct integration.
fn angle_error(scheme: &str, params: &[(&str, f64)], h: f64, reference: (f64, f64)) -> f64 {
    let p: SchemeParams = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let settings = DynamicSettings {
        h,
        t_end: 1.0,
        formulation: "direct",
        ..DynamicSettings::default()
    };
    pendulum::angle_error(scheme, &p, &settings, reference)
}

/// Measured orders of the explicit Runge–Kutta methods and of Adams PECE of orders 1–4 with
/// constant steps, against an RK4 reference at h = 1e-4 computed outside the library
/// (tests/common/pendulum.rs). PECE of order k is of order k + 1 and the predictor alone of order
/// k, but a self-started run at one constant step keeps the error of its first steps, taken at
/// order 1: local errors O(h³) (PECE) and O(h²) (predictor) that cap the global order at 3 and 2.
/// Haug (1989) observes the same in his Tables 7.4.9 and 7.4.12 and suggests smaller start-up steps.
#[test]
fn measured_orders_with_constant_steps() {
    let reference = pendulum::rk4_pendulum(1.0, 1.0, 1e-4);
    type Case<'a> = (&'a str, &'a [(&'a str, f64)], f64, f64);
    let cases: &[Case] = &[
        ("rk3", &[], 3.0, 0.02),
        ("rk4", &[], 4.0, 0.02),
        ("rkf45", &[], 4.0, 0.02),
        ("dopri5", &[], 5.0, 0.04),
        ("abm", &[("max_order", 1.0)], 2.0, 0.02),
        ("abm", &[("max_order", 2.0)], 3.0, 0.01),
        ("abm", &[("max_order", 3.0)], 3.0, 0.01),
        ("abm", &[("max_order", 4.0)], 3.0, 0.01),
        ("abm", &[("max_order", 1.0), ("corrector", 0.0)], 1.0, 0.01),
        ("abm", &[("max_order", 3.0), ("corrector", 0.0)], 2.0, 0.005),
    ];
    for &(scheme, params, order, h) in cases {
        let e1 = angle_error(scheme, params, h, reference);
        let e2 = angle_error(scheme, params, h / 2.0, reference);
        let measured = (e1 / e2).log2();
        println!("{scheme} {params:?}: errors {e1:.3e} {e2:.3e}, order {measured:.3}");
        assert!(
            (measured - order).abs() < 0.25,
            "{scheme} {params:?}: order {measured}, expected {order}"
        );
    }
}

/// Direct integration lets the constraint violation grow (Haug §7.3.3); Baumgarte's terms bound it
/// (§7.3.4) and projection removes it at every step. The pendulum with RK4, h = 1e-3 s.
#[test]
fn direct_integration_drifts_and_baumgarte_and_projection_bound_it() {
    let violation = |f: &str, t_end: f64| {
        let r = simulate("pendulum", "rk4", f, Some(1e-3), None, Some(t_end));
        r.assert_completed();
        r.report.max_violation.position
    };
    let (d5, d10, d20) = (
        violation("direct", 5.0),
        violation("direct", 10.0),
        violation("direct", 20.0),
    );
    let (b10, b20) = (violation("baumgarte", 10.0), violation("baumgarte", 20.0));
    let (p10, p20) = (violation("projection", 10.0), violation("projection", 20.0));
    println!("direct {d5:.2e} {d10:.2e} {d20:.2e}; baumgarte {b10:.2e} {b20:.2e}; projection {p10:.2e} {p20:.2e}");
    assert!(
        d10 > 1.5 * d5 && d20 > 1.5 * d10,
        "direct drift does not grow"
    );
    assert!(
        b20 < 1.1 * b10 && b20 < 0.1 * d20,
        "Baumgarte does not bound it"
    );
    assert!(p20 < 1e-10 && p10 < 1e-10, "projection leaves {p20:.2e}");
}

/// RK4 with projection on the double four-bar with its redundant hard constraints (a configuration
/// Exudyn's explicit solvers refuse): the IFToMM energy criterion max |E − E₀| ≤ 0.1 J is met at
/// h = 2e-3 s up to 2.5 s, before the first singular configuration (2.66 s). Beyond it, whether a
/// run keeps the motion's branch turns on rounding (docs/acceleration_level.md: over 10 s this run
/// met the criterion with one column ordering of the sparse solver, 4.6e-3 J, and leaves the
/// branch at 6.55 s with another, 0.35 J), so the test stops before it.
#[test]
fn rk4_with_projection_meets_the_double_fourbar_energy_criterion() {
    let r = simulate(
        "double-fourbar",
        "rk4",
        "projection",
        Some(2e-3),
        None,
        Some(2.5),
    );
    r.assert_completed();
    let e = r.report.max_energy_error;
    println!(
        "max |E - E0| = {e:.3e} J, max |Phi| = {:.2e}",
        r.report.max_violation.position
    );
    assert!(e < 0.1, "{e}");
    assert!(r.report.max_violation.position < 1e-8);
}

/// Andrews' squeezer with the hybrid algorithm and Adams PECE at rtol = 1e-8: every angle of the
/// test set within 1e-6 rad of its PSIDE reference at 0.03 s, constraints at the tolerance level.
#[test]
fn andrews_hybrid_adams_pece_meets_the_test_set() {
    let r = simulate("andrews", "abm", "hybrid", None, Some(1e-8), None);
    r.assert_completed();
    let got = andrews_angles(&r, &r.report.final_state.q);
    for (k, (g, want)) in got.iter().zip(ANDREWS_Q_REF).enumerate() {
        println!("angle {k}: {g:.12} vs {want:.12}, error {:.2e}", g - want);
        assert!((g - want).abs() < 1e-6, "angle {k}: {g} vs {want}");
    }
    println!(
        "{} steps, {} rejected, max |Phi| = {:.2e}",
        r.report.steps, r.report.rejected_steps, r.report.max_violation.position
    );
    assert!(r.report.max_violation.position < 1e-8);
}

/// The hybrid algorithm with Adams PECE passes the double four-bar's singular configurations over
/// 10 s: B0 within 1e-3 m of the parallelogram reference, energy within 1e-3 J, and the
/// correction of step 5b applied.
#[test]
fn double_fourbar_hybrid_adams_pece_passes_the_singular_configurations() {
    let r = simulate("double-fourbar", "abm", "hybrid", None, Some(1e-8), None);
    r.assert_completed();
    let e = common::double_fourbar_b0_error(&r);
    println!(
        "B0 error {e:.2e} m, max |E - E0| = {:.2e} J, {} corrections, {} repartitions",
        r.report.max_energy_error, r.report.corrections, r.report.restarts
    );
    assert!(e < 1e-3 && r.report.max_energy_error < 1e-3);
    assert!(r.report.corrections > 0);
}

/// Coordinate partitioning with Adams PECE passes the double four-bar's singular configurations
/// over 10 s at rtol = 1e-9. No repartitioning happens, and none should: the independent coordinate
/// chosen at the start (coupler0's x) loses its pivot only where Φ_q itself loses rank (all cranks
/// horizontal), where every choice of dependent coordinates is singular alike, so the relative
/// test never finds a better partition (docs/acceleration_level.md).
#[test]
fn double_fourbar_partitioning_adams_pece_passes_the_singular_configurations() {
    let r = simulate(
        "double-fourbar",
        "abm",
        "partitioning",
        None,
        Some(1e-9),
        None,
    );
    r.assert_completed();
    let e = common::double_fourbar_b0_error(&r);
    println!(
        "B0 error {e:.2e} m, max |E - E0| = {:.2e} J, {} corrections, {} repartitions",
        r.report.max_energy_error, r.report.corrections, r.report.restarts
    );
    assert!(e < 1e-3 && r.report.max_energy_error < 1e-2);
    assert_eq!(r.report.restarts, 0);
}

/// Why the double four-bar never repartitions: no partition is better there. By the interlacing
/// of singular values, deleting a column of Φ_q (m × (m + 1), one independent coordinate) cannot
/// raise the smallest singular value: σ_min(Φ_u) ≤ σ_m(Φ_q) for every choice. On the parallelogram
/// branch at crank angle φ from the horizontal, Φ_q loses two ranks at φ = 0 (σ_m and σ_(m−1)
/// both fall like sin φ), and the partition chosen at the start keeps σ_min(Φ_u) within 20 % of
/// that bound all the way down, so the relative test (`repartition_ratio` = 0.1 of a fresh
/// factorization's pivot) never fires, and an absolute test would only swap one equally singular
/// block for another.
#[test]
fn double_fourbar_has_no_better_partition_near_its_singular_configurations() {
    use dynastep::formulation::coordinate_partition::CoordinatePartition;
    use dynastep::linalg::{Matrix, Vector};
    use dynastep::system::{multibody::Multibody, System};

    let built = Multibody::new(&model("double-fourbar")).unwrap();
    let sys = built.planar().unwrap();
    let (n, m) = (sys.n(), sys.m());
    assert_eq!((n, m), (15, 14));
    // Cranks i = 0..2 pivoted at (i, 0), couplers k = 0, 1 on top; centroidal coordinates.
    let parallelogram = |phi: f64| {
        let (s, c) = phi.sin_cos();
        let mut q = Vec::with_capacity(n);
        for i in 0..3 {
            q.extend([i as f64 + 0.5 * c, 0.5 * s, phi]);
        }
        for k in 0..2 {
            q.extend([k as f64 + 0.5 + c, s, 0.0]);
        }
        Vector::from_vec(q)
    };
    let mut part = CoordinatePartition::new(n, m);
    part.choose(sys, 0.0, &parallelogram(std::f64::consts::FRAC_PI_2));
    let independent = part.dependent.iter().position(|d| !d).unwrap();
    assert_eq!(part.independent_count(), 1);
    for deg in [60.0_f64, 30.0, 10.0, 2.0, 0.5] {
        let q = parallelogram(deg.to_radians());
        let mut phi = Vector::zeros(m);
        sys.constraints(0.0, &q, &mut phi);
        assert!(phi.amax() < 1e-14, "not on the constraints at {deg}°");
        let mut jac = Matrix::zeros(m, n);
        sys.constraint_jacobian(0.0, &q, 1.0, &mut jac);
        let sigma = jac.singular_values().as_slice().to_vec();
        let mut sorted = sigma.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let (second, smallest) = (sorted[m - 2], sorted[m - 1]);
        let blocks: Vec<f64> = (0..n)
            .map(|j| jac.clone().remove_column(j).singular_values().min())
            .collect();
        let best = blocks.iter().cloned().fold(0.0, f64::max);
        let chosen = blocks[independent];
        println!(
            "{deg:4}°: σ_m(Φ_q) = {smallest:.3e}, σ_(m-1) = {second:.3e}; \
             σ_min(Φ_u): chosen {chosen:.3e}, best of {n} {best:.3e}"
        );
        let sin = deg.to_radians().sin();
        assert!(
            second < 1.5 * sin && smallest < 1.5 * sin,
            "two ranks lost at 0°"
        );
        assert!(best <= smallest * (1.0 + 1e-12), "interlacing");
        assert!(
            chosen >= 0.8 * smallest,
            "the chosen block is far from the bound"
        );
        assert!(!part.check(sys, 0.0, &q, 0.1), "repartitioned at {deg}°");
    }
}

/// Repartitioning where it is needed: the IFToMM pendulum in Cartesian coordinates (x, y) of the
/// bob, Φ = x² + y² − L². Released horizontally, the bob's x is dependent until Φ_x = 2x falls
/// below `repartition_ratio` = 0.1 of Φ_y = 2y, i.e. 5.7° before the bottom; y is dependent until
/// the same happens 5.7° before the end of the swing. So the partition changes twice per half
/// period T/2, T = 4 K(sin 45°) √(L/g) for a 90° amplitude, and first shortly before T/4.
#[test]
fn pendulum_partitioning_adams_pece_repartitions_twice_per_swing() {
    let r = simulate("pendulum", "abm", "partitioning", None, Some(1e-8), None);
    r.assert_completed();
    // K(k) by the arithmetic-geometric mean: K = π / (2 agm(1, √(1 − k²))), k = sin 45°.
    let (mut a, mut b) = (1.0_f64, 0.5_f64.sqrt());
    for _ in 0..10 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    let period = 4.0 * std::f64::consts::PI / (2.0 * a) * (1.0 / 9.81_f64).sqrt();
    let t_end = 10.0;
    let bottoms = (0..)
        .take_while(|j| (0.25 + 0.5 * *j as f64) * period < t_end)
        .count();
    let ends = (1..)
        .take_while(|j| 0.5 * *j as f64 * period < t_end)
        .count();
    let first = r.report.first_restart;
    println!(
        "T = {period:.4} s: {} repartitions (expected {}), first at {first:.4} s (T/4 = {:.4} s)",
        r.report.restarts,
        bottoms + ends,
        0.25 * period
    );
    assert_eq!(r.report.restarts as usize, bottoms + ends);
    // 5.7° before the bottom at ω = √(2g/L) is 0.022 s; a step of up to ~0.02 s may follow.
    assert!(
        first < 0.25 * period && first > 0.25 * period - 0.05,
        "{first}"
    );
    let p = r.marker_at(r.marker("P1"), r.rec.states.len() - 1);
    let want = common::reference("derived_simple_pendulum_10s_dt0.01.csv");
    let last = want.last().unwrap();
    let e = ((p[0] - last[1]).powi(2) + (p[1] - last[2]).powi(2)).sqrt();
    println!("P1 error at 10 s: {e:.2e} m");
    assert!(e < 1e-4, "{e}");
}

/// A kinematically driven system has no independent coordinate. Error control then judges all
/// coordinates, so the steps still resolve the motion: the slider pin, sampled every 0.01 s
/// (interpolated inside the steps), follows its closed form x = r cos θ + √(l² − r² sin² θ),
/// θ = π/4 + 2πt. An empty norm let the steps grow to 1.2 s (0.6 m errors in the samples).
#[test]
fn slider_crank_partitioning_adaptive_resolves_the_driven_motion() {
    for f in ["partitioning", "hybrid"] {
        let r = simulate("slider-crank", "abm", f, None, Some(1e-8), None);
        r.assert_completed();
        let b = r.marker("B");
        let worst = (0..r.rec.states.len())
            .map(|s| (r.marker_at(b, s)[0] - common::slider_crank_x(r.rec.states[s].t)).abs())
            .fold(0.0, f64::max);
        println!(
            "{f}: {} steps, h_max = {:.3} s, max |x_B - exact| = {worst:.2e} m",
            r.report.steps, r.report.h_max
        );
        assert!(r.report.h_max < 0.05, "{f}: h_max {}", r.report.h_max);
        assert!(worst < 1e-5, "{f}: {worst}");
    }
}

/// Writes the rtol table of docs/acceleration_level.md ("Passing the singular configurations"):
/// partitioning and the hybrid algorithm with Adams PECE on the double four-bar, B0's distance to
/// the parallelogram reference at 10 s and the largest |E − E₀ − W_nc| over the committed steps.
/// Run: `cargo test --release -p dynastep --test acceleration_level -- --ignored rtol_table
/// --nocapture`.
#[test]
#[ignore = "writes a docs table; about a minute in release"]
fn double_fourbar_rtol_table() {
    let rtols = [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];
    println!(
        "| rtol | {} |",
        rtols.map(|r| format!("{r:.0e}")).join(" | ")
    );
    println!("|---|{}", "---|".repeat(rtols.len()));
    for formulation in ["partitioning", "hybrid"] {
        let cells: Vec<String> = rtols
            .iter()
            .map(|&rtol| {
                let r = simulate("double-fourbar", "abm", formulation, None, Some(rtol), None);
                match &r.report.status {
                    RunStatus::Completed => format!(
                        "{:.1e} m, {:.1e} J",
                        common::double_fourbar_b0_error(&r),
                        r.report.max_energy_error
                    ),
                    RunStatus::Failed { failed_at, .. } => format!("fails at {failed_at:.1} s"),
                    other => format!("{other:?}"),
                }
            })
            .collect();
        println!("| {formulation} | {} |", cells.join(" | "));
    }
}

/// Adams PECE's final evaluation (E at the corrected state) is skipped where the formulation
/// recomputes a and λ after every committed step anyway (projection, partitioning): one
/// acceleration solve per step attempt instead of two. The committed a must still solve
/// eq. 7.2.1 at the committed state, so its acceleration-constraint violation stays at rounding
/// level (with projection's refresh removed, the predictor's a is committed and the violation
/// reaches 4e2 m/s² here).
#[test]
fn adams_pece_skips_its_final_evaluation_where_the_formulation_refreshes() {
    for (formulation, points) in [("direct", 2), ("projection", 1), ("partitioning", 1)] {
        let r = simulate(
            "double-fourbar",
            "abm",
            formulation,
            None,
            Some(1e-6),
            Some(2.0),
        );
        r.assert_completed();
        let attempts = r.report.steps + r.report.rejected_steps;
        let acceleration = r.report.max_violation.acceleration;
        println!(
            "{formulation}: {} solves over {attempts} attempts, ‖Φ_q a − γ‖ ≤ {acceleration:.1e}",
            r.report.newton.iterations
        );
        assert_eq!(
            r.report.newton.iterations,
            points * attempts,
            "{formulation}"
        );
        if formulation != "direct" {
            assert!(acceleration < 1e-9, "{formulation}: {acceleration:e}");
        }
    }
}
