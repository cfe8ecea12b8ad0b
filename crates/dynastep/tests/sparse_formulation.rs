//! The sparse path of the formulation (sparse assembly and sparse LU of the iteration matrix) against the
//! dense path: the same Newton solution of the same integration point, the same whole runs, and the
//! least-squares fallback for singular iteration matrices (redundant constraints).

use dynastep::analysis::assembly::consistent_accelerations;
use dynastep::analysis::dynamic::{run, DynamicSettings, RunReport, RunStatus};
use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::analysis::step::{solve_step, StepWork};
use dynastep::formulation::{Formulation, Index3, LinearSolver, NewtonSettings, NewtonStats};
use dynastep::linalg::Sink;
use dynastep::model::parse;
use dynastep::scheme::{build, SchemeParams, State};
use dynastep::system::System;
use dynastep::Vector;

fn settings(linear_solver: LinearSolver) -> NewtonSettings {
    NewtonSettings {
        linear_solver,
        ..NewtonSettings::default()
    }
}

fn example_model(name: &str, linear_solver: LinearSolver) -> dynastep::model::Model {
    let ex = dynastep::examples::find(name).expect("example exists");
    let mut model = parse::from_str(ex.text, ex.file).expect("example parses");
    model.solver.newton.linear_solver = linear_solver;
    model
}

fn relative_difference(a: &Vector, b: &Vector) -> f64 {
    (a - b).amax() / b.amax().max(f64::MIN_POSITIVE)
}

/// A chain of k point masses hanging from the origin, each linked to the previous one by a rod
/// (constraints ½(|p_j − p_{j−1}|² − L²) = 0), optionally with the last rod written twice (a redundant
/// constraint, so that the iteration matrix is singular at every iteration).
struct PendulumChain {
    k: usize,
    redundant: bool,
}

impl PendulumChain {
    const MASS: f64 = 1.0;
    const LENGTH: f64 = 1.0;
    const G: f64 = 9.81;

    /// Rod of constraint row j (the duplicate is the last rod).
    fn rod(&self, row: usize) -> usize {
        row.min(self.k - 1)
    }

    fn d(&self, q: &Vector, j: usize) -> (f64, f64) {
        let (x, y) = (q[2 * j], q[2 * j + 1]);
        if j == 0 {
            (x, y)
        } else {
            (x - q[2 * j - 2], y - q[2 * j - 1])
        }
    }

    /// Initial positions: the chain straight and horizontal, at rest.
    fn initial(&self) -> State {
        let mut x0 = State::zeros(0.0, self.n(), self.m());
        for j in 0..self.k {
            x0.q[2 * j] = (j + 1) as f64 * Self::LENGTH;
        }
        consistent_accelerations(self, &mut x0);
        x0
    }
}

