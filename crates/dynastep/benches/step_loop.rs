//! Criterion benchmarks of the step loop on the embedded examples: Andrews' squeezer (n = 21, m = 20)
//! and the double four-bar (n = 15, m = 14), for several schemes, and the N = 40 four-bar (n = 243,
//! m = 242) with generalized-α on the dense and on the sparse linear solver (`step_loop_large`, fewer
//! samples). Each iteration runs a fixed number of steps from the assembled state, without observers,
//! so the time per iteration divided by the step count is the cost of one step.

use criterion::{criterion_group, criterion_main, Criterion};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::parse;

fn simulation(example: &str, scheme: &str, dt: f64, steps: usize) -> Simulation {
    let ex = dynastep::examples::find(example).expect("example exists");
    let model = parse::from_str(ex.text, ex.file).expect("example parses");
    let opts = RunOptions {
        scheme: Some(scheme.into()),
        dt: Some(dt),
        t_end: Some(steps as f64 * dt),
        output_interval: Some(0.0),
        ..Default::default()
    };
    Simulation::new(&model, &opts).expect("example assembles")
}

fn step_loop(c: &mut Criterion) {
    let mut group = c.benchmark_group("step_loop");
    group.sample_size(20);
    for (example, dt) in [("andrews", 1e-5), ("double-fourbar", 1e-3)] {
        for scheme in ["generalized-alpha", "hht", "bathe", "lms2"] {
            if dynastep::scheme::find(scheme).is_none() {
                continue;
            }
            let steps = 100;
            let mut sim = simulation(example, scheme, dt, steps);
            group.bench_function(format!("{example}/{scheme}/{steps} steps"), |b| {
                b.iter(|| sim.run(&mut []))
            });
        }
    }
    group.finish();
}

fn step_loop_large(c: &mut Criterion) {
    use dynastep::formulation::LinearSolver;
    let mut group = c.benchmark_group("step_loop_large");
    group.sample_size(10);
    let ex = dynastep::examples::find("nfourbar40").expect("example exists");
    let steps = 20;
    for (label, solver) in [
        ("dense", LinearSolver::Dense),
        ("sparse", LinearSolver::Sparse),
    ] {
        let mut model = parse::from_str(ex.text, ex.file).expect("example parses");
        model.solver.newton.linear_solver = solver;
        let opts = RunOptions {
            scheme: Some("generalized-alpha".into()),
            dt: Some(1e-3),
            t_end: Some(steps as f64 * 1e-3),
            output_interval: Some(0.0),
            ..Default::default()
        };
        let mut sim = Simulation::new(&model, &opts).expect("example assembles");
        group.bench_function(
            format!("nfourbar40/generalized-alpha/{label}/{steps} steps"),
            |b| b.iter(|| sim.run(&mut [])),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // No plots: plotters' font discovery fails on machines without system fonts.
    config = Criterion::default().without_plots();
    targets = step_loop, step_loop_large
}
criterion_main!(benches);
