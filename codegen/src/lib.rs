//! edgec code generation.
