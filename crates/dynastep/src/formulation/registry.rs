//! The formulation registry: every formulation's entry and constructor, and the scheme × formulation
//! compatibility rule.
//!
//! Adding a formulation: write `formulation/<name>.rs` with a type that implements [`Formulation`]
//! for every [`System`] and [`Registered`], and add the type to the `formulations!` line below.

use crate::scheme::SchemeInfo;
use crate::system::System;

use super::{Formulation, FormulationInfo, FormulationSettings, SchemeRequirement};

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
        /// A message naming the known formulations when `name` is unknown.
        pub fn build<S: System>(
            name: &str,
            n: usize,
            m: usize,
            settings: &FormulationSettings,
        ) -> Result<Box<dyn Formulation<S>>, String> {
            let info = find(name).ok_or_else(|| unknown(name))?;
            $(
                if info.name == <$ty as Registered>::INFO.name {
                    return Ok(Box::new(<$ty as Registered>::new(n, m, settings)));
                }
            )*
            Err(unknown(name))
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

fn unknown(name: &str) -> String {
    let known: Vec<&str> = REGISTRY.iter().map(|f| f.name).collect();
    format!(
        "unknown formulation `{name}`; known formulations: {} (see `dynastep formulations`)",
        known.join(", ")
    )
}

/// Finds a formulation by name or alias (case-insensitive; `_` and `-` are equivalent).
pub fn find(name: &str) -> Option<&'static FormulationInfo> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let wanted = norm(name);
    REGISTRY
        .iter()
        .find(|f| norm(f.name) == wanted || f.aliases.iter().any(|a| norm(a) == wanted))
}

/// Whether `scheme` works with `formulation`, from their declarations: the scheme lists the
/// formulation, and the formulation accepts the scheme's shape.
///
/// # Errors
/// A sentence saying why not, naming both.
pub fn compatible(scheme: &SchemeInfo, formulation: &FormulationInfo) -> Result<(), String> {
    if !scheme.caps.formulations.contains(&formulation.name) {
        return Err(format!(
            "scheme `{}` does not work with formulation `{}` (it works with: {})",
            scheme.name,
            formulation.name,
            if scheme.caps.formulations.is_empty() {
                "none".to_string()
            } else {
                scheme.caps.formulations.join(", ")
            }
        ));
    }
    let explicit = scheme.caps.explicit_in_positions;
    let refused = match formulation.schemes {
        SchemeRequirement::Any => None,
        SchemeRequirement::ImplicitInPositions if explicit => Some("implicit in positions"),
        SchemeRequirement::ExplicitInPositions if !explicit => Some("explicit in positions"),
        _ => None,
    };
    match refused {
        Some(need) => Err(format!(
            "formulation `{}` serves only schemes {need}; `{}` is not",
            formulation.name, scheme.name
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        .is_err_and(|e| e.contains("index3")));
    }

    #[test]
    fn every_scheme_names_only_registered_formulations() {
        for s in SCHEMES {
            for f in s.caps.formulations {
                assert!(
                    find(f).is_some(),
                    "{} names unknown formulation {f}",
                    s.name
                );
            }
        }
    }
}
