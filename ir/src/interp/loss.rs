//! Reference kernels: loss ops.
