//! The formulation registry: every formulation's entry and constructor, and the scheme × formulation
//! compatibility rule.
//!
//! Adding a formulation: write `formulation/<name>.rs` with a type that implements [`Formulation`]
//! for every [`System`] and [`Registered`], and add the type to the `formulations!` line below.

pub use crate::catalog::{compatible, find, formulations_for, Incompatible, UnknownFormulation};
use crate::system::System;

use super::{Formulation, FormulationInfo, FormulationSettings};

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
        /// All formulations, in the order `dynastep formulations` lists them: the catalog's
        /// entries ([`crate::catalog::FORMULATIONS`]), each built by the type that declares it.
        pub const REGISTRY: &[FormulationInfo] = crate::catalog::FORMULATIONS;

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
    super::stabilized_index2::StabilizedIndex2,
    super::tangent_space::TangentSpace,
    super::direct::DirectIntegration,
    super::baumgarte::Baumgarte,
    super::projection::Projection,
    super::partitioning::Partitioning,
    super::hybrid::Hybrid,
);

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
