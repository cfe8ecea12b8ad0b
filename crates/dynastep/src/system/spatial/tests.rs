//! Tests of the spatial system: every element's derivatives against finite differences, the
//! energy of a free body, reactions, and construction errors.

use super::*;
use crate::model::function::{FunctionSpec, TaggedFunction};
use crate::model::spatial::*;
use crate::model::{
    Axes, Coordinate, DriverKind, DriverSpec, ForceSpec, JointMotion, MarkerSpec, Model,
};
use crate::system::derivative_check::{check_derivatives, noise};
use crate::system::mechanism::Mechanism;
use crate::system::spatial::kinematics::LPattern;

fn rigid(name: &str, position: [f64; 3], axis: [f64; 3], angle: f64) -> SpatialBodySpec {
    SpatialBodySpec {
        name: name.into(),
        kind: SpatialBodyKind::Rigid,
        mass: 1.3,
        inertia: None,
        inertia_tensor: Some([[0.3, 0.02, -0.01], [0.02, 0.25, 0.03], [-0.01, 0.03, 0.2]]),
        position,
        orientation: OrientationSpec {
            axis: Some(axis),
            angle: Some(angle),
            ..Default::default()
        },
        velocity: [0.1, -0.2, 0.3],
        angular_velocity: [0.5, -1.0, 2.0],
        angular_velocity_axes: Axes::Global,
        points: [("P".to_string(), [0.2, -0.1, 0.3])].into(),
        shape: None,
    }
}

/// Every spatial joint kind.
const ALL_KINDS: [SpatialJointKind; 8] = {
    use SpatialJointKind as K;
    [
        K::Spherical,
        K::Revolute,
        K::Cylindrical,
        K::Prismatic,
        K::Universal,
        K::Fixed,
        K::Distance,
        K::Planar,
    ]
};

fn joint(kind: SpatialJointKind, bi: &str, bj: &str) -> SpatialJointSpec {
    SpatialJointSpec {
        name: format!("{kind:?}"),
        kind,
        body_i: bi.into(),
        point_i: None,
        body_j: bj.into(),
        point_j: Some("P".into()).filter(|_| bj != "ground"),
        at: None,
        axis: Some([0.3, 1.0, -0.4]),
        axis_j: (kind == SpatialJointKind::Universal).then_some([1.0, -0.3, 0.0]),
        length: None,
        frame_i: None,
        frame_j: None,
    }
}

fn model(joints: Vec<SpatialJointSpec>, forces: Vec<ForceSpec>) -> Model {
    let mut point = rigid("m", [0.5, 0.5, 0.5], [1.0, 0.0, 0.0], 0.0);
    point.kind = SpatialBodyKind::Point;
    point.inertia_tensor = None;
    point.orientation = OrientationSpec::default();
    point.angular_velocity = [0.0; 3];
    point.points.clear();
    Model {
        spatial: Some(SpatialSpec {
            gravity: [0.0, -9.81, 1.0],
            ground: [("G".to_string(), [0.1, 0.2, -0.3])].into(),
            bodies: vec![
                rigid("a", [0.4, 0.1, -0.2], [1.0, 2.0, 3.0], 0.7),
                rigid("b", [1.1, -0.3, 0.5], [-1.0, 0.5, 0.2], 1.9),
                point,
            ],
            joints,
            drivers: vec![],
            forces,
            markers: vec![MarkerSpec {
                name: "M".into(),
                body: "b".into(),
                point: Some("P".into()),
                angles: Some("zyx".into()),
            }],
            beams: Vec::new(),
        }),
        ..Default::default()
    }
}

