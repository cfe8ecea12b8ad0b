//! The spatial examples against their independent references (reference/spatial/, made by the
//! Python scripts there):
//! - the spatial slider-crank against a minimal-coordinate DOP853 solution;
//! - the heavy top against the analytic rate of steady precession;
//! - Bricard's mechanism: energy, the redundant constraint named by joint, and the joint points
//!   against Exudyn's solution;
//! - the stiff flyball governor: the slider coordinate's RMS error against a converged
//!   minimal-coordinate solution, and its second-order fall with the step.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::assembly::redundant_constraints;
use dynastep::analysis::simulation::RunOptions;
use dynastep::system::System;
use util::{model, reference, run_with, sample_at, Run};

/// Body `name`'s pose columns at sample k.
fn pose(run: &Run, name: &str, k: usize) -> Vec<f64> {
    run.system.body_pose(run.body(name), &run.rec.states[k].q)
}

/// Global direction of body axis `axis` (0 = x, 1 = y, 2 = z) from Euler parameters e.
fn body_axis(e: &[f64], axis: usize) -> [f64; 3] {
    let (e0, e1, e2, e3) = (e[0], e[1], e[2], e[3]);
    let a = [
        [
            e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
            2.0 * (e1 * e2 - e0 * e3),
            2.0 * (e1 * e3 + e0 * e2),
        ],
        [
            2.0 * (e1 * e2 + e0 * e3),
            e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
            2.0 * (e2 * e3 - e0 * e1),
        ],
        [
            2.0 * (e1 * e3 - e0 * e2),
            2.0 * (e2 * e3 + e0 * e1),
            e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
        ],
    ];
    let n = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3;
    [a[0][axis] / n, a[1][axis] / n, a[2][axis] / n]
}

#[test]
fn spatial_slider_crank_meets_its_reference() {
    let run = run_with(&model("spatial-slider-crank"), &RunOptions::default());
    run.assert_completed();
    let reference = reference("spatial/slider_crank_3d.csv");
    let mut worst = 0.0_f64;
    for row in &reference {
        let k = sample_at(&run.rec, row[0]);
        worst = worst.max((pose(&run, "slider", k)[0] - row[1]).abs());
    }
    println!(
        "slider x: max error {worst:.2e} m over 5 s, {} steps",
        run.report.steps
    );
    assert!(worst < 1e-6, "slider x: max error {worst:e} m");
}

#[test]
fn spatial_top_precesses_at_the_analytic_rate() {
    // φ̇ = 2 m g l / (I3 ω3 + √((I3 ω3)² − 4 I1 cos θ m g l)), data of examples/spatial-top.toml.
    let (m, g, l, i1, i3) = (0.02, 9.81, 0.05, 1.5e-4, 2e-4);
    let (theta, w3) = (std::f64::consts::FRAC_PI_6, 4.0 * std::f64::consts::PI);
    let c = i3 * w3;
    let rate = 2.0 * m * g * l / (c + (c * c - 4.0 * i1 * theta.cos() * m * g * l).sqrt());
    let run = run_with(&model("spatial-top"), &RunOptions::default());
    run.assert_completed();
    let (mut azimuth, mut last, mut nutation) = (0.0, f64::NAN, 0.0_f64);
    for k in 0..run.rec.states.len() {
        let axis = body_axis(&pose(&run, "top", k)[3..], 2);
        let a = axis[1].atan2(axis[0]);
        if last.is_finite() {
            let mut d = a - last;
            d -= (d / (2.0 * std::f64::consts::PI)).round() * 2.0 * std::f64::consts::PI;
            azimuth += d;
        }
        last = a;
        nutation = nutation.max((axis[2].acos() - theta).abs());
    }
    // The marker's ZXZ angles: θ (angle2) stays at π/6.
    let marker = run.marker("axis");
    let theta_drift = run
        .rec
        .states
        .iter()
        .map(|x| (run.system.marker_state(marker, &x.q, &x.v).0[8] - theta).abs())
        .fold(0.0, f64::max);
    assert!(
        theta_drift < 1e-6,
        "marker angle2 drifts by {theta_drift:e} rad"
    );
    let t = run.rec.states.last().unwrap().t;
    let measured = azimuth / t;
    let relative = (measured / rate - 1.0).abs();
    println!("precession {measured:.12} rad/s vs {rate:.12} (relative {relative:.1e}); nutation within {nutation:.1e} rad");
    assert!(relative < 1e-6, "precession rate off by {relative:e}");
    assert!(nutation < 1e-6, "nutation drifted by {nutation:e} rad");
}

