//! The system layer: the equations of a constrained mechanical system.
//!
//! ```text
//! M(q) a + Φ_q(q, t)ᵀ λ = Q(q, v, t)          equations of motion          (n rows)
//! Φ(q, t) = 0                                  position constraints, index 3 (m rows)
//! Φ_q v + Φ_t = 0,   Φ_q a = γ(q, v, t)        velocity and acceleration constraints
//! ```
//!
//! [`System`] is implemented by hand-written problems ([`test_problems`]), by equation-based models
//! ([`equations`]) and by the planar multibody assembler ([`planar`]). Every matrix is written through a [`Sink`], so that one
//! implementation serves dense assembly, sparse assembly and matrix-free products.
//!
//! Conventions: q, v, a have n entries; λ, Φ, γ have m entries. SI units; angles in radians.

pub use crate::model::geometry::ABSURD;

/// True for a finite value not above [`ABSURD`] in magnitude.
pub fn sane(x: f64) -> bool {
    x.abs() <= ABSURD
}

/// Why the function of driver `name` cannot be used at t \[s\]: f, ḟ or f̈ not finite or beyond
/// [`ABSURD`]; `None` when all three are sane. Planar and spatial systems name drivers this way.
pub(crate) fn driver_function_problem(
    name: &str,
    function: &crate::model::function::TimeFunction,
    t: f64,
) -> Option<String> {
    let (f, fd, fdd) = function.eval(t);
    (!(sane(f) && sane(fd) && sane(fdd))).then(|| {
        format!(
            "the function of driver `{name}` is not finite or absurdly large at t = {t} s (f = {f:e}, ḟ = {fd:e}, f̈ = {fdd:e}); check its formula or table"
        )
    })
}

pub mod damped;
#[cfg(test)]
pub(crate) mod derivative_check;
pub mod equations;
pub(crate) mod force_elements;
pub mod mechanism;
pub mod multibody;
pub mod planar;
pub mod spatial;
pub mod test_problems;

use crate::linalg::{zero, MatVec, Sink, TransposeMatVec, Vector};

/// Mechanical energy split into kinetic and potential parts \[J\].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Energy {
    /// Kinetic energy ½ vᵀ M v \[J\].
    pub kinetic: f64,
    /// Potential energy of the conservative forces (gravity, springs) \[J\].
    pub potential: f64,
}

/// The equations of a constrained mechanical system (see the module documentation).
///
/// Methods that produce a matrix *add* `scale ×` their matrix into a [`Sink`], entry by entry, always the
/// same entries in the same order. Methods that produce a vector *overwrite* their output.
pub trait System {
    /// Number of generalized coordinates n.
    fn n(&self) -> usize;
    /// Number of constraint equations m (0 for an ODE).
    fn m(&self) -> usize;

