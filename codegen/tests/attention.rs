//! The Rust backend's lowering of the attention ops (Attention, FlexAttention,
//! RotaryEmbedding, LinearAttention): what it accepts, and the compile errors
//! (naming the op and what is unsupported) for what it does not.

mod common;

use common::*;

const QKV4: &str = "%q: f32[2, 3, 4, 8], %k: f32[2, 3, 6, 8], %v: f32[2, 3, 6, 5]";

#[test]
fn attention_4d_and_rotary_and_norms_compile() {
    emit_op(QKV4, "onnx.Attention %q, %k, %v {is_causal = 1, softcap = 2.0}", "f32[2, 3, 4, 5]").unwrap();
    let p = "%q: f32[2, 4, 4, 8], %k: f32[2, 2, 6, 8], %v: f32[2, 2, 6, 5]";
    emit_op(p, "onnx.FlexAttention %q, %k, %v {scale = 0.5}", "f32[2, 4, 4, 5]").unwrap();
    let p = "%x: f32[2, 3, 4, 8], %c: f32[2, 4, 4], %s: f32[2, 4, 4]";
    emit_op(p, "onnx.RotaryEmbedding %x, %c, %s", "f32[2, 3, 4, 8]").unwrap();
    let p = "%x: f32[2, 4, 5], %s: f32[5]";
    emit_op(p, "onnx.RMSNormalization %x, %s {axis = 1}", "f32[2, 4, 5]").unwrap();
    emit_op(p, "onnx.LayerNormalization %x, %s {axis = 2}", "f32[2, 4, 5]").unwrap();
    emit_op("%x: f32[1, 2, 5, 5]", "onnx.LpPool %x {kernel_shape = [2, 2], p = 3}", "f32[1, 2, 4, 4]").unwrap();
}

#[test]
fn attention_errors_name_the_problem() {
    let p = "%q: f32[2, 4, 24], %k: f32[2, 6, 24], %v: f32[2, 6, 24]";
    expect_err(
        p,
        "onnx.Attention %q, %k, %v {kv_num_heads = 3}",
        "f32[2, 4, 24]",
        &["onnx.Attention", "3-D Q needs the num_heads"],
    );
    let p = "%q: f32[2, 4, 4, 8], %k: f32[2, 3, 6, 8], %v: f32[2, 3, 6, 5]";
    expect_err(p, "onnx.Attention %q, %k, %v", "f32[2, 4, 4, 5]", &["Attention", "inconsistent"]);
    let p = format!("{QKV4}, %m: f32[2, 3, 4, 7]");
    expect_err(&p, "onnx.Attention %q, %k, %v, %m", "f32[2, 3, 4, 5]", &["attn_mask", "broadcast"]);
}

#[test]
fn linear_attention_checks_its_update_rule() {
    let p = "%q: f32[2, 4, 32], %k: f32[2, 4, 32], %v: f32[2, 4, 32]";
    let a = "q_num_heads = 4, kv_num_heads = 4";
    emit_op(p, &format!("onnx.LinearAttention %q, %k, %v {{{a}, update_rule = \"linear\"}}"), "f32[2, 4, 32]").unwrap();
    let op = format!("onnx.LinearAttention %q, %k, %v {{{a}, update_rule = \"gated\"}}");
    expect_err(p, &op, "f32[2, 4, 32]", &["LinearAttention", "decay"]);
}
