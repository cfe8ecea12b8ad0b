//! The acceleration-level equations of motion and the coordinate projections built on the same
//! saddle-point matrix: the machinery the formulations of Haug (1989), *Computer-Aided Kinematics
//! and Dynamics of Mechanical Systems*, §7.3 share (`direct`, `baumgarte`, `projection`,
//! `partitioning`, `hybrid`).
//!
//! At a state (t, q, v) known to the scheme (an explicit integration point: c_q = c_v = 0), the
//! accelerations a (n) and multipliers λ (m) solve Haug's eq. 7.2.1,
//!
//! ```text
//! [ M(q)   Φ_qᵀ ] [ a ]   [ Q(q, v, t) ]
//! [ Φ_q    0    ] [ λ ] = [ γ̂          ]      γ̂ = γ − 2α(Φ_q v + Φ_t) − β²Φ   (eq. 7.3.8)
//! ```
//!
//! with α = β = 0 for direct integration (eq. 7.3.6). The same matrix with a metric W in place of M
//! projects a state onto the constraints: positions by Newton's method on
//! min ½ΔqᵀWΔq subject to Φ(q + Δq, t) = 0,
//!
//! ```text
//! [ W     Φ_qᵀ ] [ Δq ]   [ 0  ]          [ W     Φ_qᵀ ] [ v' ]   [ W v  ]
//! [ Φ_q   0    ] [ μ  ] = [ −Φ ]          [ Φ_q   0    ] [ μ  ] = [ −Φ_t ]
//! ```
//!
//! and velocities onto Φ_q v' + Φ_t = 0 in one solve (the W-closest admissible velocity). A singular
//! matrix (redundant constraints) is solved in the least-squares sense, like the index-3 iteration
//! matrix ([`crate::linalg::linear`]).

use crate::linalg::{norm_inf, same_bits, Block, Sink, Vector};
use crate::scheme::{History, IntegrationPoint, LocalError, State};
use crate::system::System;

use super::singularity::SingularityWatch;
use super::workspace::{MatrixTerms, Workspace};
use super::{
    ConstraintSettings, Correction, Formulation, FormulationError, FormulationSettings,
    NewtonSettings, NewtonStats, PhaseTimes, ProjectionMetric, Registered, Stopwatch,
};

/// An acceleration-level formulation: what it adds to the shared [`AccelerationLevel`]. Every
/// registered type implementing it is a [`Formulation`] through the implementation below, which
/// solves each (explicit) integration point from eq. 7.2.1 and calls these hooks.
pub trait AccelerationFormulation: Registered {
    /// The shared work space.
    fn level(&self) -> &AccelerationLevel;

    /// The shared work space, mutably.
    fn level_mut(&mut self) -> &mut AccelerationLevel;

    /// Baumgarte (α, β) \[1/s\] of the next solves; `None` (the default): γ̂ = γ.
    fn baumgarte(&self) -> Option<(f64, f64)> {
        None
    }

    /// Before each step, with the history (whose newest level is the start of the step).
    fn before<S: System>(&mut self, _sys: &S, _history: &History) {}

    /// After each committed step of a constrained system (m > 0): see
    /// [`Formulation::after_step`].
    ///
    /// # Errors
    /// When the correction fails.
    fn after<S: System>(
        &mut self,
        _sys: &S,
        _history: &mut History,
        _state: &mut State,
    ) -> Result<Correction, FormulationError> {
        Ok(Correction::None)
    }

    /// See [`Formulation::filter_local_error`].
    fn judged(&self, err: &mut LocalError) -> usize {
        err.q.len()
    }

    /// True when [`AccelerationFormulation::after`] always ends with
    /// [`AccelerationLevel::refresh`]. False, the default.
    fn always_refreshes(&self) -> bool {
        false
    }
}

