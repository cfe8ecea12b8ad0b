//! The hybrid algorithm of DADS (Park & Haug 1986; Haug 1989, *Computer-Aided Kinematics and
//! Dynamics of Mechanical Systems*, §7.3.5, steps 1–7): coordinate partitioning whose correction is
//! applied only when needed, with Baumgarte terms damping small violations in between.
//!
//! 1–2. From the assembled state, a partition is chosen ([`super::coordinate_partition`]).
//! 3. The first accelerations are solved without stabilization terms.
//! 4. The scheme integrates all coordinates; error control judges the independent ones only.
//! 5a. When ‖Φ(q, t)‖∞ at the new time is within the constraint tolerance (`[solver.constraints]
//!     tolerance`), the integrated state is kept, and the next accelerations use γ̂ with the
//!     Baumgarte terms 2α(Φ_q q̇ + Φ_t) + β²Φ (eq. 7.3.8).
//! 5b. Otherwise the dependent positions and velocities are solved from the constraints, a and λ
//!     from eq. 7.2.1 without stabilization, and the partition is checked; a new partition restarts
//!     the scheme.
//! 6–7. The scheme's error estimate of the independent coordinates chooses the step (and order).
//!
//! Near a singular configuration the Baumgarte terms can make the solve diverge (Haug, §7.3.4), so
//! the algorithm reverts to pure partitioning (no stabilization terms, correction when out of
//! tolerance) while the smallest pivot of a full-pivoting factorization of Φ_q is below
//! [`NEAR_SINGULAR`] times its largest.

use crate::scheme::{History, LocalError, State};
use crate::system::System;

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::coordinate_partition::CoordinatePartition;
use super::partitioning::correct_dependent;
use super::{Correction, FormulationError, FormulationInfo, FormulationSettings, Registered};

/// Φ_q counts as ill-conditioned, and stabilization is switched off, when its smallest pivot is
/// below this fraction of its largest.
pub const NEAR_SINGULAR: f64 = 1e-2;

/// Registry entry; its data is in [`crate::catalog::formulations::HYBRID`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::HYBRID;

/// The hybrid algorithm (see the module documentation).
#[derive(Debug)]
pub struct Hybrid {
    acc: AccelerationLevel,
    part: CoordinatePartition,
    /// Whether the next accelerations use the Baumgarte terms (step 5a).
    stabilize: bool,
}

impl Registered for Hybrid {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        Hybrid {
            acc: AccelerationLevel::new(n, m, settings),
            part: CoordinatePartition::new(n, m),
            stabilize: false,
        }
    }
}

impl Hybrid {
    /// The constraint tolerance of step 5 \[m, rad\]: the given one, or 100 × the Newton position
    /// tolerance.
    pub fn tolerance(&self) -> f64 {
        self.acc
            .constraints
            .tolerance
            .unwrap_or(100.0 * self.acc.newton.position_tol)
    }
}

impl AccelerationFormulation for Hybrid {
    fn level(&self) -> &AccelerationLevel {
        &self.acc
    }

    fn level_mut(&mut self) -> &mut AccelerationLevel {
        &mut self.acc
    }

    /// Step 5a: the Baumgarte terms while the state stays within tolerance.
    fn baumgarte(&self) -> Option<(f64, f64)> {
        let c = self.acc.constraints;
        self.stabilize.then_some((c.alpha, c.beta))
    }

    /// Steps 2–3: the first partition; the first step is not stabilized (`stabilize` starts
    /// false).
    fn before<S: System>(&mut self, sys: &S, history: &History) {
        self.part.choose_once(sys, history);
    }

    /// Step 5: keep the integrated state within tolerance (stabilizing the next steps), or correct
    /// it and check the partition.
    fn after<S: System>(
        &mut self,
        sys: &S,
        history: &mut History,
        state: &mut State,
    ) -> Result<Correction, FormulationError> {
        let ratio = self.acc.constraints.repartition_ratio;
        let repartitioned = self.part.check(sys, state.t, &state.q, ratio);
        let well_conditioned = self.part.fresh_conditioning >= NEAR_SINGULAR;
        let within = self.part.violation(sys, state.t, &state.q) <= self.tolerance();
        if within && !repartitioned {
            self.stabilize = well_conditioned;
            return Ok(Correction::None);
        }
        correct_dependent(&mut self.acc, &mut self.part, sys, history, state)?;
        self.stabilize = false;
        Ok(if repartitioned {
            Correction::Retake
        } else {
            Correction::Corrected
        })
    }

    fn judged(&self, err: &mut LocalError) -> usize {
        self.part.filter(err)
    }
}
