//! The L-stable, stiffly accurate ESDIRK pairs of Kennedy & Carpenter (2019), *Diagonally implicit
//! Runge–Kutta methods for stiff ODEs*, Appl Numer Math 146:221–244, used by Zhang, Zhang, Zanoni &
//! Masarati (2022), Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9, section 2.3:
//!
//! - ESDIRK3(2)4L\[2\]SA: order 3, four stages, embedded order 2; γ the root near 0.4359 of
//!   6γ³ − 18γ² + 9γ − 1 = 0, c = (0, 2γ, 3/5, 1);
//! - ESDIRK3(2)5L\[2\]SA: order 3, five stages, embedded order 2; γ = 9/40, exact in √2;
//! - ESDIRK4(3)6L\[2\]SA2: order 4, six stages, embedded order 3; γ = 31/125, rational coefficients
//!   (the paper's Table 9 values, accurate to about 1e-26).
//!
//! All have stage order 2 ("\[2\]"), R(∞) = 0, and no parameter. The schemes are [`Esdirk`] with
//! these tableaus; the embedded weights give the local error estimate.

use super::esdirk::{Esdirk, EsdirkTableau};
use super::registry::{SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, Scheme};

/// Builds and checks a stiffly accurate tableau with embedded weights.
fn stiffly_accurate(lower: &[&[f64]], c: &[f64], b_hat: &[f64]) -> EsdirkTableau {
    EsdirkTableau::stiffly_accurate(lower, c)
        .and_then(|t| t.with_embedded(b_hat.to_vec()))
        .expect("a Kennedy–Carpenter tableau is a valid stiffly accurate ESDIRK")
}

/// ESDIRK3(2)4L\[2\]SA, from its closed form (γ by Newton's method on 6γ³ − 18γ² + 9γ − 1 = 0).
pub fn esdirk324() -> EsdirkTableau {
    let mut g: f64 = 0.4358665215;
    for _ in 0..4 {
        g -= (((6.0 * g - 18.0) * g + 9.0) * g - 1.0) / ((18.0 * g - 36.0) * g + 9.0);
    }
    let c3 = 0.6;
    let a32 = c3 * (c3 - 2.0 * g) / (4.0 * g);
    let a31 = c3 - g - a32;
    let b2 = (-2.0 + 3.0 * c3 + 6.0 * g * (1.0 - c3)) / (12.0 * g * (c3 - 2.0 * g));
    let b3 = (1.0 - 6.0 * g + 6.0 * g * g) / (3.0 * c3 * (c3 - 2.0 * g));
    let b1 = 1.0 - g - b2 - b3;
    let (g2, g3, g4, g5) = (g * g, g.powi(3), g.powi(4), g.powi(5));
    let p = 1.0 - 6.0 * g + 6.0 * g2;
    let bh2 = c3 * (-1.0 + 6.0 * g - 24.0 * g3 + 12.0 * g4 - 6.0 * g5)
        / (4.0 * g * (2.0 * g - c3) * p)
        + (3.0 - 27.0 * g + 68.0 * g2 - 55.0 * g3 + 21.0 * g4 - 6.0 * g5)
            / (2.0 * (2.0 * g - c3) * p);
    let bh3 = -g * (-2.0 + 21.0 * g - 68.0 * g2 + 79.0 * g3 - 33.0 * g4 + 12.0 * g5)
        / (c3 * (c3 - 2.0 * g) * p);
    let bh4 = -3.0 * g2 * (-1.0 + 4.0 * g - 2.0 * g2 + g3) / p;
    let bh1 = 1.0 - bh2 - bh3 - bh4;
    stiffly_accurate(
        &[&[g, g], &[a31, a32, g], &[b1, b2, b3, g]],
        &[0.0, 2.0 * g, c3, 1.0],
        &[bh1, bh2, bh3, bh4],
    )
}

/// ESDIRK3(2)5L\[2\]SA, exact in √2.
pub fn esdirk325() -> EsdirkTableau {
    let s2 = std::f64::consts::SQRT_2;
    let g = 9.0 / 40.0;
    let a31 = 9.0 * (1.0 + s2) / 80.0;
    let a41 = (22.0 + 15.0 * s2) / (80.0 * (1.0 + s2));
    let a43 = -7.0 / (40.0 * (1.0 + s2));
    let b1 = (2398.0 + 1205.0 * s2) / (2835.0 * (4.0 + 3.0 * s2));
    let b3 = -2374.0 * (1.0 + 2.0 * s2) / (2835.0 * (5.0 + 3.0 * s2));
    let b4 = 5827.0 / 7560.0;
    let bh1 = (5547709.0 * s2 - 4800247.0) / 16519545.0;
    let bh3 = 11095418.0 * (1.0 - s2) / 16519545.0;
    let bh4 = 30698249.0 / 44052120.0;
    let bh5 = 49563.0 / 233080.0;
    stiffly_accurate(
        &[
            &[g, g],
            &[a31, a31, g],
            &[a41, a41, a43, g],
            &[b1, b1, b3, b4, g],
        ],
        &[0.0, 2.0 * g, 9.0 * (2.0 + s2) / 40.0, 0.6, 1.0],
        &[bh1, bh1, bh3, bh4, bh5],
    )
}