impl<S: System, F: AccelerationFormulation> Formulation<S> for F {
    fn name(&self) -> &'static str {
        F::INFO.name
    }

    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let baumgarte = self.baumgarte();
        self.level_mut()
            .solve_point(sys, pt, u, lambda, baumgarte, stats)
    }

    fn force_terms(&self) -> &Vector {
        &self.level().force_terms
    }

    /// Assembly, factorization and solves of the saddle-point matrix (no residual: the
    /// acceleration-level solve is linear).
    fn phase_times(&self) -> PhaseTimes {
        self.level().work.times()
    }

    fn settings(&self) -> &NewtonSettings {
        &self.level().newton
    }

    fn closest_singularity(&self) -> Option<super::singularity::Passage> {
        self.level().watch.closest
    }

    fn before_step(
        &mut self,
        sys: &S,
        history: &mut History,
        _t_n: f64,
        _h: f64,
    ) -> Result<(), FormulationError> {
        self.before(sys, history);
        Ok(())
    }

    fn after_step(
        &mut self,
        sys: &S,
        history: &mut History,
        state: &mut State,
        _h: f64,
    ) -> Result<Correction, FormulationError> {
        if sys.m() == 0 {
            return Ok(Correction::None);
        }
        self.after(sys, history, state)
    }

    fn filter_local_error(&self, err: &mut LocalError) -> usize {
        self.judged(err)
    }

    fn recomputes_accelerations_after_step(&self, sys: &S) -> bool {
        sys.m() > 0 && self.always_refreshes()
    }
}

/// The saddle-point matrix [W Φ_qᵀ; Φ_q 0] at (t, q), W = mass_scale·M(q) + identity_scale·I.
struct SaddlePoint<'a, S> {
    sys: &'a S,
    t: f64,
    q: &'a Vector,
    mass_scale: f64,
    identity_scale: f64,
}

impl<S: System> MatrixTerms for SaddlePoint<'_, S> {
    fn add<K: Sink>(&self, every: bool, out: &mut K) {
        let (n, m) = (self.sys.n(), self.sys.m());
        if every || self.mass_scale != 0.0 {
            self.sys.mass(self.q, self.mass_scale, out);
        }
        if every || self.identity_scale != 0.0 {
            for i in 0..n {
                out.add(i, i, self.identity_scale);
            }
        }
        if m > 0 {
            for (row, col, transpose) in [(0, n, true), (n, 0, false)] {
                self.sys.constraint_jacobian(
                    self.t,
                    self.q,
                    1.0,
                    &mut Block {
                        inner: &mut *out,
                        row,
                        col,
                        scale: 1.0,
                        transpose,
                    },
                );
            }
        }
    }
}

/// Work space of the acceleration-level equations and the projections (see the module
/// documentation). Allocates only when built.
#[derive(Debug)]
pub struct AccelerationLevel {
    n: usize,
    m: usize,
    /// Newton settings (the position tolerance of the projections).
    pub newton: NewtonSettings,
    /// Baumgarte parameters, projection metric, constraint tolerance.
    pub constraints: ConstraintSettings,
    /// Force terms Φ_qᵀλ − Q (n) \[N\] of the last acceleration solve.
    pub force_terms: Vector,
    /// Accelerations a (n) of the last acceleration solve.
    pub a: Vector,
    /// Multipliers λ (m) of the last acceleration solve.
    pub lambda: Vector,
    work: Workspace,
    rhs: Vector,
    phi: Vector,
    phi_t: Vector,
    scratch_n: Vector,
    scratch_m: Vector,
    /// The watch on the conditioning of eq. 7.2.1's matrix (`singularity.rs`).
    watch: SingularityWatch,
    /// The (t, q, metric) whose matrix `work` holds factored, when known (see [`Self::factor`]).
    factored: Option<(f64, ProjectionMetric)>,
    /// The q (n) of `factored`.
    factored_q: Vector,
}

