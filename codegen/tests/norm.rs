//! The Rust backend's lowering of the normalization ops: the compile errors
//! (naming the op and what is unsupported) for the parameters it does not
//! support.

mod common;

use common::*;

#[test]
fn unsupported_normalization_parameters_are_compile_errors() {
    // A scale that broadcasts across the normalized rows, not along them.
    let p = "%x: f32[2, 4, 5], %s: f32[4, 1]";
    expect_err(p, "onnx.LayerNormalization %x, %s {axis = 1}", "f32[2, 4, 5]", &["LayerNormalization", "Scale"]);
    expect_err(p, "onnx.RMSNormalization %x, %s {axis = 1}", "f32[2, 4, 5]", &["RMSNormalization", "scale"]);
    // Opset-18 GroupNormalization (scale per group).
    let p = "%x: f32[3, 4, 2, 2], %s: f32[2], %b: f32[2]";
    expect_err(p, "onnx.GroupNormalization %x, %s, %b {num_groups = 2}", "f32[3, 4, 2, 2]", &["per channel"]);
}
