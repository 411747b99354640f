//! Shape inference of the nn ops added with their kernels: symbolic dims pass
//! through where the output dim equals an input dim, everything else unknowable is `?`.

use super::*;
use ir::ops::InferCtx;
use ir::{Dim, Shape, Symbol, TensorType};

/// Parse `f32[1, N, ?]` (`?` unknown, names symbolic, `[*]` unranked).
fn ty(s: &str) -> TensorType {
    let (dt, rest) = s.split_once('[').expect("missing `[`");
    let dtype = DType::from_name(dt).expect("bad dtype");
    let inner = rest.strip_suffix(']').expect("missing `]`");
    if inner == "*" {
        return TensorType::unranked(dtype);
    }
    let dims = inner.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| match d {
        "?" => Dim::Unknown,
        _ => d.parse().map(Dim::Static).unwrap_or_else(|_| Dim::Sym(Symbol::new(d))),
    });
    TensorType::new(dtype, Shape::from_dims(dims))
}

/// Inferred result types as strings (operands `""` are omitted).
fn infer(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let a = attrs(list);
    let ctx = InferCtx { operands: &refs, consts: &[], attrs: &a, num_results: n, attr_const: None };
    Ok((op.def().infer)(&ctx)?.iter().map(ToString::to_string).collect())
}

fn one(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name())).remove(0)
}

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
