//! Inference tests spanning several families in one test (kept together, not split, so
//! every test stays unchanged): symbolic dims through DepthToSpace, SpaceToDepth,
//! GroupNormalization, RMSNormalization, Einsum, GridSample and RoiAlign; LSTM / GRU / RNN and
//! Attention result shapes.

use crate::common::listed::*;

#[test]
fn symbolic_dims_pass_through() {
    let b = [("blocksize", Attr::Int(2))];
    assert_eq!(one(Opcode::DepthToSpace, &["f32[N, 8, h, 3]"], &b), "f32[N, 2, ?, 6]");
    assert_eq!(one(Opcode::SpaceToDepth, &["u8[N, 3, 4, w]"], &b), "u8[N, 12, 2, ?]");
    let g = [("num_groups", Attr::Int(2))];
    assert_eq!(one(Opcode::GroupNormalization, &["f32[N, 4, s]", "f32[4]", "f32[4]"], &g), "f32[N, 4, s]");
    assert_eq!(one(Opcode::RMSNormalization, &["f16[N, s, 8]", "f32[8]"], &[]), "f32[N, s, 8]");
    let eq = [("equation", Attr::Str("bij,bjk->bik".into()))];
    assert_eq!(one(Opcode::Einsum, &["f32[2, 3, 4]", "f32[?, 4, 5]"], &eq), "f32[2, 3, 5]");
    assert_eq!(one(Opcode::GridSample, &["f32[N, 3, 8, 8]", "f32[N, h, w, 2]"], &[]), "f32[N, 3, h, w]");
    let r = [("output_height", Attr::Int(2)), ("output_width", Attr::Int(3))];
    assert_eq!(one(Opcode::RoiAlign, &["f32[1, C, 8, 8]", "f32[R, 4]", "i64[R]"], &r), "f32[R, C, 2, 3]");
}

#[test]
fn recurrent_and_attention_shapes() {
    let bi = [("direction", Attr::Str("bidirectional".into()))];
    let out = infer(Opcode::LSTM, &["f32[T, B, 4]", "f32[2, 12, 4]", "f32[2, 12, 3]"], &bi, 3).unwrap();
    assert_eq!(out, ["f32[T, 2, B, 3]", "f32[2, B, 3]", "f32[2, B, 3]"]);
    let l1 = [("layout", Attr::Int(1)), ("hidden_size", Attr::Int(5))];
    let out = infer(Opcode::GRU, &["f32[B, T, 4]", "f32[1, 15, 4]", "f32[1, ?, ?]"], &l1, 2).unwrap();
    assert_eq!(out, ["f32[B, T, 1, 5]", "f32[B, 1, 5]"]);
    assert!(infer(Opcode::RNN, &["f32[T, B, 4]", "f32[2, 3, 4]", "f32[2, 3, 3]"], &[], 1).is_err());
    let q = ["f32[B, 4, S, 8]", "f32[B, 2, L, 8]", "f32[B, 2, L, 6]", "", "f32[B, 2, 3, 8]", "f32[B, 2, 3, 6]"];
    let out = infer(Opcode::Attention, &q, &[], 4).unwrap();
    assert_eq!(out, ["f32[B, 4, S, 6]", "f32[B, 2, ?, 8]", "f32[B, 2, ?, 6]", "f32[B, 4, S, ?]"]);
    let heads = [("q_num_heads", Attr::Int(4)), ("kv_num_heads", Attr::Int(2))];
    assert_eq!(one(Opcode::Attention, &["f32[B, S, 32]", "f32[B, L, 16]", "f32[B, L, 12]"], &heads), "f32[B, S, 24]");
}