impl System for PendulumChain {
    fn n(&self) -> usize {
        2 * self.k
    }
    fn m(&self) -> usize {
        self.k + usize::from(self.redundant)
    }
    fn mass<S: Sink>(&self, _q: &Vector, scale: f64, out: &mut S) {
        for i in 0..self.n() {
            out.add(i, i, scale * Self::MASS);
        }
    }
    fn forces(&self, _t: f64, _q: &Vector, _v: &Vector, out: &mut Vector) {
        for j in 0..self.k {
            out[2 * j] = 0.0;
            out[2 * j + 1] = -Self::MASS * Self::G;
        }
    }
    fn forces_q<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_v<S: Sink>(&self, _t: f64, _q: &Vector, _v: &Vector, _scale: f64, _out: &mut S) {}
    fn forces_depend_on_velocity(&self) -> bool {
        false
    }
    fn constraints(&self, _t: f64, q: &Vector, out: &mut Vector) {
        for row in 0..self.m() {
            let (dx, dy) = self.d(q, self.rod(row));
            out[row] = 0.5 * (dx * dx + dy * dy - Self::LENGTH * Self::LENGTH);
        }
    }
    fn constraint_jacobian<S: Sink>(&self, _t: f64, q: &Vector, scale: f64, out: &mut S) {
        for row in 0..self.m() {
            let j = self.rod(row);
            let (dx, dy) = self.d(q, j);
            out.add(row, 2 * j, scale * dx);
            out.add(row, 2 * j + 1, scale * dy);
            if j > 0 {
                out.add(row, 2 * j - 2, -scale * dx);
                out.add(row, 2 * j - 1, -scale * dy);
            }
        }
    }
    fn constraint_time_derivative(&self, _t: f64, _q: &Vector, out: &mut Vector) {
        out.fill(0.0);
    }
    fn gamma(&self, _t: f64, _q: &Vector, v: &Vector, out: &mut Vector) {
        for row in 0..self.m() {
            let (dvx, dvy) = self.d(v, self.rod(row));
            out[row] = -(dvx * dvx + dvy * dvy);
        }
    }
    // Φ_q is linear in q: Ḣ and Ḧ are Φ_q with q replaced by v and by a.
    fn constraint_jacobian_rate<S: Sink>(
        &self,
        t: f64,
        _q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        self.constraint_jacobian(t, v, scale, out);
    }
    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        t: f64,
        _q: &Vector,
        _v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        self.constraint_jacobian(t, a, scale, out);
    }
    fn constraint_force_q<S: Sink>(
        &self,
        _t: f64,
        _q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for row in 0..self.m() {
            let j = self.rod(row);
            let l = scale * lambda[row];
            for c in 0..2 {
                out.add(2 * j + c, 2 * j + c, l);
                if j > 0 {
                    out.add(2 * j + c, 2 * j - 2 + c, -l);
                    out.add(2 * j - 2 + c, 2 * j + c, -l);
                    out.add(2 * j - 2 + c, 2 * j - 2 + c, l);
                }
            }
        }
    }
    fn potential_energy(&self, _t: f64, q: &Vector) -> f64 {
        (0..self.k)
            .map(|j| Self::MASS * Self::G * q[2 * j + 1])
            .sum()
    }
    fn nonconservative_power(&self, _t: f64, _q: &Vector, _v: &Vector) -> f64 {
        0.0
    }
}

/// Steps `sys` with generalized-α on the dense path for `steps` steps, then solves the first point of
/// the next step on both paths from the same guesses; returns ((u, λ) dense, (u, λ) sparse, stats
/// dense, stats sparse).
type Solution = (Vector, Vector);
fn same_point<S: System>(
    sys: &S,
    x0: &State,
    h: f64,
    steps: usize,
) -> (Solution, Solution, NewtonStats, NewtonStats) {
    let (n, m) = (sys.n(), sys.m());
    let mut scheme = build("generalized-alpha", &SchemeParams::new()).unwrap();
    let mut f0 = Vector::zeros(n);
    sys.forces(x0.t, &x0.q, &x0.v, &mut f0);
    f0.neg_mut();
    sys.add_constraint_force(x0.t, &x0.q, &x0.lambda, &mut f0);
    scheme.start(x0, &f0);
    let mut dense = Index3::new(n, m, settings(LinearSolver::Dense));
    let mut sparse = Index3::new(n, m, settings(LinearSolver::Sparse));
    assert!(!dense.is_sparse() && sparse.is_sparse());
    let mut work = StepWork::new(n, m);
    let mut state = x0.clone();
    let mut stats = NewtonStats::default();
    for step in 0..steps {
        let t_n = x0.t + step as f64 * h;
        solve_step(
            sys,
            scheme.as_mut(),
            &mut dense,
            &mut work,
            t_n,
            h,
            &mut stats,
            None,
        )
        .expect("dense Newton converges");
        scheme.end_step(&mut state);
    }
    scheme.begin_step(x0.t + steps as f64 * h, h);
    let pt = &mut work.pt;
    scheme.point(0, pt);
    let (mut ud, mut ld) = (pt.u_guess.clone(), pt.lambda_guess.clone());
    let (mut us, mut ls) = (ud.clone(), ld.clone());
    let (mut sd, mut ss) = (NewtonStats::default(), NewtonStats::default());
    dense.solve(sys, pt, &mut ud, &mut ld, &mut sd).unwrap();
    // A fresh sparse work space, so that its first assembly is at this point.
    sparse.solve(sys, pt, &mut us, &mut ls, &mut ss).unwrap();
    ((ud, ld), (us, ls), sd, ss)
}

