//! edgec code generation.

pub mod targets;
