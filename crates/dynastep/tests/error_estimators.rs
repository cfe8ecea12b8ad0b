//! Every local error estimator against the true local error on a smooth ODE, the oscillator
//! q̈ = −q: after 1 s of fixed steps, one more step is compared with the exact flow over the same
//! step. For a single-step scheme the step starts from the scheme's own state (q_n, v_n, and its
//! auxiliary variables), e = x_{n+1} − φ_h(x_n). For a scheme with two or more levels every
//! history level is first overwritten with the exact solution (the history is data), so that e is
//! the local truncation error x_{n+1} − x(t_{n+1}) of the textbook definition; the auxiliaries of
//! SS-k, which keep the last level for their predictor, move with their level. An estimator of the right
//! leading constant gives est/e → 1 as h → 0; the test asks for 0.8 … 1.25 at h = 0.01 and that
//! the ratio moves towards 1 when h halves (or stays within 2 %).
//!
//! Embedded Runge–Kutta pairs estimate the error of their lower-order solution, O(h^p) for a
//! method of order p, and advance with the higher-order one (local extrapolation): for them the
//! test asks that the estimate falls as h^p (within 0.3) and bounds the true error of the step.
//! Adams PECE does the same (it estimates the order-k corrector and keeps the order-(k+1) one);
//! it runs at `max_order = 3`, whose estimate falls as h⁴ (at its default order 12 the true local
//! error is below rounding at these steps).

use dynastep::analysis::step::{solve_step, StepWork};
use dynastep::formulation::{self, NewtonStats};
use dynastep::scheme::{build, LocalError, SchemeParams, State, REGISTRY};
use dynastep::system::test_problems::LinearOscillator;
use dynastep::Vector;

/// Parameters of the scheme in this test: defaults, except Adams PECE at order 3.
fn params(name: &str) -> SchemeParams {
    let mut p = SchemeParams::new();
    if name == "abm" {
        p.insert("max_order".to_string(), 3.0);
    }
    p
}

/// Moves the auxiliaries of SS-k (which lag v and a, `scheme/single_step.rs`) with the levels
/// overwritten by the exact solution: by `dv` (position chain) and `da` (velocity chain), so that
/// they keep their lags about the exact derivatives.
fn shift_auxiliaries(hist: &mut dynastep::scheme::History, dv: f64, da: f64) {
    for (s, name) in hist.aux_names.iter().enumerate() {
        if name.ends_with("(velocity chain) real part") {
            hist.aux[s][0] += da;
        } else if name.ends_with("(position chain) real part") {
            hist.aux[s][0] += dv;
        }
    }
}

/// (estimate, true error) of q and v for the step after 1 s of steps of size `h`.
fn estimate_and_truth(name: &str, h: f64) -> ([f64; 2], [f64; 2]) {
    let sys = LinearOscillator {
        omega: 1.0,
        xi: 0.0,
    };
    let mut scheme = build(name, &params(name)).expect("registered");
    let mut form = formulation::build::<LinearOscillator>("index3", 1, 0, &Default::default())
        .expect("registered");
    let mut x = State::zeros(0.0, 1, 0);
    x.q[0] = 1.0;
    x.a[0] = -1.0;
    scheme.start(&x, &Vector::from_element(1, 1.0));
    let mut work = StepWork::new(1, 0);
    let mut stats = NewtonStats::default();
    let steps = (1.0 / h).round() as usize;
    let mut err = LocalError::zeros(1);
    for k in 0..=steps {
        let t_n = k as f64 * h;
        if k == steps && scheme.history().filled >= 2 {
            let hist = scheme.history_mut();
            let (v_was, a_was) = (hist.levels[0].v[0], hist.levels[0].a[0]);
            for j in 0..hist.filled {
                let (t, level) = (t_n - j as f64 * h, &mut hist.levels[j]);
                level.t = t;
                (level.q[0], level.v[0], level.a[0]) = (t.cos(), -t.sin(), -t.cos());
            }
            (x.q[0], x.v[0]) = (t_n.cos(), -t_n.sin());
            shift_auxiliaries(hist, -t_n.sin() - v_was, -t_n.cos() - a_was);
        }
        let (q_n, v_n) = (x.q[0], x.v[0]);
        solve_step(
            &sys,
            scheme.as_mut(),
            form.as_mut(),
            &mut work,
            t_n,
            h,
            &mut stats,
            None,
        )
        .expect("solves");
        let has = scheme.local_error(&mut err);
        assert!(has, "{name} declares an estimator but gives none");
        scheme.end_step(&mut x);
        if k == steps {
            let (s, c) = h.sin_cos();
            let (q_exact, v_exact) = (q_n * c + v_n * s, -q_n * s + v_n * c);
            return ([err.q[0], err.v[0]], [x.q[0] - q_exact, x.v[0] - v_exact]);
        }
    }
    unreachable!()
}

#[test]
fn estimates_match_the_true_local_error() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for info in REGISTRY.iter().filter(|i| i.caps.error_estimate.is_some()) {
        let (est, truth) = estimate_and_truth(info.name, 0.01);
        let (est2, truth2) = estimate_and_truth(info.name, 0.005);
        let embedded = info.name == "abm"
            || info
                .caps
                .error_estimate
                .is_some_and(|e| e.starts_with("embedded"));
        for (c, what) in ["q", "v"].iter().enumerate() {
            if embedded {
                let slope = (est[c] / est2[c]).abs().log2();
                println!(
                    "{:20} {what}: estimate {:.3e} -> {:.3e} (slope {slope:.2}), true {:.3e} -> {:.3e}",
                    info.name, est[c], est2[c], truth[c], truth2[c]
                );
                let p = if info.name == "abm" {
                    4.0
                } else {
                    f64::from(info.caps.order)
                };
                if (slope - p).abs() > 0.3 || est[c].abs() < truth[c].abs() {
                    failures.push(format!(
                        "{} {what}: embedded estimate {:.3e} -> {:.3e} (slope {slope:.2}, order {p}) against true {:.3e}",
                        info.name, est[c], est2[c], truth[c]
                    ));
                }
                continue;
            }
            let ratio = est[c] / truth[c];
            let ratio2 = est2[c] / truth2[c];
            println!(
                "{:20} {what}: est/true = {ratio:.4} at h = 0.01, {ratio2:.4} at h = 0.005 (true {:.3e}, {:.3e})",
                info.name, truth[c], truth2[c]
            );
            if !(0.8..1.25).contains(&ratio) {
                failures.push(format!(
                    "{} {what}: estimate {:.3e} against true local error {:.3e}",
                    info.name, est[c], truth[c]
                ));
            }
            if (ratio2 - 1.0).abs() > (ratio - 1.0).abs() + 0.02 {
                failures.push(format!(
                    "{} {what}: est/true moves away from 1 ({ratio} → {ratio2})",
                    info.name
                ));
            }
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} schemes with estimators");
    assert!(failures.is_empty(), "{failures:#?}");
}
