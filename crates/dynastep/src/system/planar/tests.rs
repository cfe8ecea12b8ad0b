//! Tests of the planar assembler: every element's analytic derivatives against central finite
//! differences, energy bookkeeping, body-frame conversions, joint reactions and construction errors.

use std::collections::BTreeMap;

use self::kinematics::{Row, Slots};
use super::*;
use crate::analysis::assembly::consistent_accelerations;
use crate::model::function::{FunctionSpec, TaggedFunction, TimeFunction};
use crate::model::{
    Axes, BodyKind, BodySpec, DriverKind, DriverSpec, ForceSpec, JointKind, JointMotion, JointSpec,
    MarkerSpec, GROUND,
};
use crate::system::derivative_check::*;

// ---------------------------------------------------------------------------------------------
// Model builders
// ---------------------------------------------------------------------------------------------

fn pts(list: &[(&str, [f64; 2])]) -> BTreeMap<String, [f64; 2]> {
    list.iter().map(|(n, p)| (n.to_string(), *p)).collect()
}

/// A rigid body at a generic pose and velocity, with a com offset and points A, B.
fn rigid(name: &str, x: f64, y: f64, theta: f64) -> BodySpec {
    BodySpec {
        name: name.into(),
        kind: BodyKind::Rigid,
        mass: 1.7,
        inertia: Some(0.23),
        x,
        y,
        theta,
        com: [0.31, -0.12],
        points: pts(&[("A", [0.8, 0.1]), ("B", [-0.4, 0.35])]),
        vx: 0.7,
        vy: -0.4,
        omega: 1.3,
        given: vec![],
        given_velocity: vec![],
    }
}

/// A point mass at a generic position and velocity.
fn point(name: &str, x: f64, y: f64) -> BodySpec {
    BodySpec {
        name: name.into(),
        kind: BodyKind::Point,
        mass: 0.9,
        inertia: None,
        x,
        y,
        theta: 0.0,
        com: [0.0, 0.0],
        points: BTreeMap::new(),
        vx: -0.6,
        vy: 0.9,
        omega: 0.0,
        given: vec![],
        given_velocity: vec![],
    }
}

fn joint(name: &str, kind: JointKind, bi: &str, pi: &str, bj: &str, pj: &str) -> JointSpec {
    JointSpec {
        name: name.into(),
        kind,
        body_i: bi.into(),
        point_i: Some(pi.into()),
        body_j: bj.into(),
        point_j: Some(pj.into()),
        axis: None,
        length: None,
        given: false,
    }
}

fn harmonic(amplitude: f64, omega: f64, offset: f64) -> FunctionSpec {
    FunctionSpec::Tagged(TaggedFunction::Harmonic {
        amplitude,
        omega,
        phase: 0.4,
        offset,
    })
}

fn model() -> Model {
    Model {
        ground: crate::model::GroundSpec {
            points: pts(&[("O", [0.2, -0.3]), ("G", [1.5, 0.9])]),
        },
        ..Default::default()
    }
}

fn joint_driver(name: &str, j: &str, f: FunctionSpec) -> DriverSpec {
    DriverSpec {
        name: name.into(),
        kind: DriverKind::Joint,
        joint: Some(j.into()),
        body: None,
        coordinate: None,
        motion: None,
        function: f,
    }
}

fn coordinate_driver(name: &str, body: &str, c: Coordinate, f: FunctionSpec) -> DriverSpec {
    DriverSpec {
        name: name.into(),
        kind: DriverKind::Coordinate,
        joint: None,
        body: Some(body.into()),
        coordinate: Some(c),
        motion: None,
        function: f,
    }
}

// ---------------------------------------------------------------------------------------------
// Finite-difference checks
// ---------------------------------------------------------------------------------------------

