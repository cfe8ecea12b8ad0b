//! [`Multibody`]: the system a model file describes, planar, spatial or equation-based, behind one
//! type.
//!
//! The consumers of a model (the simulation, the CLI, the Python package) hold a `Multibody` and
//! use it through [`System`] and [`Mechanism`]; each call is forwarded to the system of the
//! model's kind. A new kind of mechanism adds a variant here and nothing in the consumers.

use super::equations::{EquationError, EquationSystem};
use super::mechanism::Mechanism;
use super::planar::{PlanarError, PlanarSystem};
use super::spatial::{SpatialError, SpatialSystem};
use super::System;
use crate::linalg::{Sink, Vector};
use crate::model::inventory::ModelKind;
use crate::model::Model;
use crate::state::GivenValues;
use crate::state::State;

/// A built model: planar, spatial or equation-based.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // One per run, never in a collection: boxing buys nothing.
pub enum Multibody {
    /// `[[bodies]]`, `[[joints]]` … in the plane.
    Planar(PlanarSystem),
    /// `[spatial]`.
    Spatial(SpatialSystem),
    /// `[equations]`.
    Equations(EquationSystem),
}

/// Why a model cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BuildError {
    /// A planar or equation-based model.
    #[error(transparent)]
    Planar(#[from] PlanarError),
    /// A spatial model.
    #[error(transparent)]
    Spatial(#[from] SpatialError),
    /// An equation-based model.
    #[error(transparent)]
    Equations(#[from] EquationError),
}

impl Multibody {
    /// Builds the system of `model`, of the kind [`Model::kind`] names.
    ///
    /// # Errors
    /// The builder's error, which lists every issue of the model's elements.
    pub fn new(model: &Model) -> Result<Self, BuildError> {
        Ok(match model.kind() {
            ModelKind::Planar => Multibody::Planar(PlanarSystem::new(model)?),
            ModelKind::Spatial => Multibody::Spatial(SpatialSystem::new(model)?),
            ModelKind::Equations => Multibody::Equations(EquationSystem::from_model(model)?),
        })
    }

    /// The planar system, when the model is planar.
    pub fn planar(&self) -> Option<&PlanarSystem> {
        match self {
            Multibody::Planar(s) => Some(s),
            _ => None,
        }
    }

    /// Index of the moving body called `name` (model order).
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.body_names().iter().position(|b| *b == name)
    }

    /// The pose of body `b` at q, as its history's pose columns (planar `x, y, θ`).
    pub fn body_pose(&self, b: usize, q: &Vector) -> Vec<f64> {
        let mut out = Vec::new();
        self.push_body_pose(b, q, &mut out);
        out
    }

    /// Global position and velocity of marker `k` at q, v, as its history columns.
    pub fn marker_state(&self, k: usize, q: &Vector, v: &Vector) -> (Vec<f64>, Vec<f64>) {
        let (mut p, mut w) = (Vec::new(), Vec::new());
        self.push_marker_position(k, q, &mut p);
        self.push_marker_velocity(k, q, v, &mut w);
        (p, w)
    }
}

/// Forwards a method to the variant.
macro_rules! forward {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Multibody::Planar($s) => $e,
            Multibody::Spatial($s) => $e,
            Multibody::Equations($s) => $e,
        }
    };
}

