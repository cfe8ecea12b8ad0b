//! The expressions of an `[equations]` table compiled ([`CompiledEquations`]): parsed by exmex
//! (Schwarz 2021–, the `exmex` crate) once, and every derivative the formulations need derived
//! symbolically once with its `partial`: ∂M/∂q (for ∂(M a)/∂q), ∂Q/∂q, ∂Q/∂q̇, Φ_q, Φ_t and the
//! second and third derivatives of Φ that γ, Ḣ, Ḧ and ∂(Φ_qᵀλ)/∂q are made of (the formulas are in
//! the system layer's `system::equations`, which evaluates them).
//!
//! Only derivatives that are not identically zero are kept (a partial derivative is dropped when
//! the variable does not occur in the expression). The compiler lives in the model layer so that
//! the model's checks compile a table exactly as the run will, and a model the file reader accepts
//! builds.
//!
//! Evaluation does not allocate for expressions of up to 32 operands (exmex's stack buffer);
//! longer ones allocate once per evaluation.

use exmex::prelude::*;
use exmex::{FlatEx, FloatOpsFactory};

use crate::linalg::Vector;
use crate::model::equations::{EquationSpec, Expression};
use crate::model::jet::Literal;
use crate::model::unary_minus::bind_unary_minus;
use crate::state::State;

type Flat = FlatEx<f64, FloatOpsFactory<f64>, Literal>;

/// Where one variable of an expression comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Source {
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
pub(crate) struct Expr {
    flat: Flat,
    pub(crate) sources: Vec<Source>,
}

impl Expr {
    pub(crate) fn eval(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
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

    /// The expression as exmex reads it back (after the unary-minus rewrite).
    pub(crate) fn text(&self) -> String {
        self.flat.unparse().to_string()
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

/// Longest symbolic derivative accepted, in characters of its text: the derivatives are evaluated
/// at every Newton iteration, and a formula nested 15 deep reached this size at its second
/// derivative (its third took seconds to derive).
pub const MAX_DERIVATIVE_LEN: usize = 100_000;

/// Stack of the thread that compiles and differentiates the expressions \[bytes\]: exmex parses and
/// differentiates recursively, and a 100-term sum overflowed the main thread's 8 MiB. Reserved, not
/// committed: only the pages a formula needs are touched.
const COMPILE_STACK: usize = 1 << 30;

/// An entry of a derivative array: indices and the expression.
pub(crate) type Entry<const K: usize> = ([usize; K], Expr);

/// An `[equations]` table compiled: every expression parsed once and every derivative the
/// formulations need derived once (module documentation). Evaluated by the system layer's
/// `EquationSystem`; the model's checks evaluate M(q₀) with [`CompiledEquations::mass_matrix`].
#[derive(Debug, Clone)]
pub struct CompiledEquations {
    pub(crate) names: Vec<String>,
    pub(crate) constraint_text: Vec<String>,
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) initial: State,
    /// M_ij (non-zero entries).
    pub(crate) mass: Vec<Entry<2>>,
    /// ∂M_ij/∂q_k.
    pub(crate) mass_q: Vec<Entry<3>>,
    pub(crate) forces: Vec<Expr>,
    pub(crate) forces_q: Vec<Entry<2>>,
    pub(crate) forces_v: Vec<Entry<2>>,
    pub(crate) phi: Vec<Expr>,
    /// Φ_r,k.
    pub(crate) phi_q: Vec<Entry<2>>,
    /// Φ_r,t (r).
    pub(crate) phi_t: Vec<Entry<1>>,
    /// Φ_r,kl, Φ_r,kt, Φ_r,tt.
    pub(crate) phi_qq: Vec<Entry<3>>,
    pub(crate) phi_qt: Vec<Entry<2>>,
    pub(crate) phi_tt: Vec<Entry<1>>,
    /// Φ_r,lks, Φ_r,lkt, Φ_r,ltt (Ḧ only).
    pub(crate) phi_qqq: Vec<Entry<4>>,
    pub(crate) phi_qqt: Vec<Entry<3>>,
    pub(crate) phi_qtt: Vec<Entry<2>>,
    pub(crate) potential: Option<Expr>,
    pub(crate) potential_q: Vec<Entry<1>>,
    pub(crate) potential_t: Option<Expr>,
    pub(crate) velocity_dependent: bool,
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

impl CompiledEquations {
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

    /// [`CompiledEquations::new`] on the calling thread.
    fn compile_all(spec: &EquationSpec) -> Result<Self, EquationError> {
        if let Some(i) = spec.check().first() {
            return Err(EquationError(format!("{} ({})", i.message, i.hint)));
        }
        let n = spec.coordinates.len();
        let m = spec.constraints.len();
        let mut s = CompiledEquations {
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

    /// M(q) (n × n, every entry written) at the coordinates `q` (n).
    ///
    /// # Panics
    /// When `out` is not n × n or `q` has not n entries.
    pub fn mass_matrix(&self, q: &Vector, out: &mut crate::linalg::Matrix) {
        out.fill(0.0);
        let z = Vector::zeros(0);
        for ([i, j], e) in &self.mass {
            out[(*i, *j)] += e.eval(0.0, q, &z);
        }
    }

    /// The number of constraints m.
    pub fn constraint_count(&self) -> usize {
        self.m
    }
}
