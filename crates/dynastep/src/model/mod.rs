//! The model layer: what the user describes. No time stepping here.

pub mod function;
