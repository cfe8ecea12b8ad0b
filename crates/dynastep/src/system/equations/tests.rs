//! Tests of the equation-based system: its symbolic derivatives against central finite
//! differences, its M and Q against the formulas they were written from, and its errors.

use super::*;
use crate::linalg::Matrix;
use crate::model::Model;
use crate::system::derivative_check::*;

/// The heavy symmetric top in ZXZ Euler angles (φ, θ, ψ) with a fixed tip: M(q) and the
/// gyroscopic terms of Q written by hand from T = ½ I₁ (φ̇² sin²θ + θ̇²) + ½ I₃ (ψ̇ + φ̇ cos θ)²,
/// V = m g l cos θ.
const TOP: &str = r#"
[equations]
coordinates = ["phi", "theta", "psi"]
mass = [
  ["I1*sin(theta)^2 + I3*cos(theta)^2", 0, "I3*cos(theta)"],
  [0, "I1", 0],
  ["I3*cos(theta)", 0, "I3"],
]
forces = [
  "-2*(I1 - I3)*sin(theta)*cos(theta)*phi_dot*theta_dot + I3*sin(theta)*theta_dot*psi_dot",
  "(I1 - I3)*sin(theta)*cos(theta)*phi_dot^2 - I3*sin(theta)*phi_dot*psi_dot + m*g*l*sin(theta)",
  "I3*sin(theta)*theta_dot*phi_dot",
]
potential = "m*g*l*cos(theta)"

[equations.parameters]
I1 = 5e-5
I3 = 2e-4
m = 0.02
g = 9.81
l = 0.05

[equations.initial]
theta = 0.5235987755982988
psi_dot = 12.566370614359172

[solver]
dt = 1e-3
t_end = 1.0
"#;

/// A rheonomic, damped pendulum DAE in (x, y, θ): every constraint derivative (Φ_t, γ, Ḣ, Ḧ) and
/// ∂Q/∂v is exercised.
const DRIVEN_PENDULUM: &str = r#"
[equations]
coordinates = ["x", "y", "th"]
mass = [["m", 0, 0], [0, "m", 0], [0, 0, "J"]]
forces = ["-c*x_dot", "-m*g", "0.3*cos(t)"]
constraints = ["x - L*sin(th) - 0.1*sin(2*t)", "y + L*cos(th)*(1 + 0.05*t^2)"]
potential = "m*g*y"

[equations.parameters]
m = 1.0
J = 0.1
L = 1.0
g = 9.81
c = 0.4

[equations.initial]
x = 1.0
th = 1.5707963267948966

[solver]
dt = 1e-3
t_end = 1.0
"#;

fn equation_model(text: &str) -> Model {
    crate::model::parse::from_str(text, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn equation_models_derivatives_match_finite_differences() {
    for text in [TOP, DRIVEN_PENDULUM] {
        let sys = EquationSystem::from_model(&equation_model(text)).expect("compiles");
        let x = sys.initial_state(0.3);
        check_derivatives(&sys, 0.3, &x.q, &x.v);
        let q = &x.q + noise(sys.n(), 11) * 0.3;
        let v = &x.v + noise(sys.n(), 12);
        check_derivatives(&sys, 1.1, &q, &v);
    }
}

/// The top's M and Q against the Euler-angle formulas evaluated directly.
#[test]
fn equation_model_of_the_top_evaluates_its_formulas() {
    let sys = EquationSystem::from_model(&equation_model(TOP)).unwrap();
    let (i1, i3, mgl) = (5e-5, 2e-4, 0.02 * 9.81 * 0.05);
    let q = Vector::from_vec(vec![0.3, 0.7, -0.2]);
    let v = Vector::from_vec(vec![1.5, -0.4, 12.0]);
    let (s, c) = (q[1].sin(), q[1].cos());
    let mut mm = Matrix::zeros(3, 3);
    sys.mass(&q, 1.0, &mut mm);
    assert!((mm[(0, 0)] - (i1 * s * s + i3 * c * c)).abs() < 1e-18);
    assert!((mm[(2, 0)] - i3 * c).abs() < 1e-18 && mm[(1, 2)] == 0.0);
    let mut f = Vector::zeros(3);
    sys.forces(0.0, &q, &v, &mut f);
    let q_theta = (i1 - i3) * s * c * v[0] * v[0] - i3 * s * v[0] * v[2] + mgl * s;
    assert!((f[1] - q_theta).abs() < 1e-15, "{} vs {q_theta}", f[1]);
    assert!((sys.potential_energy(0.0, &q) - mgl * c).abs() < 1e-16);
    assert_eq!(sys.coordinate_label(1), "theta");
    assert!(sys.forces_depend_on_velocity());
}

#[test]
fn equation_model_errors_point_at_the_expression() {
    let bad = TOP.replace("phi_dot^2", "phidot^2");
    let e = crate::model::parse::from_str(&bad, "top.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("top.toml:"), "{e}");
    assert!(e.contains("unknown name `phidot` at character"), "{e}");
    let mixed = format!("{TOP}\n[[bodies]]\nname = \"b\"\nkind = \"point\"\nmass = 1.0\n");
    let e = crate::model::parse::from_str(&mixed, "top.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot also have bodies"), "{e}");
    // Two operators in a row pass the table's own checks but not exmex's grammar: the file reader
    // compiles the equations too, so the file is refused with a location, not by the assembler
    // (found by tests/fuzz.rs).
    let bad = TOP.replace("m*g*l*sin(theta)", "m*g* *sin(theta)");
    let e = crate::model::parse::from_str(&bad, "top.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("top.toml:") && e.contains("cannot parse"), "{e}");
}
