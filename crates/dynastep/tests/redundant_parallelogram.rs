//! Redundant constraints: three parallel cranks joined by ONE rigid coupler (6 revolute joints, 12
//! equations, 12 coordinates, 1 degree of freedom, so rank Φ_q = 11). On the parallelogram branch the
//! coupler only translates, so with mass 2 kg and its centre over the middle crank the motion is exactly
//! that of the IFToMM double four-bar (two 1 kg couplers), whose reference is independent of dynastep:
//! B0(10 s) = (0.3284581115, 0.9445185382) (from its 1-DOF reduction, reference/derived_double_fourbar_N2_10s_dt0.01.csv).

use dynastep::analysis::dynamic::{Recorder, RunStatus};
use dynastep::analysis::simulation::{RunOptions, Simulation, SimulationError};
use dynastep::model::parse;

const MODEL: &str = r#"
name = "redundant parallelogram"
gravity = [0.0, -9.81]

[ground.points]
A0 = [0.0, 0.0]
A1 = [1.0, 0.0]
A2 = [2.0, 0.0]

[[bodies]]
name = "crank0"
mass = 1.0
inertia = 0.08333333333333333
x = 0.0
y = 0.0
theta = 1.5707963267948966
com = [0.5, 0.0]
points = { B = [1.0, 0.0] }
omega = -1.0
given = ["theta"]
given_velocity = ["theta"]

[[bodies]]
name = "crank1"
mass = 1.0
inertia = 0.08333333333333333
x = 1.0
y = 0.0
theta = 1.5707963267948966
com = [0.5, 0.0]
points = { B = [1.0, 0.0] }

[[bodies]]
name = "crank2"
mass = 1.0
inertia = 0.08333333333333333
x = 2.0
y = 0.0
theta = 1.5707963267948966
com = [0.5, 0.0]
points = { B = [1.0, 0.0] }

[[bodies]]
name = "coupler"
mass = 2.0
inertia = 0.6666666666666666
x = 0.0
y = 1.0
com = [1.0, 0.0]
points = { P1 = [1.0, 0.0], P2 = [2.0, 0.0] }
vx = 1.0

[[joints]]
name = "A0"
type = "revolute"
body_i = "ground"
point_i = "A0"
body_j = "crank0"

[[joints]]
name = "A1"
type = "revolute"
body_i = "ground"
point_i = "A1"
body_j = "crank1"

[[joints]]
name = "A2"
type = "revolute"
body_i = "ground"
point_i = "A2"
body_j = "crank2"

[[joints]]
name = "B0"
type = "revolute"
body_i = "crank0"
point_i = "B"
body_j = "coupler"

[[joints]]
name = "B1"
type = "revolute"
body_i = "crank1"
point_i = "B"
body_j = "coupler"
point_j = "P1"

[[joints]]
name = "B2"
type = "revolute"
body_i = "crank2"
point_i = "B"
body_j = "coupler"
point_j = "P2"

[[markers]]
name = "tip0"
body = "crank0"
point = "B"

[solver]
scheme = "generalized-alpha"
dt = 1e-3
t_end = 10.0
output_interval = 0.1
"#;

#[test]
fn redundant_joints_are_named_and_the_run_matches_the_double_fourbar() {
    let model = parse::from_str(MODEL, "redundant.toml").unwrap();
    let mut sim = Simulation::new(&model, &RunOptions::default()).unwrap();
    assert_eq!((sim.assembly.rank, sim.assembly.constraints), (11, 12));
    // The dependency runs through the loop: every joint row that takes part is named.
    let named = sim.assembly.redundant.join("; ");
    for joint in ["B0", "B1", "B2"] {
        assert!(named.contains(&format!("`{joint}`")), "{named}");
    }
    // One row depends on the rows before it, and it is a joint's.
    let dependent = &sim.assembly.dependent;
    assert!(
        dependent.len() == 1 && dependent[0].starts_with("joint `"),
        "{dependent:?}"
    );
    let mut rec = Recorder::default();
    let report = sim.run(&mut [&mut rec]);
    assert_eq!(report.status, RunStatus::Completed);
    // The singular iteration matrix is solved with the redundant row's unknown pinned
    // (linalg/pinned.rs), not by an SVD at every iteration.
    assert_eq!(report.newton.least_squares_solves, 0);
    let (p, _) = sim
        .system
        .marker_state(0, &report.final_state.q, &report.final_state.v);
    let e = ((p[0] - 0.3284581115).powi(2) + (p[1] - 0.9445185382).powi(2)).sqrt();
    // Same bound as the non-redundant double four-bar at h = 1e-3 (tests/every_scheme_every_example.rs).
    assert!(e < 5e-4, "B0 error {e}");
    assert!(report.max_violation.position < 1e-8);
}

