//! Cross-family property tests, each comparing many ops with a naive model or an unfused
//! chain: the canonical `core.*` shape / reduce ops against `onnx.*`, fused ops against their
//! unfused chains, elementwise arithmetic and casts, MatMul / Einsum / Conv against naive loops.

mod canonical;
mod elementwise;
mod fused;
mod linalg_conv;
