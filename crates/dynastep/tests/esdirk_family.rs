//! The ESDIRK family (ρ∞-Bathe, MSSTC(n), MSSTH(n), the Kennedy–Carpenter pairs), generated from the
//! registry: every scheme of family "ESDIRK" is checked, so a new tableau is tested by adding its
//! registry line.
//!
//! - Tableau: the Runge–Kutta order conditions (all 17 trees up to order 5) hold to the declared
//!   order and fail at the next; embedded weights have order p − 1.
//! - Stability (the stability tool, which applies the scheme itself): ρ∞ against the oracle of each
//!   family (R(∞) = +ρ∞ for Bathe, MSSTH(3), MSSTH(4); (−1)ⁿ ρ∞ for MSSTC(n); −ρ∞ for MSSTH(5);
//!   0 for the L-stable pairs), no stability limit, spectral radius ≤ 1.
//! - MSSTC's least-dissipation identity |R(iy)|² = 1 − (1 − ρ²) γ^{2n} y^{2n}/(1 + γ²y²)ⁿ.
//! - Measured order on the pendulum ODE (the declared order) and on the Cartesian pendulum DAE
//!   (positions: at least 2).

#[path = "common/pendulum.rs"]
mod pendulum;
use pendulum::rk4_pendulum;

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, RunStatus};
use dynastep::analysis::stability::{analyse, log_grid};
use dynastep::formulation::NewtonSettings;
use dynastep::scheme::esdirk::EsdirkTableau;
use dynastep::scheme::{build, kennedy_carpenter, msstc, mssth, SchemeParams, State, REGISTRY};
use dynastep::system::test_problems::CartesianPendulum;
use dynastep::Vector;

type Vec64 = Vec<f64>;

fn mat_vec(a: &[Vec64], x: &[f64]) -> Vec64 {
    a.iter()
        .map(|row| row.iter().zip(x).map(|(p, q)| p * q).sum())
        .collect()
}

fn hadamard(x: &[f64], y: &[f64]) -> Vec64 {
    x.iter().zip(y).map(|(p, q)| p * q).collect()
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(p, q)| p * q).sum()
}

/// max |Φ(t) − 1/γ(t)| over the trees of each order 1..=5 (Butcher 2008, §31), for weights `b`.
fn order_residuals(t: &EsdirkTableau, b: &[f64]) -> [f64; 5] {
    let (a, c) = (&t.a, &t.c);
    let s = c.len();
    let one = vec![1.0; s];
    let c2 = hadamard(c, c);
    let c3 = hadamard(&c2, c);
    let ac = mat_vec(a, c);
    let ac2 = mat_vec(a, &c2);
    let aac = mat_vec(a, &ac);
    let conds: [(usize, f64, f64); 17] = [
        (1, dot(b, &one), 1.0),
        (2, dot(b, c), 1.0 / 2.0),
        (3, dot(b, &c2), 1.0 / 3.0),
        (3, dot(b, &ac), 1.0 / 6.0),
        (4, dot(b, &c3), 1.0 / 4.0),
        (4, dot(b, &hadamard(c, &ac)), 1.0 / 8.0),
        (4, dot(b, &ac2), 1.0 / 12.0),
        (4, dot(b, &aac), 1.0 / 24.0),
        (5, dot(b, &hadamard(&c3, c)), 1.0 / 5.0),
        (5, dot(b, &hadamard(&c2, &ac)), 1.0 / 10.0),
        (5, dot(b, &hadamard(c, &ac2)), 1.0 / 15.0),
        (5, dot(b, &hadamard(c, &aac)), 1.0 / 30.0),
        (5, dot(b, &hadamard(&ac, &ac)), 1.0 / 20.0),
        (5, dot(b, &mat_vec(a, &c3)), 1.0 / 20.0),
        (5, dot(b, &mat_vec(a, &hadamard(c, &ac))), 1.0 / 40.0),
        (5, dot(b, &mat_vec(a, &ac2)), 1.0 / 60.0),
        (5, dot(b, &mat_vec(a, &aac)), 1.0 / 120.0),
    ];
    let mut r = [0.0; 5];
    for (order, phi, target) in conds {
        r[order - 1] = f64::max(r[order - 1], (phi - target).abs());
    }
    r
}

