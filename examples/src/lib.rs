//! edgec examples.