/// Asserts that every entry a joint or driver leaves out of its masks ([`Joint::row_mask`],
/// [`Joint::hessian_mask`] and the drivers' own) is exactly zero at q, for the slots that exist.
fn check_masks(sys: &PlanarSystem, q: &Vector) {
    let check =
        |what: &str, slots: &Slots, row: &Row, rmask: &[bool; NS], hmask: &[[bool; NS]; NS]| {
            for a in (0..NS).filter(|&a| slots.0[a].is_some()) {
                assert!(
                    rmask[a] || row.grad[a] == 0.0,
                    "{what}: gradient slot {a} = {}",
                    row.grad[a]
                );
                for b in (0..NS).filter(|&b| slots.0[b].is_some()) {
                    assert!(
                        hmask[a][b] || row.hess[a][b] == 0.0,
                        "{what}: Hessian ({a}, {b}) = {}",
                        row.hess[a][b]
                    );
                }
            }
        };
    let mut rows = [Row::ZERO; 3];
    for j in &sys.joints {
        let nr = j.eval(q, &mut rows);
        for (r, row) in rows.iter().enumerate().take(nr) {
            check(&j.name, &j.slots, row, j.row_mask(r), j.hessian_mask());
        }
    }
    for d in sys.drivers.iter().chain(&sys.given_joints) {
        check(
            &d.name,
            &d.slots,
            &d.eval(q),
            d.row_mask(),
            d.hessian_mask(),
        );
    }
}

/// Builds the model and checks its derivatives at the initial state, at a perturbed one and at a
/// second time, and its structural zeros at both states.
fn check_model(model: &Model) -> PlanarSystem {
    let sys = PlanarSystem::new(model).expect("valid model");
    let x = sys.initial_state(0.3);
    check_derivatives(&sys, 0.3, &x.q, &x.v);
    check_masks(&sys, &x.q);
    let q = &x.q + noise(sys.n(), 11) * 0.3;
    let v = &x.v + noise(sys.n(), 12);
    check_derivatives(&sys, 1.1, &q, &v);
    check_masks(&sys, &q);
    sys
}

// ---------------------------------------------------------------------------------------------
// Derivative tests, one per element kind
// ---------------------------------------------------------------------------------------------

#[test]
fn revolute_joints() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), rigid("b", 1.2, -0.2, -0.8)];
    m.joints = vec![
        joint("O", JointKind::Revolute, GROUND, "O", "a", "B"),
        joint("J", JointKind::Revolute, "a", "A", "b", "B"),
    ];
    let sys = check_model(&m);
    assert_eq!((sys.n(), sys.m()), (6, 4));
    assert_eq!(sys.constraint_label(0), "joint `O` (revolute), x");
    assert_eq!(sys.constraint_label(3), "joint `J` (revolute), y");
    assert_eq!(sys.joint_rows(1), 2..4);

    // Only the entries that can be non-zero are sent: each point row touches x (or y) and θ of
    // its bodies, and Φ_qᵀλ has only θθ entries (the finite-difference checks above show that
    // nothing non-zero is left out).
    let x = sys.initial_state(0.0);
    let mut p = Pattern::default();
    sys.constraint_jacobian(0.0, &x.q, 1.0, &mut p);
    assert_eq!(p.0.len(), 2 + 2 + 4 + 4);
    let mut p = Pattern::default();
    sys.constraint_force_q(0.0, &x.q, &noise(4, 1), 1.0, &mut p);
    assert_eq!(p.0, [(2, 2), (2, 2), (5, 5)]);
}

#[test]
fn prismatic_joints() {
    let mut m = model();
    m.bodies = vec![
        rigid("a", 0.3, 0.4, 0.5),
        rigid("b", 1.2, -0.2, -0.8),
        point("p", -0.7, 0.6),
        point("r", 0.9, 1.1),
    ];
    let mut j1 = joint("P1", JointKind::Prismatic, GROUND, "G", "a", "A");
    j1.axis = Some([2.0, 1.0]);
    let mut j2 = joint("P2", JointKind::Prismatic, "a", "B", "b", "A");
    j2.axis = Some([0.3, -0.7]);
    let j3 = joint("P3", JointKind::Prismatic, "b", "A", "p", "origin");
    let mut j4 = joint("P4", JointKind::Prismatic, GROUND, "O", "r", "origin");
    j4.axis = Some([0.0, 3.0]);
    m.joints = vec![j1, j2, j3, j4];
    let sys = check_model(&m);
    assert_eq!(sys.m(), 2 + 2 + 1 + 1);
    assert_eq!(sys.constraint_label(1), "joint `P1` (prismatic), rotation");
    assert_eq!(sys.constraint_label(4), "joint `P3` (prismatic), normal");
}

