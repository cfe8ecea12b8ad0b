//! Classical explicit Runge–Kutta tableaus and their registry entries: Kutta's third-order method
//! (RK3), the classical fourth-order method (RK4), Fehlberg's 4(5) pair (RKF45) and the
//! Dormand–Prince 5(4) pair (DOPRI5). The integration itself is [`super::explicit_rk`].
//!
//! They integrate y = (q, v) with the accelerations of an acceleration-level formulation; with
//! index-3 constraints they need one (Haug 1989, *Computer-Aided Kinematics and Dynamics of
//! Mechanical Systems*, §7.3): `direct`, `baumgarte`, `projection`, `partitioning` or `hybrid`.
//! On an unconstrained model every formulation gives the same accelerations.

use super::explicit_rk::{ExplicitRk, ExplicitTableau};
use super::registry::{SchemeInfo, SchemeParams};
use super::{Capabilities, EquationForm, Scheme};

/// Kutta's third-order method (Kutta 1901; Hairer, Nørsett & Wanner 1993, *Solving Ordinary
/// Differential Equations I*, §II.1, Table 1.1).
pub const RK3: ExplicitTableau = ExplicitTableau {
    name: "rk3",
    a: &[&[0.5], &[-1.0, 2.0]],
    b: &[1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
    c: &[0.0, 0.5, 1.0],
    b_hat: None,
};

/// The classical fourth-order method (Kutta 1901; Hairer, Nørsett & Wanner 1993, §II.1, Table 1.2,
/// left).
pub const RK4: ExplicitTableau = ExplicitTableau {
    name: "rk4",
    a: &[&[0.5], &[0.0, 0.5], &[0.0, 0.0, 1.0]],
    b: &[1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
    c: &[0.0, 0.5, 0.5, 1.0],
    b_hat: None,
};

/// Fehlberg's 4(5) pair, advancing the fourth-order solution (Fehlberg 1969, NASA TR R-315;
/// Hairer, Nørsett & Wanner 1993, §II.4, Table 4.1): b is the fourth-order row, b̂ the fifth.
pub const RKF45: ExplicitTableau = ExplicitTableau {
    name: "rkf45",
    a: &[
        &[0.25],
        &[3.0 / 32.0, 9.0 / 32.0],
        &[1932.0 / 2197.0, -7200.0 / 2197.0, 7296.0 / 2197.0],
        &[439.0 / 216.0, -8.0, 3680.0 / 513.0, -845.0 / 4104.0],
        &[
            -8.0 / 27.0,
            2.0,
            -3544.0 / 2565.0,
            1859.0 / 4104.0,
            -11.0 / 40.0,
        ],
    ],
    b: &[
        25.0 / 216.0,
        0.0,
        1408.0 / 2565.0,
        2197.0 / 4104.0,
        -0.2,
        0.0,
    ],
    c: &[0.0, 0.25, 0.375, 12.0 / 13.0, 1.0, 0.5],
    b_hat: Some(&[
        16.0 / 135.0,
        0.0,
        6656.0 / 12825.0,
        28561.0 / 56430.0,
        -9.0 / 50.0,
        2.0 / 55.0,
    ]),
};

/// The Dormand–Prince 5(4) pair, advancing the fifth-order solution, first same as last (Dormand &
/// Prince 1980, *J. Comput. Appl. Math.* 6:19–26; Hairer, Nørsett & Wanner 1993, §II.5, Table 5.2).
pub const DOPRI5: ExplicitTableau = ExplicitTableau {
    name: "dopri5",
    a: &[
        &[0.2],
        &[3.0 / 40.0, 9.0 / 40.0],
        &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
        &[
            19372.0 / 6561.0,
            -25360.0 / 2187.0,
            64448.0 / 6561.0,
            -212.0 / 729.0,
        ],
        &[
            9017.0 / 3168.0,
            -355.0 / 33.0,
            46732.0 / 5247.0,
            49.0 / 176.0,
            -5103.0 / 18656.0,
        ],
        &[
            35.0 / 384.0,
            0.0,
            500.0 / 1113.0,
            125.0 / 192.0,
            -2187.0 / 6784.0,
            11.0 / 84.0,
        ],
    ],
    b: &[
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
        0.0,
    ],
    c: &[0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0],
    b_hat: Some(&[
        5179.0 / 57600.0,
        0.0,
        7571.0 / 16695.0,
        393.0 / 640.0,
        -92097.0 / 339200.0,
        187.0 / 2100.0,
        1.0 / 40.0,
    ]),
};

const fn caps(order: u32, error: Option<&'static str>, error_order: u32) -> Capabilities {
    Capabilities {
        order,
        explicit_in_positions: true,
        unconditionally_stable: false,
        error_estimate: error,
        error_order,
        variable_step: true,
        form: EquationForm::FirstOrder,
        estimate_noise: 0.0,
    }
}

/// Registry entry of RK3.
pub const RK3_INFO: SchemeInfo = SchemeInfo {
    name: "rk3",
    aliases: &["kutta3"],
    family: "explicit Runge-Kutta",
    summary: "Kutta's third-order explicit Runge-Kutta method on y = (q, v); 3 evaluations per step, fixed steps",
    source: "Kutta (1901); Hairer, Nørsett & Wanner (1993) Solving ODEs I, §II.1, Table 1.1; Haug (1989) §7.3",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(ExplicitRk::new(RK3)) as Box<dyn Scheme>),
    caps: caps(3, None, 0),
};

/// Registry entry of RK4.
pub const RK4_INFO: SchemeInfo = SchemeInfo {
    name: "rk4",
    aliases: &["classical-rk"],
    family: "explicit Runge-Kutta",
    summary: "the classical fourth-order explicit Runge-Kutta method on y = (q, v); 4 evaluations per step, fixed steps",
    source: "Kutta (1901); Hairer, Nørsett & Wanner (1993) Solving ODEs I, §II.1, Table 1.2; Haug (1989) §7.3",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(ExplicitRk::new(RK4)) as Box<dyn Scheme>),
    caps: caps(4, None, 0),
};

