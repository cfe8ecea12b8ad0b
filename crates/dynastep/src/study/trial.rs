//! The trial of the automatic choice (`choice.rs`): the first share of a run, its reference, and
//! the candidate pairs measured on it, every one to its end or in a race.
//!
//! In a race, a candidate is stopped once its run has taken [`RACE_MARGIN`] times the loop time
//! of the fastest pair accepted so far: it cannot be chosen. The choice is the same as when every
//! candidate runs to its end. The accepted error only falls as candidates are added (it is
//! [`ACCEPTED_ERROR`] times the smallest error reached, or the tolerance), or rises, which keeps
//! every accepted pair accepted (when the reference is a candidate's own run, see
//! [`Trial::accepted_error`]); so a candidate stopped
//! against a pair B was slower than B, and if a later, more accurate pair X makes B unaccepted, X
//! itself ran within the budget of the pair that was fastest when it ran, at most B's time: it is
//! faster than the stopped candidate too. Measured on the pendulum at rtol 1e-10: the trial's
//! runs took 14.4 ms in all, most of it in the implicit pairs (7.9 and 4.8 ms), against 0.09 ms
//! for the pair chosen.
//!
//! A stopped candidate has status `cut`, no error, and the time it ran as its time.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::analysis::simulation::{RunOptions, Simulation};
use crate::analysis::step_control::StepSettings;
use crate::io::history_table::HistoryTable;
use crate::model::settings::MIN_RTOL;
use crate::model::Model;
use crate::study::choice::candidates;
use crate::study::compare::{
    auto_reference, error_of, pose_columns, run_comparison, run_kept, ErrorMeasure, Method,
    Quantity, Record, ReferenceRun, Sweep,
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
/// In a race, a candidate is stopped after this multiple of the fastest accepted pair's loop
/// time. Above 1, so that a run slowed by the machine's noise is not stopped where its repeats
/// (short runs are timed up to [`REPEATS`] times) could still make it the fastest.
pub const RACE_MARGIN: f64 = 2.0;
/// The implicit reference (MSSTC(5) at a hundredth of the tolerance) may take this multiple of
/// the first candidate's trial time before the first candidate at that tolerance is tried as the
/// reference instead (see [`Trial::new`]).
pub const REFERENCE_BUDGET: f64 = 3.0;

/// How the candidates are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Every candidate to the end of the trial: the whole ranking (`dynastep compare --auto`).
    Every,
    /// A candidate is stopped once it cannot be chosen (see the module documentation): the
    /// choice of `dynastep run`, at a fraction of the cost.
    Race,
}

/// The trial of a model at a tolerance: its model, what is compared and its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The model cut to the trial's span and samples.
    pub model: Model,
    /// Constraint rows of the model.
    pub m: usize,
    /// Start of the trial, the run's \[s\].
    pub t_start: f64,
    /// End of the trial \[s\].
    pub t_end: f64,
    /// The pose columns compared.
    quantity: Quantity,
    /// The one tolerance, rtol = atol.
    sweep: Sweep,
    /// The reference the errors are measured against.
    pub reference: ReferenceRun,
    /// Wall-clock time of computing the reference \[s\]: part of the choice's cost.
    pub reference_time_s: f64,
    /// The first candidate's run at the tolerance, made before the reference (its time sets the
    /// reference's budget), with its error against the reference: the race starts from it.
    first: Option<(String, Record)>,
    /// The pair whose run at a hundredth of the tolerance is the reference, when it is a
    /// candidate: its own error against it is a self-estimate, left out of the accepted error.
    self_referenced: Option<String>,
    /// The tolerance scaled by the size of the compared values (at least 1) \[their unit\].
    pub tolerance: f64,
}

