//! Reference kernels: nn family.
