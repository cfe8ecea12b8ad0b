//! The sparse start-up (`linear_solver = "sparse"`, or "auto" from n + m = 100 on) against the dense
//! one: on every embedded example, from the files' consistent poses and from poses and velocities
//! moved off the constraints, both find the same state (the same minimum-norm Newton steps, so the
//! same positions, velocities, accelerations and multipliers to rounding), the same rank, and no
//! redundancy where there is none.

use dynastep::analysis::assembly::{assemble, AssemblySettings, STARTUP_SPARSE_THRESHOLD};
use dynastep::examples::EXAMPLES;
use dynastep::formulation::LinearSolver;
use dynastep::model::parse::from_str;
use dynastep::scheme::State;
use dynastep::system::mechanism::Mechanism;
use dynastep::system::multibody::Multibody;
use dynastep::system::System;
use dynastep::Vector;

fn settings(linear_solver: LinearSolver) -> AssemblySettings {
    AssemblySettings {
        linear_solver,
        ..AssemblySettings::default()
    }
}

fn relative(a: &Vector, b: &Vector) -> f64 {
    (a - b).amax() / (1.0 + b.amax())
}

/// Largest relative difference of q, v, a and λ.
fn difference(a: &State, b: &State) -> [f64; 4] {
    [
        relative(&a.q, &b.q),
        relative(&a.v, &b.v),
        relative(&a.a, &b.a),
        relative(&a.lambda, &b.lambda),
    ]
}

#[test]
fn sparse_start_up_finds_the_dense_state_on_every_example() {
    for ex in EXAMPLES {
        let model = from_str(ex.text, ex.file).unwrap_or_else(|e| panic!("{}: {e}", ex.file));
        let system = Multibody::new(&model).unwrap_or_else(|e| panic!("{}: {e}", ex.file));
        if system.m() == 0 {
            continue;
        }
        let given = system.given_values();
        for moved in [false, true] {
            let mut start = system.initial_state(0.0);
            if moved {
                // Off the constraints: every free coordinate by up to 1 mm (or mrad), every free
                // velocity by up to 1 cm/s.
                for i in 0..system.n() {
                    if !given.positions[i] {
                        start.q[i] += 1e-3 * (1.0 + i as f64).sin();
                    }
                    if !given.velocities[i] {
                        start.v[i] += 1e-2 * (2.0 + i as f64).cos();
                    }
                }
            }
            let (mut dense, mut sparse) = (start.clone(), start.clone());
            let rd = assemble(&system, &mut dense, &given, &settings(LinearSolver::Dense))
                .unwrap_or_else(|e| panic!("{}: {e}", ex.file));
            let rs = assemble(
                &system,
                &mut sparse,
                &given,
                &settings(LinearSolver::Sparse),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", ex.file));
            let d = difference(&sparse, &dense);
            println!(
                "{:16} moved {moved:5}: {} / {} iterations, rank {}, q {:.1e} v {:.1e} a {:.1e} λ {:.1e}",
                ex.name, rd.iterations, rs.iterations, rs.rank, d[0], d[1], d[2], d[3]
            );
            assert_eq!(
                (rs.rank, &rs.redundant),
                (rd.rank, &rd.redundant),
                "{}",
                ex.name
            );
            // Bricard's mechanism has one redundant constraint by design.
            let redundant = usize::from(ex.name == "bricard");
            assert_eq!(rs.rank + redundant, system.m(), "{}", ex.name);
            // With a redundant constraint the two paths stop at different points of the same
            // tolerance (Newton's position tolerance, 1e-8 scaled): compare within it.
            let dq = if redundant == 1 { 1e-8 } else { 1e-12 };
            assert!(
                d[0] < dq && d[1] < 1e-10 && d[2] < 1e-8 && d[3] < 1e-8,
                "{} (moved: {moved}): {d:?}",
                ex.name
            );
            if moved {
                assert!(rd.iterations > 0, "{}: nothing to assemble", ex.name);
            }
        }
    }
}

/// "auto" starts up sparse from n + m = 100 on (the N = 10 chain, 125) and dense below (Andrews, 41).
#[test]
fn auto_threshold() {
    let auto = AssemblySettings::default();
    assert_eq!(auto.linear_solver, LinearSolver::Auto);
    assert!(!auto.is_sparse_for(STARTUP_SPARSE_THRESHOLD - 1));
    assert!(auto.is_sparse_for(STARTUP_SPARSE_THRESHOLD));
    assert!(!settings(LinearSolver::Dense).is_sparse_for(10_000));
    assert!(settings(LinearSolver::Sparse).is_sparse_for(1));
}

/// A large model with redundant constraints starts up sparse: the N = 40 chain with three
/// distance joints that repeat what a crank's pin already fixes (ground point A_k to the crank's
/// point B, the crank length). The sparse elimination finds the rank and the dependent rows of the
/// dense decomposition and Gram–Schmidt, names exactly the rows of each dependency, and the state
/// (q, v, a and the least-norm multipliers) is the dense path's.
#[test]
fn sparse_start_up_names_redundant_constraints_of_a_large_model() {
    let ex = dynastep::examples::find("nfourbar40").expect("embedded");
    let mut text = ex.text.to_string();
    for k in [5, 20, 35] {
        text += &format!(
            "\n[[joints]]\nname = \"R{k}\"\ntype = \"distance\"\nbody_i = \"ground\"\npoint_i = \"A{k}\"\nbody_j = \"crank{k}\"\npoint_j = \"B\"\n"
        );
    }
    let model = from_str(&text, ex.file).expect("parses");
    let system = Multibody::new(&model).expect("builds");
    let (n, m) = (system.n(), system.m());
    assert!(n + m >= STARTUP_SPARSE_THRESHOLD);
    let given = system.given_values();
    let start = system.initial_state(0.0);
    let (mut dense, mut sparse) = (start.clone(), start.clone());
    let clock = std::time::Instant::now();
    let rs = assemble(&system, &mut sparse, &given, &settings(LinearSolver::Auto)).unwrap();
    let sparse_time = clock.elapsed().as_secs_f64();
    let clock = std::time::Instant::now();
    let rd = assemble(&system, &mut dense, &given, &settings(LinearSolver::Dense)).unwrap();
    let dense_time = clock.elapsed().as_secs_f64();
    let d = difference(&sparse, &dense);
    println!(
        "n + m = {}: sparse {sparse_time:.4} s, dense {dense_time:.4} s; rank {} of {m}; q {:.1e} v {:.1e} a {:.1e} λ {:.1e}; dependent {:?}",
        n + m,
        rs.rank,
        d[0],
        d[1],
        d[2],
        d[3],
        rs.dependent
    );
    assert_eq!(rs.rank, m - 3);
    assert_eq!(
        rs.dependent,
        ["R5", "R20", "R35"].map(|j| format!("joint `{j}` (distance), length"))
    );
    assert_eq!((rs.rank, &rs.dependent), (rd.rank, &rd.dependent));
    // Each repeated length depends on its pin's y row alone (the cranks start vertical). The dense
    // check says the same (with m = 245 rows and n = 243 coordinates it pads Φ_qᵀ to a square
    // matrix for all m singular vectors; it listed every row before).
    let mut involved = vec![];
    for k in [5, 20, 35] {
        involved.push(format!("joint `A{k}` (revolute), y"));
    }
    for k in [5, 20, 35] {
        involved.push(format!("joint `R{k}` (distance), length"));
    }
    assert_eq!(rs.redundant, involved);
    assert_eq!(rd.redundant, involved);
    assert!(d.iter().all(|&x| x < 1e-8), "{d:?}");
}
