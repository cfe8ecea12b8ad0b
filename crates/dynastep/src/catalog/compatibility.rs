//! Whether a scheme and a formulation work together, derived from what each declares: the
//! scheme's [`crate::scheme::Capabilities`] (the form of its equations, whether it is explicit in
//! positions) and the formulation's [`SchemeRequirement`](super::SchemeRequirement). Schemes name
//! no formulation.

use crate::scheme::{EquationForm, SchemeInfo};

use super::{FormulationInfo, Positions, FORMULATIONS};

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
/// [`SchemeRequirement`](super::SchemeRequirement), including the schemes it refuses with evidence.
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
    FORMULATIONS
        .iter()
        .filter(|f| compatible(scheme, f).is_ok())
        .map(|f| f.name)
        .collect()
}
