//! The scheme registry: every scheme's name, parameters with defaults, source, and constructor.

use std::collections::BTreeMap;

use super::{Capabilities, Scheme};

/// Parameter values given by the user, by name (e.g. `rho_inf = 0.6`).
pub type SchemeParams = BTreeMap<String, f64>;

/// One parameter of a scheme.
#[derive(Debug, Clone, Copy)]
pub struct ParamInfo {
    /// Name as given on the command line (`--param NAME=VALUE`) or in a model file.
    pub name: &'static str,
    /// Default value.
    pub default: f64,
    /// Meaning and admissible range.
    pub description: &'static str,
}

/// A registry entry.
#[derive(Debug, Clone, Copy)]
pub struct SchemeInfo {
    /// Registry name (lower case, hyphenated).
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// Family: "second-order single-step", "linear multistep", "single step with auxiliary variables",
    /// "ESDIRK", "conditionally explicit".
    pub family: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Paper and equations implemented.
    pub source: &'static str,
    /// Parameters with defaults.
    pub params: &'static [ParamInfo],
    /// Builds the scheme from validated parameter values (every entry of `params` present).
    pub build: fn(&SchemeParams) -> Result<Box<dyn Scheme>, SchemeError>,
    /// What the scheme can do (order, explicitness, error estimate, variable steps, formulations).
    pub caps: Capabilities,
}

/// Errors in choosing or configuring a scheme.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemeError {
    /// No scheme of that name.
    #[error("unknown scheme `{name}`; known schemes: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// The scheme has no parameter of that name.
    #[error("scheme `{scheme}` has no parameter `{param}`; its parameters: {known}")]
    UnknownParameter {
        /// Scheme name.
        scheme: String,
        /// Parameter asked for.
        param: String,
        /// Its parameters.
        known: String,
    },
    /// A parameter value is out of range.
    #[error("scheme `{scheme}`: parameter `{param}` = {value} is out of range: {reason}")]
    OutOfRange {
        /// Scheme name.
        scheme: String,
        /// Parameter.
        param: String,
        /// Value given.
        value: f64,
        /// Admissible range.
        reason: String,
    },
}

impl SchemeError {
    /// Checks a spectral radius at infinity ρ∞ ∈ \[0, 1\] for scheme `scheme`.
    ///
    /// # Errors
    /// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\] (or NaN).
    pub fn check_rho_inf(scheme: &str, rho_inf: f64) -> Result<(), Self> {
        if (0.0..=1.0).contains(&rho_inf) {
            Ok(())
        } else {
            Err(Self::out_of_range(
                scheme,
                "rho_inf",
                rho_inf,
                "ρ∞ must lie in [0, 1]",
            ))
        }
    }

    /// Convenience constructor for [`SchemeError::OutOfRange`].
    pub fn out_of_range(scheme: &str, param: &str, value: f64, reason: &str) -> Self {
        SchemeError::OutOfRange {
            scheme: scheme.into(),
            param: param.into(),
            value,
            reason: reason.into(),
        }
    }
}

/// All schemes, in the order `dynastep schemes` lists them.
pub const REGISTRY: &[SchemeInfo] = &[
    super::newmark::TRAPEZOIDAL,
    super::newmark::FOX_GOODWIN,
    super::newmark::LINEAR_ACCELERATION,
    super::newmark::NEWMARK,
    super::hht::INFO,
    super::generalized_alpha::INFO,
    super::lms::LMS2,
    super::lms::LMS3,
    super::lms::LMS4,
    super::single_step::SS2,
    super::single_step::SS3,
    super::single_step::SS4,
    super::bathe::INFO,
    super::msstc::MSSTC3,
    super::msstc::MSSTC4,
    super::msstc::MSSTC5,
    super::mssth::MSSTH3,
    super::mssth::MSSTH4,
    super::mssth::MSSTH5,
    super::kennedy_carpenter::ESDIRK324,
    super::kennedy_carpenter::ESDIRK325,
    super::kennedy_carpenter::ESDIRK436,
    super::central_difference::CLASSICAL,
    super::central_difference::REFORMULATED,
    super::central_difference::G3,
    super::higher_degree::G4,
    super::higher_degree::G5,
    super::runge_kutta::RK3_INFO,
    super::runge_kutta::RK4_INFO,
    super::runge_kutta::RKF45_INFO,
    super::runge_kutta::DOPRI5_INFO,
    super::adams::INFO,
];