#[test]
fn fixed_joints() {
    let mut m = model();
    m.bodies = vec![
        rigid("a", 0.3, 0.4, 0.5),
        rigid("b", 1.2, -0.2, -0.8),
        point("p", -0.7, 0.6),
    ];
    m.joints = vec![
        joint("F1", JointKind::Fixed, "a", "A", "b", "B"),
        joint("F2", JointKind::Fixed, "p", "origin", "b", "A"),
        joint("F3", JointKind::Fixed, GROUND, "G", "a", "B"),
    ];
    let sys = check_model(&m);
    assert_eq!(sys.m(), 3 + 2 + 3);
    assert_eq!(sys.constraint_label(2), "joint `F1` (fixed), rotation");
}

#[test]
fn distance_joints() {
    let mut m = model();
    m.bodies = vec![
        rigid("a", 0.3, 0.4, 0.5),
        rigid("b", 1.2, -0.2, -0.8),
        point("p", -0.7, 0.6),
    ];
    let mut d1 = joint("D1", JointKind::Distance, "a", "A", "b", "B");
    d1.length = Some(0.9);
    m.joints = vec![
        d1,
        joint("D2", JointKind::Distance, GROUND, "O", "p", "origin"),
        joint("D3", JointKind::Distance, "p", "origin", "b", "A"),
    ];
    let sys = check_model(&m);
    assert_eq!(sys.m(), 3);
    // Default length: the initial distance, so Φ = 0 initially for D2 and D3.
    let x = sys.initial_state(0.0);
    let mut phi = Vector::zeros(3);
    sys.constraints(0.0, &x.q, &mut phi);
    assert!(phi[1].abs() < 1e-14 && phi[2].abs() < 1e-14, "{phi}");
    assert_eq!(sys.constraint_label(0), "joint `D1` (distance), length");
}

#[test]
fn joint_drivers() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), rigid("b", 1.2, -0.2, -0.8)];
    let mut p = joint("P", JointKind::Prismatic, "a", "A", "b", "B");
    p.axis = Some([1.0, 2.0]);
    m.joints = vec![
        joint("O", JointKind::Revolute, GROUND, "O", "a", "B"),
        p,
        joint("R", JointKind::Revolute, "b", "A", "a", "origin"),
    ];
    m.drivers = vec![
        joint_driver("d_O", "O", harmonic(0.3, 2.0, 0.1)),
        joint_driver("d_P", "P", harmonic(0.2, 1.5, 0.5)),
        joint_driver("d_R", "R", harmonic(0.4, 3.0, -0.2)),
    ];
    let sys = check_model(&m);
    assert_eq!(sys.m(), 2 + 2 + 2 + 3);
    assert_eq!(sys.constraint_label(7), "driver `d_P`");
    assert_eq!(sys.driver_rows(), 6..9);
}

#[test]
fn coordinate_drivers() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), point("p", -0.7, 0.6)];
    m.drivers = vec![
        coordinate_driver("x", "a", Coordinate::X, harmonic(0.3, 2.0, 0.1)),
        coordinate_driver("y", "a", Coordinate::Y, harmonic(0.2, 1.0, 0.0)),
        coordinate_driver("th", "a", Coordinate::Theta, harmonic(0.5, 0.7, 0.2)),
        coordinate_driver("px", "p", Coordinate::X, FunctionSpec::Constant(0.4)),
    ];
    let sys = check_model(&m);
    // The driven values are the body-frame coordinates.
    let x = sys.initial_state(0.0);
    let mut phi = Vector::zeros(4);
    sys.constraints(0.0, &x.q, &mut phi);
    let f = |s: &FunctionSpec| TimeFunction::new(s).unwrap().value(0.0);
    assert!((phi[0] - (0.3 - f(&m.drivers[0].function))).abs() < 1e-14);
    assert!((phi[1] - (0.4 - f(&m.drivers[1].function))).abs() < 1e-14);
    assert!((phi[2] - (0.5 - f(&m.drivers[2].function))).abs() < 1e-14);
    assert!((phi[3] - (-0.7 - 0.4)).abs() < 1e-14);
}

