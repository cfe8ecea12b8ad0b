//! Tests of the beam element: its rotation algebra against independent constructions, the
//! reference configuration stress-free, invariance under rigid motion, every derivative against
//! finite differences, and a small-deflection cantilever against Timoshenko's closed form.

use super::section::{cgr_rate, cgr_rotation, relative, rotation, M};
use crate::linalg::{Matrix, Vector};
use crate::model::parse::from_str;
use crate::system::derivative_check::{check_derivatives, noise};
use crate::system::spatial::euler::{from_axis_angle, V3, V4};
use crate::system::spatial::SpatialSystem;
use crate::system::System;

fn mat(m: &M<f64>) -> nalgebra::Matrix3<f64> {
    nalgebra::Matrix3::from_fn(|r, c| m[r][c])
}

fn quaternion(p: &V4) -> (f64, [f64; 3]) {
    (p[0], [p[1], p[2], p[3]])
}

#[test]
fn rotation_matches_the_euler_parameter_matrix_and_relative_rotations_compose() {
    let p1 = from_axis_angle(&V3::new(1.0, 2.0, -0.5).normalize(), 0.9);
    let p2 = from_axis_angle(&V3::new(-0.3, 0.4, 1.0).normalize(), -1.3);
    let a1 = crate::system::spatial::euler::rotation(&p1);
    let a2 = crate::system::spatial::euler::rotation(&p2);
    // Scaling p does not change the rotation.
    let scaled = quaternion(&(p1 * 1.7));
    assert!(
        (mat(&rotation(&scaled)) - a1).norm() < 1e-14,
        "{} vs {a1}",
        mat(&rotation(&scaled))
    );
    // The CGR parameters of p₂* ⊗ p₁ give A(p₂)ᵀ A(p₁).
    let (s, v) = relative(&quaternion(&p2), &quaternion(&p1));
    let g = [2.0 * v[0] / s, 2.0 * v[1] / s, 2.0 * v[2] / s];
    assert!((mat(&cgr_rotation(&g)) - a2.transpose() * a1).norm() < 1e-13);
}

#[test]
fn cgr_rate_is_the_angular_velocity_of_the_cgr_rotation() {
    // axial(R' Rᵀ) = G(g) g' along g(τ) = g + τ g'.
    let g = [0.3, -0.7, 0.45];
    let gd = [0.2, 0.5, -0.9];
    let h = 1e-6;
    let at = |t: f64| {
        mat(&cgr_rotation(&[
            g[0] + t * gd[0],
            g[1] + t * gd[1],
            g[2] + t * gd[2],
        ]))
    };
    let w = (at(h) - at(-h)) / (2.0 * h) * at(0.0).transpose();
    let axial = V3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]);
    let rate = cgr_rate(&g, &gd);
    assert!(
        (axial - V3::from(rate)).norm() < 1e-8,
        "{axial} vs {rate:?}"
    );
}

/// A spatial model with one beam of `elements` elements along `geometry`, clamped nowhere.
fn beam_model(elements: usize, geometry: &str, damping: f64) -> crate::model::Model {
    let text = format!(
        r#"
[solver]
scheme = "generalized-alpha"
t_end = 1.0
dt = 1e-3

[spatial]
gravity = [0.0, 0.0, -9.81]

[[spatial.beams]]
name = "b"
elements = {elements}
{geometry}
stiffness = [5.0e6, 2.0e6, 2.5e6, 300.0, 450.0, 520.0]
mass_per_length = 2.0
inertia_per_length = [1.0e-3, 4.0e-4, 6.0e-4]
damping = {damping}
"#
    );
    from_str(&text, "beam.toml").unwrap_or_else(|e| panic!("{e}"))
}

const ARC: &str = "arc = { center = [0.0, 0.0, 0.0], start = [1.0, 0.0, 0.0], axis = [0.2, 0.1, 1.0], angle = 1.2 }";

fn arc_start() -> String {
    // start ⊥ axis: project (1, 0, 0) off (0.2, 0.1, 1).
    let n = V3::new(0.2, 0.1, 1.0).normalize();
    let s = V3::new(1.0, 0.0, 0.0);
    let s = s - n * n.dot(&s);
    ARC.replace("[1.0, 0.0, 0.0]", &format!("[{}, {}, {}]", s.x, s.y, s.z))
}

fn system(model: &crate::model::Model) -> (SpatialSystem, Vector) {
    let sys = SpatialSystem::new(model).unwrap_or_else(|e| panic!("{e}"));
    let mut q = Vector::zeros(sys.n());
    for b in &sys.bodies {
        q.fixed_rows_mut::<3>(b.r).copy_from(&b.initial.0);
        q.fixed_rows_mut::<4>(b.p.expect("rigid"))
            .copy_from(&b.initial.1);
    }
    (sys, q)
}