/// Asserts that the structural patterns of every joint row and driver ([`Kernel::gradient_columns`],
/// [`Kernel::hessian_pattern`]) hold every entry that is not zero at q, for multipliers `lambda`
/// (so that nothing the elements leave out is lost; the finite-difference checks see the same), and
/// that each entry they hold is not zero there (so that they leave out every structural zero).
fn check_patterns(sys: &SpatialSystem, q: &Vector, lambda: &Vector) {
    let check = |what: &str, slots: &Slots, g: &LVec, cols: Cols, h: &LMat, hp: &LPattern| {
        for &(a, _) in slots.existing() {
            assert_eq!(
                g[a] != 0.0,
                cols.contains(a),
                "{what}: Φ_q slot {a} = {}",
                g[a]
            );
            for &(b, _) in slots.existing() {
                let inside = hp.row(a).contains(b);
                assert_eq!(
                    h[a][b] != 0.0,
                    inside,
                    "{what}: λΦ_qq ({a}, {b}) = {}",
                    h[a][b]
                );
            }
        }
    };
    for j in &sys.joints {
        let x = j.slots.sides(&j.slots.gather(q));
        let mut h = [[0.0; NS]; NS];
        for (r, k) in j.rows.iter().enumerate() {
            k.add_hessian(&j.slots, &x, lambda[j.first_row + r], &mut h);
            let (_, g) = k.value_and_gradient(&j.slots, &x);
            let name = format!("{} row {r}", j.name);
            check(
                &name,
                &j.slots,
                &g,
                j.row_columns[r],
                &[[0.0; NS]; NS],
                &LPattern::default(),
            );
        }
        check(
            &j.name,
            &j.slots,
            &[0.0; NS],
            Cols::default(),
            &h,
            &j.hessian,
        );
    }
    for d in &sys.drivers {
        let x = d.slots.sides(&d.slots.gather(q));
        let mut h = [[0.0; NS]; NS];
        d.add_hessian(0.3, &x, lambda[d.row], &mut h);
        check(
            &d.name,
            &d.slots,
            &d.gradient(0.3, &x),
            d.columns,
            &h,
            &d.hessian,
        );
    }
}

/// Derivatives at a state off the constraint manifold (and off the unit sphere of p).
fn check(model: &Model) -> SpatialSystem {
    let sys = SpatialSystem::new(model).expect("builds");
    let x = sys.initial_state(0.3);
    let q = &x.q + noise(sys.n(), 1) * 0.05;
    let v = &x.v + noise(sys.n(), 2);
    check_derivatives(&sys, 0.3, &q, &v);
    check_patterns(&sys, &q, &noise(sys.m(), 3));
    sys
}

#[test]
fn every_joint_kind_between_two_bodies_and_to_the_ground() {
    use SpatialJointKind as K;
    for kind in ALL_KINDS {
        check(&model(vec![joint(kind, "a", "b")], vec![]));
        check(&model(vec![joint(kind, "ground", "b")], vec![]));
        check(&model(vec![joint(kind, "b", "ground")], vec![]));
    }
    // Point masses take spherical and distance joints.
    check(&model(
        vec![joint(K::Spherical, "a", "m")]
            .into_iter()
            .map(|mut j| {
                j.point_j = None;
                j
            })
            .collect(),
        vec![],
    ));
    check(&model(vec![joint(K::Distance, "m", "b")], vec![]));
}

/// The evaluation cache (`evaluation.rs`) answers a configuration asked for again, after one or two
/// others, with what a system that never saw the others computes.
#[test]
fn cached_rows_are_those_of_the_configuration_asked_for() {
    use crate::linalg::Matrix;
    use SpatialJointKind as K;
    let m = model(
        vec![
            joint(K::Revolute, "ground", "a"),
            joint(K::Universal, "a", "b"),
        ],
        vec![],
    );
    let sys = SpatialSystem::new(&m).expect("builds");
    let x = sys.initial_state(0.0);
    let qs: Vec<Vector> = (1..4).map(|k| &x.q + noise(sys.n(), k) * 0.1).collect();
    let rows = |s: &SpatialSystem, q: &Vector| {
        let mut phi = Vector::zeros(s.m());
        let mut jac = Matrix::zeros(s.m(), s.n());
        s.constraints(0.0, q, &mut phi);
        s.constraint_jacobian(0.0, q, 1.0, &mut jac);
        (phi, jac)
    };
    for order in [[0, 1, 0], [0, 1, 2], [2, 1, 0], [1, 1, 2]] {
        for &k in &order {
            let fresh = SpatialSystem::new(&m).expect("builds");
            assert_eq!(
                rows(&sys, &qs[k]),
                rows(&fresh, &qs[k]),
                "configuration {k} of {order:?}"
            );
        }
    }
}

