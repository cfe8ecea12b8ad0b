//! Generalized-α (Chung & Hulbert 1993) in the DAE form of Arnold & Brüls (2007), Multibody Syst Dyn
//! 18:185–202, eqs. (6)–(8): the Newmark updates act on an auxiliary acceleration a filtered from the
//! true one, `(1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n`, while the equilibrium and the
//! constraints are imposed at t_{n+1} (see [`super::newmark`]).
//!
//! Parameters from the spectral radius at infinity ρ∞ ∈ \[0, 1\] (Chung & Hulbert 1993; Arnold & Brüls 2007):
//! α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ − α_m + α_f, β = (1 − α_m + α_f)²/4.
//! Second order, unconditionally stable; ρ∞ = 1 is the trapezoidal rule.

use super::newmark::NewmarkFamily;
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::Scheme;

/// The generalized-α scheme for the given ρ∞ ∈ \[0, 1\].
///
/// # Errors
/// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\].
pub fn generalized_alpha(rho_inf: f64) -> Result<NewmarkFamily, SchemeError> {
    SchemeError::check_rho_inf(INFO.name, rho_inf)?;
    let alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
    let alpha_f = rho_inf / (rho_inf + 1.0);
    let gamma = 0.5 - alpha_m + alpha_f;
    let beta = 0.25 * (1.0 - alpha_m + alpha_f).powi(2);
    Ok(NewmarkFamily::new(
        INFO.name,
        vec![
            ("rho_inf", rho_inf),
            ("alpha_m", alpha_m),
            ("alpha_f", alpha_f),
            ("gamma", gamma),
            ("beta", beta),
        ],
        gamma,
        beta,
        alpha_m,
        alpha_f,
    ))
}

/// Registry entry.
pub const INFO: SchemeInfo = SchemeInfo {
    name: "generalized-alpha",
    aliases: &["gen-alpha", "genalpha"],
    family: "second-order single-step",
    summary: "Chung-Hulbert generalized-alpha in Arnold-Bruels DAE form; second order, unconditionally stable, spectral radius rho_inf at infinity",
    source: "Chung & Hulbert (1993) J. Appl. Mech. 60:371; Arnold & Brüls (2007) Multibody Syst Dyn 18:185, eqs. 6-8",
    params: &[ParamInfo { name: "rho_inf", default: 0.8, description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (1: no damping)" }],
    build: |p: &SchemeParams| Ok(Box::new(generalized_alpha(param(p, "rho_inf"))?) as Box<dyn Scheme>),
    caps: super::newmark::caps(2, true),
};
