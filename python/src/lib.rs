//! The native part of the `dynastep` Python package (`dynastep._dynastep`). The Python layer
//! (`pysrc/dynastep/__init__.py`) gives it its user-facing shape: it decides whether `load` got a
//! path or TOML text, formats overrides, and wraps a run's columns in a `Result`.
//!
//! Everything here is a thin call into the `dynastep` crate; no mechanics lives in this file. A run
//! releases the GIL (`Python::detach`), so threads can run models in parallel. Errors become
//! Python exceptions carrying the library's own messages (file, line, entity); nothing panics
//! across the boundary (pyo3 turns a panic into `PanicException` rather than aborting).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use dynastep::analysis::dynamic::{Flow, Observer, RunReport, RunStatus, Sample};
use dynastep::analysis::failure::FailureKind;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::stability;
use dynastep::analysis::step_control::StepSettings;
use dynastep::io::history::{HistoryColumns, HistoryRecorder};
use dynastep::io::summary::Summary;
use dynastep::model::{parse, Model as ModelData};
use dynastep::study::choice::{choose_method, Measure, MethodChoice, TRIAL};
use dynastep::study::switch::StiffnessSwitch;
use dynastep::system::System;

create_exception!(
    _dynastep,
    ModelError,
    PyValueError,
    "A model file or text is invalid: the message names the file, the line and the entity."
);
create_exception!(
    _dynastep,
    SimulationError,
    PyValueError,
    "A run cannot start: unknown scheme or formulation, bad parameters, missing step size, failed assembly."
);

/// What `Model.run` hands the Python layer: column names, columns, summary as JSON text.
type RunOutput<'py> = (Vec<String>, Vec<Bound<'py, PyArray1<f64>>>, String);

/// A parsed model (the contents of one model file, with overrides applied).
#[pyclass(module = "dynastep._dynastep", name = "Model", frozen)]
#[derive(Clone)]
struct Model {
    inner: ModelData,
}

#[pymethods]
impl Model {
    /// The model's title (`name` in the file).
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Runs the dynamic analysis; see `dynastep.Model.run` in the Python layer for the arguments.
    /// Returns (column names, columns as float64 arrays, summary as JSON text).
    #[pyo3(signature = (scheme=None, params=None, dt=None, t_end=None, output_interval=None,
        formulation=None, rtol=None, atol=None, h_min=None, h_max=None, max_steps=None,
        omega_max=false))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        scheme: Option<String>,
        params: Option<BTreeMap<String, f64>>,
        dt: Option<f64>,
        t_end: Option<f64>,
        output_interval: Option<f64>,
        formulation: Option<String>,
        rtol: Option<f64>,
        atol: Option<f64>,
        h_min: Option<f64>,
        h_max: Option<f64>,
        max_steps: Option<u64>,
        omega_max: bool,
    ) -> PyResult<RunOutput<'py>> {
        let opts = RunOptions {
            scheme,
            params: params.unwrap_or_default(),
            dt,
            t_end,
            output_interval,
            formulation,
            step: StepSettings {
                rtol,
                atol,
                h_min,
                h_max,
                control: None,
                max_halvings: None,
                halve_after_iterations: None,
            },
            max_steps,
            omega_max,
        };
        let model = &self.inner;
        let outcome = py.detach(move || -> Result<_, String> {
            if opts.scheme.as_deref() == Some(TRIAL) {
                return run_trial(model, &opts);
            }
            if !StiffnessSwitch::wanted(opts.scheme.as_deref(), opts.step.rtol, model) {
                return run_once(model, &opts, None, None);
            }
            // The stiffness switch (`scheme="auto"`, or rtol without a scheme), as `dynastep run`.
            let rtol = chosen_pair_tolerance(model, &opts, "auto")?;
            let mut switch = StiffnessSwitch::new(model, rtol);
            let model = model.stopping_at_singular_configurations();
            let mut kept = None;
            loop {
                let chosen = Some(Chosen::Switch(&switch));
                let (recorder, summary, signal, report) =
                    run_once(&model, &switch.options(&opts), chosen, kept.take())?;
                if signal.is_none() && switch.after_run(&report) {
                    // Found stiff, the run goes on with the rows so far.
                    kept = switch.goes_on().then_some(recorder);
                    continue;
                }
                return Ok((recorder, summary, signal, report));
            }
        });
        let (recorder, summary, signal, _) = outcome.map_err(SimulationError::new_err)?;
        let table = recorder.table;
        let arrays: Vec<_> = table
            .columns
            .into_iter()
            .map(|c| PyArray1::from_vec(py, c))
            .collect();
        if let Some(err) = signal {
            // The run stopped at a step boundary with whole rows: hand them over with the
            // exception (`partial`, which the Python layer turns into a `Result`).
            err.value(py)
                .setattr("partial", (table.names, arrays, summary))?;
            return Err(err);
        }
        Ok((table.names, arrays, summary))
    }

    fn __repr__(&self) -> String {
        format!("<dynastep.Model {:?}>", self.inner.name)
    }
}

