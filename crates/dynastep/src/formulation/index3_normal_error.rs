//! The part of an index-3 velocity error estimate that lies across the constraint manifold.
//!
//! A scheme's estimate e_v of the velocity error of the step to t_{n+1} mixes two things in index 3:
//! the truncation error of the motion, which falls as a power of h, and the step's correction of
//! the velocity-constraint violation g_n = Φ_q v_n + Φ_t that the index-3 state left at t_n, which
//! does not fall with h. Index-3 positions satisfy Φ(q_n) = 0 to the Newton tolerance at every
//! step, so the position estimate carries no such inherited part; the velocities do not satisfy
//! their constraint. The inherited part lies in the normal directions of the manifold (Φ_q e_v ≠ 0);
//! judged as error it drives the step to h_min when the tolerance is per unit step (docs/schemes.md,
//! "Index 3: the estimate's normal part").
//!
//! The normal part of a genuine velocity error of the new state is known: it is the new state's own
//! violation, Φ_q e_v ≈ g_{n+1} = Φ_q v_{n+1} + Φ_t. So the normal component of e_v is replaced by
//! it:
//!
//! ```text
//! J [d; μ] = [0; Φ_q e_v − g_{n+1}],     e_v ← e_v − d,     so that Φ_q e_v ≈ g_{n+1} afterwards,
//! ```
//!
//! with J the iteration matrix last factored for the step, whose constraint block is Φ_q (m × n)
//! and whose first block row makes d a normal direction weighted by that block,
//! d = −A⁻¹Φ_qᵀ w_f μ (A: the mass matrix with the step's damping and stiffness terms). The tangent
//! part of e_v, the truncation error of the motion, is left as it was. One solve with the kept
//! factors: no assembly, no factorization, no allocation. The equality is exact when J was
//! factored at the final q_c; after a simplified Newton correction, with modified Newton's kept
//! factors or with least-squares factors near a singular configuration, Φ_q of J is that of a
//! nearby iterate, and Φ_q e_v equals g_{n+1} to that difference.
//!
//! The position estimate is left alone: its normal part, C h² Φ_q (a_{n+1} − a_n) for the
//! Newmark family, follows the change of the acceleration constraint's right-hand side and is
//! genuine. Replacing it as well (measured, not kept) removed the step control's view of singular
//! configurations: generalized-α on the N = 40 four-bar chain at rtol 1e-8 then left the ADAMS
//! trajectory of B0 by up to 0.28 m, against 0.011 m without it.
//!
//! The construction is dynastep's: Hairer & Wanner (1996, *Solving Ordinary Differential Equations
//! II*, §VII.3) keep the algebraic components out of the error test by scaling them with powers of
//! h; here the differential velocity components themselves carry an algebraic part, which is what
//! is replaced.

use crate::linalg::{copy, zero, MatVec};
use crate::scheme::LocalError;
use crate::system::System;

use super::Index3;

