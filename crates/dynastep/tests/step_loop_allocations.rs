//! The step loop allocates nothing: a counting global allocator shows that a run of 2000 steps makes as
//! many allocations as a run of 200 (all of them in the set-up), for every scheme in the registry on the
//! pendulum in its angle (an ODE) and, for the schemes that are stable on it, on the pendulum DAE.
//! (Conditionally stable schemes such as Fox–Goodwin are unstable on index-3 DAEs at any step size, the
//! observation that motivates Fernández de Bustos et al. 2022, Meccanica 57:371.) The same with each
//! linear solver (the default `auto` takes the fixed-size dense factors there, the closed-form inverse
//! up to 3 unknowns), and on the N = 40 four-bar (n + m = 485), which takes the sparse path by default and passes near
//! its singular configuration, where the pivoting of the sparse LU changes.

use std::alloc::{GlobalAlloc, Layout, System as SystemAlloc};
use std::cell::Cell;

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, RunStatus};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::formulation::index3::Index3;
use dynastep::formulation::{LinearSolver, NewtonMethod, NewtonSettings};
use dynastep::model::parse;
use dynastep::scheme::{build, SchemeParams, State, REGISTRY};
use dynastep::system::test_problems::{AnglePendulum, CartesianPendulum};
use dynastep::system::System;
use dynastep::Vector;