/// The outcome of one run: its rows, summary.json's text, a pending Python signal, the report.
type RunOnce = (HistoryRecorder, String, Option<PyErr>, RunReport);

/// How the pair of a run without a named scheme was chosen, as `dynastep run` writes it in
/// summary.json.
enum Chosen<'a> {
    /// `scheme="auto"` (or rtol and no scheme): the stiffness switch, `stiffness_switch`.
    Switch(&'a StiffnessSwitch),
    /// `scheme="trial"`: measured on a trial, `method_choice`.
    Trial(&'a MethodChoice),
}

/// The tolerance a chosen pair (`scheme`: "auto" or "trial") runs at: the call's rtol, else the
/// model's. Refuses params and formulation, which the choice makes.
fn chosen_pair_tolerance(
    model: &ModelData,
    opts: &RunOptions,
    scheme: &str,
) -> Result<f64, String> {
    if !opts.params.is_empty() || opts.formulation.is_some() {
        return Err(format!("scheme \"{scheme}\" chooses the scheme, its parameters and the formulation: leave out params and formulation, or name the scheme"));
    }
    opts.step.rtol.or(model.solver.step.rtol).ok_or_else(|| {
        format!("scheme \"{scheme}\" chooses the pair for a tolerance: give one with rtol= or [solver.step] rtol in the model")
    })
}

/// `scheme="trial"`, as `dynastep run --scheme trial`: the candidate pairs measured in a race on
/// the first 10 % of the run (`dynastep::study::choice`), the fastest accepted one run; when it
/// stops at a singular configuration, the run is made again from the start with the first of
/// the ranking whose formulation passes one. The trial cannot be interrupted with Ctrl-C (the
/// run after it can).
fn run_trial(model: &ModelData, opts: &RunOptions) -> Result<RunOnce, String> {
    let rtol = chosen_pair_tolerance(model, opts, TRIAL)?;
    let mut trial_model = model.clone();
    if opts.t_end.is_some() {
        trial_model.solver.t_end = opts.t_end;
    }
    let mut choice = choose_method(&trial_model, rtol, Measure::Race, &mut |_| {}, &|| false)
        .map_err(|e| e.to_string())?;
    let model = model.stopping_at_singular_configurations();
    loop {
        let mut pair = opts.clone();
        pair.scheme = Some(choice.method.scheme.clone());
        pair.params = choice.method.params.clone();
        pair.formulation = choice.method.formulation.clone();
        pair.step.rtol = Some(rtol);
        let out = run_once(&model, &pair, Some(Chosen::Trial(&choice)), None)?;
        if let (None, RunStatus::Failed { failed_at, reason }) = (&out.2, &out.3.status) {
            let singular = reason.kind == FailureKind::Singular;
            if singular && choice.fall_back(*failed_at, reason.to_string(), &|| false) {
                continue;
            }
        }
        return Ok(out);
    }
}

/// One run of `model` with `opts` (the chosen pair when `chosen` is given, whose choice
/// summary.json then carries), recorded in memory: in `kept` when it goes on from the end of the
/// switch's first run, whose rows those are.
fn run_once(
    model: &ModelData,
    opts: &RunOptions,
    chosen: Option<Chosen>,
    kept: Option<HistoryRecorder>,
) -> Result<RunOnce, String> {
    let mut sim = Simulation::new(model, opts).map_err(|e| e.to_string())?;
    if let Some(Chosen::Switch(s)) = chosen {
        s.prepare(&mut sim);
    }
    HistoryColumns::check_selection(&sim.system, &sim.model.solver, opts.omega_max)
        .map_err(|f| f.to_string())?;
    let mut recorder = kept.unwrap_or_else(|| {
        let columns = HistoryColumns::of_run(&sim.system, &sim.model.solver, opts.omega_max);
        HistoryRecorder::new(columns)
    });
    let mut signals = PythonSignals::new();
    let report = match chosen {
        Some(Chosen::Switch(s)) => s.run(&mut sim, &mut [&mut recorder, &mut signals]),
        _ => sim.run(&mut [&mut recorder, &mut signals]),
    };
    let mut summary =
        serde_json::to_value(Summary::new(&sim, &report)).map_err(|e| format!("summary: {e}"))?;
    let choice = match chosen {
        Some(Chosen::Switch(s)) => Some(("stiffness_switch", serde_json::to_value(s))),
        Some(Chosen::Trial(c)) => Some(("method_choice", serde_json::to_value(c))),
        None => None,
    };
    if let (Some((key, value)), Some(map)) = (choice, summary.as_object_mut()) {
        let value = value.map_err(|e| format!("summary: {e}"))?;
        map.insert(key.into(), value);
    }
    Ok((
        recorder,
        summary.to_string(),
        signals.error.into_inner(),
        report,
    ))
}

/// Ends a run at a step boundary when Python has a pending signal (Ctrl-C raises
/// `KeyboardInterrupt`): the run holds no GIL, so the check attaches to the interpreter, at most
/// every 50 ms and only on every 256th poll (the loop polls after every step).
struct PythonSignals {
    polls: Cell<u32>,
    last: Cell<Instant>,
    error: RefCell<Option<PyErr>>,
}

impl PythonSignals {
    fn new() -> Self {
        PythonSignals {
            polls: Cell::new(0),
            last: Cell::new(Instant::now()),
            error: RefCell::new(None),
        }
    }
}

impl<S: System> Observer<S> for PythonSignals {
    fn sample(
        &mut self,
        _system: &S,
        _sample: &Sample<'_>,
    ) -> Result<Flow, dynastep::analysis::dynamic::ObserverError> {
        Ok(Flow::Continue)
    }

    fn interrupted(&self) -> bool {
        if self.error.borrow().is_some() {
            return true;
        }
        let polls = self.polls.get().wrapping_add(1);
        self.polls.set(polls);
        if !polls.is_multiple_of(256) || self.last.get().elapsed() < Duration::from_millis(50) {
            return false;
        }
        self.last.set(Instant::now());
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                true
            }
        }
    }
}