#[test]
fn tsda_forces() {
    let mut m = model();
    m.gravity = [0.0, 0.0];
    m.bodies = vec![
        rigid("a", 0.3, 0.4, 0.5),
        rigid("b", 1.2, -0.2, -0.8),
        point("p", -0.7, 0.6),
    ];
    m.forces = vec![
        ForceSpec::Tsda {
            name: "s1".into(),
            body_i: "a".into(),
            point_i: Some("A".into()),
            body_j: "b".into(),
            point_j: Some("B".into()),
            stiffness: 120.0,
            free_length: Some(0.4),
            damping: 3.5,
            actuator: Some(harmonic(5.0, 2.0, 1.0)),
        },
        ForceSpec::Tsda {
            name: "s2".into(),
            body_i: GROUND.into(),
            point_i: Some("O".into()),
            body_j: "p".into(),
            point_j: None,
            stiffness: 40.0,
            free_length: None,
            damping: 0.0,
            actuator: None,
        },
        ForceSpec::Tsda {
            name: "s3".into(),
            body_i: "p".into(),
            point_i: None,
            body_j: "a".into(),
            point_j: Some("B".into()),
            stiffness: 0.0,
            free_length: None,
            damping: 2.0,
            actuator: None,
        },
    ];
    let sys = check_model(&m);
    assert!(sys.forces_depend_on_velocity());
}

#[test]
fn rsda_forces() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), rigid("b", 1.2, -0.2, -0.8)];
    m.joints = vec![
        joint("O", JointKind::Revolute, GROUND, "O", "a", "B"),
        joint("J", JointKind::Revolute, "a", "A", "b", "B"),
    ];
    m.forces = vec![
        ForceSpec::Rsda {
            name: "r1".into(),
            joint: "O".into(),
            stiffness: 30.0,
            free_angle: 0.2,
            damping: 1.5,
            actuator: Some(harmonic(2.0, 1.0, 0.5)),
        },
        ForceSpec::Rsda {
            name: "r2".into(),
            joint: "J".into(),
            stiffness: 12.0,
            free_angle: -0.4,
            damping: 0.0,
            actuator: None,
        },
    ];
    let sys = check_model(&m);
    assert!(sys.forces_depend_on_velocity());
}

#[test]
fn applied_forces_and_torques() {
    let mut m = model();
    m.gravity = [0.3, -9.81];
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), point("p", -0.7, 0.6)];
    let load = |name: &str, body: &str, point: Option<&str>, frame: Axes| ForceSpec::Force {
        name: name.into(),
        body: body.into(),
        point: point.map(Into::into),
        fx: Some(harmonic(3.0, 2.0, 1.0)),
        fy: Some(FunctionSpec::Constant(-2.0)),
        fz: None,
        frame,
    };
    m.forces = vec![
        load("fg", "a", Some("A"), Axes::Global),
        load("fb", "a", Some("B"), Axes::Body),
        load("pg", "p", None, Axes::Global),
        load("pb", "p", None, Axes::Body),
        ForceSpec::Force {
            name: "only_y".into(),
            body: "a".into(),
            point: None,
            fx: None,
            fy: Some(FunctionSpec::Constant(1.0)),
            fz: None,
            frame: Axes::Body,
        },
        torque("t", "a", Some(harmonic(1.0, 3.0, 0.2))),
    ];
    let sys = check_model(&m);
    assert!(!sys.forces_depend_on_velocity());
}

#[test]
fn potential_gradient_is_the_conservative_force() {
    let mut m = model();
    m.gravity = [0.4, -9.81];
    m.bodies = vec![
        rigid("a", 0.3, 0.4, 0.5),
        rigid("b", 1.2, -0.2, -0.8),
        point("p", -0.7, 0.6),
    ];
    m.joints = vec![joint("J", JointKind::Revolute, "a", "A", "b", "B")];
    m.forces = vec![
        ForceSpec::Tsda {
            name: "s".into(),
            body_i: "a".into(),
            point_i: Some("B".into()),
            body_j: "p".into(),
            point_j: None,
            stiffness: 50.0,
            free_length: Some(0.3),
            damping: 0.0,
            actuator: None,
        },
        ForceSpec::Rsda {
            name: "r".into(),
            joint: "J".into(),
            stiffness: 20.0,
            free_angle: 0.3,
            damping: 0.0,
            actuator: None,
        },
    ];
    let sys = PlanarSystem::new(&m).unwrap();
    let x = sys.initial_state(0.0);
    let n = sys.n();
    let mut q = Vector::zeros(n);
    sys.forces(0.0, &x.q, &x.v, &mut q);
    let grad = fd_q(n, 1, &x.q, |q| {
        Vector::from_element(1, sys.potential_energy(0.0, q))
    });
    assert_close("−∇V", &as_matrix(&q), &(-grad.transpose()));
    assert_eq!(sys.nonconservative_power(0.0, &x.q, &x.v), 0.0);
}

