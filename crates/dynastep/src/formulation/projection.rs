//! Coordinate projection: direct integration, and after every committed step the positions projected
//! onto Φ(q, t) = 0 and the velocities onto Φ_q v + Φ_t = 0, each the closest admissible value in
//! the metric W of `[solver.constraints] projection` (the mass matrix by default, or the identity),
//! then the accelerations and multipliers recomputed at the projected state (Eich 1993, *SIAM J.
//! Numer. Anal.* 30:1467; Hairer & Wanner 1996, *Solving Ordinary Differential Equations II*, §VII.2;
//! used with explicit Runge–Kutta methods by Fernández de Bustos et al. 2024, *Mathematics*
//! 12:2862, Table 10).
//!
//! The projection rewrites the newest level of the scheme's history in place; a multistep scheme
//! goes on from the projected level (its differences are rebuilt from the levels at every step) and
//! is not restarted.

use crate::scheme::{History, State};
use crate::system::System;

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::{
    Correction, FormulationError, FormulationInfo, FormulationSettings, NewtonStats, Registered,
};
/// Registry entry; its data is in [`crate::catalog::formulations::PROJECTION`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::PROJECTION;

/// Coordinate projection (see the module documentation).
#[derive(Debug)]
pub struct Projection {
    acc: AccelerationLevel,
}

impl Registered for Projection {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        Projection {
            acc: AccelerationLevel::new(n, m, settings),
        }
    }
}

impl AccelerationFormulation for Projection {
    fn level(&self) -> &AccelerationLevel {
        &self.acc
    }

    fn level_mut(&mut self) -> &mut AccelerationLevel {
        &mut self.acc
    }

    fn always_refreshes(&self) -> bool {
        true
    }

    /// Projects the committed state (and the history's newest level, which is the same state)
    /// onto the position and velocity constraints and recomputes a and λ there.
    fn after<S: System>(
        &mut self,
        sys: &S,
        history: &mut History,
        state: &mut State,
    ) -> Result<Correction, FormulationError> {
        let mut stats = NewtonStats::default();
        let t = state.t;
        self.acc
            .project_positions(sys, t, &mut state.q, &mut stats)?;
        self.acc
            .project_velocities(sys, t, &state.q, &mut state.v, &mut stats)?;
        self.acc.refresh(sys, history, state)?;
        Ok(Correction::Corrected)
    }
}