/// Parses model text; `file` names it in messages, `overrides` are `PATH=VALUE` items as for
/// `dynastep run --set`.
#[pyfunction]
#[pyo3(signature = (text, file="<string>", overrides=Vec::new()))]
fn load_text(text: &str, file: &str, overrides: Vec<String>) -> PyResult<Model> {
    parse::from_str_with_overrides(text, file, &overrides)
        .map(|inner| Model { inner })
        .map_err(|e| ModelError::new_err(e.to_string()))
}

/// Reads and parses a model file.
#[pyfunction]
#[pyo3(signature = (path, overrides=Vec::new()))]
fn load_file(path: &str, overrides: Vec<String>) -> PyResult<Model> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| PyOSError::new_err(format!("cannot read model file {path}: {e}")))?;
    load_text(&text, path, overrides)
}

/// Parses an embedded example by name.
#[pyfunction]
#[pyo3(signature = (name, overrides=Vec::new()))]
fn load_example(name: &str, overrides: Vec<String>) -> PyResult<Model> {
    let ex = dynastep::examples::find(name).ok_or_else(|| {
        let known: Vec<_> = dynastep::examples::EXAMPLES
            .iter()
            .map(|e| e.name)
            .collect();
        ModelError::new_err(format!(
            "no example named `{name}`; examples: {}",
            known.join(", ")
        ))
    })?;
    load_text(ex.text, ex.file, overrides)
}

