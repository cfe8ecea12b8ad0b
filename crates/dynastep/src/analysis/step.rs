//! One step of any scheme with any formulation: the routine the time loop ([`super::dynamic`]) and
//! the stability analysis ([`super::stability`]) share.
//!
//! [`solve_step`] begins the step (`Scheme::begin_step`, `Formulation::before_step`), solves each
//! integration point the scheme fills, and hands each solution back to the scheme; it skips a last
//! point that only evaluates a and λ at the new state when the formulation recomputes them there
//! after the step (Adams PECE with coordinate projection or partitioning). It does not
//! commit: the caller then asks for the local error (filtered, for the schemes that ask for it, by
//! [`filter_through_iteration_matrix`]), and either commits (`Scheme::end_step`, `Formulation::after_step`) or
//! rejects (`Scheme::reject`). It allocates nothing.

use crate::formulation::{Formulation, FormulationError, NewtonStats};
use crate::linalg::{copy, Vector};
use crate::scheme::{IntegrationPoint, LocalError, PointSolution, Scheme};
use crate::system::System;

/// Work space of one step: the integration point, the unknowns u (n) and λ (m), and the force terms
/// Φ_qᵀλ − Q (n) handed to the scheme.
#[derive(Debug, Clone)]
pub struct StepWork {
    /// The integration point the scheme fills.
    pub pt: IntegrationPoint,
    /// The unknown u (n).
    pub u: Vector,
    /// The multipliers λ (m).
    pub lambda: Vector,
    /// Force terms at the solution (n) \[N\].
    pub force_terms: Vector,
    /// Whether a point whose Newton iteration failed is tried again, from the constant start and
    /// damped (`retry_point`). The time loop sets it for fixed steps, where a failure ends the
    /// run; an adaptive run retries the step with a smaller h instead. False by default.
    pub retry_failed_points: bool,
    /// The points that converged when tried again, over the run.
    pub retried: RetriedPoints,
}

/// The points of a fixed-step run whose Newton iteration failed and then converged when tried
/// again (`retry_point`).
#[derive(Debug, Clone, Copy)]
pub struct RetriedPoints {
    /// Points that converged from the constant start ([`Scheme::constant_guess`]).
    pub constant_start: u64,
    /// Points that converged by the damped iteration ([`Formulation::set_damped`]).
    pub damped: u64,
    /// Evaluation time of the first of them \[s\] (NaN when none).
    pub first_at: f64,
    /// Of all these, the points whose first attempt stopped at the time loop's iteration limit
    /// (`[solver.step] halve_after_iterations`, [`Formulation::set_iteration_limit`]) rather than
    /// failing outright.
    pub over_limit: u64,
}

impl RetriedPoints {
    /// Counts a point at `t_e` that converged on its retry, from the constant start or damped;
    /// `over_limit` when its first attempt stopped at the iteration limit.
    fn count(&mut self, t_e: f64, from_constant_start: bool, over_limit: bool) {
        if self.constant_start + self.damped == 0 {
            self.first_at = t_e;
        }
        match from_constant_start {
            true => self.constant_start += 1,
            false => self.damped += 1,
        }
        self.over_limit += u64::from(over_limit);
    }

    /// What made the retried points' first attempts fail, in words, for [`RetriedPoints::note`].
    fn why(&self) -> String {
        let total = self.constant_start + self.damped;
        let points = |k: u64| format!("{k} point{}", if k == 1 { "" } else { "s" });
        let over = |k: u64| {
            format!(
                "{} needed more than `[solver.step] halve_after_iterations` Newton iterations",
                points(k)
            )
        };
        match (total - self.over_limit, self.over_limit) {
            (failed, 0) => format!("the Newton iteration failed on {}", points(failed)),
            (0, o) => over(o),
            (failed, o) => format!(
                "the Newton iteration failed on {} and {}",
                points(failed),
                over(o)
            ),
        }
    }

    /// The run's note on them, `None` when there were none.
    pub fn note(&self) -> Option<String> {
        let total = self.constant_start + self.damped;
        (total > 0).then(|| {
            let mut how = Vec::new();
            if self.constant_start > 0 {
                how.push(format!(
                    "{} from the constant start, after which the scheme starts every later point from the constant prediction (on the first step of SS2–SS4: from the paper's start, as its own note says)",
                    self.constant_start
                ));
            }
            if self.damped > 0 {
                how.push(format!("{} by the damped iteration", self.damped));
            }
            let limit = match self.over_limit {
                0 => "",
                _ => "; the limit applies while a step can still be halved",
            };
            format!(
                "{} (the first at t = {:.9} s{limit}); they converged when solved again: {}",
                self.why(),
                self.first_at,
                how.join("; ")
            )
        })
    }
}