#[test]
fn spring_dampers_and_gyroscopic_forces() {
    let tsda = |bi: &str, bj: &str| ForceSpec::Tsda {
        name: format!("{bi}{bj}"),
        body_i: bi.into(),
        point_i: Some(if bi == "ground" { "G" } else { "P" }.into()),
        body_j: bj.into(),
        point_j: None,
        stiffness: 300.0,
        free_length: Some(0.2),
        damping: 7.0,
        actuator: (bi == "a").then(|| harmonic(1.5, 0.2)),
    };
    check(&model(
        vec![],
        vec![tsda("a", "b"), tsda("a", "m"), tsda("ground", "b")],
    ));
}

#[test]
fn joints_hold_at_the_initial_configuration() {
    for kind in ALL_KINDS {
        let mut j = joint(kind, "a", "b");
        if kind != SpatialJointKind::Distance {
            // A distance joint joins two named points (`at` would make them one).
            j.point_j = None;
            j.at = Some([0.7, 0.0, 0.2]);
        }
        let sys = SpatialSystem::new(&model(vec![j], vec![])).expect("builds");
        let x = sys.initial_state(0.0);
        let mut phi = Vector::zeros(sys.m());
        sys.constraints(0.0, &x.q, &mut phi);
        assert!(phi.amax() < 1e-14, "{kind:?}: Φ = {phi}");
    }
}

#[test]
fn kinetic_energy_and_angular_velocity_from_the_initial_state() {
    // Initial velocities: ṗ = ½ Eᵀ ω, so the body's kinetic energy is ½ m v² + ½ ωᵀ A J' Aᵀ ω.
    let sys = SpatialSystem::new(&model(vec![], vec![])).expect("builds");
    let x = sys.initial_state(0.0);
    let mut scratch = Vector::zeros(sys.n());
    let e = sys.energy(0.0, &x.q, &x.v, &mut scratch);
    let spec = model(vec![], vec![]).spatial.unwrap();
    let w = V3::from(spec.bodies[0].angular_velocity);
    let expected: f64 = spec
        .bodies
        .iter()
        .map(|b| {
            let v = V3::from(b.velocity);
            let rotational = match b.kind {
                SpatialBodyKind::Rigid => {
                    let (a, j) = (
                        b.orientation.rotation().unwrap(),
                        b.inertia_matrix().unwrap(),
                    );
                    let w = V3::from(b.angular_velocity);
                    0.5 * w.dot(&(a * j * a.transpose() * w))
                }
                SpatialBodyKind::Point => 0.0,
            };
            0.5 * b.mass * v.norm_squared() + rotational
        })
        .sum();
    assert!(
        (e.kinetic - expected).abs() < 1e-12 * e.kinetic,
        "{} vs {expected}",
        e.kinetic
    );
    let mut out = Vec::new();
    sys.push_body_velocity(0, &x.q, &x.v, &mut out);
    assert!((V3::new(out[3], out[4], out[5]) - w).norm() < 1e-14);
}

fn refused(model: &Model, path: &str, text: &str) {
    let issues = crate::model::validate::check(model);
    assert!(
        issues
            .iter()
            .any(|i| crate::model::validate::path_string(&i.path) == path
                && i.message.contains(text)),
        "expected `{text}` at {path}, got {issues:#?}"
    );
}