/// Finds a scheme by name or alias ([`names_match`]).
pub fn find(name: &str) -> Option<&'static SchemeInfo> {
    REGISTRY
        .iter()
        .find(|s| names_match(name, s.name, s.aliases))
}

/// Whether `wanted` names the registry entry `name` with `aliases`: case-insensitive, `_` and `-`
/// equivalent (the rule of every registry: schemes, formulations).
pub fn names_match(wanted: &str, name: &str, aliases: &[&str]) -> bool {
    same_name(wanted, name) || aliases.iter().any(|a| same_name(wanted, a))
}

/// `a` and `b` equal after ASCII lower-casing and `_` → `-`, compared byte by byte: both maps keep
/// every byte's length, and comparing in place allocates nothing (a run's validation and start-up
/// look names up hundreds of times; normalizing copies cost about 400 k instructions of the
/// pendulum's 5 M, callgrind, 2026-11-29).
fn same_name(a: &str, b: &str) -> bool {
    let canon = |c: u8| {
        if c == b'_' {
            b'-'
        } else {
            c.to_ascii_lowercase()
        }
    };
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| canon(x) == canon(y))
}

/// Builds the scheme `name` with the given parameters; missing parameters take their defaults.
///
/// # Errors
/// [`SchemeError::Unknown`] for an unknown name, [`SchemeError::UnknownParameter`] for a parameter the
/// scheme does not have, [`SchemeError::OutOfRange`] for an inadmissible value.
pub fn build(name: &str, given: &SchemeParams) -> Result<Box<dyn Scheme>, SchemeError> {
    let info = find(name).ok_or_else(|| SchemeError::Unknown {
        name: name.into(),
        known: REGISTRY
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let mut values = SchemeParams::new();
    for p in info.params {
        values.insert(p.name.to_string(), p.default);
    }
    for (k, v) in given {
        if !values.contains_key(k) {
            let known = if info.params.is_empty() {
                "none".to_string()
            } else {
                info.params
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(SchemeError::UnknownParameter {
                scheme: info.name.into(),
                param: k.clone(),
                known,
            });
        }
        if !v.is_finite() {
            return Err(SchemeError::out_of_range(
                info.name,
                k,
                *v,
                "must be a finite number",
            ));
        }
        values.insert(k.clone(), *v);
    }
    (info.build)(&values)
}

/// Reads a parameter that [`build`] guarantees to be present.
pub(crate) fn param(p: &SchemeParams, name: &str) -> f64 {
    p.get(name).copied().unwrap_or(f64::NAN)
}

/// The `start` parameter of the schemes that offer two starts (G4, G5, SS-k): `Ok(true)` for 1, the
/// consistent start, `Ok(false)` for 0, the paper's.
///
/// # Errors
/// [`SchemeError::OutOfRange`] for any other value.
pub(crate) fn start_choice(scheme: &'static str, p: &SchemeParams) -> Result<bool, SchemeError> {
    let x = param(p, "start");
    if x == 0.0 || x == 1.0 {
        Ok(x == 1.0)
    } else {
        Err(SchemeError::out_of_range(
            scheme,
            "start",
            x,
            "must be 0 (the paper's start) or 1 (consistent start, from the equations of motion)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert_eq!(find(a.name).unwrap().name, a.name);
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
        assert!(find("Generalized_Alpha").is_some());
        assert!(matches!(
            build("nope", &SchemeParams::new()),
            Err(SchemeError::Unknown { .. })
        ));
        let mut p = SchemeParams::new();
        p.insert("zeta".into(), 1.0);
        assert!(matches!(
            build("generalized-alpha", &p),
            Err(SchemeError::UnknownParameter { .. })
        ));
    }

    /// ASCII case and `_`/`-` are ignored; nothing else is: a different length or letter does not
    /// match, nor a non-ASCII letter in another case (as with `to_ascii_lowercase`).
    #[test]
    fn names_match_ignores_case_and_separators_only() {
        assert!(names_match("Generalized_ALPHA", "generalized-alpha", &[]));
        assert!(names_match("ga", "generalized-alpha", &["g-a", "GA"]));
        assert!(!names_match("generalized-alph", "generalized-alpha", &[]));
        assert!(!names_match("generalized alpha", "generalized-alpha", &[]));
        assert!(!names_match("ssb", "ss2", &["ss-2"]));
        assert!(names_match("ÉSDIRK", "Ésdirk", &[]));
        assert!(!names_match("Ésdirk", "ésdirk", &[]));
    }
}