/// The tangent-space formulation on the same redundant model (its particular solutions are
/// minimum-norm least squares, Fernández de Bustos et al. 2022, §5), through the singular
/// configurations of the parallelogram, against the same independent reference.
#[test]
fn the_tangent_space_runs_the_redundant_parallelogram() {
    let mut model = parse::from_str(MODEL, "redundant.toml").unwrap();
    model.solver.formulation = Some("tangent-space".into());
    for scheme in ["generalized-alpha", "fox-goodwin"] {
        let opts = RunOptions {
            scheme: Some(scheme.into()),
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(&model, &opts).unwrap();
        let mut rec = Recorder::default();
        let report = sim.run(&mut [&mut rec]);
        assert_eq!(report.status, RunStatus::Completed, "{scheme}");
        let (p, _) = sim
            .system
            .marker_state(0, &report.final_state.q, &report.final_state.v);
        let e = ((p[0] - 0.3284581115).powi(2) + (p[1] - 0.9445185382).powi(2)).sqrt();
        let v = report.max_violation;
        println!(
            "{scheme}: B0 error {e:.2e}; max |Φ| {:.1e}, |Φ̇| {:.1e}, |Φ̈| {:.1e}",
            v.position, v.velocity, v.acceleration
        );
        assert!(e < 5e-4, "{scheme}: B0 error {e}");
        assert!(v.position < 1e-10 && v.velocity < 1e-10 && v.acceleration < 1e-8);
    }
}

#[test]
fn redundancy_policy_error_stops_with_the_joint_names() {
    let text = MODEL.replace("[solver]", "[solver]\nredundancy = \"error\"");
    let model = parse::from_str(&text, "redundant.toml").unwrap();
    match Simulation::new(&model, &RunOptions::default()) {
        Err(SimulationError::Assembly(e)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("rank of Φ_q is 11 of 12") && msg.contains("`B1`"),
                "{msg}"
            );
        }
        other => panic!("expected a redundancy error, got {other:?}"),
    }
}

/// The sparse start-up cannot certify full rank here (its saddle-point matrix is singular), so the
/// dense decomposition decides and names the same joints, and the state is the same as the dense
/// start-up's.
#[test]
fn sparse_start_up_names_the_same_redundant_joints() {
    use dynastep::analysis::assembly::{assemble, AssemblySettings};
    use dynastep::formulation::LinearSolver;
    let model = parse::from_str(MODEL, "redundant.toml").unwrap();
    let system = dynastep::system::planar::PlanarSystem::new(&model).unwrap();
    let mut reports = Vec::new();
    let mut states = Vec::new();
    for linear_solver in [LinearSolver::Dense, LinearSolver::Sparse] {
        let mut x = system.initial_state(0.0);
        let settings = AssemblySettings {
            linear_solver,
            ..AssemblySettings::default()
        };
        reports.push(assemble(&system, &mut x, &system.given_values(), &settings).unwrap());
        states.push(x);
    }
    assert_eq!(reports[0].rank, 11);
    assert_eq!(
        (reports[1].rank, &reports[1].redundant),
        (reports[0].rank, &reports[0].redundant)
    );
    assert!(!reports[1].redundant.is_empty());
    let d = |a: &dynastep::Vector, b: &dynastep::Vector| (a - b).amax() / (1.0 + b.amax());
    assert!(d(&states[1].v, &states[0].v) < 1e-12);
    assert!(d(&states[1].a, &states[0].a) < 1e-10);
}

/// More constraint rows than coordinates (m = 5 > n = 3): a bar welded to the ground by a fixed
/// joint and pinned again at the same point by a revolute joint. The two joints' x and y rows are
/// the same rows twice (rank 3); the fixed joint's rotation row takes part in no dependency. The
/// start-up names exactly the four rows involved (it named all five before, when the dense check's
/// thin singular value decomposition could not tell them apart), and the sparse elimination
/// agrees.
#[test]
fn more_rows_than_coordinates_names_only_the_rows_involved() {
    use dynastep::analysis::assembly::{assemble, AssemblySettings};
    use dynastep::formulation::LinearSolver;
    let text = r#"
name = "doubly held bar"
gravity = [0.0, -9.81]
[ground.points]
O = [0.0, 0.0]
[[bodies]]
name = "bar"
mass = 1.0
inertia = 0.1
x = 0.0
y = 0.0
com = [0.5, 0.0]
points = { A = [0.0, 0.0] }
[[joints]]
name = "weld"
type = "fixed"
body_i = "ground"
point_i = "O"
body_j = "bar"
point_j = "A"
[[joints]]
name = "pin"
type = "revolute"
body_i = "ground"
point_i = "O"
body_j = "bar"
point_j = "A"
"#;
    let model = parse::from_str(text, "held.toml").unwrap();
    let system = dynastep::system::planar::PlanarSystem::new(&model).unwrap();
    for linear_solver in [LinearSolver::Dense, LinearSolver::Sparse] {
        let mut x = system.initial_state(0.0);
        let settings = AssemblySettings {
            linear_solver,
            ..AssemblySettings::default()
        };
        let report = assemble(&system, &mut x, &system.given_values(), &settings).unwrap();
        assert_eq!(report.rank, 3, "{linear_solver:?}");
        let named = |joint: &str| {
            report
                .redundant
                .iter()
                .filter(|r| r.contains(joint))
                .count()
        };
        assert_eq!(
            (report.redundant.len(), named("`weld`"), named("`pin`")),
            (4, 2, 2),
            "{linear_solver:?}: {:?}",
            report.redundant
        );
        assert!(
            report.redundant.iter().all(|r| !r.contains("rotation")),
            "{:?}",
            report.redundant
        );
    }
}
