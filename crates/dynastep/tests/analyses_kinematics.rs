//! Kinematic and inverse dynamic analysis of the driven slider-crank (`examples/slider-crank.toml`)
//! against closed forms written here, independent of dynastep:
//! - the slider position, velocity and acceleration x(θ(t)) and its derivatives;
//! - the driver torque from the principle of virtual power (Newton–Euler projected on the motion),
//!   with the kinematics of every body in closed form;
//! - every body's Newton–Euler balance with the joint reactions and the driver torque;
//! - the refusals: an undriven model, conflicting drivers, a drive through a dead point.

use dynastep::analysis::dynamic::{Recorder, RunStatus};
use dynastep::analysis::kinematics::{self, KinematicError, KinematicReport, KinematicSettings};
use dynastep::analysis::simulation::assembled;
use dynastep::model::{parse, Model};
use dynastep::system::planar::PlanarSystem;
use dynastep::system::System;

const R: f64 = 0.1;
const L: f64 = 0.3;
const OMEGA: f64 = 2.0 * std::f64::consts::PI;
const G: f64 = 9.81;

/// Crank angle θ(t) and slider x, ẋ, ẍ in closed form.
struct Exact {
    s: f64,
    c: f64,
    d: f64,
    x: f64,
    xd: f64,
    xdd: f64,
}

fn exact(t: f64) -> Exact {
    let th = std::f64::consts::FRAC_PI_4 + OMEGA * t;
    let (s, c) = th.sin_cos();
    let d = (L * L - R * R * s * s).sqrt();
    // x = r c + D, D_θ = −r² s c / D, D_θθ = −r² (c² − s²)/D − r⁴ s² c² / D³.
    let d_th = -R * R * s * c / d;
    let d_thth = -R * R * (c * c - s * s) / d - R.powi(4) * s * s * c * c / d.powi(3);
    Exact {
        s,
        c,
        d,
        x: R * c + d,
        xd: (-R * s + d_th) * OMEGA,
        xdd: (-R * c + d_thth) * OMEGA * OMEGA,
    }
}

/// The driver torque from virtual power: τ ω = Σ (m a·v + I α ω) + Σ m g v_y − P_spring.
fn exact_torque(t: f64) -> f64 {
    let e = exact(t);
    let (s, c, w) = (e.s, e.c, OMEGA);
    // Crank: 0.5 kg, I = 0.000416667, centroid at r/2 along the crank, α = 0.
    let (mc, vc, ac) = (
        0.5,
        [-0.5 * R * w * s, 0.5 * R * w * c],
        [-0.5 * R * w * w * c, -0.5 * R * w * w * s],
    );
    // Rod: 1 kg, I = 0.0075, centroid midway between A = r (c, s) and B = (x, 0).
    let va = [-R * w * s, R * w * c];
    let aa = [-R * w * w * c, -R * w * w * s];
    let (mr, ir) = (1.0, 0.0075);
    let vr = [(va[0] + e.xd) / 2.0, va[1] / 2.0];
    let ar = [(aa[0] + e.xdd) / 2.0, aa[1] / 2.0];
    let phid = -R * c * w / e.d;
    let phidd = R * s * w * w / e.d - R.powi(3) * s * c * c * w * w / e.d.powi(3);
    // Slider: 2 kg on the x axis; spring-damper to W = (0.6, 0), k = 50, l0 = 0.25, c = 2.
    let ms = 2.0;
    let (len, len_d) = (0.6 - e.x, -e.xd);
    let tension = 50.0 * (len - 0.25) + 2.0 * len_d;
    let inertia = mc * (ac[0] * vc[0] + ac[1] * vc[1])
        + mr * (ar[0] * vr[0] + ar[1] * vr[1])
        + ir * phidd * phid
        + ms * e.xdd * e.xd;
    let gravity = G * (mc * vc[1] + mr * vr[1]);
    (inertia + gravity - tension * e.xd) / w
}

fn model(name: &str) -> Model {
    let ex = dynastep::examples::find(name).expect("embedded example");
    parse::from_str(ex.text, ex.file).expect("valid example")
}

fn analyse(model: &Model, inverse: bool) -> (PlanarSystem, KinematicReport, Recorder) {
    let sys = PlanarSystem::new(model).expect("valid model");
    let (x0, _) = assembled(model, &sys).expect("assembles");
    let settings = KinematicSettings {
        t_end: 2.0,
        output_interval: 0.01,
        inverse,
        ..Default::default()
    };
    let mut rec = Recorder::default();
    let report = kinematics::run(&sys, &x0, &settings, &mut [&mut rec]).expect("fully driven");
    assert_eq!(report.status, RunStatus::Completed);
    (sys, report, rec)
}

