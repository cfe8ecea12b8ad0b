//! Invariants over the whole matrix: every registered scheme × every formulation it declares
//! (`formulation::compatible`) × every model kind (planar, spatial, equation-based), on models whose
//! invariants are exact:
//!
//! - a torque-free symmetric rotor (spatial, Euler parameters) spinning at 100 rad/s with a
//!   transverse rate: its energy, the norm of its angular momentum and its spin ω₃ (body axis of
//!   symmetry) are constant; and an asymmetric one about its stable (largest) principal axis:
//!   energy and |L|;
//! - a conservative pendulum in each kind and a planar double pendulum: the energy balance;
//! - the free rotor's linear momentum (no external force);
//! - the driven slider-crank: the energy balance with the driver's work W_nc.
//!
//! What is asserted follows from the scheme's declared order p and the steps, not from a past run:
//! the error of each invariant, measured at h and h/2, falls by at least 2^(p − ½) (an observed order
//! of at least p − ½), unless both errors are already at the rounding floor of the run (8 ε × the
//! invariant's size × the number of steps). Linear momentum is conserved to that floor by every
//! scheme. The pairs expected to behave otherwise are listed in [`EXPECTED`] with the reason (the
//! same table is in docs/schemes.md, "Invariants").
//!
//! The default run takes the coarse grid (one step pair per model, short spans); the full grid
//! (`cargo test --release -p dynastep --test invariants -- --ignored`) halves twice and runs longer.

use dynastep::analysis::dynamic::RunStatus;
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::parse::from_str_with_overrides;
use dynastep::scheme::{SchemeInfo, REGISTRY};
use dynastep::Vector;

