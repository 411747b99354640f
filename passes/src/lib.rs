//! edgec passes.
