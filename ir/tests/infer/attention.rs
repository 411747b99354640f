//! Type inference of LinearAttention, CausalConvWithState and FlexAttention.

use crate::common::listed::*;

#[test]
fn linear_attention_types() {
    let heads = [("q_num_heads", Attr::Int(8)), ("kv_num_heads", Attr::Int(2))];
    let ops = ["f16[B, T, 64]", "f16[B, T, 16]", "f16[B, T, 24]", "f32[B, 2, 8, 12]", "f16[B, T, 2]", "f16[B, T, 1]"];
    assert_eq!(ok(Opcode::LinearAttention, &ops, &heads, 2), "f16[B, T, 96] f32[B, 2, 8, 12]");
    let ops = ["bf16[1, T, 64]", "bf16[1, T, 16]", "bf16[1, T, 24]", "", "bf16[1, T, 16]", "bf16[1, T, 2]"];
    assert_eq!(ok(Opcode::LinearAttention, &ops, &heads, 2), "bf16[1, T, 96] bf16[1, 2, 8, 12]");
    let mut bad = ops;
    bad[4] = "bf16[1, T, 3]";
    err(Opcode::LinearAttention, &bad, &heads, 2, "decay");
    bad = ops;
    bad[1] = "bf16[1, T, 12]";
    err(Opcode::LinearAttention, &bad, &heads, 2, "sizes disagree");
    err(Opcode::LinearAttention, &["f64[1, 1, 8]", "f64[1, 1, 8]", "f64[1, 1, 8]"], &heads, 2, "f32, f16 or bf16");
    err(Opcode::LinearAttention, &ops, &[("q_num_heads", Attr::Int(8))], 2, "kv_num_heads");
}

#[test]
fn causal_conv_types() {
    assert_eq!(ok(Opcode::CausalConvWithState, &["f32[B, 4, L]", "f32[4, 1, 3]"], &[], 2), "f32[B, 4, L] f32[B, 4, 2]");
    let ops = ["f16[?, ?, 7]", "f16[4, 1, 1]", "f16[4]", "f16[2, 4, 0]"];
    assert_eq!(ok(Opcode::CausalConvWithState, &ops, &[], 2), "f16[2, 4, 7] f16[2, 4, 0]");
    err(Opcode::CausalConvWithState, &["f32[1, 4, 5]", "f32[4, 2, 3]"], &[], 2, "[channels, 1, k]");
    err(Opcode::CausalConvWithState, &["f32[1, 4, 5]", "f32[3, 1, 3]"], &[], 2, "sizes disagree");
    err(Opcode::CausalConvWithState, &["f32[1, 4, 5]", "f16[4, 1, 3]"], &[], 2, "weight has element type f16");
    let act = [("activation", Attr::Str("relu".into()))];
    err(Opcode::CausalConvWithState, &["f32[1, 4, 5]", "f32[4, 1, 3]"], &act, 2, "activation");
}

#[test]
fn flex_attention_types() {
    let ops = ["f64[B, 8, L, 16]", "f64[B, 2, S, 16]", "f64[B, 2, S, 32]"];
    assert_eq!(ok(Opcode::FlexAttention, &ops, &[], 1), "f64[B, 8, L, 32]");
    err(Opcode::FlexAttention, &["f32[1, 6, 2, 4]", "f32[1, 4, 3, 4]", "f32[1, 4, 3, 4]"], &[], 1, "multiple");
    err(Opcode::FlexAttention, &["f32[1, 2, 2, 4]", "f32[1, 2, 3, 5]", "f32[1, 2, 3, 4]"], &[], 1, "disagree");
    err(Opcode::FlexAttention, &["i32[1, 2, 2, 4]", "i32[1, 2, 3, 4]", "i32[1, 2, 3, 4]"], &[], 1, "float");
    err(Opcode::FlexAttention, &["f32[1, 2, 4]", "f32[1, 2, 3, 4]", "f32[1, 2, 3, 4]"], &[], 1, "rank 4");
}
