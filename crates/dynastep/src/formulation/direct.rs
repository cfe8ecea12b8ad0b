//! Direct integration (Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*,
//! §7.3.3): the accelerations of eq. 7.2.1 integrated as a first-order ODE in y = (q, v), with no
//! correction. The constraints hold only at the acceleration level; position and velocity
//! violations accumulate and are reported, never corrected.

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::{
    FormulationInfo, FormulationSettings, LinearizedSystem, Registered, SchemeRequirement,
    VelocityError,
};
/// Registry entry of direct integration.
pub const INFO: FormulationInfo = FormulationInfo {
    name: "direct",
    aliases: &["direct-integration"],
    summary: "acceleration-level equations [M Phi_q^T; Phi_q 0][a; lambda] = [Q; gamma] solved at every stage, integrated as a first-order ODE; no correction, drift reported",
    source: "Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.3, eq. 7.2.1",
    constraint_level: "accelerations (index 1); position and velocity violations drift",
    schemes: SchemeRequirement::FIRST_ORDER,
    linearized: LinearizedSystem::Constrained,
    velocity_error: VelocityError::Differential,
};

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
