//! The formulation registry: every formulation's entry and constructor, and the scheme × formulation
//! compatibility rule.
//!
//! Adding a formulation: write `formulation/<name>.rs` with a type that implements [`Formulation`]
//! for every [`System`] and [`Registered`], and add the type to the `formulations!` line below.

use crate::scheme::{EquationForm, SchemeInfo};
use crate::system::System;

use super::{Formulation, FormulationInfo, FormulationSettings, Positions};

/// A formulation type the registry can build.
pub trait Registered {
    /// The registry entry.
    const INFO: FormulationInfo;
    /// Work space for n coordinates and m constraints with the given settings.
    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self;
}

/// Defines [`REGISTRY`] and [`build`] from a list of formulation types.
macro_rules! formulations {
    ($($ty:ty),* $(,)?) => {
        /// All formulations, in the order `dynastep formulations` lists them.
        pub const REGISTRY: &[FormulationInfo] = &[$(<$ty as Registered>::INFO),*];

        /// Builds the formulation `name` (or an alias) for n coordinates and m constraints.
        ///
        /// # Errors
        /// [`UnknownFormulation`] when `name` is unknown; its message lists the known ones.
        pub fn build<S: System>(
            name: &str,
            n: usize,
            m: usize,
            settings: &FormulationSettings,
        ) -> Result<Box<dyn Formulation<S>>, UnknownFormulation> {
            let info = find(name).ok_or_else(|| UnknownFormulation(name.to_string()))?;
            $(
                if info.name == <$ty as Registered>::INFO.name {
                    return Ok(Box::new(<$ty as Registered>::new(n, m, settings)));
                }
            )*
            Err(UnknownFormulation(name.to_string()))
        }
    };
}

formulations!(
    super::index3::Index3,
    super::tangent_space::TangentSpace,
    super::direct::DirectIntegration,
    super::baumgarte::Baumgarte,
    super::projection::Projection,
    super::partitioning::Partitioning,
    super::hybrid::Hybrid,
);

/// A formulation name that is not in [`REGISTRY`] (nor an alias); the message lists the known
/// ones.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown formulation `{0}`; known formulations: {known} (see `dynastep formulations`)", known = known_names())]
pub struct UnknownFormulation(pub String);

/// The registered names, comma-separated.
fn known_names() -> String {
    REGISTRY
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds a formulation by name or alias (case-insensitive; `_` and `-` are equivalent).
pub fn find(name: &str) -> Option<&'static FormulationInfo> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let wanted = norm(name);
    REGISTRY
        .iter()
        .find(|f| norm(f.name) == wanted || f.aliases.iter().any(|a| norm(a) == wanted))
}

/// Why a scheme and a formulation do not work together.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("formulation `{formulation}` does not serve scheme `{scheme}`: {reason}")]
pub struct Incompatible {
    /// The scheme's registry name.
    pub scheme: &'static str,
    /// The formulation's registry name.
    pub formulation: &'static str,
    /// Why, in terms of what each declares.
    pub reason: String,
}

/// Whether `scheme` works with `formulation`, derived from the scheme's declared capabilities
/// (the form of its equations, whether it is explicit in positions) and the formulation's
/// [`SchemeRequirement`], including the schemes it refuses with evidence.
///
/// # Errors
/// [`Incompatible`], naming both and saying why.
pub fn compatible(scheme: &SchemeInfo, formulation: &FormulationInfo) -> Result<(), Incompatible> {
    let need = &formulation.schemes;
    let caps = &scheme.caps;
    let form = |f: EquationForm| match f {
        EquationForm::SecondOrder => "the second-order equations M a + Φ_qᵀλ = Q point by point",
        EquationForm::FirstOrder => "the first-order ODE y' = (v, a) in explicit stages",
    };
    let explicit = caps.explicit_in_positions;
    let reason = if caps.form != need.form {
        Some(format!(
            "it serves schemes that integrate {}, and `{}` integrates {} (see `dynastep formulations`)",
            form(need.form),
            scheme.name,
            form(caps.form)
        ))
    } else if need.positions == Positions::Implicit && explicit {
        Some("it serves only schemes implicit in positions".to_string())
    } else if need.positions == Positions::Explicit && !explicit {
        Some("it serves only schemes explicit in positions".to_string())
    } else {
        need.refused
            .iter()
            .find(|r| r.scheme == scheme.name)
            .map(|r| format!("not yet: {}", r.reason))
    };
    match reason {
        Some(reason) => Err(Incompatible {
            scheme: scheme.name,
            formulation: formulation.name,
            reason,
        }),
        None => Ok(()),
    }
}

/// Registry names of the formulations that serve `scheme`, in registry order.
pub fn formulations_for(scheme: &SchemeInfo) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|f| compatible(scheme, f).is_ok())
        .map(|f| f.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formulation::SchemeRequirement;
    use crate::scheme::REGISTRY as SCHEMES;

    #[test]
    fn every_formulation_is_found_and_built() {
        for f in REGISTRY {
            assert_eq!(find(f.name).map(|g| g.name), Some(f.name));
            let built = build::<crate::system::test_problems::LinearOscillator>(
                f.name,
                1,
                0,
                &FormulationSettings::default(),
            )
            .expect("builds");
            assert_eq!(built.name(), f.name);
        }
        assert!(build::<crate::system::test_problems::LinearOscillator>(
            "index-4",
            1,
            0,
            &FormulationSettings::default()
        )
        .is_err_and(|e| e.to_string().contains("index3")));
    }

    /// Every scheme is served by at least one formulation, and every refusal names a registered
    /// scheme that would otherwise be served.
    #[test]
    fn every_scheme_is_served_and_every_refusal_is_real() {
        for s in SCHEMES {
            assert!(
                !formulations_for(s).is_empty(),
                "{} has no formulation",
                s.name
            );
        }
        for f in REGISTRY {
            for r in f.schemes.refused {
                let s = crate::scheme::find(r.scheme).expect("a registered scheme");
                let open = FormulationInfo {
                    schemes: SchemeRequirement {
                        refused: &[],
                        ..f.schemes
                    },
                    ..*f
                };
                assert!(
                    compatible(s, &open).is_ok(),
                    "{} refuses {} twice",
                    f.name,
                    s.name
                );
                assert!(compatible(s, f).is_err());
            }
        }
    }
}
