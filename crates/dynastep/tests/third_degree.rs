//! The third-degree conditionally explicit method G3(α, β) of Fernández de Bustos, Uriarte, Urkullu
//! & Coria (2024), Mathematics 12:2862, section 4, against the paper: its stability limits (Table 3,
//! from the characteristic polynomial eq. 38), its energy drift on the one-angle pendulum (Table 2),
//! its order (eq. 28: second for β = ½, first otherwise), and G3(1, ½) = reformulated central
//! differences.

#[path = "common/angle_pendulum.rs"]
mod angle_pendulum;

use dynastep::analysis::stability::{analyse, log_grid};
use dynastep::scheme::{build, SchemeParams};

fn params(alpha: f64, beta: f64) -> SchemeParams {
    [("alpha".to_string(), alpha), ("beta".to_string(), beta)]
        .into_iter()
        .collect()
}

/// Max |E − E₀| over 10 s of the one-angle pendulum (the paper's Tables 1–2).
fn energy_drift(scheme: &str, p: &SchemeParams, h: f64) -> f64 {
    angle_pendulum::energy_drift(scheme, p, h, 10.0)
}

/// Table 3 and the text after eq. 38: Ω_crit = 2, √(12/5), √(4/3) for α = 1, 4/3, 2 (β = ½).
#[test]
fn stability_limits_are_those_of_table_3() {
    for (alpha, exact) in [
        (1.0, 2.0),
        (4.0 / 3.0, (12.0_f64 / 5.0).sqrt()),
        (2.0, (4.0_f64 / 3.0).sqrt()),
    ] {
        let r = analyse("g3", &params(alpha, 0.5), 0.0, &log_grid(1e-2, 1e2, 60)).unwrap();
        let crit = r.omega_crit.expect("conditionally stable");
        println!(
            "G3({alpha:.4}, 1/2): Omega_crit {crit:.6} (paper {exact:.6}), history {}",
            r.history_dimension
        );
        assert!(
            (crit - exact).abs() < 1e-6 * exact,
            "α = {alpha}: {crit} vs {exact}"
        );
    }
}

/// Table 2 (max energy drift [J] over 10 s), the rows h = 1e-3, 1e-4, 1e-5 for α = 4/3 and 2; the
/// α = 1 column is the reformulated method (tests/central_difference_cancellation.rs).
#[test]
fn pendulum_energy_drift_is_that_of_table_2() {
    let paper = [
        (4.0 / 3.0, [1.27955e-5, 1.21061e-7, 1.20584e-9]),
        (2.0, [3.85689e-6, 3.99453e-8, 4.00588e-10]),
    ];
    for (alpha, values) in paper {
        for (h, want) in [1e-3, 1e-4, 1e-5].into_iter().zip(values) {
            let got = energy_drift("g3", &params(alpha, 0.5), h);
            println!("G3({alpha:.4}, 1/2) h = {h:e}: {got:.6e} J (paper {want:.6e})");
            assert!(
                (got - want).abs() < 0.02 * want,
                "α = {alpha}, h = {h}: {got} vs {want}"
            );
        }
    }
}

/// G3(1, ½) is the reformulated central-difference method, operation for operation.
#[test]
fn g3_with_alpha_1_is_the_reformulated_central_difference() {
    let g3 = energy_drift("g3", &params(1.0, 0.5), 1e-3);
    let cd = energy_drift(
        "central-difference-reformulated",
        &SchemeParams::new(),
        1e-3,
    );
    assert_eq!(g3.to_bits(), cd.to_bits(), "{g3} vs {cd}");
}

/// Eq. 28: the velocity error is O(h²(β − ½)) per step, so β ≠ ½ converges at first order.
#[test]
fn beta_other_than_one_half_is_first_order() {
    let p = params(4.0 / 3.0, 0.6);
    let (e3, e4) = (energy_drift("g3", &p, 1e-3), energy_drift("g3", &p, 1e-4));
    let order = (e3 / e4).log10();
    println!("G3(4/3, 0.6): {e3:.3e} -> {e4:.3e} J, observed order {order:.3}");
    assert!((order - 1.0).abs() < 0.1, "order {order}");
    assert!(
        build("g3", &params(1.0, -0.6)).is_err(),
        "β + α/2 ≤ 0 is refused"
    );
}

/// The h = 1e-6 row of Table 2 (10⁷ steps per set, a few seconds each): dynastep follows the h²
/// law from the 1e-5 row, where the paper's values sit at its rounding floor of about 1e-11 J
/// (docs/schemes.md). Run with `cargo test -p dynastep --test third_degree -- --ignored`.
#[test]
#[ignore]
fn table_2_at_1e_6() {
    for (alpha, paper) in [(4.0 / 3.0, 1.07274e-11), (2.0, 1.00879e-11)] {
        let p = params(alpha, 0.5);
        let (e5, e6) = (energy_drift("g3", &p, 1e-5), energy_drift("g3", &p, 1e-6));
        println!("G3({alpha:.4}, 1/2) h = 1e-6: {e6:.6e} J (paper {paper:.6e}); 1e-5: {e5:.6e} J");
        assert!((e5 / e6 - 100.0).abs() < 2.0, "h² law: {e5} -> {e6}");
    }
}
