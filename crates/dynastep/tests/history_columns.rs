//! `[solver] output_columns`: the history keeps `t` and the columns its patterns match, in the
//! full history's order and with the full history's values, for a planar, a spatial, a beam and
//! an equation-based model; a pattern that matches nothing is a settings failure at the setting
//! (the CLI and Python stop the run with it before it starts); an empty list or a broken pattern is refused by the model's checks.

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::examples::find;
use dynastep::io::history::{HistoryColumns, HistoryRecorder, HistoryWriter};
use dynastep::model::parse::from_str_with_overrides;

/// The model of `example` with `overrides`.
fn model(example: &str, overrides: &[&str]) -> dynastep::model::Model {
    let ex = find(example).expect("example");
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    from_str_with_overrides(ex.text, ex.file, &overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// A short run's history of `example` with `overrides`, in memory.
fn history(example: &str, overrides: &[&str]) -> dynastep::io::history_table::HistoryTable {
    let model = model(example, overrides);
    let opts = RunOptions {
        t_end: Some(0.02),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).unwrap_or_else(|e| panic!("{e}"));
    let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, false);
    let mut rec = HistoryRecorder::new(columns);
    assert_eq!(sim.run(&mut [&mut rec]).status, RunStatus::Completed);
    rec.table
}

#[test]
fn selected_columns_are_the_full_historys_columns_in_order() {
    for (example, patterns, expected) in [
        (
            "slider-crank",
            r#"["slider.x", "energy.*"]"#,
            &[
                "t",
                "slider.x",
                "energy.kinetic",
                "energy.potential",
                "energy.total",
                "energy.work_nc",
                "energy.balance",
            ][..],
        ),
        (
            "spatial-top",
            r#"["top.e?", "constraint.position"]"#,
            &[
                "t",
                "top.e0",
                "top.e1",
                "top.e2",
                "top.e3",
                "constraint.position",
            ][..],
        ),
        (
            "lateral-buckling",
            r#"["midspan.[xyz]"]"#,
            &["t", "midspan.x", "midspan.y", "midspan.z"][..],
        ),
        (
            "spinning-top",
            r#"["*_dot", "t"]"#,
            &["t", "phi_dot", "theta_dot", "psi_dot"][..],
        ),
    ] {
        let full = history(example, &[]);
        let setting = format!("solver.output_columns={patterns}");
        let chosen = history(example, &[&setting]);
        assert_eq!(chosen.names, expected, "{example}");
        for name in expected {
            assert_eq!(
                chosen.column(name),
                full.column(name),
                "{example}: column {name}"
            );
        }
        assert!(chosen.column("t").is_some_and(|t| t.len() > 2));
    }
}

#[test]
fn the_csv_writes_the_selected_columns() {
    let model = model(
        "pendulum",
        &[r#"solver.output_columns=["mass.x", "mass.y"]"#],
    );
    let opts = RunOptions {
        t_end: Some(0.01),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).unwrap_or_else(|e| panic!("{e}"));
    let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, false);
    let mut writer = HistoryWriter::with_columns(columns, Vec::new()).expect("header");
    assert_eq!(sim.run(&mut [&mut writer]).status, RunStatus::Completed);
    let text = String::from_utf8(writer.into_inner().expect("rows")).expect("utf-8");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t,mass.x,mass.y"));
    for line in lines {
        assert_eq!(line.split(',').count(), 3, "{line}");
    }
}

#[test]
fn a_pattern_that_matches_nothing_is_a_failure_at_the_setting() {
    let refused = model(
        "pendulum",
        &[r#"solver.output_columns=["mass.x", "mas.z*"]"#],
    );
    let sim = Simulation::new(&refused, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let f = HistoryColumns::check_selection(&sim.system, &sim.model.solver, false)
        .expect_err("the selection should be refused");
    assert_eq!(f.setting, Some("solver.output_columns"));
    assert!(f.message.contains("`mas.z*`"), "{}", f.message);
    assert!(
        f.advice.as_deref().is_some_and(|a| a.contains("mass.x")),
        "{f}"
    );
    let fine = model("pendulum", &[r#"solver.output_columns=["mass.*"]"#]);
    let sim = Simulation::new(&fine, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(HistoryColumns::check_selection(&sim.system, &sim.model.solver, false).is_ok());
}

#[test]
fn an_empty_list_and_a_broken_pattern_are_refused_where_they_are() {
    let ex = find("pendulum").expect("example");
    for (value, says) in [
        ("[]", "output_columns is empty"),
        (
            r#"["mass.x", "mass.[x"]"#,
            "`mass.[x` is not a glob pattern",
        ),
    ] {
        let overrides = vec![format!("solver.output_columns={value}")];
        let e = from_str_with_overrides(ex.text, ex.file, &overrides)
            .expect_err("the model should be refused");
        let text = e.to_string();
        assert!(text.contains(says), "{text}");
        assert!(text.contains("<command line>:1:"), "{text}");
    }
}
