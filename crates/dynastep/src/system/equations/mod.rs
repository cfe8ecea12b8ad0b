//! `EquationSystem`: a system written as expressions in named generalized coordinates (an
//! `[equations]` table, [`crate::model::equations`]):
//!
//! ```text
//! M(q) q̈ + Φ_q(q, t)ᵀ λ = Q(q, q̇, t),     Φ(q, t) = 0
//! ```
//!
//! Every derivative the formulations need is derived symbolically once, when the system is built,
//! by exmex's `partial` (Schwarz 2021–, the `exmex` crate): ∂M/∂q (for ∂(M a)/∂q), ∂Q/∂q, ∂Q/∂q̇,
//! Φ_q, Φ_t and the second and third derivatives of Φ that γ, Ḣ, Ḧ and ∂(Φ_qᵀλ)/∂q are made of:
//!
//! ```text
//! γ   = −Σ_kl Φ_kl v_k v_l − 2 Σ_k Φ_kt v_k − Φ_tt
//! Ḣ_l = Σ_k Φ_lk v_k + Φ_lt
//! Ḧ_l = Σ_ks Φ_lks v_k v_s + Σ_k Φ_lk a_k + 2 Σ_k Φ_lkt v_k + Φ_ltt
//! ```
//!
//! Only derivatives that are not identically zero are kept (a partial derivative is dropped when
//! the variable does not occur in the expression). The power of the non-conservative forces, for the
//! energy balance, is P = (Q + ∂V/∂q)·q̇ + ½ q̇ᵀ Ṁ q̇ + ∂V/∂t: Q holds the inertia terms
//! −Ṁ q̇ + ½ ∂(q̇ᵀ M q̇)/∂q, whose power is −½ q̇ᵀ Ṁ q̇, and −∂V/∂q.
//!
//! Evaluation does not allocate for expressions of up to 32 operands (exmex's stack buffer);
//! longer ones allocate once per evaluation.

use exmex::prelude::*;
use exmex::{FlatEx, FloatOpsFactory};

use crate::linalg::{Sink, Vector};
use crate::model::equations::{EquationSpec, Expression};
use crate::model::jet::Literal;
use crate::model::unary_minus::bind_unary_minus;
use crate::state::State;

use super::System;

mod mechanism;
#[cfg(test)]
mod tests;

type Flat = FlatEx<f64, FloatOpsFactory<f64>, Literal>;

/// Where one variable of an expression comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    /// Coordinate q_i.
    Q(usize),
    /// Rate v_i.
    V(usize),
    /// Time.
    T,
    /// A parameter's value.
    Value(f64),
}

/// A compiled expression and the source of each of its variables (exmex orders them by name).
#[derive(Debug, Clone)]
struct Expr {
    flat: Flat,
    sources: Vec<Source>,
}

impl Expr {
    fn eval(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        let mut buf = [0.0; crate::model::equations::MAX_NAMES];
        for (b, s) in buf.iter_mut().zip(&self.sources) {
            *b = match *s {
                Source::Q(i) => q[i],
                Source::V(i) => v[i],
                Source::T => t,
                Source::Value(x) => x,
            };
        }
        self.flat
            .eval(&buf[..self.sources.len()])
            .unwrap_or(f64::NAN)
    }

