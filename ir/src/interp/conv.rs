//! Reference kernels: conv family (Conv, ConvTranspose, DeformConv, Col2Im and
//! the fused `core.conv` / `core.conv_transpose`).
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when the
//! result is stored) and in f64 for f64 tensors; Col2Im also takes integer
//! tensors (wrapping). The sliding-window geometry of [`window`] is derived
//! from inference's attribute parsing; the pooling and quantized-conv kernels
//! use it too. The kernels are re-exported here so the op table can name them
//! `ik::conv::<kernel>` (the fused ones `ik::conv::fused::<kernel>`).

pub mod deform;
pub mod fused;
pub mod onnx;
pub mod window;

pub use deform::deform_conv;
pub use onnx::{col2im, conv, conv_transpose};
