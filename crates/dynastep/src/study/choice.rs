//! Choosing a scheme × formulation for a model and a tolerance by measuring them on it: the
//! `--scheme auto` of `dynastep run` and `dynastep compare --auto`.
//!
//! Which pair is fastest at a given accuracy depends on the model (its stiffness, its constraints,
//! how smooth its motion is) and on the accuracy; no rule of thumb holds across the examples
//! (docs/performance.md). So the choice is measured, on the model itself:
//!
//! 1. the *trial*: the first [`TRIAL_FRACTION`] of the run's time span, sampled
//!    [`TRIAL_SAMPLES`] times;
//! 2. its reference, as `dynastep compare` computes one ([`auto_reference`]: MSSTC(5) at a
//!    hundredth of the tolerance);
//! 3. every [`candidates`] pair run over the trial at rtol = atol = the tolerance, with its error
//!    (the largest over the samples of the pose columns) and its loop time (the fastest of up to
//!    [`REPEATS`] runs when a run is shorter than [`SHORT_TRIAL_S`]);
//! 4. the choice: the fastest pair whose error is at most [`ACCEPTED_ERROR`] times the larger of
//!    the smallest error reached and the tolerance (scaled by the size of the compared values, at
//!    least 1). A pair that fails or refuses the tolerance is ranked out with its reason.
//!
//! What this cannot see: a change of character after the trial (a mechanism that turns stiff
//! later, a singular configuration). The ranking is printed and written to summary.json, so that
//! a user can see what was measured and override it with `--scheme`. A singular configuration
//! stops an explicit pair, whose index-1 formulation cannot pass it
//! ([`crate::formulation::singularity`]); [`MethodChoice::fall_back`] then names the fastest
//! ranked pair whose formulation can, and the run is made again with it.

use crate::analysis::simulation::{RunOptions, Simulation};
use crate::analysis::step_control::StepSettings;
use crate::io::history_table::HistoryTable;
use crate::model::Model;
use crate::scheme::SchemeParams;
use crate::study::compare::{
    auto_reference, pose_columns, run_comparison, ErrorMeasure, Method, Quantity, Record, Sweep,
};
use crate::study::error::StudyError;
use crate::system::System;

/// Share of the run's time span that the trial covers.
pub const TRIAL_FRACTION: f64 = 0.1;
/// Output samples of the trial (the error is the largest over them).
pub const TRIAL_SAMPLES: f64 = 50.0;
/// Trial runs shorter than this \[s\] are repeated, up to [`REPEATS`] times in all, and their
/// fastest time is kept.
pub const SHORT_TRIAL_S: f64 = 0.05;
/// Most runs of one candidate on a short trial.
pub const REPEATS: usize = 5;
/// A pair is accepted when its error is at most this multiple of the larger of the smallest error
/// of the trial and the (scaled) tolerance.
pub const ACCEPTED_ERROR: f64 = 10.0;

/// The candidate pairs for a model with `m` constraint rows: explicit (Dormand–Prince 5(4) and
/// Adams PECE with projection, or the plain ODE when m = 0) and implicit (ESDIRK4(3)6L in index 3
/// and, with constraints, in the stabilized index-2 form; generalized-α in stabilized index 2,
/// the constrained pair whose error control holds, docs/stabilized_index2.md).
pub fn candidates(m: usize) -> Vec<Method> {
    let pair = |scheme: &str, formulation: &str| Method {
        scheme: scheme.into(),
        params: SchemeParams::new(),
        formulation: Some(formulation.into()),
    };
    if m == 0 {
        return vec![
            pair("dopri5", "direct"),
            pair("abm", "direct"),
            pair("esdirk4-6", "index3"),
        ];
    }
    vec![
        pair("dopri5", "projection"),
        pair("abm", "projection"),
        pair("esdirk4-6", "index3"),
        pair("esdirk4-6", "stabilized-index2"),
        pair("generalized-alpha", "stabilized-index2"),
    ]
}

/// The pair chosen and what the choice was made from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MethodChoice {
    /// The pair chosen.
    #[serde(skip)]
    pub method: Method,
    /// Its label ([`Method::label`]).
    pub chosen: String,
    /// The tolerance rtol = atol of the trial.
    pub rtol: f64,
    /// End of the trial \[s\] (it starts where the run starts).
    pub trial_t_end: f64,
    /// The trial's reference, e.g. `msstc5, rtol = atol 1.000e-8`.
    pub reference: String,
    /// The largest error a pair could have and be accepted (same units as the columns).
    pub accepted_error: f64,
    /// Every candidate's trial run, fastest accepted first, then the other completed ones by
    /// time, then those that failed.
    pub ranking: Vec<Record>,
    /// The pairs of `ranking`, in its order.
    #[serde(skip)]
    pub ranked: Vec<Method>,
    /// The first choice and why it was left, when the run with it stopped at a singular
    /// configuration and was made again with `chosen`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
}