impl StepWork {
    /// Work space for n coordinates and m constraints.
    pub fn new(n: usize, m: usize) -> Self {
        StepWork {
            pt: IntegrationPoint::new(n, m),
            u: Vector::zeros(n),
            lambda: Vector::zeros(m),
            force_terms: Vector::zeros(n),
            retry_failed_points: false,
            retried: RetriedPoints {
                constant_start: 0,
                damped: 0,
                first_at: f64::NAN,
                over_limit: 0,
            },
        }
    }
}

/// Why a step could not be solved.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFailure {
    /// Integration point (stage) that failed.
    pub point: usize,
    /// Its evaluation time t_e \[s\].
    pub t_e: f64,
    /// The formulation's error (of the last attempt).
    pub error: FormulationError,
    /// The retries the point was given after its first failure in a fixed-step run, in words
    /// ("from the constant start", "damped", both joined by "and"); empty when none applied.
    pub retries: &'static str,
}

/// Called after each point is solved and before the scheme receives it, with the point index, the
/// point, u (n) and the force terms (n); the stability analysis perturbs u here.
pub type PointHook<'a> = &'a mut dyn FnMut(usize, &IntegrationPoint, &mut Vector, &mut Vector);

/// Solves the step from `t_n` of size `h` \[s\] (see the module documentation); Newton counters are
/// added to `stats`.
///
/// # Errors
/// [`StepFailure`] at the first point whose iteration fails; the scheme then holds a partial step
/// that the caller must [`Scheme::reject`].
#[allow(clippy::too_many_arguments)]
pub fn solve_step<S: System, F: Formulation<S> + ?Sized>(
    sys: &S,
    scheme: &mut dyn Scheme,
    formulation: &mut F,
    work: &mut StepWork,
    t_n: f64,
    h: f64,
    stats: &mut NewtonStats,
    mut hook: Option<PointHook<'_>>,
) -> Result<(), StepFailure> {
    formulation
        .before_step(sys, scheme.history_mut(), t_n, h)
        .map_err(|error| StepFailure {
            point: 0,
            t_e: t_n,
            error,
            retries: "",
        })?;
    scheme.begin_step(t_n, h);
    let skip_last =
        scheme.last_point_only_evaluates() && formulation.recomputes_accelerations_after_step(sys);
    for k in 0..scheme.points_per_step() - usize::from(skip_last) {
        scheme.point(k, &mut work.pt);
        copy(&mut work.u, &work.pt.u_guess);
        copy(&mut work.lambda, &work.pt.lambda_guess);
        let mut solved = formulation.solve(sys, &work.pt, &mut work.u, &mut work.lambda, stats);
        let mut retries = "";
        if let (Err(failed), true) = (&solved, work.retry_failed_points) {
            (solved, retries) =
                retry_point(sys, scheme, formulation, work, k, stats, failed.clone());
        }
        solved.map_err(|error| StepFailure {
            point: k,
            t_e: work.pt.t_e,
            error,
            retries,
        })?;
        copy(&mut work.force_terms, formulation.force_terms());
        if let Some(hook) = hook.as_mut() {
            hook(k, &work.pt, &mut work.u, &mut work.force_terms);
        }
        scheme.accept_point(
            k,
            &PointSolution {
                u: &work.u,
                lambda: &work.lambda,
                force_terms: &work.force_terms,
                position_correction: formulation.position_correction(),
            },
        );
    }
    Ok(())
}