    /// ∂/∂(source), or `None` when the variable does not occur (identically zero).
    fn partial(&self, wanted: Source) -> Result<Option<Expr>, EquationError> {
        let Some(k) = self.sources.iter().position(|s| *s == wanted) else {
            return Ok(None);
        };
        if !self.flat.var_indices_ordered().contains(&k) {
            return Ok(None);
        }
        let flat = self.flat.clone().partial(k).map_err(|e| {
            EquationError(format!(
                "cannot differentiate `{}`: {e}",
                self.flat.unparse()
            ))
        })?;
        // Symbolic derivatives of nested functions grow geometrically with the order (Φ needs
        // the third): refuse before the next order multiplies the size again.
        let len = flat.unparse().len();
        if len > MAX_DERIVATIVE_LEN {
            let text = self.flat.unparse();
            let shown: String = text.chars().take(80).collect();
            return Err(EquationError(format!(
                "a derivative of `{shown}{}` grows to {len} characters, more than the limit of {MAX_DERIVATIVE_LEN}; introduce an intermediate coordinate with a constraint, or simplify the formula",
                if text.chars().count() > 80 { "…" } else { "" }
            )));
        }
        Ok(Some(Expr {
            flat,
            sources: self.sources.clone(),
        }))
    }
}

/// Why an `[equations]` table does not compile: the message names the expression and says what
/// to change. Displayed as `[equations]: …`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("[equations]: {0}")]
pub struct EquationError(pub String);

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

/// Longest symbolic derivative accepted, in characters of its text: the derivatives are evaluated
/// at every Newton iteration, and a formula nested 15 deep reached this size at its second
/// derivative (its third took seconds to derive).
pub const MAX_DERIVATIVE_LEN: usize = 100_000;

/// Stack of the thread that compiles and differentiates the expressions \[bytes\]: exmex parses and
/// differentiates recursively, and a 100-term sum overflowed the main thread's 8 MiB. Reserved, not
/// committed: only the pages a formula needs are touched.
const COMPILE_STACK: usize = 1 << 30;

/// An entry of a derivative array: indices and the expression.
type Entry<const K: usize> = ([usize; K], Expr);

/// The system of an `[equations]` table (see the module documentation).
#[derive(Debug, Clone)]
pub struct EquationSystem {
    /// Work space of [`System::explain_invalid_state`]: M(q) (n × n), factored in place.
    mass_check: std::cell::RefCell<crate::linalg::Matrix>,
    names: Vec<String>,
    constraint_text: Vec<String>,
    n: usize,
    m: usize,
    initial: State,
    /// M_ij (non-zero entries).
    mass: Vec<Entry<2>>,
    /// ∂M_ij/∂q_k.
    mass_q: Vec<Entry<3>>,
    forces: Vec<Expr>,
    forces_q: Vec<Entry<2>>,
    forces_v: Vec<Entry<2>>,
    phi: Vec<Expr>,
    /// Φ_r,k.
    phi_q: Vec<Entry<2>>,
    /// Φ_r,t (r).
    phi_t: Vec<Entry<1>>,
    /// Φ_r,kl, Φ_r,kt, Φ_r,tt.
    phi_qq: Vec<Entry<3>>,
    phi_qt: Vec<Entry<2>>,
    phi_tt: Vec<Entry<1>>,
    /// Φ_r,lks, Φ_r,lkt, Φ_r,ltt (Ḧ only).
    phi_qqq: Vec<Entry<4>>,
    phi_qqt: Vec<Entry<3>>,
    phi_qtt: Vec<Entry<2>>,
    potential: Option<Expr>,
    potential_q: Vec<Entry<1>>,
    potential_t: Option<Expr>,
    velocity_dependent: bool,
}

/// Compiles one expression with the variable table of `spec`.
fn compile(spec: &EquationSpec, e: &Expression) -> Result<Expr, EquationError> {
    let text = e.text();
    let flat = Flat::parse(&bind_unary_minus(&text))
        .map_err(|err| EquationError(format!("cannot parse `{text}`: {err}")))?;
    let mut sources = Vec::new();
    for name in flat.var_names() {
        let source = if let Some(i) = spec.coordinates.iter().position(|c| c == name) {
            Source::Q(i)
        } else if let Some(i) = spec
            .coordinates
            .iter()
            .position(|c| name.strip_suffix("_dot") == Some(c.as_str()))
        {
            Source::V(i)
        } else if name == "t" {
            Source::T
        } else if let Some(x) = spec.parameters.get(name) {
            Source::Value(*x)
        } else {
            return Err(EquationError(format!("unknown name `{name}` in `{text}`")));
        };
        sources.push(source);
    }
    if sources.len() > crate::model::equations::MAX_NAMES {
        return Err(EquationError(format!(
            "`{text}` uses more than {} names",
            crate::model::equations::MAX_NAMES
        )));
    }
    Ok(Expr { flat, sources })
}

