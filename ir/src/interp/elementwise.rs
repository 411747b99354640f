//! Reference kernels: elementwise family.
