//! `dynastep compare`: every scheme (× formulation) at every step size or tolerance, its error
//! against a reference and its cost, as a CSV and a work–precision chart.

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use dynastep::io::history_table::HistoryTable;
use dynastep::model::Model;
use dynastep::study::choice::Measure;
use dynastep::study::compare::{
    auto_reference, observed_orders, pose_columns, run_comparison, write_csv, ErrorMeasure, Method,
    Quantity, Record, Sweep,
};
use dynastep_plot::work_precision::{chart, Labels};

use crate::{load_model, params_per_scheme};

#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    source: crate::analyses::Source,
    /// Schemes to compare, comma-separated (default for an example: its comparison, see
    /// docs/visualization.md).
    #[arg(long, value_delimiter = ',')]
    schemes: Vec<String>,
    /// Scheme parameter applied to every scheme that has it, e.g. `--param rho_inf=0.6`.
    #[arg(long = "param", value_name = "K=V")]
    params: Vec<String>,
    /// Formulations, comma-separated (default: the model's).
    #[arg(long, value_delimiter = ',')]
    formulations: Vec<String>,
    /// Fixed step sizes \[s\], comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "rtol")]
    dt: Vec<f64>,
    /// Tolerances rtol = atol of adaptive runs, comma-separated.
    #[arg(long, value_delimiter = ',')]
    rtol: Vec<f64>,
    /// `auto` (computed with a high-order scheme at a tight tolerance) or a history CSV.
    #[arg(long, default_value = "auto")]
    reference: String,
    /// end (the last common sample), max (over samples) or rms (over samples and columns).
    #[arg(long, value_parser = ErrorMeasure::parse)]
    measure: Option<ErrorMeasure>,
    /// Columns whose error is measured (shell-style patterns, repeatable); default for an example:
    /// its comparison; for a model file: every body and marker position.
    #[arg(long = "columns", value_name = "PATTERN")]
    columns: Vec<String>,
    /// Measure the energy balance |E − E0 − W_nc| instead of columns (no reference needed).
    #[arg(long, conflicts_with = "columns")]
    energy: bool,
    /// Rank the candidate pairs of `run --scheme trial` at one tolerance (--rtol, else the
    /// model's) on the trial that the choice measures, print the ranking and the pair chosen,
    /// and write compare.csv.
    #[arg(long, conflicts_with_all = ["schemes", "formulations", "dt", "columns", "energy"])]
    auto: bool,
}

/// The methods: each scheme with the parameters it has, × each formulation.
fn methods(args: &CompareArgs, schemes: &[String]) -> Result<Vec<Method>> {
    let formulations: Vec<Option<String>> = if args.formulations.is_empty() {
        vec![None]
    } else {
        args.formulations.iter().cloned().map(Some).collect()
    };
    let mut out = Vec::new();
    for (s, params) in params_per_scheme(schemes, &args.params)? {
        for f in &formulations {
            out.push(Method {
                scheme: s.clone(),
                params: params.clone(),
                formulation: f.clone(),
            });
        }
    }
    Ok(out)
}

/// Prints one finished run.
pub(crate) fn print_record(r: &Record) {
    if r.error.is_finite() {
        eprintln!(
            "  {:<28} {:>10.3e}  error {:>10.3e}  {:>8.3} s  {:>8} steps",
            r.method, r.value, r.error, r.cpu_time_s, r.steps
        );
    } else {
        eprintln!(
            "  {:<28} {:>10.3e}  {}: {}",
            r.method, r.value, r.status, r.note
        );
    }
}

