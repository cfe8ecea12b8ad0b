//! The analysis layer: what a user asks for. [`assembly`] makes a consistent initial state;
//! [`dynamic`] runs the time loop, built from [`step`] (one step of any scheme with any formulation),
//! [`step_control`] (error norm, PI controller, initial step), [`dense_output`] and [`output_times`];
//! [`stability`] analyses a scheme on the test oscillator with the same step routine.
//! [`kinematics`] (kinematic and inverse dynamic analysis) and [`equilibrium`] (settling, Newton,
//! minimum potential energy) are the other analyses of a model; [`crate::linalg::null_space`] chooses independent
//! coordinates for them. Studies over many runs (sweeps, work–precision comparisons) sit above io/,
//! in [`crate::study`].

pub mod assembly;
pub mod assembly_sparse;
pub mod dense_output;
pub mod diagnostics;
pub(crate) mod divergence;
pub mod dynamic;
pub mod equilibrium;
pub mod failure;
pub mod kinematics;
pub mod natural_frequency;
pub mod output_times;
mod row_echelon;
pub mod run_options;
mod sampler;
pub mod simulation;
pub mod stability;
pub mod start_derivatives;
pub mod step;
pub mod step_control;
mod step_sizer;
