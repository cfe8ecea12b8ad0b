//! The angle pendulum's reference solution and error measure, shared by the order tests (included
//! with `#[path]`).
#![allow(dead_code)]

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, RunStatus};
use dynastep::scheme::{build, SchemeParams, State};
use dynastep::system::test_problems::AnglePendulum;

/// θ̈ = −(g/L) sin θ with g/L = 9.81 s⁻², integrated by classical RK4 with step `h` [s] from
/// (θ0, 0) to `t_end` [s]: (θ [rad], θ̇ [rad/s]). Its error is O(h⁴).
pub fn rk4_pendulum(theta0: f64, t_end: f64, h: f64) -> (f64, f64) {
    let f = |y: [f64; 2]| [y[1], -9.81 * y[0].sin()];
    let mut y = [theta0, 0.0];
    for _ in 0..(t_end / h).round() as usize {
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    (y[0], y[1])
}

/// Error at `settings.t_end` of the pendulum angle ODE (m = 1 kg, L = 1 m, θ₀ = 1 rad, at rest)
/// integrated by `scheme` with `params` and `settings`, against `reference` (θ, θ̇):
/// max(|θ − θ_ref|, |θ̇ − θ̇_ref| / 3) (θ̇ reaches about 3 rad/s). Panics unless the run completes.
pub fn angle_error(
    scheme: &str,
    params: &SchemeParams,
    settings: &DynamicSettings,
    reference: (f64, f64),
) -> f64 {
    let sys = AnglePendulum {
        mass: 1.0,
        length: 1.0,
        g: 9.81,
    };
    let mut x0 = State::zeros(0.0, 1, 0);
    x0.q[0] = 1.0;
    consistent_accelerations(&sys, &mut x0);
    let mut s = build(scheme, params).unwrap();
    let r = run(&sys, s.as_mut(), &x0, settings, &mut []);
    assert_eq!(r.status, RunStatus::Completed, "{scheme}");
    (r.final_state.q[0] - reference.0)
        .abs()
        .max((r.final_state.v[0] - reference.1).abs() / 3.0)
}