impl System for Multibody {
    fn n(&self) -> usize {
        forward!(self, s => s.n())
    }
    fn m(&self) -> usize {
        forward!(self, s => s.m())
    }
    fn mass<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.mass(q, scale, out))
    }
    fn mass_acceleration_q<S: Sink>(&self, q: &Vector, a: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.mass_acceleration_q(q, a, scale, out))
    }
    fn forces(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        forward!(self, s => s.forces(t, q, v, out))
    }
    fn forces_q<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.forces_q(t, q, v, scale, out))
    }
    fn forces_v<S: Sink>(&self, t: f64, q: &Vector, v: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.forces_v(t, q, v, scale, out))
    }
    fn forces_depend_on_velocity(&self) -> bool {
        forward!(self, s => s.forces_depend_on_velocity())
    }
    fn constraints(&self, t: f64, q: &Vector, out: &mut Vector) {
        forward!(self, s => s.constraints(t, q, out))
    }
    fn constraint_jacobian<S: Sink>(&self, t: f64, q: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.constraint_jacobian(t, q, scale, out))
    }
    fn constraint_time_derivative(&self, t: f64, q: &Vector, out: &mut Vector) {
        forward!(self, s => s.constraint_time_derivative(t, q, out))
    }
    fn gamma(&self, t: f64, q: &Vector, v: &Vector, out: &mut Vector) {
        forward!(self, s => s.gamma(t, q, v, out))
    }
    fn constraint_jacobian_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        forward!(self, s => s.constraint_jacobian_rate(t, q, v, scale, out))
    }
    fn constraint_jacobian_second_rate<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        v: &Vector,
        a: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        forward!(self, s => s.constraint_jacobian_second_rate(t, q, v, a, scale, out))
    }
    fn constraint_force_q<S: Sink>(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        scale: f64,
        out: &mut S,
    ) {
        forward!(self, s => s.constraint_force_q(t, q, lambda, scale, out))
    }
    fn potential_energy(&self, t: f64, q: &Vector) -> f64 {
        forward!(self, s => s.potential_energy(t, q))
    }
    fn nonconservative_power(&self, t: f64, q: &Vector, v: &Vector) -> f64 {
        forward!(self, s => s.nonconservative_power(t, q, v))
    }
    fn internal_force_scale(&self) -> f64 {
        forward!(self, s => s.internal_force_scale())
    }
    fn assembly_constraint_count(&self) -> usize {
        forward!(self, s => s.assembly_constraint_count())
    }
    fn assembly_constraints(&self, q: &Vector, out: &mut Vector) {
        forward!(self, s => s.assembly_constraints(q, out))
    }
    fn assembly_constraint_jacobian<S: Sink>(&self, q: &Vector, scale: f64, out: &mut S) {
        forward!(self, s => s.assembly_constraint_jacobian(q, scale, out))
    }
    fn breakpoints(&self, out: &mut Vec<f64>) {
        forward!(self, s => s.breakpoints(out))
    }
    fn constraint_label(&self, row: usize) -> String {
        forward!(self, s => s.constraint_label(row))
    }
    fn driving_constraint(&self, row: usize) -> bool {
        forward!(self, s => s.driving_constraint(row))
    }
    fn coordinate_label(&self, i: usize) -> String {
        forward!(self, s => s.coordinate_label(i))
    }
    fn explain_non_finite(&self, t: f64, q: &Vector, v: &Vector) -> Option<String> {
        forward!(self, s => s.explain_non_finite(t, q, v))
    }
    fn explain_invalid_state(&self, q: &Vector) -> Option<String> {
        forward!(self, s => s.explain_invalid_state(q))
    }
    fn energy(&self, t: f64, q: &Vector, v: &Vector, scratch: &mut Vector) -> super::Energy {
        forward!(self, s => s.energy(t, q, v, scratch))
    }
    fn mass_times(&self, q: &Vector, a: &Vector, out: &mut Vector) {
        forward!(self, s => s.mass_times(q, a, out))
    }
    fn add_constraint_force(&self, t: f64, q: &Vector, lambda: &Vector, out: &mut Vector) {
        forward!(self, s => s.add_constraint_force(t, q, lambda, out))
    }
    fn constraints_and_force(
        &self,
        t: f64,
        q: &Vector,
        lambda: &Vector,
        phi: &mut Vector,
        force: &mut Vector,
    ) {
        forward!(self, s => s.constraints_and_force(t, q, lambda, phi, force))
    }
    fn constraint_jacobian_times(&self, t: f64, q: &Vector, x: &Vector, out: &mut Vector) {
        forward!(self, s => s.constraint_jacobian_times(t, q, x, out))
    }
}

impl Mechanism for Multibody {
    fn initial_state(&self, t0: f64) -> State {
        forward!(self, s => Mechanism::initial_state(s, t0))
    }
    fn given_values(&self) -> GivenValues {
        forward!(self, s => Mechanism::given_values(s))
    }
    fn equations(&self) -> Option<&super::equations::EquationSystem> {
        forward!(self, s => Mechanism::equations(s))
    }
    fn body_names(&self) -> Vec<&str> {
        forward!(self, s => Mechanism::body_names(s))
    }
    fn body_columns(&self, b: usize) -> (&'static [&'static str], &'static [&'static str]) {
        forward!(self, s => s.body_columns(b))
    }
    fn push_body_pose(&self, b: usize, q: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_body_pose(b, q, out))
    }
    fn push_body_velocity(&self, b: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_body_velocity(b, q, v, out))
    }
    fn body_displacement(&self, b: usize, q0: &Vector, q1: &Vector) -> (f64, f64) {
        forward!(self, s => s.body_displacement(b, q0, q1))
    }
    fn marker_names(&self) -> Vec<&str> {
        forward!(self, s => Mechanism::marker_names(s))
    }
    fn marker_columns(&self, k: usize) -> (&'static [&'static str], &'static [&'static str]) {
        forward!(self, s => s.marker_columns(k))
    }
    fn push_marker_position(&self, k: usize, q: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_marker_position(k, q, out))
    }
    fn push_marker_velocity(&self, k: usize, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_marker_velocity(k, q, v, out))
    }
    fn joint_names(&self) -> Vec<&str> {
        forward!(self, s => Mechanism::joint_names(s))
    }
    fn joint_columns(&self, k: usize) -> &'static [&'static str] {
        forward!(self, s => s.joint_columns(k))
    }
    fn push_joint_history(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_joint_history(k, q, lambda, out))
    }
    fn push_joint_reaction(&self, k: usize, q: &Vector, lambda: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_joint_reaction(k, q, lambda, out))
    }
    fn driver_names(&self) -> Vec<&str> {
        forward!(self, s => Mechanism::driver_names(s))
    }
    fn driver_unit(&self, k: usize) -> &'static str {
        forward!(self, s => s.driver_unit(k))
    }
    fn driver_effort(&self, k: usize, lambda: &Vector) -> f64 {
        forward!(self, s => Mechanism::driver_effort(s, k, lambda))
    }
    fn element_load_columns(&self) -> Vec<String> {
        forward!(self, s => s.element_load_columns())
    }
    fn push_element_loads(&self, q: &Vector, v: &Vector, out: &mut Vec<f64>) {
        forward!(self, s => s.push_element_loads(q, v, out))
    }
}
