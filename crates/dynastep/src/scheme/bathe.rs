//! The ρ∞-Bathe method: Noh & Bathe (2019), *The Bathe time integration method with controllable
//! spectral radius: the ρ∞-Bathe method*, Comput Struct 212:299–310, written as a three-stage
//! stiffly accurate ESDIRK in Zhang, Zhang, Zanoni & Masarati (2022), Multibody Syst Dyn,
//! doi:10.1007/s11044-021-09806-9 ("MSD22"), eqs. (5)–(7). The scheme is [`Esdirk`] with the tableau
//! below.
//!
//! g = 1/(2 + √(2(1 + ρ∞))) (the root in (0, ½) of 2(1 − ρ)g² − 4g + 1 = 0, equal to MSD22 eq. 7),
//! c = (0, 2g, 1), row 2 = (g, g), row 3 = b = (b1, b2, g) with b1 = −(4g² − 6g + 1)/(4g),
//! b2 = (1 − 2g)/(4g). Second order, A-stable, R(∞) = +ρ∞; ρ∞ = 0 is TR-BDF2, ρ∞ = 1 two trapezoidal
//! half steps. It is also the n = 2 member of MSSTC(n) ([`super::msstc`]).

use super::esdirk::{Esdirk, EsdirkTableau};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, Scheme};

/// The ρ∞-Bathe tableau for ρ∞ ∈ \[0, 1\] (MSD22 eq. 7).
///
/// # Panics
/// Never for ρ∞ ∈ \[0, 1\] (the construction is exact).
pub fn tableau(rho_inf: f64) -> EsdirkTableau {
    let g = 1.0 / (2.0 + (2.0 * (1.0 + rho_inf)).sqrt());
    let b1 = -(4.0 * g * g - 6.0 * g + 1.0) / (4.0 * g);
    let b2 = (1.0 - 2.0 * g) / (4.0 * g);
    let a = vec![vec![0.0, 0.0, 0.0], vec![g, g, 0.0], vec![b1, b2, g]];
    // c_3 = b1 + b2 + g = 1 up to rounding: state it exactly.
    EsdirkTableau::new(a, vec![b1, b2, g], vec![0.0, 2.0 * g, 1.0])
        .expect("the ρ∞-Bathe tableau is a valid stiffly accurate ESDIRK")
}

/// The ρ∞-Bathe scheme for ρ∞ ∈ \[0, 1\].
///
/// # Errors
/// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\].
pub fn rho_bathe(rho_inf: f64) -> Result<Esdirk, SchemeError> {
    SchemeError::check_rho_inf(INFO.name, rho_inf)?;
    let tab = tableau(rho_inf);
    let reported = vec![
        ("rho_inf", rho_inf),
        ("g", tab.diagonal()),
        ("c2", tab.c[1]),
        ("b1", tab.b[0]),
        ("b2", tab.b[1]),
    ];
    Ok(Esdirk::new(INFO.name, reported, tab))
}

/// Registry entry.
pub const INFO: SchemeInfo = SchemeInfo {
    name: "bathe",
    aliases: &["rho-bathe", "rho-inf-bathe"],
    family: "ESDIRK",
    summary: "rho_inf-Bathe two-sub-step method as a 3-stage stiffly accurate ESDIRK (two implicit stages with equal diagonal); second order, A-stable, R(inf) = +rho_inf",
    source: "Noh & Bathe (2019) Comput Struct 212:299-310; Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9, eqs. 5-7 and section 3.1",
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (0: TR-BDF2, strongest high-frequency filtering; 1: two trapezoidal half steps)",
    }],
    build: |p: &SchemeParams| Ok(Box::new(rho_bathe(param(p, "rho_inf"))?) as Box<dyn Scheme>),
    caps: Capabilities {
        order: 2,
        explicit_in_positions: false,
        unconditionally_stable: true,
        error_estimate: Some("from the stages: Taylor constants of the tableau times divided differences of the stage accelerations (scheme/bathe.rs)"),
        error_order: 3,
        variable_step: true,
        form: EquationForm::SecondOrder,
        estimate_noise: 0.0,
    },
};