/// Why the first choice was left (see [`MethodChoice::fall_back`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fallback {
    /// The label of the pair first chosen.
    pub from: String,
    /// Time at which its run stopped \[s\].
    pub stopped_at: f64,
    /// Why it stopped.
    pub reason: String,
}

/// The formulations whose equations are written at the position level, which pass singular
/// configurations of the constraints (the index-1 ones cannot).
pub const PASSES_SINGULAR_CONFIGURATIONS: [&str; 2] = ["index3", "stabilized-index2"];

impl MethodChoice {
    /// After the run with the chosen pair stopped at a singular configuration at `stopped_at`
    /// \[s\] (`reason`): switches `method` and `chosen` to the first ranked pair (the accepted
    /// ones come first) that completed the trial with a formulation of
    /// [`PASSES_SINGULAR_CONFIGURATIONS`], and records the switch in `fallback`. Returns false,
    /// changing nothing, when there is none or when the choice already fell back once.
    pub fn fall_back(&mut self, stopped_at: f64, reason: String) -> bool {
        if self.fallback.is_some() {
            return false;
        }
        let passes = |m: &Method| {
            m.formulation
                .as_deref()
                .is_some_and(|f| PASSES_SINGULAR_CONFIGURATIONS.contains(&f))
        };
        let next = self
            .ranked
            .iter()
            .zip(&self.ranking)
            .find(|(m, r)| passes(m) && r.error.is_finite());
        let Some((method, _)) = next else {
            return false;
        };
        self.fallback = Some(Fallback {
            from: self.chosen.clone(),
            stopped_at,
            reason,
        });
        self.method = method.clone();
        self.chosen = method.label();
        true
    }
}

/// Measures the [`candidates`] on the trial of `model` at `rtol` and chooses (see the module
/// documentation); `progress` is called after each trial run.
///
/// # Errors
/// [`StudyError::Run`] when the model does not start, when no reference can be computed, or when
/// no candidate completes the trial within the accepted error (the message lists each one's
/// outcome); [`StudyError::Usage`] for an rtol that is not a positive number.
pub fn choose_method(
    model: &Model,
    rtol: f64,
    progress: &mut dyn FnMut(&Record),
    interrupted: &dyn Fn() -> bool,
) -> Result<MethodChoice, StudyError> {
    if !(rtol > 0.0 && rtol.is_finite()) {
        return Err(StudyError::Usage(format!(
            "the tolerance must be a positive number, not {rtol}"
        )));
    }
    let (trial, m) = trial_of(model, rtol)?;
    let trial_t_end = trial.solver.t_end.unwrap_or_default();
    let quantity = Quantity::Columns(pose_columns(model)?);
    let sweep = Sweep::Tolerances(vec![rtol]);
    let measure = ErrorMeasure::Max;
    let reference = auto_reference(&trial, &sweep, &quantity, measure, interrupted)?;
    let methods = candidates(m);
    let trial_run = |ms: &[Method], progress: &mut dyn FnMut(&Record)| {
        let r = Some(&reference.table);
        run_comparison(
            &trial,
            ms,
            &sweep,
            &quantity,
            measure,
            r,
            progress,
            interrupted,
        )
    };
    let mut records = trial_run(&methods, progress);
    for (k, method) in methods.iter().enumerate() {
        // Short trials are timed again, keeping the fastest, so that noise does not choose.
        for _ in 1..REPEATS {
            if !(records[k].error.is_finite() && records[k].cpu_time_s < SHORT_TRIAL_S) {
                break;
            }
            let again = trial_run(std::slice::from_ref(method), &mut |_| {});
            if let Some(r) = again.first().filter(|r| r.error.is_finite()) {
                records[k].cpu_time_s = records[k].cpu_time_s.min(r.cpu_time_s);
            }
        }
    }
    let scale = largest_magnitude(&reference.table, &quantity)?.max(1.0);
    let (order, accepted_error) = rank(&records, rtol * scale);
    let best = order[0];
    let accepted = records[best].error.is_finite() && records[best].error <= accepted_error;
    if !accepted {
        let outcomes: Vec<String> = records
            .iter()
            .map(|r| format!("{}: {} {}", r.method, r.status, r.note))
            .collect();
        return Err(StudyError::Run(format!(
            "no candidate pair completed the trial (the first {:.0} % of the run): {}; choose one with --scheme",
            100.0 * TRIAL_FRACTION,
            outcomes.join("; ")
        )));
    }
    Ok(MethodChoice {
        method: methods[best].clone(),
        chosen: methods[best].label(),
        rtol,
        trial_t_end,
        reference: reference.description,
        accepted_error,
        ranking: order.iter().map(|&k| records[k].clone()).collect(),
        ranked: order.iter().map(|&k| methods[k].clone()).collect(),
        fallback: None,
    })
}