/// A model with exact invariants, and the span and step of the coarse grid.
struct Case {
    name: &'static str,
    kind: &'static str,
    text: &'static str,
    t_end: f64,
    h: f64,
    /// Whether a driver does work (W_nc ≠ 0 through λᵀΦ_t).
    driven: bool,
    /// Which invariants to measure.
    invariants: &'static [Invariant],
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Invariant {
    /// The energy balance E − E₀ − W_nc, largest over every step \[J\].
    Energy,
    /// The norm of the rotor's angular momentum \[kg m²/s\], at the end.
    AngularMomentum,
    /// The rotor's spin ω₃ about its body axis of symmetry \[rad/s\], at the end.
    Spin,
    /// The rotor's linear momentum \[kg m/s\], at the end.
    LinearMomentum,
}

const SYMMETRIC_ROTOR: &str = r#"
name = "torque-free symmetric rotor"
[spatial]
[[spatial.bodies]]
name = "rotor"
mass = 2.0
inertia = [3e-3, 3e-3, 5e-3]
orientation = { axis = [1.0, 0.0, 0.0], angle = 0.3 }
velocity = [1.0, -2.0, 0.5]
angular_velocity = [5.0, 0.0, 100.0]
angular_velocity_axes = "body"
"#;

const ASYMMETRIC_ROTOR: &str = r#"
name = "torque-free asymmetric rotor about its stable axis"
[spatial]
[[spatial.bodies]]
name = "rotor"
mass = 1.0
inertia = [2e-3, 3e-3, 4e-3]
orientation = { axis = [0.0, 1.0, 0.0], angle = 0.2 }
angular_velocity = [2.0, 2.0, 60.0]
angular_velocity_axes = "body"
"#;

const SPATIAL_PENDULUM: &str = r#"
name = "compound pendulum on a revolute joint (spatial)"
[spatial]
gravity = [0.0, 0.0, -9.81]
[[spatial.bodies]]
name = "rod"
mass = 1.0
inertia = [1e-4, 0.0834, 0.0834]
position = [0.5, 0.0, 0.0]
[[spatial.joints]]
name = "pin"
type = "revolute"
body_i = "ground"
body_j = "rod"
at = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
"#;

const EQUATION_PENDULUM: &str = r#"
name = "pendulum in its angle (equations)"
[equations]
coordinates = ["theta"]
mass = [["m*L^2"]]
forces = ["-m*g*L*sin(theta)"]
potential = "-m*g*L*cos(theta)"
[equations.parameters]
m = 1.0
L = 1.0
g = 9.81
[equations.initial]
theta = 1.5707963267948966
"#;

const DOUBLE_PENDULUM: &str = r#"
name = "planar double pendulum of point masses"
gravity = [0.0, -9.81]
[ground.points]
O = [0.0, 0.0]
[[bodies]]
name = "m1"
kind = "point"
mass = 1.0
x = 1.0
y = 0.0
[[bodies]]
name = "m2"
kind = "point"
mass = 1.0
x = 1.0
y = -1.0
[[joints]]
name = "rod1"
type = "distance"
body_i = "ground"
point_i = "O"
body_j = "m1"
length = 1.0
[[joints]]
name = "rod2"
type = "distance"
body_i = "m1"
body_j = "m2"
length = 1.0
"#;

fn cases() -> Vec<Case> {
    use Invariant::*;
    let example = |name: &str| dynastep::examples::find(name).expect("example").text;
    vec![
        Case {
            name: "symmetric rotor",
            kind: "spatial",
            text: SYMMETRIC_ROTOR,
            t_end: 0.2,
            h: 1e-3,
            driven: false,
            invariants: &[Energy, AngularMomentum, Spin, LinearMomentum],
        },
        Case {
            name: "asymmetric rotor",
            kind: "spatial",
            text: ASYMMETRIC_ROTOR,
            t_end: 0.2,
            h: 1e-3,
            driven: false,
            invariants: &[Energy, AngularMomentum],
        },
        Case {
            name: "pendulum",
            kind: "planar",
            text: example("pendulum"),
            t_end: 1.0,
            h: 4e-3,
            driven: false,
            invariants: &[Energy],
        },
        Case {
            name: "double pendulum",
            kind: "planar",
            text: DOUBLE_PENDULUM,
            t_end: 1.0,
            h: 2e-3,
            driven: false,
            invariants: &[Energy],
        },
        Case {
            name: "spatial pendulum",
            kind: "spatial",
            text: SPATIAL_PENDULUM,
            t_end: 1.0,
            h: 4e-3,
            driven: false,
            invariants: &[Energy],
        },
        Case {
            name: "equation pendulum",
            kind: "equations",
            text: EQUATION_PENDULUM,
            t_end: 1.0,
            h: 4e-3,
            driven: false,
            invariants: &[Energy],
        },
        Case {
            name: "driven slider-crank",
            kind: "planar",
            text: example("slider-crank"),
            t_end: 0.5,
            h: 2e-3,
            driven: true,
            invariants: &[Energy],
        },
    ]
}

/// Pairs that are expected not to show their order on these models, with the reason. A pair listed
/// here is still run; it must end cleanly (completed, or a failure with a reason), never panic.
const EXPECTED: &[(&str, &str, &str, &str)] = &[
    ("fox-goodwin", "index3", "*", "conditionally stable and implicit in positions: the constraint modes have infinite frequency, so it is unstable on any constrained model (Fernández de Bustos et al. 2022, Meccanica 57:371, §3)"),
    ("linear-acceleration", "index3", "*", "conditionally stable and implicit in positions (as fox-goodwin)"),
    ("trapezoidal", "index3", "*", "no numerical damping: the index-3 multipliers and velocities oscillate from step to step without decay, so the invariants' errors sit at the Newton tolerance's noise and do not fall with h (docs/schemes.md)"),
    ("newmark", "index3", "*", "at its defaults (γ = ½, β = ¼) the trapezoidal rule: see trapezoidal"),
    ("abm", "*", "*", "variable order: with fixed steps the order rises to its maximum (12) one step at a time, so no single order is measured, and order 12 is unstable on the 100 rad/s rotor at these steps"),
    ("*", "hybrid", "*", "corrects only when the violation exceeds its tolerance (100 × the Newton tolerance), so the number of corrections, and with it the error, changes unevenly with h"),
];

/// The order the invariants can show: the declared order p, lowered where a known mechanism bounds
/// it (each with its source), and the floor below which an error is noise.
fn expected_order(s: &SchemeInfo, formulation: &str, case: &Case) -> f64 {
    let mut p = s.caps.order as f64;
    // The energy balance E − E₀ − W_nc integrates W_nc from the step ends (analysis/diagnostics.rs):
    // by the trapezoidal rule for second-order schemes, by Simpson's rule for the others (and Adams
    // PECE) but with the multipliers at the middle of the step the mean of the ends', so the
    // driver's power λᵀΦ_t is integrated at second order (the driven slider-crank's work is its
    // driver's). The ESDIRKs, which integrate W_nc over their stages, are held to the same bound.
    if case.driven {
        p = p.min(2.0);
    }
    // Stiffly accurate ESDIRKs on index-3 constraints: the velocities converge at the stage order,
    // 2 for an explicit first stage (Hairer, Lubich & Roche 1989, Lecture Notes in Math. 1409,
    // ch. 5), and the energy is a function of the velocities.
    let esdirk = ["bathe", "msstc", "mssth", "esdirk"]
        .iter()
        .any(|f| s.name.starts_with(f));
    if esdirk && formulation == "index3" {
        p = p.min(2.0);
    }
    // In the stabilized index-2 form the velocities are solved from their constraint, and the
    // fourth- and fifth-order ESDIRKs (MSSTH(4, 5), ESDIRK4(3)6) show order 3 in the energy on
    // the three pendulums (measured: 3.00 each). Their stage order is 2, and the stage order
    // bounds the order on index-2 problems (Hairer, Lubich & Roche 1989, Lecture Notes in Math.
    // 1409); the exact bound for this form is not derived here (docs/stabilized_index2.md).
    if esdirk && formulation == "stabilized-index2" {
        p = p.min(3.0);
    }
    // G4 and G5 start by default with zero jerk and snap (the paper's start), which leaves
    // second-order errors from a moving start; `start = 1` keeps the order (tests/higher_degree.rs).
    if matches!(s.name, "g4" | "g5") {
        p = p.min(2.0);
    }
    p
}

/// The error below which an invariant's error is noise: rounding, 8 ε × size per step; for a pair
/// that iterates (implicit schemes, corrected states) also the Newton position tolerance (relative,
/// [`NewtonSettings::position_tol`]) per step; for the hybrid algorithm, which accepts states whose
/// velocity violation is below its tolerance / h, that tolerance (100 × the Newton one) / h.
fn floor(s: &SchemeInfo, formulation: &str, size: f64, steps: u64, h: f64) -> f64 {
    let newton = dynastep::formulation::NewtonSettings::default().position_tol;
    let rounding = 8.0 * f64::EPSILON * size * steps as f64;
    let iterates = !s.caps.explicit_in_positions
        || matches!(formulation, "projection" | "partitioning" | "hybrid");
    let mut f = rounding;
    if iterates {
        f = f.max(newton * size * steps as f64);
    }
    if formulation == "hybrid" {
        f = f.max(100.0 * newton / h * size);
    }
    f
}

fn expected(scheme: &str, formulation: &str, case: &str) -> Option<&'static str> {
    EXPECTED
        .iter()
        .find(|(s, f, c, _)| {
            (*s == "*" || *s == scheme)
                && (*f == "*" || *f == formulation)
                && (*c == "*" || *c == case)
        })
        .map(|e| e.3)
}