fn beam_force(sys: &SpatialSystem, q: &Vector, v: &Vector) -> Vector {
    let mut f = Vector::zeros(sys.n());
    // The force elements only (no gravity, no gyroscopic terms): the beam's own forces.
    sys.forces.add_forces(0.0, q, v, &mut f);
    f
}

fn strain_energy(sys: &SpatialSystem, q: &Vector) -> f64 {
    let mut u = 0.0;
    sys.forces.add_potential(q, &mut u);
    u
}

#[test]
fn a_curved_beam_is_stress_free_in_its_reference_configuration() {
    let (sys, q) = system(&beam_model(3, &arc_start(), 0.0));
    let f = beam_force(&sys, &q, &Vector::zeros(sys.n()));
    assert!(f.amax() < 1e-9, "{}", f.amax());
    assert!(strain_energy(&sys, &q).abs() < 1e-12);
}

/// Moves every node of `q` rigidly: rotation `rot` about the origin, then translation `u`.
fn rigid_motion(sys: &SpatialSystem, q: &Vector, p_rot: &V4, u: &V3) -> Vector {
    let a = crate::system::spatial::euler::rotation(p_rot);
    let mut out = q.clone();
    for b in &sys.bodies {
        let r = V3::new(q[b.r], q[b.r + 1], q[b.r + 2]);
        out.fixed_rows_mut::<3>(b.r).copy_from(&(a * r + u));
        let i = b.p.expect("rigid");
        let p = nalgebra::Quaternion::new(q[i], q[i + 1], q[i + 2], q[i + 3]);
        let pr = nalgebra::Quaternion::new(p_rot[0], p_rot[1], p_rot[2], p_rot[3]);
        let c = pr * p;
        out.fixed_rows_mut::<4>(i)
            .copy_from(&V4::new(c.w, c.i, c.j, c.k));
    }
    out
}

#[test]
fn strains_and_energy_do_not_change_under_a_rigid_motion() {
    let (sys, q0) = system(&beam_model(3, &arc_start(), 0.0));
    // A deformed state: every coordinate moved, then the Euler parameters normalized.
    let mut q = &q0 + noise(sys.n(), 11) * 0.02;
    for b in &sys.bodies {
        let i = b.p.expect("rigid");
        let p = q.fixed_rows::<4>(i).normalize();
        q.fixed_rows_mut::<4>(i).copy_from(&p);
    }
    let u = strain_energy(&sys, &q);
    assert!(u > 1.0, "the deformed state should store energy, U = {u}");
    let moved = rigid_motion(
        &sys,
        &q,
        &from_axis_angle(&V3::new(0.3, -1.0, 0.6).normalize(), 2.1),
        &V3::new(1.0, -2.0, 0.5),
    );
    let u2 = strain_energy(&sys, &moved);
    assert!((u - u2).abs() < 1e-9 * u, "U = {u} before, {u2} after");
    // The forces turn with the body: their magnitude per node is unchanged.
    let zero = Vector::zeros(sys.n());
    let (f, f2) = (beam_force(&sys, &q, &zero), beam_force(&sys, &moved, &zero));
    for b in &sys.bodies {
        let n1 = f.fixed_rows::<3>(b.r).norm();
        let n2 = f2.fixed_rows::<3>(b.r).norm();
        assert!((n1 - n2).abs() < 1e-7 * (1.0 + n1), "{n1} vs {n2}");
    }
    // A rigid velocity does no work on the beam's forces.
    let omega = V3::new(0.4, 1.1, -0.7);
    let mut v = Vector::zeros(sys.n());
    for b in &sys.bodies {
        let r = V3::new(q[b.r], q[b.r + 1], q[b.r + 2]);
        v.fixed_rows_mut::<3>(b.r)
            .copy_from(&(omega.cross(&r) + V3::new(0.3, 0.2, 0.1)));
        let i = b.p.expect("rigid");
        let p = V4::new(q[i], q[i + 1], q[i + 2], q[i + 3]);
        let pd = 0.5 * crate::system::spatial::euler::e_matrix(&p).transpose() * omega;
        v.fixed_rows_mut::<4>(i).copy_from(&pd);
    }
    let work = f.dot(&v);
    assert!(
        work.abs() < 1e-8 * f.norm() * v.norm(),
        "rigid virtual work {work}"
    );
}

