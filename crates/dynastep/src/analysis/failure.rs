//! [`RunFailure`]: why a time loop (a dynamic run, a kinematic analysis, a settling run) stopped
//! before its end, as a value the CLI, `summary.json` and the Python package render, instead of a
//! sentence assembled in the loop.
//!
//! A failure carries its kind, the time of the last complete state, what happened, the element or
//! constraint row at fault when the equations name one, and what the user can change. Its
//! `Display` is the sentence the CLI prints: the message, the cause after a colon, the advice after
//! a semicolon.

use std::fmt;

use super::kinematics::KinematicError;
use crate::formulation::FormulationError;

/// What kind of failure ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The run's settings cannot be used (found before the first step): span, step size,
    /// tolerances, output interval, a scheme without the capability the settings ask for, a
    /// formulation that cannot be built.
    Settings,
    /// Newton's iteration at an integration point did not converge.
    NotConverged,
    /// Newton's iteration stalled at the rounding level of the residual.
    Stalled,
    /// A value became NaN or infinite (in the iteration, in the committed state or in its energy
    /// balance).
    NonFinite,
    /// The energy balance shows that the solution diverged while the state is still finite
    /// (`analysis/divergence.rs`).
    Diverged,
    /// The local error could not be brought within the tolerances above h_min.
    ErrorControl,
    /// The step no longer advances the time (below the floating-point spacing).
    StepTooSmall,
    /// The run reached `max_steps`.
    MaxSteps,
    /// The formulation's correction after a step (projection, partitioning) failed.
    Correction,
    /// The constraint Jacobian lost rank: a lock-up or dead point of a kinematic analysis, or a
    /// singular configuration that an index-1 formulation cannot pass in a dynamic run.
    Singular,
    /// The state reached is one the model's equations do not hold for (an equation-based
    /// model's mass matrix that is no longer positive definite).
    InvalidState,
    /// The run watched for stiffness and its steps were bounded by the scheme's stability
    /// ([`super::dynamic::DynamicSettings::stop_when_stiff`]).
    Stiff,
    /// An observer (a writer) failed; the message is its own.
    Observer,
}

/// What to do when an index-1 formulation meets a singular configuration.
const SINGULAR_ADVICE: &str = "the index-1 formulations (direct, baumgarte, projection, partitioning, hybrid) are not reliable there: the run may leave the branch of the motion; use --formulation index3 or stabilized-index2 with an implicit scheme, whose position-level equations pass it, or set [solver.constraints] singular_configuration = \"warn\" to go on";

/// Why a run stopped early (see the module documentation).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunFailure {
    /// The kind.
    pub kind: FailureKind,
    /// What happened, with the times and values involved.
    pub message: String,
    /// The element or constraint row whose equations are at fault, when they name one (e.g. a
    /// driver's function that is not finite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// What the user can change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    /// For a `settings` failure, the run setting at fault as its dotted path in the model file
    /// (e.g. `solver.output_interval`), so that the program can point at its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setting: Option<&'static str>,
}

impl RunFailure {
    /// A failure of `kind` with `message` and nothing else.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        RunFailure {
            kind,
            message: message.into(),
            cause: None,
            advice: None,
            setting: None,
        }
    }

    /// Settings that cannot be used.
    pub fn settings(message: impl Into<String>) -> Self {
        Self::new(FailureKind::Settings, message)
    }

    /// With `advice`.
    pub fn advise(mut self, advice: impl Into<String>) -> Self {
        self.advice = Some(advice.into());
        self
    }

    /// With the run setting at fault, its dotted path in the model file (`solver.dt`, …).
    pub fn at_setting(mut self, path: &'static str) -> Self {
        self.setting = Some(path);
        self
    }

    /// With `cause` (the element or row at fault).
    pub fn caused_by(mut self, cause: Option<String>) -> Self {
        self.cause = cause;
        self
    }

    /// The failure of a Newton iteration (`error`) at an integration point: its kind, and the
    /// advice that fits it. `cause` is the element the system blames for non-finite values.
    /// `message` says where; the error itself is appended.
    pub fn newton(message: String, error: &FormulationError, cause: Option<String>) -> Self {
        let (kind, advice) = match error {
            FormulationError::NonFinite if cause.is_some() => (FailureKind::NonFinite, None),
            FormulationError::NonFinite => (
                FailureKind::NonFinite,
                Some("the solution diverged; reduce the step size"),
            ),
            FormulationError::NotConverged { .. } => (
                FailureKind::NotConverged,
                Some("reduce the step size or loosen the tolerances"),
            ),
            FormulationError::Stalled { .. } => (
                FailureKind::Stalled,
                Some("a smaller step does not lower it: loosen the residual tolerance, or look for redundant or nearly dependent constraints"),
            ),
            FormulationError::SingularConfiguration { .. } => (
                FailureKind::Singular,
                Some(SINGULAR_ADVICE),
            ),
        };
        RunFailure {
            kind,
            message: format!("{message}{error}"),
            cause,
            advice: advice.map(str::to_string),
            setting: None,
        }
    }
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(c) = &self.cause {
            write!(f, ": {c}")?;
        }
        if let Some(a) = &self.advice {
            write!(f, "; {a}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RunFailure {}

/// Why an observer could not take a sample (a file that cannot be written, a value it cannot
/// record): the run ends with a [`FailureKind::Observer`] failure carrying this message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ObserverError(pub String);

impl From<std::io::Error> for ObserverError {
    fn from(e: std::io::Error) -> Self {
        ObserverError(e.to_string())
    }
}

impl From<ObserverError> for RunFailure {
    fn from(e: ObserverError) -> Self {
        RunFailure::new(FailureKind::Observer, e.0)
    }
}

impl From<KinematicError> for RunFailure {
    /// The failure of a kinematic analysis's position solve; its message is the error's own.
    fn from(e: KinematicError) -> Self {
        let kind = match e {
            KinematicError::Singular { .. } | KinematicError::DeadPoint { .. } => {
                FailureKind::Singular
            }
            KinematicError::NotConverged { .. } => FailureKind::NotConverged,
            KinematicError::Settings(_)
            | KinematicError::NotDriven { .. }
            | KinematicError::Conflicting { .. } => FailureKind::Settings,
        };
        RunFailure::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_joins_message_cause_and_advice() {
        let e = FormulationError::NotConverged {
            iterations: 3,
            correction: 1.0,
            residual: 2.0,
        };
        let f = RunFailure::newton("step from t = 1 s: ".into(), &e, None);
        assert_eq!(f.kind, FailureKind::NotConverged);
        assert_eq!(
            f.to_string(),
            format!("step from t = 1 s: {e}; reduce the step size or loosen the tolerances")
        );
        let f = RunFailure::newton(
            String::new(),
            &FormulationError::NonFinite,
            Some("driver `d`".into()),
        );
        assert_eq!(
            f.to_string(),
            "non-finite values in the Newton iteration: driver `d`"
        );
        let json = serde_json::to_string(&f).unwrap();
        assert!(
            json.contains("\"kind\":\"non_finite\"") && !json.contains("advice"),
            "{json}"
        );
    }
}
