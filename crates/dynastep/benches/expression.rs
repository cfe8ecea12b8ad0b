//! Criterion benchmark of `expression` time functions: one evaluation of (f, ḟ, f̈) on jets for a
//! short formula and for a 100-term Fourier series, beside the built-in harmonic function. A driver
//! evaluates its function a few times per Newton iteration, so this is its cost per evaluation.

use criterion::{criterion_group, criterion_main, Criterion};
use dynastep::model::function::{FunctionSpec, TaggedFunction, TimeFunction};
use std::hint::black_box;

fn compile(spec: TaggedFunction) -> TimeFunction {
    TimeFunction::new(&FunctionSpec::Tagged(spec)).expect("compiles")
}

fn expression(c: &mut Criterion) {
    let terms: Vec<String> = (1..=100)
        .map(|k| {
            format!(
                "{:e}*sin({k}*6.283185307179586*t + {:e})",
                0.01 / k as f64,
                0.1 * k as f64
            )
        })
        .collect();
    let cases = [
        (
            "harmonic (built in)",
            compile(TaggedFunction::Harmonic {
                amplitude: 0.1,
                omega: 2.0,
                phase: 0.0,
                offset: 0.0,
            }),
        ),
        (
            "expression 0.1*sin(2*t)",
            compile(TaggedFunction::Expression {
                expr: "0.1*sin(2*t)".into(),
            }),
        ),
        (
            "expression, 100-term Fourier series",
            compile(TaggedFunction::Expression {
                expr: terms.join(" + "),
            }),
        ),
    ];
    let mut group = c.benchmark_group("time_function");
    for (name, f) in &cases {
        group.bench_function(*name, |b| b.iter(|| f.eval(black_box(0.123))));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // No plots: criterion's plotting backend needs system fonts that a fresh machine may lack.
    config = Criterion::default().without_plots();
    targets = expression
}
criterion_main!(benches);
