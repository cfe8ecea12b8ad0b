//! Equilibrium analysis of the spring-loaded linkage (`examples/spring-linkage.toml`) by its three
//! methods, against the stationary points of the closed-form potential written here:
//!
//! V(θ) = g (m_crank + m_rod) (r/2) sin θ + k/2 (W_x − x_B(θ) − l0)²,
//! x_B(θ) = r cos θ + sqrt(l² − r² sin² θ),
//!
//! found by bisection on V′(θ). The stable equilibrium is its minimum, the unstable one its maximum.

use dynastep::analysis::dynamic::DynamicSettings;
use dynastep::analysis::equilibrium::settle::SettleSettings;
use dynastep::analysis::equilibrium::{self, Equilibrium, EquilibriumError, StaticSettings};
use dynastep::analysis::simulation::{assembled, RunOptions, Simulation};
use dynastep::model::{parse, Model};
use dynastep::system::planar::PlanarSystem;

const R: f64 = 0.1;
const L: f64 = 0.3;
const G: f64 = 9.81;

/// V′(θ) of the linkage.
fn dv(th: f64) -> f64 {
    let (s, c) = th.sin_cos();
    let d = (L * L - R * R * s * s).sqrt();
    let xb = R * c + d;
    let xb_th = -R * s - R * R * s * c / d;
    G * (0.5 + 1.0) * (R / 2.0) * c - 50.0 * (0.6 - xb - 0.25) * xb_th
}

/// The root of V′ in [a, b] by bisection.
fn root(mut a: f64, mut b: f64) -> f64 {
    assert!(dv(a) * dv(b) < 0.0);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if dv(a) * dv(m) <= 0.0 {
            b = m;
        } else {
            a = m;
        }
    }
    0.5 * (a + b)
}

fn linkage(overrides: &[String]) -> Model {
    let ex = dynastep::examples::find("spring-linkage").expect("embedded");
    parse::from_str_with_overrides(ex.text, ex.file, overrides).expect("valid")
}

fn crank_angle(sys: &PlanarSystem, e: &Equilibrium) -> f64 {
    let b = sys.body_index("crank").expect("body");
    sys.body_pose(b, &e.state.q)[2]
}

fn static_method(
    method: fn(
        &PlanarSystem,
        f64,
        &dynastep::linalg::Vector,
        &StaticSettings,
    ) -> Result<Equilibrium, EquilibriumError>,
    overrides: &[String],
) -> (PlanarSystem, Equilibrium) {
    let m = linkage(overrides);
    let sys = PlanarSystem::new(&m).expect("valid");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let e = method(&sys, x0.t, &x0.q, &StaticSettings::default()).expect("converges");
    (sys, e)
}

#[test]
fn the_three_methods_find_the_stable_equilibrium() {
    let stable = root(-1.5, -1.0);
    let (sys, newton) = static_method(equilibrium::newton::solve, &[]);
    let (_, potential) = static_method(equilibrium::potential::solve, &[]);
    let m = linkage(&[]);
    let opts = RunOptions {
        t_end: Some(60.0),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&m, &opts).expect("valid");
    let settings: DynamicSettings = sim.settings;
    let settle = SettleSettings {
        damping: 20.0,
        v_tol: 1e-10,
        // At rest the index-3 iteration leaves accelerations of order its force tolerance.
        a_tol: 1e-7,
    };
    let (report, settled) = equilibrium::settle::solve(
        &sim.system,
        sim.scheme.as_mut(),
        &sim.initial,
        &settings,
        &settle,
        &mut [],
    );
    let settled = settled.expect("settles");
    println!(
        "settled in {} steps at t = {}",
        report.steps, report.final_state.t
    );
    for (name, e) in [
        ("newton", &newton),
        ("potential", &potential),
        ("settle", &settled),
    ] {
        let th = crank_angle(&sys, e);
        println!(
            "{name}: θ = {th:.15} (closed form {stable:.15}, error {:.2e}), residual {:.2e}, {:?}",
            th - stable,
            e.residual,
            e.stability
        );
        assert!(
            (th - stable).abs() < 1e-8,
            "{name}: θ = {th}, expected {stable}"
        );
        assert_eq!(e.stability.verdict, "stable", "{name}");
        assert!(
            e.residual < 1e-8 && e.constraint_violation < 1e-10,
            "{name}"
        );
    }
    // Same configuration, all coordinates.
    assert!((&newton.state.q - &potential.state.q).amax() < 1e-8);
    assert!((&newton.state.q - &settled.state.q).amax() < 1e-8);
}

#[test]
fn newton_near_the_unstable_equilibrium_reports_it_unstable() {
    let unstable = root(2.0, 2.3);
    let (sys, e) = static_method(
        equilibrium::newton::solve,
        &["bodies.crank.theta=2.1".to_string()],
    );
    let th = crank_angle(&sys, &e);
    println!(
        "θ = {th:.15} (closed form {unstable:.15}), {:?}",
        e.stability
    );
    assert!((th - unstable).abs() < 1e-8);
    assert_eq!(e.stability.verdict, "unstable");
    assert!(e.stability.eigenvalues[0] < 0.0);
}

#[test]
fn minimum_potential_energy_refuses_a_non_conservative_load() {
    let ex = dynastep::examples::find("spring-linkage").expect("embedded");
    let text = format!(
        "{}\n[[forces]]\ntype = \"torque\"\nname = \"motor\"\nbody = \"crank\"\ntorque = 0.2\n",
        ex.text.split_once("[[markers]]").expect("markers").0
    );
    let m = parse::from_str(&text, "loaded.toml").expect("valid");
    let sys = PlanarSystem::new(&m).expect("valid");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let err = equilibrium::potential::solve(&sys, x0.t, &x0.q, &StaticSettings::default())
        .expect_err("not conservative");
    assert!(matches!(err, EquilibriumError::NotApplicable(_)), "{err}");
    assert!(err.to_string().contains("conservative"), "{err}");
    // Newton handles the load: the torque shifts the equilibrium so that V′(θ) = τ.
    let e = equilibrium::newton::solve(&sys, x0.t, &x0.q, &StaticSettings::default())
        .expect("converges");
    let th = crank_angle(&sys, &e);
    assert!(
        (dv(th) - 0.2).abs() < 1e-9,
        "V′(θ) = {} at θ = {th}",
        dv(th)
    );
}

#[test]
fn minimum_potential_energy_refuses_to_stop_on_a_maximum() {
    // The double four-bar's initial pose balances its bars upright: a stationary point where the
    // reduced gradient is zero but the potential is a maximum. Newton may report it (as unstable);
    // a minimization must not.
    let ex = dynastep::examples::find("double-fourbar").expect("embedded");
    let m = parse::from_str(ex.text, ex.file).expect("valid");
    let sys = PlanarSystem::new(&m).expect("valid");
    let (x0, _) = assembled(&m, &sys).expect("assembles");
    let newton = equilibrium::newton::solve(&sys, x0.t, &x0.q, &StaticSettings::default())
        .expect("the start is an equilibrium");
    assert_eq!(newton.stability.verdict, "unstable");
    let err = equilibrium::potential::solve(&sys, x0.t, &x0.q, &StaticSettings::default())
        .expect_err("a maximum is not a minimum");
    assert!(err.to_string().contains("not a minimum"), "{err}");
}