impl Index3 {
    /// Replaces the normal part of the velocity estimate `err.v` (n) by the velocity-constraint
    /// violation of the state of the last point solved (q_c and v_e at t_c: the step's end, or for
    /// a filtered estimate the filter point, which is the step's end moved by the estimate). Does
    /// nothing without constraints, in the stabilized index-2 form (whose states satisfy the
    /// velocity constraints, so that the estimate carries no inherited part), or when no factored
    /// matrix is kept.
    pub(super) fn remove_normal_error<S: System>(&mut self, sys: &S, err: &mut LocalError) {
        if self.m == 0 || self.ggl.is_some() || !self.matrix.valid {
            return;
        }
        let (n, t) = (self.n, self.t_c);
        // −g_{n+1} = −(Φ_q v_{n+1} + Φ_t), then + Φ_q e_v.
        sys.constraint_time_derivative(t, &self.q_c, &mut self.phi);
        let product = MatVec {
            x: &self.v_e,
            y: &mut self.phi,
        };
        sys.constraint_jacobian(t, &self.q_c, 1.0, &mut { product });
        copy(&mut self.normal, &self.phi);
        self.normal.neg_mut();
        let product = MatVec {
            x: &err.v,
            y: &mut self.normal,
        };
        sys.constraint_jacobian(t, &self.q_c, 1.0, &mut { product });
        let (top, bottom) = self.residual.as_mut_slice().split_at_mut(n);
        zero(top);
        bottom[..self.m].copy_from_slice(self.normal.as_slice());
        self.work.solve_in_place(&mut self.residual);
        for (e, d) in err
            .v
            .as_mut_slice()
            .iter_mut()
            .zip(&self.residual.as_slice()[..n])
        {
            *e -= d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::linalg::{MatVec, Vector};
    use crate::model::parse;
    use crate::scheme::{IntegrationPoint, LocalError};
    use crate::system::mechanism::Mechanism;
    use crate::system::multibody::Multibody;
    use crate::system::System;

    /// Φ_q(q_c) x (m).
    fn jacobian_times(sys: &Multibody, t: f64, q: &Vector, x: &Vector) -> Vector {
        let mut y = Vector::zeros(sys.m());
        sys.constraint_jacobian(t, q, 1.0, &mut MatVec { x, y: &mut y });
        y
    }

    /// On the driven slider-crank (a driver, so Φ_t ≠ 0) and the double four-bar (one degree of
    /// freedom), at a point off the solution where the matrix was factored: afterwards Φ_q e_v is
    /// the point's own velocity-constraint violation, a second application changes nothing (the
    /// normal part is already the violation), and the position estimate is untouched.
    #[test]
    fn the_velocity_estimate_takes_the_states_own_violation() {
        for name in ["slider-crank", "double-fourbar"] {
            check_on(name);
        }
    }

    fn check_on(name: &str) {
        let ex = crate::examples::find(name).expect("example exists");
        let model = parse::from_str(ex.text, ex.file).expect("example parses");
        let sys = Multibody::new(&model).expect("builds");
        let x0 = sys.initial_state(0.0);
        let (n, m) = (sys.n(), sys.m());
        let mut form = Index3::new(n, m, NewtonSettings::default());
        let h = 0.01;
        let mut pt = IntegrationPoint::new(n, m);
        (pt.t_e, pt.t_c) = (0.37, 0.37);
        for i in 0..n {
            let s = (i as f64 + 1.0).sin();
            pt.q_hat[i] = x0.q[i] + 0.02 * s;
            pt.v_hat[i] = x0.v[i] + 0.3 * s.cos();
        }
        pt.qc_hat.copy_from(&pt.q_hat);
        (pt.c_q, pt.c_v, pt.c_a, pt.c_c) = (0.3 * h * h, 0.55 * h, 1.0, 0.3 * h * h);
        let u = Vector::from_fn(n, |i, _| 0.5 * (0.7 * i as f64).cos());
        let lambda = Vector::from_fn(m, |i, _| 0.1 * i as f64);
        form.evaluate(&sys, &pt, &u, &lambda);
        form.assemble_and_factor(&sys, &pt, &lambda);
        let mut err = LocalError::zeros(n);
        for i in 0..n {
            err.q[i] = 1e-3 * (1.3 * i as f64).sin();
            err.v[i] = 1e-2 * (0.9 * i as f64 + 0.2).cos();
        }
        let q_before = err.q.clone();
        form.remove_normal_error(&sys, &mut err);
        let mut violation = Vector::zeros(m);
        sys.constraint_time_derivative(pt.t_c, &form.q_c, &mut violation);
        violation += jacobian_times(&sys, pt.t_c, &form.q_c, &form.v_e);
        let normal = jacobian_times(&sys, pt.t_c, &form.q_c, &err.v);
        let gap = (&normal - &violation).amax();
        assert!(
            gap < 1e-10 * violation.amax().max(1.0),
            "{name}: Φ_q e_v − g = {gap:e}"
        );
        let once = err.v.clone();
        form.remove_normal_error(&sys, &mut err);
        let again = (&err.v - &once).amax();
        assert!(
            again < 1e-12 * once.amax(),
            "{name}: a second pass moved e_v by {again:e}"
        );
        assert_eq!(
            err.q, q_before,
            "{name}: the position estimate must be left alone"
        );
    }
}