/// Appends (idx + [k], ∂e/∂q_k) for every k where the derivative is not identically zero.
fn push_q<const K: usize, const L: usize>(
    out: &mut Vec<Entry<L>>,
    idx: [usize; K],
    e: &Expr,
    n: usize,
) -> Result<(), EquationError> {
    for k in 0..n {
        if let Some(d) = e.partial(Source::Q(k))? {
            let mut i = [0; L];
            i[..K].copy_from_slice(&idx);
            i[K] = k;
            out.push((i, d));
        }
    }
    Ok(())
}

impl EquationSystem {
    /// Compiles `spec` (checked by [`EquationSpec::check`] first) and derives every derivative.
    ///
    /// # Errors
    /// A message naming the expression when it does not parse or cannot be differentiated (a
    /// function without a derivative in exmex, such as `floor`, in a place that needs one).
    pub fn new(spec: &EquationSpec) -> Result<Self, EquationError> {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("equations".into())
                .stack_size(COMPILE_STACK)
                .spawn_scoped(scope, || Self::compile_all(spec))
                .map_err(|e| EquationError(format!("cannot start the expression compiler: {e}")))?
                .join()
                .unwrap_or_else(|_| Err(EquationError("the expression compiler failed".into())))
        })
    }

    /// [`EquationSystem::new`] on the calling thread.
    fn compile_all(spec: &EquationSpec) -> Result<Self, EquationError> {
        if let Some(i) = spec.check().first() {
            return Err(EquationError(format!("{} ({})", i.message, i.hint)));
        }
        let n = spec.coordinates.len();
        let m = spec.constraints.len();
        let mut s = EquationSystem {
            mass_check: std::cell::RefCell::new(crate::linalg::Matrix::zeros(n, n)),
            names: spec.coordinates.clone(),
            constraint_text: spec.constraints.iter().map(Expression::text).collect(),
            n,
            m,
            initial: State::zeros(0.0, n, m),
            mass: Vec::new(),
            mass_q: Vec::new(),
            forces: Vec::new(),
            forces_q: Vec::new(),
            forces_v: Vec::new(),
            phi: Vec::new(),
            phi_q: Vec::new(),
            phi_t: Vec::new(),
            phi_qq: Vec::new(),
            phi_qt: Vec::new(),
            phi_tt: Vec::new(),
            phi_qqq: Vec::new(),
            phi_qqt: Vec::new(),
            phi_qtt: Vec::new(),
            potential: None,
            potential_q: Vec::new(),
            potential_t: None,
            velocity_dependent: false,
        };
        for (i, c) in spec.coordinates.iter().enumerate() {
            s.initial.q[i] = spec.initial.get(c).copied().unwrap_or(0.0);
            s.initial.v[i] = spec
                .initial
                .get(&format!("{c}_dot"))
                .copied()
                .unwrap_or(0.0);
        }
        s.compile_mass(spec)?;
        s.compile_forces(spec)?;
        for (r, e) in spec.constraints.iter().enumerate() {
            let phi = compile(spec, e)?;
            s.compile_constraint(r, &phi)?;
            s.phi.push(phi);
        }
        if let Some(e) = &spec.potential {
            let v = compile(spec, e)?;
            push_q(&mut s.potential_q, [], &v, n)?;
            s.potential_t = v.partial(Source::T)?;
            s.potential = Some(v);
        }
        Ok(s)
    }

    fn compile_mass(&mut self, spec: &EquationSpec) -> Result<(), EquationError> {
        for (i, row) in spec.mass.iter().enumerate() {
            for (j, e) in row.iter().enumerate() {
                let mij = compile(spec, e)?;
                if mij
                    .sources
                    .iter()
                    .any(|s| matches!(s, Source::V(_) | Source::T))
                {
                    return Err(EquationError(format!(
                        "mass[{i}][{j}] = `{}` depends on a rate or on t; M may depend on the coordinates only",
                        e.text()
                    )));
                }
                push_q(&mut self.mass_q, [i, j], &mij, self.n)?;
                self.mass.push(([i, j], mij));
            }
        }
        Ok(())
    }

    fn compile_forces(&mut self, spec: &EquationSpec) -> Result<(), EquationError> {
        for (i, e) in spec.forces.iter().enumerate() {
            let qi = compile(spec, e)?;
            push_q(&mut self.forces_q, [i], &qi, self.n)?;
            for k in 0..self.n {
                if let Some(d) = qi.partial(Source::V(k))? {
                    self.forces_v.push(([i, k], d));
                }
            }
            self.forces.push(qi);
        }
        self.velocity_dependent = !self.forces_v.is_empty();
        Ok(())
    }

    /// Φ_q, Φ_t and the second and third derivatives of constraint row `r`.
    fn compile_constraint(&mut self, r: usize, phi: &Expr) -> Result<(), EquationError> {
        let n = self.n;
        if phi.sources.iter().any(|s| matches!(s, Source::V(_))) {
            return Err(EquationError(format!(
                "constraint {r} depends on a rate; constraints are Φ(q, t) = 0"
            )));
        }
        let first = self.phi_q.len();
        push_q(&mut self.phi_q, [r], phi, n)?;
        if let Some(d) = phi.partial(Source::T)? {
            if let Some(dd) = d.partial(Source::T)? {
                push_q(&mut self.phi_qtt, [r], &dd, n)?;
                self.phi_tt.push(([r], dd));
            }
            self.phi_t.push(([r], d));
        }
        let rows: Vec<Entry<2>> = self.phi_q[first..].to_vec();
        for ([_, k], dk) in &rows {
            push_q(&mut self.phi_qq, [r, *k], dk, n)?;
            if let Some(dkt) = dk.partial(Source::T)? {
                self.phi_qt.push(([r, *k], dkt.clone()));
                push_q(&mut self.phi_qqt, [r, *k], &dkt, n)?;
            }
        }
        let second: Vec<Entry<3>> = self
            .phi_qq
            .iter()
            .filter(|(i, _)| i[0] == r)
            .cloned()
            .collect();
        for ([_, k, l], dkl) in &second {
            push_q(&mut self.phi_qqq, [r, *k, *l], dkl, n)?;
        }
        Ok(())
    }

    /// The initial state from `[equations.initial]` (a, λ zero; assembly completes them) at t0.
    pub fn initial_state(&self, t0: f64) -> State {
        let mut x = self.initial.clone();
        x.t = t0;
        x
    }

    /// Names of the coordinates.
    pub fn coordinate_names(&self) -> &[String] {
        &self.names
    }
}

