//! Generalized coordinate partitioning (Wehage & Haug 1982, *J. Mech. Des.* 104:247–255; Haug 1989,
//! *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.3.2, steps 1–7): the
//! accelerations of eq. 7.2.1 integrated for all coordinates, error control on the independent
//! ones only, and after every committed step the dependent positions solved from Φ = 0 by Newton's
//! method and the dependent velocities from the velocity constraints, with a and λ recomputed at the
//! corrected state. The partition ([`super::coordinate_partition`]) is chosen at the start and again
//! whenever its dependent block becomes ill-conditioned; the scheme is then restarted (step 7),
//! which the run report counts.

use crate::scheme::{History, LocalError, State};
use crate::system::System;

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::coordinate_partition::CoordinatePartition;
use super::{Correction, FormulationError, FormulationInfo, FormulationSettings, Registered};

/// Registry entry; its data is in [`crate::catalog::formulations::PARTITIONING`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::PARTITIONING;

/// Coordinate partitioning (see the module documentation).
#[derive(Debug)]
pub struct Partitioning {
    acc: AccelerationLevel,
    part: CoordinatePartition,
}

impl Registered for Partitioning {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        Partitioning {
            acc: AccelerationLevel::new(n, m, settings),
            part: CoordinatePartition::new(n, m),
        }
    }
}

impl AccelerationFormulation for Partitioning {
    fn level(&self) -> &AccelerationLevel {
        &self.acc
    }

    fn level_mut(&mut self) -> &mut AccelerationLevel {
        &mut self.acc
    }

    /// Chooses the first partition at the start of the run (step 2).
    fn before<S: System>(&mut self, sys: &S, history: &History) {
        self.part.choose_once(sys, history);
    }

    fn always_refreshes(&self) -> bool {
        true
    }

    /// Steps 5 and 7: corrects the dependent coordinates and velocities, recomputes a and λ, and
    /// repartitions (asking for a restart) when Φ_u has become ill-conditioned.
    fn after<S: System>(
        &mut self,
        sys: &S,
        history: &mut History,
        state: &mut State,
    ) -> Result<Correction, FormulationError> {
        correct_dependent(&mut self.acc, &mut self.part, sys, history, state)?;
        let ratio = self.acc.constraints.repartition_ratio;
        Ok(if self.part.check(sys, state.t, &state.q, ratio) {
            Correction::Retake
        } else {
            Correction::Corrected
        })
    }

    fn judged(&self, err: &mut LocalError) -> usize {
        self.part.filter(err)
    }
}

/// Haug's step 5: the dependent positions and velocities of `state` solved from the constraints,
/// a and λ recomputed from eq. 7.2.1 there, and the history's newest level (the same state)
/// overwritten.
///
/// # Errors
/// When Newton on the dependent coordinates or the acceleration solve fails.
pub(crate) fn correct_dependent<S: System>(
    acc: &mut AccelerationLevel,
    part: &mut CoordinatePartition,
    sys: &S,
    history: &mut History,
    state: &mut State,
) -> Result<(), FormulationError> {
    part.correct(sys, state.t, &mut state.q, &mut state.v, &acc.newton)?;
    acc.refresh(sys, history, state)
}