#[test]
fn body_frame_values_round_trip() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), point("p", -0.7, 0.6)];
    m.bodies[1].com = [0.1, 0.2];
    m.markers = vec![
        MarkerSpec {
            name: "tip".into(),
            body: "a".into(),
            point: Some("A".into()),
            angles: None,
        },
        MarkerSpec {
            name: "g".into(),
            body: GROUND.into(),
            point: Some("G".into()),
            angles: None,
        },
        MarkerSpec {
            name: "a_origin".into(),
            body: "a".into(),
            point: None,
            angles: None,
        },
    ];
    let sys = PlanarSystem::new(&m).unwrap();
    let x = sys.initial_state(0.5);
    assert_eq!(x.t, 0.5);
    for (b, spec) in m.bodies.iter().enumerate() {
        let pose = sys.body_pose(b, &x.q);
        let vel = sys.body_velocity(b, &x.q, &x.v);
        let (th, om) = match spec.kind {
            BodyKind::Rigid => (spec.theta, spec.omega),
            BodyKind::Point => (0.0, 0.0),
        };
        for (a, e) in pose.iter().zip([spec.x, spec.y, th]) {
            assert!((a - e).abs() < 1e-14, "{pose:?}");
        }
        for (a, e) in vel.iter().zip([spec.vx, spec.vy, om]) {
            assert!((a - e).abs() < 1e-14, "{vel:?}");
        }
    }
    // The centre of mass of `a` is at r_o + A com.
    let (s, c) = 0.5f64.sin_cos();
    let com = [0.31, -0.12];
    assert!((x.q[0] - (0.3 + c * com[0] - s * com[1])).abs() < 1e-15);
    assert_eq!(sys.coordinate_index(1, Coordinate::Theta), None);
    assert_eq!(sys.coordinate_index(1, Coordinate::Y), Some(4));
    assert_eq!(sys.body_index("p"), Some(1));
    assert_eq!(sys.body_index(GROUND), None);
    assert_eq!(sys.body_names(), vec!["a", "p"]);
    assert_eq!(sys.marker_names(), vec!["tip", "g", "a_origin"]);
    // Markers: the body-frame point A and the ground point; velocities by finite differences.
    let (r, v) = sys.marker_state(0, &x.q, &x.v);
    let pa = [0.8, 0.1];
    assert!((r[0] - (0.3 + c * pa[0] - s * pa[1])).abs() < 1e-14);
    assert!((r[1] - (0.4 + s * pa[0] + c * pa[1])).abs() < 1e-14);
    let rp = sys.marker_state(0, &(&x.q + &x.v * H), &x.v).0;
    let rm = sys.marker_state(0, &(&x.q - &x.v * H), &x.v).0;
    for k in 0..2 {
        assert!(((rp[k] - rm[k]) / (2.0 * H) - v[k]).abs() < 1e-8);
    }
    assert_eq!(sys.marker_state(1, &x.q, &x.v), ([1.5, 0.9], [0.0, 0.0]));
    let (r, v) = sys.marker_state(2, &x.q, &x.v);
    assert!((r[0] - 0.3).abs() < 1e-14 && (r[1] - 0.4).abs() < 1e-14);
    assert!((v[0] - 0.7).abs() < 1e-14 && (v[1] + 0.4).abs() < 1e-14);
}

#[test]
fn given_values_map_to_centroidal_coordinates() {
    let mut m = model();
    m.bodies = vec![rigid("a", 0.3, 0.4, 0.5), point("p", -0.7, 0.6)];
    m.bodies[0].given = vec![Coordinate::Theta, Coordinate::X];
    m.bodies[1].given_velocity = vec![Coordinate::Y];
    let g = PlanarSystem::new(&m).unwrap().given_values();
    assert_eq!(g.positions, vec![true, false, true, false, false]);
    assert_eq!(g.velocities, vec![false, false, false, false, true]);
}

