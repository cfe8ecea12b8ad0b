//! MSSTC(n), n = 3, 4, 5: the multi-sub-step composite methods of Zhang, Zhang, Xing & Masarati
//! (2020), Nonlinear Dyn 102:1939–1962, compared in Zhang, Zhang, Zanoni & Masarati (2022), Multibody Syst Dyn,
//! doi:10.1007/s11044-021-09806-9, section 2.3. Each is an (n + 1)-stage stiffly accurate ESDIRK
//! ([`Esdirk`]): n − 1 trapezoidal sub-steps of length 2γ, then a general last stage.
//!
//! # Tableau
//! Nodes c = (0, 2γ, 4γ, …, 2(n − 1)γ, 1); row i (2 ≤ i ≤ n) = (γ, 2γ, …, 2γ, γ), the composite
//! trapezoidal rule up to node 2(i − 1)γ; last row = b = (q_0, …, q_{n−1}, γ).
//!
//! γ(ρ∞) is the smallest positive root of the design polynomial: second order, R(∞) = (−1)ⁿ ρ∞, and
//! the least dissipation, |R(iy)|² = 1 − (1 − ρ∞²) γ^{2n} y^{2n}/(1 + γ²y²)ⁿ. The polynomials and the
//! closed-form weights q_j are those of the methods' implementation in MBDyn
//! (`multistagestepsol_impl.cc`, written by the papers' first author), checked against the design
//! conditions to 1e-13…1e-16; the tests check the conditions again. Second order for every n
//! (b·A·c ≠ 1/6), A-stable, R(∞) = (−1)ⁿ ρ∞; ρ∞ = 1 gives n equal trapezoidal sub-steps.
//! MSSTC(2) is ρ∞-Bathe ([`super::bathe`]).

use super::esdirk::{Esdirk, EsdirkTableau};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, Scheme};

/// Coefficients (in increasing powers of γ) of the design polynomial of MSSTC(n) at ρ∞ = `rho`.
fn design_polynomial(n: usize, rho: f64) -> Vec<f64> {
    let r = rho;
    match n {
        3 => vec![1.0, -12.0, 48.0, -8.0 * (r + 9.0), 24.0 * (1.0 + r)],
        4 => vec![
            1.0,
            -32.0,
            432.0,
            -3200.0,
            14128.0 - 48.0 * r,
            768.0 * r - 37632.0,
            57728.0 - 4480.0 * r,
            11264.0 * r - 44032.0,
            64.0 * r * r - 10368.0 * r + 10304.0,
        ],
        5 => {
            let r2 = r * r;
            let r3 = r2 * r;
            vec![
                -1.0,
                80.0,
                -2960.0,
                67200.0,
                -1047040.0,
                384.0 * r + 11862400.0,
                -21120.0 * r - 100987520.0,
                522240.0 * r + 658176000.0,
                -7660800.0 * r - 3313624320.0,
                74045440.0 * r + 12903372800.0,
                -10240.0 * r2 - 494950400.0 * r - 38626406400.0,
                307200.0 * r2 + 2333818880.0 * r + 87603712000.0,
                -3809280.0 * r2 - 7759872000.0 * r - 146671411200.0,
                24985600.0 * r2 + 17824645120.0 * r + 173492224000.0,
                -91340800.0 * r2 - 26934476800.0 * r - 134217318400.0,
                -32768.0 * r3 + 176128000.0 * r2 + 24098406400.0 * r + 58281984000.0,
                163840.0 * r3 - 139509760.0 * r2 - 9674752000.0 * r - 9535078400.0,
            ]
        }
        _ => unreachable!("MSSTC(n) is defined here for n = 3, 4, 5"),
    }
}

