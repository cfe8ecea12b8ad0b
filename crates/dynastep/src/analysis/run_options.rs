//! [`RunOptions`]: the run settings a caller gives beside a model (the command line's flags, the
//! Python keyword arguments), as an overlay on the model's `[solver]` table.
//!
//! Every run setting is declared once, in the model layer (`SolverSpec`, `model/settings.rs`), and
//! checked by one rule (`model/validate/solver.rs`). [`RunOptions::overlay`] merges the options over
//! the model's table, and [`RunOptions::check`] applies the same rules to the result, naming the
//! option when the value came from one (`--dt`), where the file reader names the file, line and
//! column.

use crate::analysis::failure::RunFailure;
use crate::analysis::step_control::StepSettings;
use crate::model::validate::{check_solver, Issue, PathSeg};
use crate::model::SolverSpec;
use crate::scheme::SchemeParams;

/// Run settings that override the model's `\[solver\]` table. `None` keeps the model's value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOptions {
    /// Scheme name (see [`crate::scheme::REGISTRY`]).
    pub scheme: Option<String>,
    /// Scheme parameters; merged over the model's `[solver.params]` (given ones win) when the scheme
    /// is the model's, used alone when `scheme` names another.
    pub params: SchemeParams,
    /// Step size \[s\]. Given without `step.rtol`, the run takes fixed steps of this size even when
    /// the model's `[solver.step]` sets a tolerance; with `step.rtol` it is the first step.
    pub dt: Option<f64>,
    /// End time \[s\].
    pub t_end: Option<f64>,
    /// Output interval \[s\]; 0 writes every step.
    pub output_interval: Option<f64>,
    /// Formulation name (see [`crate::formulation::REGISTRY`]).
    pub formulation: Option<String>,
    /// Error-control settings; each given field overrides the model's `[solver.step]`.
    pub step: StepSettings,
    /// Most steps the run may take (see [`crate::analysis::dynamic::DEFAULT_MAX_STEPS`]).
    pub max_steps: Option<u64>,
    /// Compute the largest natural frequency ω_max of the integrated system along the run
    /// ([`crate::analysis::dynamic::DynamicSettings::omega_max`]).
    pub omega_max: bool,
}

impl RunOptions {
    /// The model's `solver` table with these options over it. The model's `[solver.params]` belong
    /// to the model's scheme, so they apply only when the options keep that scheme, and given
    /// parameters win over them. A step size given without a tolerance asks for fixed steps,
    /// whatever the model's `[solver.step]` says (the model's own `dt` beside its `rtol` is only the
    /// first step).
    pub fn overlay(&self, solver: &SolverSpec) -> SolverSpec {
        let mut s = solver.clone();
        if self.scheme.is_some() && self.scheme != solver.scheme {
            s.params = SchemeParams::new();
        }
        s.scheme = self.scheme.clone().or(s.scheme);
        s.params
            .extend(self.params.iter().map(|(k, v)| (k.clone(), *v)));
        s.dt = self.dt.or(s.dt);
        s.t_end = self.t_end.or(s.t_end);
        s.output_interval = self.output_interval.or(s.output_interval);
        s.formulation = self.formulation.clone().or(s.formulation);
        s.max_steps = self.max_steps.or(s.max_steps);
        if self.dt.is_some() && self.step.rtol.is_none() {
            s.step = StepSettings {
                max_halvings: s.step.max_halvings,
                halve_after_iterations: s.step.halve_after_iterations,
                ..StepSettings::default()
            };
        }
        let (mine, theirs) = (&self.step, &mut s.step);
        theirs.rtol = mine.rtol.or(theirs.rtol);
        theirs.atol = mine.atol.or(theirs.atol);
        theirs.h_min = mine.h_min.or(theirs.h_min);
        theirs.h_max = mine.h_max.or(theirs.h_max);
        theirs.control = mine.control.or(theirs.control);
        theirs.max_halvings = mine.max_halvings.or(theirs.max_halvings);
        theirs.halve_after_iterations = mine
            .halve_after_iterations
            .or(theirs.halve_after_iterations);
        s
    }

    /// Applies the model's `[solver]` rules to `solver`, the result of [`RunOptions::overlay`].
    ///
    /// # Errors
    /// A [`crate::analysis::failure::FailureKind::Settings`] failure for the first broken rule,
    /// naming the option (`run option dt (--dt)`) when the value came from these options, and the
    /// setting's path in the model (`solver.step.rtol`) otherwise.
    pub fn check(&self, solver: &SolverSpec) -> Result<(), RunFailure> {
        let Some(issue) = check_solver(solver).into_iter().next() else {
            return Ok(());
        };
        let what = match self.option_of(&issue) {
            Some(option) => format!("run option {option}"),
            None => path_of(&issue),
        };
        Err(RunFailure::settings(format!("{what}: {}", issue.message)).advise(issue.hint))
    }

    /// The option that set the value `issue` is about, as `name (--flag)`, or `None` when the value
    /// is the model's.
    fn option_of(&self, issue: &Issue) -> Option<String> {
        let keys: Vec<&str> = issue
            .path
            .iter()
            .filter_map(|s| match s {
                PathSeg::Key(k) => Some(k.as_str()),
                PathSeg::Index(_) => None,
            })
            .collect();
        let given = self.gives(&keys);
        let last = keys.last().copied().unwrap_or_default();
        given.then(|| match keys.as_slice() {
            ["solver", "params", name] => format!("parameter {name} (--param {name}=…)"),
            _ => format!("{last} (--{})", last.replace('_', "-")),
        })
    }
}

impl RunOptions {
    /// Whether these options give the run setting at `keys` (its path in the model file, e.g.
    /// `["solver", "step", "rtol"]`), so that a problem with its value belongs to the command
    /// line rather than to the file.
    pub fn gives(&self, keys: &[&str]) -> bool {
        let step = &self.step;
        match keys {
            ["solver", "scheme"] => self.scheme.is_some(),
            ["solver", "params", name] => self.params.contains_key(*name),
            ["solver", "dt"] => self.dt.is_some(),
            ["solver", "t_end"] => self.t_end.is_some(),
            ["solver", "output_interval"] => self.output_interval.is_some(),
            ["solver", "formulation"] => self.formulation.is_some(),
            ["solver", "max_steps"] => self.max_steps.is_some(),
            ["solver", "step", "rtol"] => step.rtol.is_some(),
            ["solver", "step", "atol"] => step.atol.is_some(),
            ["solver", "step", "h_min"] => step.h_min.is_some(),
            ["solver", "step", "h_max"] => step.h_max.is_some(),
            ["solver", "step", "max_halvings"] => step.max_halvings.is_some(),
            ["solver", "step", "halve_after_iterations"] => step.halve_after_iterations.is_some(),
            _ => false,
        }
    }
}

/// `solver.step.rtol`: where the value of `issue` is in a model file.
fn path_of(issue: &Issue) -> String {
    issue
        .path
        .iter()
        .map(|s| match s {
            PathSeg::Key(k) => k.clone(),
            PathSeg::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}
