//! Shape inference of the loss-family ops: symbolic dims pass through where the
//! output dim equals an input dim, everything else unknowable is `?`.

use super::*;
use ir::ops::InferCtx;
use ir::{Constant, Dim, Shape, Symbol, TensorType};

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

/// Inferred result types as strings (operands `""` are omitted); `consts` gives
/// constant 1-D i64 contents of some operands by position.
fn infer_c(
    op: Opcode,
    operands: &[&str],
    consts: &[(usize, &[i64])],
    list: &[(&str, Attr)],
    n: usize,
) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let ks: Vec<Option<Constant>> = (0..operands.len())
        .map(|i| consts.iter().find(|c| c.0 == i).map(|c| Constant::from_i64s("k", &[c.1.len() as u64], c.1)))
        .collect();
    let krefs: Vec<Option<&Constant>> = ks.iter().map(Option::as_ref).collect();
    let a = attrs(list);
    let ctx = InferCtx { operands: &refs, consts: &krefs, attrs: &a, num_results: n, attr_const: None };
    Ok((op.def().infer)(&ctx)?.iter().map(ToString::to_string).collect())
}

fn infer(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> Result<Vec<String>, String> {
    infer_c(op, operands, &[], list, n)
}

fn one(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name())).remove(0)
}

fn err(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).expect_err("inference should fail")
}

#[test]
fn loss_shapes() {
    let nll = Opcode::NegativeLogLikelihoodLoss;
    let none = [("reduction", s("none"))];
    assert_eq!(one(nll, &["f32[N, 5, d]", "i64[N, ?]", "f32[5]"], &none), "f32[N, d]");
    assert_eq!(one(nll, &["f16[N, 5]", "i32[*]", ""], &[]), "f16[]");
    assert_eq!(one(nll, &["f32[*]", "i64[N, 3]", ""], &none), "f32[N, 3]");
    assert_eq!(one(nll, &["f64[2, C, 4]", "i64[*]", ""], &none), "f64[2, 4]");
    assert!(err(nll, &["f32[2, 5, 3]", "i64[2, 4]", ""], &none).contains("disagree"));
    assert!(err(nll, &["f32[2, 5, 3]", "i64[2]", ""], &none).contains("rank"));
    assert!(err(nll, &["f32[2, 5]", "i64[2]", "f32[4]"], &[]).contains("weight"));
    assert!(err(nll, &["f32[2, 5]", "f32[2]", ""], &[]).contains("i32 or i64"));
    assert!(err(nll, &["i64[2, 5]", "i64[2]", ""], &[]).contains("float"));
    let sce = Opcode::SoftmaxCrossEntropyLoss;
    let out = infer(sce, &["bf16[B, 3, s]", "i64[B, s]", ""], &none, 2).unwrap();
    assert_eq!(out, ["bf16[B, s]", "bf16[B, 3, s]"]);
    assert_eq!(infer(sce, &["f32[B, 3]", "i64[B]", ""], &[], 1).unwrap(), ["f32[]"]);
}

#[test]
fn cum_prod_and_swish_shapes() {
    assert_eq!(one(Opcode::CumProd, &["i32[N, 3]", "i64[]"], &[]), "i32[N, 3]");
    assert!(err(Opcode::CumProd, &["bool[2]", "i64[]"], &[]).contains("numeric"));
    assert_eq!(one(Opcode::Swish, &["f16[N, ?]"], &[]), "f16[N, ?]");
    assert!(err(Opcode::Swish, &["i32[2]"], &[]).contains("float"));
}

#[test]
fn affine_grid_shapes() {
    let ag = Opcode::AffineGrid;
    let out = infer_c(ag, &["f32[N, 2, 3]", "i64[4]"], &[(1, &[2, 3, 5, 6])], &[], 1).unwrap();
    assert_eq!(out, ["f32[2, 5, 6, 2]"]);
    let out = infer_c(ag, &["f64[N, 3, 4]", "i64[5]"], &[], &[], 1).unwrap();
    assert_eq!(out, ["f64[N, ?, ?, ?, 3]"]);
    let out = infer_c(ag, &["f32[N, 2, 3]", "i64[?]"], &[], &[], 1).unwrap();
    assert_eq!(out, ["f32[N, ?, ?, 2]"]);
    let e = infer_c(ag, &["f32[N, 2, 3]", "i64[5]"], &[], &[], 1).unwrap_err();
    assert!(e.contains("theta"), "{e}");
    let e = infer_c(ag, &["f32[3, 2, 3]", "i64[4]"], &[(1, &[2, 3, 5, 6])], &[], 1).unwrap_err();
    assert!(e.contains("disagree"), "{e}");
    assert!(infer_c(ag, &["f32[N, 2, 3]", "i64[6]"], &[], &[], 1).is_err());
}

#[test]
fn deform_conv_shapes() {
    let dc = Opcode::DeformConv;
    let k = [("kernel_shape", Attr::Ints(vec![2, 2]))];
    let out = one(dc, &["f32[N, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[N, 8, ?, 4]", "f32[4]", "f32[N, 4, 4, ?]"], &k);
    assert_eq!(out, "f32[N, 4, 4, 4]");
    assert_eq!(one(dc, &["f32[*]", "f32[*]", "f32[*]", "", ""], &k), "f32[?, ?, ?, ?]");
    assert_eq!(one(dc, &["f32[*]", "f32[*]", "f32[*]", "", ""], &[]), "f32[*]");
    let g = [("group", int(2)), ("offset_group", int(2))];
    assert_eq!(one(dc, &["f64[1, 4, h, w]", "f64[6, 2, 3, 3]", "f64[1, 36, ?, ?]", "", ""], &g), "f64[1, 6, ?, ?]");
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 6, 4, 4]", "", ""], &[]).contains("offset"));
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 3, 4]", "", ""], &[]).contains("offset"));
    assert!(err(dc, &["f32[1, 3, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", ""], &[]).contains("channels"));
    let bad_mask = ["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", "f32[1, 8, 4, 4]"];
    assert!(err(dc, &bad_mask, &[]).contains("mask"));
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f16[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", ""], &[]).contains("element type"));
}

#[test]
fn tensor_scatter_shapes() {
    let ts = Opcode::TensorScatter;
    assert_eq!(one(ts, &["f32[B, 2, 8, ?]", "f32[?, 2, s, 4]", "i64[B]"], &[]), "f32[B, 2, 8, 4]");
    assert_eq!(one(ts, &["string[B, 8]", "string[B, 1]", ""], &[("axis", int(1))]), "string[B, 8]");
    assert!(err(ts, &["f32[B, 8]", "f32[B, 1]", ""], &[]).contains("batch axis"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 5, 3]", ""], &[("axis", int(1))]).contains("does not fit"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 2]", ""], &[("axis", int(1))]).contains("does not fit"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 3]", "i32[2]"], &[("axis", int(1))]).contains("i64"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 3]", "i64[3]"], &[("axis", int(1))]).contains("batch"));
}

#[test]
fn split_uneven_shapes() {
    let out = infer(Opcode::Split, &["f32[5, s]", ""], &[("num_outputs", int(4))], 4).unwrap();
    assert_eq!(out, ["f32[2, s]", "f32[2, s]", "f32[1, s]", "f32[0, s]"]);
    let out = infer(Opcode::Split, &["f32[7]", ""], &[("num_outputs", int(3))], 3).unwrap();
    assert_eq!(out, ["f32[3]", "f32[3]", "f32[1]"]);
}