impl Trial {
    /// The trial of `model` at `rtol`: its first [`TRIAL_FRACTION`] of the span, [`TRIAL_SAMPLES`]
    /// samples, and its reference.
    ///
    /// The reference is the first of these that completes:
    /// 1. [`auto_reference`] (MSSTC(5) at rtol/100, or its fallbacks) within [`REFERENCE_BUDGET`]
    ///    times the trial time of the first candidate (run first, and kept for the race);
    /// 2. the first candidate (an explicit Adams pair) at rtol/100, with its singular-configuration
    ///    watch set to stop: an index-1 run that passes a singular configuration may leave the
    ///    branch of the motion, and is no reference;
    /// 3. [`auto_reference`] without a budget.
    ///
    /// On a smooth model the explicit pair is much the cheaper reference (the pendulum at rtol
    /// 1e-10: about 0.3 ms against 15 ms for MSSTC(5)); on a stiff one the implicit reference
    /// finishes within its budget (the flyball governor).
    ///
    /// # Errors
    /// [`StudyError::Run`] when the model does not start or no reference can be computed.
    pub fn new(
        model: &Model,
        rtol: f64,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<Self, StudyError> {
        let (trial, m) = trial_of(model, rtol)?;
        let quantity = Quantity::Columns(pose_columns(model)?);
        let sweep = Sweep::Tolerances(vec![rtol]);
        let first_method = candidates(m).into_iter().next();
        let first = first_method
            .as_ref()
            .and_then(|method| run_kept(&trial, method, &sweep, rtol, interrupted).ok());
        let clock = Instant::now();
        let first_time = first
            .as_ref()
            .filter(|(r, _)| r.status == "completed")
            .map(|(r, _)| r.cpu_time_s);
        let (reference, self_referenced) = reference(
            &trial,
            rtol,
            &quantity,
            first_method.as_ref(),
            first_time,
            interrupted,
        )?;
        let reference_time_s = clock.elapsed().as_secs_f64();
        let first = first
            .zip(first_method)
            .map(|((mut record, table), method)| {
                if record.status == "completed" {
                    match error_of(&table, Some(&reference.table), &quantity, ErrorMeasure::Max) {
                        Ok(e) => record.error = e,
                        Err(e) => record.note = e.to_string(),
                    }
                }
                (method.label(), record)
            });
        let scale = largest_magnitude(&reference.table, &quantity)?.max(1.0);
        Ok(Trial {
            reference_time_s,
            first,
            self_referenced,
            t_start: trial.solver.t_start.unwrap_or(0.0),
            t_end: trial.solver.t_end.unwrap_or_default(),
            model: trial,
            m,
            quantity,
            sweep,
            reference,
            tolerance: rtol * scale,
        })
    }

    /// The accepted error of `records`: [`ACCEPTED_ERROR`] times the larger of their smallest
    /// error and the scaled tolerance. The error of the pair that is its own reference (see
    /// [`Trial::new`]) does not count: measured against its own run at a hundredth of the
    /// tolerance, it is a self-estimate that can sit far below what an independent reference
    /// sees (the flyball governor at rtol 1e-10: Adams PECE 1.5e-11 against its own reference,
    /// ESDIRK4(3)6L 2.6e-8 against it), and would leave every other pair out. With that pair
    /// set aside the bound can rise as pairs are added, from the tolerance's to a larger
    /// smallest error; a rise keeps every accepted pair accepted, so the race's argument (the
    /// module documentation) still holds.
    pub fn accepted_error(&self, records: &[Record]) -> f64 {
        let smallest = records
            .iter()
            .filter(|r| self.self_referenced.as_ref() != Some(&r.method))
            .map(|r| r.error)
            .filter(|e| e.is_finite())
            .fold(f64::INFINITY, f64::min);
        // Before any other pair has an error (the self-referenced pair first in a race), the
        // tolerance alone: an infinite bound would accept that pair whatever its error.
        let floor = if smallest.is_finite() {
            smallest.max(self.tolerance)
        } else {
            self.tolerance
        };
        ACCEPTED_ERROR * floor
    }

    /// Measures `methods` in order (one record each, in their order); `progress` is called after
    /// each.
    pub fn measure(
        &self,
        methods: &[Method],
        how: Measure,
        progress: &mut dyn FnMut(&Record),
        interrupted: &dyn Fn() -> bool,
    ) -> Vec<Record> {
        let mut records: Vec<Record> = Vec::with_capacity(methods.len());
        for method in methods {
            let rival = match how {
                Measure::Every => None,
                Measure::Race => self.fastest_accepted(&records),
            };
            let record = self.measure_one(method, rival, interrupted);
            progress(&record);
            records.push(record);
        }
        records
    }

    /// The fastest accepted record of `records`, if any.
    fn fastest_accepted<'a>(&self, records: &'a [Record]) -> Option<&'a Record> {
        let accepted = self.accepted_error(records);
        records
            .iter()
            .filter(|r| r.error.is_finite() && r.error <= accepted)
            .min_by(|a, b| a.cpu_time_s.total_cmp(&b.cpu_time_s))
    }

    /// One candidate's record: stopped after [`RACE_MARGIN`] times the loop time of `rival` when
    /// there is one, and timed again (the fastest kept) when its run is short.
    fn measure_one(
        &self,
        method: &Method,
        rival: Option<&Record>,
        interrupted: &dyn Fn() -> bool,
    ) -> Record {
        let budget = rival.map(|r| RACE_MARGIN * r.cpu_time_s);
        let deadline = budget.map(|b| Instant::now() + Duration::from_secs_f64(b));
        let cut = Cell::new(false);
        let stop = || {
            interrupted()
                || deadline.is_some_and(|d| {
                    cut.set(Instant::now() >= d);
                    cut.get()
                })
        };
        let kept = self
            .first
            .as_ref()
            .filter(|(label, _)| *label == method.label());
        let mut record = match kept {
            Some((_, record)) => record.clone(),
            None => self.run(method, &stop),
        };
        let was_cut = cut.get() && record.status == "interrupted" && !interrupted();
        if let (true, Some(r), Some(b)) = (was_cut, rival, budget) {
            record.status = "cut".into();
            record.note = format!(
                "stopped after {b:.3e} s, {RACE_MARGIN} times the loop time of {} ({:.3e} s), the fastest accepted pair so far: it cannot be chosen",
                r.method, r.cpu_time_s
            );
            return record;
        }
        // Short trials are timed again, keeping the fastest, so that noise does not choose.
        for _ in 1..REPEATS {
            if !(record.error.is_finite() && record.cpu_time_s < SHORT_TRIAL_S) {
                break;
            }
            let again = self.run(method, interrupted);
            if again.error.is_finite() {
                record.cpu_time_s = record.cpu_time_s.min(again.cpu_time_s);
            }
        }
        record
    }

    /// One run of `method` over the trial, stopped when `stop` says so.
    fn run(&self, method: &Method, stop: &dyn Fn() -> bool) -> Record {
        let mut records = run_comparison(
            &self.model,
            std::slice::from_ref(method),
            &self.sweep,
            &self.quantity,
            ErrorMeasure::Max,
            Some(&self.reference.table),
            &mut |_| {},
            stop,
        );
        records.remove(0)
    }
}

