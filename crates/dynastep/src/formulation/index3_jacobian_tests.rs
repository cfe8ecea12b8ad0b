//! The iteration matrices of index 3 and of the stabilized index-2 formulation against central
//! finite differences of their residuals, on planar and spatial models with drivers, spring-
//! dampers and curved constraints, a redundant one (Bricard) and two of flexible beams, at an
//! integration point away from the solution (so that every term, including the O(μ) curvature
//! terms of the GGL rows, is non-zero), entry by entry relative to the largest entry of its row.

use super::*;
use crate::linalg::Matrix;
use crate::model::parse;
use crate::system::mechanism::Mechanism;
use crate::system::multibody::Multibody;

/// The residual (N) at the unknowns `x` = (u, λ[, z, μ]) of length N.
fn residual(form: &mut Index3, sys: &Multibody, pt: &IntegrationPoint, x: &[f64]) -> Vec<f64> {
    let (n, m) = (form.n, form.m);
    let u = Vector::from_column_slice(&x[..n]);
    let lambda = Vector::from_column_slice(&x[n..n + m]);
    if let Some(g) = form.ggl.as_mut() {
        g.set_unknowns(&x[n + m..]);
    }
    form.evaluate(sys, pt, &u, &lambda);
    form.residual.as_slice().to_vec()
}

/// The iteration matrix (N × N) at `x`, assembled densely.
fn matrix(form: &mut Index3, sys: &Multibody, pt: &IntegrationPoint, x: &[f64]) -> Matrix {
    residual(form, sys, pt, x);
    let (n, m) = (form.n, form.m);
    let lambda = Vector::from_column_slice(&x[n..n + m]);
    let size = form.residual.len();
    let mut jac = Matrix::zeros(size, size);
    let terms = IterationMatrix {
        sys,
        pt,
        lambda: &lambda,
        st: EvalStates {
            q_e: &form.q_e,
            v_e: &form.v_e,
            a_e: &form.a_e,
            q_c: &form.q_c,
        },
        same_configuration: form.same_configuration,
        ggl: form.ggl.as_ref(),
    };
    terms.add(true, &mut jac);
    jac
}

/// Largest |J − J_fd| relative to the largest entry of its row of J, and its entry (row, column), for index 3
/// or (`stabilized`) the stabilized index-2 formulation on the example `name`.
fn worst_difference(name: &str, stabilized: bool) -> (f64, (usize, usize)) {
    let ex = crate::examples::find(name).expect("example exists");
    let model = parse::from_str(ex.text, ex.file).expect("example parses");
    let sys = Multibody::new(&model).expect("builds");
    // The model's initial values, not assembled: the point lies off the solution anyway.
    let x0 = sys.initial_state(0.0);
    let (n, m) = (sys.n(), sys.m());
    let settings = NewtonSettings::default();
    let mut form = if stabilized {
        Index3::with_stabilization(n, m, settings)
    } else {
        Index3::new(n, m, settings)
    };
    // A generalized-α-like point at h = 0.01 s, its known parts off the solution.
    let h: f64 = 0.01;
    let mut pt = IntegrationPoint::new(n, m);
    pt.t_e = 0.37;
    pt.t_c = 0.37;
    for i in 0..n {
        let s = (i as f64 + 1.0).sin();
        pt.q_hat[i] = x0.q[i] + 0.02 * s;
        pt.v_hat[i] = x0.v[i] + 0.3 * s.cos();
        pt.a_hat[i] = 0.0;
    }
    pt.qc_hat.copy_from(&pt.q_hat);
    (pt.c_q, pt.c_v, pt.c_a, pt.c_c) = (0.3 * h * h, 0.55 * h, 1.0, 0.3 * h * h);
    let size = form.residual.len();
    let x: Vec<f64> = (0..size).map(|i| 0.5 * (0.7 * i as f64).cos()).collect();
    let jac = matrix(&mut form, &sys, &pt, &x);
    // Each row's own scale: a beam's stiffness rows would hide an error in a joint's λ Φ_qq
    // terms relative to the largest entry of J.
    let row_scale: Vec<f64> = (0..size)
        .map(|i| (0..size).map(|j| jac[(i, j)].abs()).fold(0.0, f64::max))
        .collect();
    let mut worst = (0.0_f64, (0, 0));
    for j in 0..size {
        // Large enough that rounding in Φ/c_c (c_c = 3e-5 s²) stays below 1e-9 of J.
        let step = 1e-4 * (1.0 + x[j].abs());
        let (mut plus, mut minus) = (x.clone(), x.clone());
        plus[j] += step;
        minus[j] -= step;
        let r_plus = residual(&mut form, &sys, &pt, &plus);
        let r_minus = residual(&mut form, &sys, &pt, &minus);
        for i in 0..size {
            let fd = (r_plus[i] - r_minus[i]) / (2.0 * step);
            let d = (jac[(i, j)] - fd).abs() / row_scale[i].max(f64::MIN_POSITIVE);
            if d > worst.0 {
                worst = (d, (i, j));
            }
        }
    }
    worst
}

#[test]
fn index3_iteration_matrix_matches_finite_differences() {
    for name in [
        "slider-crank",
        "spatial-slider-crank",
        "bricard",
        "flyball-governor",
        "flexible-fourbar",
        "lateral-buckling",
    ] {
        let (worst, at) = worst_difference(name, false);
        assert!(
            worst < 1e-6,
            "{name}: |J − J_fd| / max|J row| = {worst:e} at {at:?}"
        );
    }
}

#[test]
fn stabilized_index2_iteration_matrix_matches_finite_differences() {
    for name in [
        "slider-crank",
        "spatial-slider-crank",
        "bricard",
        "flexible-fourbar",
    ] {
        let (worst, at) = worst_difference(name, true);
        assert!(
            worst < 1e-6,
            "{name}: |J − J_fd| / max|J row| = {worst:e} at {at:?}"
        );
    }
}
