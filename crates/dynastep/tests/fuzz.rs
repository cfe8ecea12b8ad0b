//! A fuzz test that runs for real: mutated example models go through what `dynastep check` does
//! (parse, validate, build the system, assemble, check the run settings) and, when that passes, a
//! short run of 10 steps. No input may panic, a model the file reader accepts must build, and none may take more than 5 s (a hang guard, not a speed test).
//!
//! The mutations: dropped and duplicated lines (dropped keys), flipped characters, numbers and
//! vector components (spatial points, axes, inertias) replaced by extreme values, truncation, and
//! time functions and `[equations]` expressions replaced by long or deeply nested ones.
//! The generator is seeded, so a failure names a case that can be replayed with
//! `DYNASTEP_FUZZ_CASE=<k>` (and printed with the ignored test `print_case`); `DYNASTEP_FUZZ_TRACE=1`
//! prints each case number before it runs, to find a case that hangs; `DYNASTEP_FUZZ_START=<k>`
//! starts at case k, so that a long run can be split over several cores.
//!
//! The default run tries 10⁴ inputs. `DYNASTEP_FUZZ_CASES=1000000 cargo test --release -p dynastep
//! --test fuzz -- --nocapture` runs 10⁶ (see docs/robustness.md for the counts of one such run).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::examples::EXAMPLES;
use dynastep::model::parse;
use dynastep::study::sweep::{SweepPlan, Variation};
use dynastep::system::multibody::Multibody;

/// The case being run, for the panic hook's message.
static CASE: AtomicU64 = AtomicU64::new(0);

/// SplitMix64: a small, well-mixed generator, enough for choosing mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const EXTREMES: [&str; 12] = [
    "0",
    "-0.0",
    "1e308",
    "-1e308",
    "1e-308",
    "nan",
    "inf",
    "-inf",
    "1e17",
    "-1",
    "1e-300",
    "123456789012345678901234567890",
];

/// One mutation of `text`.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let k = rng.below(lines.len());
    match rng.below(9) {
        0 => {
            lines.remove(k);
        }
        1 => {
            let line = lines[k].clone();
            lines.insert(k, line);
        }
        2 => {
            let mut bytes = text.as_bytes().to_vec();
            let i = rng.below(bytes.len());
            bytes[i] = b" =[]{}\",.-+0123456789aetx#\n"[rng.below(27)];
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        3 => {
            // A number on a `key = number` line becomes an extreme value.
            if let Some((key, value)) = lines[k].split_once(" = ") {
                if value.trim().parse::<f64>().is_ok() {
                    lines[k] = format!("{key} = {}", EXTREMES[rng.below(EXTREMES.len())]);
                }
            }
        }
        4 => {
            let cut = rng.below(text.len());
            let cut = (0..=cut)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            return text[..cut].to_string();
        }
        5 => {
            // Any function (driver, load) becomes a long or deep expression.
            if let Some(i) = lines.iter().position(|l| l.starts_with("function = ")) {
                let expr = match rng.below(3) {
                    0 => vec!["0.001*sin(t)"; 1 + rng.below(3000)].join(" + "),
                    1 => {
                        let d = 1 + rng.below(200);
                        format!("{}t{}", "sin(".repeat(d), ")".repeat(d))
                    }
                    _ => format!("{}t", "1.001^".repeat(1 + rng.below(60))),
                };
                lines[i] = format!("function = {{ type = \"expression\", expr = \"{expr}\" }}");
            }
        }
        6 => {
            // An `[equations]` expression (or any quoted text on the line) becomes long or deep.
            let Some(i) = lines
                .iter()
                .position(|l| l.contains('"') && l.contains('('))
            else {
                return lines.join("\n");
            };
            let Some((head, rest)) = lines[i].split_once('"') else {
                return lines.join("\n");
            };
            let Some((expr, tail)) = rest.split_once('"') else {
                return lines.join("\n");
            };
            let evil = evil_expression(expr, rng);
            lines[i] = format!("{head}\"{evil}\"{tail}");
        }
        7 => {
            // One component of a vector (a spatial point, axis, inertia, velocity) becomes extreme.
            if let Some((key, value)) = lines[k].split_once(" = [") {
                let mut parts: Vec<String> = value.split(',').map(str::to_string).collect();
                let j = rng.below(parts.len());
                if parts[j].trim().trim_end_matches(']').parse::<f64>().is_ok() {
                    let close = if parts[j].contains(']') { "]" } else { "" };
                    parts[j] = format!(" {}{close}", EXTREMES[rng.below(EXTREMES.len())]);
                    lines[k] = format!("{key} = [{}", parts.join(","));
                }
            }
        }
        _ => {
            // Two mutations at once.
            let once = mutate(text, rng);
            return mutate(&once, rng);
        }
    }
    lines.join("\n")
}

