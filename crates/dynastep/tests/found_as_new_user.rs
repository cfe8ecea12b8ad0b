//! Wrong results that models written from the docs alone found, each checked against an
//! independent value (a closed form, the model's own committed steps, the file's text). Every test
//! here failed on the code before its fix (6723c17).

use dynastep::analysis::dynamic::{Recorder, RunStatus};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::parse::{from_str, from_str_with_overrides};

fn example(name: &str) -> dynastep::model::types::Model {
    let e = dynastep::examples::find(name).expect("embedded example");
    from_str(e.text, e.file).unwrap_or_else(|err| panic!("{err}"))
}

/// `-w^2*x` is −(w²)·x, as in mathematics: the oscillator ẍ = −w²x with w = 2 and x(0) = 1 is
/// x = cos 2t (it read (−w)²x = +w²x, and x grew as cosh 2t).
#[test]
fn unary_minus_binds_more_loosely_than_a_power() {
    let text = r#"
name = "oscillator"
[equations]
coordinates = ["x"]
mass = [[1]]
forces = ["-w^2*x"]
potential = "w^2*x^2/2"
[equations.parameters]
w = 2.0
[equations.initial]
x = 1.0
[solver]
scheme = "trapezoidal"
dt = 1e-3
t_end = 1.0
"#;
    let model = from_str(text, "oscillator.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&model, &RunOptions::default()).unwrap();
    let report = sim.run(&mut []);
    assert_eq!(report.status, RunStatus::Completed);
    let x = report.final_state.q[0];
    // The trapezoidal rule's phase error at h = 1e-3 over 1 s is (wh)²/12·w t ≈ 7e-7 rad.
    assert!(
        (x - 2.0_f64.cos()).abs() < 1e-5,
        "x(1) = {x}, cos 2 = {}",
        2.0_f64.cos()
    );
    // The time functions read the same text the same way: a driver speed of `-t^2`.
    let f = dynastep::model::function::TimeFunction::new(
        &dynastep::model::function::FunctionSpec::Tagged(
            dynastep::model::function::TaggedFunction::Expression {
                expr: "-t^2".into(),
            },
        ),
    )
    .unwrap();
    assert_eq!(f.value(0.5), -0.25);
}

/// A spatial model refuses the top-level (planar) gravity instead of running without gravity, and
/// a three-component top-level gravity is pointed to `[spatial]`.
#[test]
fn a_spatial_model_refuses_the_planar_gravity_with_a_pointer() {
    let text = dynastep::examples::find("spatial-top").unwrap().text;
    let with_planar = format!("gravity = [0.0, -9.81]\n{text}");
    let err = from_str(&with_planar, "top.toml")
        .expect_err("planar gravity refused")
        .to_string();
    assert!(err.contains("top.toml:1:"), "{err}");
    assert!(err.contains("[spatial]"), "{err}");
    let with_three = format!("gravity = [0.0, 0.0, -9.81]\n{text}");
    let err = from_str(&with_three, "top.toml")
        .expect_err("3-D gravity refused")
        .to_string();
    assert!(err.contains("top.toml:1:"), "{err}");
    assert!(err.contains("[spatial] table"), "{err}");
    // The equation-based kind applies no gravity either, and says so.
    let eq = format!(
        "gravity = [0.0, -9.81]\n{}",
        dynastep::examples::find("spinning-top").unwrap().text
    );
    let err = from_str(&eq, "eq.toml")
        .expect_err("gravity refused")
        .to_string();
    assert!(
        err.contains("eq.toml:1:") && err.contains("forces"),
        "{err}"
    );
}

/// A spatial marker named like its body would write every column twice.
#[test]
fn a_spatial_marker_named_like_a_body_is_refused() {
    let text = dynastep::examples::find("spatial-top")
        .unwrap()
        .text
        .replace("name = \"axis\"", "name = \"top\"");
    let err = from_str(&text, "top.toml")
        .expect_err("refused")
        .to_string();
    assert!(err.contains("has the name of a body"), "{err}");
    // And no embedded example writes a column twice.
    for e in dynastep::examples::EXAMPLES {
        let model = from_str(e.text, e.file).unwrap();
        let system = dynastep::system::multibody::Multibody::new(&model).unwrap();
        let columns = dynastep::io::history::HistoryColumns::new(&system, true, false);
        let columns = columns.names().to_vec();
        let mut sorted = columns.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), columns.len(), "{}: {columns:?}", e.name);
    }
}

/// An adaptive run's worst energy and constraint figures are those of its committed steps, not of
/// the rows interpolated between them: the same run written at every step gives the same maxima.
#[test]
fn adaptive_maxima_are_over_the_committed_steps() {
    let model = example("spatial-top");
    let run = |interval: f64| {
        let opts = RunOptions {
            t_end: Some(1.0),
            output_interval: Some(interval),
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(&model, &opts).unwrap();
        assert!(sim.settings.step.rtol.is_some(), "the example is adaptive");
        sim.run(&mut [&mut Recorder::default()])
    };
    let rows = run(0.01);
    let every_step = run(0.0);
    assert_eq!(rows.steps, every_step.steps);
    assert_eq!(rows.max_energy_error, every_step.max_energy_error);
    assert_eq!(
        rows.max_violation.velocity,
        every_step.max_violation.velocity
    );
    // The interpolated rows are worse, and reported apart.
    assert!(rows.max_energy_error_rows >= rows.max_energy_error);
    println!(
        "committed steps {:.3e} J, rows {:.3e} J",
        rows.max_energy_error, rows.max_energy_error_rows
    );
}

/// A step size given to the run (the command line's `--dt`) without a tolerance forces fixed steps
/// on a model whose `[solver.step]` sets `rtol`.
#[test]
fn a_step_size_without_a_tolerance_forces_fixed_steps() {
    let model = example("spatial-top");
    let opts = RunOptions {
        dt: Some(1e-3),
        t_end: Some(0.1),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).unwrap();
    assert!(
        sim.step_policy().starts_with("fixed steps of 1e-3 s"),
        "{}",
        sim.step_policy()
    );
    let report = sim.run(&mut []);
    assert!(report.tolerances.is_none());
    assert_eq!(report.steps, 100);
    assert_eq!((report.h_min, report.h_max), (1e-3, 1e-3));
    // With a tolerance, dt is the first step.
    let adaptive = RunOptions {
        dt: Some(1e-3),
        t_end: Some(0.1),
        step: dynastep::analysis::step_control::StepSettings {
            rtol: Some(1e-8),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let sim = Simulation::new(&model, &adaptive).unwrap();
    assert!(sim.step_policy().starts_with("adaptive steps, rtol = 1e-8"));
    // A run shorter than dt takes its whole span as the first step, and says so.
    let short = RunOptions {
        t_end: Some(1e-4),
        ..adaptive.clone()
    };
    let mut sim = Simulation::new(&model, &short).unwrap();
    let policy = sim.step_policy();
    assert!(policy.ends_with("first step 1e-4 s"), "{policy}");
    let report = sim.run(&mut []);
    assert_eq!(report.h_max, 1e-4, "{policy}");
    // The model's own dt beside its rtol stays a first step.
    let sets = vec!["solver.t_end=0.1".to_string()];
    let text = dynastep::examples::find("spatial-top").unwrap().text;
    let model = from_str_with_overrides(text, "top.toml", &sets).unwrap();
    let sim = Simulation::new(&model, &RunOptions::default()).unwrap();
    assert!(
        sim.step_policy().starts_with("adaptive"),
        "{}",
        sim.step_policy()
    );
}
