//! Direct integration (Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*,
//! §7.3.3): the accelerations of eq. 7.2.1 integrated as a first-order ODE in y = (q, v), with no
//! correction. The constraints hold only at the acceleration level; position and velocity
//! violations accumulate and are reported, never corrected.

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::{FormulationInfo, FormulationSettings, Registered};
/// Registry entry; its data is in [`crate::catalog::formulations::DIRECT`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::DIRECT;

/// Direct integration (see the module documentation).
#[derive(Debug)]
pub struct DirectIntegration {
    acc: AccelerationLevel,
}

impl Registered for DirectIntegration {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        DirectIntegration {
            acc: AccelerationLevel::new(n, m, settings),
        }
    }
}

impl AccelerationFormulation for DirectIntegration {
    fn level(&self) -> &AccelerationLevel {
        &self.acc
    }

    fn level_mut(&mut self) -> &mut AccelerationLevel {
        &mut self.acc
    }
}
