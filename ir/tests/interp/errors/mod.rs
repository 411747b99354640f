//! Cross-family: error wording of many ops (kernel errors of the nn-style ops and inference
//! errors of the fused `core.*` ops); a wrong input must give a precise message, never a panic.

mod fused;
mod kernels;
