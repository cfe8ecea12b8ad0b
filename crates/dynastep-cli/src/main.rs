//! `dynastep`: the command-line program.
//!
//! ```text
//! dynastep run MODEL.toml [--scheme NAME] [--param K=V ...] [--formulation NAME] [--dt S] [--t-end S]
//!              [--output-interval S] [--rtol R [--atol A] [--h-min S] [--h-max S] [--step-control C]]
//!              [--out DIR] [--set PATH=VALUE ...] [--quiet]
//! dynastep run --example NAME ...
//! dynastep kinematics MODEL.toml|--example NAME [--t-end S] [--output-interval S] [--out DIR]
//! dynastep inverse-dynamics MODEL.toml|--example NAME [--t-end S] [--output-interval S] [--out DIR]
//! dynastep equilibrium MODEL.toml|--example NAME [--method settle|newton|potential] [--tol X]
//!              [--damping C] [--v-tol V] [--a-tol A] [--scheme NAME] [--dt S] [--t-end S] [--out DIR]
//! dynastep check MODEL.toml [--set PATH=VALUE ...]
//! dynastep examples
//! dynastep schemes
//! dynastep formulations
//! dynastep stability --scheme NAME [--scheme NAME ...] [--param K=V ...] [--xi XI] [--json] [--out DIR]
//! dynastep schema
//! dynastep compare MODEL.toml|--example NAME [--schemes A,B,..] [--dt H1,H2,.. | --rtol R1,R2,..]
//!              [--param K=V ...] [--formulations F,..] [--reference auto|FILE] [--measure end|max|rms]
//!              [--columns PATTERN ... | --energy] [--out DIR]
//! dynastep plot RUN_DIR [--columns PATTERN ...] [--name STEM]
//! dynastep animate RUN_DIR [--out FILE.html]
//! dynastep export RUN_DIR [--format gltf|vtk] [--out FILE.glb|FILE.pvd]
//! ```
//!
//! Exit status: 0 on success, 1 when a run stopped early (the output written so far is kept), 2 for bad
//! input (model file, options).

mod analyses;
mod auto;
mod compare;
mod plots;
mod run;
mod signals;
mod sweep;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::{parse, Model};
use dynastep::scheme::{SchemeParams, REGISTRY};
use dynastep::study::switch::StiffnessSwitch;
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;

#[derive(Parser)]
#[command(
    name = "dynastep",
    version,
    about = "Multibody dynamics with the time integrators of the literature, side by side"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a model file or an embedded example and write the time history and summary.
    Run(run::RunArgs),
    /// Kinematic analysis of a fully driven model: positions, velocities, accelerations from the
    /// constraints alone.
    Kinematics(analyses::KinematicArgs),
    /// Inverse dynamics of a fully driven model: the kinematics plus every joint reaction and driver
    /// force, with an energy check.
    InverseDynamics(analyses::KinematicArgs),
    /// The rest configuration under the applied loads, with reactions and its stability.
    Equilibrium(analyses::EquilibriumArgs),
    /// Validate a model file without simulating.
    Check {
        /// The model file (TOML).
        model: PathBuf,
        /// Override a model value, e.g. `--set bodies.crank.theta=-0.0617`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// List the embedded example models.
    Examples,
    /// List the time-integration schemes with their parameters, defaults, capabilities and sources.
    Schemes,
    /// List the formulations (how constraints enter and each integration point is solved).
    Formulations,
    /// Linear stability of schemes on x'' + 2 xi w x' + w^2 x = 0: spectral radius, damping, period error.
    Stability(StabilityArgs),
    /// Print the JSON Schema of model files.
    Schema,
    /// Run several schemes at several step sizes or tolerances and draw their error against their
    /// cost (work-precision CSV and chart).
    Compare(compare::CompareArgs),
    /// Run the product of model overrides (--vary), schemes and step sizes on a thread pool: one
    /// folder per case and one table (sweep.csv); --shard K/N for job arrays, --merge to gather.
    Sweep(sweep::SweepArgs),
    /// Draw time histories of a run folder (PNG and SVG): energy balance, constraint violations,
    /// marker trajectories, or chosen columns.
    Plot(plots::PlotArgs),
    /// Write a self-contained HTML page that plays a run folder's mechanism (planar in 2-D,
    /// spatial in 3-D).
    Animate(plots::AnimateArgs),
    /// Write a spatial run's motion for other viewers: glTF 2.0 (.glb) for Blender and any glTF
    /// viewer, or a VTK time series (.pvd + .vtu, double precision) for ParaView.
    Export(plots::ExportArgs),
}