/// The order of the conditions that hold to `tol` (all orders up to it), at most 5.
fn order_of(res: &[f64; 5], tol: f64) -> usize {
    res.iter().take_while(|&&r| r < tol).count()
}

/// Every ESDIRK tableau of the registry, built from the modules (with the registry's order).
fn tableaus() -> Vec<(String, EsdirkTableau, u32)> {
    let order = |name: &str| REGISTRY.iter().find(|s| s.name == name).unwrap().caps.order;
    let mut v = vec![
        ("esdirk3-4".to_string(), kennedy_carpenter::esdirk324()),
        ("esdirk3-5".to_string(), kennedy_carpenter::esdirk325()),
        ("esdirk4-6".to_string(), kennedy_carpenter::esdirk436()),
        ("bathe".to_string(), dynastep::scheme::bathe::tableau(0.6)),
    ];
    for rho in [0.0, 0.6, 1.0] {
        for n in 3..=5 {
            v.push((format!("msstc{n}"), msstc::tableau(n, rho)));
            v.push((
                format!("mssth{n}"),
                mssth::tableau("mssth", n, rho).unwrap(),
            ));
        }
    }
    let esdirk_names: Vec<&str> = REGISTRY
        .iter()
        .filter(|s| s.family == "ESDIRK")
        .map(|s| s.name)
        .collect();
    for name in &esdirk_names {
        assert!(
            v.iter().any(|(n, _)| n == name),
            "registry ESDIRK `{name}` has no tableau in this test"
        );
    }
    v.into_iter()
        .map(|(n, t)| {
            let p = order(&n);
            (n, t, p)
        })
        .collect()
}

#[test]
fn tableaus_meet_their_order_conditions_and_no_more() {
    for (name, t, p) in tableaus() {
        let res = order_residuals(&t, &t.b);
        let got = order_of(&res, 1e-11);
        let show = |r: &[f64; 5]| r.map(|x| format!("{x:.0e}")).join(" ");
        println!(
            "{name}: residuals by order {}, order {got} (declared {p})",
            show(&res)
        );
        assert_eq!(got, p as usize, "{name}: residuals {res:?}");
        if let Some(b_hat) = &t.b_hat {
            let res_hat = order_residuals(&t, b_hat);
            let got_hat = order_of(&res_hat, 1e-11);
            println!("  embedded: {}, order {got_hat}", show(&res_hat));
            assert_eq!(got_hat, p as usize - 1, "{name} embedded: {res_hat:?}");
        }
        // Stage order 2: Σ_j a_ij c_j = c_i²/2 for every stage.
        let ac = mat_vec(&t.a, &t.c);
        for (i, (x, ci)) in ac.iter().zip(&t.c).enumerate() {
            assert!((x - ci * ci / 2.0).abs() < 1e-11, "{name}: stage {i}");
        }
    }
}

/// The MBDyn/MSD22 values of γ (integrators reference §3, §4.2; MSSTC(5)'s root is limited by the
/// conditioning of its degree-16 polynomial in floating point).
#[test]
#[allow(clippy::excessive_precision)] // the published digits
fn gamma_matches_the_published_values() {
    for (n, rho, expected, tol) in [
        (3, 0.0, 0.18042530642939856413, 1e-14),
        (3, 0.6, 0.17124861859069150781, 1e-14),
        (4, 0.0, 0.13137873673046613252, 1e-12),
        (4, 0.6, 0.12713926590208381389, 1e-12),
        (5, 0.0, 0.10355710892021487664, 1e-10),
        (5, 0.6, 0.10119611507318119947, 1e-10),
        (5, 1.0, 0.1, 1e-10),
    ] {
        let g = msstc::gamma(n, rho);
        println!("MSSTC({n}) rho {rho}: gamma {g:.17} (published {expected:.17})");
        assert!((g - expected).abs() < tol, "MSSTC({n}) {rho}: {g}");
    }
    for (rho, expected) in [
        (0.0, 0.43586652150845899942),
        (0.6, 0.36614281010334742694),
        (1.0, 1.0 / 3.0),
    ] {
        assert!(
            (mssth::gamma3(rho) - expected).abs() < 1e-14,
            "MSSTH(3) {rho}"
        );
    }
    // MSSTH(5): c5 = η3/η4 against the 50-digit value at ρ∞ = 0.
    let c5 = mssth::c5_of(0.2780538411364499307154574, 0.1);
    assert!((c5 - 1.140134263244149805).abs() < 1e-13, "{c5}");
}

