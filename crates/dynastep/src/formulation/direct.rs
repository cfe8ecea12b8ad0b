//! Direct integration (Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*,
//! §7.3.3): the accelerations of eq. 7.2.1 integrated as a first-order ODE in y = (q, v), with no
//! correction. The constraints hold only at the acceleration level; position and velocity
//! violations accumulate and are reported, never corrected.

use crate::linalg::Vector;
use crate::scheme::IntegrationPoint;
use crate::system::System;

use super::acceleration::AccelerationLevel;
use super::{
    Formulation, FormulationError, FormulationInfo, FormulationSettings, LinearizedSystem,
    NewtonSettings, NewtonStats, Registered, SchemeRequirement, VelocityError,
};

/// Registry entry of direct integration.
pub const INFO: FormulationInfo = FormulationInfo {
    name: "direct",
    aliases: &["direct-integration"],
    summary: "acceleration-level equations [M Phi_q^T; Phi_q 0][a; lambda] = [Q; gamma] solved at every stage, integrated as a first-order ODE; no correction, drift reported",
    source: "Haug (1989) Computer-Aided Kinematics and Dynamics of Mechanical Systems, §7.3.3, eq. 7.2.1",
    constraint_level: "accelerations (index 1); position and velocity violations drift",
    schemes: SchemeRequirement::ExplicitInPositions,
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

impl<S: System> Formulation<S> for DirectIntegration {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn solve(
        &mut self,
        sys: &S,
        pt: &IntegrationPoint,
        u: &mut Vector,
        lambda: &mut Vector,
        stats: &mut NewtonStats,
    ) -> Result<(), FormulationError> {
        self.acc.solve_point(sys, pt, u, lambda, None, stats)
    }

    fn force_terms(&self) -> &Vector {
        &self.acc.force_terms
    }

    fn settings(&self) -> &NewtonSettings {
        &self.acc.newton
    }
}