/// The trial's reference (see [`Trial::new`]): of `trial` at a hundredth of `rtol`, compared on
/// `quantity`; `first` is the first candidate and `first_time` its trial time when it completed.
fn reference(
    trial: &Model,
    rtol: f64,
    quantity: &Quantity,
    first: Option<&Method>,
    first_time: Option<f64>,
    interrupted: &dyn Fn() -> bool,
) -> Result<(ReferenceRun, Option<String>), StudyError> {
    let sweep = Sweep::Tolerances(vec![rtol]);
    let implicit = |stop: &dyn Fn() -> bool| {
        auto_reference(trial, &sweep, quantity, ErrorMeasure::Max, false, stop)
    };
    let (Some(method), Some(time)) = (first, first_time) else {
        return implicit(interrupted)
            .map(|r| (r, None))
            .map_err(|e| for_the_run(e, None));
    };
    // The choice does not use the reference's own error: no run to estimate it.
    let deadline = Instant::now() + Duration::from_secs_f64(REFERENCE_BUDGET * time);
    let cut = Cell::new(false);
    let stop = || {
        interrupted() || {
            cut.set(Instant::now() >= deadline);
            cut.get()
        }
    };
    // An implicit failure within the budget (not a cut) is kept: a third attempt without a budget
    // would fail the same way. The explicit reference is tried all the same (the first of the
    // three that completes is the reference), and a final error gives its reason too.
    let failed = match implicit(&stop) {
        Ok(r) => return Ok((r, None)),
        Err(e) if interrupted() => return Err(e),
        Err(e) => (!cut.get()).then_some(e),
    };
    let watched = trial.stopping_at_singular_configurations();
    let value = (rtol / 100.0).max(MIN_RTOL);
    let tight = Sweep::Tolerances(vec![value]);
    let explicit = match run_kept(&watched, method, &tight, value, interrupted) {
        Ok((record, table)) if record.status == "completed" => {
            let reference = ReferenceRun {
                table,
                description: format!("{}, rtol = atol {value:.3e}", method.label()),
                self_error: None,
            };
            return Ok((reference, Some(method.label())));
        }
        Ok((record, _)) => record.note,
        Err(e) => e.to_string(),
    };
    let last = match failed {
        Some(e) => Err(e),
        None => implicit(interrupted),
    };
    let explicit = format!(
        "nor could the explicit one ({} at rtol = atol {value:.3e}: {explicit})",
        method.label()
    );
    last.map(|r| (r, None))
        .map_err(|e| for_the_run(e, Some(&explicit)))
}

/// `e`, an error of [`auto_reference`], with `more` when given and what the run that chooses can
/// do about it.
fn for_the_run(e: StudyError, more: Option<&str>) -> StudyError {
    match e {
        StudyError::Run(why) => {
            let more = more.map(|m| format!("; {m}")).unwrap_or_default();
            StudyError::Run(format!(
                "{why}{more}; choose the pair with --scheme, or loosen --rtol"
            ))
        }
        other => other,
    }
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