/// `auto` takes the fixed-size dense LU up to `SMALL_DIM` = 8 unknowns and the sparse path above.
#[test]
fn auto_takes_the_small_dense_path_up_to_eight_unknowns_and_the_sparse_path_above() {
    let auto = NewtonSettings::default();
    assert_eq!(auto.linear_solver, LinearSolver::Auto);
    assert_eq!(dynastep::linalg::small_dense::SMALL_DIM, 8);
    assert!(!Index3::new(2, 1, auto).is_sparse(), "pendulum");
    assert!(!Index3::new(4, 4, auto).is_sparse(), "n + m = 8");
    assert!(Index3::new(5, 4, auto).is_sparse(), "n + m = 9");
    assert!(Index3::new(15, 14, auto).is_sparse(), "double four-bar");
    assert!(Index3::new(21, 20, auto).is_sparse(), "Andrews' squeezer");
    assert!(Index3::new(243, 242, auto).is_sparse(), "N = 40 four-bar");
    assert!(Index3::new(1, 0, settings(LinearSolver::Sparse)).is_sparse());
    assert!(!Index3::new(2, 1, settings(LinearSolver::Dense)).is_sparse());
    assert!(!Index3::new(500, 499, settings(LinearSolver::Dense)).is_sparse());
}

#[test]
fn linear_solver_is_read_from_the_model_file() {
    let ex = dynastep::examples::find("pendulum").unwrap();
    for (text, expected) in [
        ("sparse", LinearSolver::Sparse),
        ("dense", LinearSolver::Dense),
        ("auto", LinearSolver::Auto),
    ] {
        let file = format!("{}\n[solver.newton]\nlinear_solver = \"{text}\"\n", ex.text);
        let model = parse::from_str(&file, ex.file).expect("parses");
        assert_eq!(model.solver.newton.linear_solver, expected);
    }
    let file = format!(
        "{}\n[solver.newton]\nlinear_solver = \"cholesky\"\n",
        ex.text
    );
    assert!(parse::from_str(&file, ex.file).is_err());
}

#[test]
fn same_newton_solution_on_the_n_four_bar() {
    let sim = Simulation::new(
        &example_model("nfourbar40", LinearSolver::Auto),
        &RunOptions::default(),
    )
    .expect("assembles");
    let sys = &sim.system;
    let ((ud, ld), (us, ls), sd, ss) = same_point(sys, &sim.initial, 1e-3, 25);
    let (du, dl) = (relative_difference(&us, &ud), relative_difference(&ls, &ld));
    assert!(du <= 1e-12 && dl <= 1e-12, "u: {du:.2e}, lambda: {dl:.2e}");
    assert_eq!(sd.iterations, ss.iterations);
    assert_eq!((sd.least_squares_solves, ss.least_squares_solves), (0, 0));
}

#[test]
fn same_newton_solution_on_a_long_pendulum_chain() {
    let sys = PendulumChain {
        k: 100,
        redundant: false,
    };
    let ((ud, ld), (us, ls), sd, ss) = same_point(&sys, &sys.initial(), 1e-3, 10);
    let (du, dl) = (relative_difference(&us, &ud), relative_difference(&ls, &ld));
    assert!(du <= 1e-12 && dl <= 1e-12, "u: {du:.2e}, lambda: {dl:.2e}");
    assert_eq!(sd.iterations, ss.iterations);
}

fn simulate(example: &str, linear_solver: LinearSolver, steps: usize) -> RunReport {
    let model = example_model(example, linear_solver);
    let dt = model.solver.dt.expect("example has a step");
    let opts = RunOptions {
        t_end: Some(steps as f64 * dt),
        output_interval: Some(0.0),
        ..Default::default()
    };
    let mut sim = Simulation::new(&model, &opts).expect("assembles");
    sim.run(&mut [])
}

/// Tolerances (relative to the largest entry) on the final q, v and λ.
type Tolerances = [f64; 3];

