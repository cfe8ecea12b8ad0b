//! `examples/slider-crank.toml`: the slider position against the closed-form kinematics of the
//! driven crank, and the energy balance E − E0 − W_nc (driver and damper work included).

#[path = "common/examples.rs"]
mod util;

const R: f64 = 0.1;
const L: f64 = 0.3;

fn exact_x(t: f64) -> f64 {
    let th = std::f64::consts::FRAC_PI_4 + 2.0 * std::f64::consts::PI * t;
    R * th.cos() + (L * L - (R * th.sin()).powi(2)).sqrt()
}

fn check(scheme: &str, params: &[(&str, f64)], h: f64) -> (f64, f64) {
    let model = util::model("slider-crank");
    let run = util::run(&model, scheme, params, h, Some(2.0), Some(0.01));
    run.assert_completed();
    let b = run.marker("B");
    let mut worst = 0.0f64;
    for (s, st) in run.rec.states.iter().enumerate() {
        let p = run.marker_at(b, s);
        worst = worst.max((p[0] - exact_x(st.t)).abs()).max(p[1].abs());
    }
    let balance = run
        .rec
        .energy_balance
        .iter()
        .fold(0.0f64, |m, e| m.max(e.abs()));
    println!(
        "{scheme} h = {h:e}: max |x - x_exact| = {worst:.3e} m, max |E - E0 - W_nc| = {balance:.3e} J, max violation {:?}",
        run.report.max_violation
    );
    (worst, balance)
}

#[test]
fn slider_crank_generalized_alpha() {
    let (x_err, balance) = check("generalized-alpha", &[], 1e-3);
    assert!(x_err < 1e-9, "slider position error {x_err:e}");
    assert!(balance < 1e-3, "energy balance {balance:e}");
}

#[test]
fn slider_crank_energy_balance_converges() {
    let (_, b1) = check("trapezoidal", &[], 2e-3);
    let (x2, b2) = check("trapezoidal", &[], 1e-3);
    assert!(x2 < 1e-9);
    assert!(
        b2 < b1,
        "energy balance should shrink with h: {b1:e} -> {b2:e}"
    );
}

/// The driver's torque column against the energy rate: with the crank driven at ω = 2π rad/s,
/// τ ω = dE/dt − P_damper, E = T + V, P_damper = −c ẋ² (the spring-damper on the slider). dE/dt by
/// fourth-order central differences of the sampled energy.
///
/// Generalized-α's multipliers start with an oscillation of alternating sign (1e-3 N m in the
/// first steps at h = 1e-4): the index-3 start-up transient of its spurious root, which decays like
/// ρ∞ⁿ (Arnold & Brüls 2007, Multibody Syst. Dyn. 18:185–202, §4). The comparison starts after
/// 0.05 s (500 steps, ρ∞ = 0.5); the transient itself is checked to decay.
#[test]
fn driver_torque_equals_the_energy_rate() {
    use dynastep::system::System;
    let model = util::model("slider-crank");
    let h = 1e-4;
    let run = util::run(
        &model,
        "generalized-alpha",
        &[("rho_inf", 0.5)],
        h,
        Some(0.5),
        Some(0.0),
    );
    run.assert_completed();
    let sys = run.system.planar().expect("a planar model");
    let slider = sys.body(run.body("slider")).first_coordinate();
    let mut scratch = dynastep::linalg::Vector::zeros(sys.n());
    let energy: Vec<f64> = run
        .rec
        .states
        .iter()
        .map(|x| {
            let e = sys.energy(x.t, &x.q, &x.v, &mut scratch);
            e.kinetic + e.potential
        })
        .collect();
    let omega = 2.0 * std::f64::consts::PI;
    let (mut worst, mut scale, mut start) = (0.0_f64, 0.0_f64, 0.0_f64);
    for k in 2..energy.len() - 2 {
        let x = &run.rec.states[k];
        let de = (-energy[k + 2] + 8.0 * energy[k + 1] - 8.0 * energy[k - 1] + energy[k - 2])
            / (12.0 * h);
        let damper = -2.0 * x.v[slider] * x.v[slider];
        let reference = (de - damper) / omega;
        let tau = sys.driver_effort(0, &x.lambda);
        if x.t < 0.05 {
            if k < 10 {
                start = start.max((tau - reference).abs());
            }
            continue;
        }
        scale = scale.max(reference.abs());
        worst = worst.max((tau - reference).abs());
    }
    println!("start-up transient: {start:.3e} N m in the first steps");
    assert!(
        worst < 1e-2 * start,
        "the start-up transient does not decay"
    );
    println!(
        "driver torque vs energy rate: max |τ| = {scale:.6} N m, max difference {worst:.3e} N m"
    );
    assert!(worst < 1e-6 * scale, "difference {worst:e} of {scale}");
}