#[test]
fn every_derivative_matches_finite_differences() {
    for damping in [0.0, 2e-3] {
        let (sys, q0) = system(&beam_model(2, &arc_start(), damping));
        // Small strains keep Q (stiffness 5e6 N) small enough for the differences' rounding.
        let q = &q0 + noise(sys.n(), 21) * 1e-4;
        let v = noise(sys.n(), 22);
        check_derivatives(&sys, 0.3, &q, &v);
    }
    let (sys, q0) = system(&beam_model(
        2,
        "polyline = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.5, 0.8, 0.2]]",
        0.0,
    ));
    check_derivatives(
        &sys,
        0.0,
        &(&q0 + noise(sys.n(), 23) * 1e-4),
        &noise(sys.n(), 24),
    );
}

#[test]
fn force_jacobian_is_exact_at_a_large_deformation() {
    // Large rotations between nodes (0.6 rad) and stretch: the dual-number Jacobian agrees with
    // central differences to their truncation error.
    let (sys, q0) = system(&beam_model(
        1,
        "line = { from = [0.0, 0.0, 0.0], to = [1.0, 0.0, 0.0] }",
        0.0,
    ));
    let mut q = q0.clone();
    for (k, b) in sys.bodies.iter().enumerate() {
        let i = b.p.expect("rigid");
        let p = from_axis_angle(&V3::new(0.2, 1.0, 0.3).normalize(), 0.6 * k as f64);
        q.fixed_rows_mut::<4>(i).copy_from(&p);
        q[b.r + 2] += 0.1 * (k as f64).powi(2);
    }
    let v = Vector::zeros(sys.n());
    let n = sys.n();
    let mut k = Matrix::zeros(n, n);
    sys.forces.add_forces_q(0.0, &q, &v, 1.0, &mut k);
    let h = 1e-6;
    for j in 0..n {
        let mut qp = q.clone();
        let mut qm = q.clone();
        qp[j] += h;
        qm[j] -= h;
        let col = (beam_force(&sys, &qp, &v) - beam_force(&sys, &qm, &v)) / (2.0 * h);
        let err = (k.column(j) - &col).amax();
        assert!(err < 1e-5 * (1.0 + col.amax()), "column {j}: {err}");
    }
}

#[test]
fn analytic_tangent_equals_the_dual_number_derivative() {
    // Large relative rotations (up to 1.2 rad), stretch, Euler parameters off unit length and
    // nonzero velocities: the chain rule of `tangent` against forward-mode differentiation of
    // the force itself, entry by entry, for ∂Q/∂q (undamped) and ∂Q/∂v (damped).
    use super::tangent::element_tangent;
    for (damping, geometry) in [
        (0.0, arc_start()),
        (
            0.0,
            "polyline = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.5, 0.8, 0.2]]".to_string(),
        ),
        (2e-3, arc_start()),
    ] {
        let (sys, q0) = system(&beam_model(2, &geometry, damping));
        let mut q = &q0 + noise(sys.n(), 31) * 0.05;
        for (k, b) in sys.bodies.iter().enumerate() {
            let i = b.p.expect("rigid");
            let turn = from_axis_angle(&V3::new(0.2, 1.0, -0.4).normalize(), 0.3 * k as f64);
            let p = nalgebra::Quaternion::new(q[i], q[i + 1], q[i + 2], q[i + 3])
                * nalgebra::Quaternion::new(turn[0], turn[1], turn[2], turn[3])
                * (1.0 + 0.1 * k as f64);
            q.fixed_rows_mut::<4>(i)
                .copy_from(&V4::new(p.w, p.i, p.j, p.k));
        }
        let v = noise(sys.n(), 32) * 3.0;
        let beam = sys.beams().next().expect("one beam");
        for e in &beam.elements {
            let (x, xd) = (e.gather(&q), e.gather(&v));
            for wrt_velocity in [false, true] {
                if !wrt_velocity && damping != 0.0 {
                    continue;
                }
                let exact = e.dual_jacobian(&x, &xd, wrt_velocity);
                let analytic = element_tangent(e, &x, &xd, wrt_velocity);
                let err = (analytic - exact).amax();
                assert!(
                    err <= 1e-10 * exact.amax(),
                    "damping {damping}, wrt_velocity {wrt_velocity}: {err} of {}",
                    exact.amax()
                );
                // ∂Q/∂v of an undamped element is zero in both; every other pair must not be.
                if damping != 0.0 || !wrt_velocity {
                    assert!(exact.amax() > 1.0, "the comparison should not be of zeros");
                }
            }
        }
    }
}