    /// Adds `scale · M(q)` (n × n) to `out`.
    fn mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S);

    /// Adds `scale · ∂(M(q) a)/∂q` (n × n) to `out`. The default adds nothing: constant mass matrix,
    /// as for planar body coordinates.
    fn mass_acceleration_q<S: Sink>(&self, _q: &Vector, _a: &Vector, _scale: f64, _out: &mut S) {}

    /// Writes the generalized applied forces Q(q, v, t) (n entries, N or N m) into `out`.
    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector);

    /// Adds `scale · ∂Q/∂q` (n × n) to `out`.
    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S);

    /// Adds `scale · ∂Q/∂v` (n × n) to `out`.
    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S);

    /// True when Q depends on the velocities (dampers, velocity-dependent inertia terms). An explicit
    /// scheme then needs a Newton iteration instead of one linear solve.
    fn forces_depend_on_velocity(&self) -> bool;

    /// Writes the constraint violations Φ(q, t) (m entries) into `out`.
    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector);

    /// Adds `scale · Φ_q(q, t)` (m × n) to `out`.
    fn constraint_jacobian<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S);

    /// Writes Φ_t(q, t) = ∂Φ/∂t (m entries) into `out`; non-zero only for drivers.
    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector);

    /// Writes γ(q, v, t) = −(Φ_q v)_q v − 2 Φ_qt v − Φ_tt (m entries), the right-hand side of the
    /// acceleration constraint Φ_q a = γ, into `out`.
    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector);

    /// Adds `scale · Ḣ(q, v, t)` (m × n) to `out`, the time derivative of the constraint Jacobian
    /// along the motion: `Ḣ = dΦ_q/dt = (Φ_q v)_q + Φ_qt` (rad/s or 1/s per entry of Φ_q). It is also
    /// ∂Φ̇/∂q, the position derivative of the velocity constraint (Fernández de Bustos, Uriarte,
    /// Urkullu & García-Marina 2022, Meccanica 57:371, eqs. 35–36).
    fn constraint_jacobian_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    );

    /// Adds `scale · Ḧ(q, v, a, t)` (m × n) to `out`, the second time derivative of the constraint
    /// Jacobian: `Ḧ = d²Φ_q/dt² = Φ_qqq[v, v] + Φ_qq a + 2 Φ_qqt v + Φ_qtt`, which is also ∂Φ̈/∂q
    /// (Fernández de Bustos et al. 2022, eqs. 41–43).
    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    );

    /// Adds `scale · ∂(Φ_q(q, t)ᵀ λ)/∂q` (n × n) to `out`.
    fn constraint_force_q<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    );

    /// Potential energy of the conservative applied forces (gravity, springs) \[J\].
    fn potential_energy(&self, t: f64, q: &Vector) -> f64;

    /// The size of the internal forces that cancel inside Q \[N\]: a flexible beam's section
    /// forces at its reference strains (EA for a straight beam), whose rounding (EA times the
    /// machine epsilon, amplified by |r|/ℓ) Q carries even when the net force is small. Newton's
    /// residual test counts it among the sizes of its terms (see `formulation`), so that this
    /// rounding does not stall it; 0 (the default) for systems without such forces.
    fn internal_force_scale(&self) -> f64 {
        0.0
    }

    /// Power \[W\] of the applied forces that are not derived from the potential: dampers, actuators,
    /// applied loads. The power of driving constraints is computed by the caller as λᵀ Φ_t.
    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64;

    /// Number k of extra equations imposed during assembly only (joint values the user marks as
    /// given); 0 by default.
    fn assembly_constraint_count(&self) -> usize {
        0
    }

    /// Writes the residuals of the extra assembly equations (k entries) at q.
    fn assembly_constraints(&self, _q: &Vector, _out: &mut Vector) {}

    /// Adds `scale ·` the Jacobian of the extra assembly equations (k × n) to `out`.
    fn assembly_constraint_jacobian<S: Sink>(&self, _q: &Vector, _scale: f64, _out: &mut S) {}

    /// Appends the times \[s\] where the applied forces or the drivers are not smooth (ends of ramps,
    /// smooth steps, table points) to `out`, in any order. An adaptive run lands a step on each. The
    /// default has none.
    fn breakpoints(&self, _out: &mut Vec<f64>) {}

    /// A human-readable name of constraint row `row` (0 ≤ row < m), e.g. `"joint `O` (revolute), x"`,
    /// used when reporting redundant constraints. The default is `"constraint row {row}"`.
    fn constraint_label(&self, row: usize) -> String {
        format!("constraint row {row}")
    }

    /// True when constraint row `row` is a driving constraint (a prescribed motion g(q) = f(t)) rather
    /// than a joint. The default is false.
    fn driving_constraint(&self, _row: usize) -> bool {
        false
    }

    /// A human-readable name of coordinate `i` (0 ≤ i < n), e.g. `"crank.theta"`, used when an
    /// analysis names free or moving coordinates. The default is `"q[{i}]"`.
    fn coordinate_label(&self, i: usize) -> String {
        format!("q[{i}]")
    }

    /// Why the configuration q (n entries) reached by a committed step is one the equations do not
    /// hold for, or `None` (the default). An equation-based model says so when its mass matrix
    /// M(q) is no longer positive definite (semi-definite with constraints): the kinetic energy
    /// would turn negative and the run go on with a wrong result. The time loop asks at every
    /// committed step.
    fn explain_invalid_state(&self, _q: &Vector) -> Option<String> {
        None
    }

    /// Why the equations are not finite at (t, q, v), naming the source, or `None` when Q, Φ_t and γ
    /// are all finite and below [`ABSURD`] there (a diverging solution is then the likely cause). The default names the
    /// coordinate or constraint row; [`planar::PlanarSystem`] names the element or time function.
    fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        let mut f = Vector::zeros(self.n());
        self.forces(t, q, v, &mut f);
        if let Some(i) = f.iter().position(|x| !sane(*x)) {
            return Some(format!(
                "the applied forces are not finite or absurdly large at t = {t} s (on {} = {:e})",
                self.coordinate_label(i),
                f[i]
            ));
        }
        let mut c = Vector::zeros(self.m());
        for (what, level) in [("Φ_t", 0), ("γ", 1)] {
            if level == 0 {
                self.constraint_time_derivative(t, q, &mut c);
            } else {
                self.gamma(t, q, v, &mut c);
            }
            if let Some(r) = c.iter().position(|x| !sane(*x)) {
                return Some(format!(
                    "{what} is not finite or absurdly large at t = {t} s in {} (a driver's function or its derivatives)",
                    self.constraint_label(r)
                ));
            }
        }
        None
    }

    /// Kinetic and potential energy \[J\]. The default computes ½ vᵀ M v matrix-free.
    fn energy(&self, t: f64, q: &Vector, v: &Vector, scratch: &mut Vector) -> Energy {
        scratch.fill(0.0);
        self.mass(q, 1.0, &mut MatVec { x: v, y: scratch });
        Energy {
            kinetic: 0.5 * v.dot(scratch),
            potential: self.potential_energy(t, q),
        }
    }

    /// Writes `M(q) a` (n entries) into `out` without forming M.
    fn mass_times(&self, q: &Vector, a: &Vector, out: &mut Vector) {
        zero(out.as_mut_slice());
        self.mass(q, 1.0, &mut MatVec { x: a, y: out });
    }

    /// Adds `Φ_q(q, t)ᵀ λ` (n entries) to `out` without forming Φ_q.
    fn add_constraint_force(&self, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
        self.constraint_jacobian(t, q, 1.0, &mut TransposeMatVec { x: lambda, y: out });
    }

    /// Writes Φ(q, t) (m entries) into `phi` and adds `Φ_q(q, t)ᵀ λ` (n entries) to `force`: the
    /// two constraint terms of a residual whose equilibrium and constraints are taken at the same
    /// configuration (generalized-α, the LMS and single-step schemes, the ESDIRK stages). A
    /// system whose rows share work between the two overrides it (the spatial joints evaluate
    /// their expressions once); the default makes the two calls.
    fn constraints_and_force(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        phi: &mut Vector,
        force: &mut Vector,
    ) {
        self.constraints(t, q, phi);
        self.add_constraint_force(t, q, lambda, force);
    }

    /// Writes `Φ_q(q, t) x` (m entries) into `out` without forming Φ_q.
    fn constraint_jacobian_times(&self, t: f64, q: &Vector, x: &Vector, out: &mut Vector) {
        out.fill(0.0);
        self.constraint_jacobian(t, q, 1.0, &mut MatVec { x, y: out });
    }
}
