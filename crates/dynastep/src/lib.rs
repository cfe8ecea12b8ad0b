//! # dynastep
//!
//! A multibody dynamics engine that puts the time integrators and constraint formulations of the
//! literature in one code, on equal terms. The crate is laid out by layer, in the order data flows:
//!
//! - [`model`]: what the user describes (bodies, joints, drivers, forces, time functions); parsed from
//!   TOML model files.
//! - [`system`]: the equations `M(q) a + Φ_qᵀ λ = Q`, `Φ(q, t) = 0` with their Jacobians.
//! - [`scheme`]: time discretizations, each expressed as affine maps of one unknown per integration point.
//! - [`catalog`]: the formulations' names and requirements, and the scheme × formulation rule.
//! - [`formulation`]: how constraints enter and how each integration point is solved (index-3 Newton).
//! - [`analysis`]: assembly, dynamic runs.
//! - [`io`]: output files and summaries.
//!
//! See `ARCHITECTURE.md` in the repository for how the layers fit together.

#![warn(missing_docs)]

pub mod analysis;
pub mod catalog;
pub mod examples;
pub mod formulation;
pub mod io;

pub mod linalg;
pub mod model;
pub mod scheme;
pub mod state;
pub mod study;
pub mod system;

pub use linalg::{Matrix, Vector};
