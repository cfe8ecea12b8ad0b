//! `--scheme auto` (`study::choice`): the pair chosen reaches the accuracy asked for on the whole
//! run, and the ranking is the one the module documents. Which pair is fastest depends on timing,
//! which no test asserts; the step counts behind a choice are asserted instead.

#[path = "common/examples.rs"]
mod util;

use dynastep::analysis::simulation::RunOptions;
use dynastep::analysis::step_control::StepSettings;
use dynastep::study::choice::{candidates, choose_method, Measure, MethodChoice};

fn choice(example: &str, rtol: f64) -> MethodChoice {
    let model = util::model(example);
    choose_method(&model, rtol, Measure::Every, &mut |_| {}, &|| false).expect("a pair is chosen")
}

/// Accepted pairs first, by time; the chosen one is the first.
fn check_ranking(c: &MethodChoice) {
    let accepted = |e: f64| e.is_finite() && e <= c.accepted_error;
    assert_eq!(c.ranking[0].method, c.chosen);
    assert!(accepted(c.ranking[0].error));
    // A finite bound: whatever the reference, the chosen pair's error was checked.
    assert!(c.accepted_error.is_finite(), "{c:#?}");
    // The reference is part of the choice's cost and is timed.
    assert!(
        c.reference_time_s > 0.0 && c.reference_time_s.is_finite(),
        "{}",
        c.reference_time_s
    );
    for w in c.ranking.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!(accepted(a.error) || !accepted(b.error), "{c:#?}");
        if accepted(a.error) && accepted(b.error) {
            assert!(a.cpu_time_s <= b.cpu_time_s, "{c:#?}");
        }
    }
}

#[test]
fn the_pendulum_run_with_the_chosen_pair_meets_the_tolerance() {
    let rtol = 1e-6;
    let c = choice("pendulum", rtol);
    check_ranking(&c);
    assert_eq!(c.ranking.len(), candidates(1).len());
    let model = util::model("pendulum");
    let opts = RunOptions {
        scheme: Some(c.method.scheme.clone()),
        formulation: c.method.formulation.clone(),
        step: StepSettings {
            rtol: Some(rtol),
            atol: Some(rtol),
            ..StepSettings::default()
        },
        output_interval: Some(0.01),
        ..RunOptions::default()
    };
    let run = util::run_with(&model, &opts);
    run.assert_completed();
    // Against the DOP853 solution of the minimal-coordinate equation (reference/), over 10 s.
    let p1 = run.marker("P1");
    let mut worst = 0.0f64;
    for row in util::reference("derived_simple_pendulum_10s_dt0.01.csv")
        .iter()
        .step_by(50)
    {
        let p = run.marker_at(p1, util::sample_at(&run.rec, row[0]));
        worst = worst.max((p[0] - row[1]).abs()).max((p[1] - row[2]).abs());
    }
    println!("chosen {}: max |P1 - ref| = {worst:.3e} m", c.chosen);
    assert!(worst < 1e3 * rtol, "{} misses: {worst:.3e} m", c.chosen);
}

#[test]
fn on_the_stiff_governor_explicit_pairs_need_many_more_steps() {
    // The measurement behind the choice of an implicit pair on the stiff flyball governor: its
    // spring (and the governor's fast mode) bound the explicit steps by stability, not accuracy.
    let c = choice("flyball-governor", 1e-6);
    check_ranking(&c);
    let steps = |label: &str| {
        c.ranking
            .iter()
            .find(|r| r.method == label)
            .map(|r| r.steps)
            .expect("candidate ran")
    };
    let implicit = steps("esdirk4-6 / stabilized-index2");
    for explicit in ["dopri5 / projection", "abm / projection"] {
        assert!(
            steps(explicit) > 20 * implicit,
            "{explicit}: {} steps, esdirk4-6: {implicit}",
            steps(explicit)
        );
    }
}

#[test]
fn the_race_stops_the_pairs_that_cannot_be_chosen_and_chooses_as_the_full_trial() {
    // Andrews' squeezer at rtol 1e-10: the trial of Adams PECE with projection took 0.39 ms,
    // DOPRI5's 1.9 ms and the implicit pairs' 4.6–60 ms (2026-11-28), margins that timer noise
    // does not bridge.
    let model = util::model("andrews");
    let rtol = 1e-10;
    let full = choice("andrews", rtol);
    let race = choose_method(&model, rtol, Measure::Race, &mut |_| {}, &|| false)
        .expect("a pair is chosen");
    check_ranking(&race);
    assert_eq!(race.chosen, full.chosen, "{race:#?}\n{full:#?}");
    let cut: Vec<_> = race.ranking.iter().filter(|r| r.status == "cut").collect();
    assert!(!cut.is_empty(), "the implicit pairs are stopped: {race:#?}");
    let fastest = race.ranking[0].cpu_time_s;
    for r in &cut {
        assert!(r.error.is_nan() && r.note.contains(&race.chosen), "{r:#?}");
        // Stopped at a step boundary past twice the fastest pair's time (loop time from the
        // first step; the budget's clock started before the set-up).
        assert!(r.cpu_time_s > 0.5 * fastest, "{r:#?}");
    }
    let cost = |c: &MethodChoice| c.ranking.iter().map(|r| r.cpu_time_s).sum::<f64>();
    println!(
        "trial: race {:.3e} s, every pair {:.3e} s",
        cost(&race),
        cost(&full)
    );
}

/// Where no reference can be computed (the N = 40 chain at rtol 1e-9: every reference at 1e-11
/// stops at one of its singular configurations, the implicit ones near 0.72 s, Adams PECE with
/// projection at 1.24 s where its watch stops it) the error gives the implicit references' and the
/// explicit one's reasons, and what the run can do instead: it has no `--reference` option.
#[test]
fn without_a_reference_the_error_says_why_and_what_to_do() {
    let model = util::model("nfourbar40");
    let e = choose_method(&model, 1e-9, Measure::Every, &mut |_| {}, &|| false)
        .expect_err("no reference at rtol 1e-9")
        .to_string();
    println!("{e}");
    for part in [
        "msstc5: stopped",
        "abm / projection at rtol = atol 1.000e-11",
        "singular configuration",
        "choose the pair with --scheme, or loosen --rtol",
    ] {
        assert!(e.contains(part), "{part:?} missing from: {e}");
    }
    assert!(!e.contains("--reference"), "{e}");
}
