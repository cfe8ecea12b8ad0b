//! Choosing a scheme × formulation for a model and a tolerance by measuring them on it: the
//! `--scheme auto` of `dynastep run` and `dynastep compare --auto`.
//!
//! Which pair is fastest at a given accuracy depends on the model (its stiffness, its constraints,
//! how smooth its motion is) and on the accuracy; no rule of thumb holds across the examples
//! (docs/performance.md). So the choice is measured, on the model itself:
//!
//! 1. the *trial*: the first [`TRIAL_FRACTION`] of the run's time span, sampled
//!    [`TRIAL_SAMPLES`] times;
//! 2. its reference at a hundredth of the tolerance ([`Trial::new`]): the one `dynastep compare`
//!    computes (MSSTC(5), [`auto_reference`](crate::study::compare::auto_reference)) when it
//!    finishes within a budget, else the first candidate at that tolerance;
//! 3. every [`candidates`] pair run over the trial at rtol = atol = the tolerance, with its error
//!    (the largest over the samples of the pose columns) and its loop time (the fastest of up to
//!    [`REPEATS`] runs when a run is shorter than [`SHORT_TRIAL_S`]);
//! 4. the choice: the fastest pair whose error is at most [`ACCEPTED_ERROR`] times the larger of
//!    the smallest error reached and the tolerance (scaled by the size of the compared values, at
//!    least 1). A pair that fails or refuses the tolerance is ranked out with its reason.
//!
//! `dynastep run` measures the candidates in a race ([`Measure::Race`], `trial.rs`): a candidate
//! is stopped once it cannot be chosen, which gives the same choice at a fraction of the cost;
//! `dynastep compare --auto` runs every one to its end, to show the whole ranking.
//!
//! What this cannot see: a change of character after the trial (a mechanism that turns stiff
//! later, a singular configuration). The ranking is printed and written to summary.json, so that
//! a user can see what was measured and override it with `--scheme`. A singular configuration
//! stops an explicit pair, whose index-1 formulation cannot pass it
//! ([`crate::formulation::singularity`]); [`MethodChoice::fall_back`] then names the fastest
//! ranked pair whose formulation can, and the run is made again with it (after a race, such pairs
//! that were stopped are first measured again among themselves).

use crate::model::Model;
use crate::scheme::SchemeParams;
use crate::study::compare::{Method, Record};
use crate::study::error::StudyError;
pub use crate::study::trial::{
    Measure, Trial, ACCEPTED_ERROR, REPEATS, SHORT_TRIAL_S, TRIAL_FRACTION, TRIAL_SAMPLES,
};

/// The scheme name that asks for the pair measured fastest on a trial (`dynastep run --scheme
/// trial`, Python's `Model.run(scheme="trial")`); not a scheme of the registry.
pub const TRIAL: &str = "trial";

