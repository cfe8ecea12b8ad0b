//! The equation-based system's named outputs ([`Mechanism`]): it has no bodies, markers, joints or
//! drivers, and its history gets one column per coordinate (and rate) instead.

use super::EquationSystem;
use crate::linalg::Vector;
use crate::model::Model;
use crate::state::{GivenValues, State};
use crate::system::mechanism::Mechanism;
use crate::system::System;

use super::EquationError;

impl EquationSystem {
    /// The system of an equation-based `model` (`[equations]`), which may have no bodies, joints,
    /// drivers, force elements or markers beside it.
    ///
    /// # Errors
    /// [`EquationError`] when the model mixes in planar elements, has no `[equations]` table, or
    /// an expression does not compile (see [`EquationSystem::new`]).
    pub fn from_model(model: &Model) -> Result<Self, EquationError> {
        let Some(spec) = &model.equations else {
            return Err(EquationError("the model has no `[equations]` table".into()));
        };
        if !(model.bodies.is_empty()
            && model.joints.is_empty()
            && model.drivers.is_empty()
            && model.forces.is_empty()
            && model.markers.is_empty())
        {
            return Err(EquationError(
                "an equation-based model cannot also have bodies, joints, drivers, forces or markers; write them as equations or use two models".into(),
            ));
        }
        EquationSystem::new(spec)
    }
}

impl Mechanism for EquationSystem {
    fn initial_state(&self, t0: f64) -> State {
        EquationSystem::initial_state(self, t0)
    }

    /// None: assembly holds nothing of an equation-based model.
    fn given_values(&self) -> GivenValues {
        GivenValues::none(self.n())
    }

    fn equations(&self) -> Option<&EquationSystem> {
        Some(self)
    }

    fn body_names(&self) -> Vec<&str> {
        Vec::new()
    }

    fn body_columns(&self, _b: usize) -> (&'static [&'static str], &'static [&'static str]) {
        (&[], &[])
    }

    fn push_body_pose(&self, _b: usize, _q: &Vector, _out: &mut Vec<f64>) {}

    fn push_body_velocity(&self, _b: usize, _q: &Vector, _v: &Vector, _out: &mut Vec<f64>) {}

    fn body_displacement(&self, _b: usize, _q0: &Vector, _q1: &Vector) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn marker_names(&self) -> Vec<&str> {
        Vec::new()
    }

    fn marker_columns(&self, _k: usize) -> (&'static [&'static str], &'static [&'static str]) {
        (&[], &[])
    }

    fn push_marker_position(&self, _k: usize, _q: &Vector, _out: &mut Vec<f64>) {}

    fn push_marker_velocity(&self, _k: usize, _q: &Vector, _v: &Vector, _out: &mut Vec<f64>) {}

    fn joint_names(&self) -> Vec<&str> {
        Vec::new()
    }

    fn joint_columns(&self, _k: usize) -> &'static [&'static str] {
        &[]
    }

    fn push_joint_history(&self, _k: usize, _q: &Vector, _l: &Vector, _out: &mut Vec<f64>) {}

    fn push_joint_reaction(&self, _k: usize, _q: &Vector, _l: &Vector, _out: &mut Vec<f64>) {}

    fn driver_names(&self) -> Vec<&str> {
        Vec::new()
    }

    fn driver_unit(&self, _k: usize) -> &'static str {
        "force"
    }

    fn driver_effort(&self, _k: usize, _lambda: &Vector) -> f64 {
        0.0
    }
}