#[test]
fn bricard_conserves_energy_and_names_its_redundant_constraint() {
    let m = model("bricard");
    let sim = dynastep::analysis::simulation::Simulation::new(&m, &RunOptions::default()).unwrap();
    // Rank 34 of 35 at the assembled state: one redundant row, and the rows of its dependency (the
    // whole loop) named by joint.
    let x = &sim.initial;
    let (rank, _) = redundant_constraints(&sim.system, x.t, &x.q, 1e-9);
    assert_eq!(sim.system.m() - rank, 1, "one redundant constraint");
    assert_eq!(
        sim.assembly.dependent.len(),
        1,
        "{:?}",
        sim.assembly.dependent
    );
    assert!(
        sim.assembly.dependent[0].starts_with("joint `J"),
        "the row to drop is named by joint: {:?}",
        sim.assembly.dependent
    );
    let named = &sim.assembly.redundant;
    for joint in ["J0", "J1", "J2", "J3", "J4", "J5"] {
        let label = format!("joint `{joint}` (revolute)");
        assert!(
            named.iter().any(|l| l.starts_with(&label)),
            "{joint} not named: {named:?}"
        );
    }
    let run = run_with(&m, &RunOptions::default());
    run.assert_completed();
    let drift = energy_drift(&run);
    // Also at h = 1e-2 s (OpenSim's posted runs used steps up to 1e-2 s; the benchmark's own
    // step is not known).
    let coarse = run_with(
        &m,
        &RunOptions {
            dt: Some(1e-2),
            ..RunOptions::default()
        },
    );
    coarse.assert_completed();
    let coarse_drift = energy_drift(&coarse);
    assert!(
        coarse_drift < 1e-3,
        "energy drift {coarse_drift:e} J at h = 1e-2 s"
    );
    let reference = reference("spatial/bricard.csv");
    let mut worst = 0.0_f64;
    for row in &reference {
        let k = sample_at(&run.rec, row[0]);
        let x = &run.rec.states[k];
        for (j, name) in ["J1", "J2", "J3", "J4"].iter().enumerate() {
            let p = run.system.marker_state(run.marker(name), &x.q, &x.v).0;
            for c in 0..3 {
                worst = worst.max((p[c] - row[1 + 3 * j + c]).abs());
            }
        }
    }
    println!(
        "energy drift {drift:.2e} J (h = 1e-3 s), {coarse_drift:.2e} J (1e-2 s); joint points within {worst:.2e} m of Exudyn"
    );
    assert!(drift < 1e-3, "energy drift {drift:e} J");
    assert!(worst < 1e-4, "joint points {worst:e} m from the reference");
}

/// The multistep families on a redundant mechanism. λ is determined only up to the left null space
/// of Φ_q; a Newton start extrapolated from the last two λ fed a component there at every step (the
/// null space turns with the configuration), the least-squares corrections never removed it, and
/// the equilibrium residual stalled at ~1e-7: LMS2 stopped at 1.29 s, SS2 at 1.78 s. Started from
/// the last λ they run through, one Newton iteration per step, and keep the energy.
#[test]
fn bricard_runs_with_the_multistep_families() {
    let m = model("bricard");
    for scheme in ["lms2", "ss2"] {
        let run = run_with(
            &m,
            &RunOptions {
                scheme: Some(scheme.to_string()),
                t_end: Some(2.0),
                ..RunOptions::default()
            },
        );
        run.assert_completed();
        let drift = energy_drift(&run);
        let per_step = run.report.newton.iterations as f64 / run.report.steps as f64;
        println!("{scheme}: energy drift {drift:.2e} J, {per_step:.2} Newton iterations per step");
        assert!(drift < 1e-4, "{scheme}: energy drift {drift:e} J");
        assert!(per_step < 1.5, "{scheme}: {per_step} iterations per step");
    }
}

