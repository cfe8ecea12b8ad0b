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
