//! Shape inference: qlinear ops.