/// What one run measured: each invariant's error, its size, and the steps taken.
struct Measured {
    errors: Vec<(Invariant, f64, f64)>,
    steps: u64,
    h: f64,
}

/// Body-axis angular velocity ω′ = 2 G(p) ṗ of the spatial body whose Euler parameters are
/// q[3..7] (Haug 1989, eq. 9.3.24).
fn body_rate(q: &Vector, v: &Vector) -> [f64; 3] {
    let (e0, e1, e2, e3) = (q[3], q[4], q[5], q[6]);
    let g = [[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]];
    let mut w = [0.0; 3];
    for (i, row) in g.iter().enumerate() {
        w[i] = 2.0 * (0..4).map(|k| row[k] * v[3 + k]).sum::<f64>();
    }
    w
}

fn run(
    case: &Case,
    scheme: &str,
    formulation: &str,
    h: f64,
    t_end: f64,
) -> Result<Measured, String> {
    let model = from_str_with_overrides(
        case.text,
        "invariant.toml",
        &["solver.diagnostics=\"every-step\"".to_string()],
    )
    .map_err(|e| e.to_string())?;
    let opts = RunOptions {
        scheme: Some(scheme.into()),
        formulation: Some(formulation.into()),
        dt: Some(h),
        t_end: Some(t_end),
        output_interval: Some(t_end),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(&model, &opts).map_err(|e| format!("refused: {e}"))?;
    let inertia = match &model.spatial {
        Some(s) => s.bodies[0].inertia.unwrap_or([1.0; 3]),
        None => [1.0; 3],
    };
    let mass = model.spatial.as_ref().map_or(1.0, |s| s.bodies[0].mass);
    let x0 = sim.initial.clone();
    let report = sim.run(&mut []);
    if report.status != RunStatus::Completed {
        return Err(format!("{:?}", report.status));
    }
    let x1 = &report.final_state;
    let mut errors = Vec::new();
    for inv in case.invariants {
        let (err, size) = match inv {
            Invariant::Energy => (
                report.max_energy_error,
                (report.initial_energy.kinetic + report.initial_energy.potential.abs()).max(1.0),
            ),
            Invariant::AngularMomentum => {
                let l = |x: &dynastep::scheme::State| {
                    let w = body_rate(&x.q, &x.v);
                    (0..3)
                        .map(|i| (inertia[i] * w[i]).powi(2))
                        .sum::<f64>()
                        .sqrt()
                };
                ((l(x1) - l(&x0)).abs(), l(&x0))
            }
            Invariant::Spin => {
                let (w0, w1) = (body_rate(&x0.q, &x0.v), body_rate(&x1.q, &x1.v));
                ((w1[2] - w0[2]).abs(), w0[2].abs())
            }
            Invariant::LinearMomentum => {
                let d = (0..3)
                    .map(|i| (mass * (x1.v[i] - x0.v[i])).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let p = (0..3).map(|i| (mass * x0.v[i]).powi(2)).sum::<f64>().sqrt();
                (d, p)
            }
        };
        errors.push((*inv, err, size));
    }
    Ok(Measured {
        errors,
        steps: report.steps,
        h,
    })
}

/// Every compatible (scheme, formulation) pair.
fn pairs() -> Vec<(&'static SchemeInfo, &'static str)> {
    let mut v = Vec::new();
    for s in REGISTRY {
        for f in dynastep::formulation::REGISTRY {
            if dynastep::formulation::compatible(s, f).is_ok() {
                v.push((s, f.name));
            }
        }
    }
    v
}

/// Runs the grid: each case at `halvings + 1` steps h, h/2, …; returns the violations found.
fn grid(span_factor: f64, halvings: u32) -> Vec<String> {
    let mut violations = Vec::new();
    for case in cases() {
        for (s, f) in pairs() {
            let t_end = case.t_end * span_factor;
            let runs: Vec<Result<Measured, String>> = (0..=halvings)
                .map(|k| run(&case, s.name, f, case.h / 2f64.powi(k as i32), t_end))
                .collect();
            let label = format!("{} ({}) · {} · {}", case.name, case.kind, s.name, f);
            if let Some(reason) = expected(s.name, f, case.name) {
                println!("{label}: expected ({reason}): {}", summary(&runs));
                continue;
            }
            if let Some(Err(e)) = runs.iter().find(|r| r.is_err()) {
                violations.push(format!("{label}: did not complete: {e}"));
                continue;
            }
            let runs: Vec<Measured> = runs.into_iter().map(|r| r.unwrap()).collect();
            for w in runs.windows(2) {
                for (a, b) in w[0].errors.iter().zip(&w[1].errors) {
                    let (inv, e1, size) = *a;
                    let e2 = b.1;
                    let floor = floor(s, f, size, w[1].steps, w[1].h);
                    let order = (e1 / e2).log2();
                    let p = expected_order(s, f, &case);
                    let ok = if inv == Invariant::LinearMomentum {
                        e1 <= floor && e2 <= floor
                    } else {
                        (e1 <= floor && e2 <= floor) || order >= p - 0.5
                    };
                    println!("{label}: {inv:?} {e1:.3e} → {e2:.3e} (order {order:.2}, declared {p}, floor {floor:.1e}) {}", if ok { "ok" } else { "VIOLATION" });
                    if !ok {
                        violations.push(format!("{label}: {inv:?} {e1:.3e} → {e2:.3e}: observed order {order:.2} < {p} − ½ (floor {floor:.1e})"));
                    }
                }
            }
        }
    }
    violations
}

fn summary(runs: &[Result<Measured, String>]) -> String {
    runs.iter()
        .map(|r| match r {
            Ok(m) => m
                .errors
                .iter()
                .map(|e| format!("{:?} {:.2e}", e.0, e.1))
                .collect::<Vec<_>>()
                .join(", "),
            Err(e) => e.clone(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Runs the grid and fails listing every violation.
fn assert_grid(span_factor: f64, halvings: u32) {
    let violations = grid(span_factor, halvings);
    assert!(
        violations.is_empty(),
        "{} violations:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

/// The coarse grid: every pair on every case at h and h/2.
#[test]
fn every_pair_keeps_the_invariants_at_its_order() {
    assert_grid(1.0, 1);
}

/// The full grid: three steps per case and twice the span.
#[test]
#[ignore = "slow: the full grid (cargo test --release -p dynastep --test invariants -- --ignored)"]
fn every_pair_keeps_the_invariants_at_its_order_full_grid() {
    assert_grid(2.0, 2);
}

/// HHT keeps a torque-free spinning rotor's spin to second order: halving h divides the error by
/// about 4. (The force-weighted index-3 form it replaced was first order on Euler parameters: on a
/// 200 rad/s rotor it lost 28 J of 100 J in 0.2 s at h = 1e-3 s, and half that at 5e-4 s.)
#[test]
fn hht_keeps_a_spinning_rotor_to_second_order() {
    let case = &cases()[0];
    let e: Vec<f64> = [1e-3, 5e-4]
        .iter()
        .map(|&h| {
            let m = run(case, "hht", "index3", h, 0.2).unwrap();
            m.errors.iter().find(|e| e.0 == Invariant::Spin).unwrap().1
        })
        .collect();
    let ratio = e[0] / e[1];
    println!(
        "hht spin error {:.3e} → {:.3e}, ratio {ratio:.2}",
        e[0], e[1]
    );
    assert!((3.0..6.0).contains(&ratio), "ratio {ratio}");
}