/// Builds a model from JSON text with the structure of a model file (what a Python dict gives).
#[pyfunction]
#[pyo3(signature = (json, overrides=Vec::new()))]
fn load_json(json: &str, overrides: Vec<String>) -> PyResult<Model> {
    let value: toml::Value =
        serde_json::from_str(json).map_err(|e| ModelError::new_err(format!("model dict: {e}")))?;
    let text =
        toml::to_string(&value).map_err(|e| ModelError::new_err(format!("model dict: {e}")))?;
    load_text(&text, "<dict>", overrides)
}

/// The embedded examples as JSON: a list of {name, title, description}.
#[pyfunction]
fn examples_json() -> String {
    let list: Vec<_> = dynastep::examples::EXAMPLES
        .iter()
        .map(
            |e| serde_json::json!({"name": e.name, "title": e.title, "description": e.description}),
        )
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The scheme registry as JSON: a list of {name, aliases, family, summary, source, order,
/// explicit_in_positions, unconditionally_stable, error_estimate, variable_step, formulations,
/// params: [{name, default, description}]}.
#[pyfunction]
fn schemes_json() -> String {
    let list: Vec<_> = dynastep::scheme::REGISTRY
        .iter()
        .map(|s| {
            let params: Vec<_> = s
                .params
                .iter()
                .map(|p| {
                    serde_json::json!({"name": p.name, "default": p.default, "description": p.description})
                })
                .collect();
            serde_json::json!({
                "name": s.name, "aliases": s.aliases, "family": s.family, "summary": s.summary,
                "source": s.source, "order": s.caps.order,
                "explicit_in_positions": s.caps.explicit_in_positions,
                "unconditionally_stable": s.caps.unconditionally_stable,
                "error_estimate": s.caps.error_estimate, "variable_step": s.caps.variable_step,
                "formulations": dynastep::formulation::formulations_for(s), "params": params,
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// Linear stability analysis of one scheme (as `dynastep stability --json`), as JSON text.
#[pyfunction]
#[pyo3(signature = (scheme, params=None, xi=0.0, omegas=None))]
fn stability_json(
    py: Python<'_>,
    scheme: &str,
    params: Option<BTreeMap<String, f64>>,
    xi: f64,
    omegas: Option<Vec<f64>>,
) -> PyResult<String> {
    let params = params.unwrap_or_default();
    let omegas = omegas.unwrap_or_else(|| stability::log_grid(1e-2, 1e3, 400));
    let scheme = scheme.to_string();
    let report = py
        .detach(move || stability::analyse(&scheme, &params, xi, &omegas))
        .map_err(|e| SimulationError::new_err(e.to_string()))?;
    serde_json::to_string(&report).map_err(|e| SimulationError::new_err(e.to_string()))
}

/// The native module.
#[pymodule]
fn _dynastep(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(load_text, m)?)?;
    m.add_function(wrap_pyfunction!(load_file, m)?)?;
    m.add_function(wrap_pyfunction!(load_example, m)?)?;
    m.add_function(wrap_pyfunction!(load_json, m)?)?;
    m.add_function(wrap_pyfunction!(examples_json, m)?)?;
    m.add_function(wrap_pyfunction!(schemes_json, m)?)?;
    m.add_function(wrap_pyfunction!(stability_json, m)?)?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