impl System for EquationSystem {
    fn n(&self) -> usize {
        self.n
    }

    fn m(&self) -> usize {
        self.m
    }

    fn mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([i, j], e) in &self.mass {
            out.add(*i, *j, scale * e.eval(0.0, q, &z));
        }
    }

    fn mass_acceleration_q<S: Sink>(&self, q: &Vector, a: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([i, j, k], e) in &self.mass_q {
            out.add(*i, *k, scale * e.eval(0.0, q, &z) * a[*j]);
        }
    }

    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        for (o, e) in out.iter_mut().zip(&self.forces) {
            *o = e.eval(t, q, v);
        }
    }

    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for ([i, k], e) in &self.forces_q {
            out.add(*i, *k, scale * e.eval(t, q, v));
        }
    }

    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        for ([i, k], e) in &self.forces_v {
            out.add(*i, *k, scale * e.eval(t, q, v));
        }
    }

    fn forces_depend_on_velocity(&self) -> bool {
        self.velocity_dependent
    }

    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        let z = Vector::zeros(0);
        for (o, e) in out.iter_mut().zip(&self.phi) {
            *o = e.eval(t, q, &z);
        }
    }

    fn constraint_jacobian<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S) {
        let z = Vector::zeros(0);
        for ([r, k], e) in &self.phi_q {
            out.add(*r, *k, scale * e.eval(t, q, &z));
        }
    }

    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector) {
        let z = Vector::zeros(0);
        out.fill(0.0);
        for ([r], e) in &self.phi_t {
            out[*r] = e.eval(t, q, &z);
        }
    }

    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        out.fill(0.0);
        for ([r, k, l], e) in &self.phi_qq {
            out[*r] -= e.eval(t, q, v) * v[*k] * v[*l];
        }
        for ([r, k], e) in &self.phi_qt {
            out[*r] -= 2.0 * e.eval(t, q, v) * v[*k];
        }
        for ([r], e) in &self.phi_tt {
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
        for ([r, l, k], e) in &self.phi_qq {
            out.add(*r, *l, scale * e.eval(t, q, v) * v[*k]);
        }
        for ([r, l], e) in &self.phi_qt {
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
        for ([r, l, k, s], e) in &self.phi_qqq {
            out.add(*r, *l, scale * e.eval(t, q, v) * v[*k] * v[*s]);
        }
        for ([r, l, k], e) in &self.phi_qq {
            out.add(*r, *l, scale * e.eval(t, q, v) * a[*k]);
        }
        for ([r, l, k], e) in &self.phi_qqt {
            out.add(*r, *l, 2.0 * scale * e.eval(t, q, v) * v[*k]);
        }
        for ([r, l], e) in &self.phi_qtt {
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
        for ([r, k, l], e) in &self.phi_qq {
            out.add(*k, *l, scale * lambda[*r] * e.eval(t, q, &z));
        }
    }

    fn potential_energy(&self, t: f64, q: &Vector) -> f64 {
        let z = Vector::zeros(0);
        self.potential.as_ref().map_or(0.0, |e| e.eval(t, q, &z))
    }

    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        let mut p: f64 = self
            .forces
            .iter()
            .enumerate()
            .map(|(i, e)| e.eval(t, q, v) * v[i])
            .sum();
        for ([k], e) in &self.potential_q {
            p += e.eval(t, q, v) * v[*k];
        }
        for ([i, j, k], e) in &self.mass_q {
            p += 0.5 * v[*i] * e.eval(t, q, v) * v[*k] * v[*j];
        }
        if let Some(e) = &self.potential_t {
            p += e.eval(t, q, v);
        }
        p
    }

    fn explain_invalid_state(&self, q: &Vector) -> Option<String> {
        let mut m = self.mass_check.borrow_mut();
        m.fill(0.0);
        self.mass(q, 1.0, &mut *m);
        let (k, pivot) = first_bad_pivot(&mut m, self.m > 0)?;
        Some(format!(
            "the mass matrix M(q) is no longer positive {} at this configuration (pivot {pivot:.3e} at coordinate `{}` in its Cholesky factorization); the kinetic energy would turn negative. Check the `mass` expressions over the range of the coordinates the motion reaches",
            if self.m > 0 { "semi-definite" } else { "definite" },
            self.coordinate_label(k)
        ))
    }

    fn coordinate_label(&self, i: usize) -> String {
        self.names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("q[{i}]"))
    }

    fn constraint_label(&self, row: usize) -> String {
        match self.constraint_text.get(row) {
            Some(text) => format!("constraint {row} (`{text}`)"),
            None => format!("constraint row {row}"),
        }
    }
}
