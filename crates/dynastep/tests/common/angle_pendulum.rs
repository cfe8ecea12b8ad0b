//! The IFToMM simple pendulum in one angle (1 kg, 1 m, g = 9.81 m/s², released at rest from the
//! horizontal), the set-up of Tables 1–2 of Fernández de Bustos, Uriarte, Urkullu & Coria (2024),
//! Mathematics 12:2862, shared by the tests of the central-difference family.

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, RunStatus};
use dynastep::scheme::{build, SchemeParams, State};
use dynastep::system::test_problems::AnglePendulum;

/// Max |E − E₀| \[J\] over [0, t_end] of `scheme` with `params` at the fixed step h.
///
/// # Panics
/// When the scheme is unknown or the run does not complete at t_end.
pub fn energy_drift(scheme: &str, params: &SchemeParams, h: f64, t_end: f64) -> f64 {
    let sys = AnglePendulum {
        mass: 1.0,
        length: 1.0,
        g: 9.81,
    };
    let mut x0 = State::zeros(0.0, 1, 0);
    x0.q[0] = std::f64::consts::FRAC_PI_2;
    consistent_accelerations(&sys, &mut x0);
    let mut s = build(scheme, params).unwrap();
    let settings = DynamicSettings {
        h,
        t_end,
        output_interval: 0.0,
        ..DynamicSettings::default()
    };
    let r = run(&sys, s.as_mut(), &x0, &settings, &mut []);
    assert_eq!(r.status, RunStatus::Completed, "{scheme}");
    assert!((r.final_state.t - t_end).abs() < 1e-6 * h.max(1e-9) + 1e-9);
    r.max_energy_error
}
