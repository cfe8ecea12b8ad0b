//! Step-size control: the error norm, the PI controller and the automatic initial step.
//!
//! # Error norm
//! A weighted RMS over the 2n position and velocity errors of the scheme's local error estimate
//! ([`crate::scheme::Scheme::local_error`]), with the scale of Hairer, Nørsett & Wanner (1993),
//! *Solving Ordinary Differential Equations I*, §II.4, eq. (4.10):
//!
//! ```text
//! err = sqrt( (1/2n) Σ_i [ (e_q,i / sc_q,i)² + (e_v,i / sc_v,i)² ] ),   sc_y = atol + rtol · |y_n|
//! ```
//!
//! The multipliers λ are left out: in the index-3 formulation they are algebraic variables whose
//! error is of lower order (Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*,
//! §VII.3), and including them would make the control reject steps that are accurate in q and v.
//! A step is accepted when err ≤ 1.
//!
//! # Error per step or per unit step
//! With `control = "per-step"` (the default) the norm above is what the controller keeps below 1:
//! every step's local error is within the tolerance, and the errors of N steps add up to a global
//! error of up to N times it. With `control = "per-unit-step"` the controller judges
//! `err · T / h`, T the run's span: each step may spend only its share h/T of the tolerance, so the
//! local errors of the whole run sum to at most the tolerance, and the global error becomes
//! proportional to it (*tolerance proportionality*: Shampine 1994, *Numerical Solution of Ordinary
//! Differential Equations*, §5.1; Hairer, Nørsett & Wanner 1993, §II.4, "error per unit step"). The
//! price is more steps, and a floor: where the estimate stops falling with h the control cannot
//! shrink the judged error and ends the run at h_min. The estimates of index-3 states carry the
//! rounding of the positions whatever the step (their velocities and accelerations come from the
//! positions through the scheme's 1/h and 1/h²), so for index 3 no allowance on the position scale
//! is below 20 ε max|q_i| ([`crate::catalog::FormulationInfo::estimate_floor`]): below that the
//! run no longer gets tolerance proportionality, but it reaches t_end. docs/schemes.md shows both
//! on the pendulum, Andrews' squeezer and the light cart-pole.
//!
//! # Controller
//! The PI controller of Gustafsson, Lundh & Söderlind (1988), BIT 28:270–287, in the form of Hairer &
//! Wanner (1996), §IV.2: with k the exponent of the judged error in h (the power of h of the
//! scheme's estimate per step — order + 1, or order for an embedded pair — and one less per unit
//! step),
//! `h_new = h · min(f_max, max(f_min, 0.9 · err_n^(−0.7/k) · err_{n−1}^(0.4/k)))`, f_min = 0.2,
//! f_max = 5 (1 right after a rejection). A rejected step is retried with the elementary controller
//! `h · max(f_min, 0.9 · err^(−1/k))`; a step whose Newton iteration fails, with h/4.
//!
//! # Initial step
//! When no first step is given: the algorithm of Hairer, Nørsett & Wanner (1993), §II.4, p. 169, on
//! y = (q, v), ẏ = (v, a), with the accelerations at the explicit Euler point from the
//! acceleration-level equations ([`super::assembly::consistent_accelerations`]).

// The settings' doc strings become JSON Schema descriptions, with units and defaults in brackets
// that are not links.
#![allow(rustdoc::broken_intra_doc_links)]

use super::failure::RunFailure;
use crate::formulation::VelocityError;
use crate::model::settings::{rtol_too_small, MIN_RTOL};
use crate::scheme::{LocalError, State};
use crate::system::System;

pub use crate::model::settings::{StepControl, StepSettings};

impl StepControl {
    /// Its name in model files and on the command line.
    pub fn describe(self) -> &'static str {
        match self {
            StepControl::PerStep => "per step",
            StepControl::PerUnitStep => "per unit step",
        }
    }
}

/// The settings of an adaptive run with every default resolved.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Tolerances {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Smallest step \[s\].
    pub h_min: f64,
    /// Largest step \[s\].
    pub h_max: f64,
    /// What the tolerance bounds.
    pub control: StepControl,
    /// The run's span T \[s\] (the unit of "per unit step").
    pub span: f64,
}

impl Tolerances {
    /// The share of the tolerance that a step of size `h` \[s\] may spend: 1 per step, h / T per
    /// unit step.
    pub fn share(&self, h: f64) -> f64 {
        match self.control {
            StepControl::PerStep => 1.0,
            StepControl::PerUnitStep => h / self.span,
        }
    }

    /// The exponent k of the judged error in h for an estimate of power `error_order` in h
    /// ([`crate::scheme::Capabilities::error_order`]): that power per step, one less per unit step.
    pub fn error_exponent(&self, error_order: u32) -> u32 {
        match self.control {
            StepControl::PerStep => error_order.max(1),
            StepControl::PerUnitStep => error_order.saturating_sub(1).max(1),
        }
    }
}