/// `expr` made long (a sum of up to 300 copies), deep (nested in up to 200 calls) or raised to a
/// tower of powers: the growth that symbolic derivatives of `[equations]` must survive.
fn evil_expression(expr: &str, rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => vec![format!("({expr})"); 1 + rng.below(300)].join(" + "),
        1 => {
            let d = 1 + rng.below(200);
            format!("{}{expr}{}", "cos(".repeat(d), ")".repeat(d))
        }
        _ => format!("{}({expr})", "1.001^".repeat(1 + rng.below(60))),
    }
}

/// `check`, then a 10-step run of a valid model; errors are expected, panics are not.
fn exercise(text: &str) {
    let Ok(model) = parse::from_str(text, "fuzz.toml") else {
        return;
    };
    // One source of rules: what the file reader accepts, the assembler builds.
    if let Err(e) = Multibody::new(&model) {
        panic!("the file reader accepted a model the assembler refuses: {e}");
    }
    let t0 = model.solver.t_start.unwrap_or(0.0);
    let dt = model.solver.dt.unwrap_or(1e-3);
    // Ten fixed steps; an adaptive model may need more steps for the span of ten `dt` (a mutated
    // dt = 1e17 with rtol = 1e-12 asks for years of computing, and gravity = 1e17 m/s² under
    // rtol = 1e-11 takes thousands of steps of several Newton iterations each), so its step count
    // is capped.
    let opts = RunOptions {
        t_end: Some(t0 + 10.0 * dt),
        output_interval: Some(0.0),
        max_steps: Some(300),
        ..RunOptions::default()
    };
    if let Ok(mut sim) = Simulation::new(&model, &opts) {
        let _ = sim.run(&mut []);
    }
}

fn case_text(k: u64) -> String {
    let mut rng = Rng(0x5EED ^ k.wrapping_mul(0x1000_0000_01B3));
    let ex = &EXAMPLES[rng.below(EXAMPLES.len())];
    mutate(ex.text, &mut rng)
}

#[test]
fn mutated_examples_never_panic_or_hang() {
    let cases: u64 = std::env::var("DYNASTEP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let only: Option<u64> = std::env::var("DYNASTEP_FUZZ_CASE")
        .ok()
        .and_then(|v| v.parse().ok());
    let trace = std::env::var("DYNASTEP_FUZZ_TRACE").is_ok();
    let clock = Instant::now();
    let (mut parsed, mut slowest) = (0u64, (Duration::ZERO, 0u64));
    // Panics are caught and counted; each prints one line with its case and message.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("panic in case {}: {info}", CASE.load(Ordering::Relaxed));
    }));
    let mut panics = Vec::new();
    let first: u64 = std::env::var("DYNASTEP_FUZZ_START")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let range = only.map_or(first..first + cases, |k| k..k + 1);
    let count = range.end - range.start;
    for k in range {
        CASE.store(k, Ordering::Relaxed);
        if trace {
            eprintln!("case {k}");
        }
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let text = case_text(k);
            let ok = parse::from_str(&text, "fuzz.toml").is_ok();
            exercise(&text);
            ok
        }));
        match outcome {
            Ok(ok) => parsed += u64::from(ok),
            Err(_) => panics.push(k),
        }
        let took = start.elapsed();
        if took > slowest.0 {
            slowest = (took, k);
        }
    }
    let _ = std::panic::take_hook();
    println!(
        "{count} inputs ({parsed} parse) in {:.1} s; slowest case {} took {:.3} s; panics in cases {panics:?}",
        clock.elapsed().as_secs_f64(),
        slowest.1,
        slowest.0.as_secs_f64()
    );
    assert!(
        panics.is_empty(),
        "panics in cases {panics:?} (replay with DYNASTEP_FUZZ_CASE=k)"
    );
    assert!(
        slowest.0 < Duration::from_secs(5),
        "case {} took {:?} (replay with DYNASTEP_FUZZ_CASE={})",
        slowest.1,
        slowest.0,
        slowest.1
    );
}

