//! Linalg-family kernels: MatMul and Gemm, Einsum, Det, fused `core.linear`.

mod det;
mod einsum;
mod fused;
mod matmul;
