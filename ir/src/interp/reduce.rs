//! Reference kernels: reduce family.
