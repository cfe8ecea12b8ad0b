//! Fox–Goodwin (Newmark γ = ½, β = 1/12) on the undamped oscillator ẍ + ω²x = 0, run through the full
//! time loop: bounded below Ω = ωh = √6 and growing above it (Newmark stability limit,
//! Ω_crit = 1/√(γ/2 − β) = √6), and its period error is fourth order.

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, Recorder, RunStatus};
use dynastep::analysis::failure::FailureKind;
use dynastep::formulation::NewtonSettings;
use dynastep::scheme::{build, SchemeParams, State};
use dynastep::system::test_problems::LinearOscillator;
use dynastep::Vector;

/// Largest |x| over `steps` steps of size Ω/ω from x = 1, v = 0, and whether the run stopped because
/// its energy balance diverged.
fn max_amplitude(scheme: &str, omega_h: f64, steps: usize) -> (f64, bool) {
    let sys = LinearOscillator {
        omega: 1.0,
        xi: 0.0,
    };
    let mut x0 = State::zeros(0.0, 1, 0);
    x0.q = Vector::from_vec(vec![1.0]);
    consistent_accelerations(&sys, &mut x0);
    let mut s = build(scheme, &SchemeParams::new()).unwrap();
    let settings = DynamicSettings {
        h: omega_h,
        t_end: steps as f64 * omega_h,
        output_interval: 0.0,
        newton: NewtonSettings::default(),
        ..DynamicSettings::default()
    };
    let mut rec = Recorder::default();
    let r = run(&sys, s.as_mut(), &x0, &settings, &mut [&mut rec]);
    eprintln!("Ω = {omega_h}: {:?}", r.status);
    let diverged = matches!(
        r.status,
        RunStatus::Failed { ref reason, .. } if reason.kind == FailureKind::Diverged
    );
    let amplitude = rec.states.iter().map(|x| x.q[0].abs()).fold(0.0, f64::max);
    (amplitude, diverged)
}

#[test]
fn fox_goodwin_is_stable_below_sqrt6_and_unstable_above() {
    let crit = 6f64.sqrt();
    let (below, stopped) = max_amplitude("fox-goodwin", crit * 0.99, 2000);
    let (above, diverged) = max_amplitude("fox-goodwin", crit * 1.01, 2000);
    // Below the limit the discrete energy is conserved: the amplitude stays bounded (the discrete
    // orbit is an ellipse slightly different from the circle, so allow a modest factor).
    assert!(
        below < 10.0 && !stopped,
        "amplitude {below} below the limit"
    );
    // Above it the amplitude grows; the time loop's divergence watch stops the run once the energy
    // error exceeds every energy the run has shown (analysis/divergence.rs).
    assert!(
        above > 1e6 || diverged,
        "amplitude {above} above the limit should grow"
    );
}

#[test]
fn fox_goodwin_period_error_is_fourth_order() {
    // Phase after a fixed time T = 20 (about 3 periods) for two step sizes: the error of x(T) falls by
    // about 2⁴ when h halves.
    let sys = LinearOscillator {
        omega: 1.0,
        xi: 0.0,
    };
    let err = |h: f64| {
        let mut x0 = State::zeros(0.0, 1, 0);
        x0.q = Vector::from_vec(vec![1.0]);
        consistent_accelerations(&sys, &mut x0);
        let mut s = build("fox-goodwin", &SchemeParams::new()).unwrap();
        let settings = DynamicSettings {
            h,
            t_end: 20.0,
            output_interval: 0.0,
            newton: NewtonSettings::default(),
            ..DynamicSettings::default()
        };
        let r = run(&sys, s.as_mut(), &x0, &settings, &mut []);
        (r.final_state.q[0] - 20f64.cos()).abs()
    };
    let (e1, e2) = (err(0.1), err(0.05));
    let order = (e1 / e2).log2();
    assert!(
        (order - 4.0).abs() < 0.3,
        "observed order {order} ({e1:.3e} -> {e2:.3e})"
    );
}