/// The candidate pairs for a model with `m` constraint rows, in the order a race measures them:
/// explicit (Adams PECE and Dormand–Prince 5(4) with projection, or the plain ODE when m = 0) and
/// implicit (ESDIRK4(3)6L in index 3 and, with constraints, in the stabilized index-2 form;
/// generalized-α in stabilized index 2, the constrained pair whose error control holds,
/// docs/stabilized_index2.md). Adams PECE comes first: the first candidate of a race runs
/// without a budget, and Adams PECE is the cheapest per step (one force evaluation). It was the
/// pair chosen in 12 of the 15 auto runs of docs/performance.md's cross-engine section while
/// DOPRI5 was measured first (2026-11-28), and DOPRI5 in first place ran 12 times longer than it
/// on the N = 40 chain at rtol 1e-8.
pub fn candidates(m: usize) -> Vec<Method> {
    let pair = |scheme: &str, formulation: &str| Method {
        scheme: scheme.into(),
        params: SchemeParams::new(),
        formulation: Some(formulation.into()),
    };
    if m == 0 {
        return vec![
            pair("abm", "direct"),
            pair("dopri5", "direct"),
            pair("esdirk4-6", "index3"),
        ];
    }
    vec![
        pair("abm", "projection"),
        pair("dopri5", "projection"),
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
    /// Start of the trial, where the run starts \[s\].
    pub trial_t_start: f64,
    /// End of the trial \[s\].
    pub trial_t_end: f64,
    /// The trial's reference, e.g. `msstc5, rtol = atol 1.000e-8`.
    pub reference: String,
    /// Wall-clock time of computing the reference \[s\]. With the candidates' times in
    /// `ranking` (`cpu_time_s`) it is what the choice cost.
    pub reference_time_s: f64,
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
    /// The trial, kept to measure the pairs a race stopped should the run fall back to one.
    #[serde(skip)]
    pub trial: Option<Trial>,
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
    /// [`PASSES_SINGULAR_CONFIGURATIONS`], and records the switch in `fallback`. When a race
    /// stopped every such pair, they are measured on the kept trial first, in a race among
    /// themselves, and their records replace those in the ranking. Returns false, changing
    /// nothing, when there is none or when the choice already fell back once.
    pub fn fall_back(
        &mut self,
        stopped_at: f64,
        reason: String,
        interrupted: &dyn Fn() -> bool,
    ) -> bool {
        if self.fallback.is_some() {
            return false;
        }
        if self.next_position_level().is_none() {
            self.measure_cut_position_level(interrupted);
        }
        let Some(k) = self.next_position_level() else {
            return false;
        };
        self.fallback = Some(Fallback {
            from: self.chosen.clone(),
            stopped_at,
            reason,
        });
        self.method = self.ranked[k].clone();
        self.chosen = self.method.label();
        true
    }

    /// The rank of the first pair that completed the trial with a formulation of
    /// [`PASSES_SINGULAR_CONFIGURATIONS`].
    fn next_position_level(&self) -> Option<usize> {
        (0..self.ranked.len())
            .find(|&k| passes(&self.ranked[k]) && self.ranking[k].error.is_finite())
    }

    /// Measures the position-level pairs that a race stopped, in a race among themselves, and
    /// ranks again.
    fn measure_cut_position_level(&mut self, interrupted: &dyn Fn() -> bool) {
        let Some(trial) = &self.trial else { return };
        let cut: Vec<usize> = (0..self.ranked.len())
            .filter(|&k| passes(&self.ranked[k]) && self.ranking[k].status == "cut")
            .collect();
        let methods: Vec<Method> = cut.iter().map(|&k| self.ranked[k].clone()).collect();
        let records = trial.measure(&methods, Measure::Race, &mut |_| {}, interrupted);
        for (&k, r) in cut.iter().zip(records) {
            self.ranking[k] = r;
        }
        let order = rank(&self.ranking, self.accepted_error);
        self.ranking = order.iter().map(|&k| self.ranking[k].clone()).collect();
        self.ranked = order.iter().map(|&k| self.ranked[k].clone()).collect();
    }
}

/// Whether the pair's formulation passes singular configurations.
fn passes(m: &Method) -> bool {
    m.formulation
        .as_deref()
        .is_some_and(|f| PASSES_SINGULAR_CONFIGURATIONS.contains(&f))
}

/// Measures the [`candidates`] on the trial of `model` at `rtol`, every one or in a race (`how`),
/// and chooses (see the module documentation); `progress` is called after each trial run.
///
/// # Errors
/// [`StudyError::Run`] when the model does not start, when no reference can be computed, or when
/// no candidate completes the trial within the accepted error (the message lists each one's
/// outcome); [`StudyError::Usage`] for an rtol that is not a positive number.
pub fn choose_method(
    model: &Model,
    rtol: f64,
    how: Measure,
    progress: &mut dyn FnMut(&Record),
    interrupted: &dyn Fn() -> bool,
) -> Result<MethodChoice, StudyError> {
    if !(rtol > 0.0 && rtol.is_finite()) {
        return Err(StudyError::Usage(format!(
            "the tolerance must be a positive number, not {rtol}"
        )));
    }
    let trial = Trial::new(model, rtol, interrupted)?;
    let methods = candidates(trial.m);
    let records = trial.measure(&methods, how, progress, interrupted);
    let accepted_error = trial.accepted_error(&records);
    let order = rank(&records, accepted_error);
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
        trial_t_start: trial.t_start,
        trial_t_end: trial.t_end,
        reference: trial.reference.description.clone(),
        reference_time_s: trial.reference_time_s,
        accepted_error,
        ranking: order.iter().map(|&k| records[k].clone()).collect(),
        ranked: order.iter().map(|&k| methods[k].clone()).collect(),
        fallback: None,
        trial: Some(trial),
    })
}

/// The order of the records (accepted first, by time; then the other completed ones, by time;
/// then the failed and stopped ones) under the accepted error `accepted_error`.
fn rank(records: &[Record], accepted_error: f64) -> Vec<usize> {
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
    order
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
            trial_t_start: 0.0,
            trial_t_end: 1.0,
            reference: String::new(),
            reference_time_s: 0.0,
            accepted_error: 1e-5,
            ranking: ranked
                .iter()
                .zip(errors)
                .map(|(m, e)| record(m, e))
                .collect(),
            ranked: ranked.clone(),
            fallback: None,
            trial: None,
        };
        assert!(c.fall_back(1.5, "singular".into(), &|| false));
        assert_eq!(c.method, ranked[3]);
        assert_eq!(c.chosen, "generalized-alpha / stabilized-index2");
        let f = c.fallback.clone().expect("recorded");
        assert_eq!((f.from.as_str(), f.stopped_at), ("abm / projection", 1.5));
        assert!(
            !c.fall_back(2.0, "again".into(), &|| false),
            "falls back once"
        );
        assert_eq!(c.method, ranked[3]);
    }
}