/// The trial model of `model` (its first [`TRIAL_FRACTION`] of the span, [`TRIAL_SAMPLES`]
/// samples) and its number of constraint rows, read from a simulation set up as an adaptive run
/// (the model's own scheme may take no tolerance, and its file need not give a step).
fn trial_of(model: &Model, rtol: f64) -> Result<(Model, usize), StudyError> {
    let opts = RunOptions {
        scheme: Some("esdirk4-6".into()),
        formulation: Some("index3".into()),
        step: StepSettings {
            rtol: Some(rtol),
            atol: Some(rtol),
            ..StepSettings::default()
        },
        ..RunOptions::default()
    };
    let sim = Simulation::new(model, &opts).map_err(|e| StudyError::Run(e.to_string()))?;
    let (t0, span) = (sim.initial.t, sim.settings.t_end - sim.initial.t);
    let mut trial = model.clone();
    trial.solver.t_end = Some(t0 + TRIAL_FRACTION * span);
    trial.solver.output_interval = Some(TRIAL_FRACTION * span / TRIAL_SAMPLES);
    Ok((trial, sim.system.m()))
}

/// The order of the records (accepted first, by time; then the other completed ones, by time;
/// then the failed ones) and the accepted error, [`ACCEPTED_ERROR`] times the larger of the
/// smallest error and `tolerance`.
fn rank(records: &[Record], tolerance: f64) -> (Vec<usize>, f64) {
    let smallest = records
        .iter()
        .map(|r| r.error)
        .filter(|e| e.is_finite())
        .fold(f64::INFINITY, f64::min);
    let accepted_error = ACCEPTED_ERROR * smallest.max(tolerance);
    let key = |r: &Record| {
        let accepted = r.error.is_finite() && r.error <= accepted_error;
        (!accepted, !r.error.is_finite())
    };
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&records[a], &records[b]);
        key(ra)
            .cmp(&key(rb))
            .then(ra.cpu_time_s.total_cmp(&rb.cpu_time_s))
    });
    (order, accepted_error)
}

/// The largest |value| of the compared columns of `table` (0 for energy).
fn largest_magnitude(table: &HistoryTable, quantity: &Quantity) -> Result<f64, StudyError> {
    let Quantity::Columns(patterns) = quantity else {
        return Ok(0.0);
    };
    let mut largest: f64 = 0.0;
    for p in patterns {
        for i in table.matching(p)? {
            largest = table.columns[i].iter().fold(largest, |m, x| m.max(x.abs()));
        }
    }
    Ok(largest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(scheme: &str, formulation: &str) -> Method {
        Method {
            scheme: scheme.into(),
            params: SchemeParams::new(),
            formulation: Some(formulation.into()),
        }
    }

    fn record(m: &Method, error: f64) -> Record {
        Record {
            method: m.label(),
            scheme: m.scheme.clone(),
            formulation: m.formulation.clone().unwrap_or_default(),
            value: f64::NAN,
            error,
            cpu_time_s: 0.1,
            steps: 10,
            rejected_steps: 0,
            newton_iterations: 0,
            status: "completed".into(),
            note: String::new(),
        }
    }

    /// The fallback skips the index-1 pairs and a position-level one that failed the trial, takes
    /// the first position-level pair that completed it, and falls back only once.
    #[test]
    fn falls_back_to_the_first_completed_position_level_pair() {
        let ranked = vec![
            pair("abm", "projection"),
            pair("dopri5", "projection"),
            pair("esdirk4-6", "stabilized-index2"),
            pair("generalized-alpha", "stabilized-index2"),
        ];
        let errors = [1e-7, 2e-7, f64::NAN, 5e-7];
        let mut c = MethodChoice {
            method: ranked[0].clone(),
            chosen: ranked[0].label(),
            rtol: 1e-6,
            trial_t_end: 1.0,
            reference: String::new(),
            accepted_error: 1e-5,
            ranking: ranked
                .iter()
                .zip(errors)
                .map(|(m, e)| record(m, e))
                .collect(),
            ranked: ranked.clone(),
            fallback: None,
        };
        assert!(c.fall_back(1.5, "singular".into()));
        assert_eq!(c.method, ranked[3]);
        assert_eq!(c.chosen, "generalized-alpha / stabilized-index2");
        let f = c.fallback.clone().expect("recorded");
        assert_eq!((f.from.as_str(), f.stopped_at), ("abm / projection", 1.5));
        assert!(!c.fall_back(2.0, "again".into()), "falls back once");
        assert_eq!(c.method, ranked[3]);
    }
}
