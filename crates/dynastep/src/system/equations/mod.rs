//! `EquationSystem`: a system written as expressions in named generalized coordinates (an
//! `[equations]` table, [`crate::model::equations`]):
//!
//! ```text
//! M(q) q̈ + Φ_q(q, t)ᵀ λ = Q(q, q̇, t),     Φ(q, t) = 0
//! ```
//!
//! Every derivative the formulations need is derived symbolically once, when the system is built,
//! by the model layer's compiler ([`CompiledEquations`], exmex's `partial`): ∂M/∂q (for
//! ∂(M a)/∂q), ∂Q/∂q, ∂Q/∂q̇, Φ_q, Φ_t and the second and third derivatives of Φ that γ, Ḣ, Ḧ and
//! ∂(Φ_qᵀλ)/∂q are made of; this module evaluates them:
//!
//! ```text
//! γ   = −Σ_kl Φ_kl v_k v_l − 2 Σ_k Φ_kt v_k − Φ_tt
//! Ḣ_l = Σ_k Φ_lk v_k + Φ_lt
//! Ḧ_l = Σ_ks Φ_lks v_k v_s + Σ_k Φ_lk a_k + 2 Σ_k Φ_lkt v_k + Φ_ltt
//! ```
//!
//! The power of the non-conservative forces, for the
//! energy balance, is P = (Q + ∂V/∂q)·q̇ + ½ q̇ᵀ Ṁ q̇ + ∂V/∂t: Q holds the inertia terms
//! −Ṁ q̇ + ½ ∂(q̇ᵀ M q̇)/∂q, whose power is −½ q̇ᵀ Ṁ q̇, and −∂V/∂q.

use crate::linalg::{Sink, Vector};
use crate::model::equations::EquationSpec;
use crate::model::expressions::CompiledEquations;
pub use crate::model::expressions::EquationError;
use crate::state::State;

use super::System;

mod mechanism;
#[cfg(test)]
mod tests;

/// Factors the symmetric `m` (n × n, lower triangle read) in place by Cholesky and returns the
/// first column whose pivot is not positive, with the pivot: `None` when m is positive definite,
/// or, with `semi`, positive semi-definite (pivots down to −1e-12 of the largest diagonal entry
/// count as zero and their column is skipped). No allocation.
fn first_bad_pivot(m: &mut crate::linalg::Matrix, semi: bool) -> Option<(usize, f64)> {
    let n = m.nrows();
    let scale = (0..n)
        .map(|i| m[(i, i)].abs())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let tol = 1e-12 * scale;
    for j in 0..n {
        let mut d = m[(j, j)];
        for k in 0..j {
            d -= m[(j, k)] * m[(j, k)];
        }
        if d.is_nan() || d <= tol {
            if semi && d.abs() <= tol {
                for i in j..n {
                    m[(i, j)] = 0.0;
                }
                continue;
            }
            return Some((j, d));
        }
        let l = d.sqrt();
        m[(j, j)] = l;
        for i in j + 1..n {
            let mut s = m[(i, j)];
            for k in 0..j {
                s -= m[(i, k)] * m[(j, k)];
            }
            m[(i, j)] = s / l;
        }
    }
    None
}

/// The system of an `[equations]` table (see the module documentation): its compiled expressions
/// ([`CompiledEquations`], model layer) evaluated as a [`System`].
#[derive(Debug, Clone)]
pub struct EquationSystem {
    /// Work space of [`System::explain_invalid_state`]: M(q) (n × n), factored in place.
    mass_check: std::cell::RefCell<crate::linalg::Matrix>,
    eq: CompiledEquations,
}

impl EquationSystem {
    /// Compiles `spec` (checked by [`EquationSpec::check`] first) and derives every derivative
    /// ([`CompiledEquations::new`]).
    ///
    /// # Errors
    /// A message naming the expression when it does not parse or cannot be differentiated (a
    /// function without a derivative in exmex, such as `floor`, in a place that needs one).
    pub fn new(spec: &EquationSpec) -> Result<Self, EquationError> {
        let eq = CompiledEquations::new(spec)?;
        let n = eq.n;
        Ok(EquationSystem {
            mass_check: std::cell::RefCell::new(crate::linalg::Matrix::zeros(n, n)),
            eq,
        })
    }

    /// The initial state from `[equations.initial]` (a, λ zero; assembly completes them) at t0.
    pub fn initial_state(&self, t0: f64) -> State {
        let mut x = self.eq.initial.clone();
        x.t = t0;
        x
    }

    /// Names of the coordinates.
    pub fn coordinate_names(&self) -> &[String] {
        &self.eq.names
    }
}

impl System for EquationSystem {
    fn n(&self) -> usize {
        self.eq.n
    }

    fn m(&self) -> usize {
        self.eq.m
    }

