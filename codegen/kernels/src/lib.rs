//! edgec kernel runtime.