/// Bricard's mechanism at a small step (issue #38). Its iteration matrix is singular at every
/// configuration (σ_min/σ_max about 1e-17), but the smallest pivot of its LU carries the rounding
/// of the elimination and landed above the singularity threshold (1e-13 of the largest entry) on
/// some matrices. Each such solve put into λ a component along the null space of Φ_qᵀ, the
/// rounding of the scaled constraint rows Φ/c_c over that pivot (∝ 1/h²), which no later
/// least-squares correction removed: at h = 1e-4 s, ‖λ‖∞ reached 5e8 by t = 1.2477 s, where Φ_qᵀλ
/// (30 N) was computed with a rounding error of 3e-7 N, above the residual tolerance, and Newton
/// stalled. Kept to solves without that component once the null space is found (least squares,
/// or the pinned LU with the null space projected out, `linalg/pinned.rs`), the run goes through
/// with one Newton iteration per step, λ stays of the size of the joint forces, and the energy is
/// kept 100 times better than at h = 1e-3 s (second order).
#[test]
fn bricard_runs_at_small_steps() {
    let m = model("bricard");
    let run = run_with(
        &m,
        &RunOptions {
            dt: Some(1e-4),
            t_end: Some(1.5),
            ..RunOptions::default()
        },
    );
    run.assert_completed();
    let drift = energy_drift(&run);
    let per_step = run.report.newton.iterations as f64 / run.report.steps as f64;
    let lambda = run
        .rec
        .states
        .iter()
        .flat_map(|x| x.lambda.iter())
        .fold(0.0_f64, |m, l| m.max(l.abs()));
    println!(
        "h = 1e-4 s: energy drift {drift:.2e} J, {per_step:.3} Newton iterations per step, max |λ| {lambda:.2e}"
    );
    assert!(drift < 1e-6, "energy drift {drift:e} J");
    assert!(per_step < 1.1, "{per_step} iterations per step");
    assert!(lambda < 1e3, "multipliers grew to {lambda:e}");
}

/// Bricard's mechanism with Adams PECE and projection, whose acceleration-level matrix is singular
/// at every configuration (its redundant constraint), passes no singular configuration: with
/// `singular_configuration = "stop"` it runs its 10 s. At rtol 1e-6 the projection leaves the
/// constraints at its tolerance, the redundant direction's singular value rose above the LU's
/// threshold (1e-13 of the largest), the matrix went to an LU with a pivot of that size, and the
/// watch, which solves with those factors, stopped the run at t = 0.87 s (5.7e-9 with `warn`, at
/// t = 0.97 s). The watch no longer judges a matrix that was singular at the start and that the
/// solver now takes for regular (`formulation/singularity.rs`).
#[test]
fn bricard_with_projection_passes_no_singular_configuration() {
    use dynastep::analysis::step_control::StepSettings;
    use dynastep::model::settings::SingularityPolicy;
    let mut m = model("bricard");
    m.solver.constraints.singular_configuration = SingularityPolicy::Stop;
    for rtol in [1e-6, 1e-8] {
        let run = run_with(
            &m,
            &RunOptions {
                scheme: Some("abm".to_string()),
                formulation: Some("projection".to_string()),
                step: StepSettings {
                    rtol: Some(rtol),
                    ..StepSettings::default()
                },
                ..RunOptions::default()
            },
        );
        run.assert_completed();
        let passage = run.report.closest_singularity.expect("projection watches");
        println!("rtol {rtol:e}: closest passage {passage:?}");
        assert!(passage.ratio > 1e-3, "rtol {rtol:e}: {passage:?}");
    }
}

