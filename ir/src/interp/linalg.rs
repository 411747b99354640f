//! Reference kernels: linalg family (MatMul, Gemm, Einsum, Det and the fused
//! `core.linear`).
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when the
//! result is stored) and in f64 for f64 tensors; integer matrix products wrap.
//! Det computes in the wide domain (f64) and rounds once. Each submodule holds
//! one group of ops; the kernels are re-exported here so the op table can name
//! them `ik::linalg::<kernel>`.

pub mod det;
pub mod einsum;
pub mod fused;
pub mod matmul;

pub use det::det;
pub use einsum::einsum;
pub use fused::linear;
pub use matmul::{gemm, matmul};
