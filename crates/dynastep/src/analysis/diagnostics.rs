//! Diagnostics of a run: the energy balance E − E_0 − W_nc and the constraint violations at the
//! position, velocity and acceleration levels.
//!
//! W_nc, the work of the non-conservative applied forces and of the driving constraints (power
//! `System::nonconservative_power` + λᵀΦ_t), is integrated over each step with the scheme's own
//! quadrature over its stages when it has one ([`crate::scheme::Scheme::step_work`]: the multi-stage
//! ESDIRKs), else from the committed states: by the trapezoidal rule for a scheme of second order,
//! by Simpson's rule for one of higher order and for those of the first-order form (explicit
//! Runge–Kutta, Adams PECE; [`Diagnostics::choose_quadrature`]), the state at the
//! middle of the step from the run's dense output ([`super::dense_output`]).
//!
//! The trapezoidal rule is second order: under Adams PECE at rtol 1e-6, a critically damped spring
//! (k = 1e6 N/m) dissipating 50 J in its first milliseconds left the balance up to 0.31 J off
//! while the state was right to 1e-9 J of energy, so the balance E − E_0 − W_nc blamed the integrator for the
//! quadrature's error (`tests/energy_balance_quadrature.rs`). Simpson's rule on the interpolant is
//! fourth order (the dense output's velocity is O(h⁴)) for one more power evaluation per step.

use super::dense_output::{interpolate, PositionInterpolant};
use crate::linalg::Vector;
use crate::scheme::hermite::cubic_weights;
use crate::scheme::{Capabilities, EquationForm, State};
use crate::system::{Energy, System};

/// Norms (Euclidean) of the constraint violations at the three levels.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct ConstraintViolation {
    /// ‖Φ(q, t)‖ \[m, rad\].
    pub position: f64,
    /// ‖Φ_q v + Φ_t‖ \[m/s, rad/s\].
    pub velocity: f64,
    /// ‖Φ_q a − γ‖ \[m/s², rad/s²\].
    pub acceleration: f64,
}

impl ConstraintViolation {
    /// Raises each level to the larger of `self` and `other` ([`worst`]: NaN stays NaN).
    pub fn max_with(&mut self, other: &ConstraintViolation) {
        self.position = worst(self.position, other.position);
        self.velocity = worst(self.velocity, other.velocity);
        self.acceleration = worst(self.acceleration, other.acceleration);
    }
}

