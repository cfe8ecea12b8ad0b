//! [`StepSizer`]: the part of the time loop that owns the time and chooses the step size.
//!
//! With fixed steps t_k = t_0 + k·h is computed from the count k (never accumulated), and a scheme
//! that declares `variable_step` gets a shortened last step that lands on t_end. With error
//! control the PI controller of [`super::step_control`] proposes the next step, which lands
//! exactly on the next breakpoint of the time functions or on t_end and halves the distance when a
//! full step would leave a sliver; after a restart of a variable-order scheme the next step is
//! limited to a first step ([`restart_step`]).
//!
//! A fixed step whose Newton iteration fails (after the retries of `solve_step`) is taken again in
//! two equal halves, a failing half again in two, up to `max_halvings` times (`[solver.step]`,
//! default [`DEFAULT_MAX_HALVINGS`]); the run then goes on with its fixed step from the end of the
//! step that was split, on the grid t_0 + k·h. Only schemes that declare `variable_step` can be
//! split. Exudyn's `adaptiveStep` (on by default) and MBDyn's `strategy: factor` reduce a failing
//! step likewise; the run's notes say which steps were split ([`StepSizer::halving_note`]).
//! While a step can still be halved, its points get at most `halve_after_iterations` Newton
//! iterations (default [`DEFAULT_HALVE_AFTER_ITERATIONS`]), the parts of its last halving the full
//! `max_iterations`.

use super::step_control::{initial_step, restart_step, Controller, StepSettings, Tolerances};
use crate::scheme::{Capabilities, State};
use crate::system::System;

/// The step-size state of one run (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct StepSizer {
    /// Error control, `None` for fixed steps.
    pub tol: Option<Tolerances>,
    /// The PI controller of adaptive runs.
    pub controller: Controller,
    /// True when the scheme takes a step size that changes from step to step.
    variable_step: bool,
    /// Breakpoints of the time functions inside the span, sorted (adaptive runs land on each).
    breakpoints: Vec<f64>,
    /// Start time t_0 \[s\].
    t0: f64,
    /// End time \[s\].
    t_end: f64,
    /// Time of the newest level of the scheme (ahead of the reported state for lagging schemes).
    pub t_front: f64,
    /// Accepted steps, which give t_front = t_0 + k·h with fixed steps.
    k: u64,
    /// Step to try next \[s\]; with fixed steps, the step size.
    pub h_next: f64,
    /// The scheme's order (read once: the registry lookup allocates), for the first step after a
    /// restart.
    order: u32,
    /// Most halvings of one failing fixed step.
    max_halvings: u32,
    /// Most Newton iterations of a point whose step can still be halved.
    halve_after_iterations: usize,
    /// The fixed step being taken in parts, if any.
    split: Option<Split>,
    /// What the halvings did over the run.
    pub halvings: Halvings,
}

/// Default of `[solver.step] max_halvings`: a failing fixed step is taken in at most 2⁴ = 16
/// parts.
pub const DEFAULT_MAX_HALVINGS: u32 = 4;

/// Default of `[solver.step] halve_after_iterations`: the iteration limit of a point whose step
/// can still be halved. Chrono's HHT stepper reduces its step after 6 iterations, SUNDIALS' IDA
/// after 4; 8 lets MSSTH(4), MSSTH(5) and ESDIRK4(3)6L pass the flexible four-bar's change points
/// on MBDyn's branch (docs/reproductions.md), where with 25 they settled on spurious solutions.
pub const DEFAULT_HALVE_AFTER_ITERATIONS: usize = 8;

/// A fixed step being taken in equal parts after its Newton iteration failed.
#[derive(Debug, Clone, Copy)]
struct Split {
    /// Start and end of the fixed step \[s\].
    start: f64,
    end: f64,
    /// Parts it is taken in (a power of two), and parts committed.
    parts: u32,
    done: u32,
}

/// The fixed steps of a run that were split after a Newton failure.
#[derive(Debug, Clone, Copy, Default)]
pub struct Halvings {
    /// Fixed steps split.
    pub steps: u64,
    /// Of these, the steps split because a point needed more than `halve_after_iterations`
    /// Newton iterations (the others failed outright: not finite values, or the damped retry).
    pub over_limit: u64,
    /// Start of the first one \[s\] (NaN when none).
    pub first_at: f64,
    /// Most parts one step was taken in.
    pub finest: u32,
}

