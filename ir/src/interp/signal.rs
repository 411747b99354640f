//! Reference kernels: signal ops.
