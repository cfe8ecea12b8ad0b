//! HHT-α (Hilber, Hughes & Taylor 1977) in the index-3 form of Negrut, Rampalli, Ottarsson & Sajdak
//! (2007), J. Comput. Nonlinear Dyn. 2:73–85, eq. (11):
//!
//! ```text
//! M q̈_{n+1} + (1 + α)(Φ_qᵀλ − Q)_{n+1} − α (Φ_qᵀλ − Q)_n = 0,   Φ(q_{n+1}) = 0
//! ```
//!
//! with the Newmark updates γ = (1 − 2α)/2, β = (1 − α)²/4 and α ∈ \[−⅓, 0\]. Spectral radius at infinity
//! ρ∞ = (1 + α)/(1 − α) ∈ \[½, 1\] (Hilber, Hughes & Taylor 1977). The scheme accepts either `alpha`
//! or `rho_inf`; `rho_inf`, when given, takes precedence through α = (ρ∞ − 1)/(ρ∞ + 1).

use super::newmark::NewmarkFamily;
use super::registry::{ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::Scheme;

/// HHT with the given α ∈ \[−⅓, 0\].
///
/// # Errors
/// [`SchemeError::OutOfRange`] when α is outside \[−⅓, 0\].
pub fn hht(alpha: f64) -> Result<NewmarkFamily, SchemeError> {
    if !(-1.0 / 3.0 - 1e-12..=0.0).contains(&alpha) {
        return Err(SchemeError::out_of_range(
            INFO.name,
            "alpha",
            alpha,
            "α must lie in [−1/3, 0] (ρ∞ in [1/2, 1])",
        ));
    }
    let gamma = 0.5 - alpha;
    let beta = 0.25 * (1.0 - alpha).powi(2);
    let rho_inf = (1.0 + alpha) / (1.0 - alpha);
    Ok(NewmarkFamily::new(
        INFO.name,
        vec![
            ("alpha", alpha),
            ("rho_inf", rho_inf),
            ("gamma", gamma),
            ("beta", beta),
        ],
        gamma,
        beta,
        0.0,
        0.0,
        alpha,
    ))
}

fn build(p: &SchemeParams) -> Result<Box<dyn Scheme>, SchemeError> {
    let alpha = match p.get("rho_inf") {
        Some(&rho) if rho.is_finite() && rho >= 0.0 => {
            if !(0.5..=1.0).contains(&rho) {
                return Err(SchemeError::out_of_range(
                    INFO.name,
                    "rho_inf",
                    rho,
                    "HHT reaches only ρ∞ in [1/2, 1]",
                ));
            }
            (rho - 1.0) / (rho + 1.0)
        }
        _ => p.get("alpha").copied().unwrap_or(-0.1),
    };
    Ok(Box::new(hht(alpha)?))
}

/// Registry entry. `rho_inf` defaults to −1, meaning "not given: use alpha".
pub const INFO: SchemeInfo = SchemeInfo {
    name: "hht",
    aliases: &["hht-alpha"],
    family: "second-order single-step",
    summary: "Hilber-Hughes-Taylor alpha, index-3 form with weighted force terms; second order, rho_inf in [1/2, 1]",
    source: "Hilber, Hughes & Taylor (1977) Earthq. Eng. Struct. Dyn. 5:283; Negrut et al. (2007) J. Comput. Nonlinear Dyn. 2:73, eq. 11",
    params: &[
        ParamInfo { name: "alpha", default: -0.1, description: "α in [−1/3, 0]; 0 is the trapezoidal rule" },
        ParamInfo { name: "rho_inf", default: -1.0, description: "alternative to alpha: ρ∞ in [1/2, 1]; a negative value means unset" },
    ],
    build,
    // Not in the tangent space: HHT balances the forces of two time levels, so its q̈_{n+1} belongs to
    // a shifted time, and imposing the acceleration constraint at t_{n+1} on it (as the tangent-space
    // formulation does) makes the scheme first order (measured on Andrews' squeezer: crank-angle
    // error 5.5e-2, 2.8e-2, 1.4e-2 rad at h = 2e-5, 1e-5, 5e-6 s; docs/tangent_space.md).
    caps: super::Capabilities {
        formulations: &["index3"],
        ..super::newmark::caps(2, true)
    },
};