/// Point `k` of a fixed-step run once Newton has failed on it: solved again from the constant start
/// when its start was extrapolated ([`Scheme::constant_guess`]), then, if that fails too or there
/// was nothing to undo, by the damped Newton iteration ([`Formulation::set_damped`]) from the
/// point's start. The last attempt's result (`failed` when no retry applies) and the retries made,
/// in words ([`StepFailure::retries`]).
fn retry_point<S: System, F: Formulation<S> + ?Sized>(
    sys: &S,
    scheme: &mut dyn Scheme,
    formulation: &mut F,
    work: &mut StepWork,
    k: usize,
    stats: &mut NewtonStats,
    failed: FormulationError,
) -> (Result<(), FormulationError>, &'static str) {
    let over_limit = failed.stopped_at_limit(formulation.settings().max_iterations);
    let mut solved = Err(failed);
    let constant = scheme.constant_guess(k, &mut work.pt);
    if constant {
        copy(&mut work.u, &work.pt.u_guess);
        copy(&mut work.lambda, &work.pt.lambda_guess);
        solved = formulation.solve(sys, &work.pt, &mut work.u, &mut work.lambda, stats);
        if solved.is_ok() {
            work.retried.count(work.pt.t_e, true, over_limit);
            return (solved, "from the constant start");
        }
    }
    let damped = formulation.set_damped(true);
    if damped {
        copy(&mut work.u, &work.pt.u_guess);
        copy(&mut work.lambda, &work.pt.lambda_guess);
        solved = formulation.solve(sys, &work.pt, &mut work.u, &mut work.lambda, stats);
        formulation.set_damped(false);
        if solved.is_ok() {
            work.retried.count(work.pt.t_e, false, over_limit);
        }
    }
    let retries = match (constant, damped) {
        (true, true) => "from the constant start and damped",
        (true, false) => "from the constant start",
        (false, true) => "damped",
        (false, false) => "",
    };
    (solved, retries)
}

/// Filters the local error estimate `err` (n and n) of the step just solved through the iteration
/// matrix, when the scheme asks for it ([`Scheme::error_filter_point`]) and the formulation can solve
/// its point ([`Formulation::solves_point_maps`]): solves that point and writes
/// e_q + c_v e_v + c_q (u − u_guess) and e_v + c_v (u − u_guess) into `err`. Returns whether `err`
/// was filtered; Newton counters are added to `stats`. The scheme is not touched.
///
/// # Errors
/// The formulation's error when the filter point does not converge; `err` is then unchanged.
pub fn filter_through_iteration_matrix<S: System, F: Formulation<S> + ?Sized>(
    sys: &S,
    scheme: &dyn Scheme,
    formulation: &mut F,
    work: &mut StepWork,
    err: &mut LocalError,
    stats: &mut NewtonStats,
) -> Result<bool, FormulationError> {
    if !formulation.solves_point_maps() || !scheme.error_filter_point(err, &mut work.pt) {
        return Ok(false);
    }
    let pt = &work.pt;
    copy(&mut work.u, &pt.u_guess);
    copy(&mut work.lambda, &pt.lambda_guess);
    formulation.solve(sys, pt, &mut work.u, &mut work.lambda, stats)?;
    for r in 0..err.q.len() {
        let w = work.u[r] - pt.u_guess[r];
        err.q[r] += pt.c_v * err.v[r] + pt.c_q * w;
        err.v[r] += pt.c_v * w;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retried(constant_start: u64, damped: u64, over_limit: u64) -> RetriedPoints {
        RetriedPoints {
            constant_start,
            damped,
            first_at: 0.25,
            over_limit,
        }
    }

    /// The note tells points that failed outright from points that passed the iteration limit of
    /// a step that could still be halved, and says how each converged.
    #[test]
    fn the_retry_note_says_why_the_points_were_solved_again() {
        assert_eq!(retried(0, 0, 0).note(), None);
        let failed = retried(1, 0, 0).note().unwrap();
        assert!(
            failed.starts_with(
                "the Newton iteration failed on 1 point (the first at t = 0.250000000 s)"
            ),
            "{failed}"
        );
        assert!(failed.contains("converged when solved again: 1 from the constant start"));
        let over = retried(1, 2, 3).note().unwrap();
        assert!(
            over.starts_with("3 points needed more than `[solver.step] halve_after_iterations` Newton iterations"),
            "{over}"
        );
        assert!(
            over.contains("the limit applies while a step can still be halved"),
            "{over}"
        );
        assert!(
            over.contains("2 by the damped iteration") && !over.contains("failed"),
            "{over}"
        );
        let both = retried(0, 3, 1).note().unwrap();
        assert!(
            both.starts_with("the Newton iteration failed on 2 points and 1 point needed more"),
            "{both}"
        );
    }
}