#[test]
fn construction_errors_name_the_entry() {
    use SpatialJointKind as K;
    let mut j = joint(K::Revolute, "a", "b");
    j.axis = Some([0.0, 0.0, 0.0]);
    refused(
        &model(vec![j], vec![]),
        "spatial.joints[0].axis",
        "degenerate",
    );
    let mut j = joint(K::Revolute, "a", "b");
    j.axis = None;
    refused(
        &model(vec![j], vec![]),
        "spatial.joints[0].axis",
        "needs `axis`",
    );
    let mut j = joint(K::Universal, "a", "b");
    j.axis_j = Some([0.3, 1.0, -0.4]);
    refused(
        &model(vec![j], vec![]),
        "spatial.joints[0].axis_j",
        "perpendicular",
    );
    refused(
        &model(vec![joint(K::Revolute, "a", "m")], vec![]),
        "spatial.joints[0].body_j",
        "point mass",
    );
    let mut j = joint(K::Distance, "a", "b");
    j.at = Some([0.7, 0.0, 0.2]);
    refused(
        &model(vec![j], vec![]),
        "spatial.joints[0].at",
        "makes them one",
    );
    let coincident = ForceSpec::Tsda {
        name: "s".into(),
        body_i: "a".into(),
        point_i: None,
        body_j: "a2".into(),
        point_j: None,
        stiffness: 1.0,
        free_length: None,
        damping: 0.0,
        actuator: None,
    };
    let mut m = model(vec![], vec![coincident]);
    let mut twin = m.spatial.as_ref().unwrap().bodies[0].clone();
    twin.name = "a2".into();
    m.spatial.as_mut().unwrap().bodies.push(twin);
    refused(&m, "spatial.forces[0].body_j", "needs a direction");
    refused(
        &model(vec![joint(K::Revolute, "a", "bb")], vec![]),
        "spatial.joints[0].body_j",
        "unknown body `bb`",
    );
    let mut m = model(vec![], vec![]);
    m.spatial.as_mut().unwrap().bodies[0].inertia_tensor =
        Some([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.5]]);
    refused(
        &m,
        "spatial.bodies[0].inertia_tensor",
        "triangle inequality",
    );
    let mut m = model(vec![], vec![]);
    m.spatial.as_mut().unwrap().bodies[0].inertia_tensor =
        Some([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 0.5]]);
    refused(
        &m,
        "spatial.bodies[0].inertia_tensor",
        "not positive definite",
    );
    let mut m = model(vec![], vec![]);
    m.spatial.as_mut().unwrap().bodies[1].orientation = OrientationSpec {
        matrix: Some([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]),
        ..Default::default()
    };
    refused(
        &m,
        "spatial.bodies[1].orientation.matrix",
        "not a rotation matrix",
    );
    let mut m = model(vec![], vec![]);
    m.spatial.as_mut().unwrap().bodies[1].orientation = OrientationSpec {
        sequence: Some("zzx".into()),
        angles: Some([0.1, 0.2, 0.3]),
        ..Default::default()
    };
    refused(
        &m,
        "spatial.bodies[1].orientation.sequence",
        "not an Euler or Cardan sequence",
    );
}

#[test]
fn orientation_forms_agree() {
    let angle: f64 = 0.9;
    let axis = [0.0, 0.0, 1.0];
    let by_axis = OrientationSpec {
        axis: Some(axis),
        angle: Some(angle),
        ..Default::default()
    };
    let (s, c) = (0.5 * angle).sin_cos();
    let by_p = OrientationSpec {
        euler_parameters: Some([c, 0.0, 0.0, s]),
        ..Default::default()
    };
    let by_seq = OrientationSpec {
        sequence: Some("zxz".into()),
        angles: Some([0.4, 0.0, 0.5]),
        ..Default::default()
    };
    let (a, b, d) = (
        by_axis.rotation().unwrap(),
        by_p.rotation().unwrap(),
        by_seq.rotation().unwrap(),
    );
    assert!((a - b).norm() < 1e-15 && (a - d).norm() < 1e-15);
    let by_matrix = OrientationSpec {
        matrix: Some([
            [a[(0, 0)], a[(0, 1)], a[(0, 2)]],
            [a[(1, 0)], a[(1, 1)], a[(1, 2)]],
            [a[(2, 0)], a[(2, 1)], a[(2, 2)]],
        ]),
        ..Default::default()
    };
    assert!((by_matrix.rotation().unwrap() - a).norm() < 1e-15);
}

fn harmonic(amplitude: f64, offset: f64) -> FunctionSpec {
    FunctionSpec::Tagged(TaggedFunction::Harmonic {
        amplitude,
        omega: 3.0,
        phase: 0.4,
        offset,
    })
}

fn drive(joint: &SpatialJointKind, motion: Option<JointMotion>) -> DriverSpec {
    DriverSpec {
        name: format!("drive {joint:?} {motion:?}"),
        kind: DriverKind::Joint,
        joint: Some(format!("{joint:?}")),
        body: None,
        coordinate: None,
        motion,
        function: harmonic(0.7, 0.2),
    }
}

#[test]
fn drivers_of_rotation_and_translation() {
    use JointMotion::{Rotation, Translation};
    use SpatialJointKind as K;
    for (kind, motion) in [
        (K::Revolute, None),
        (K::Prismatic, None),
        (K::Cylindrical, Some(Rotation)),
        (K::Cylindrical, Some(Translation)),
    ] {
        for (bi, bj) in [("a", "b"), ("ground", "b"), ("b", "ground")] {
            let mut m = model(vec![joint(kind, bi, bj)], vec![]);
            m.spatial.as_mut().unwrap().drivers = vec![drive(&kind, motion)];
            let sys = check(&m);
            assert!(sys.driving_constraint(sys.m() - 1));
        }
    }
}

