//! Shape and type inference through the op table.

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

fn ok(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> String {
    infer(op, operands, list, n).unwrap_or_else(|e| panic!("{}: {e}", op.name())).join(" ")
}

fn err(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize, needle: &str) {
    match infer(op, operands, list, n) {
        Ok(t) => panic!("{}: expected an error containing {needle:?}, got {t:?}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}

#[test]
fn matmul_integer_and_qlinear_matmul() {
    assert_eq!(ok(Opcode::MatMulInteger, &["u8[b, M, 3]", "i8[3, N]"], &[], 1), "i32[b, M, N]");
    assert_eq!(ok(Opcode::MatMulInteger, &["u8[3]", "u8[2, 3, 4]", "u8[]", ""], &[], 1), "i32[2, 4]");
    err(Opcode::MatMulInteger, &["f32[2, 3]", "u8[3, 4]"], &[], 1, "expected i8 or u8");
    err(Opcode::MatMulInteger, &["u8[2, 3]", "u8[4, 4]"], &[], 1, "inner dimensions differ");
    err(Opcode::MatMulInteger, &["u8[2, 3]", "u8[3, 4]", "i8[]"], &[], 1, "a_zero_point has element type i8");
    let q = |a: &str, s: &str, y: &str| [a, s, "u8[]", "u8[3, 4]", s, "u8[]", s, y].map(String::from);
    let ops = q("u8[2, 3]", "f16[]", "i8[]");
    let refs: Vec<&str> = ops.iter().map(String::as_str).collect();
    assert_eq!(ok(Opcode::QLinearMatMul, &refs, &[], 1), "i8[2, 4]");
    let ops = q("u8[2, 3]", "f64[]", "u8[]");
    let refs: Vec<&str> = ops.iter().map(String::as_str).collect();
    err(Opcode::QLinearMatMul, &refs, &[], 1, "a_scale has element type f64");
    let ops = ["u8[2, 3]", "f32[]", "u8[]", "u8[3, 4]", "f16[]", "u8[]", "f32[]", "u8[]"];
    err(Opcode::QLinearMatMul, &ops, &[], 1, "b_scale has element type f16");
}

#[test]
fn conv_integer_and_qlinear_conv() {
    let pads = [("pads", Attr::Ints(vec![1, 1, 1, 1]))];
    assert_eq!(ok(Opcode::ConvInteger, &["u8[N, 1, 3, 3]", "u8[2, 1, 2, 2]"], &pads, 1), "i32[N, 2, 4, 4]");
    assert_eq!(ok(Opcode::ConvInteger, &["u8[*]", "u8[*]"], &[], 1), "i32[*]");
    err(Opcode::ConvInteger, &["u8[1, 3, 3, 3]", "u8[2, 2, 2, 2]"], &[], 1, "channels");
    err(Opcode::ConvInteger, &["u8[1, 3]", "u8[2, 3]"], &[], 1, "rank ≥ 3");
    let ops = ["u8[1, 4, 5, 5]", "f32[]", "u8[]", "i8[6, 2, 3, 3]", "f32[6]", "i8[6]", "f32[]", "i8[]", "i32[6]"];
    let a = [("group", Attr::Int(2)), ("strides", Attr::Ints(vec![2, 2]))];
    assert_eq!(ok(Opcode::QLinearConv, &ops, &a, 1), "i8[1, 6, 2, 2]");
    let mut bad = ops;
    bad[8] = "i32[5]";
    err(Opcode::QLinearConv, &bad, &a, 1, "B i32[5] must have shape [6]");
    bad[8] = "f32[6]";
    err(Opcode::QLinearConv, &bad, &a, 1, "B has element type f32");
    bad[8] = "";
    bad[4] = "f16[6]";
    err(Opcode::QLinearConv, &bad, &a, 1, "w_scale has element type f16");
}

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