/// The stability function R(iy) of a tableau, by forward substitution on (I − zA) K = 1.
fn r_of_iy(t: &EsdirkTableau, y: f64) -> (f64, f64) {
    type C = (f64, f64);
    let mul = |a: C, b: C| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
    let div = |a: C, b: C| {
        let d = b.0 * b.0 + b.1 * b.1;
        ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
    };
    let z = (0.0, y);
    let s = t.c.len();
    let mut k: Vec<C> = vec![(0.0, 0.0); s];
    for i in 0..s {
        let mut rhs = (1.0, 0.0);
        for (j, &kj) in k.iter().enumerate().take(i) {
            let zk = mul(mul(z, (t.a[i][j], 0.0)), kj);
            rhs = (rhs.0 + zk.0, rhs.1 + zk.1);
        }
        let diag = (1.0 - z.0 * t.a[i][i], -z.1 * t.a[i][i]);
        k[i] = div(rhs, diag);
    }
    let mut r = (1.0, 0.0);
    for (bj, &kj) in t.b.iter().zip(&k) {
        let zk = mul(mul(z, (*bj, 0.0)), kj);
        r = (r.0 + zk.0, r.1 + zk.1);
    }
    r
}

#[test]
fn msstc_has_the_least_dissipation_identity() {
    for n in 3..=5 {
        for rho in [0.0, 0.5, 0.9] {
            let t = msstc::tableau(n, rho);
            let g = t.diagonal();
            let mut worst: f64 = 0.0;
            for y in log_grid(1e-2, 1e3, 51) {
                let (re, im) = r_of_iy(&t, y);
                let exact = 1.0
                    - (1.0 - rho * rho) * (g * y).powi(2 * n as i32)
                        / (1.0 + g * g * y * y).powi(n as i32);
                worst = worst.max((re * re + im * im - exact).abs());
            }
            println!("MSSTC({n}) rho {rho}: max ||R(iy)|^2 - identity| = {worst:.1e}");
            // MSSTC(5)'s γ carries the rounding of its degree-16 polynomial (about 4e-12).
            let tol = if n == 5 { 2e-8 } else { 1e-12 };
            assert!(worst < tol, "MSSTC({n}) {rho}: {worst}");
        }
    }
}

/// The oracle R(∞) of each member (integrators reference §8) with its sign.
fn r_infinity(name: &str, rho: f64) -> f64 {
    match name {
        "msstc3" | "msstc5" | "mssth5" => -rho,
        "esdirk3-4" | "esdirk3-5" | "esdirk4-6" => 0.0,
        _ => rho,
    }
}