pub fn compare(args: CompareArgs) -> Result<ExitCode> {
    let src = &args.source;
    let (model, stem) = load_model(src.model.as_deref(), src.example.as_deref(), &src.set)?;
    if args.auto {
        return compare_auto(&args, &model, &stem);
    }
    let defaults = src
        .example
        .as_deref()
        .and_then(dynastep::examples::find)
        .map(|e| e.compare);
    let schemes: Vec<String> = match (&args.schemes[..], defaults) {
        ([], Some(d)) => d.schemes.iter().map(|s| s.to_string()).collect(),
        ([], None) => {
            bail!("give the schemes to compare, e.g. --schemes generalized-alpha,lms2,bathe")
        }
        (s, _) => s.to_vec(),
    };
    let sweep = match (&args.dt[..], &args.rtol[..], defaults) {
        (dt, _, _) if !dt.is_empty() => Sweep::Steps(dt.to_vec()),
        (_, rtol, _) if !rtol.is_empty() => Sweep::Tolerances(rtol.to_vec()),
        (_, _, Some(d)) if !d.dt.is_empty() => Sweep::Steps(d.dt.to_vec()),
        (_, _, Some(d)) => Sweep::Tolerances(d.rtol.to_vec()),
        _ => bail!("give step sizes (--dt 1e-3,5e-4,...) or tolerances (--rtol 1e-4,1e-5,...)"),
    };
    if sweep.values().iter().any(|v| !(*v > 0.0 && v.is_finite())) {
        bail!("--dt and --rtol values must be positive numbers");
    }
    let quantity = if args.energy {
        Quantity::Energy
    } else if !args.columns.is_empty() {
        Quantity::Columns(args.columns.clone())
    } else {
        match defaults {
            Some(d) if d.columns.is_empty() => Quantity::Energy,
            Some(d) => Quantity::Columns(d.columns.iter().map(|c| c.to_string()).collect()),
            None => Quantity::Columns(pose_columns(&model).map_err(|e| anyhow!(e))?),
        }
    };
    let measure = args
        .measure
        .or_else(|| defaults.and_then(|d| ErrorMeasure::parse(d.measure).ok()))
        .unwrap_or_default();
    let methods = methods(&args, &schemes)?;
    crate::signals::install();
    let reference = match (&quantity, args.reference.as_str()) {
        (Quantity::Energy, _) => None,
        (_, "auto") => {
            eprintln!("computing the reference ...");
            let r = auto_reference(
                &model,
                &sweep,
                &quantity,
                measure,
                true,
                &crate::signals::interrupted,
            )
            .map_err(|e| anyhow!("{e}; give one with --reference FILE"))?;
            Some((r.table, r.description, r.self_error))
        }
        (_, file) => {
            let f =
                fs::File::open(file).with_context(|| format!("cannot read reference {file}"))?;
            let table = HistoryTable::read(f, file).map_err(|e| anyhow!(e))?;
            Some((table, file.to_string(), None))
        }
    };
    let (reference_text, floor) = match &reference {
        Some((_, d, e)) => (d.clone(), *e),
        None => ("none (the run's own energy balance)".to_string(), None),
    };
    eprintln!(
        "reference: {reference_text}{}",
        floor
            .map(|e| format!(" (its own error about {e:.1e})"))
            .unwrap_or_default()
    );
    let records = run_comparison(
        &model,
        &methods,
        &sweep,
        &quantity,
        measure,
        reference.as_ref().map(|r| &r.0),
        &mut print_record,
        &crate::signals::interrupted,
    );
    let (out, csv_path) = write_records(&src.out, &stem, &records)?;
    if crate::signals::interrupted() {
        eprintln!(
            "interrupted: every finished run is in {}; runs cut short or not started have status interrupted; no chart written",
            csv_path.display()
        );
        return Ok(ExitCode::from(130));
    }
    if !records.iter().any(|r| r.error.is_finite()) {
        eprintln!(
            "error: no run gave an error to draw (each one's status and reason are in {}); no chart written",
            csv_path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    let labels = Labels {
        model: if model.name.is_empty() {
            stem.clone()
        } else {
            model.name.clone()
        },
        sweep: sweep.name().into(),
        error: format!("{} error of {}", measure.name(), quantity.describe()),
        reference: reference_text,
        floor,
    };
    let figure = chart(&records, &labels);
    for ext in ["png", "svg"] {
        figure
            .write(&out.join(format!("work-precision.{ext}")))
            .map_err(|e| anyhow!("{e}"))?;
    }
    print_orders(&records, &sweep);
    eprintln!(
        "wrote {}, work-precision.png and work-precision.svg",
        csv_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `records` to compare.csv in the output folder (`out`, else out/STEM-compare), which it
/// creates; returns the folder and the file.
fn write_records(
    out: &Option<PathBuf>,
    stem: &str,
    records: &[Record],
) -> Result<(PathBuf, PathBuf)> {
    let out = out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("{stem}-compare")));
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let csv_path = out.join("compare.csv");
    let file = fs::File::create(&csv_path)
        .with_context(|| format!("cannot create {}", csv_path.display()))?;
    write_csv(records, file).map_err(|e| anyhow!("{}: {e}", csv_path.display()))?;
    Ok((out, csv_path))
}

/// `compare --auto`: the choice's ranking on the terminal and in compare.csv.
fn compare_auto(args: &CompareArgs, model: &Model, stem: &str) -> Result<ExitCode> {
    let rtol = match &args.rtol[..] {
        [] => crate::auto::tolerance(None, model)?,
        [r] => *r,
        _ => bail!("compare --auto ranks the pairs at one tolerance: give a single --rtol"),
    };
    let choice = crate::auto::choose(model, None, rtol, Measure::Every, args.source.quiet, true)?;
    let (_, csv_path) = write_records(&args.source.out, stem, &choice.ranking)?;
    if !args.source.quiet {
        crate::auto::print_ranking(&choice);
        eprintln!("wrote {}", csv_path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each method's observed orders between consecutive step sizes (fixed-step sweeps).
fn print_orders(records: &[Record], sweep: &Sweep) {
    if !matches!(sweep, Sweep::Steps(_)) {
        return;
    }
    let mut seen: Vec<&str> = Vec::new();
    for r in records {
        if seen.contains(&r.method.as_str()) {
            continue;
        }
        seen.push(&r.method);
        let own: Vec<&Record> = records.iter().filter(|o| o.method == r.method).collect();
        let orders: Vec<String> = observed_orders(&own)
            .iter()
            .map(|p| p.map_or("-".into(), |p| format!("{p:.2}")))
            .collect();
        eprintln!("  observed order {:<28} {}", r.method, orders.join("  "));
    }
}