#[test]
fn slider_kinematics_match_the_closed_form() {
    let (sys, _, rec) = analyse(&model("slider-crank"), false);
    let slider = sys
        .body(sys.body_index("slider").expect("body"))
        .first_coordinate();
    assert_eq!(rec.states.len(), 201);
    let mut worst = [0.0_f64; 3];
    for x in &rec.states {
        let e = exact(x.t);
        worst[0] = worst[0].max((x.q[slider] - e.x).abs());
        worst[1] = worst[1].max((x.v[slider] - e.xd).abs());
        worst[2] = worst[2].max((x.a[slider] - e.xdd).abs());
    }
    println!("max errors of x, ẋ, ẍ: {worst:?}");
    assert!(worst.iter().all(|e| *e < 1e-10), "{worst:?}");
}

#[test]
fn driver_torque_matches_virtual_power() {
    let (sys, report, rec) = analyse(&model("slider-crank"), true);
    let mut scale = 0.0_f64;
    let mut worst = 0.0_f64;
    for x in &rec.states {
        let reference = exact_torque(x.t);
        scale = scale.max(reference.abs());
        worst = worst.max((sys.driver_effort(0, &x.lambda) - reference).abs());
    }
    println!("driver torque: max |τ| = {scale:.6} N m, max error {worst:.3e} N m");
    assert!(scale > 0.1);
    assert!(worst < 1e-8 * scale, "torque error {worst:e} of {scale}");
    // Energy check: driver work + damper work = ΔT + ΔV, to the Simpson rule's accuracy, O(Δt⁴).
    let check = report.energy.expect("inverse dynamics checks energy");
    println!("{check:?}");
    assert!(check.driver_work.abs() > 0.1);
    assert!(
        check.max_residual < 1e-7 * check.driver_work.abs(),
        "{check:?}"
    );
    let finer = energy_residual(0.005);
    let order = (check.max_residual / finer).log2();
    println!(
        "energy check {:.3e} J at Δt = 0.01 s, {finer:.3e} J at 0.005 s: order {order:.2}",
        check.max_residual
    );
    assert!(order > 3.8, "energy check converges with order {order}");
}

fn energy_residual(output_interval: f64) -> f64 {
    let m = model("slider-crank");
    let sys = PlanarSystem::new(&m).expect("valid model");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let settings = KinematicSettings {
        t_end: 2.0,
        output_interval,
        inverse: true,
        ..Default::default()
    };
    let report = kinematics::run(&sys, &x0, &settings, &mut []).expect("fully driven");
    report.energy.expect("inverse").max_residual
}

fn cross(r: [f64; 2], f: [f64; 2]) -> f64 {
    r[0] * f[1] - r[1] * f[0]
}

#[test]
fn reactions_balance_every_body() {
    let (sys, _, rec) = analyse(&model("slider-crank"), true);
    let joint = |name: &str| {
        sys.joint_names()
            .iter()
            .position(|j| *j == name)
            .expect("joint")
    };
    let (o, a_j, b_j, rail) = (joint("O"), joint("A"), joint("B"), joint("rail"));
    let marker = |name: &str| {
        sys.marker_names()
            .iter()
            .position(|m| *m == name)
            .expect("marker")
    };
    let (ma, mb) = (marker("A"), marker("B"));
    let mut worst = 0.0_f64;
    for x in &rec.states {
        let f = |k: usize| sys.joint_reaction(k, &x.q, &x.lambda);
        let (fo, fa, fb, fr) = (f(o), f(a_j), f(b_j), f(rail));
        let pa = sys.marker_state(ma, &x.q, &x.v).0;
        let pb = sys.marker_state(mb, &x.q, &x.v).0;
        let tau = sys.driver_effort(0, &x.lambda);
        let body = |name: &str| sys.body(sys.body_index(name).expect("body"));
        let (crank, rod, slider) = (body("crank"), body("rod"), body("slider"));
        let centroid = |b: &dynastep::system::planar::Body| {
            let i = b.first_coordinate();
            ([x.q[i], x.q[i + 1]], [x.a[i], x.a[i + 1], x.a[i + 2]])
        };
        // Crank: F_O at the origin (crank is body j of O), −F_A at A (body i of A), the driver.
        let (c, acc) = centroid(crank);
        let m = crank.mass();
        let rows = [
            m * acc[0] - (fo[0] - fa[0]),
            m * acc[1] - (fo[1] - fa[1] - m * G),
            crank.inertia().expect("rigid") * acc[2]
                - (cross([-c[0], -c[1]], [fo[0], fo[1]])
                    + cross([pa[0] - c[0], pa[1] - c[1]], [-fa[0], -fa[1]])
                    + tau),
        ];
        // Rod: F_A at A (body j of A), −F_B at B (body i of B).
        let (c, acc) = centroid(rod);
        let m = rod.mass();
        let rod_rows = [
            m * acc[0] - (fa[0] - fb[0]),
            m * acc[1] - (fa[1] - fb[1] - m * G),
            rod.inertia().expect("rigid") * acc[2]
                - (cross([pa[0] - c[0], pa[1] - c[1]], [fa[0], fa[1]])
                    + cross([pb[0] - c[0], pb[1] - c[1]], [-fb[0], -fb[1]])),
        ];
        // Slider: F_B and the rail's force and torque at its centroid, the spring-damper along x.
        let (c, acc) = centroid(slider);
        let m = slider.mass();
        let tension = 50.0 * (0.6 - c[0] - 0.25) - 2.0 * x.v[slider.first_coordinate()];
        let slider_rows = [
            m * acc[0] - (fb[0] + fr[0] + tension),
            m * acc[1] - (fb[1] + fr[1] - m * G),
            slider.inertia().expect("rigid") * acc[2]
                - (cross([pb[0] - c[0], pb[1] - c[1]], [fb[0], fb[1]]) + fr[2]),
        ];
        for r in rows.iter().chain(&rod_rows).chain(&slider_rows) {
            worst = worst.max(r.abs());
        }
    }
    println!("largest Newton–Euler imbalance {worst:.3e} N or N m");
    assert!(worst < 1e-9, "imbalance {worst:e}");
}