/// A coordinate driver of each centroid coordinate of a rigid body and a point mass: its row is
/// e_kᵀ r − f(t) (checked at the initial state against the body's position), and its derivatives
/// pass the finite-difference checks.
#[test]
fn coordinate_drivers_of_a_centroid() {
    for (body, k, coordinate) in [
        ("a", 0, Coordinate::X),
        ("b", 1, Coordinate::Y),
        ("m", 2, Coordinate::Z),
    ] {
        let mut m = model(vec![], vec![]);
        let mut d = drive(&SpatialJointKind::Revolute, None);
        d.kind = DriverKind::Coordinate;
        d.joint = None;
        d.body = Some(body.into());
        d.coordinate = Some(coordinate);
        m.spatial.as_mut().unwrap().drivers = vec![d];
        let sys = check(&m);
        let x = sys.initial_state(0.0);
        let mut phi = Vector::zeros(sys.m());
        sys.constraints(0.0, &x.q, &mut phi);
        let r = m
            .spatial
            .as_ref()
            .unwrap()
            .bodies
            .iter()
            .find(|b| b.name == body)
            .unwrap()
            .position;
        let f0 = 0.7 * 0.4_f64.sin() + 0.2;
        let row = phi[sys.m() - 1];
        assert!(
            (row - (r[k] - f0)).abs() < 1e-14,
            "{body}.{coordinate:?}: {row}"
        );
    }
}

#[test]
fn a_driver_holds_at_its_function_value() {
    // The driven joint at its initial configuration: angle and displacement 0, so the row equals
    // −f(0) for a translation and −sin f(0) for a rotation.
    use SpatialJointKind as K;
    for (kind, motion) in [
        (K::Revolute, JointMotion::Rotation),
        (K::Prismatic, JointMotion::Translation),
    ] {
        let mut j = joint(kind, "a", "b");
        j.point_j = None;
        j.at = Some([0.7, 0.0, 0.2]);
        let mut m = model(vec![j], vec![]);
        m.spatial.as_mut().unwrap().drivers = vec![drive(&kind, None)];
        let sys = SpatialSystem::new(&m).expect("builds");
        let x = sys.initial_state(0.0);
        let mut phi = Vector::zeros(sys.m());
        sys.constraints(0.0, &x.q, &mut phi);
        let f0 = 0.7 * 0.4_f64.sin() + 0.2;
        let expected = match motion {
            JointMotion::Rotation => -f0.sin(),
            JointMotion::Translation => -f0,
        };
        assert!(
            (phi[sys.m() - 1] - expected).abs() < 1e-14,
            "{kind:?}: {} vs {expected}",
            phi[sys.m() - 1]
        );
    }
}

#[test]
fn applied_forces_and_torques() {
    let load = |name: &str, body: &str, torque: bool, frame: Axes| {
        let f = |a: f64| Some(harmonic(a, 0.1));
        if torque {
            ForceSpec::Torque {
                name: name.into(),
                body: body.into(),
                torque: None,
                tx: f(0.3),
                ty: None,
                tz: f(-0.8),
                frame,
            }
        } else {
            ForceSpec::Force {
                name: name.into(),
                body: body.into(),
                point: Some("P".into()).filter(|_| body != "m"),
                fx: f(2.0),
                fy: f(-1.0),
                fz: None,
                frame,
            }
        }
    };
    let sys = check(&model(
        vec![],
        vec![
            load("fa", "a", false, Axes::Global),
            load("fb", "b", false, Axes::Body),
            load("fm", "m", false, Axes::Global),
            load("ta", "a", true, Axes::Global),
            load("tb", "b", true, Axes::Body),
        ],
    ));
    let mut breaks = Vec::new();
    sys.breakpoints(&mut breaks);
    assert!(breaks.is_empty());
}

