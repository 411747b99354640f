//! edgec test infrastructure.
