//! Linear algebra outside the GEMM engine: Einsum as a loop nest
//! ([`einsum`]), determinants ([`det`]), and the f64 MatMul ([`wide`]).
//! MatMul, Gemm and `core.linear` in f32 drive [`crate::gemm`].

pub mod det;
pub mod einsum;
pub mod wide;