#[test]
fn driver_and_load_errors_name_the_entry() {
    use SpatialJointKind as K;
    let mut m = model(vec![joint(K::Cylindrical, "a", "b")], vec![]);
    m.spatial.as_mut().unwrap().drivers = vec![drive(&K::Cylindrical, None)];
    refused(&m, "spatial.drivers[0].joint", "rotates and translates");
    let mut m = model(vec![joint(K::Spherical, "a", "b")], vec![]);
    m.spatial.as_mut().unwrap().drivers = vec![drive(&K::Spherical, None)];
    refused(&m, "spatial.drivers[0].joint", "no such motion");
    let mut m = model(vec![joint(K::Revolute, "a", "b")], vec![]);
    m.spatial.as_mut().unwrap().drivers = vec![drive(&K::Revolute, Some(JointMotion::Translation))];
    refused(&m, "spatial.drivers[0].motion", "no such motion");
    let mut coordinate = drive(&K::Revolute, None);
    coordinate.kind = DriverKind::Coordinate;
    m.spatial.as_mut().unwrap().drivers = vec![coordinate];
    refused(&m, "spatial.drivers[0].body", "needs `body`");
    let mut theta = drive(&K::Revolute, None);
    theta.kind = DriverKind::Coordinate;
    theta.joint = None;
    theta.body = Some("ground".into());
    theta.coordinate = Some(Coordinate::Theta);
    m.spatial.as_mut().unwrap().drivers = vec![theta];
    refused(&m, "spatial.drivers[0].coordinate", "no single angle");
    refused(&m, "spatial.drivers[0].body", "cannot act on the ground");
    let mut nameless = drive(&K::Revolute, None);
    nameless.joint = None;
    nameless.body = Some("a".into());
    m.spatial.as_mut().unwrap().drivers = vec![nameless];
    refused(&m, "spatial.drivers[0].joint", "needs `joint`");
    refused(&m, "spatial.drivers[0].body", "not used by a joint driver");
    let torque = ForceSpec::Torque {
        name: "t".into(),
        body: "m".into(),
        torque: None,
        tx: None,
        ty: None,
        tz: None,
        frame: Axes::Global,
    };
    refused(
        &model(vec![], vec![torque]),
        "spatial.forces[0].body",
        "does not rotate",
    );
    let planar_torque = ForceSpec::Torque {
        name: "t".into(),
        body: "a".into(),
        torque: Some(FunctionSpec::Constant(1.0)),
        tx: None,
        ty: None,
        tz: None,
        frame: Axes::Global,
    };
    refused(
        &model(vec![], vec![planar_torque]),
        "spatial.forces[0].torque",
        "read only in planar models",
    );
    let force = ForceSpec::Force {
        name: "f".into(),
        body: "ground".into(),
        point: None,
        fx: None,
        fy: None,
        fz: None,
        frame: Axes::Global,
    };
    refused(
        &model(vec![], vec![force]),
        "spatial.forces[0].body",
        "ground",
    );
}

fn rsda(joint: &str, damping: f64) -> ForceSpec {
    ForceSpec::Rsda {
        name: format!("rsda {joint}"),
        joint: joint.into(),
        stiffness: 40.0,
        free_angle: 0.3,
        damping,
        actuator: Some(harmonic(0.5, 0.0)),
    }
}

#[test]
fn rotational_spring_dampers() {
    use SpatialJointKind as K;
    for kind in [K::Revolute, K::Cylindrical] {
        for (bi, bj) in [("a", "b"), ("ground", "b"), ("b", "ground")] {
            let name = format!("{kind:?}");
            check(&model(vec![joint(kind, bi, bj)], vec![rsda(&name, 0.7)]));
        }
    }
    let refused_kind = model(
        vec![joint(K::Spherical, "a", "b")],
        vec![rsda("Spherical", 0.0)],
    );
    refused(
        &refused_kind,
        "spatial.forces[0].joint",
        "revolute or cylindrical",
    );
}

