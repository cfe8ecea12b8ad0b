//! The `dynastep` program as a user meets it: exit codes, files written, messages.

mod common;
use common::{dynastep, scratch};

fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn run_example_writes_history_and_summary() {
    let out = scratch("run");
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header: Vec<&str> = history.lines().next().unwrap().split(',').collect();
    for col in [
        "t",
        "mass.x",
        "mass.vy",
        "P1.x",
        "P1.vy",
        "rod.fx",
        "energy.total",
        "energy.balance",
        "constraint.position",
    ] {
        assert!(header.contains(&col), "missing column {col} in {header:?}");
    }
    let last: Vec<f64> = history
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!((last[0] - 10.0).abs() < 1e-9);
    // Output rows every 0.01 s (the model's interval), independent of dt = 1e-3.
    assert_eq!(history.lines().count(), 1 + 1001);
    let s = summary(&out);
    assert_eq!(s["status"], "completed");
    assert_eq!(s["steps"], 10000);
    assert!(s["newton_iterations"]["mean_per_step"].as_f64().unwrap() >= 1.0);
    assert!(s["max_energy_error"].as_f64().unwrap() < 1e-3);
    let p1 = &s["final_state"]["markers"]["P1"];
    let (x, y) = (p1[0].as_f64().unwrap(), p1[1].as_f64().unwrap());
    assert!(((x + 0.2750874626).powi(2) + (y + 0.9614192051).powi(2)).sqrt() < 5e-4);
}

#[test]
fn overrides_and_scheme_options_reach_the_run() {
    let out = scratch("set");
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--scheme",
        "hht",
        "--param",
        "alpha=-0.2",
        "--dt",
        "2e-3",
        "--t-end",
        "1",
        "--set",
        "bodies.mass.mass=3",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert_eq!(s["scheme"], "hht");
    assert_eq!(s["parameters"]["alpha"], -0.2);
    assert_eq!(s["dt"], 2e-3);
    assert_eq!(s["steps"], 500);
}

#[test]
fn misspelled_body_is_reported_with_its_line() {
    let dir = scratch("check");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pendulum.toml"
    ))
    .unwrap();
    let bad = text.replacen("body_j = \"mass\"", "body_j = \"mas\"", 1);
    let line = bad.lines().position(|l| l.contains("\"mas\"")).unwrap() + 1;
    let path = dir.join("bad.toml");
    std::fs::write(&path, bad).unwrap();
    let o = dynastep(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("bad.toml:{line}:")), "{err}");
    assert!(
        err.contains("`mas`") && err.contains("did you mean `mass`"),
        "{err}"
    );
    let ok = dynastep(&[
        "check",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/andrews.toml"),
    ]);
    assert!(ok.status.success());
}

#[test]
fn a_failed_run_keeps_its_output_and_exits_1() {
    let out = scratch("fail");
    // Fox–Goodwin is unstable on index-3 constraints: the run stops early.
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--quiet",
        "--scheme",
        "fox-goodwin",
        "--t-end",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("stopped at t ="), "{err}");
    let s = summary(&out);
    assert_eq!(s["status"], "failed");
    let failed_at = s["failed_at"].as_f64().unwrap();
    assert!(failed_at > 0.0 && failed_at < 1.0);
    assert!(!s["reason"].as_str().unwrap().is_empty());
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let last_t: f64 = history
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        last_t > 0.0 && last_t <= failed_at + 1e-12,
        "history kept up to {last_t}"
    );
}