#[derive(Args)]
struct StabilityArgs {
    /// Scheme(s) to analyse; repeat for several on one chart.
    #[arg(long = "scheme", required = true)]
    schemes: Vec<String>,
    /// Scheme parameter, applied to every scheme that has it, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Damping ratio xi of the test equation.
    #[arg(long, default_value_t = 0.0)]
    xi: f64,
    /// Smallest Omega = w h of the scan.
    #[arg(long, default_value_t = 1e-2)]
    omega_min: f64,
    /// Largest Omega of the scan.
    #[arg(long, default_value_t = 1e3)]
    omega_max: f64,
    /// Number of Omega values (log-spaced).
    #[arg(long, default_value_t = 400)]
    points: usize,
    /// Print one JSON object per scheme (an array for several) instead of a table.
    #[arg(long)]
    json: bool,
    /// Directory for stability.csv, stability.png and stability.svg (default: out/stability).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Kinematics(args) => analyses::kinematics(args, false),
        Command::InverseDynamics(args) => analyses::kinematics(args, true),
        Command::Equilibrium(args) => analyses::equilibrium(args),
        Command::Check { model, set } => check(&model, &set),
        Command::Examples => examples(),
        Command::Schemes => schemes(),
        Command::Formulations => formulations(),
        Command::Stability(args) => stability(args),
        Command::Compare(args) => compare::compare(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Plot(args) => plots::plot(args),
        Command::Animate(args) => plots::animate(args),
        Command::Export(args) => plots::export(args),
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&parse::json_schema()).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let text = format!("{e:#}");
            // Model-file errors arrive already rendered as `file:line:column: error: …`.
            if text.contains(": error: ") {
                eprintln!("{text}");
            } else {
                eprintln!("error: {text}");
            }
            ExitCode::from(2)
        }
    }
}

/// Parses `K=V` pairs with numeric values.
pub(crate) fn parse_params(items: &[String]) -> Result<SchemeParams> {
    let mut p = SchemeParams::new();
    for item in items {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| anyhow!("--param `{item}`: expected NAME=VALUE, e.g. rho_inf=0.6"))?;
        let v: f64 = v
            .trim()
            .parse()
            .map_err(|_| anyhow!("--param `{item}`: `{v}` is not a number"))?;
        p.insert(k.trim().to_string(), v);
    }
    Ok(p)
}

/// The `--param K=V` items given to several schemes at once (`stability`, `compare`): each scheme
/// gets the parameters it has.
///
/// # Errors
/// An unknown scheme; an item that is not NAME=NUMBER; a parameter none of the schemes has.
pub(crate) fn params_per_scheme(
    schemes: &[String],
    items: &[String],
) -> Result<Vec<(String, SchemeParams)>> {
    let given = parse_params(items)?;
    let mut out = Vec::new();
    for name in schemes {
        if name == "auto" || name == "trial" {
            bail!("`{name}` is how `dynastep run` chooses its pair, not a scheme to compare or sweep: name schemes (`dynastep schemes`)");
        }
        let info = dynastep::scheme::find(name)
            .ok_or_else(|| anyhow!("unknown scheme `{name}`; see `dynastep schemes`"))?;
        let params: SchemeParams = given
            .iter()
            .filter(|(k, _)| info.params.iter().any(|p| p.name == k.as_str()))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        out.push((name.clone(), params));
    }
    for k in given.keys() {
        if !out.iter().any(|(_, p)| p.contains_key(k)) {
            bail!("--param {k}: none of the schemes {schemes:?} has this parameter (see `dynastep schemes`)");
        }
    }
    Ok(out)
}

/// Reads a model from a file or an embedded example, with overrides.
pub(crate) fn load_model(
    args_model: Option<&Path>,
    example: Option<&str>,
    set: &[String],
) -> Result<(Model, String)> {
    if let Some(name) = example {
        let ex = dynastep::examples::find(name).ok_or_else(|| {
            let known: Vec<_> = dynastep::examples::EXAMPLES
                .iter()
                .map(|e| e.name)
                .collect();
            anyhow!("no example named `{name}`; examples: {}", known.join(", "))
        })?;
        let model =
            parse::from_str_with_overrides(ex.text, ex.file, set).map_err(|e| anyhow!("{e}"))?;
        return Ok((model, ex.name.to_string()));
    }
    let path = args_model
        .ok_or_else(|| anyhow!("give a model file, or --example NAME (see `dynastep examples`)"))?;
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read model file {}", path.display()))?;
    let model = parse::from_str_with_overrides(&text, &path.display().to_string(), set)
        .map_err(|e| anyhow!("{e}"))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "model".into());
    Ok((model, stem))
}