/// Model paths a sweep may vary, each with the example it belongs to (and two that no model has).
const SWEPT: [(&str, &str); 10] = [
    ("slider-crank", "bodies.crank.mass"),
    ("slider-crank", "forces.spring.stiffness"),
    ("spatial-top", "spatial.bodies.top.inertia"),
    ("spatial-top", "spatial.bodies.top.points.tip"),
    ("bricard", "spatial.joints.J1.axis"),
    ("spinning-top", "equations.parameters.I1"),
    ("light-cartpole-minimal", "equations.initial.theta"),
    ("pendulum", "solver.dt"),
    ("slider-crank", "bodies.crnk.mass"),
    ("pendulum", ""),
];

/// A `--vary` specification of `path` with values drawn from ordinary and extreme numbers, empty
/// ones and range forms (counts up to 1e18, `:log` across zero).
fn vary_spec(path: &str, rng: &mut Rng) -> String {
    let value = |rng: &mut Rng| EXTREMES[rng.below(EXTREMES.len())].to_string();
    let rhs = match rng.below(5) {
        0 => (0..1 + rng.below(4))
            .map(|_| value(rng))
            .collect::<Vec<_>>()
            .join(","),
        1 => format!("{}:{}:{}", value(rng), value(rng), rng.below(20)),
        2 => format!("{}:{}:{}:log", value(rng), value(rng), value(rng)),
        3 => format!("0.5:2:{}", rng.below(5)),
        _ => format!("[{}, {}, {}]", value(rng), value(rng), value(rng)),
    };
    format!("{path}={rhs}")
}

/// Sweep inputs: random `--vary` specifications are parsed, the plan's size is checked before any
/// case is built, and every case's overrides are applied to the example through the file reader,
/// whose acceptance again means the assembler builds the model. No panic, nothing slow.
#[test]
fn random_sweep_specifications_never_panic() {
    let clock = Instant::now();
    let mut rng = Rng(0x5EE9);
    let (mut plans, mut models) = (0, 0);
    for _ in 0..500 {
        let (example, path) = SWEPT[rng.below(SWEPT.len())];
        let ex = EXAMPLES
            .iter()
            .find(|e| e.name == example)
            .expect("an example");
        let variations: Result<Vec<_>, _> = (0..1 + rng.below(2))
            .map(|_| Variation::parse(&vary_spec(path, &mut rng)))
            .collect();
        let Ok(variations) = variations else { continue };
        let plan = SweepPlan {
            variations,
            ..SweepPlan::default()
        };
        if plan.check_size().is_err() || plan.count() > 100 {
            continue;
        }
        plans += 1;
        for case in plan.cases() {
            if let Ok(model) = parse::from_str_with_overrides(ex.text, ex.file, &case.overrides) {
                models += 1;
                if let Err(e) = Multibody::new(&model) {
                    panic!(
                        "{:?} on {example}: accepted but not built: {e}",
                        case.overrides
                    );
                }
            }
        }
    }
    println!(
        "sweep fuzz: {plans} plans within the size limit, {models} models read, in {:.1} s",
        clock.elapsed().as_secs_f64()
    );
    assert!(
        plans > 50 && models > 50,
        "the generator must reach the reader"
    );
    assert!(clock.elapsed() < Duration::from_secs(60), "a hang guard");
}

/// Prints the input of case `DYNASTEP_FUZZ_CASE` (to reproduce a failure with the program):
/// `DYNASTEP_FUZZ_CASE=7094 cargo test --release -p dynastep --test fuzz print_case -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_case() {
    // Without a case number there is nothing to print: the README's slow suite
    // (`cargo test -- --ignored`) runs this too.
    match std::env::var("DYNASTEP_FUZZ_CASE").map(|v| v.parse::<u64>()) {
        Ok(Ok(k)) => println!("{}", case_text(k)),
        _ => println!("set DYNASTEP_FUZZ_CASE=<k> to print the input of case k"),
    }
}