impl Halvings {
    /// The run's note on its split steps, `None` when no step was split: why they were split
    /// (a failed Newton iteration, or a point over `halve_after_iterations` = `limit`) and what
    /// `max_halvings = 0` would do instead (stop the run at the first kind; solve the second
    /// whole, with up to `max_iterations` iterations).
    pub fn note(&self, limit: usize) -> Option<String> {
        let h = self;
        let steps = |k: u64| format!("{k} fixed step{}", if k == 1 { "" } else { "s" });
        let (over, failed) = (h.over_limit, h.steps - h.over_limit);
        let why = match (failed, over) {
            (_, 0) => format!("the Newton iteration failed on {}", steps(failed)),
            (0, _) => format!(
                "{} had a point that needed more than `[solver.step] halve_after_iterations` = {limit} Newton iterations",
                steps(over)
            ),
            _ => format!(
                "the Newton iteration failed on {} and {} had a point that needed more than `[solver.step] halve_after_iterations` = {limit} Newton iterations",
                steps(failed),
                steps(over)
            ),
        };
        let instead = match (failed, over) {
            (_, 0) => "stops the run at such a step instead",
            (0, _) => "solves such a step whole instead, with up to `[solver.newton] max_iterations` iterations, and stops the run where those do not suffice",
            _ => "stops the run at a failing step instead and solves the others whole, with up to `[solver.newton] max_iterations` iterations",
        };
        (h.steps > 0).then(|| {
            format!(
                "{why} (the first from t = {:.9} s); each was taken again in up to {} equal parts; `[solver.step] max_halvings = 0` {instead}",
                h.first_at, h.finest
            )
        })
    }
}

impl StepSizer {
    /// The sizer of a run of a scheme with capabilities `caps` of `sys` from the consistent state
    /// `x0` to `t_end`, with step `h` (fixed steps; with `tol` the first step, 0 to choose it);
    /// an adaptive step grows by at most `max_increase` ([`crate::scheme::Scheme::max_step_increase`]);
    /// a failing fixed step is halved as `step` (`[solver.step]`) says: at most `max_halvings`
    /// times ([`DEFAULT_MAX_HALVINGS`] when unset; never when the scheme's step cannot vary), its
    /// points limited to `halve_after_iterations` meanwhile ([`DEFAULT_HALVE_AFTER_ITERATIONS`]).
    pub fn new<S: System>(
        sys: &S,
        x0: &State,
        (t_end, h): (f64, f64),
        tol: Option<Tolerances>,
        (caps, max_increase): (&Capabilities, f64),
        step: &StepSettings,
    ) -> Self {
        let breakpoints = tol.map_or_else(Vec::new, |_| breakpoints_within(sys, x0.t, t_end));
        let h_next = match tol {
            Some(t) if h > 0.0 => h.clamp(t.h_min, t.h_max),
            Some(t) => initial_step(sys, x0, caps.order, &t),
            None => h,
        };
        StepSizer {
            tol,
            controller: Controller::new(
                tol.map_or(caps.order + 1, |t| t.error_exponent(caps.error_order)),
                max_increase,
            ),
            variable_step: caps.variable_step,
            breakpoints,
            t0: x0.t,
            t_end,
            t_front: x0.t,
            k: 0,
            h_next,
            order: caps.order,
            max_halvings: match caps.variable_step {
                true => step.max_halvings.unwrap_or(DEFAULT_MAX_HALVINGS),
                false => 0,
            },
            halve_after_iterations: step
                .halve_after_iterations
                .unwrap_or(DEFAULT_HALVE_AFTER_ITERATIONS),
            split: None,
            halvings: Halvings {
                first_at: f64::NAN,
                ..Halvings::default()
            },
        }
    }

    /// The next fixed step: its start t_n = t_0 + k·h and its size, shortened to land on t_end
    /// when the scheme allows it and the remainder is not within rounding of a full step; while a
    /// failed step is taken in parts, the next part (the last one ends exactly where the step
    /// does).
    pub fn fixed(&self) -> (f64, f64) {
        if let Some(s) = &self.split {
            let part = (s.end - s.start) / f64::from(s.parts);
            let t_n = s.start + f64::from(s.done) * part;
            let step = if s.done + 1 == s.parts {
                s.end - t_n
            } else {
                part
            };
            return (t_n, step);
        }
        let (h, t_end) = (self.h_next, self.t_end);
        let t_n = self.t0 + self.k as f64 * h;
        let mut step = h;
        if self.variable_step && t_n + h > t_end && t_n < t_end && t_end - t_n < (1.0 - 1e-9) * h {
            step = t_end - t_n;
        }
        (t_n, step)
    }

    /// The next adaptive step from `t_n` and its end time: h_next, limited by h_max, landing
    /// exactly on the next breakpoint or t_end, and halving the distance when a full step would
    /// leave a sliver.
    pub fn adaptive(&self, t_n: f64, tol: &Tolerances) -> (f64, f64) {
        let target = self
            .breakpoints
            .iter()
            .copied()
            .find(|&b| b > t_n)
            .unwrap_or(self.t_end);
        let h = self.h_next.min(tol.h_max);
        let remaining = target - t_n;
        if remaining <= 1.1 * h {
            (remaining, target)
        } else if remaining < 2.0 * h {
            (0.5 * remaining, t_n + 0.5 * remaining)
        } else {
            (h, t_n + h)
        }
    }

    /// A step ending at `t_next` was committed (with a split step, one of its parts).
    pub fn advance(&mut self, t_next: f64) {
        self.t_front = t_next;
        if let Some(s) = &mut self.split {
            s.done += 1;
            if s.done < s.parts {
                return;
            }
            self.split = None;
        }
        self.k += 1;
    }

