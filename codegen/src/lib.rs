//! edgec code generation.

pub mod plan;
pub mod rust;
pub mod targets;