#[test]
fn listings_name_every_scheme_and_example() {
    let o = dynastep(&["schemes"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for s in dynastep::scheme::REGISTRY {
        assert!(text.contains(s.name), "{}", s.name);
    }
    let o = dynastep(&["examples"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for e in dynastep::examples::EXAMPLES {
        assert!(text.contains(e.name), "{}", e.name);
    }
}

#[test]
fn stability_json_gives_the_known_limits() {
    let out = scratch("stab");
    let json = |args: &[&str]| {
        let mut all = vec!["stability", "--json", "--out", out.to_str().unwrap()];
        all.extend_from_slice(args);
        let o = dynastep(&all);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let cd = json(&["--scheme", "central-difference"]);
    assert!((cd["omega_crit"].as_f64().unwrap() - 2.0).abs() < 1e-6);
    let fg = json(&["--scheme", "fox-goodwin"]);
    assert!((fg["omega_crit"].as_f64().unwrap() - 6f64.sqrt()).abs() < 1e-6);
    let many = json(&[
        "--scheme",
        "generalized-alpha",
        "--scheme",
        "lms2",
        "--scheme",
        "bathe",
        "--param",
        "rho_inf=0.6",
    ]);
    for r in many.as_array().unwrap() {
        assert!(r["omega_crit"].is_null(), "{r}");
        assert!((r["rho_inf"].as_f64().unwrap() - 0.6).abs() < 1e-9, "{r}");
    }
    for f in ["stability.csv", "stability.png", "stability.svg"] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 0, "{f}");
    }
}

#[test]
fn formulations_are_listed_and_chosen() {
    let o = dynastep(&["formulations"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("index3") && text.contains("generalized-alpha"),
        "{text}"
    );
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--formulation",
        "index-4",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("known formulations: `index3`"));
}

/// `--omega-max` on the pendulum released horizontally at rest: along the swing
/// ω_max² = (g cos θ + L θ̇²)/L = 3 g cos θ / L (energy: L θ̇² = 2 g cos θ), largest at the bottom,
/// √(3g/L) = 5.42494 rad/s; Fox–Goodwin's limit is √6 over it.
#[test]
fn omega_max_gives_the_column_and_the_step_limit() {
    let out = scratch("omega-max");
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--formulation",
        "tangent-space",
        "--scheme",
        "fox-goodwin",
        "--t-end",
        "1",
        "--omega-max",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header: Vec<&str> = history.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|c| *c == "omega_max")
        .expect("column");
    let first: f64 = history
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(col)
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        first.abs() < 1e-6,
        "horizontal at rest: no restoring stiffness, got {first}"
    );
    let s = summary(&out);
    let exact = (3.0_f64 * 9.81).sqrt();
    let max = s["omega_max"]["max"].as_f64().unwrap();
    assert!((max - exact).abs() < 1e-4 * exact, "{max} vs {exact}");
    let limit = s["omega_max"]["step_limit"].as_f64().unwrap();
    assert!((limit - 6.0_f64.sqrt() / max).abs() < 1e-6 * limit);
}

#[test]
fn adaptive_run_reports_its_steps() {
    let out = scratch("adaptive");
    let o = dynastep(&[
        "run",
        "--example",
        "andrews",
        "--rtol",
        "1e-5",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert_eq!(s["step_control"]["mode"], "adaptive");
    assert_eq!(s["step_control"]["rtol"], 1e-5);
    assert_eq!(s["formulation"], "index3");
    let (min, max) = (
        s["h"]["min"].as_f64().unwrap(),
        s["h"]["max"].as_f64().unwrap(),
    );
    assert!(min > 0.0 && min < max, "{s}");
    assert!(s["rejected_steps"].as_u64().is_some());
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header: Vec<&str> = history.lines().next().unwrap().split(',').collect();
    assert_eq!(&header[..2], ["t", "h"]);
    // A scheme without an error estimate is refused with the reason.
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--scheme",
        "central-difference",
        "--rtol",
        "1e-6",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no local error estimate"));
    // An output interval below the spacing of the times is refused, not a hang.
    let o = dynastep(&[
        "run",
        "--example",
        "pendulum",
        "--output-interval",
        "1e-300",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn inverse_dynamics_writes_driver_torque_and_energy_check() {
    let out = scratch("inverse");
    let o = dynastep(&[
        "inverse-dynamics",
        "--example",
        "slider-crank",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header: Vec<&str> = history.lines().next().unwrap().split(',').collect();
    for col in ["crank_speed.torque", "A.fx", "A.fy_joint", "rail.torque"] {
        assert!(header.contains(&col), "missing column {col} in {header:?}");
    }
    // A revolute joint transmits no torque: no column for it.
    assert!(!header.contains(&"A.torque"));
    let s = summary(&out);
    assert_eq!(s["analysis"], "inverse-dynamics");
    assert_eq!(s["status"], "completed");
    assert!(s["energy_check"]["max_residual"].as_f64().unwrap() < 1e-6);
    assert!(s["final_state"]["drivers"]["crank_speed"].is_number());
}

#[test]
fn kinematics_refuses_an_undriven_model_by_name() {
    let out = scratch("undriven");
    let o = dynastep(&[
        "kinematics",
        "--example",
        "spring-linkage",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not fully driven") && err.contains("1 degree(s) of freedom"),
        "{err}"
    );
}

#[test]
fn equilibrium_reports_the_configuration_and_its_stability() {
    let out = scratch("equilibrium");
    let o = dynastep(&[
        "equilibrium",
        "--example",
        "spring-linkage",
        "--method",
        "potential",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert_eq!(s["analysis"], "equilibrium");
    assert_eq!(s["equilibrium"]["method"], "potential");
    assert_eq!(s["equilibrium"]["stability"]["verdict"], "stable");
    let theta = s["final_state"]["bodies"]["crank"][2].as_f64().unwrap();
    assert!((theta + 1.2924236754).abs() < 1e-8, "{theta}");
    let o = dynastep(&[
        "equilibrium",
        "--example",
        "spring-linkage",
        "--method",
        "simplex",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("settle, newton, potential"));
}

/// Issue #37: a run setting given on the command line is checked by the same rule as in a model
/// file, and the error names the flag (a file's value gets file:line:column from `check`).
#[test]
fn run_options_are_checked_by_the_model_rules_and_named() {
    for (flag, said) in [
        ("--dt=-1", "run option dt (--dt): dt must be positive"),
        (
            "--rtol=-1",
            "run option rtol (--rtol): rtol must be positive",
        ),
        (
            "--t-end=-1",
            "run option t_end (--t-end): t_end = -1 is not after t_start",
        ),
        (
            "--output-interval=-1",
            "run option output_interval (--output-interval)",
        ),
        (
            "--scheme=rk4",
            "run option scheme (--scheme): formulation `index3` does not serve",
        ),
    ] {
        let o = dynastep(&["run", "--example", "pendulum", flag, "--quiet"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(said), "{flag}: {err}");
    }
}

#[test]
fn a_tolerance_without_a_scheme_takes_the_stiffness_switch_and_trial_measures() {
    let out = scratch("auto");
    // The pendulum without its scheme and step lines: `--rtol` alone takes the switch, which
    // starts with Adams PECE and projection and stays there on this smooth model.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pendulum.toml"
    ))
    .unwrap()
    .lines()
    .filter(|l| !l.trim_start().starts_with("scheme"))
    .collect::<Vec<_>>()
    .join("\n");
    let file = out.join("pendulum.toml");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(&file, &text).unwrap();
    // The file at rtol 1e-6 over 2 s with `scheme` options: the terminal's text and summary.json.
    let run = |scheme: &[&str]| {
        let (path, dir) = (file.to_str().unwrap(), out.to_str().unwrap());
        let mut args = vec!["run", path, "--rtol", "1e-6", "--t-end", "2", "--out", dir];
        args.extend_from_slice(scheme);
        let o = dynastep(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{err}");
        (err, summary(&out))
    };
    let (err, s) = run(&[]);
    assert!(err.contains("the start of the stiffness switch"), "{err}");
    let c = &s["stiffness_switch"];
    assert_eq!(c["chosen"], "abm / projection", "{c}");
    assert_eq!(
        (&s["scheme"], &s["formulation"]),
        (&"abm".into(), &"projection".into())
    );
    assert!(c.get("switched").is_none(), "{c}");
    assert!(s.get("method_choice").is_none());
    assert_eq!(s["step_control"]["rtol"], 1e-6);
    // `scheme = "auto"` in the file asks for the switch too (without parameters), and for a
    // tolerance.
    let auto_text = text
        .replace("[solver]", "[solver]\nscheme = \"auto\"")
        .replace("[solver.params]\nrho_inf = 0.8", "");
    let auto_file = out.join("pendulum-auto.toml");
    std::fs::write(&auto_file, auto_text).unwrap();
    let (path, dir) = (auto_file.to_str().unwrap(), out.to_str().unwrap());
    let o = dynastep(&["run", path, "--rtol", "1e-6", "--t-end", "2", "--out", dir]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("the start of the stiffness switch"), "{err}");
    assert_eq!(
        summary(&out)["stiffness_switch"]["chosen"],
        "abm / projection"
    );
    let o = dynastep(&["run", path, "--quiet", "--out", dir]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("[solver.step] rtol"),
        "{err}"
    );
    // `check` says the same, and passes the file once it has a tolerance.
    let o = dynastep(&["check", path]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("[solver.step] rtol"),
        "{err}"
    );
    let o = dynastep(&["check", path, "--set", "solver.step.rtol=1e-6"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // `auto` is not a scheme to compare.
    let o = dynastep(&[
        "compare",
        path,
        "--schemes",
        "auto",
        "--rtol",
        "1e-6",
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("not a scheme to compare"),
        "{err}"
    );
    // Nor to sweep: a sweep of the file without --scheme is a usage error (exit status 2)
    // before any case, not a sweep whose every case could not start.
    let o = dynastep(&["sweep", path, "--dt", "1e-3", "--quiet", "--out", dir]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a scheme to sweep"), "{err}");
    // `--scheme trial` measures the candidates on the first 10 % and runs the fastest.
    let (err, s) = run(&["--scheme", "trial"]);
    assert!(err.contains("chosen by --scheme trial"), "{err}");
    let c = &s["method_choice"];
    assert_eq!(
        c["chosen"],
        format!(
            "{} / {}",
            s["scheme"].as_str().unwrap(),
            s["formulation"].as_str().unwrap()
        ),
        "{c}"
    );
    assert_eq!(c["ranking"].as_array().unwrap().len(), 5, "{c}");
    assert_eq!(c["trial_t_start"], 0.0);
    assert_eq!(c["trial_t_end"], 0.2);
    // Both choices choose the formulation as well: naming one is refused.
    for scheme in ["auto", "trial"] {
        let o = dynastep(&[
            "run",
            "--example",
            "pendulum",
            "--scheme",
            scheme,
            "--rtol",
            "1e-6",
            "--formulation",
            "index3",
            "--quiet",
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("leave out --formulation"), "{scheme}: {err}");
        // Nor the scheme's parameters (the second pair would not take the first one's), nor
        // fixed steps.
        for extra in [["--param", "max_order=4"], ["--dt", "1e-3"]] {
            let mut args = vec!["run", "--example", "pendulum", "--scheme", scheme];
            if extra[0] == "--param" {
                args.extend(["--rtol", "1e-6"]);
            }
            args.extend(extra);
            args.push("--quiet");
            let o = dynastep(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{args:?}: {err}");
            let said = if extra[0] == "--param" {
                "--param"
            } else {
                "give --rtol"
            };
            assert!(err.contains(said), "{args:?}: {err}");
        }
    }
    // compare --auto writes the ranking.
    let o = dynastep(&[
        "compare",
        "--example",
        "pendulum",
        "--auto",
        "--rtol",
        "1e-6",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 5, "{csv}");
}

/// `--scheme trial` on the N = 40 chain at rtol 1e-7 through its singular configurations: the trial
/// (the first 1.8 s) may rank an explicit pair with projection first, which before the
/// singularity watch left the ADAMS branch at t ≈ 17 s (B0 1–2 m off, no error). Whatever the
/// trial's timings choose, B0 at 18 s must be within 0.05 m of the official ADAMS file, and a
/// fallback, when taken, must leave an index-1 pair for a position-level one.
#[test]
fn the_chosen_pair_passes_the_singular_configurations() {
    let out = scratch("auto-n40");
    let o = dynastep(&[
        "run",
        "--example",
        "nfourbar40",
        "--scheme",
        "trial",
        "--rtol",
        "1e-7",
        "--t-end",
        "18",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let s = summary(&out);
    let b0 = &s["final_state"]["markers"]["B0"];
    let official = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../reference/gdlc06_A02_N40_fourbar_B0_0-20s.csv"
    ))
    .unwrap();
    let row: Vec<f64> = official
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|x| x.trim().parse().unwrap())
                .collect::<Vec<f64>>()
        })
        .find(|r| (r[0] - 18.0).abs() < 1e-9)
        .expect("the ADAMS file has t = 18 s");
    let error = (b0[0].as_f64().unwrap() - row[1])
        .abs()
        .max((b0[1].as_f64().unwrap() - row[2]).abs());
    let c = &s["method_choice"];
    println!(
        "chosen {}, fallback {}; B0 error at 18 s {error:.3e} m",
        c["chosen"], c["fallback"]
    );
    assert!(error < 0.05, "B0 {error:e} m off at 18 s; {err}");
    if let Some(f) = c.get("fallback") {
        let from = f["from"].as_str().unwrap();
        assert!(from.ends_with("projection"), "{f}");
        assert!(
            !c["chosen"].as_str().unwrap().ends_with("projection"),
            "{c}"
        );
    }
}

/// The redundant-constraint warning of Bricard's mechanism names the dependent row and, for the
/// 35 rows its dependency involves, the eleven elements they belong to, each once.
#[test]
fn a_long_dependency_is_named_by_its_elements() {
    let out = scratch("bricard-warning");
    let o = dynastep(&[
        "run",
        "--example",
        "bricard",
        "--t-end",
        "0.01",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("warning: redundant constraints"))
        .expect("a warning");
    assert!(
        line.contains("joint `J5` (revolute), axis ⟂ g depends"),
        "{line}"
    );
    assert!(line.contains("35 rows of body `rod0`,"), "{line}");
    assert_eq!(line.matches("joint `J0`").count(), 1, "{line}");
    assert!(!line.contains("normalization"), "{line}");
}

/// The stiffness switch on the flyball governor: Adams PECE's steps are bounded by its stability
/// from the start, the run stops after STIFF_STEPS of them and goes on from there with
/// ESDIRK4(3)6L in stabilized index 2 to the end, in one history; summary.json says when and why
/// it switched.
#[test]
fn the_stiffness_switch_leaves_adams_pece_on_the_flyball_governor() {
    let out = scratch("auto-flyball");
    let o = dynastep(&[
        "run",
        "--example",
        "flyball-governor",
        "--scheme",
        "auto",
        "--rtol",
        "1e-4",
        "--t-end",
        "0.5",
        "--output-interval",
        "0.01",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("going on from there with esdirk4-6 / stabilized-index2"),
        "{err}"
    );
    assert!(err.contains("with abm / projection to t = 0.0"), "{err}");
    // One history: its header once, a row at each multiple of the interval.
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let t: Vec<f64> = history
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(t.len(), 51, "{t:?}");
    assert!(
        t.iter()
            .enumerate()
            .all(|(k, t)| (t - 0.01 * k as f64).abs() < 1e-9),
        "{t:?}"
    );
    let s = summary(&out);
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(
        (&s["scheme"], &s["formulation"]),
        (&"esdirk4-6".into(), &"stabilized-index2".into())
    );
    let w = &s["stiffness_switch"]["switched"];
    assert_eq!(w["from"], "abm / projection", "{w}");
    let at = w["stopped_at"].as_f64().unwrap();
    assert!(at > 0.0 && at < 0.1, "{w}");
    assert!(w["reason"].as_str().unwrap().contains("stiff"), "{w}");
    assert!(w["loop_time_s"].as_f64().unwrap() > 0.0, "{w}");
    assert_eq!(w["went_on"], true, "{w}");
}
