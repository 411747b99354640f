//! Reference kernels: qlinear ops.