/// The default smallest step, per second of the run's span: 1e-14, about 50 ulps of the end time
/// of a run that starts at 0. It was 1e-12 until 2026-11-28, above the first step that Adams PECE,
/// which starts at order 1, needs per unit step at rtol 1e-10 on the pendulum (2e-12 s over 10 s:
/// docs/schemes.md).
pub const H_MIN_PER_SPAN: f64 = 1e-14;

impl StepSettings {
    /// The resolved tolerances for a run spanning `span` seconds, or `None` for fixed steps.
    ///
    /// # Errors
    /// A message naming the setting when a value is not positive and finite, when rtol is below
    /// [`MIN_RTOL`], or when h_min > h_max.
    pub fn resolve(&self, span: f64) -> Result<Option<Tolerances>, RunFailure> {
        let Some(rtol) = self.rtol else {
            return Ok(None);
        };
        let t = Tolerances {
            rtol,
            atol: self.atol.unwrap_or(rtol),
            h_min: self.h_min.unwrap_or(H_MIN_PER_SPAN * span),
            h_max: self.h_max.unwrap_or(span),
            control: self.control.unwrap_or_default(),
            span,
        };
        for (name, v) in [
            ("rtol", t.rtol),
            ("atol", t.atol),
            ("h_min", t.h_min),
            ("h_max", t.h_max),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(RunFailure::settings(format!(
                    "[solver.step] {name} = {v} must be a positive number"
                ))
                .at_setting(step_path(name)));
            }
        }
        if t.rtol < MIN_RTOL {
            return Err(RunFailure::settings(rtol_too_small(t.rtol))
                .advise(format!("give rtol ≥ {MIN_RTOL:.1e}"))
                .at_setting("solver.step.rtol"));
        }
        if t.h_min > t.h_max {
            return Err(RunFailure::settings(format!(
                "[solver.step] h_min = {} exceeds h_max = {}",
                t.h_min, t.h_max
            ))
            .at_setting("solver.step.h_min"));
        }
        Ok(Some(t))
    }
}

/// The judged error of a step of size `h`: the weighted RMS norm of the local error (see the
/// module documentation), scaled by the state `x0` at the start of the step (q and v, n entries
/// each), each scale multiplied by the step's share of the tolerance ([`Tolerances::share`]).
/// Velocity errors count as h·e_v on the position scale, or as e_v on the velocity scale
/// atol + rtol·|v| for formulations whose velocities are differential variables
/// ([`VelocityError`]). On the position scale no allowance is below `floor` · ε · max_i |q_i|, the
/// noise of the formulation's states ([`crate::catalog::FormulationInfo::estimate_floor`]; 0 for
/// none). The mean is over `judged` coordinates (n, or fewer when the formulation zeroed the
/// entries it does not judge). The step is accepted when the result is at most 1.
pub fn error_norm(
    err: &LocalError,
    x0: &State,
    h: f64,
    tol: &Tolerances,
    velocity: VelocityError,
    floor: f64,
    judged: usize,
) -> f64 {
    let n = err.q.len();
    if n == 0 || judged == 0 {
        return 0.0;
    }
    let share = tol.share(h);
    let noise = if floor > 0.0 {
        floor * f64::EPSILON * x0.q.iter().fold(0.0_f64, |m, q| m.max(q.abs()))
    } else {
        0.0
    };
    let mut sum = 0.0;
    for i in 0..n {
        let sq = (share * (tol.atol + tol.rtol * x0.q[i].abs())).max(noise);
        let ev = match velocity {
            VelocityError::ScaledByStep => h * err.v[i] / sq,
            VelocityError::Differential => {
                err.v[i] / (share * (tol.atol + tol.rtol * x0.v[i].abs()))
            }
        };
        sum += (err.q[i] / sq).powi(2) + ev.powi(2);
    }
    (sum / (2 * judged) as f64).sqrt()
}

/// The PI step-size controller (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Controller {
    /// Exponent k of the judged error in h (see [`Tolerances::error_exponent`]).
    k: f64,
    /// Largest factor of one step increase ([`crate::scheme::Scheme::max_step_increase`]).
    f_max: f64,
    err_previous: f64,
    after_rejection: bool,
}

/// Smallest factor of one step change.
const F_MIN: f64 = 0.2;
const SAFETY: f64 = 0.9;

impl Controller {
    /// A controller for a judged error of exponent `k` in h ([`Tolerances::error_exponent`]) that
    /// lets a step grow by at most `f_max` (≥ 1; [`crate::scheme::Scheme::max_step_increase`]).
    pub fn new(k: u32, f_max: f64) -> Self {
        Controller {
            k: f64::from(k),
            f_max: f_max.max(1.0),
            err_previous: 1.0,
            after_rejection: false,
        }
    }