/// Bricard's multipliers are unique only up to the left null space of Φ_q (its redundant
/// constraint): rigid bodies leave the split of the loop's internal force between the joints
/// undetermined. The Newton corrections are minimum-norm, so a component along the unit null
/// vector μ of Φ_qᵀ in the Newton start stays: the start extrapolated from the last two λ fed one
/// in at every step as μ turned, and at h = 1e-3 s the joint reactions grew to 1 200 N by
/// t = 10 s (28 N without), the motion unchanged. After a least-squares solve the start is the last
/// λ; after a pinned one the start keeps the last λ's component along μ. Either way that component
/// follows the motion from the minimum-norm start, the same for every scheme, path and Newton
/// method (12 N of 45 N at most here), and λ stays of the size of the joint forces. Measured at
/// every sample against μ from an SVD of Φ_qᵀ.
#[test]
fn bricard_multipliers_do_not_drift() {
    use dynastep::formulation::{LinearSolver, NewtonMethod};
    use dynastep::linalg::Matrix;
    let base = model("bricard");
    let full = NewtonMethod::Full;
    let cases = [
        (
            "generalized-alpha",
            "index3",
            LinearSolver::Sparse,
            NewtonMethod::Modified,
            10.0,
        ),
        (
            "generalized-alpha",
            "index3",
            LinearSolver::Sparse,
            full,
            10.0,
        ),
        (
            "generalized-alpha",
            "index3",
            LinearSolver::Dense,
            full,
            2.0,
        ),
        ("esdirk4-6", "index3", LinearSolver::Sparse, full, 10.0),
        ("lms2", "index3", LinearSolver::Sparse, full, 10.0),
        (
            "generalized-alpha",
            "stabilized-index2",
            LinearSolver::Sparse,
            full,
            10.0,
        ),
    ];
    for (scheme, formulation, solver, method, t_end) in cases {
        let mut m = base.clone();
        m.solver.newton.linear_solver = solver;
        m.solver.newton.method = method;
        let run = run_with(
            &m,
            &RunOptions {
                scheme: Some(scheme.to_string()),
                formulation: Some(formulation.to_string()),
                t_end: Some(t_end),
                ..RunOptions::default()
            },
        );
        run.assert_completed();
        let (n, rows) = (run.system.n(), run.system.m());
        let (mut along, mut largest) = (0.0_f64, 0.0_f64);
        for x in &run.rec.states {
            let mut phi_q = Matrix::zeros(rows, n);
            run.system.constraint_jacobian(x.t, &x.q, 1.0, &mut phi_q);
            // μ as a right singular vector of Φ_qᵀ: the left ones of Φ_q for a zero singular value
            // come out inaccurate.
            let svd = phi_q.transpose().svd(false, true);
            let v_t = svd.v_t.expect("right singular vectors");
            let mu = v_t.row(svd.singular_values.imin()).transpose();
            along = along.max(mu.dot(&x.lambda).abs());
            largest = largest.max(x.lambda.amax());
        }
        let case = format!("{scheme} + {formulation}, {solver:?}, {method:?}, {t_end} s");
        println!("{case}: |μᵀλ| at most {along:.2e}, |λ| at most {largest:.1}");
        assert!(largest < 100.0, "{case}: multipliers grew to {largest:e}");
        assert!(along < 0.3 * largest, "{case}: |μᵀλ| = {along:e}");
    }
}

/// The largest |E − E₀| over the samples of a run \[J\].
fn energy_drift(run: &Run) -> f64 {
    let mut scratch = dynastep::Vector::zeros(run.system.n());
    let mut energy = |k: usize| {
        let x = &run.rec.states[k];
        let e = run.system.energy(x.t, &x.q, &x.v, &mut scratch);
        e.kinetic + e.potential
    };
    let e0 = energy(0);
    (0..run.rec.states.len())
        .map(|k| (energy(k) - e0).abs())
        .fold(0.0, f64::max)
}

/// The benchmark's measure: the RMS over the 1001 samples of the slider coordinate s against the
/// converged reference (reference/spatial/flyball_governor.csv: DOP853, rtol 1e-12, its distance
/// to rtol 1e-11 is 4e-15 m RMS), at the example's h = 1e-3 s and at half of it.
#[test]
fn flyball_governor_slider_rms_error() {
    let rows = reference("spatial/flyball_governor.csv");
    let rms = |dt: f64| {
        let run = run_with(
            &model("flyball-governor"),
            &RunOptions {
                dt: Some(dt),
                ..RunOptions::default()
            },
        );
        run.assert_completed();
        let sum: f64 = rows
            .iter()
            .map(|row| {
                let k = sample_at(&run.rec, row[0]);
                (pose(&run, "slider", k)[2] - row[1]).powi(2)
            })
            .sum();
        (sum / rows.len() as f64).sqrt()
    };
    let (coarse, fine) = (rms(1e-3), rms(5e-4));
    println!("slider s: RMS error {coarse:.2e} m at h = 1e-3 s, {fine:.2e} m at 5e-4 s");
    assert!(coarse < 1e-4, "RMS error {coarse:e} m at h = 1e-3 s");
    let order = (coarse / fine).log2();
    assert!((1.8..2.3).contains(&order), "observed order {order:.2}");
}