/// Lets a closed pipe end the program as it ends other Unix tools (`dynastep schemes | head`):
/// Rust ignores SIGPIPE, so `println!` panicked with "failed printing to stdout" instead.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; SIG_DFL is the default
    // disposition, which the program had before the Rust runtime set it to ignore.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Writes `model.json` into the run folder `out`: the model as simulated (overrides applied), which
/// `dynastep animate` and `plot` read for the geometry.
pub(crate) fn write_model(out: &Path, model: &Model) -> Result<()> {
    let path = out.join("model.json");
    fs::write(&path, serde_json::to_string_pretty(model)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Says on the terminal which bodies assembly moved (by more than 1e-9 m or rad) and which given
/// values it held, so that a corrected model is never a surprise.
pub(crate) fn report_assembly<M: Mechanism>(sys: &M, assembled: &dynastep::scheme::State) {
    let given = sys.initial_state(assembled.t);
    let held = sys.given_values();
    let mut moved = Vec::new();
    for (b, name) in sys.body_names().iter().enumerate() {
        let (dr, dth) = sys.body_displacement(b, &given.q, &assembled.q);
        if dr > 1e-9 || dth > 1e-9 {
            moved.push(format!("`{name}` by {dr:.3e} m and {dth:.3e} rad"));
        }
    }
    if moved.is_empty() {
        return;
    }
    let labels: Vec<String> = (0..held.positions.len())
        .filter(|&i| held.positions[i])
        .map(|i| sys.coordinate_label(i))
        .collect();
    let why = if labels.is_empty() {
        "no coordinate is marked `given`".to_string()
    } else {
        format!("held as given: {}", labels.join(", "))
    };
    eprintln!(
        "note: assembly moved {} to satisfy the joints ({why})",
        moved.join(", ")
    );
}

fn check(path: &Path, set: &[String]) -> Result<ExitCode> {
    let (model, _) = load_model(Some(path), None, set)?;
    // A failure found after the file was read points at the element or setting it names.
    let located = |e: String| match analyses::locate(Some(path), None, &e) {
        Some(at) => anyhow!("{at}"),
        None => anyhow!("{}: {e}", path.display()),
    };
    let system = Multibody::new(&model).map_err(|e| located(e.to_string()))?;
    // What `run` would refuse: the run settings when the model has them, else the assembly.
    if model.solver.t_end.is_some() {
        let mut opts = RunOptions::default();
        if StiffnessSwitch::wanted(None, None, &model) {
            // `scheme = "auto"`: what `run` would start with, the switch's first pair.
            let rtol = model.solver.step.rtol.ok_or_else(|| {
                anyhow!("{}: scheme = \"auto\" chooses the pair for a tolerance: set [solver.step] rtol (or give --rtol to `dynastep run`)", path.display())
            })?;
            opts = StiffnessSwitch::new(&model, rtol).options(&opts);
        }
        Simulation::new(&model, &opts).map_err(|e| {
            analyses::start_error(Some(path), None, set, &opts, &e, |m| {
                anyhow!("{}: {m}", path.display())
            })
        })?;
    } else {
        dynastep::analysis::simulation::assembled(&model, &system)
            .map_err(|e| located(e.to_string()))?;
    }
    println!("{}: ok ({})", path.display(), model.inventory());
    Ok(ExitCode::SUCCESS)
}

fn examples() -> Result<ExitCode> {
    let width = dynastep::examples::EXAMPLES
        .iter()
        .map(|ex| ex.name.len())
        .max()
        .unwrap_or(0);
    for ex in dynastep::examples::EXAMPLES {
        println!(
            "{:<width$} {}\n{:<width$} {}\n",
            ex.name, ex.title, "", ex.description
        );
    }
    println!("Run one with: dynastep run --example NAME");
    Ok(ExitCode::SUCCESS)
}

fn schemes() -> Result<ExitCode> {
    for s in REGISTRY {
        let aliases = if s.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", s.aliases.join(", "))
        };
        println!(
            "{}{aliases}\n  family: {}\n  {}",
            s.name, s.family, s.summary
        );
        for p in s.params {
            println!("  --param {}={}  {}", p.name, p.default, p.description);
        }
        let c = &s.caps;
        println!(
            "  order {}, {}, {}, {} steps; formulations: {}",
            c.order,
            if c.explicit_in_positions {
                "explicit in positions"
            } else {
                "implicit"
            },
            if c.unconditionally_stable {
                "unconditionally stable"
            } else {
                "conditionally stable"
            },
            if c.variable_step { "variable" } else { "fixed" },
            dynastep::formulation::formulations_for(s).join(", ")
        );
        match c.error_estimate {
            Some(e) => println!("  error estimate: {e}"),
            None => println!("  error estimate: none (fixed steps only)"),
        }
        println!("  source: {}\n", s.source);
    }
    println!(
        "auto (dynastep run only)\n  the stiffness switch: Adams PECE with projection, then ESDIRK4(3)6L in stabilized\n  index 2 from where the model turns out stiff (from the start when the first pair fails)\n  (docs/schemes.md, \"The stiffness switch\")\n\ntrial (dynastep run only)\n  the pair measured fastest at the tolerance on the first 10 % of the run\n  (docs/schemes.md, \"Choosing the pair by a trial\")"
    );
    Ok(ExitCode::SUCCESS)
}

fn formulations() -> Result<ExitCode> {
    for f in dynastep::formulation::REGISTRY {
        let aliases = if f.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", f.aliases.join(", "))
        };
        println!("{}{aliases}\n  {}", f.name, f.summary);
        println!("  constraints: {}", f.constraint_level);
        let schemes: Vec<&str> = REGISTRY
            .iter()
            .filter(|s| dynastep::formulation::compatible(s, f).is_ok())
            .map(|s| s.name)
            .collect();
        println!("  schemes: {}", schemes.join(", "));
        println!("  source: {}\n", f.source);
    }
    println!(
        "Choose one with: dynastep run --formulation NAME (or [solver] formulation = \"NAME\")"
    );
    Ok(ExitCode::SUCCESS)
}