impl AccelerationLevel {
    /// Work space for n coordinates and m constraints.
    pub fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        AccelerationLevel {
            n,
            m,
            newton: settings.newton,
            constraints: settings.constraints,
            force_terms: Vector::zeros(n),
            a: Vector::zeros(n),
            lambda: Vector::zeros(m),
            work: Workspace::new(
                n + m,
                settings.newton.linear_solver,
                Stopwatch {
                    on: settings.newton.time_phases,
                },
            ),
            rhs: Vector::zeros(n + m),
            phi: Vector::zeros(m),
            phi_t: Vector::zeros(m),
            scratch_n: Vector::zeros(n),
            scratch_m: Vector::zeros(m),
            watch: SingularityWatch::new(n + m, settings.constraints.singular_configuration),
            factored: None,
            factored_q: Vector::zeros(n),
        }
    }

    /// True when the last factored matrix was singular (redundant constraints, a singular
    /// configuration): its solves were least squares.
    pub fn was_singular(&self) -> bool {
        self.work.is_singular()
    }

    /// Factors [W Φ_qᵀ; Φ_q 0] at (t, q) with W of `metric`, unless `work` already holds that
    /// matrix (same t and metric, q bit for bit): coordinate projection solves the velocity
    /// projection and then eq. 7.2.1 at the same projected state, in the mass metric by default.
    fn factor<S: System>(&mut self, sys: &S, t: f64, q: &Vector, metric: ProjectionMetric) {
        let same = self
            .factored
            .is_some_and(|(t0, m0)| t0.to_bits() == t.to_bits() && m0 == metric)
            && same_bits(self.factored_q.as_slice(), q.as_slice());
        if same {
            return;
        }
        self.factored = Some((t, metric));
        self.factored_q.copy_from(q);
        let (mass_scale, identity_scale) = match metric {
            ProjectionMetric::Mass => (1.0, 0.0),
            ProjectionMetric::Identity => (0.0, 1.0),
        };
        self.work.factor(&SaddlePoint {
            sys,
            t,
            q,
            mass_scale,
            identity_scale,
        });
    }

    /// Solves eq. 7.2.1 at (t, q, v) for `self.a` and `self.lambda`, with the Baumgarte terms of
    /// eq. 7.3.8 when `baumgarte` = (α, β) \[1/s\] is given; `self.force_terms` becomes Φ_qᵀλ − Q
    /// (on failure it holds −Q).
    ///
    /// # Errors
    /// [`FormulationError::NonFinite`] when the solution is not finite;
    /// [`FormulationError::SingularConfiguration`] when the matrix is (nearly) singular at a
    /// configuration where it was not at the start and the constraint settings say `stop`
    /// ([`super::singularity`]).
    pub fn accelerations<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        q: &Vector,
        v: &Vector,
        baumgarte: Option<(f64, f64)>,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let (n, m) = (self.n, self.m);
        let before = self.work.stats();
        self.factor(sys, t, q, ProjectionMetric::Mass);
        sys.forces(t, q, v, &mut self.force_terms);
        self.rhs.rows_mut(0, n).copy_from(&self.force_terms);
        if m > 0 {
            sys.gamma(t, q, v, &mut self.lambda);
            if let Some((alpha, beta)) = baumgarte {
                self.constraint_rates(sys, t, q, v);
                for j in 0..m {
                    self.lambda[j] -= 2.0 * alpha * self.phi_t[j] + beta * beta * self.phi[j];
                }
            }
            self.rhs.rows_mut(n, m).copy_from(&self.lambda);
        }
        self.work.solve_in_place(&mut self.rhs);
        let watched = if m > 0 {
            self.watch.check(&mut self.work, t)
        } else {
            Ok(())
        };
        stats.iterations += 1;
        stats.jacobians += 1;
        stats.residuals += 1;
        stats.add_linear(before, self.work.stats());
        watched?;
        if !self.rhs.iter().all(|x| x.is_finite()) {
            return Err(FormulationError::NonFinite);
        }
        self.a.copy_from(&self.rhs.rows(0, n));
        self.lambda.copy_from(&self.rhs.rows(n, m));
        self.force_terms.neg_mut();
        if m > 0 {
            sys.add_constraint_force(t, q, &self.lambda, &mut self.force_terms);
        }
        Ok(())
    }

    /// Recomputes a and λ from eq. 7.2.1 (no stabilization) at the corrected `state` and writes
    /// them into it and into the history's newest level, which is the same state (overwritten
    /// whole).
    ///
    /// # Errors
    /// [`FormulationError::NonFinite`] when the solution is not finite.
    pub fn refresh<S: System>(
        &mut self,
        sys: &S,
        history: &mut History,
        state: &mut State,
    ) -> Result<(), FormulationError> {
        let mut stats = NewtonStats::default();
        self.accelerations(sys, state.t, &state.q, &state.v, None, &mut stats)?;
        state.a.copy_from(&self.a);
        state.lambda.copy_from(&self.lambda);
        let level = &mut history.levels[0];
        if level.t == state.t {
            level.copy_from(state);
        }
        Ok(())
    }

    /// Writes Φ(q, t) into `self.phi` and the velocity violation Φ̇ = Φ_q v + Φ_t into
    /// `self.phi_t`.
    fn constraint_rates<S: System>(&mut self, sys: &S, t: f64, q: &Vector, v: &Vector) {
        sys.constraints(t, q, &mut self.phi);
        sys.constraint_time_derivative(t, q, &mut self.scratch_m);
        sys.constraint_jacobian_times(t, q, v, &mut self.phi_t);
        self.phi_t += &self.scratch_m;
    }

    /// Solves an explicit integration point (c_q = c_v = 0: q_e and v_e are known) for u (n) and
    /// λ (m): a from eq. 7.2.1 (with the Baumgarte terms when given), u = (a − â)/c_a.
    ///
    /// # Errors
    /// [`FormulationError::NonFinite`] when the solution is not finite.
    ///
    /// # Panics
    /// In debug builds, when the point is not explicit (the scheme declared a formulation it
    /// cannot use).
    pub fn solve_point<S: System>(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        baumgarte: Option<(f64, f64)>,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        debug_assert!(
            pt.c_q == 0.0 && pt.c_v == 0.0 && pt.c_a != 0.0,
            "acceleration-level formulations need explicit points"
        );
        self.accelerations(sys, pt.t_e, &pt.q_hat, &pt.v_hat, baumgarte, stats)?;
        for i in 0..self.n {
            u[i] = (self.a[i] - pt.a_hat[i]) / pt.c_a;
        }
        lambda.copy_from(&self.lambda);
        Ok(())
    }

    /// Projects `q` (n) onto Φ(q, t) = 0 in the metric of `self.constraints.projection` by Newton's
    /// method (see the module documentation); returns the number of iterations (0 when q already
    /// satisfies the tolerance ‖Φ‖∞ ≤ position_tol · (1 + ‖q‖∞)).
    ///
    /// # Errors
    /// [`FormulationError::NotConverged`] after `max_iterations`; [`FormulationError::NonFinite`].
    pub fn project_positions<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        q: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<usize, FormulationError> {
        let (n, m) = (self.n, self.m);
        let tol = self.newton.test().position_tolerance(q);
        let mut correction = f64::INFINITY;
        for iter in 0..=self.newton.max_iterations {
            sys.constraints(t, q, &mut self.phi);
            let violation = norm_inf(&self.phi);
            if !violation.is_finite() {
                return Err(FormulationError::NonFinite);
            }
            if violation <= tol || correction <= tol {
                return Ok(iter);
            }
            if iter == self.newton.max_iterations {
                return Err(FormulationError::NotConverged {
                    iterations: iter,
                    correction,
                    residual: violation,
                });
            }
            let before = self.work.stats();
            self.factor(sys, t, q, self.constraints.projection);
            self.rhs.fill(0.0);
            for j in 0..m {
                self.rhs[n + j] = -self.phi[j];
            }
            self.work.solve_in_place(&mut self.rhs);
            stats.iterations += 1;
            stats.jacobians += 1;
            stats.residuals += 1;
            stats.add_linear(before, self.work.stats());
            correction = 0.0;
            for i in 0..n {
                q[i] += self.rhs[i];
                correction = correction.max(self.rhs[i].abs());
            }
        }
        unreachable!("the loop returns at its last iteration")
    }

    /// Projects `v` (n) onto Φ_q v + Φ_t = 0 at (t, q) in the metric of
    /// `self.constraints.projection` (one solve).
    ///
    /// # Errors
    /// [`FormulationError::NonFinite`] when the solution is not finite.
    pub fn project_velocities<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        q: &Vector,
        v: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        let (n, m) = (self.n, self.m);
        let before = self.work.stats();
        self.factor(sys, t, q, self.constraints.projection);
        match self.constraints.projection {
            ProjectionMetric::Mass => sys.mass_times(q, v, &mut self.scratch_n),
            ProjectionMetric::Identity => self.scratch_n.copy_from(v),
        }
        self.rhs.rows_mut(0, n).copy_from(&self.scratch_n);
        sys.constraint_time_derivative(t, q, &mut self.phi_t);
        for j in 0..m {
            self.rhs[n + j] = -self.phi_t[j];
        }
        self.work.solve_in_place(&mut self.rhs);
        stats.iterations += 1;
        stats.jacobians += 1;
        stats.residuals += 1;
        stats.add_linear(before, self.work.stats());
        if !self.rhs.iter().all(|x| x.is_finite()) {
            return Err(FormulationError::NonFinite);
        }
        v.copy_from(&self.rhs.rows(0, n));
        Ok(())
    }
}