/// Registry entry of RKF45.
pub const RKF45_INFO: SchemeInfo = SchemeInfo {
    name: "rkf45",
    aliases: &["fehlberg45"],
    family: "explicit Runge-Kutta",
    summary: "Fehlberg's embedded 4(5) pair on y = (q, v), advancing the fourth-order solution; 6 evaluations per step, error-controlled steps",
    source: "Fehlberg (1969) NASA TR R-315; Hairer, Nørsett & Wanner (1993) Solving ODEs I, §II.4, Table 4.1",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(ExplicitRk::new(RKF45)) as Box<dyn Scheme>),
    caps: caps(
        4,
        Some("the step's own error: the fifth-order embedded solution minus the advanced fourth-order one, h Σ (b̂_j − b_j) K_j (scheme/explicit_rk.rs)"),
        5,
    ),
};

/// Registry entry of DOPRI5.
pub const DOPRI5_INFO: SchemeInfo = SchemeInfo {
    name: "dopri5",
    aliases: &["dormand-prince", "dp45"],
    family: "explicit Runge-Kutta",
    summary: "the Dormand-Prince embedded 5(4) pair on y = (q, v), advancing the fifth-order solution (FSAL); 6 evaluations per step, error-controlled steps",
    source: "Dormand & Prince (1980) J Comput Appl Math 6:19; Hairer, Nørsett & Wanner (1993) Solving ODEs I, §II.5, Table 5.2",
    params: &[],
    build: |_: &SchemeParams| Ok(Box::new(ExplicitRk::new(DOPRI5)) as Box<dyn Scheme>),
    caps: caps(
        5,
        Some("embedded fourth-order solution: h Σ (b_j − b̂_j) K_j (scheme/explicit_rk.rs)"),
        5,
    ),
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The order conditions up to order 4 (Hairer, Nørsett & Wanner 1993, §II.2, Table 2.2) for
    /// weights `b` of a tableau: Σb = 1, Σbc = ½, Σbc² = ⅓, Σb a c = ⅙, and the four of order 4.
    fn residuals(t: &ExplicitTableau, b: &[f64], order: usize) -> Vec<f64> {
        let s = t.stages();
        let a = |i: usize, j: usize| -> f64 {
            if i == 0 || j >= i {
                0.0
            } else {
                t.a[i - 1][j]
            }
        };
        let c = t.c;
        let ac: Vec<f64> = (0..s)
            .map(|i| (0..s).map(|j| a(i, j) * c[j]).sum())
            .collect();
        let acc: Vec<f64> = (0..s)
            .map(|i| (0..s).map(|j| a(i, j) * c[j] * c[j]).sum())
            .collect();
        let aac: Vec<f64> = (0..s)
            .map(|i| (0..s).map(|j| a(i, j) * ac[j]).sum())
            .collect();
        let sum = |f: &dyn Fn(usize) -> f64| (0..s).map(|i| b[i] * f(i)).sum::<f64>();
        let mut r = vec![sum(&|_| 1.0) - 1.0];
        if order >= 2 {
            r.push(sum(&|i| c[i]) - 0.5);
        }
        if order >= 3 {
            r.push(sum(&|i| c[i] * c[i]) - 1.0 / 3.0);
            r.push(sum(&|i| ac[i]) - 1.0 / 6.0);
        }
        if order >= 4 {
            r.push(sum(&|i| c[i].powi(3)) - 0.25);
            r.push(sum(&|i| c[i] * ac[i]) - 0.125);
            r.push(sum(&|i| acc[i]) - 1.0 / 12.0);
            r.push(sum(&|i| aac[i]) - 1.0 / 24.0);
        }
        r
    }

    #[test]
    fn tableaus_are_consistent_and_of_their_order() {
        for (t, order, hat_order) in [(RK3, 3, 0), (RK4, 4, 0), (RKF45, 4, 4), (DOPRI5, 4, 4)] {
            let s = t.stages();
            assert_eq!((t.a.len(), t.c.len()), (s - 1, s), "{}", t.name);
            for i in 1..s {
                let row_sum: f64 = t.a[i - 1].iter().sum();
                assert!((row_sum - t.c[i]).abs() < 1e-14, "{} row {i}", t.name);
            }
            for r in residuals(&t, t.b, order) {
                assert!(r.abs() < 1e-14, "{}: {r}", t.name);
            }
            if let Some(bh) = t.b_hat {
                for r in residuals(&t, bh, hat_order) {
                    assert!(r.abs() < 1e-14, "{} b̂: {r}", t.name);
                }
            }
        }
        assert!(DOPRI5.fsal() && !RK4.fsal() && !RKF45.fsal());
    }
}