#[test]
fn stability_tool_gives_rho_inf_and_no_limit_for_every_member() {
    let grid = log_grid(1e-3, 1e7, 101);
    for info in REGISTRY.iter().filter(|s| s.family == "ESDIRK") {
        let rhos: &[f64] = if info.params.is_empty() {
            &[f64::NAN]
        } else {
            &[0.0, 0.5, 0.9]
        };
        for &rho in rhos {
            let p: SchemeParams = if rho.is_nan() {
                SchemeParams::new()
            } else {
                [("rho_inf".to_string(), rho)].into()
            };
            let r = analyse(info.name, &p, 0.0, &grid).unwrap();
            let expected = r_infinity(info.name, if rho.is_nan() { 0.0 } else { rho }).abs();
            let max_rho = r
                .points
                .iter()
                .map(|p| p.spectral_radius)
                .fold(0.0, f64::max);
            println!(
                "{} rho_inf {rho}: measured {:.3e}, max spectral radius {max_rho:.12}",
                info.name, r.rho_inf
            );
            assert!(r.omega_crit.is_none(), "{}", info.name);
            assert!(
                (r.rho_inf - expected).abs() < 1e-3,
                "{}: {}",
                info.name,
                r.rho_inf
            );
            assert!(max_rho <= 1.0 + 1e-7, "{}: {max_rho}", info.name);
        }
    }
}

#[test]
fn mssth_refuses_untabulated_rho_inf_and_esdirk_pairs_take_no_parameter() {
    let p: SchemeParams = [("rho_inf".to_string(), 0.55)].into();
    let e = build("mssth4", &p).err().expect("0.55 is not in Table 7");
    assert!(e.to_string().contains("Table 7"), "{e}");
    assert!(build("mssth3", &p).is_ok());
    assert!(build("esdirk4-6", &p).is_err());
}

fn newton() -> NewtonSettings {
    NewtonSettings {
        position_tol: 1e-14,
        ..NewtonSettings::default()
    }
}

fn pendulum_error(scheme: &str, h: f64, reference: (f64, f64)) -> f64 {
    let settings = DynamicSettings {
        h,
        t_end: 1.0,
        output_interval: 0.0,
        newton: newton(),
        ..DynamicSettings::default()
    };
    pendulum::angle_error(scheme, &SchemeParams::new(), &settings, reference)
}

#[test]
fn measured_order_on_the_pendulum_ode_is_the_declared_order() {
    let reference = rk4_pendulum(1.0, 1.0, 2e-5);
    for info in REGISTRY.iter().filter(|s| s.family == "ESDIRK") {
        let hs = [0.1, 0.05, 0.025];
        let e: Vec<f64> = hs
            .iter()
            .map(|&h| pendulum_error(info.name, h, reference))
            .collect();
        let order = (e[1] / e[2]).log2();
        println!(
            "{}: errors {:.3e} {:.3e} {:.3e}, order {order:.2} (declared {})",
            info.name, e[0], e[1], e[2], info.caps.order
        );
        assert!(
            (order - f64::from(info.caps.order)).abs() < 0.3,
            "{}: order {order}",
            info.name
        );
    }
}

#[test]
fn positions_converge_at_least_at_second_order_on_the_pendulum_dae() {
    let at2 = (-7.935661953432e-01, -6.084839304439e-01);
    let error = |scheme: &str, h: f64| {
        let sys = CartesianPendulum::iftomm();
        let mut x0 = State::zeros(0.0, 2, 1);
        x0.q = Vector::from_vec(vec![-1.0, 0.0]);
        consistent_accelerations(&sys, &mut x0);
        let mut s = build(scheme, &SchemeParams::new()).unwrap();
        let settings = DynamicSettings {
            h,
            t_end: 2.0,
            output_interval: 0.0,
            newton: newton(),
            ..DynamicSettings::default()
        };
        let r = run(&sys, s.as_mut(), &x0, &settings, &mut []);
        assert_eq!(r.status, RunStatus::Completed, "{scheme}");
        ((r.final_state.q[0] - at2.0).powi(2) + (r.final_state.q[1] - at2.1).powi(2)).sqrt()
    };
    for info in REGISTRY.iter().filter(|s| s.family == "ESDIRK") {
        let (e1, e2) = (error(info.name, 4e-3), error(info.name, 2e-3));
        let order = (e1 / e2).log2();
        println!(
            "{}: position errors {e1:.3e} -> {e2:.3e}, order {order:.2}",
            info.name
        );
        assert!(order > 1.8 || e2 < 1e-10, "{}: order {order}", info.name);
    }
}