/// The spatial top (Euler parameters, spherical joint) against the equation-based top of
/// `spinning-top` (ZXZ Euler angles, no constraints), both given the spatial top's inertia and
/// released from θ = π/6 spinning at ω3 = 4π rad/s without precession, so that the top nods
/// (nutation) as it starts to precess: the symmetry axes agree over 2 s.
#[test]
fn spatial_top_follows_the_euler_angle_top() {
    let (theta, w3, l) = (
        std::f64::consts::FRAC_PI_6,
        4.0 * std::f64::consts::PI,
        0.05,
    );
    let tight = RunOptions {
        scheme: Some("esdirk4-6".into()),
        dt: Some(1e-4),
        t_end: Some(2.0),
        output_interval: Some(0.01),
        step: dynastep::analysis::step_control::StepSettings {
            rtol: Some(1e-12),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    // Spatial: ω = ω3 e3, e3 = (0, −sin θ, cos θ); centroid velocity ω × r, r = l e3 (zero).
    let mut spatial = model("spatial-top");
    let top = &mut spatial.spatial.as_mut().unwrap().bodies[0];
    top.angular_velocity = [0.0, -w3 * theta.sin(), w3 * theta.cos()];
    top.velocity = [0.0; 3];
    let a = run_with(&spatial, &tight);
    a.assert_completed();
    // Equation-based: same inertia about the tip, φ̇ = 0, ψ̇ = ω3.
    let mut euler = model("spinning-top");
    let e = euler.equations.as_mut().unwrap();
    e.parameters.insert("I1".into(), 1e-4 + 0.02 * l * l);
    e.initial.insert("theta".into(), theta);
    e.initial.insert("psi_dot".into(), w3);
    let b = run_with(&euler, &tight);
    b.assert_completed();
    let (mut worst, mut nod) = (0.0_f64, 0.0_f64);
    for (xa, xb) in a.rec.states.iter().zip(&b.rec.states) {
        assert!((xa.t - xb.t).abs() < 1e-12);
        let axis = body_axis(&pose(&a, "top", sample_at(&a.rec, xa.t))[3..], 2);
        let (phi, th) = (xb.q[0], xb.q[1]);
        let other = [th.sin() * phi.sin(), -th.sin() * phi.cos(), th.cos()];
        let d = (0..3)
            .map(|k| (axis[k] - other[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        worst = worst.max(d);
        nod = nod.max((th - theta).abs());
    }
    println!("symmetry axes within {worst:.2e} over 2 s; nutation up to {nod:.3} rad");
    assert!(nod > 1e-3, "the test must exercise nutation");
    assert!(worst < 1e-6, "axes differ by {worst:e}");
}

/// The spatial slider-crank with its crank driven at 6 rad/s (a rotation driver on joint A):
/// kinematic analysis puts the slider at its closed form x(θ) = √(0.3² − (0.1 − 0.08 sin θ)² −
/// (0.12 + 0.08 cos θ)²), θ = 6t; inverse dynamics balances the driver's work against the energy
/// (Simpson's rule, the check's error falling at fourth order with the output interval).
#[test]
fn driven_spatial_slider_crank_kinematics_and_inverse_dynamics() {
    use dynastep::analysis::dynamic::{Recorder, RunStatus};
    use dynastep::analysis::kinematics::{self, KinematicSettings};
    use dynastep::model::function::{FunctionSpec, TaggedFunction};
    use dynastep::model::{DriverKind, DriverSpec};
    use dynastep::system::multibody::Multibody;
    let mut m = model("spatial-slider-crank");
    let function = FunctionSpec::Tagged(TaggedFunction::Expression { expr: "6*t".into() });
    m.spatial.as_mut().unwrap().drivers.push(DriverSpec {
        name: "crank".into(),
        kind: DriverKind::Joint,
        joint: Some("A".into()),
        body: None,
        coordinate: None,
        motion: None,
        function,
    });
    let sys = Multibody::new(&m).expect("builds");
    let (x0, _) = dynastep::analysis::simulation::assembled(&m, &sys).expect("assembles");
    let analyse = |interval: f64, rec: &mut Recorder| {
        let settings = KinematicSettings {
            t_end: 1.0,
            output_interval: interval,
            inverse: true,
            ..Default::default()
        };
        kinematics::run(&sys, &x0, &settings, &mut [rec]).expect("fully driven")
    };
    let mut rec = Recorder::default();
    let report = analyse(0.01, &mut rec);
    assert_eq!(report.status, RunStatus::Completed);
    let slider = sys.body_index("slider").unwrap();
    let worst = rec
        .states
        .iter()
        .map(|x| {
            let th = 6.0 * x.t;
            let (s, c) = th.sin_cos();
            let exact = (0.09 - (0.1 - 0.08 * s).powi(2) - (0.12 + 0.08 * c).powi(2)).sqrt();
            (sys.body_pose(slider, &x.q)[0] - exact).abs()
        })
        .fold(0.0, f64::max);
    let coarse = report.energy.expect("inverse").max_residual;
    let fine = analyse(0.005, &mut Recorder::default())
        .energy
        .unwrap()
        .max_residual;
    let order = (coarse / fine).log2();
    println!("slider within {worst:.1e} m of the closed form; energy check {coarse:.2e} J, order {order:.2}");
    assert!(worst < 1e-10, "slider {worst:e} m from the closed form");
    assert!(order > 3.5, "energy check order {order}");
}