/// A disc (I = 0.02 kg m² about its axis) on a revolute joint about z with an RSDA (k = 2 N m/rad)
/// and no gravity, started at 1 rad/s: θ(t) = sin(ω t)/ω with ω = √(k/I) = 10 rad/s.
#[test]
fn an_rsda_oscillator_has_its_natural_frequency() {
    use crate::analysis::dynamic::Recorder;
    use crate::analysis::simulation::{RunOptions, Simulation};
    let text = r#"
name = "torsion oscillator"
[spatial]
[[spatial.bodies]]
name = "disc"
mass = 1.0
inertia = [0.01, 0.01, 0.02]
angular_velocity = [0.0, 0.0, 1.0]
[[spatial.joints]]
name = "axle"
type = "revolute"
body_i = "ground"
body_j = "disc"
axis = [0.0, 0.0, 1.0]
[[spatial.forces]]
type = "rsda"
name = "spring"
joint = "axle"
stiffness = 2.0
[solver]
scheme = "esdirk4-6"
dt = 1e-4
t_end = 1.0
output_interval = 0.05
step = { rtol = 1e-11 }
"#;
    let m = crate::model::parse::from_str(text, "torsion.toml").expect("valid");
    let mut sim = Simulation::new(&m, &RunOptions::default()).expect("runs");
    let mut rec = Recorder::default();
    let report = sim.run(&mut [&mut rec]);
    assert!(matches!(
        report.status,
        crate::analysis::dynamic::RunStatus::Completed
    ));
    let worst = rec
        .states
        .iter()
        .map(|x| {
            let theta = 2.0 * x.q[6].atan2(x.q[3]);
            (theta - (10.0 * x.t).sin() / 10.0).abs()
        })
        .fold(0.0, f64::max);
    assert!(worst < 1e-8, "θ off its closed form by {worst:e} rad");
}

/// Every Euler and Cardan sequence: the angles read back from the rotation they build.
#[test]
fn sequence_angles_invert_the_sequence_rotations() {
    use crate::model::spatial::{sequence_angles, sequence_axes};
    let mut sequences = 0;
    for i in "xyz".chars() {
        for j in "xyz".chars() {
            for k in "xyz".chars() {
                let seq: String = [i, j, k].iter().collect();
                let Some(axes) = sequence_axes(&seq) else {
                    continue;
                };
                sequences += 1;
                let middle = if axes[0] == axes[2] { 1.1 } else { -0.6 };
                let angles = [0.7, middle, -2.3];
                let a = OrientationSpec {
                    sequence: Some(seq.clone()),
                    angles: Some(angles),
                    ..Default::default()
                }
                .rotation()
                .expect("valid");
                let back = sequence_angles(axes, &a);
                for (x, y) in back.iter().zip(angles) {
                    assert!((x - y).abs() < 1e-13, "{seq}: {back:?} vs {angles:?}");
                }
            }
        }
    }
    assert_eq!(sequences, 12);
}

/// An angular velocity given in body axes is the global one rotated into the body: ω = A ω'.
#[test]
fn angular_velocity_in_body_axes() {
    let global = model(vec![], vec![]);
    let mut body = global.clone();
    let spec = &mut body.spatial.as_mut().unwrap().bodies[1];
    let a = spec.orientation.rotation().unwrap();
    spec.angular_velocity = (a.transpose() * V3::from(spec.angular_velocity)).into();
    spec.angular_velocity_axes = Axes::Body;
    let (sg, sb) = (
        SpatialSystem::new(&global).unwrap(),
        SpatialSystem::new(&body).unwrap(),
    );
    let (xg, xb) = (sg.initial_state(0.0), sb.initial_state(0.0));
    assert!((&xg.v - &xb.v).amax() < 1e-14);
}

/// From a file: a misspelled joint key and a degenerate axis are reported at their line.
#[test]
fn file_errors_point_at_the_line() {
    let text = |axis_line: &str| {
        format!(
            "name = \"m\"\n[spatial]\n[[spatial.bodies]]\nname = \"b\"\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n\
             [[spatial.joints]]\nname = \"J\"\ntype = \"revolute\"\nbody_i = \"ground\"\nbody_j = \"b\"\n{axis_line}\n"
        )
    };
    let e = crate::model::parse::from_str(&text("axsi = [0, 0, 1]"), "m.toml").unwrap_err();
    assert_eq!(e.errors[0].line, 12, "{e}");
    assert!(e.errors[0].message.contains("unknown field `axsi`"), "{e}");
    let e = crate::model::parse::from_str(&text("axis = [0, 0, 0]"), "m.toml").unwrap_err();
    assert_eq!(e.errors[0].line, 12, "{e}");
    assert!(e.errors[0].message.contains("degenerate"), "{e}");
}

