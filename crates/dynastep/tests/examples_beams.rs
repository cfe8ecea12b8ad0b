//! The flexible-beam examples against their published and closed-form answers:
//! - the roll-up (`examples/rollup.toml`): an end moment 2π EI / L closes a cantilever into a
//!   circle, so the tip returns to the root; it must converge there under mesh refinement, at a
//!   measured order;
//! - the Bathe–Bolourchi 45° bend (`examples/bend45.toml`): the tip displacement within 3 % of
//!   Kynema's converged single-element LSFE (53.578 along the load, 13.721 and 23.646 in the
//!   plane), and the same with 8 and 10 load increments.
//!
//! Both are static: Newton's method followed along the ramped load (`solve_increments`).

use dynastep::analysis::equilibrium::{newton, Equilibrium, StaticSettings};
use dynastep::analysis::simulation::assembled;
use dynastep::examples::find;
use dynastep::model::parse::from_str_with_overrides;
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;

/// The equilibrium of example `name` at t = 1 s with the overrides, in `increments` increments,
/// and the position of body `tip` there.
fn equilibrium(
    name: &str,
    overrides: &[String],
    increments: usize,
    tip: &str,
) -> (Equilibrium, [f64; 3]) {
    let ex = find(name).expect("example");
    let model =
        from_str_with_overrides(ex.text, ex.file, overrides).unwrap_or_else(|e| panic!("{e}"));
    let sys = Multibody::new(&model).unwrap_or_else(|e| panic!("{e}"));
    let (x0, _) = assembled(&model, &sys).expect("assembles");
    let e = newton::solve_increments(
        &sys,
        (x0.t, 1.0),
        increments,
        &x0.q,
        &StaticSettings::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let b = sys
        .body_names()
        .iter()
        .position(|b| *b == tip)
        .expect("tip body");
    let mut pose = Vec::new();
    sys.push_body_pose(b, &e.state.q, &mut pose);
    (e, [pose[0], pose[1], pose[2]])
}

#[test]
fn rollup_tip_converges_to_the_root_at_order_four() {
    let mut gaps = Vec::new();
    for elements in [2, 4, 8, 16] {
        let tip = format!("beam.{}", 2 * elements);
        let overrides = vec![
            format!("spatial.beams.beam.elements={elements}"),
            format!("spatial.forces.end_moment.body=\"{tip}\""),
            format!("spatial.markers.tip.body=\"{tip}\""),
        ];
        let (_, x) = equilibrium("rollup", &overrides, 8, &tip);
        // The circle closes in the x–y plane; the tip should sit at the root (0, 0, 0).
        let gap = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        println!(
            "{elements:3} elements: tip at ({:.3e}, {:.3e}, {:.3e}), |gap| = {gap:.3e} m",
            x[0], x[1], x[2]
        );
        gaps.push(gap);
    }
    let orders: Vec<f64> = gaps.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("observed orders {orders:?}");
    // L = 10 m: with 2 elements (each spanning π) the tip is still 0.42 m off.
    assert!(gaps[0] > 0.1, "{gaps:?}");
    assert!(
        gaps[3] < 1e-4,
        "16 elements leave the tip {} m from the root",
        gaps[3]
    );
    for p in &orders[1..] {
        assert!(
            (3.5..4.5).contains(p),
            "observed order {p} (all: {orders:?})"
        );
    }
}

#[test]
fn bathe_bolourchi_bend_meets_the_converged_tip_displacement_whatever_the_increments() {
    // Kynema's converged values (load direction, then the two in-plane components).
    let reference = [53.578, 13.721, 23.646];
    let start = [100.0 - 100.0 / 2f64.sqrt(), 0.0, 100.0 / 2f64.sqrt()];
    let mut tips = Vec::new();
    for increments in [8, 10] {
        let (e, x) = equilibrium("bend45", &[], increments, "bend.16");
        assert_eq!(e.stability.verdict, "stable");
        let u = [x[0] - start[0], x[1] - start[1], x[2] - start[2]];
        // Load along +y; the tip moves back along −x and −z.
        let got = [u[1], -u[0], -u[2]];
        println!(
            "{increments} increments: u = ({:.4}, {:.4}, {:.4}) in (load, in-plane x, in-plane z)",
            got[0], got[1], got[2]
        );
        for (g, r) in got.iter().zip(reference) {
            assert!((g - r).abs() <= 0.03 * r, "{got:?} vs {reference:?}");
        }
        tips.push(x);
    }
    for (k, (a, b)) in tips[0].iter().zip(&tips[1]).enumerate() {
        let d = (a - b).abs();
        assert!(
            d <= 1e-9 * 100.0,
            "8 and 10 increments differ by {d} in component {k}"
        );
    }
}

/// The lateral buckling benchmark (Bauchau et al. 2016, MSD 37:29–48; §5.3 of Zhang et al.
/// 2022): the beam stays in its plane while the crank starts, buckles sideways before the crank
/// reaches its uppermost position (t = T/2 = 0.2 s), and then oscillates out of plane. The
/// imperfection is D = 0.1 mm, so "in its plane" means a lateral mid-span displacement of the
/// order of D, and "buckled" one of centimetres.
#[test]
fn lateral_buckling_buckles_before_the_crank_is_up() {
    use dynastep::analysis::dynamic::RunStatus;
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    use dynastep::io::history::{HistoryColumns, HistoryRecorder};
    let ex = find("lateral-buckling").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    let mut sim = Simulation::new(&model, &RunOptions::default()).expect("assembles");
    let mut rec = HistoryRecorder::new(HistoryColumns::new(&sim.system, true, false));
    let report = sim.run(&mut [&mut rec]);
    assert_eq!(report.status, RunStatus::Completed);
    let y = rec.table.column("midspan.y").expect("column");
    let t = rec.table.t();
    let lateral = |t0: f64, t1: f64| {
        t.iter()
            .zip(y)
            .filter(|(t, _)| **t >= t0 && **t <= t1)
            .fold(0.0_f64, |m, (_, y)| m.max(y.abs()))
    };
    let (early, late) = (lateral(0.0, 0.1), lateral(0.1, 0.2));
    println!("max |y| at mid-span: {early:.2e} m on [0, 0.1] s, {late:.2e} m on [0.1, 0.2] s");
    assert!(early < 1e-3, "buckled too early: {early} m");
    assert!(late > 1e-2, "not buckled by t = 0.2 s: {late} m");
}

/// How a fixed-step run of the lateral buckling with `scheme` (ρ∞ = `rho_inf` when given) and
/// step `dt` to `t_end` ends.
fn lateral_buckling_run(
    scheme: &str,
    rho_inf: Option<f64>,
    dt: f64,
    t_end: f64,
) -> dynastep::analysis::dynamic::RunReport {
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    use dynastep::scheme::SchemeParams;
    let ex = find("lateral-buckling").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    let mut params = SchemeParams::new();
    if let Some(r) = rho_inf {
        params.insert("rho_inf".into(), r);
    }
    let options = RunOptions {
        scheme: Some(scheme.into()),
        params,
        dt: Some(dt),
        t_end: Some(t_end),
        // The retries of a point alone, without halving the step.
        step: dynastep::analysis::step_control::StepSettings {
            max_halvings: Some(0),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &options).expect("assembles");
    sim.run(&mut [])
}

/// Whether the run's notes say that points converged when solved again `how`.
fn notes_retried(report: &dynastep::analysis::dynamic::RunReport, how: &str) -> bool {
    report
        .notes
        .iter()
        .any(|n| n.contains("converged when solved again") && n.contains(how))
}

/// MSSTH(4) with ρ∞ = 0 at Δt/n = 1e-3 s completes the lateral buckling, as it does in MSD22
/// §5.3. Its last stage starts Newton from an extrapolation over two stages 0.18 h apart, and
/// where the beam begins to buckle (t = 0.144 s) that start threw Newton out of its basin; the
/// stage is now solved again from the previous stage's values (`Scheme::constant_guess`), which
/// a fixed-step run needs to go on.
#[test]
fn mssth4_completes_the_lateral_buckling_from_the_constant_start() {
    use dynastep::analysis::dynamic::RunStatus;
    let report = lateral_buckling_run("mssth4", Some(0.0), 4e-3, 0.3);
    assert_eq!(report.status, RunStatus::Completed, "{:?}", report.status);
    assert!(
        notes_retried(&report, "from the constant start"),
        "{:?}",
        report.notes
    );
}

/// ESDIRK4(3)6L[2]SA₂ at Δt/n = 1e-3 s completes the lateral buckling, as in MSD22 §5.3. At
/// t = 0.375 s Newton diverged in its first implicit stage, whose start is the previous step's
/// last stage (no extrapolation to undo); the damped Newton iteration solves it
/// (`Formulation::set_damped`, the last retry of a fixed-step point).
#[test]
fn esdirk46_completes_the_lateral_buckling_with_the_damped_retry() {
    use dynastep::analysis::dynamic::RunStatus;
    let report = lateral_buckling_run("esdirk4-6", None, 5e-3, 0.4);
    assert_eq!(report.status, RunStatus::Completed, "{:?}", report.status);
    assert!(
        notes_retried(&report, "by the damped iteration"),
        "{:?}",
        report.notes
    );
}

/// The flexible four-bar without its 5° defect (the hinge at C about y like the others) is a
/// parallelogram of flexible bars driven at Ω = 0.6 rad/s: its point C must follow the rigid
/// parallelogram, C = (0.24 + 0.12 sin φ, 0, 0.12 cos φ) with φ = Ω (t + 2T), through the change
/// points where all bars line up (φ = π/2, 3π/2), up to the bars' small elastic deformation.
#[test]
fn flexible_fourbar_without_its_defect_follows_the_parallelogram() {
    use dynastep::analysis::dynamic::RunStatus;
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    use dynastep::io::history::{HistoryColumns, HistoryRecorder};
    let ex = find("flexible-fourbar").expect("example");
    let overrides = vec!["spatial.joints.C.axis=[0.0, 1.0, 0.0]".to_string()];
    let model = from_str_with_overrides(ex.text, ex.file, &overrides).expect("parses");
    // One revolution and a quarter from the start, through both change points.
    let two_t = 4.0 * std::f64::consts::PI / 0.6;
    let opts = RunOptions {
        t_end: Some(-two_t + 1.25 * two_t / 2.0),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).expect("assembles");
    let mut rec = HistoryRecorder::new(HistoryColumns::new(&sim.system, true, false));
    assert_eq!(sim.run(&mut [&mut rec]).status, RunStatus::Completed);
    let (t, x, z) = (
        rec.table.t(),
        rec.table.column("C.x").expect("C.x"),
        rec.table.column("C.z").expect("C.z"),
    );
    let worst = (0..t.len())
        .map(|k| {
            let phi = 0.6 * (t[k] + two_t);
            let (xr, zr) = (0.24 + 0.12 * phi.sin(), 0.12 * phi.cos());
            (x[k] - xr).hypot(z[k] - zr)
        })
        .fold(0.0, f64::max);
    println!("max |C − C_rigid| = {worst:.2e} m over {} samples", t.len());
    assert!(worst < 1e-4, "{worst}");
}

/// A completed run of `model` with `opts`, its history kept in memory.
fn run_history(
    model: &dynastep::model::Model,
    opts: &dynastep::analysis::simulation::RunOptions,
) -> dynastep::io::history_table::HistoryTable {
    use dynastep::analysis::dynamic::RunStatus;
    use dynastep::analysis::simulation::Simulation;
    use dynastep::io::history::{HistoryColumns, HistoryRecorder};
    let mut sim = Simulation::new(model, opts).expect("assembles");
    let mut rec = HistoryRecorder::new(HistoryColumns::new(&sim.system, true, false));
    assert_eq!(sim.run(&mut [&mut rec]).status, RunStatus::Completed);
    rec.table
}

/// The rows of `reference/mbdyn/FILE` at times of `table` (within 1e-5 s; MBDyn prints its times
/// to 1e-6 s, and a run's last sample is its t_end) up to `t_max`, each paired with the row's
/// index in `table`.
fn mbdyn_rows(
    file: &str,
    table: &dynastep::io::history_table::HistoryTable,
    t_max: f64,
) -> Vec<(usize, Vec<f64>)> {
    let path = format!(
        "{}/../../reference/mbdyn/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t = table.t();
    let mut k = 0;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let row: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        if row[0] > t_max + 1e-9 {
            break;
        }
        while k + 1 < t.len() && t[k] < row[0] - 1e-5 {
            k += 1;
        }
        if (t[k] - row[0]).abs() <= 1e-5 {
            out.push((k, row));
        }
    }
    out
}

/// The largest |ours − MBDyn's| of each (history column, column of the MBDyn file) pair over
/// `rows`.
fn largest_differences(
    table: &dynastep::io::history_table::HistoryTable,
    rows: &[(usize, Vec<f64>)],
    pairs: &[(&str, usize)],
) -> Vec<f64> {
    pairs
        .iter()
        .map(|&(name, c)| {
            let ours = table.column(name).expect(name);
            rows.iter()
                .map(|(k, row)| (ours[*k] - row[c]).abs())
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The flexible four-bar with its 5° defect against MBDyn's solution of the same deck
/// (`reference/mbdyn/`: MBDyn develop, Bathe with ρ∞ = 0 at Δt = 8e-3 s, every 0.04 s from −2T to
/// 12 s), with the deck's masses, a third of Table 3's (that folder's README says why). Both
/// programs leave the parallelogram at each change point for the crossed branch and come back at
/// the next: at t = −17 s, B is 0.086 m below the ground line while C is 0.117 m above it.
/// Measured: the largest difference in B and C at these samples is 3.6e-7 m (2026-11-28).
#[test]
fn flexible_fourbar_follows_mbdyns_solution_of_its_deck() {
    let model = flexible_fourbar_with_the_decks_masses();
    let table = run_history(&model, &Default::default());
    let rows = mbdyn_rows("flexible_fourbar_bathe_8e-3.csv", &table, 12.0);
    let worst = largest_b_c_difference(&table, &rows);
    println!(
        "max |B, C − MBDyn| = {worst:.2e} m over {} samples",
        rows.len()
    );
    assert!(rows.len() >= 820, "{} samples matched", rows.len());
    assert!(worst < 1e-5, "{worst:.3e} m");
    let (k, _) = rows
        .iter()
        .find(|(_, row)| (row[0] + 17.0).abs() < 0.02)
        .expect("a sample at t = −17 s");
    let (bz, cz) = (
        table.column("AB.10.z").unwrap()[*k],
        table.column("BC.10.z").unwrap()[*k],
    );
    assert!(
        bz < -0.08 && cz > 0.1,
        "crossed branch at t = −17 s: Bz {bz}, Cz {cz}"
    );
}

/// The largest difference over `rows` of MBDyn's four-bar file (columns 1–6: B and C) from the
/// four-bar's nodes AB.10 and BC.10 in `table` \[m\].
fn largest_b_c_difference(
    table: &dynastep::io::history_table::HistoryTable,
    rows: &[(usize, Vec<f64>)],
) -> f64 {
    let names = [
        "AB.10.x", "AB.10.y", "AB.10.z", "BC.10.x", "BC.10.y", "BC.10.z",
    ];
    let pairs: Vec<(&str, usize)> = names.iter().enumerate().map(|(c, n)| (*n, c + 1)).collect();
    largest_differences(table, rows, &pairs)
        .into_iter()
        .fold(0.0, f64::max)
}

/// The example `flexible-fourbar` with the masses of MBDyn's deck, a third of Table 3's
/// (`reference/mbdyn/README.md` says why): the model of MSD22's runs.
fn flexible_fourbar_with_the_decks_masses() -> dynastep::model::Model {
    let ex = find("flexible-fourbar").expect("example");
    let mut model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    for b in &mut model.spatial.as_mut().expect("spatial").beams {
        b.mass_per_length /= 3.0;
        b.inertia_per_length = b.inertia_per_length.map(|j| j / 3.0);
    }
    model
}

/// The rows of `rows` (MBDyn's samples) farther than 0.2 s from the four-bar's change points
/// t = −2T + T/4 + k T/2, where the crank lies along the ground line (T = 2π/0.6 s).
fn away_from_change_points(rows: Vec<(usize, Vec<f64>)>) -> Vec<(usize, Vec<f64>)> {
    let period = 2.0 * std::f64::consts::PI / 0.6;
    let change = |t: f64| {
        let k = ((t + 2.0 * period - period / 4.0) / (period / 2.0)).round();
        -2.0 * period + period / 4.0 + k * period / 2.0
    };
    rows.into_iter()
        .filter(|(_, row)| (row[0] - change(row[0])).abs() > 0.2)
        .collect()
}

/// `scheme` (ρ∞ = 0 when `rho_zero`) at the fixed step `dt` on `model`, the four-bar: completes,
/// and B and C stay within `near` \[m\] of MBDyn's Bathe solution of the deck at every sample
/// and within `away` of it farther than 0.2 s from the change points.
fn fourbar_follows_mbdyn(
    model: &dynastep::model::Model,
    (scheme, rho_zero, dt): (&str, bool, f64),
    (near, away): (f64, f64),
) {
    use dynastep::analysis::simulation::RunOptions;
    let mut params = dynastep::scheme::SchemeParams::new();
    if rho_zero {
        params.insert("rho_inf".into(), 0.0);
    }
    let options = RunOptions {
        scheme: Some(scheme.into()),
        params,
        dt: Some(dt),
        ..RunOptions::default()
    };
    let table = run_history(model, &options);
    let rows = mbdyn_rows("flexible_fourbar_bathe_8e-3.csv", &table, 12.0);
    let worst = largest_b_c_difference(&table, &rows);
    let far = away_from_change_points(rows);
    let worst_far = largest_b_c_difference(&table, &far);
    println!(
        "{scheme}: max |B, C − MBDyn| = {worst:.2e} m, away from the change points {worst_far:.2e} m"
    );
    assert!(far.len() >= 700, "{} samples matched", far.len());
    assert!(
        worst < near && worst_far < away,
        "{scheme}: {worst:.3e}, {worst_far:.3e} m"
    );
}

/// MSSTH(4) and MSSTH(5) with ρ∞ = 0 at MSD22's Δt/n = 4e-3 s on the four-bar of MSD22 §5.2,
/// with the deck's masses, complete on MBDyn's branch: B and C within 1e-4 m of MBDyn's Bathe
/// solution of the deck at every sample (measured 2026-11-29: 7.0e-5 and 4.4e-5 m, at the change
/// points) and 1e-6 m away from them. MSSTH(4) completes since its stages start Newton from the
/// Hermite prediction over nodes in any order, as MBDyn does (`Esdirk::extrapolates`); MSSTH(5)
/// since a point that needs more than 8 Newton iterations has its step halved
/// (`[solver.step] halve_after_iterations`): with 25 iterations a stage settled on a spurious
/// solution after the third change point and the run stopped at t = −7.78 s.
#[test]
fn flexible_fourbar_with_the_decks_masses_completes_with_mssth4_and_mssth5() {
    let model = flexible_fourbar_with_the_decks_masses();
    for (scheme, dt) in [("mssth4", 0.016), ("mssth5", 0.02)] {
        fourbar_follows_mbdyn(&model, (scheme, true, dt), (1e-4, 1e-6));
    }
}

/// With the example's masses (Table 3's), the three schemes that stopped just after the first
/// change point, MSSTH(4), MSSTH(5) and ESDIRK4(3)6L at MSD22's steps, complete since a point
/// that needs more than 8 Newton iterations has its step halved: with 25 their stages settled on
/// spurious solutions there (ESDIRK4(3)6L, halved but with 25 iterations, on the other branch,
/// 0.21 m from MBDyn's). They stay on MBDyn's branch: B and C within 1e-3 m of MBDyn's solution
/// of the deck (whose masses differ, which shows at the change points; Bathe's own difference is
/// 2.0e-4 m there) and 1e-5 m away from the change points.
#[test]
fn flexible_fourbar_schemes_that_stopped_complete_on_mbdyns_branch() {
    let ex = find("flexible-fourbar").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    for (scheme, rho_zero, dt) in [
        ("mssth4", true, 0.016),
        ("mssth5", true, 0.02),
        ("esdirk4-6", false, 0.02),
    ] {
        fourbar_follows_mbdyn(&model, (scheme, rho_zero, dt), (1e-3, 1e-5));
    }
}

/// The rotating shaft starts from its static equilibrium under gravity (`start = "equilibrium"`):
/// at rest, its mid-span sagged as a clamped–clamped Timoshenko beam sags (the revolute and
/// cylindrical joints both block bending rotations) under its weight q and the disk's P:
/// δ = qL⁴/(384 EI) + PL³/(192 EI) + qL²/(8 GA) + PL/(4 GA).
#[test]
fn rotating_shaft_starts_sagged_under_gravity() {
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    let ex = find("rotating-shaft").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    let sim = Simulation::new(&model, &RunOptions::default()).expect("starts");
    let (l, ei, ga, g): (f64, f64, f64, f64) = (6.0, 354.5e3, 60.5e6, 9.81);
    let (q, p) = (11.639600781 * g, 70.573 * g);
    let exact = q * l.powi(4) / (384.0 * ei)
        + p * l.powi(3) / (192.0 * ei)
        + q * l * l / (8.0 * ga)
        + p * l / (4.0 * ga);
    let b = sim
        .system
        .body_names()
        .iter()
        .position(|b| *b == "shaft.16")
        .expect("node");
    let mut pose = Vec::new();
    sim.system.push_body_pose(b, &sim.initial.q, &mut pose);
    let sag = -pose[2];
    println!("mid-span sag {sag:.6e} m, clamped–clamped Timoshenko {exact:.6e} m");
    assert!((sag / exact - 1.0).abs() < 5e-3, "{sag} vs {exact}");
    assert!(
        sim.initial.v.amax() < 1e-9,
        "not at rest: {}",
        sim.initial.v.amax()
    );
}

/// The rotating shaft against MBDyn's solution of its deck (`reference/mbdyn/`: MBDyn develop, the
/// deck's ESDIRK4(3)6L[2]SA₂ at Δt = 5e-3 s after its settling phase, every step on [0, 2.5] s),
/// with the same scheme and step: the mid-span displacements u2, u3 (±0.27 m as the shaft passes
/// its critical speed) agree to 3.6e-5 m, 7e-5 of their range (measured 2026-11-28).
#[test]
fn rotating_shaft_follows_mbdyns_solution_of_its_deck() {
    use dynastep::analysis::simulation::RunOptions;
    let ex = find("rotating-shaft").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    let opts = RunOptions {
        scheme: Some("esdirk4-6".into()),
        dt: Some(5e-3),
        output_interval: Some(5e-3),
        ..RunOptions::default()
    };
    let table = run_history(&model, &opts);
    let rows = mbdyn_rows("rotating_shaft_dirk54_5e-3.csv", &table, 2.5);
    let d = largest_differences(&table, &rows, &[("shaft.16.y", 1), ("shaft.16.z", 2)]);
    println!(
        "max |u2 − MBDyn| = {:.2e} m, |u3 − MBDyn| = {:.2e} m over {} samples",
        d[0],
        d[1],
        rows.len()
    );
    assert!(rows.len() >= 500, "{} samples matched", rows.len());
    assert!(d[0] < 1e-4 && d[1] < 1e-4, "{d:?}");
}

/// The lateral buckling against MBDyn's solution of its deck (`reference/mbdyn/`: the deck's
/// LMS4 with ρ∞ = 0.6 at Δt = 1e-3 s), with the same scheme and step, to t = 0.4 s, when the
/// crank is up: the mid-span node's lateral and vertical displacements agree to 1.1e-3 and
/// 1.9e-4 m (1.6 % and 1.0 % of their range; measured 2026-11-28). The deck puts each end node's
/// centre of mass a quarter of an element inward, where dynastep's example puts it on the node:
/// with MBDyn's deck given dynastep's lumping, the two agree to 0.3 % (reference/mbdyn/README.md).
#[test]
fn lateral_buckling_follows_mbdyns_solution_of_its_deck() {
    use dynastep::analysis::simulation::RunOptions;
    use dynastep::scheme::SchemeParams;
    let ex = find("lateral-buckling").expect("example");
    let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
    let mut params = SchemeParams::new();
    params.insert("rho_inf".into(), 0.6);
    let opts = RunOptions {
        scheme: Some("lms4".into()),
        params,
        dt: Some(1e-3),
        output_interval: Some(1e-3),
        t_end: Some(0.4),
        ..RunOptions::default()
    };
    let table = run_history(&model, &opts);
    let rows = mbdyn_rows("lateral_buckling_ms4_1e-3.csv", &table, 0.4);
    let d = largest_differences(&table, &rows, &[("beam.5.y", 1), ("beam.5.z", 2)]);
    println!(
        "mid-span |Δy| {:.2e} m, |Δz| {:.2e} m over {} samples",
        d[0],
        d[1],
        rows.len()
    );
    assert!(rows.len() >= 400, "{} samples matched", rows.len());
    assert!(d[0] < 2e-3 && d[1] < 5e-4, "{d:?}");
}

/// SS2's consistent start on the flexible four-bar: its lags follow the jerk at t₀, which the
/// bars' stiff modes set (the assembly changed their velocities by 9.2e-3 m/s), and at Δt =
/// 4e-3 s Newton diverges on the first step from it. The step is retaken from the paper's start,
/// so the run is the one with `start = 0` up to rounding, and its notes say so. On the pendulum, whose
/// jerk the step resolves, the consistent start stands and nothing is noted.
#[test]
fn ss2_retakes_a_failed_first_step_from_the_papers_start() {
    use dynastep::analysis::simulation::{RunOptions, Simulation};
    use dynastep::scheme::SchemeParams;
    let run = |example: &str, start: Option<f64>, dt: f64, span: f64| {
        let ex = find(example).expect("example");
        let model = dynastep::model::parse::from_str(ex.text, ex.file).expect("parses");
        let mut params = SchemeParams::new();
        params.insert("rho_inf".into(), 0.0);
        if let Some(s) = start {
            params.insert("start".into(), s);
        }
        let t0 = model.solver.t_start.unwrap_or(0.0);
        let options = RunOptions {
            scheme: Some("ss2".into()),
            params,
            dt: Some(dt),
            t_end: Some(t0 + span),
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(&model, &options).expect("assembles");
        sim.run(&mut [])
    };
    let retaken = run("flexible-fourbar", None, 4e-3, 0.2);
    let papers = run("flexible-fourbar", Some(0.0), 4e-3, 0.2);
    assert_eq!(
        retaken.status,
        dynastep::analysis::dynamic::RunStatus::Completed,
        "{:?}",
        retaken.status
    );
    println!("{:?}", retaken.notes);
    // The scheme's note, and the time loop's on the point solved again.
    assert_eq!(retaken.notes.len(), 2, "{:?}", retaken.notes);
    assert!(retaken.notes[0].contains("retaken from the paper's start"));
    assert!(retaken.notes[1].contains("1 from the constant start"));
    assert!(papers.notes.is_empty(), "{:?}", papers.notes);
    // The same run up to rounding: the failed attempt leaves the sparse solver other pivots.
    let dq = (&retaken.final_state.q - &papers.final_state.q).amax();
    let dv = (&retaken.final_state.v - &papers.final_state.v).amax();
    println!("after 0.2 s: |Δq| ≤ {dq:.1e} m, |Δv| ≤ {dv:.1e} m/s");
    assert!(dq < 1e-9 && dv < 1e-6, "{dq:e} {dv:e}");
    let pendulum = run("pendulum", None, 1e-2, 1.0);
    assert!(pendulum.notes.is_empty(), "{:?}", pendulum.notes);
}