fn stability(args: StabilityArgs) -> Result<ExitCode> {
    use dynastep::analysis::stability;
    if args.omega_min <= 0.0 || args.omega_max <= args.omega_min || args.points < 2 {
        bail!("need 0 < --omega-min < --omega-max and --points >= 2");
    }
    let omegas = stability::log_grid(args.omega_min, args.omega_max, args.points);
    let mut reports = Vec::new();
    for (name, params) in params_per_scheme(&args.schemes, &args.params)? {
        reports.push(
            stability::analyse(&name, &params, args.xi, &omegas).map_err(|e| anyhow!("{e}"))?,
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join("stability"));
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let csv_path = out.join("stability.csv");
    let csv_file = fs::File::create(&csv_path)
        .with_context(|| format!("cannot create {}", csv_path.display()))?;
    stability::write_csv(&reports, std::io::BufWriter::new(csv_file))
        .map_err(|e| anyhow!("{e}"))?;
    for ext in ["png", "svg"] {
        dynastep_plot::stability::write_chart(&reports, &out.join(format!("stability.{ext}")))
            .map_err(|e| anyhow!("{e}"))?;
    }
    if args.json {
        let objs: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| {
                let mut o = BTreeMap::new();
                o.insert("scheme", serde_json::json!(r.scheme));
                o.insert(
                    "parameters",
                    serde_json::json!(r
                        .parameters
                        .iter()
                        .cloned()
                        .collect::<BTreeMap<String, f64>>()),
                );
                o.insert("xi", serde_json::json!(args.xi));
                o.insert("omega_crit", serde_json::json!(r.omega_crit));
                o.insert("rho_inf", serde_json::json!(r.rho_inf));
                serde_json::json!(o)
            })
            .collect();
        let text = if objs.len() == 1 {
            serde_json::to_string_pretty(&objs[0])?
        } else {
            serde_json::to_string_pretty(&objs)?
        };
        println!("{text}");
    } else {
        println!("{:<34} {:>14} {:>10}", "scheme", "Omega_crit", "rho_inf");
        for r in &reports {
            let crit = r
                .omega_crit
                .map(|w| format!("{w:.10}"))
                .unwrap_or_else(|| "stable".into());
            let params: Vec<String> = r
                .parameters
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let label = if params.is_empty() {
                r.scheme.clone()
            } else {
                format!("{} ({})", r.scheme, params.join(", "))
            };
            println!("{:<34} {:>14} {:>10.6}", label, crit, r.rho_inf);
        }
        println!(
            "wrote {}/stability.csv, stability.png, stability.svg",
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