    /// Judges a step of size `h` with error norm `err`: returns whether it is accepted and the next
    /// step size to try (before the limits h_min, h_max and the breakpoints are applied).
    pub fn judge(&mut self, h: f64, err: f64) -> (bool, f64) {
        let err = if err.is_nan() { f64::INFINITY } else { err };
        if err <= 1.0 {
            let err = err.max(1e-10);
            let f = SAFETY * err.powf(-0.7 / self.k) * self.err_previous.powf(0.4 / self.k);
            let f_max = if self.after_rejection {
                1.0
            } else {
                self.f_max
            };
            self.err_previous = err;
            self.after_rejection = false;
            (true, h * f.clamp(F_MIN, f_max))
        } else {
            self.after_rejection = true;
            let f = if err.is_finite() {
                SAFETY * err.powf(-1.0 / self.k)
            } else {
                F_MIN
            };
            (false, h * f.clamp(F_MIN, 1.0))
        }
    }

    /// For a scheme that changed its order after an accepted step: the controller's exponent
    /// becomes `k` and the next step is proposed from `err`, the error the step just taken would
    /// have had with the new order (Shampine & Gordon 1975, *Computer Solution of Ordinary
    /// Differential Equations*, ch. 8: step and order chosen together).
    pub fn retarget(&mut self, k: u32, h: f64, err: f64) -> f64 {
        self.k = f64::from(k.max(1));
        let err = if err.is_finite() {
            err.max(1e-10)
        } else {
            1e10
        };
        let f_max = if self.after_rejection {
            1.0
        } else {
            self.f_max
        };
        self.err_previous = err;
        h * (SAFETY * err.powf(-1.0 / self.k)).clamp(F_MIN, f_max)
    }

    /// Notes a step whose Newton iteration failed: the next try is a quarter of it.
    pub fn newton_failure(&mut self, h: f64) -> f64 {
        self.after_rejection = true;
        0.25 * h
    }
}

/// The automatic first step (Hairer, Nørsett & Wanner 1993, §II.4) from the consistent state `x0`
/// (q, v, a of n entries, λ of m) for a scheme of the given order, limited to `h_max` \[s\].
pub fn initial_step<S: System>(sys: &S, x0: &State, order: u32, tol: &Tolerances) -> f64 {
    let n = x0.q.len();
    if n == 0 {
        return tol.h_max;
    }
    let (d0, d1) = (size_of(x0, tol), rate_of(x0, tol));
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    }
    .min(tol.h_max);
    let mut x1 = x0.clone();
    x1.t = x0.t + h0;
    for i in 0..n {
        x1.q[i] = x0.q[i] + h0 * x0.v[i];
        x1.v[i] = x0.v[i] + h0 * x0.a[i];
    }
    super::assembly::consistent_accelerations(sys, &mut x1);
    let d2 = change_of(x0, &x1, tol) / h0;
    step_from(h0, d1, d2, order, tol)
}

/// The step to restart a scheme with at `x1` after the step from `x0` (both consistent states,
/// q, v, a of n entries), for a scheme that restarts at its first `order`: the first step of
/// [`initial_step`], with the second derivative estimated from the step just taken (x1 − x0)
/// instead of an explicit Euler step, so nothing is evaluated or allocated \[s\].
pub fn restart_step(x0: &State, x1: &State, order: u32, tol: &Tolerances) -> f64 {
    if x1.q.is_empty() {
        return tol.h_max;
    }
    let h0 = (x1.t - x0.t).abs();
    let d1 = rate_of(x1, tol);
    if h0 == 0.0 {
        return tol.h_max;
    }
    let d2 = change_of(x0, x1, tol) / h0;
    step_from(h0, d1, d2, order, tol)
}

/// Error weight atol + rtol |y| of a value y.
fn weight(tol: &Tolerances, y: f64) -> f64 {
    tol.atol + tol.rtol * y.abs()
}

/// Root mean square of the pairs (a_i, b_i), i < n, over the 2n entries.
fn rms(n: usize, f: impl Fn(usize) -> (f64, f64)) -> f64 {
    let s: f64 = (0..n)
        .map(|i| {
            let (a, b) = f(i);
            a * a + b * b
        })
        .sum();
    (s / (2 * n) as f64).sqrt()
}

/// d0 of §II.4: the weighted size of (q, v).
fn size_of(x: &State, tol: &Tolerances) -> f64 {
    rms(x.q.len(), |i| {
        (x.q[i] / weight(tol, x.q[i]), x.v[i] / weight(tol, x.v[i]))
    })
}

/// d1 of §II.4: the weighted size of the derivative (v, a).
fn rate_of(x: &State, tol: &Tolerances) -> f64 {
    rms(x.q.len(), |i| {
        (x.v[i] / weight(tol, x.q[i]), x.a[i] / weight(tol, x.v[i]))
    })
}