    /// After the Newton iteration failed on the fixed step (or part) that [`fixed`](Self::fixed)
    /// gave (`over_limit`: by needing more than `halve_after_iterations` iterations): splits it in
    /// two equal halves, the failing one first. Returns false, and changes nothing, when the step
    /// has been halved `max_halvings` times already.
    pub fn halve(&mut self, over_limit: bool) -> bool {
        if !self.can_halve() {
            return false;
        }
        match &mut self.split {
            Some(s) => {
                s.parts *= 2;
                s.done *= 2;
                self.halvings.finest = self.halvings.finest.max(s.parts);
                true
            }
            None => {
                let (start, step) = self.fixed();
                let end = if step == self.h_next {
                    self.t0 + (self.k + 1) as f64 * self.h_next
                } else {
                    start + step
                };
                self.split = Some(Split {
                    start,
                    end,
                    parts: 2,
                    done: 0,
                });
                if self.halvings.steps == 0 {
                    self.halvings.first_at = start;
                }
                self.halvings.steps += 1;
                self.halvings.over_limit += u64::from(over_limit);
                self.halvings.finest = self.halvings.finest.max(2);
                true
            }
        }
    }

    /// Whether the fixed step (or part) that [`fixed`](Self::fixed) gives could still be halved if
    /// it failed.
    pub fn can_halve(&self) -> bool {
        match &self.split {
            Some(s) => s.parts < 1 << self.max_halvings.min(30),
            None => self.max_halvings > 0,
        }
    }

    /// The Newton iteration limit of the points of the step (or part) that
    /// [`fixed`](Self::fixed) gives: `halve_after_iterations` while it can still be halved, so that
    /// a point needing more is solved at a smaller step instead; `None` (the formulation's
    /// `max_iterations`) otherwise.
    pub fn iteration_limit(&self) -> Option<usize> {
        self.can_halve().then_some(self.halve_after_iterations)
    }

    /// How many halvings a failed step had (0 when it was not split), for the failure's message.
    pub fn halvings_of_current_step(&self) -> u32 {
        self.split.map_or(0, |s| s.parts.trailing_zeros())
    }

    /// The run's note on its split steps, `None` when no step was split ([`Halvings::note`]).
    pub fn halving_note(&self) -> Option<String> {
        self.halvings.note(self.halve_after_iterations)
    }

    /// Before a restart of a scheme that restarts at its first order (variable-order Adams), with
    /// error control: the next step is no longer than a first step from the state just reached
    /// ([`restart_step`], from the step `previous` → `state`), since the step chosen for the
    /// scheme's last order does not fit its first (Shampine & Gordon's DE/STEP restarts the same
    /// way). Measured on the pendulum with partitioning at rtol = 1e-8 (16 restarts in 10 s): the
    /// rejected steps fell from 318 to 220, for 471 accepted.
    pub fn limit_restart(
        &mut self,
        restarts_at_first_order: bool,
        previous: &State,
        state: &State,
    ) {
        if let Some(tol) = &self.tol {
            if restarts_at_first_order {
                let first = restart_step(previous, state, self.order, tol);
                self.h_next = self.h_next.min(first);
            }
        }
    }
}

/// The breakpoints of the system's time functions strictly inside (t0, t_end), sorted, without
/// repeats: an adaptive run lands a step on each.
fn breakpoints_within<S: System>(sys: &S, t0: f64, t_end: f64) -> Vec<f64> {
    let mut breakpoints = Vec::new();
    sys.breakpoints(&mut breakpoints);
    breakpoints.retain(|&b| b > t0 && b < t_end);
    breakpoints.sort_by(f64::total_cmp);
    breakpoints.dedup();
    breakpoints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn halvings(steps: u64, over_limit: u64) -> Halvings {
        Halvings {
            steps,
            over_limit,
            first_at: 1.5,
            finest: 4,
        }
    }

    /// The note names what made the steps split and what `max_halvings = 0` would do instead:
    /// stop the run at a failed step, solve a step over the iteration limit whole.
    #[test]
    fn the_halving_note_says_why_and_what_max_halvings_0_would_do() {
        assert_eq!(Halvings::default().note(8), None);
        let failed = halvings(2, 0).note(8).unwrap();
        assert!(
            failed.starts_with("the Newton iteration failed on 2 fixed steps"),
            "{failed}"
        );
        assert!(
            failed.contains("stops the run at such a step instead"),
            "{failed}"
        );
        assert!(!failed.contains("halve_after_iterations"), "{failed}");
        let over = halvings(1, 1).note(6).unwrap();
        assert!(
            over.starts_with("1 fixed step had a point that needed more than `[solver.step] halve_after_iterations` = 6"),
            "{over}"
        );
        assert!(over.contains("solves such a step whole instead"), "{over}");
        assert!(!over.contains("failed"), "{over}");
        let both = halvings(3, 1).note(8).unwrap();
        assert!(
            both.contains("failed on 2 fixed steps and 1 fixed step had"),
            "{both}"
        );
        assert!(both.contains("stops the run at a failing step"), "{both}");
        assert!(both.contains("up to 4 equal parts") && both.contains("t = 1.500000000 s"));
    }
}
