//! Shape inference: signal ops.
