//! `examples/pendulum.toml` against the IFToMM / GDLC06 A01 references.

#[path = "common/examples.rs"]
mod util;

#[test]
fn pendulum_generalized_alpha_matches_reference() {
    let model = util::model("pendulum");
    let run = util::run(
        &model,
        "generalized-alpha",
        &[],
        1e-3,
        Some(10.0),
        Some(0.01),
    );
    run.assert_completed();
    let p1 = run.marker("P1");
    let last = run.rec.states.len() - 1;
    let end = run.marker_at(p1, last);
    let (dx, dy) = (end[0] + 0.2750874626, end[1] + 0.9614192051);
    println!(
        "t = {}: P1 = {:?}, error ({dx:.3e}, {dy:.3e})",
        run.rec.states[last].t, end
    );
    let derived = util::reference("derived_simple_pendulum_10s_dt0.01.csv");
    let mut worst = 0.0f64;
    for row in derived.iter().step_by(50) {
        let k = util::sample_at(&run.rec, row[0]);
        let p = run.marker_at(p1, k);
        worst = worst.max((p[0] - row[1]).abs()).max((p[1] - row[2]).abs());
    }
    let official = util::reference("gdlc06_A01_simple_pendulum_P1_0-2000s.csv");
    let mut worst_official = 0.0f64;
    for row in official.iter().take_while(|r| r[0] <= 10.0 + 1e-9) {
        let k = util::sample_at(&run.rec, row[0]);
        let p = run.marker_at(p1, k);
        worst_official = worst_official
            .max((p[0] - row[1]).abs())
            .max((p[1] - row[2]).abs());
    }
    println!("max |P1 - ref| every 0.5 s: derived {worst:.3e}, official A01 {worst_official:.3e}; max |E - E0| {:.3e}", run.report.max_energy_error);
    assert!(dx.abs() < 5e-4 && dy.abs() < 5e-4);
    assert!(worst < 5e-4 && worst_official < 5e-4);
}
