//! The analysis layer: what a user asks for. [`assembly`] makes a consistent initial state;
//! [`dynamic`] runs the time loop.

pub mod assembly;
pub mod dynamic;
pub mod simulation;

pub mod stability;