/// A uniform rod of length 1 hanging at rest from a ground pin: the joint carries its weight.
#[test]
fn pendulum_reaction_is_its_weight() {
    let mut m = model();
    m.gravity = [0.0, -9.81];
    let mut rod = rigid("rod", 0.2, -0.3, -std::f64::consts::FRAC_PI_2);
    rod.com = [0.5, 0.0];
    rod.points = BTreeMap::new();
    rod.vx = 0.0;
    rod.vy = 0.0;
    rod.omega = 0.0;
    m.bodies = vec![rod];
    m.joints = vec![joint(
        "O",
        JointKind::Revolute,
        GROUND,
        "O",
        "rod",
        "origin",
    )];
    let sys = PlanarSystem::new(&m).unwrap();
    let mut x = sys.initial_state(0.0);
    consistent_accelerations(&sys, &mut x);
    assert!(x.a.amax() < 1e-12, "{}", x.a);
    let r = sys.joint_reaction(0, &x.q, &x.lambda);
    let w = 1.7 * 9.81;
    assert!(
        r[0].abs() < 1e-12 && (r[1] - w).abs() < 1e-12 && r[2] == 0.0,
        "{r:?}"
    );

    // The same rod cantilevered horizontally by a fixed joint: force w up, torque w · 0.5 about the
    // joint point (counter-clockwise, holding the rod up).
    m.bodies[0].theta = 0.0;
    m.joints[0].kind = JointKind::Fixed;
    let sys = PlanarSystem::new(&m).unwrap();
    let mut x = sys.initial_state(0.0);
    consistent_accelerations(&sys, &mut x);
    let r = sys.joint_reaction(0, &x.q, &x.lambda);
    assert!(
        r[0].abs() < 1e-12 && (r[1] - w).abs() < 1e-12 && (r[2] - 0.5 * w).abs() < 1e-12,
        "{r:?}"
    );

    // A point mass hanging at rest on a rod (distance joint) below the ground point O.
    let mut mp = model();
    mp.gravity = [0.0, -9.81];
    let mut bob = point("bob", 0.2, -1.3);
    bob.vx = 0.0;
    bob.vy = 0.0;
    mp.bodies = vec![bob];
    mp.joints = vec![joint(
        "rod",
        JointKind::Distance,
        GROUND,
        "O",
        "bob",
        "origin",
    )];
    let sys = PlanarSystem::new(&mp).unwrap();
    let mut x = sys.initial_state(0.0);
    consistent_accelerations(&sys, &mut x);
    let r = sys.joint_reaction(0, &x.q, &x.lambda);
    let wp = 0.9 * 9.81;
    assert!(
        r[0].abs() < 1e-12 && (r[1] - wp).abs() < 1e-12 && r[2].abs() < 1e-12,
        "{r:?}"
    );

    // Ground as body j: the reaction on the ground is the opposite of the weight.
    m.joints[0] = joint("O", JointKind::Fixed, "rod", "origin", GROUND, "O");
    let sys = PlanarSystem::new(&m).unwrap();
    let mut x = sys.initial_state(0.0);
    consistent_accelerations(&sys, &mut x);
    let r = sys.joint_reaction(0, &x.q, &x.lambda);
    assert!(
        r[0].abs() < 1e-12 && (r[1] + w).abs() < 1e-12 && (r[2] + 0.5 * w).abs() < 1e-12,
        "{r:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Construction errors
// ---------------------------------------------------------------------------------------------

/// The path and the text of the first issue [`PlanarSystem::new`] reports for `m`, which must be
/// refused with the model checks' issues.
fn issue_of(m: &Model) -> (String, String) {
    match PlanarSystem::new(m) {
        Err(PlanarError::Invalid { issues }) => {
            assert_eq!(issues, validate::check_elements(m), "one source of rules");
            (
                validate::path_string(&issues[0].path),
                issues[0].to_string(),
            )
        }
        Err(e) => panic!("expected the model checks' issues, got: {e}"),
        Ok(_) => panic!("should be refused"),
    }
}

/// Asserts that `m` is refused at `path` with a message containing `text`.
/// A torque `torque` on `body` (`torque: None` is refused).
fn torque(name: &str, body: &str, torque: Option<FunctionSpec>) -> ForceSpec {
    ForceSpec::Torque {
        name: name.into(),
        body: body.into(),
        torque,
        tx: None,
        ty: None,
        tz: None,
        frame: Axes::Global,
    }
}

fn refused(m: &Model, path: &str, text: &str) {
    let (p, message) = issue_of(m);
    assert_eq!(p, path, "{message}");
    assert!(
        message.contains(text),
        "`{message}` should contain `{text}`"
    );
}

/// Every rule is checked once, by `model::validate`, and the assembler refuses a model built in
/// code with the same issues (path, entity, message) that the file reader locates by line.
#[test]
fn construction_errors_name_the_entity() {
    let mut base = model();
    base.bodies = vec![rigid("crank", 0.3, 0.4, 0.5), point("p", -0.7, 0.6)];
    base.joints = vec![
        joint("O", JointKind::Revolute, GROUND, "O", "crank", "A"),
        joint("F", JointKind::Fixed, "crank", "A", "p", "origin"),
    ];
    PlanarSystem::new(&base).expect("the base model is valid");
    let with_joint = |j: JointSpec| {
        let mut m = base.clone();
        m.joints.push(j);
        m
    };

    let m = with_joint(joint("B", JointKind::Revolute, "crank", "Q", "p", "origin"));
    refused(
        &m,
        "joints[2].point_i",
        "joint `B`: body `crank` has no point `Q`",
    );
    let m = with_joint(joint(
        "B",
        JointKind::Revolute,
        "crank",
        "A",
        "nope",
        "origin",
    ));
    refused(&m, "joints[2].body_j", "unknown body `nope`");
    let m = with_joint(joint(
        "B",
        JointKind::Revolute,
        "p",
        "origin",
        "p",
        "origin",
    ));
    refused(&m, "joints[2].body_j", "joins body `p` to itself");

    let mut m = base.clone();
    m.bodies[0].mass = 0.0;
    refused(&m, "bodies[0].mass", "body `crank`: mass must be positive");
    m.bodies[0].mass = f64::NAN;
    refused(&m, "bodies[0].mass", "mass must be positive and finite");
    let mut m = base.clone();
    m.bodies[0].inertia = None;
    refused(&m, "bodies[0].inertia", "needs an `inertia`");
    m.bodies[0].inertia = Some(-1.0);
    refused(&m, "bodies[0].inertia", "inertia must be positive");
    let mut m = base.clone();
    m.bodies[1].inertia = Some(1.0);
    refused(
        &m,
        "bodies[1].inertia",
        "body `p`: a point mass has no inertia",
    );
    let mut m = base.clone();
    m.bodies.push(rigid("crank", 0.0, 0.0, 0.0));
    refused(&m, "bodies[2].name", "duplicate body name `crank`");
    let mut m = base.clone();
    m.bodies.push(rigid(GROUND, 0.0, 0.0, 0.0));
    refused(&m, "bodies[2].name", "may not be named `ground`");

    // A prismatic axis is accepted exactly when it can be normalized (the rule used to differ
    // between the checks, > 0, and the assembler, > 1e-12).
    let mut p = joint("P", JointKind::Prismatic, GROUND, "G", "crank", "B");
    p.axis = Some([0.0, 0.0]);
    refused(&with_joint(p.clone()), "joints[2].axis", "has no direction");
    p.axis = Some([1e-200, 0.0]);
    refused(&with_joint(p.clone()), "joints[2].axis", "has no direction");
    p.axis = Some([1e-13, 0.0]);
    PlanarSystem::new(&with_joint(p)).expect("a small axis has a direction");

    let mut d = joint("D", JointKind::Distance, "crank", "A", "p", "origin");
    d.length = Some(0.0);
    refused(
        &with_joint(d.clone()),
        "joints[2].length",
        "length must be at least",
    );
    // Without a length, the initial distance of the points: here crank's A and p coincide.
    d.length = None;
    let mut m = with_joint(d);
    let x = PlanarSystem::new(&base).unwrap().initial_state(0.0);
    let crank = kinematics::Frame::new([x.q[0], x.q[1]], x.q[2]);
    let a = crank.rot(
        PlanarSystem::new(&base)
            .unwrap()
            .body(0)
            .point("A")
            .unwrap(),
    );
    m.bodies[1].x = crank.r[0] + a[0];
    m.bodies[1].y = crank.r[1] + a[1];
    refused(&m, "joints[2].body_j", "apart initially");

    let with_driver = |d: DriverSpec| {
        let mut m = base.clone();
        m.drivers.push(d);
        m
    };
    let c0 = FunctionSpec::Constant(0.0);
    refused(
        &with_driver(joint_driver("d", "F", c0.clone())),
        "drivers[0].joint",
        "no value to drive",
    );
    refused(
        &with_driver(joint_driver("d", "X", c0.clone())),
        "drivers[0].joint",
        "unknown joint `X`",
    );
    let theta = coordinate_driver("d", "p", Coordinate::Theta, c0.clone());
    refused(
        &with_driver(theta),
        "drivers[0].coordinate",
        "point mass and has no rotation",
    );
    refused(
        &with_driver(coordinate_driver("d", "crank", Coordinate::Z, c0.clone())),
        "drivers[0].coordinate",
        "which a planar body does not have",
    );
    let mut rotation = joint_driver("d", "O", c0.clone());
    rotation.motion = Some(JointMotion::Rotation);
    refused(
        &with_driver(rotation),
        "drivers[0].motion",
        "read only in spatial models",
    );
    let ground = coordinate_driver("d", GROUND, Coordinate::X, c0.clone());
    refused(
        &with_driver(ground),
        "drivers[0].body",
        "cannot act on the ground",
    );
    let expr = FunctionSpec::Tagged(TaggedFunction::Expression {
        expr: "sin(x)".into(),
    });
    refused(
        &with_driver(joint_driver("d", "O", expr)),
        "drivers[0].function.expr",
        "invalid time function",
    );

    let with_force = |f: ForceSpec| {
        let mut m = base.clone();
        m.forces.push(f);
        m
    };
    let rsda = |joint: &str| ForceSpec::Rsda {
        name: "r".into(),
        joint: joint.into(),
        stiffness: 1.0,
        free_angle: 0.0,
        damping: 0.0,
        actuator: None,
    };
    refused(
        &with_force(rsda("F")),
        "forces[0].joint",
        "an rsda acts at a revolute joint",
    );
    let mut m = with_force(rsda("R"));
    m.joints
        .push(joint("R", JointKind::Revolute, "crank", "B", "p", "origin"));
    refused(
        &m,
        "forces[0].joint",
        "connects point mass `p`, which cannot take a torque",
    );
    refused(
        &with_force(torque("t", "p", Some(FunctionSpec::Constant(1.0)))),
        "forces[0].body",
        "body `p` is a point mass",
    );
    refused(
        &with_force(torque("t", "crank", None)),
        "forces[0].torque",
        "needs its value `torque`",
    );
    let mut spatial_torque = torque("t", "crank", Some(FunctionSpec::Constant(1.0)));
    if let ForceSpec::Torque { tz, .. } = &mut spatial_torque {
        *tz = Some(FunctionSpec::Constant(1.0));
    }
    refused(
        &with_force(spatial_torque),
        "forces[0].tz",
        "read only in spatial models",
    );
    let vertical = ForceSpec::Force {
        name: "f".into(),
        body: "crank".into(),
        point: None,
        fx: None,
        fy: None,
        fz: Some(FunctionSpec::Constant(1.0)),
        frame: Axes::Global,
    };
    refused(
        &with_force(vertical),
        "forces[0].fz",
        "read only in spatial models",
    );
    let tsda = |body_i: &str, point_i: &str, body_j: &str| ForceSpec::Tsda {
        name: "s".into(),
        body_i: body_i.into(),
        point_i: Some(point_i.into()),
        body_j: body_j.into(),
        point_j: None,
        stiffness: 1.0,
        free_length: None,
        damping: 0.0,
        actuator: None,
    };
    refused(
        &with_force(tsda("crank", "B", "crank")),
        "forces[0].body_j",
        "connects body `crank` to itself",
    );
    // crank's A and p coincide initially (as above): the TSDA has no direction.
    let mut m = with_force(tsda("crank", "A", "p"));
    m.bodies[1].x = crank.r[0] + a[0];
    m.bodies[1].y = crank.r[1] + a[1];
    refused(&m, "forces[0].body_j", "apart initially");

    let mut m = base.clone();
    m.markers.push(MarkerSpec {
        name: "mk".into(),
        body: GROUND.into(),
        point: Some("Z".into()),
        angles: None,
    });
    refused(&m, "markers[0].point", "the ground has no point `Z`");
}