struct Counting;
thread_local! {
    /// Allocations made by this thread (the test harness allocates on its own threads meanwhile).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { SystemAlloc.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { SystemAlloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { SystemAlloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Newton settings with the given linear solver and method.
fn newton(linear_solver: LinearSolver, method: NewtonMethod) -> NewtonSettings {
    NewtonSettings {
        linear_solver,
        method,
        ..NewtonSettings::default()
    }
}

fn allocations_for<S: System>(
    sys: &S,
    q0: &[f64],
    scheme: &str,
    steps: usize,
    newton: NewtonSettings,
) -> usize {
    let mut x0 = State::zeros(0.0, sys.n(), sys.m());
    x0.q = Vector::from_vec(q0.to_vec());
    consistent_accelerations(sys, &mut x0);
    allocations_from(sys, &x0, scheme, 1e-3, steps, newton)
}

fn allocations_from<S: System>(
    sys: &S,
    x0: &State,
    scheme: &str,
    h: f64,
    steps: usize,
    newton: NewtonSettings,
) -> usize {
    let mut s = build(scheme, &SchemeParams::new()).unwrap();
    let settings = DynamicSettings {
        h,
        t_end: x0.t + steps as f64 * h,
        output_interval: 0.0,
        newton,
        ..DynamicSettings::default()
    };
    let before = allocations();
    let report = run(sys, s.as_mut(), x0, &settings, &mut []);
    let after = allocations();
    assert_eq!(report.status, RunStatus::Completed, "{scheme}");
    after - before
}

#[test]
fn step_loop_does_not_allocate() {
    let ode = AnglePendulum {
        mass: 1.0,
        length: 1.0,
        g: 9.81,
    };
    for (ls, m) in [
        (LinearSolver::Auto, NewtonMethod::Full),
        (LinearSolver::Auto, NewtonMethod::Modified),
        (LinearSolver::Dense, NewtonMethod::Full),
        (LinearSolver::Sparse, NewtonMethod::Full),
        (LinearSolver::Dense, NewtonMethod::Modified),
        (LinearSolver::Sparse, NewtonMethod::Modified),
    ] {
        for info in REGISTRY {
            let short = allocations_for(&ode, &[1.0], info.name, 200, newton(ls, m));
            let long = allocations_for(&ode, &[1.0], info.name, 2000, newton(ls, m));
            assert_eq!(
                short, long,
                "{} (ODE, {ls:?}, {m:?}): {short} allocations for 200 steps, {long} for 2000",
                info.name
            );
        }
        let dae = CartesianPendulum::iftomm();
        for name in ["generalized-alpha", "hht", "trapezoidal"] {
            let short = allocations_for(&dae, &[-1.0, 0.0], name, 200, newton(ls, m));
            let long = allocations_for(&dae, &[-1.0, 0.0], name, 2000, newton(ls, m));
            assert_eq!(
                short, long,
                "{name} (DAE, {ls:?}, {m:?}): {short} allocations for 200 steps, {long} for 2000"
            );
        }
    }
}

/// The tangent-space formulation, on the pendulum DAE (its rank never changes there).
#[test]
fn tangent_space_step_loop_does_not_allocate() {
    let dae = CartesianPendulum::iftomm();
    let mut x0 = State::zeros(0.0, dae.n(), dae.m());
    x0.q = Vector::from_vec(vec![-1.0, 0.0]);
    consistent_accelerations(&dae, &mut x0);
    for name in ["fox-goodwin", "generalized-alpha", "lms3", "bathe"] {
        let count = |steps: usize| {
            let mut s = build(name, &SchemeParams::new()).unwrap();
            let settings = DynamicSettings {
                h: 1e-3,
                t_end: steps as f64 * 1e-3,
                output_interval: 0.0,
                formulation: "tangent-space",
                ..DynamicSettings::default()
            };
            let before = allocations();
            let report = run(&dae, s.as_mut(), &x0, &settings, &mut []);
            let after = allocations();
            assert_eq!(report.status, RunStatus::Completed, "{name}");
            after - before
        };
        let (short, long) = (count(200), count(2000));
        assert_eq!(
            short, long,
            "{name} (tangent space): {short} allocations for 200 steps, {long} for 2000"
        );
    }
}

#[test]
fn sparse_step_loop_does_not_allocate() {
    let ex = dynastep::examples::find("nfourbar40").expect("example exists");
    let model = parse::from_str(ex.text, ex.file).expect("example parses");
    let sim = Simulation::new(&model, &RunOptions::default()).expect("example assembles");
    let sys = &sim.system;
    assert!(
        Index3::new(sys.n(), sys.m(), NewtonSettings::default()).is_sparse(),
        "the N = 40 four-bar takes the sparse path"
    );
    // The crank passes its horizontal (singular) position at t = π/2 s: start shortly before it.
    let mut x0 = sim.initial.clone();
    let h = 1e-3;
    let (short, long) = (200, 2000);
    for m in [NewtonMethod::Full, NewtonMethod::Modified] {
        for name in ["generalized-alpha", "hht", "bathe"] {
            let a_short = allocations_from(sys, &x0, name, h, short, newton(LinearSolver::Auto, m));
            let a_long = allocations_from(sys, &x0, name, h, long, newton(LinearSolver::Auto, m));
            assert_eq!(
                a_short, a_long,
                "{name} (N = 40 four-bar, {m:?}): {a_short} allocations for {short} steps, {a_long} for {long}"
            );
        }
    }
    // Across the singular configuration.
    let mut s = build("generalized-alpha", &SchemeParams::new()).unwrap();
    let to = DynamicSettings {
        h,
        t_end: 1.3,
        output_interval: 0.0,
        newton: NewtonSettings::default(),
        ..DynamicSettings::default()
    };
    let report = run(sys, s.as_mut(), &x0, &to, &mut []);
    assert_eq!(report.status, RunStatus::Completed);
    x0 = report.final_state;
    let full = NewtonSettings::default();
    let a_short = allocations_from(sys, &x0, "generalized-alpha", h, short, full);
    let a_long = allocations_from(sys, &x0, "generalized-alpha", h, long, full);
    assert_eq!(
        a_short, a_long,
        "N = 40 four-bar from t = 1.3 s: {a_short} allocations for {short} steps, {a_long} for {long}"
    );
}

/// Allocations of a whole run of an embedded example (assembled model, no observers) of `steps`
/// steps (planar or spatial).
fn planar_allocations(example: &str, scheme: &str, dt: f64, steps: usize) -> usize {
    planar_allocations_with(example, scheme, None, None, dt, steps)
}

/// [`planar_allocations`] with a formulation.
fn planar_allocations_with(
    example: &str,
    scheme: &str,
    formulation: Option<&str>,
    rtol: Option<f64>,
    dt: f64,
    steps: usize,
) -> usize {
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    let ex = dynastep::examples::find(example).unwrap();
    let mut model = dynastep::model::parse::from_str(ex.text, ex.file).unwrap();
    // Steps fixed unless `rtol` is given here (the example's own error control is dropped).
    model.solver.step = Default::default();
    let opts = RunOptions {
        scheme: Some(scheme.into()),
        formulation: formulation.map(String::from),
        step: dynastep::analysis::step_control::StepSettings {
            rtol,
            ..Default::default()
        },
        dt: Some(dt),
        t_end: Some(steps as f64 * dt),
        output_interval: Some(0.0),
        ..Default::default()
    };
    let mut sim = Simulation::new(&model, &opts).unwrap();
    let before = allocations();
    let report = sim.run(&mut []);
    let after = allocations();
    assert_eq!(
        report.status,
        RunStatus::Completed,
        "{example} with {scheme}"
    );
    after - before
}

#[test]
fn planar_step_loop_does_not_allocate() {
    // Andrews: revolute joints, a TSDA, a torque; slider-crank: prismatic joint, driver, damper.
    for (example, dt) in [("andrews", 1e-5), ("slider-crank", 1e-3)] {
        for scheme in ["generalized-alpha", "bathe", "lms2", "central-difference"] {
            let short = planar_allocations(example, scheme, dt, 50);
            let long = planar_allocations(example, scheme, dt, 500);
            assert_eq!(
                short, long,
                "{example}/{scheme}: {short} allocations for 50 steps, {long} for 500"
            );
        }
    }
}

/// The stabilized index-2 formulation (twice the unknowns, the position correction handed to the
/// scheme): planar and spatial, single-point and multistage schemes, fixed and adaptive steps, and
/// Bricard's redundant constraint (pinned factorization).
#[test]
fn stabilized_index2_step_loop_does_not_allocate() {
    let f = Some("stabilized-index2");
    for (example, scheme, rtol, dt) in [
        ("slider-crank", "generalized-alpha", None, 1e-3),
        ("slider-crank", "lms2", Some(1e-6), 1e-3),
        ("andrews", "esdirk3-4", Some(1e-6), 1e-5),
        ("spatial-slider-crank", "ss2", None, 1e-4),
        ("bricard", "generalized-alpha", None, 1e-3),
    ] {
        let short = planar_allocations_with(example, scheme, f, rtol, dt, 50);
        let long = planar_allocations_with(example, scheme, f, rtol, dt, 500);
        assert_eq!(
            short, long,
            "{example}/{scheme}/stabilized-index2: {short} allocations for 50 steps, {long} for 500"
        );
    }
}

/// Spatial models (Euler parameters; revolute, spherical, universal and prismatic joints; a
/// redundant constraint) with index-3, tangent-space and acceleration-level pairs, fixed and
/// adaptive steps.
#[test]
fn spatial_step_loop_does_not_allocate() {
    // (example, scheme, formulation, rtol, dt)
    type Case = (
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<f64>,
        f64,
    );
    let cases: [Case; 8] = [
        ("bricard", "generalized-alpha", None, None, 1e-3),
        ("flyball-governor", "generalized-alpha", None, None, 1e-3),
        // Flexible beams: dual-number Jacobians on the sparse path, fixed and adaptive steps.
        ("bend45", "generalized-alpha", None, None, 1e-3),
        ("rollup", "esdirk3-4", None, Some(1e-6), 1e-3),
        (
            "bricard",
            "generalized-alpha",
            Some("tangent-space"),
            None,
            1e-3,
        ),
        ("spatial-slider-crank", "esdirk4-6", None, Some(1e-6), 1e-4),
        (
            "spatial-slider-crank",
            "rk4",
            Some("projection"),
            None,
            1e-4,
        ),
        ("spatial-top", "dopri5", Some("hybrid"), Some(1e-6), 1e-3),
    ];
    for (example, scheme, f, rtol, dt) in cases {
        let short = planar_allocations_with(example, scheme, f, rtol, dt, 50);
        let long = planar_allocations_with(example, scheme, f, rtol, dt, 500);
        assert_eq!(
            short, long,
            "{example}/{scheme}/{f:?}: {short} allocations for 50 steps, {long} for 500"
        );
    }
}

/// The acceleration-level formulations (solves, projections, partition checks, corrections) with
/// a Runge–Kutta and the Adams scheme, on Andrews' squeezer.
#[test]
fn acceleration_level_step_loop_does_not_allocate() {
    for formulation in [
        "direct",
        "baumgarte",
        "projection",
        "partitioning",
        "hybrid",
    ] {
        for scheme in ["rk4", "abm"] {
            let f = Some(formulation);
            let short = planar_allocations_with("andrews", scheme, f, None, 1e-5, 50);
            let long = planar_allocations_with("andrews", scheme, f, None, 1e-5, 500);
            assert_eq!(
                short, long,
                "andrews/{scheme}/{formulation}: {short} allocations for 50 steps, {long} for 500"
            );
        }
        // Error control: the order choice of Adams PECE, the filtered norm, restarts.
        for scheme in ["dopri5", "abm"] {
            let f = Some(formulation);
            let short = planar_allocations_with("andrews", scheme, f, Some(1e-8), 1e-5, 50);
            let long = planar_allocations_with("andrews", scheme, f, Some(1e-8), 1e-5, 500);
            assert_eq!(
                short, long,
                "andrews/{scheme}/{formulation}/rtol: {short} allocations over 5e-4 s, {long} over 5e-3 s"
            );
        }
    }
    // Repartitioning: the pendulum's partition changes twice per half swing (first at 0.57 s), and
    // partitioning and hybrid retake that step and restart Adams with a first step: one
    // repartitioning within 1 s, five within 3 s.
    for formulation in ["partitioning", "hybrid"] {
        let f = Some(formulation);
        let short = planar_allocations_with("pendulum", "abm", f, Some(1e-8), 1e-3, 1000);
        let long = planar_allocations_with("pendulum", "abm", f, Some(1e-8), 1e-3, 3000);
        assert_eq!(
            short, long,
            "pendulum/abm/{formulation}/rtol: {short} allocations over 1 s, {long} over 3 s"
        );
    }
}
