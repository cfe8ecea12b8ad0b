//! A fixed step whose Newton iteration fails is taken again in halves (`[solver.step]
//! max_halvings`, analysis/step_sizer.rs), and the run then goes on with its fixed step on the grid
//! t_0 + k·h. While a step can still be halved, a point that needs more than
//! `halve_after_iterations` Newton iterations counts as failing. The case: the flexible four-bar
//! (examples/flexible-fourbar.toml) with MSSTH(5), ρ∞ = 0, at the step of MSD22 (Δt = 0.02 s),
//! through its first change point (t = −18.33 s, the crank along the ground line), where without
//! halving a stage's Newton iteration wanders and the run stops at t = −18.24 s.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::RunOptions;
use dynastep::analysis::step_control::StepSettings;
use util::{model, run_with, Run};

const DT: f64 = 0.02;
/// −2T, the example's start, T = 2π/0.6 s.
const T0: f64 = -20.943951023931955;
/// 0.6 s past the first change point.
const T_END: f64 = -17.7;

/// MSSTH(5) on the four-bar from [`T0`] to [`T_END`] at the fixed step [`DT`], every step
/// written, with at most `max_halvings` halvings of a failing step (the default when `None`).
fn fourbar(max_halvings: Option<u32>) -> Run {
    let opts = RunOptions {
        scheme: Some("mssth5".into()),
        params: [("rho_inf".to_string(), 0.0)].into_iter().collect(),
        dt: Some(DT),
        t_end: Some(T_END),
        output_interval: Some(0.0),
        step: StepSettings {
            max_halvings,
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    run_with(&model("flexible-fourbar"), &opts)
}

/// Distance of `t` from the nearest grid time T0 + k·DT, relative to DT.
fn off_grid(t: f64) -> f64 {
    let k = (t - T0) / DT;
    (k - k.round()).abs()
}

#[test]
fn a_failing_fixed_step_is_taken_in_halves_and_the_run_returns_to_its_grid() {
    let stopped = fourbar(Some(0));
    let RunStatus::Failed { failed_at, reason } = &stopped.report.status else {
        panic!("without halvings the run should stop after the change point");
    };
    assert!((-18.4..-18.1).contains(failed_at), "{failed_at}: {reason}");
    assert_eq!(stopped.report.halved_steps, 0);

    let halved = fourbar(None);
    halved.assert_completed();
    let report = &halved.report;
    assert!(report.halved_steps >= 1, "{:?}", report.notes);
    assert!(report.rejected_steps >= report.halved_steps);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("fixed step") && n.contains("max_halvings = 0")),
        "{:?}",
        report.notes
    );
    // Its points needed more than the iteration limit (none failed outright): without halvings
    // such a step is solved whole, which here does not suffice (the stopped run above).
    assert!(
        report.notes.iter().any(|n| n.contains(
            "had a point that needed more than `[solver.step] halve_after_iterations` = 8"
        ) && n.contains("solves such a step whole instead")),
        "{:?}",
        report.notes
    );

    // Rows off the grid lie inside split steps; each adds one step to the grid's count.
    let times: Vec<f64> = halved.rec.states.iter().map(|x| x.t).collect();
    let off: Vec<f64> = times
        .iter()
        .copied()
        .filter(|&t| t < T_END - DT && off_grid(t) > 1e-6)
        .collect();
    assert!(!off.is_empty());
    let grid_steps = ((T_END - T0) / DT).ceil() as u64;
    assert_eq!(report.steps, grid_steps + off.len() as u64);
    // Parts of at most 2^4 to a step, each a multiple of its size.
    for t in &off {
        let parts = (t - T0) / DT * 16.0;
        assert!((parts - parts.round()).abs() < 1e-6, "t = {t}");
    }

    // Up to the first split step both runs are the same run, to the bit: the iteration limit
    // changes nothing where the points converge within it.
    let first_split = times
        .iter()
        .copied()
        .filter(|&t| t < off[0])
        .fold(f64::NEG_INFINITY, f64::max);
    let before: Vec<_> = stopped
        .rec
        .states
        .iter()
        .filter(|x| x.t <= first_split)
        .collect();
    assert!(before.len() > 100, "{}", before.len());
    for (a, b) in before.iter().zip(&halved.rec.states) {
        assert!(a.t == b.t && a.q == b.q && a.v == b.v, "t = {}", a.t);
    }
}

