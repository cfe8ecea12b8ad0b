//! The work of the non-conservative forces W_nc is integrated by Simpson's rule on the dense
//! output's midpoint for the schemes of order above two and those of the first-order form
//! (analysis/diagnostics.rs), so that the energy balance E − E₀ − W_nc measures the integrator and
//! not the trapezoidal rule's second-order quadrature. Each test failed with the trapezoidal rule.

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::parse::from_str_with_overrides;
use dynastep::model::settings::StepSettings;

/// Largest |E − E₀ − W_nc| over every step of `text` with the overrides `sets`, run with `opts`
/// \[J\].
fn max_balance(text: &str, file: &str, sets: &[&str], opts: &RunOptions) -> f64 {
    balances(text, file, sets, opts).0
}

/// The largest |E − E₀ − W_nc| over the steps and over the output rows of [`max_balance`]'s run
/// \[J\].
fn balances(text: &str, file: &str, sets: &[&str], opts: &RunOptions) -> (f64, f64) {
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.push(r#"solver.diagnostics="every-step""#.into());
    let model = from_str_with_overrides(text, file, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&model, opts).unwrap();
    let report = sim.run(&mut []);
    assert_eq!(report.status, RunStatus::Completed, "{file} {sets:?}");
    (report.max_energy_error, report.max_energy_error_rows)
}

/// A damped linear oscillator (m = 1 kg, k = 100 N/m, c = 2 N s/m: ζ = 0.1) from x = 0.1 m.
const OSCILLATOR: &str = r#"
name = "damped oscillator"
[equations]
coordinates = ["x"]
mass = [[1]]
forces = ["-100*x - 2*x_dot"]
potential = "50*x^2"
[equations.initial]
x = 0.1
[solver]
scheme = "rk4"
formulation = "direct"
t_end = 2.0
output_interval = 0.1
"#;

/// Under the classical Runge–Kutta method the balance falls at fourth order with the step: the
/// state's energy and W_nc both carry O(h⁴) errors. The trapezoidal rule held it at second order
/// (a ratio of 4.0 per halving).
#[test]
fn the_balance_of_a_damped_oscillator_converges_at_the_schemes_order() {
    let errors: Vec<f64> = [0.02, 0.01, 0.005]
        .iter()
        .map(|h| {
            let dt = format!("solver.dt={h}");
            max_balance(
                OSCILLATOR,
                "oscillator.toml",
                &[&dt],
                &RunOptions::default(),
            )
        })
        .collect();
    for pair in errors.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        println!("{:.3e} -> {:.3e}: order {order:.2}", pair[0], pair[1]);
        assert!(order > 3.5, "{errors:?}");
    }
}

/// A critically damped stiff spring (k = 1e6 N/m, c = 2e3 N s/m) beside a pendulum, under Adams
/// PECE at rtol 1e-6: the spring dissipates its 50 J within milliseconds. The trapezoidal rule left
/// the balance 0.31 J off while the state's energy was right to 1e-9 J (against ESDIRK4(3)6L at
/// rtol 1e-10).
#[test]
fn a_stiff_damper_under_adams_pece_balances() {
    let text = r#"
name = "stiff damped spring beside a pendulum"
[equations]
coordinates = ["x", "theta"]
mass = [["1", "0"], ["0", "1"]]
forces = ["-1e6*x - 2e3*x_dot", "-9.81*sin(theta)"]
potential = "0.5e6*x^2 - 9.81*cos(theta)"
[equations.initial]
x = 0.01
theta = 1.0
[solver]
scheme = "abm"
formulation = "direct"
t_end = 0.4
output_interval = 0.01
[solver.step]
rtol = 1e-6
"#;
    let e = max_balance(text, "stiff.toml", &[], &RunOptions::default());
    println!("max |E - E0 - W_nc| = {e:.3e} J");
    assert!(e < 1e-2, "{e}");
}

/// Andrews' squeezer (planar, a motor torque doing work) under DOPRI5 with coordinate projection at
/// rtol 1e-9: the balance is at the level of the tolerance (measured 2.7e-12 J); the trapezoidal
/// rule's error was 1.2e-6 J. At the output rows between the steps W_nc is interpolated by the
/// cubic Hermite polynomial through W and P (1.6e-10 J, the interpolated state's own energy
/// error); a straight line between the steps' W left 3.9e-7 J.
#[test]
fn a_planar_motor_under_dopri5_balances() {
    let e = dynastep::examples::find("andrews").expect("embedded example");
    let opts = RunOptions {
        scheme: Some("dopri5".into()),
        formulation: Some("projection".into()),
        step: StepSettings {
            rtol: Some(1e-9),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let (err, rows) = balances(e.text, e.file, &[], &opts);
    println!("max |E - E0 - W_nc| = {err:.3e} J over the steps, {rows:.3e} J over the rows");
    assert!(err < 1e-9, "{err}");
    assert!(rows < 1e-8, "{rows}");
}
