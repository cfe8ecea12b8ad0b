//! Baumgarte's constraint stabilization (Baumgarte 1972, *Comput. Methods Appl. Mech. Eng.*
//! 1:1–16; Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.3.4): direct
//! integration with the acceleration constraint Φ̈ = 0 replaced by Φ̈ + 2αΦ̇ + β²Φ = 0 (eq. 7.3.7),
//! that is γ replaced by γ̂ = γ − 2α(Φ_q v + Φ_t) − β²Φ in eq. 7.2.1 (eq. 7.3.8). The violations
//! then obey a damped oscillator and stay bounded; α and β \[1/s\] come from `[solver.constraints]`
//! (no choice is right for every model, as Haug notes; near a singular configuration the extra terms
//! can make the solve diverge).

use super::acceleration::{AccelerationFormulation, AccelerationLevel};
use super::{FormulationInfo, FormulationSettings, Registered};
/// Registry entry; its data is in [`crate::catalog::formulations::BAUMGARTE`], where the model layer
/// reads it.
pub const INFO: FormulationInfo = crate::catalog::formulations::BAUMGARTE;

/// Baumgarte stabilization (see the module documentation).
#[derive(Debug)]
pub struct Baumgarte {
    acc: AccelerationLevel,
}

impl Registered for Baumgarte {
    const INFO: FormulationInfo = INFO;

    fn new(n: usize, m: usize, settings: &FormulationSettings) -> Self {
        Baumgarte {
            acc: AccelerationLevel::new(n, m, settings),
        }
    }
}

impl AccelerationFormulation for Baumgarte {
    fn level(&self) -> &AccelerationLevel {
        &self.acc
    }

    fn level_mut(&mut self) -> &mut AccelerationLevel {
        &mut self.acc
    }

    fn baumgarte(&self) -> Option<(f64, f64)> {
        let c = self.acc.constraints;
        Some((c.alpha, c.beta))
    }
}