/// The weighted size of the change of the derivative (v, a) from `x0` to `x1`, weights at x0.
fn change_of(x0: &State, x1: &State, tol: &Tolerances) -> f64 {
    rms(x0.q.len(), |i| {
        (
            (x1.v[i] - x0.v[i]) / weight(tol, x0.q[i]),
            (x1.a[i] - x0.a[i]) / weight(tol, x0.v[i]),
        )
    })
}

/// h = min(100 h0, (0.01 / max(d1, d2))^(1/(order+1))) of §II.4, within [h_min, h_max].
fn step_from(h0: f64, d1: f64, d2: f64, order: u32, tol: &Tolerances) -> f64 {
    let big = d1.max(d2);
    let h1 = if big <= 1e-15 || !big.is_finite() {
        (h0 * 1e-3).max(1e-6)
    } else {
        (0.01 / big).powf(1.0 / f64::from(order + 1))
    };
    (100.0 * h0).min(h1).min(tol.h_max).max(tol.h_min)
}

/// The dotted path of the `[solver.step]` entry `name` (for [`RunFailure::at_setting`]).
fn step_path(name: &str) -> &'static str {
    match name {
        "rtol" => "solver.step.rtol",
        "atol" => "solver.step.atol",
        "h_min" => "solver.step.h_min",
        _ => "solver.step.h_max",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_accepts_below_one_and_shrinks_above() {
        let mut c = Controller::new(3, crate::scheme::MAX_STEP_INCREASE);
        let (ok, h) = c.judge(1.0, 0.5);
        assert!(ok && h > 1.0 && h <= 5.0);
        let (ok, h) = c.judge(1.0, 8.0);
        assert!(!ok && (h - 0.9 * 0.5).abs() < 1e-12);
        // After a rejection the step may not grow.
        let (ok, h) = c.judge(1.0, 1e-6);
        assert!(ok && h <= 1.0);
        let (ok, h) = c.judge(1.0, f64::NAN);
        assert!(!ok && h == F_MIN);
    }

    #[test]
    fn settings_resolve_defaults_and_refuse_bad_values() {
        assert_eq!(StepSettings::default().resolve(1.0), Ok(None));
        let s = StepSettings {
            rtol: Some(1e-6),
            ..Default::default()
        };
        let t = s.resolve(2.0).unwrap().unwrap();
        assert_eq!((t.atol, t.h_min, t.h_max), (1e-6, 2e-14, 2.0));
        let bad = StepSettings {
            rtol: Some(-1.0),
            ..Default::default()
        };
        assert!(bad.resolve(1.0).unwrap_err().to_string().contains("rtol"));
    }

    /// Per unit step the allowance is h/T of the tolerance, floored at `floor` ε max|q_i|; per
    /// step the floor is far below the tolerance and changes nothing.
    #[test]
    fn error_norm_takes_the_share_and_stops_at_the_floor() {
        let tol = StepSettings {
            rtol: Some(1e-10),
            control: Some(StepControl::PerUnitStep),
            ..Default::default()
        }
        .resolve(10.0)
        .unwrap()
        .unwrap();
        let mut x0 = State::zeros(0.0, 2, 0);
        x0.q[0] = -1.0;
        let mut err = LocalError::zeros(2);
        let h = 1e-6;
        // Share h/T = 1e-7 of atol + rtol·|q| = 2e-10 (q_0) and 1e-10 (q_1).
        err.q[0] = 2e-17;
        let norm = error_norm(&err, &x0, h, &tol, VelocityError::ScaledByStep, 0.0, 2);
        assert!((norm - 0.5).abs() < 1e-12, "{norm}");
        // Five roundings of |q| = 1: beyond the share, within a floor of 10 ε.
        err.q[0] = 5.0 * f64::EPSILON;
        let judged = |err: &LocalError, floor| {
            error_norm(err, &x0, h, &tol, VelocityError::ScaledByStep, floor, 2)
        };
        assert!(judged(&err, 0.0) > 10.0);
        assert!((judged(&err, 10.0) - 0.25).abs() < 1e-12);
        // h·e_v counts on the same floored scale.
        err.q[0] = 0.0;
        err.v[0] = 5.0 * f64::EPSILON / h;
        assert!((judged(&err, 10.0) - 0.25).abs() < 1e-9);
        // Per step the share is 1: the norm is the tolerance's own.
        let per_step = Tolerances {
            control: StepControl::PerStep,
            ..tol
        };
        let norm = error_norm(
            &err,
            &x0,
            h,
            &per_step,
            VelocityError::ScaledByStep,
            10.0,
            2,
        );
        let expected = 5.0 * f64::EPSILON / 2e-10 / 2.0;
        assert!((norm / expected - 1.0).abs() < 1e-12, "{norm}");
    }
}