/// ESDIRK4(3)6L\[2\]SA2 from the published rationals.
pub fn esdirk436() -> EsdirkTableau {
    let g = 31.0 / 125.0;
    let a31 = -360286518617.0 / 7014585480527.0;
    let a41 = -506388693497.0 / 5937754990171.0;
    let a43 = 7149918333491.0 / 13390931526268.0;
    let a51 = -7628305438933.0 / 11061539393788.0;
    let a53 = 21592626537567.0 / 14352247503901.0;
    let a54 = 11630056083252.0 / 17263101053231.0;
    let b1 = -12917657251.0 / 5222094901039.0;
    let b3 = 5602338284630.0 / 15643096342197.0;
    let b4 = 9002339615474.0 / 18125249312447.0;
    let b5 = -2420307481369.0 / 24731958684496.0;
    let bh1 = -1007911106287.0 / 12117826057527.0;
    let bh3 = 17694008993113.0 / 35931961998873.0;
    let bh4 = 5816803040497.0 / 11256217655929.0;
    let bh5 = -538664890905.0 / 7490061179786.0;
    // b̂6 from the sum (its published rational 2032560730450/8872919773257 agrees to 1e-26).
    let bh6 = 1.0 - 2.0 * bh1 - bh3 - bh4 - bh5;
    let lower: [&[f64]; 5] = [
        &[g, g],
        &[a31, a31, g],
        &[a41, a41, a43, g],
        &[a51, a51, a53, a54, g],
        &[b1, b1, b3, b4, b5, g],
    ];
    // The nodes are the row sums (the published c agree with them to 3e-26).
    let c: Vec<f64> = std::iter::once(0.0)
        .chain(lower.iter().map(|r| r.iter().sum::<f64>()))
        .collect();
    let mut c = c;
    let last = c.len() - 1;
    c[last] = 1.0;
    stiffly_accurate(&lower, &c, &[bh1, bh1, bh3, bh4, bh5, bh6])
}

/// Capabilities shared by the three pairs, but for the order.
const fn caps(order: u32) -> Capabilities {
    Capabilities {
        order,
        explicit_in_positions: false,
        unconditionally_stable: true,
        error_estimate: Some(
            "embedded pair: difference of the order-p and order-(p-1) solutions (Kennedy & Carpenter 2019), filtered through the last stage's iteration matrix (Shampine; Hairer & Wanner 1996, Solving ODEs II, sec. IV.8)",
        ),
        error_order: order,
        variable_step: true,
        // Not yet in the tangent space: on the double four-bar at h = 1e-3 s their stages' Newton
        // iteration stops converging near the mechanism's singular passages (t ≈ 1.23, 2.66, 6.54 s),
        // though they run Andrews' squeezer and the pendulum (docs/tangent_space.md).
        form: EquationForm::SecondOrder,
        estimate_noise: 0.0,
    }
}

fn build(name: &'static str, tableau: EsdirkTableau) -> Box<dyn Scheme> {
    Box::new(Esdirk::new(
        name,
        vec![("gamma", tableau.diagonal())],
        tableau,
    ))
}

/// Registry entry of ESDIRK3(2)4L\[2\]SA.
pub const ESDIRK324: SchemeInfo = SchemeInfo {
    name: "esdirk3-4",
    aliases: &["esdirk324l2sa", "kc3-4", "dirk33"],
    family: "ESDIRK",
    summary: "Kennedy-Carpenter ESDIRK3(2)4L[2]SA: 4 stages (3 implicit), order 3, L-stable, stiffly accurate, embedded order 2",
    source: "Kennedy & Carpenter (2019) Appl Numer Math 146:221-244, ESDIRK3(2)4L[2]SA; used in Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9",
    params: &[],
    build: |_: &SchemeParams| Ok(build(ESDIRK324.name, esdirk324())),
    caps: caps(3),
};

/// Registry entry of ESDIRK3(2)5L\[2\]SA.
pub const ESDIRK325: SchemeInfo = SchemeInfo {
    name: "esdirk3-5",
    aliases: &["esdirk325l2sa", "kc3-5", "dirk43"],
    family: "ESDIRK",
    summary: "Kennedy-Carpenter ESDIRK3(2)5L[2]SA: 5 stages (4 implicit), order 3, L-stable, stiffly accurate, embedded order 2",
    source: "Kennedy & Carpenter (2019) Appl Numer Math 146:221-244, ESDIRK3(2)5L[2]SA; used in Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9",
    params: &[],
    build: |_: &SchemeParams| Ok(build(ESDIRK325.name, esdirk325())),
    caps: caps(3),
};

/// Registry entry of ESDIRK4(3)6L\[2\]SA2.
pub const ESDIRK436: SchemeInfo = SchemeInfo {
    name: "esdirk4-6",
    aliases: &["esdirk436l2sa2", "kc4-6", "dirk54"],
    family: "ESDIRK",
    summary: "Kennedy-Carpenter ESDIRK4(3)6L[2]SA2: 6 stages (5 implicit), order 4, L-stable, stiffly accurate, embedded order 3",
    source: "Kennedy & Carpenter (2019) Appl Numer Math 146:221-244, ESDIRK4(3)6L[2]SA2 (Table 9 rationals); used in Zhang, Zhang, Zanoni & Masarati (2022) Multibody Syst Dyn, doi:10.1007/s11044-021-09806-9",
    params: &[],
    build: |_: &SchemeParams| Ok(build(ESDIRK436.name, esdirk436())),
    caps: caps(4),
};