fn assert_same_run(dense: &RunReport, sparse: &RunReport, tol: Tolerances, what: &str) {
    assert_eq!(dense.status, RunStatus::Completed, "{what} dense");
    assert_eq!(sparse.status, RunStatus::Completed, "{what} sparse");
    assert_eq!(dense.steps, sparse.steps, "{what}");
    let (a, b) = (&sparse.final_state, &dense.final_state);
    for ((name, x, y), tol) in [
        ("q", &a.q, &b.q),
        ("v", &a.v, &b.v),
        ("lambda", &a.lambda, &b.lambda),
    ]
    .into_iter()
    .zip(tol)
    {
        let d = relative_difference(x, y);
        assert!(
            d <= tol,
            "{what}: final {name} differs by {d:.2e} (relative), more than {tol:.0e}"
        );
    }
    // The same Newton path to rounding: the counts agree to 0.1 %, or within one iteration (a
    // step whose first correction lands at the tolerance may need a second one on one path alone:
    // once in 300 steps of the N = 40 chain, whose steps mostly converge in one iteration from the
    // extrapolated start).
    let iterations = dense.newton.iterations as f64;
    assert!(
        (sparse.newton.iterations as f64 - iterations).abs() <= (1e-3 * iterations).max(1.0),
        "{what}: {} Newton iterations sparse, {} dense",
        sparse.newton.iterations,
        dense.newton.iterations
    );
}

#[test]
fn whole_runs_match_the_dense_runs() {
    // Each solver forced, on a large, a mid-sized and a small system. The two paths round differently,
    // so the runs agree to the sensitivity of the solution to rounding, not to the last bit. The
    // multipliers of the N-four-bar are the most sensitive: on the dense path alone, tightening the
    // Newton tolerances to 1e-12 / 1e-13 moves the final λ by 1.5e-5 (relative) after 300 steps, while
    // q moves by 1e-14 and v by 3e-10 (measured); the sparse run is closer to the dense one than that.
    // The beam (rollup: 17 nodes, 119 coordinates) has stiff section forces: its multipliers carry
    // EA times the rounding of the strains.
    let cases: [(&str, usize, Tolerances); 4] = [
        ("nfourbar40", 300, [1e-12, 1e-8, 1e-4]),
        ("andrews", 1000, [1e-12, 1e-10, 1e-6]),
        ("double-fourbar", 1000, [1e-12, 1e-10, 1e-6]),
        ("rollup", 100, [1e-10, 1e-8, 1e-6]),
    ];
    for (example, steps, tol) in cases {
        let dense = simulate(example, LinearSolver::Dense, steps);
        let sparse = simulate(example, LinearSolver::Sparse, steps);
        assert_same_run(&dense, &sparse, tol, example);
    }
}

#[test]
fn redundant_constraints_give_minimum_norm_multipliers_on_both_paths() {
    let sys = PendulumChain {
        k: 60,
        redundant: true,
    };
    let x0 = sys.initial();
    let report = |linear_solver| {
        let mut scheme = build("generalized-alpha", &SchemeParams::new()).unwrap();
        let settings = DynamicSettings {
            h: 1e-3,
            t_end: 0.2,
            output_interval: 0.0,
            newton: settings(linear_solver),
            ..DynamicSettings::default()
        };
        run(&sys, scheme.as_mut(), &x0, &settings, &mut [])
    };
    let (dense, sparse) = (report(LinearSolver::Dense), report(LinearSolver::Sparse));
    for r in [&dense, &sparse] {
        assert_eq!(r.status, RunStatus::Completed);
        assert!(r.newton.iterations > 0);
    }
    // The dense path decomposes every matrix; the sparse one pins the duplicated row's unknown
    // (linalg/pinned.rs) and projects out the null space.
    assert_eq!(dense.newton.least_squares_solves, dense.newton.iterations);
    assert_eq!(sparse.newton.least_squares_solves, 0);
    // Minimum-norm solutions: the multiplier of the duplicated rod is shared equally by its two rows.
    let l = &sparse.final_state.lambda;
    let (last, dup) = (l[sys.k - 1], l[sys.k]);
    assert!((last - dup).abs() <= 1e-8 * last.abs(), "{last} vs {dup}");
    // The paths solve the singular matrix differently (an SVD with singular values below 1e-10
    // of the largest dropped, a pinned LU), so the multipliers agree to Newton's tolerance on
    // them (1.2e-7 measured), not to rounding.
    assert_same_run(&dense, &sparse, [1e-12, 1e-10, 1e-6], "redundant chain");
}
