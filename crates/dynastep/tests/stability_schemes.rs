//! Linear stability of every scheme, measured by applying the scheme itself to ẍ + 2ξωẋ + ω²x = 0
//! (dynastep::analysis::stability), against the published oracles (Newmark 1959, Hilber et al. 1977, Chung & Hulbert 1993, Zhang et al. 2021/2022,
//! Noh & Bathe 2019).

use dynastep::analysis::stability::{
    amplification_matrix, analyse, log_grid, write_csv, StabilityReport,
};
use dynastep::scheme::SchemeParams;

fn params(p: &[(&str, f64)]) -> SchemeParams {
    p.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn report(scheme: &str, p: &[(&str, f64)], from: f64, to: f64, count: usize) -> StabilityReport {
    analyse(scheme, &params(p), 0.0, &log_grid(from, to, count)).unwrap()
}

#[test]
fn conditionally_stable_limits() {
    for (scheme, p, expected) in [
        ("central-difference", vec![], 2.0),
        ("central-difference-reformulated", vec![], 2.0),
        ("fox-goodwin", vec![], 6.0_f64.sqrt()),
        ("linear-acceleration", vec![], 2.0 * 3.0_f64.sqrt()),
        (
            "newmark",
            vec![("gamma", 0.5), ("beta", 0.2)],
            1.0 / (0.25_f64 - 0.2).sqrt(),
        ),
    ] {
        let r = report(scheme, &p, 1e-2, 1e2, 41);
        let crit = r.omega_crit.expect(scheme);
        println!(
            "{scheme}: Omega_crit = {crit:.12} (expected {expected:.12}, error {:.2e}), history dimension {}, rho(1e8) = {:.3e}",
            crit - expected,
            r.history_dimension,
            r.rho_inf
        );
        assert!(
            (crit - expected).abs() < 1e-6,
            "{scheme}: {crit} vs {expected}"
        );
        assert!(r.rho_inf > 1.0, "{scheme}");
    }
}

#[test]
fn unconditionally_stable_with_rho_inf() {
    for (scheme, p, rho_inf) in [
        ("trapezoidal", vec![], 1.0),
        ("generalized-alpha", vec![("rho_inf", 0.6)], 0.6),
        ("hht", vec![("rho_inf", 0.6)], 0.6),
        ("lms2", vec![("rho_inf", 0.6)], 0.6),
        ("bathe", vec![("rho_inf", 0.6)], 0.6),
        ("lms2", vec![("rho_inf", 0.0)], 0.0),
        ("bathe", vec![("rho_inf", 0.0)], 0.0),
    ] {
        let r = report(scheme, &p, 1e-3, 1e6, 181);
        let max_rho = r
            .points
            .iter()
            .map(|p| p.spectral_radius)
            .fold(0.0, f64::max);
        println!(
            "{scheme} {p:?}: max rho on [1e-3, 1e6] = {max_rho:.12}, rho_inf = {:.9}, history dimension {}",
            r.rho_inf, r.history_dimension
        );
        assert!(r.omega_crit.is_none(), "{scheme}: {:?}", r.omega_crit);
        assert!(max_rho <= 1.0 + 1e-7, "{scheme}: {max_rho}");
        // The roots at infinity coincide (LMS2: the double root of σ(E) = b0 (E + ρ)², Zhang et al.
        // 2021, in q and in v; generalized-α: three), so single computed eigenvalues are off by about
        // ε^(1/k); ρ∞ comes from the cluster means (stability::cluster_mean_radius) and is exact to
        // rounding.
        let tol = 1e-9;
        assert!(
            (r.rho_inf - rho_inf).abs() < tol,
            "{scheme}: rho_inf {}",
            r.rho_inf
        );
    }
}

/// Published limits: LMS2's roots all tend to −ρ∞; Bathe's R(∞) = +ρ∞; generalized-α's three
/// eigenvalues to −ρ∞; HHT's to −ρ∞, −ρ∞ and α/(1 + α).
#[test]
fn eigenvalues_at_infinity() {
    let rho = 0.6;
    let p = params(&[("rho_inf", rho)]);
    let ev = |scheme: &str| {
        let a = amplification_matrix(scheme, &p, 0.0, 1e8).unwrap();
        let mut e: Vec<_> = a.complex_eigenvalues().iter().copied().collect();
        e.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
        println!("{scheme}: eigenvalues at Omega = 1e8: {e:?}");
        e
    };
    let lms = ev("lms2");
    let big: Vec<_> = lms.iter().filter(|z| z.norm() > 0.05).collect();
    assert_eq!(
        big.len(),
        4,
        "LMS2: four roots of the two-step recursion in q and v"
    );
    for z in big {
        assert!(
            (z.re + rho).abs() < 1e-3 && z.im.abs() < 1e-3,
            "LMS2 root {z}"
        );
    }
    let bathe = ev("bathe");
    assert!(
        (bathe[0].re - rho).abs() < 1e-6 && bathe[0].im.abs() < 1e-6,
        "Bathe {:?}",
        bathe[0]
    );
    let ga = ev("generalized-alpha");
    let big: Vec<_> = ga.iter().filter(|z| z.norm() > 0.05).collect();
    assert_eq!(big.len(), 3);
    for z in big {
        assert!(
            (z.re + rho).abs() < 1e-3 && z.im.abs() < 1e-3,
            "generalized-alpha {z}"
        );
    }
    let hht = ev("hht");
    let alpha = (rho - 1.0) / (rho + 1.0);
    assert!(hht
        .iter()
        .any(|z| (z.re - alpha / (1.0 + alpha)).abs() < 1e-6 && z.im.abs() < 1e-6));
}

/// Low-frequency accuracy against the classical results: relative frequency error −Ω²/12 (trapezoidal),
/// +Ω²/24 (central differences), O(Ω⁴) (Fox–Goodwin); no amplitude error for γ = ½.
#[test]
fn period_elongation_and_amplitude_decay_at_small_omega() {
    let w = 0.05;
    for (scheme, freq_err) in [
        ("trapezoidal", -w * w / 12.0),
        ("central-difference-reformulated", w * w / 24.0),
        ("fox-goodwin", 0.0),
    ] {
        let r = analyse(scheme, &SchemeParams::new(), 0.0, &[w]).unwrap();
        let p = &r.points[0];
        let pe = p.period_elongation.unwrap();
        let ad = p.amplitude_decay.unwrap();
        // ω̄/ω − 1 = 1/(1 + PE) − 1.
        let measured = 1.0 / (1.0 + pe) - 1.0;
        println!("{scheme}: PE = {pe:.6e}, AD = {ad:.3e}, frequency error {measured:.6e} (expected {freq_err:.6e})");
        assert!(ad.abs() < 1e-9, "{scheme}: amplitude decay {ad}");
        assert!(
            (measured - freq_err).abs() < 0.02 * w * w / 12.0,
            "{scheme}: {measured}"
        );
    }
    // Dissipative schemes damp, with ξ̄ ∝ Ω³ at small Ω (second order).
    for scheme in ["generalized-alpha", "lms2", "bathe"] {
        let p = params(&[("rho_inf", 0.6)]);
        let r = analyse(scheme, &p, 0.0, &[0.01, 0.02]).unwrap();
        let (a1, a2) = (
            r.points[0].amplitude_decay.unwrap(),
            r.points[1].amplitude_decay.unwrap(),
        );
        let slope = (a2 / a1).log2();
        println!("{scheme}: AD(0.01) = {a1:.3e}, AD(0.02) = {a2:.3e}, slope {slope:.3}");
        assert!(
            a1 > 0.0 && (slope - 3.0).abs() < 0.1,
            "{scheme}: slope {slope}"
        );
    }
}

#[test]
fn errors_are_reported() {
    assert!(analyse("nope", &SchemeParams::new(), 0.0, &[1.0]).is_err());
    assert!(analyse("trapezoidal", &SchemeParams::new(), -1.0, &[1.0]).is_err());
    assert!(analyse("trapezoidal", &SchemeParams::new(), 0.0, &[0.0]).is_err());
    assert!(analyse("trapezoidal", &SchemeParams::new(), 0.0, &[]).is_err());
}

#[test]
fn csv_writer_has_one_row_per_scheme_and_omega() {
    let omegas = log_grid(1e-2, 1e2, 9);
    let reports = vec![
        analyse("central-difference", &SchemeParams::new(), 0.0, &omegas).unwrap(),
        analyse("bathe", &SchemeParams::new(), 0.05, &omegas).unwrap(),
    ];
    let mut buf = Vec::new();
    write_csv(&reports, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert_eq!(text.lines().count(), 1 + 2 * omegas.len());
    assert!(text.starts_with("scheme,parameters,xi,omega_h,spectral_radius"));
}
