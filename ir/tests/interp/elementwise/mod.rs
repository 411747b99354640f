//! Elementwise-family kernels: arithmetic, casts, comparisons and logic, unary math and
//! activations, BitCast, Swish, and the fused activations / `core.silu`.

mod activation;
mod arith;
mod bitcast;
mod cast;
mod logic;
mod swish;
mod unary;
