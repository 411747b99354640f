//! edgec code generation.

pub mod backend;
pub mod plan;
pub mod rust;
pub mod targets;