    fn mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([i, j], e) in &self.eq.mass {
            out.add(*i, *j, scale * e.eval(0.0, q, &z));
        }
    }

    fn mass_acceleration_q<S: Sink>(&self, q: &Vector, a: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([i, j, k], e) in &self.eq.mass_q {
            out.add(*i, *k, scale * e.eval(0.0, q, &z) * a[*j]);
        }
    }

    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        for (o, e) in out.iter_mut().zip(&self.eq.forces) {
            *o = e.eval(t, q, v);
        }
    }

    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for ([i, k], e) in &self.eq.forces_q {
            out.add(*i, *k, scale * e.eval(t, q, v));
        }
    }

    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for ([i, k], e) in &self.eq.forces_v {
            out.add(*i, *k, scale * e.eval(t, q, v));
        }
    }

    fn forces_depend_on_velocity(&self) -> bool {
        self.eq.velocity_dependent
    }

    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        let z = Vector::zeros(0);
        for (o, e) in out.iter_mut().zip(&self.eq.phi) {
            *o = e.eval(t, q, &z);
        }
    }

    fn constraint_jacobian<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([r, k], e) in &self.eq.phi_q {
            out.add(*r, *k, scale * e.eval(t, q, &z));
        }
    }

    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector) {
        let z = Vector::zeros(0);
        out.fill(0.0);
        for ([r], e) in &self.eq.phi_t {
            out[*r] = e.eval(t, q, &z);
        }
    }

    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        out.fill(0.0);
        for ([r, k, l], e) in &self.eq.phi_qq {
            out[*r] -= e.eval(t, q, v) * v[*k] * v[*l];
        }
        for ([r, k], e) in &self.eq.phi_qt {
            out[*r] -= 2.0 * e.eval(t, q, v) * v[*k];
        }
        for ([r], e) in &self.eq.phi_tt {
            out[*r] -= e.eval(t, q, v);
        }
    }

    fn constraint_jacobian_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for ([r, l, k], e) in &self.eq.phi_qq {
            out.add(*r, *l, scale * e.eval(t, q, v) * v[*k]);
        }
        for ([r, l], e) in &self.eq.phi_qt {
            out.add(*r, *l, scale * e.eval(t, q, v));
        }
    }

    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        for ([r, l, k, s], e) in &self.eq.phi_qqq {
            out.add(*r, *l, scale * e.eval(t, q, v) * v[*k] * v[*s]);
        }
        for ([r, l, k], e) in &self.eq.phi_qq {
            out.add(*r, *l, scale * e.eval(t, q, v) * a[*k]);
        }
        for ([r, l, k], e) in &self.eq.phi_qqt {
            out.add(*r, *l, 2.0 * scale * e.eval(t, q, v) * v[*k]);
        }
        for ([r, l], e) in &self.eq.phi_qtt {
            out.add(*r, *l, scale * e.eval(t, q, v));
        }
    }

    fn constraint_force_q<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        let z = Vector::zeros(0);
        for ([r, k, l], e) in &self.eq.phi_qq {
            out.add(*k, *l, scale * lambda[*r] * e.eval(t, q, &z));
        }
    }

    fn potential_energy(&self, t: f64, q: &Vector) -> f64 {
        let z = Vector::zeros(0);
        self.eq.potential.as_ref().map_or(0.0, |e| e.eval(t, q, &z))
    }

    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        let mut p: f64 = self
            .eq
            .forces
            .iter()
            .enumerate()
            .map(|(i, e)| e.eval(t, q, v) * v[i])
            .sum();
        for ([k], e) in &self.eq.potential_q {
            p += e.eval(t, q, v) * v[*k];
        }
        for ([i, j, k], e) in &self.eq.mass_q {
            p += 0.5 * v[*i] * e.eval(t, q, v) * v[*k] * v[*j];
        }
        if let Some(e) = &self.eq.potential_t {
            p += e.eval(t, q, v);
        }
        p
    }

    /// Names the first expression (a mass entry, a force, a constraint, the potential) that is not
    /// finite or absurdly large at (t, q, v), with the coordinates' values: an expression evaluated
    /// outside its domain (`sqrt` or `log` of a coordinate that changed sign) is a model's problem,
    /// not the step size's.
    fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        let z = Vector::zeros(0);
        let mass = self
            .eq
            .mass
            .iter()
            .map(|([i, j], e)| (format!("mass[{i}][{j}]"), e.eval(0.0, q, &z), e));
        let forces = self
            .eq
            .forces
            .iter()
            .enumerate()
            .map(|(i, e)| (format!("forces[{i}]"), e.eval(t, q, v), e));
        let phi = self
            .eq
            .phi
            .iter()
            .enumerate()
            .map(|(r, e)| (format!("constraints[{r}]"), e.eval(t, q, &z), e));
        let potential = self
            .eq
            .potential
            .iter()
            .map(|e| ("potential".to_string(), e.eval(t, q, &z), e));
        let (what, value, e) = mass
            .chain(forces)
            .chain(phi)
            .chain(potential)
            .find(|(_, x, _)| !super::sane(*x))?;
        let at: Vec<String> = self
            .eq
            .names
            .iter()
            .zip(q.iter())
            .map(|(name, x)| format!("{name} = {x:.6e}"))
            .collect();
        Some(format!(
            "`{what}` = `{}` is {value} at t = {t} s, {}: the motion leaves the domain of the expression (e.g. sqrt or log of a coordinate that changes sign, a division by zero); write it for the whole range of the coordinates the motion reaches, or stop the run before",
            e.text(),
            at.join(", ")
        ))
    }

    fn explain_invalid_state(&self, q: &Vector) -> Option<String> {
        let mut m = self.mass_check.borrow_mut();
        m.fill(0.0);
        self.mass(q, 1.0, &mut *m);
        let (k, pivot) = first_bad_pivot(&mut m, self.eq.m > 0)?;
        Some(format!(
            "the mass matrix M(q) is no longer positive {} at this configuration (pivot {pivot:.3e} at coordinate `{}` in its Cholesky factorization); the kinetic energy would turn negative. Check the `mass` expressions over the range of the coordinates the motion reaches",
            if self.eq.m > 0 { "semi-definite" } else { "definite" },
            self.coordinate_label(k)
        ))
    }

    fn coordinate_label(&self, i: usize) -> String {
        self.eq
            .names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("q[{i}]"))
    }

    fn constraint_label(&self, row: usize) -> String {
        match self.eq.constraint_text.get(row) {
            Some(text) => format!("constraint {row} (`{text}`)"),
            None => format!("constraint row {row}"),
        }
    }
}
