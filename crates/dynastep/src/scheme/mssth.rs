//! MSSTH(n), n = 3, 4, 5: the higher-order multi-sub-step methods of Zhang, Zhang, Zanoni & Masarati
//! (2022), Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9 ("MSD22"), Appendix, eqs. (30)–(35)
//! and Table 7. Each is an (n + 1)-stage stiffly accurate ESDIRK ([`Esdirk`]) of order n with a
//! trapezoidal first sub-step (row 2 = (γ, γ)), stage order 2 and tunable ρ∞: R(∞) = +ρ∞ for n = 3, 4
//! and −ρ∞ for n = 5.
//!
//! # Parameters
//! - MSSTH(3): γ is the middle root of 6(1 − ρ∞)γ³ − 18γ² + 9γ − 1 = 0 (R(∞) = ρ∞) and
//!   c3 = (24γ² − 20γ + 3)/(24γ² − 24γ + 4) (eq. 31). **MSD22 Table 7's column "MSSTH(3): γ" lists
//!   MSSTC(3)'s γ instead** (0.18043 at ρ∞ = 0): with it the tableau has R(∞) = 2.07 and is not
//!   A-stable. dynastep uses the cubic's root, as MBDyn does; docs/schemes.md shows both.
//! - MSSTH(4): (γ, c3, c4) from Table 7, which tabulates them at ρ∞ = 0, 0.1, …, 1 (c3 and c4
//!   minimise ‖σ⁽⁵⁾‖₂; the minimisation is not redone here), so other ρ∞ are refused.
//! - MSSTH(5): (γ, c4) from Table 7 at the same ρ∞, c3 = 0.1, and c5 = η3/η4 (eq. 34h; MBDyn's
//!   tabulated c5 differs by 5e-15 and breaks fifth order at that level).
//!
//! No embedded weights are published, and the Taylor estimate of second-order tableaus vanishes at
//! order ≥ 3, so the family has no local error estimate (fixed steps only).

use super::esdirk::{Esdirk, EsdirkTableau};
use super::registry::{param, ParamInfo, SchemeError, SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, Scheme};

/// MSD22 Table 7: ρ∞, then MSSTH(4) γ, c3, c4, then MSSTH(5) γ, c4 (the published digits).
#[allow(clippy::excessive_precision)]
const TABLE7: [[f64; 6]; 11] = [
    [
        0.0,
        0.5728160624821350133117903,
        0.5590985754229417305152542,
        0.7414011664833654036144139,
        0.2780538411364499307154574,
        0.9673258605571696255864822,
    ],
    [
        0.1,
        0.5483666449758298755412511,
        0.6002938888698324121975147,
        0.7584129875780372120885886,
        0.2741413060318684813410073,
        0.9085500184865173967097007,
    ],
    [
        0.2,
        0.5263864568423862744239727,
        0.6385228144891605953328610,
        0.7731436659604612460228168,
        0.2704598867745817702967770,
        0.8510912674088796370241994,
    ],
    [
        0.3,
        0.5063301189707819505159136,
        0.6752454071331807752264900,
        0.7860312064122737529814344,
        0.2669780439256505544243225,
        0.7951780419709296721109126,
    ],
    [
        0.4,
        0.4877974748123480863704060,
        0.7116626313535582440037008,
        0.7972514819203143643377985,
        0.2636702317116055294121679,
        0.7409689864721386021173544,
    ],
    [
        0.5,
        0.4704805776216768320452388,
        0.7489373901316857945701066,
        0.8067140747427041791439706,
        0.2605154166070549059952555,
        0.6885609787040850582329199,
    ],
    [
        0.6,
        0.4541307850365287057670116,
        0.7884370115210036155119526,
        0.8139662529419134928687640,
        0.2574960298566747463056004,
        0.6379972790560722861741283,
    ],
    [
        0.7,
        0.4385361899021925080610629,
        0.8321495959968309360981758,
        0.8179301032006714988753515,
        0.2545972081701334821524085,
        0.5892756783804685705163706,
    ],
    [
        0.8,
        0.4235037660671788772859259,
        0.8836585039419085905336449,
        0.8162478946500242305006623,
        0.2518062311838496492022443,
        0.5423562209596147765111596,
    ],
    [
        0.9,
        0.4088418661206993376389107,
        0.9508833135343227253337252,
        0.8036295352568830763217989,
        0.2491120965296297062874231,
        0.4971683414199104533715001,
    ],
    [
        1.0,
        0.3943375672974065437870195,
        1.0534803411702867301702400,
        0.7689305362617052663765094,
        0.2465051931428201559270974,
        0.4536172576687555468843982,
    ],
];