/// The larger of two diagnostic figures, or NaN when either is NaN: a figure that could not be
/// computed must never read as the other one (`f64::max` would drop the NaN, and a run whose
/// every energy balance was NaN would report a largest error of 0).
pub fn worst(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Work space and running totals of the diagnostics (n coordinates, m constraints); no allocation
/// after [`Diagnostics::new`].
#[derive(Debug, Clone)]
pub struct Diagnostics {
    scratch: Vector,
    phi: Vector,
    phi_t: Vector,
    gamma: Vector,
    /// W_nc at the newest state \[J\].
    pub work: f64,
    /// Power at the newest state \[W\].
    pub power: f64,
    /// W_nc \[J\] and power \[W\] at the start of the last step: with `work` and `power`, the
    /// ends of [`Self::work_within`]'s interpolant.
    previous_work: f64,
    previous_power: f64,
    /// Time of the newest state \[s\].
    pub t: f64,
    /// E_0 = T + V at the start \[J\].
    pub e0: f64,
    /// The state at the middle of a step and how its positions are interpolated, for Simpson's
    /// rule; `None`: the trapezoidal rule.
    midpoint: Option<(State, PositionInterpolant)>,
}

impl Diagnostics {
    /// Starts the totals at the consistent state `x0`; returns its energy too.
    pub fn new<S: System>(sys: &S, x0: &State) -> (Self, Energy) {
        let (n, m) = (sys.n(), sys.m());
        let mut d = Diagnostics {
            scratch: Vector::zeros(n),
            phi: Vector::zeros(m),
            phi_t: Vector::zeros(m),
            gamma: Vector::zeros(m),
            work: 0.0,
            power: 0.0,
            previous_work: 0.0,
            previous_power: 0.0,
            t: x0.t,
            e0: 0.0,
            midpoint: None,
        };
        let e = d.energy(sys, x0);
        d.e0 = e.kinetic + e.potential;
        d.power = d.power(sys, x0);
        (d, e)
    }

    /// Kinetic and potential energy at `x` \[J\].
    pub fn energy<S: System>(&mut self, sys: &S, x: &State) -> Energy {
        sys.energy(x.t, &x.q, &x.v, &mut self.scratch)
    }

    /// Power of the non-conservative forces and drivers at `x`, λᵀΦ_t for the driving constraints
    /// \[W\].
    pub fn power<S: System>(&mut self, sys: &S, x: &State) -> f64 {
        self.power_at(sys, x.t, &x.q, &x.v, &x.lambda)
    }

    /// Power of the non-conservative forces and drivers at time `t` \[s\], positions `q` and
    /// velocities `v` (n each) and multipliers `lambda` (m) \[W\]: the integrand of W_nc.
    pub fn power_at<S: System>(
        &mut self,
        sys: &S,
        t: f64,
        q: &Vector,
        v: &Vector,
        lambda: &Vector,
    ) -> f64 {
        let mut p = sys.nonconservative_power(t, q, v);
        if sys.m() > 0 {
            sys.constraint_time_derivative(t, q, &mut self.phi_t);
            p += lambda.dot(&self.phi_t);
        }
        p
    }

    /// Integrates W_nc by Simpson's rule from now on where the trapezoidal rule's second order
    /// would lag the state (see the module documentation): for schemes whose `caps` declare an
    /// order above two, and those of the first-order form (explicit Runge–Kutta; Adams PECE, whose
    /// order varies up to 12 while its registry entry declares its lowest). The midpoint's
    /// positions are interpolated by `positions`; its storage (n coordinates, m constraints) is
    /// allocated here, once.
    pub fn choose_quadrature(
        &mut self,
        caps: &Capabilities,
        (n, m): (usize, usize),
        positions: PositionInterpolant,
    ) {
        if caps.order > 2 || caps.form == EquationForm::FirstOrder {
            self.midpoint = Some((State::zeros(self.t, n, m), positions));
        }
    }

    /// Advances W_nc over the step from `previous` to the new state `x`. `step_work` is the work
    /// over the step by the scheme's own quadrature \[J\] when it has one; `None` integrates the
    /// power by Simpson's rule when [`Self::choose_quadrature`] chose it, else by the trapezoidal rule.
    pub fn advance<S: System>(
        &mut self,
        sys: &S,
        previous: &State,
        x: &State,
        step_work: Option<f64>,
    ) {
        let p = self.power(sys, x);
        let h = x.t - self.t;
        (self.previous_work, self.previous_power) = (self.work, self.power);
        self.work += match (step_work, self.midpoint.take()) {
            (Some(w), midpoint) => {
                self.midpoint = midpoint;
                w
            }
            (None, None) => 0.5 * h * (self.power + p),
            (None, Some((mut mid, positions))) => {
                interpolate(previous, x, previous.t + 0.5 * h, positions, &mut mid);
                let p_mid = self.power(sys, &mid);
                self.midpoint = Some((mid, positions));
                h / 6.0 * (self.power + 4.0 * p_mid + p)
            }
        };
        self.power = p;
        self.t = x.t;
    }

    /// W_nc \[J\] at the fraction `theta` of the last step, of `h` \[s\]: the cubic Hermite
    /// polynomial through W and W′ = P at its two ends, O(h⁴) locally like the dense output's
    /// velocities (a straight line between the ends' W was O(h²): under DOPRI5 at rtol 1e-9 on
    /// Andrews' squeezer the output rows' balance was 3.9e-7 J against the steps' 2.7e-12 J).
    pub fn work_within(&self, theta: f64, h: f64) -> f64 {
        let [a, b, c, d] = cubic_weights(theta);
        a * self.previous_work + h * b * self.previous_power + c * self.work + h * d * self.power
    }

    /// (energy, E − E_0 − W) at `x` with the work `work` done by the non-conservative forces and
    /// drivers since the start \[J\].
    pub fn balance<S: System>(&mut self, sys: &S, x: &State, work: f64) -> (Energy, f64) {
        let energy = self.energy(sys, x);
        (energy, energy.kinetic + energy.potential - self.e0 - work)
    }

    /// The constraint violations at `x`.
    pub fn violation<S: System>(&mut self, sys: &S, x: &State) -> ConstraintViolation {
        if sys.m() == 0 {
            return ConstraintViolation::default();
        }
        sys.constraints(x.t, &x.q, &mut self.phi);
        let position = self.phi.norm();
        sys.constraint_time_derivative(x.t, &x.q, &mut self.phi_t);
        sys.constraint_jacobian_times(x.t, &x.q, &x.v, &mut self.phi);
        self.phi += &self.phi_t;
        let velocity = self.phi.norm();
        sys.gamma(x.t, &x.q, &x.v, &mut self.gamma);
        sys.constraint_jacobian_times(x.t, &x.q, &x.a, &mut self.phi);
        self.phi -= &self.gamma;
        ConstraintViolation {
            position,
            velocity,
            acceleration: self.phi.norm(),
        }
    }
}
