//! Reference kernels: loss ops (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss)
//! and the other ops of the same family file (CumProd, Swish, AffineGrid,
//! DeformConv, TensorScatter).
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when the
//! result is stored) and in f64 for f64 tensors, like the nn kernels. CumProd
//! accumulates floats in f64 and wraps integers, like CumSum.

pub mod deform;
pub mod grid;
pub mod misc;
pub mod nll;

pub use deform::deform_conv;
pub use grid::affine_grid;
pub use misc::{cum_prod, swish, tensor_scatter};
pub use nll::{nll_loss, softmax_cross_entropy_loss};