/// `max_steps` counts the parts of split steps and their rejected attempts: the four-bar's
/// halving run completes with exactly as many attempts as it takes and fails with one fewer.
#[test]
fn max_steps_counts_the_parts_of_split_steps() {
    let halved = fourbar(None);
    halved.assert_completed();
    let attempts = halved.report.steps + halved.report.rejected_steps;
    let grid_steps = ((T_END - T0) / DT).ceil() as u64;
    assert!(
        attempts > grid_steps + 1,
        "{attempts} attempts, {grid_steps} grid steps"
    );
    let with_max = |max_steps: u64| {
        let opts = RunOptions {
            scheme: Some("mssth5".into()),
            params: [("rho_inf".to_string(), 0.0)].into_iter().collect(),
            dt: Some(DT),
            t_end: Some(T_END),
            max_steps: Some(max_steps),
            ..RunOptions::default()
        };
        run_with(&model("flexible-fourbar"), &opts).report
    };
    let enough = with_max(attempts);
    assert_eq!(enough.status, RunStatus::Completed, "{:?}", enough.status);
    let short = with_max(attempts - 1);
    let RunStatus::Failed { reason, .. } = &short.status else {
        panic!("max_steps = {} should stop the run", attempts - 1);
    };
    assert_eq!(
        reason.kind,
        dynastep::analysis::failure::FailureKind::MaxSteps,
        "{}",
        reason.message
    );
    assert_eq!(short.steps + short.rejected_steps, attempts - 1);
}

/// Every formulation that solves the scheme's points by Newton's method stops at the time loop's
/// iteration limit (`Formulation::set_iteration_limit`), and without it converges: the pendulum
/// at a trapezoidal-rule point of Δt = 0.1 s from a start at rest, which takes several
/// iterations (each formulation reports how many).
#[test]
fn every_newton_formulation_takes_the_iteration_limit() {
    use dynastep::formulation::index3::Index3;
    use dynastep::formulation::stabilized_index2::StabilizedIndex2;
    use dynastep::formulation::tangent_space::TangentSpace;
    use dynastep::formulation::{Formulation, FormulationError, NewtonSettings, NewtonStats};
    use dynastep::linalg::Vector;
    use dynastep::scheme::IntegrationPoint;
    use dynastep::system::mechanism::Mechanism;
    use dynastep::system::multibody::Multibody;
    use dynastep::system::System;

    let sys = Multibody::new(&model("pendulum")).expect("builds");
    let (n, m) = (sys.n(), sys.m());
    let x0 = sys.initial_state(0.0);
    let h = 0.1;
    let mut pt = IntegrationPoint::new(n, m);
    (pt.t_e, pt.t_c) = (h, h);
    for i in 0..n {
        pt.q_hat[i] = x0.q[i] + h * x0.v[i];
        pt.v_hat[i] = x0.v[i];
    }
    pt.qc_hat.copy_from(&pt.q_hat);
    // Newmark's trapezoidal rule, u = q̈: q = q̂ + h²/4 u, v = v̂ + h/2 u.
    (pt.c_q, pt.c_v, pt.c_a, pt.c_c) = (h * h / 4.0, h / 2.0, 1.0, h * h / 4.0);
    fn solve<F: Formulation<Multibody>>(
        mut form: F,
        sys: &Multibody,
        pt: &IntegrationPoint,
        limit: Option<usize>,
    ) -> Result<u64, FormulationError> {
        form.set_iteration_limit(limit);
        let mut u = Vector::zeros(sys.n());
        let mut lambda = Vector::zeros(sys.m());
        let mut stats = NewtonStats::default();
        form.solve(sys, pt, &mut u, &mut lambda, &mut stats)
            .map(|()| stats.iterations)
    }
    let settings = NewtonSettings::default;
    type Solver<'a> = Box<dyn Fn(Option<usize>) -> Result<u64, FormulationError> + 'a>;
    let cases: [(&str, Solver); 3] = [
        (
            "index3",
            Box::new(|l| solve(Index3::new(n, m, settings()), &sys, &pt, l)),
        ),
        (
            "stabilized-index2",
            Box::new(|l| solve(StabilizedIndex2::new(n, m, settings()), &sys, &pt, l)),
        ),
        (
            "tangent-space",
            Box::new(|l| solve(TangentSpace::new(n, m, settings()), &sys, &pt, l)),
        ),
    ];
    for (name, solve_with) in &cases {
        let free = solve_with(None).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: {free} iterations without a limit");
        assert!(
            free >= 3,
            "{name}: {free} iterations, too few to test a limit of 2"
        );
        match solve_with(Some(2)) {
            Err(FormulationError::NotConverged { iterations, .. }) => {
                assert_eq!(iterations, 2, "{name}")
            }
            other => panic!("{name}: with a limit of 2, {other:?}"),
        }
        assert_eq!(
            solve_with(Some(100)).ok(),
            Some(free),
            "{name}: a limit above max_iterations"
        );
    }
}