/// The Table 7 row of ρ∞ (within 1e-12), or `None` when ρ∞ is not tabulated.
pub fn table7(rho_inf: f64) -> Option<&'static [f64; 6]> {
    TABLE7.iter().find(|row| (row[0] - rho_inf).abs() < 1e-12)
}

/// γ of MSSTH(3): the root in \[0.3, 0.5\] of 6(1 − ρ∞)γ³ − 18γ² + 9γ − 1 (bisection).
pub fn gamma3(rho_inf: f64) -> f64 {
    let f = |g: f64| ((6.0 * (1.0 - rho_inf) * g - 18.0) * g + 9.0) * g - 1.0;
    let (mut lo, mut hi) = (0.3, 0.5);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Row 3 (a31, a32) with stage order 2, common to the three members.
fn row3(g: f64, c3: f64) -> (f64, f64) {
    let a32 = c3 * (c3 - 2.0 * g) / (4.0 * g);
    (c3 - g - a32, a32)
}

/// The MSSTH(3) tableau (eqs. 30–31) for γ.
pub fn tableau3(g: f64) -> EsdirkTableau {
    let c3 = (24.0 * g * g - 20.0 * g + 3.0) / (24.0 * g * g - 24.0 * g + 4.0);
    let (a31, a32) = row3(g, c3);
    let b2 = (3.0 * c3 + 6.0 * g - 6.0 * c3 * g - 2.0) / (12.0 * g * (c3 - 2.0 * g));
    let b3 = (6.0 * g * g - 6.0 * g + 1.0) / (3.0 * c3 * (c3 - 2.0 * g));
    let b1 = 1.0 - g - b2 - b3;
    assemble(
        &[&[g, g], &[a31, a32, g], &[b1, b2, b3, g]],
        &[0.0, 2.0 * g, c3, 1.0],
    )
}

/// The MSSTH(4) tableau (eqs. 32–33) for γ, c3, c4.
pub fn tableau4(g: f64, c3: f64, c4: f64) -> EsdirkTableau {
    let (a31, a32) = row3(g, c3);
    let (g2, g3) = (g * g, g * g * g);
    let eta1 = 48.0 * (1.0 - c4) * g3
        + 8.0 * (3.0 * c3 * c3 - 6.0 * c3 + 9.0 * c4 - 5.0) * g2
        + 6.0 * (-4.0 * c3 * c3 + 6.0 * c3 - 4.0 * c4 + 1.0) * g
        + 4.0 * c3 * c3
        - 5.0 * c3
        + 2.0 * c4;
    let eta2 = 48.0 * (1.0 - c3) * g3
        + 8.0 * (3.0 * c3 * c3 + 3.0 * c3 - 5.0) * g2
        + 6.0 * (-4.0 * c3 * c3 + 2.0 * c3 + 1.0) * g
        + 4.0 * c3 * c3
        - 3.0 * c3;
    let a42 = c4 * (c4 - 2.0 * g) * eta1 / (4.0 * g * eta2);
    let a43 = (c4 * c4 - 4.0 * a42 * g - 2.0 * c4 * g) / (2.0 * c3);
    let a41 = c4 - g - a42 - a43;
    let b2 = -(12.0 * (c3 * c4 - c3 - c4 + 1.0) * g + 4.0 * c3 + 4.0 * c4 - 6.0 * c3 * c4 - 3.0)
        / (24.0 * g * (c3 - 2.0 * g) * (c4 - 2.0 * g));
    let b3 = (24.0 * (c4 - 1.0) * g2 + 4.0 * (5.0 - 6.0 * c4) * g + 4.0 * c4 - 3.0)
        / (12.0 * c3 * (c4 - c3) * (c3 - 2.0 * g));
    let b4 = -(24.0 * (c3 - 1.0) * g2 + 4.0 * (5.0 - 6.0 * c3) * g + 4.0 * c3 - 3.0)
        / (12.0 * c4 * (c4 - c3) * (c4 - 2.0 * g));
    let b1 = 1.0 - g - b2 - b3 - b4;
    assemble(
        &[
            &[g, g],
            &[a31, a32, g],
            &[a41, a42, a43, g],
            &[b1, b2, b3, b4, g],
        ],
        &[0.0, 2.0 * g, c3, c4, 1.0],
    )
}

/// η6 of eq. (35) for the node pair (x, y); η8 and η9 are the same form with other pairs.
fn eta_pair(g: f64, x: f64, y: f64) -> f64 {
    120.0 * (x + y - x * y - 1.0) * g * g
        + 10.0 * (12.0 * x * y - 10.0 * y - 10.0 * x + 9.0) * g
        + 15.0 * x
        + 15.0 * y
        - 20.0 * x * y
        - 12.0
}

/// c5 = η3/η4 of MSSTH(5) (eq. 34h) for γ and c3.
pub fn c5_of(g: f64, c3: f64) -> f64 {
    let gp = |k: i32| g.powi(k);
    let eta3 = -720.0 * gp(5) + (360.0 * c3 + 848.0) * gp(4) - (336.0 * c3 + 368.0) * gp(3)
        + (120.0 * c3 + 64.0) * gp(2)
        - (18.0 * c3 + 4.0) * g
        + c3;
    let eta4 = -480.0 * gp(5) + (240.0 * c3 + 600.0) * gp(4) - (240.0 * c3 + 288.0) * gp(3)
        + (96.0 * c3 + 56.0) * gp(2)
        - (16.0 * c3 + 4.0) * g
        + c3;
    eta3 / eta4
}

/// The MSSTH(5) tableau (eqs. 34–35) for γ, c3, c4 (c5 = η3/η4).
pub fn tableau5(g: f64, c3: f64, c4: f64) -> EsdirkTableau {
    let c5 = c5_of(g, c3);
    let (a31, a32) = row3(g, c3);
    let gp = |k: i32| g.powi(k);
    let eta1 = 240.0 * (1.0 - c4) * gp(4)
        + 40.0 * (3.0 * c3 * c3 - 6.0 * c3 + 12.0 * c4 - 7.0) * gp(3)
        + 20.0 * (-9.0 * c3 * c3 + 13.0 * c3 - 12.0 * c4 + 4.0) * gp(2)
        + (60.0 * c3 * c3 - 70.0 * c3 + 40.0 * c4 - 6.0) * g
        - 5.0 * c3 * c3
        + 5.0 * c3
        - 2.0 * c4;
    let eta2 = 120.0 * (1.0 - c3) * gp(3)
        + 20.0 * (9.0 * c3 - 7.0) * gp(2)
        + 20.0 * (2.0 - 3.0 * c3) * g
        + 5.0 * c3
        - 3.0;
    let eta5 = 120.0 * (-c4 * c4 + 2.0 * c4 - c3 - c5 + c3 * c5) * gp(3)
        + 20.0 * (9.0 * c4 * c4 - 15.0 * c4 + 8.0 * c3 + 7.0 * c5 - 9.0 * c3 * c5) * gp(2)
        + 10.0 * (-6.0 * c4 * c4 + 9.0 * c4 - 5.0 * c3 - 4.0 * c5 + 6.0 * c3 * c5) * g
        + 5.0 * c4 * c4
        - 7.0 * c4
        + 4.0 * c3
        + 3.0 * c5
        - 5.0 * c3 * c5;
    let (eta6, eta7) = (eta_pair(g, c3, c4), eta2);
    let (eta8, eta9, eta10) = (eta_pair(g, c4, c5), eta_pair(g, c3, c5), eta6);
    let a42 = -c4 * (c4 - 2.0 * g) * eta1 / (4.0 * g * (c3 - 2.0 * g) * eta2);
    let a43 = (c4 * c4 - 4.0 * a42 * g - 2.0 * c4 * g) / (2.0 * c3);
    let a41 = c4 - g - a42 - a43;
    let a53 = c5 * (c5 - c3) * (c5 - 2.0 * g) * eta5 / (c3 * (c4 - c3) * (c3 - 2.0 * g) * eta6);
    let a54 = c5 * (c5 - c3) * (c5 - c4) * (c5 - 2.0 * g) * eta7
        / (c4 * (c4 - c3) * (c4 - 2.0 * g) * eta6);
    let a52 = (c5 * c5 - 2.0 * a53 * c3 - 2.0 * a54 * c4 - 2.0 * c5 * g) / (4.0 * g);
    let a51 = c5 - g - a52 - a53 - a54;
    let b3 = -eta8 / (60.0 * c3 * (c4 - c3) * (c5 - c3) * (c3 - 2.0 * g));
    let b4 = eta9 / (60.0 * c4 * (c4 - c3) * (c5 - c4) * (c4 - 2.0 * g));
    let b5 = -eta10 / (60.0 * c5 * (c5 - c3) * (c5 - c4) * (c5 - 2.0 * g));
    let b2 = (1.0 - 2.0 * g - 2.0 * b3 * c3 - 2.0 * b4 * c4 - 2.0 * b5 * c5) / (4.0 * g);
    let b1 = 1.0 - g - b2 - b3 - b4 - b5;
    assemble(
        &[
            &[g, g],
            &[a31, a32, g],
            &[a41, a42, a43, g],
            &[a51, a52, a53, a54, g],
            &[b1, b2, b3, b4, b5, g],
        ],
        &[0.0, 2.0 * g, c3, c4, c5, 1.0],
    )
}

/// A checked stiffly accurate tableau from the rows below the explicit first one.
fn assemble(lower: &[&[f64]], c: &[f64]) -> EsdirkTableau {
    EsdirkTableau::stiffly_accurate(lower, c)
        .expect("an MSSTH tableau is a valid stiffly accurate ESDIRK")
}

/// The MSSTH(n) tableau for n ∈ {3, 4, 5} at ρ∞.
///
/// # Errors
/// [`SchemeError::OutOfRange`] when ρ∞ is outside \[0, 1\], or, for n = 4, 5, not one of the values
/// Table 7 tabulates (0, 0.1, …, 1).
///
/// # Panics
/// For another n (a programming error).
pub fn tableau(name: &str, n: usize, rho_inf: f64) -> Result<EsdirkTableau, SchemeError> {
    SchemeError::check_rho_inf(name, rho_inf)?;
    if n == 3 {
        return Ok(tableau3(gamma3(rho_inf)));
    }
    let row = table7(rho_inf).ok_or_else(|| {
        SchemeError::out_of_range(
            name,
            "rho_inf",
            rho_inf,
            "MSSTH(4) and MSSTH(5) take their nodes from MSD22 Table 7, which tabulates them at ρ∞ = 0, 0.1, 0.2, …, 1 only (the optimisation that produced them is not implemented)",
        )
    })?;
    Ok(match n {
        4 => tableau4(row[1], row[2], row[3]),
        5 => tableau5(row[4], 0.1, row[5]),
        _ => unreachable!("MSSTH(n) is defined for n = 3, 4, 5"),
    })
}

fn build(name: &'static str, n: usize, p: &SchemeParams) -> Result<Box<dyn Scheme>, SchemeError> {
    let rho_inf = param(p, "rho_inf");
    let tab = tableau(name, n, rho_inf)?;
    let mut reported = vec![("rho_inf", rho_inf), ("gamma", tab.diagonal())];
    for (k, name) in ["c3", "c4", "c5"].iter().enumerate().take(n - 2) {
        reported.push((name, tab.c[k + 2]));
    }
    Ok(Box::new(Esdirk::new(name, reported, tab)))
}

const fn caps(order: u32) -> Capabilities {
    Capabilities {
        order,
        explicit_in_positions: false,
        unconditionally_stable: true,
        error_estimate: None,
        error_order: 0,
        variable_step: true,
        // Not yet in the tangent space: on the double four-bar at h = 1e-3 s their stages' Newton
        // iteration stops converging near the mechanism's singular passages (t ≈ 1.23, 2.66, 6.54 s),
        // though they run Andrews' squeezer and the pendulum (docs/tangent_space.md).
        form: EquationForm::SecondOrder,
        estimate_noise: 0.0,
    }
}

const SOURCE: &str = "Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9, Appendix eqs. 30-35 and Table 7 (MSSTH(3) gamma from R(inf) = rho_inf, not Table 7)";

/// Registry entry of MSSTH(3).
pub const MSSTH3: SchemeInfo = SchemeInfo {
    name: "mssth3",
    aliases: &["mssth-3"],
    family: "ESDIRK",
    summary: "MSSTH(3): 4 stages, third order, A-stable, R(inf) = +rho_inf, stage order 2",
    source: SOURCE,
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description: "spectral radius at infinity, 0 ≤ ρ∞ ≤ 1 (R(∞) = +ρ∞; 0: L-stable)",
    }],
    build: |p: &SchemeParams| build(MSSTH3.name, 3, p),
    caps: caps(3),
};

/// Registry entry of MSSTH(4).
pub const MSSTH4: SchemeInfo = SchemeInfo {
    name: "mssth4",
    aliases: &["mssth-4"],
    family: "ESDIRK",
    summary: "MSSTH(4): 5 stages, fourth order, A-stable, R(inf) = +rho_inf, stage order 2",
    source: SOURCE,
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description:
            "spectral radius at infinity, one of 0, 0.1, …, 1 (the values of MSD22 Table 7)",
    }],
    build: |p: &SchemeParams| build(MSSTH4.name, 4, p),
    caps: caps(4),
};

/// Registry entry of MSSTH(5).
pub const MSSTH5: SchemeInfo = SchemeInfo {
    name: "mssth5",
    aliases: &["mssth-5"],
    family: "ESDIRK",
    summary: "MSSTH(5): 6 stages, fifth order, A-stable, R(inf) = -rho_inf, stage order 2",
    source: SOURCE,
    params: &[ParamInfo {
        name: "rho_inf",
        default: 0.6,
        description:
            "spectral radius at infinity, one of 0, 0.1, …, 1 (the values of MSD22 Table 7)",
    }],
    build: |p: &SchemeParams| build(MSSTH5.name, 5, p),
    caps: caps(5),
};
