//! The model layer: what the user describes. No time stepping here.
//!
//! - [`types`]: the model file's data (bodies, joints, drivers, forces, markers, solver settings).
//! - [`function`]: time functions for drivers and loads.
//! - [`equations`]: equation-based models (`[equations]`: M(q) q̈ = Q(q, q̇, t), Φ(q, t) = 0 as expressions).
//! - [`expressions`]: the `[equations]` expressions compiled and differentiated once.

pub mod beam;
pub mod equations;
pub mod expressions;
pub mod function;
pub mod geometry;
pub mod inventory;
pub mod jet;
pub mod parse;
pub mod settings;
pub mod spatial;
pub mod types;
pub mod unary_minus;
pub mod validate;

pub use types::*;