/// The smallest positive root of the design polynomial: the first sign change on a fine grid of
/// (0, 1/(2(n − 1))), refined by bisection.
pub fn gamma(n: usize, rho_inf: f64) -> f64 {
    let p = design_polynomial(n, rho_inf);
    let eval = |g: f64| p.iter().rev().fold(0.0, |acc, &c| acc * g + c);
    let top = 1.0 / (2.0 * (n as f64 - 1.0));
    let steps = 2000;
    let mut lo = 1e-6;
    let mut hi = lo;
    for k in 1..=steps {
        hi = top * k as f64 / steps as f64;
        if eval(lo).signum() != eval(hi).signum() {
            break;
        }
        lo = hi;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if eval(mid) == 0.0 {
            return mid;
        }
        if eval(lo).signum() == eval(mid).signum() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The last-row weights q_0 … q_{n−1} (MBDyn's closed forms, integrators reference §3).
fn weights(n: usize, g: f64, r: f64) -> Vec<f64> {
    match n {
        3 => vec![
            ((2.0 * r - 6.0) * g * g + 8.0 * g - 1.0) / (8.0 * g),
            (1.0 - (1.0 + r) * g) / 2.0,
            (2.0 * (1.0 + r) * g * g - 4.0 * g + 1.0) / (8.0 * g),
        ],
        4 => {
            let d = 64.0 * g * g * (1.0 - 4.0 * g);
            let (g2, g3, g4) = (g * g, g * g * g, g.powi(4));
            vec![
                ((40.0 * r + 216.0) * g4 - (8.0 * r + 376.0) * g3 + 144.0 * g2 - 20.0 * g + 1.0)
                    / d,
                -(104.0 * (r - 1.0) * g4 - (24.0 * r - 88.0) * g3 + 16.0 * g2 - 12.0 * g + 1.0) / d,
                -(88.0 * (1.0 - r) * g4 + (24.0 * r - 216.0) * g3 + 112.0 * g2 - 20.0 * g + 1.0)
                    / d,
                (24.0 * (1.0 - r) * g4 + (8.0 * r - 72.0) * g3 + 48.0 * g2 - 12.0 * g + 1.0) / d,
            ]
        }
        5 => {
            let (g2, g3, g4, g5, g6) = (g * g, g.powi(3), g.powi(4), g.powi(5), g.powi(6));
            let d1 = 1.0 - 5.0 * g;
            let d2 = 10.0 * g2 - 5.0 * g + 0.5;
            let root = (2.0
                * (64.0 * (5.0 * r + 805.0) * g6 - 32.0 * (2.0 * r + 2050.0) * g5 + 34560.0 * g4
                    - 9600.0 * g3
                    + 1480.0 * g2
                    - 120.0 * g
                    + 4.0))
                .sqrt();
            let d3 = -(400.0 * g3 - 280.0 * g2 + 60.0 * g - 4.0 + root) / 8.0;
            let d4 = -(720.0 * g4 - 800.0 * g3 + 280.0 * g2 + (80.0 * d3 - 40.0) * g - 16.0 * d3
                + 2.0)
                / 16.0;
            let d5 = r * g5;
            vec![
                15.0 * g / 16.0 + d1 / 16.0 - d2 / (16.0 * g) + d3 / (16.0 * g2) - d4 / (16.0 * g3)
                    + d5 / (16.0 * g4),
                13.0 * g / 8.0 + d1 / 4.0 - d2 / (8.0 * g) + d4 / (8.0 * g3) - d5 / (4.0 * g4),
                g + 3.0 * d1 / 8.0 - d3 / (8.0 * g2) + 3.0 * d5 / (8.0 * g4),
                3.0 * g / 8.0 + d1 / 4.0 + d2 / (8.0 * g) - d4 / (8.0 * g3) - d5 / (4.0 * g4),
                g / 16.0
                    + d1 / 16.0
                    + d2 / (16.0 * g)
                    + d3 / (16.0 * g2)
                    + d4 / (16.0 * g3)
                    + d5 / (16.0 * g4),
            ]
        }
        _ => unreachable!("MSSTC(n) is defined here for n = 3, 4, 5"),
    }
}

/// The MSSTC(n) tableau for n ∈ {3, 4, 5} and ρ∞ ∈ \[0, 1\].
///
/// # Panics
/// For another n (a programming error); never for ρ∞ ∈ \[0, 1\].
pub fn tableau(n: usize, rho_inf: f64) -> EsdirkTableau {
    let g = gamma(n, rho_inf);
    let s = n + 1;
    let mut a = vec![vec![0.0; s]; s];
    let mut c = vec![0.0; s];
    for i in 1..n {
        c[i] = 2.0 * i as f64 * g;
        a[i][0] = g;
        a[i][1..i].fill(2.0 * g);
        a[i][i] = g;
    }
    let mut b = weights(n, g, rho_inf);
    b.push(g);
    a[n].copy_from_slice(&b);
    c[n] = 1.0;
    EsdirkTableau::new(a, b, c).expect("the MSSTC tableau is a valid stiffly accurate ESDIRK")
}

/// The MSSTC(n) scheme.
///
/// # Errors
/// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\].
fn build(name: &'static str, n: usize, p: &SchemeParams) -> Result<Box<dyn Scheme>, SchemeError> {
    let rho_inf = param(p, "rho_inf");
    SchemeError::check_rho_inf(name, rho_inf)?;
    let tab = tableau(n, rho_inf);
    let reported = vec![("rho_inf", rho_inf), ("gamma", tab.diagonal())];
    Ok(Box::new(Esdirk::new(name, reported, tab)))
}

const RHO_INF: &[ParamInfo] = &[ParamInfo {
    name: "rho_inf",
    default: 0.6,
    description:
        "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (R(∞) = (−1)ⁿ ρ∞; 1: n trapezoidal sub-steps)",
}];

const CAPS: Capabilities = Capabilities {
    order: 2,
    explicit_in_positions: false,
    unconditionally_stable: true,
    error_estimate: Some("from the stages: Taylor constants of the tableau times divided differences of the stage accelerations (scheme/esdirk.rs)"),
    error_order: 3,
    variable_step: true,
    form: EquationForm::SecondOrder,
    estimate_noise: 0.0,
};

const SOURCE: &str = "Zhang, Zhang, Xing & Masarati (2020) Nonlinear Dyn 102:1939-1962; Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9; gamma polynomial and weights as in MBDyn multistagestepsol_impl.cc";

/// Registry entry of MSSTC(3).
pub const MSSTC3: SchemeInfo = SchemeInfo {
    name: "msstc3",
    aliases: &["msstc-3"],
    family: "ESDIRK",
    summary: "MSSTC(3): 4 stages, two trapezoidal sub-steps and a general last stage; second order, A-stable, R(inf) = -rho_inf, least dissipation",
    source: SOURCE,
    params: RHO_INF,
    build: |p: &SchemeParams| build(MSSTC3.name, 3, p),
    caps: CAPS,
};

/// Registry entry of MSSTC(4).
pub const MSSTC4: SchemeInfo = SchemeInfo {
    name: "msstc4",
    aliases: &["msstc-4"],
    family: "ESDIRK",
    summary: "MSSTC(4): 5 stages, three trapezoidal sub-steps and a general last stage; second order, A-stable, R(inf) = +rho_inf, least dissipation",
    source: SOURCE,
    params: RHO_INF,
    build: |p: &SchemeParams| build(MSSTC4.name, 4, p),
    caps: CAPS,
};

/// Registry entry of MSSTC(5).
pub const MSSTC5: SchemeInfo = SchemeInfo {
    name: "msstc5",
    aliases: &["msstc-5"],
    family: "ESDIRK",
    summary: "MSSTC(5): 6 stages, four trapezoidal sub-steps and a general last stage; second order, A-stable, R(inf) = -rho_inf, least dissipation",
    source: SOURCE,
    params: RHO_INF,
    build: |p: &SchemeParams| build(MSSTC5.name, 5, p),
    caps: CAPS,
};