#[test]
fn undriven_model_is_refused_with_its_free_coordinate() {
    let m = model("spring-linkage");
    let sys = PlanarSystem::new(&m).expect("valid");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let err = kinematics::check_fully_driven(&sys, &x0, 1e-9).expect_err("undriven");
    let KinematicError::NotDriven {
        free, coordinates, ..
    } = &err
    else {
        panic!("wrong refusal: {err}")
    };
    assert_eq!(*free, 1);
    let labels: Vec<String> = (0..sys.n()).map(|i| sys.coordinate_label(i)).collect();
    assert!(labels.contains(coordinates), "{coordinates}");
    assert!(err.to_string().contains("not fully driven"));
}

/// The slider-crank's text with `drivers` in place of its crank driver.
fn with_drivers(drivers: &str, keep_crank_driver: bool) -> Model {
    let ex = dynastep::examples::find("slider-crank").expect("embedded");
    let (head, rest) = ex.text.split_once("[[drivers]]").expect("has a driver");
    let (crank_driver, tail) = rest.split_once("[[forces]]").expect("has forces");
    let mut text = head.to_string();
    if keep_crank_driver {
        text += &format!("[[drivers]]{crank_driver}");
    } else {
        // Without the crank driver the crank's speed is no longer given.
        text = text.replace("omega = 6.283185307179586\n", "");
    }
    text += &format!("{drivers}\n[[forces]]{tail}");
    parse::from_str(&text, "slider-crank-modified.toml").expect("valid model")
}

const PUSH: &str = r#"[[drivers]]
name = "push"
type = "joint"
joint = "rail"
function = { type = "ramp", slope = 0.1, initial = 0.36225827286091977 }
"#;

#[test]
fn conflicting_drivers_are_refused() {
    let m = with_drivers(PUSH, true);
    let sys = PlanarSystem::new(&m).expect("valid");
    let err = kinematics::check_fully_driven(&sys, &sys.initial_state(0.0), 1e-9)
        .expect_err("two drivers for one degree of freedom");
    assert!(matches!(err, KinematicError::Conflicting { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("driver `push`") && text.contains("driver `crank_speed`"),
        "{text}"
    );
}

#[test]
fn driving_through_a_dead_point_stops_with_the_time_and_the_joints() {
    // The slider pushed at 0.1 m/s from x0 = 0.3623 m reaches full extension r + l = 0.4 m at
    // t = 0.3775 s, where crank and rod align; past it no configuration exists.
    let m = with_drivers(PUSH, false);
    let sys = PlanarSystem::new(&m).expect("valid");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let settings = KinematicSettings {
        t_end: 1.0,
        output_interval: 0.01,
        ..Default::default()
    };
    let mut rec = Recorder::default();
    let report = kinematics::run(&sys, &x0, &settings, &mut [&mut rec]).expect("fully driven");
    let RunStatus::Failed { failed_at, reason } = &report.status else {
        panic!("ran through the dead point: {:?}", report.status)
    };
    println!("{reason}");
    assert_eq!(
        reason.kind,
        dynastep::analysis::failure::FailureKind::Singular
    );
    let reason = reason.to_string();
    assert!(
        (failed_at - 0.37).abs() < 1e-12,
        "stopped after {failed_at}"
    );
    assert!(reason.contains("dead point") && reason.contains("t = 0.38"));
    assert!(reason.contains("joint `A`") && reason.contains("driver `push`"));
    // Everything computed before is kept.
    assert_eq!(rec.states.len(), 38);
}
