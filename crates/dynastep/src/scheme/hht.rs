//! HHT-α (Hilber, Hughes & Taylor 1977), Earthq. Eng. Struct. Dyn. 5:283, as the member α_m = 0,
//! α_f = −α of the generalized-α family in the DAE form of Arnold & Brüls (2007), Multibody Syst Dyn
//! 18:185, eqs. (6)–(8):
//!
//! ```text
//! M(q_{n+1}) q̈_{n+1} + (Φ_qᵀλ − Q)_{n+1} = 0,   Φ(q_{n+1}) = 0,
//! a_{n+1} = (1 + α) q̈_{n+1} − α q̈_n            (the acceleration the Newmark updates take)
//! ```
//!
//! with γ = (1 − 2α)/2, β = (1 − α)²/4 and α ∈ \[−⅓, 0\]. Spectral radius at infinity
//! ρ∞ = (1 + α)/(1 − α) ∈ \[½, 1\]. The scheme accepts either `alpha` or `rho_inf`; `rho_inf`, when
//! given, takes precedence through α = (ρ∞ − 1)/(ρ∞ + 1).
//!
//! # Why not the force-weighted form
//!
//! The index-3 HHT of Negrut, Rampalli, Ottarsson & Sajdak (2007), J. Comput. Nonlinear Dyn.
//! 2:73–85, eq. (11), weights the forces instead:
//! `M(q_{n+1}) a_{n+1} + (1 + α)(Φ_qᵀλ − Q)_{n+1} − α (Φ_qᵀλ − Q)_n = 0`. When M is constant the two
//! forms give the same steps: multiplying the filter above by M and using the equations at t_n and
//! t_{n+1} gives eq. (11) with the same λ. When M depends on q they do not: eq. (11) leaves
//! α (M_{n+1} − M_n) q̈_n = O(h) in the inertia balance of every step, and the scheme falls to
//! first order. Euler parameters make M = 4GᵀJ′G depend on q, so the weighted form damped a
//! torque-free rotor spinning at 200 rad/s by 28 J of its 100 J in 0.2 s at h = 1e-3, halving
//! with h (`tests/invariants.rs` checks second order on that rotor); planar models, whose M is
//! constant, were unaffected.

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
        -alpha,
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
    summary: "Hilber-Hughes-Taylor alpha as generalized-alpha with alpha_m = 0 (Arnold-Bruels DAE form); second order, rho_inf in [1/2, 1]",
    source: "Hilber, Hughes & Taylor (1977) Earthq. Eng. Struct. Dyn. 5:283; Arnold & Brüls (2007) Multibody Syst Dyn 18:185, eqs. 6-8 with alpha_m = 0, alpha_f = -alpha",
    params: &[
        ParamInfo { name: "alpha", default: -0.1, description: "α in [−1/3, 0]; 0 is the trapezoidal rule" },
        ParamInfo { name: "rho_inf", default: -1.0, description: "alternative to alpha: ρ∞ in [1/2, 1]; a negative value means unset" },
    ],
    build,
    // The equations hold at t_{n+1} with the true q̈_{n+1}, as in generalized-α, so the tangent-space
    // formulation takes it too (the force-weighted form's q̈ belonged to a shifted time and was first
    // order there).
    caps: super::newmark::caps(2, true),
};