/// The joint frames of `j` (given by its global `axis` at the initial configuration) written in
/// each body's axes instead, as `frame_i` and `frame_j`.
fn with_body_frames(m: &Model, j: &SpatialJointSpec) -> SpatialJointSpec {
    let spec = m.spatial.as_ref().unwrap();
    let rotation = |name: &str| match spec.bodies.iter().find(|b| b.name == name) {
        Some(b) if b.kind == SpatialBodyKind::Rigid => b.orientation.rotation().unwrap(),
        _ => nalgebra::Matrix3::identity(),
    };
    let h = V3::from(j.axis.unwrap()).normalize();
    let (f, _) = super::joints::complete_frame(&h);
    let frame = |name: &str, axis: V3| {
        let a = rotation(name);
        JointFrameSpec {
            axis: (a.transpose() * axis).into(),
            reference: Some((a.transpose() * f).into()),
        }
    };
    let axis_j = j.axis_j.map_or(h, |a| V3::from(a).normalize());
    SpatialJointSpec {
        axis: None,
        axis_j: None,
        frame_i: Some(frame(&j.body_i, h)),
        frame_j: Some(frame(&j.body_j, axis_j)),
        ..j.clone()
    }
}

/// Frames given in each body build the same equations as the global axis they come from, and
/// their derivatives check against finite differences.
#[test]
fn joint_frames_given_in_each_body() {
    for kind in ALL_KINDS {
        if kind == SpatialJointKind::Distance {
            continue;
        }
        let global = model(vec![joint(kind, "a", "b")], vec![]);
        let j = global.spatial.as_ref().unwrap().joints[0].clone();
        let framed = model(vec![with_body_frames(&global, &j)], vec![]);
        let (sg, sf) = (check(&global), check(&framed));
        let x = sg.initial_state(0.0);
        let q = &x.q + noise(sg.n(), 9) * 0.05;
        let (mut pg, mut pf) = (Vector::zeros(sg.m()), Vector::zeros(sf.m()));
        sg.constraints(0.0, &q, &mut pg);
        sf.constraints(0.0, &q, &mut pf);
        assert!((&pg - &pf).amax() < 1e-14, "{kind:?}: {pg} vs {pf}");
    }
}

/// Frames that do not line up at the initial poses: assembly turns the body until they do.
#[test]
fn assembly_aligns_frames_given_in_each_body() {
    use crate::analysis::simulation::assembled;
    let text = r#"
[spatial]
[[spatial.bodies]]
name = "disc"
mass = 1.0
inertia = [0.01, 0.01, 0.02]
orientation = { axis = [1.0, 0.0, 0.0], angle = 0.1 }
[[spatial.joints]]
name = "axle"
type = "revolute"
body_i = "ground"
body_j = "disc"
frame_i = { axis = [0.0, 0.0, 1.0] }
frame_j = { axis = [0.0, 0.0, 1.0] }
"#;
    let m = crate::model::parse::from_str(text, "disc.toml").expect("valid");
    let sys = crate::system::multibody::Multibody::new(&m).expect("builds");
    let (x, report) = assembled(&m, &sys).expect("assembles");
    assert!(report.iterations > 0);
    let p = super::euler::V4::new(x.q[3], x.q[4], x.q[5], x.q[6]);
    let z = super::euler::rotation(&p) * V3::z();
    assert!((z - V3::z()).norm() < 1e-10, "disc axis {z}");
}

#[test]
fn joint_frame_errors() {
    let global = model(vec![joint(SpatialJointKind::Revolute, "a", "b")], vec![]);
    let j = global.spatial.as_ref().unwrap().joints[0].clone();
    let framed = with_body_frames(&global, &j);
    let mut one = framed.clone();
    one.frame_j = None;
    refused(
        &model(vec![one], vec![]),
        "spatial.joints[0].frame_i",
        "go together",
    );
    let mut both = framed.clone();
    both.axis = Some([0.0, 0.0, 1.0]);
    refused(
        &model(vec![both], vec![]),
        "spatial.joints[0].axis",
        "both give",
    );
    let mut along = framed;
    along.frame_i = Some(JointFrameSpec {
        axis: [0.0, 0.0, 1.0],
        reference: Some([0.0, 0.0, 2.0]),
    });
    refused(
        &model(vec![along], vec![]),
        "spatial.joints[0].frame_i.reference",
        "along the axis",
    );
}
