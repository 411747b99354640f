//! edgec code generation.

pub mod plan;
pub mod targets;
