//! Fused activations, convolution, GEMM and MatMul: each becomes the standard
//! op followed by its activation, in the order ORT's kernel applies them.

use super::{activation, copy_attrs, float_attr, floats_attr, int_attr, op, op1, rank, str_attr, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx};
use ir::{Attr, Attrs, Opcode};

/// Conv attributes shared by `FusedConv` and `onnx.Conv`.
const CONV_ATTRS: &[&str] = &["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];

/// `FusedConv(X, W, B?, Z?)` → `act(Conv(X, W, B) + Z)`.
pub(super) fn fused_conv(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, w) = (ins.req(0, "X")?, ins.req(1, "W")?);
    let attrs = copy_attrs(cx, CONV_ATTRS, Attrs::new());
    let mut y = op(cx, Opcode::Conv, vec![Some(x), Some(w), ins.opt(2)], attrs)?;
    if let Some(z) = ins.opt(3) {
        y = op1(cx, Opcode::Add, &[y, z])?;
    }
    let act = str_attr(cx, "activation", "");
    let params = floats_attr(cx, "activation_params");
    let y = activation(cx, &act, &params, y)?;
    cx.bind(&[y]);
    Ok(())
}

/// `FusedGemm(A, B, C?)` → `act(Gemm(A, B, C))`; the activation's parameters
/// are `activation_alpha`, `activation_beta`, `activation_gamma`.
pub(super) fn fused_gemm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (a, b) = (ins.req(0, "A")?, ins.req(1, "B")?);
    let attrs = copy_attrs(cx, &["alpha", "beta", "transA", "transB"], Attrs::new());
    let y = op(cx, Opcode::Gemm, vec![Some(a), Some(b), ins.opt(2)], attrs)?;
    let act = str_attr(cx, "activation", "");
    let mut params = Vec::new();
    for (name, default) in [("activation_alpha", 0.01), ("activation_beta", 0.5), ("activation_gamma", 0.0)] {
        params.push(float_attr(cx, name, default));
    }
    if act == "HardSigmoid" && cx.attr("activation_alpha").is_none() {
        params[0] = 0.2;
    }
    if act == "Elu" && cx.attr("activation_alpha").is_none() {
        params[0] = 1.0;
    }
    if act == "Clip" {
        return Err("FusedGemm with a Clip activation is not supported".into());
    }
    let y = activation(cx, &act, &params, y)?;
    cx.bind(&[y]);
    Ok(())
}

/// The permutation applying `transBatch` (batch axes first moved behind the
/// leading one: `[1, .., r-2, 0, r-1]`) then `trans` (swap the last two).
fn fused_perm(r: usize, trans: bool, trans_batch: bool) -> Option<Vec<i64>> {
    if r < 2 || (!trans && !trans_batch) {
        return None;
    }
    let r = r as i64;
    let mut p: Vec<i64> = (0..r).collect();
    if trans_batch {
        p = (1..r - 1).chain([0, r - 1]).collect();
    }
    if trans {
        p.swap((r - 2) as usize, (r - 1) as usize);
    }
    Some(p)
}

/// `FusedMatMul(A, B)` (and its older name `TransposeMatMul`) →
/// `alpha * MatMul(op(A), op(B))` with `op` the transposes selected by
/// `transA`/`transB`/`transBatchA`/`transBatchB`.
pub(super) fn fused_matmul(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let mut a = ins.req(0, "A")?;
    let mut b = ins.req(1, "B")?;
    let (ta, tb) = (int_attr(cx, "transA", 0) != 0, int_attr(cx, "transB", 0) != 0);
    let (tba, tbb) = (int_attr(cx, "transBatchA", 0) != 0, int_attr(cx, "transBatchB", 0) != 0);
    let (ra, rb) = (rank(cx, a, "A")?, rank(cx, b, "B")?);
    if (tba && ra < 3) || (tbb && rb < 3) {
        return Err("transBatchA/transBatchB need operands of rank 3 or more".into());
    }
    if let Some(p) = fused_perm(ra, ta, tba) {
        a = op(cx, Opcode::Transpose, vec![Some(a)], Attrs::new().with("perm", Attr::Ints(p)))?;
    }
    if let Some(p) = fused_perm(rb, tb, tbb) {
        b = op(cx, Opcode::Transpose, vec![Some(b)], Attrs::new().with("perm", Attr::Ints(p)))?;
    }
    let mut y = op1(cx, Opcode::MatMul, &[a, b])?;
    let alpha = float_attr(cx, "alpha", 1.0);
    if alpha != 1.0 {
        let dt = super::dtype(cx, y);
        let s = cx.scalar(dt, alpha as f64, "alpha")?;
        y = op1(cx, Opcode::Mul, &[y, s])?;
    }
    cx.bind(&[y]);
    Ok(())
}

/// `Gelu` (erf), `FastGelu` (tanh approximation, optional bias), `BiasGelu`
/// (`Gelu(A + B)`) and `QuickGelu` (`x * sigmoid(alpha * x)`).
pub(super) fn gelu(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let mut x = ins.req(0, "X")?;
    if op_type == "QuickGelu" {
        let alpha = float_attr(cx, "alpha", 1.702);
        let dt = super::dtype(cx, x);
        let a = cx.scalar(dt, alpha as f64, "alpha")?;
        let ax = op1(cx, Opcode::Mul, &[x, a])?;
        let s = op1(cx, Opcode::Sigmoid, &[ax])?;
        let y = op1(cx, Opcode::Mul, &[x, s])?;
        cx.bind(&[y]);
        return Ok(());
    }
    let bias = if op_type == "BiasGelu" { Some(ins.req(1, "B")?) } else { ins.opt(1) };
    if let Some(b) = bias {
        x = op1(cx, Opcode::Add, &[x, b])?;
    }
    let mut attrs = Attrs::new();
    if op_type == "FastGelu" {
        attrs.set("approximate", Attr::Str("tanh".into()));
    }
    let y = op(cx, Opcode::Gelu, vec![Some(x)], attrs)?;
    cx.bind(&[y]);
    Ok(())
}

/// `BiasAdd(X, bias, skip)` → `(X + bias) + skip`.
pub(super) fn bias_add(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, bias, skip) = (ins.req(0, "X")?, ins.req(1, "bias")?, ins.req(2, "skip")?);
    let xb = op1(cx, Opcode::Add, &[x, bias])?;
    let y = op1(cx, Opcode::Add, &[xb, skip])?;
    cx.bind(&[y]);
    Ok(())
}

/// `BiasSplitGelu(X, bias)`: `(a, b) = split(X + bias)` on the last axis,
/// `a * Gelu(b)` (erf).
pub(super) fn bias_split_gelu(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, bias) = (ins.req(0, "X")?, ins.req(1, "bias")?);
    let s = op1(cx, Opcode::Add, &[x, bias])?;
    let halves = Attrs::new().with("axis", Attr::Int(-1)).with("num_outputs", Attr::Int(2));
    let parts = super::op_n(cx, Opcode::Split, vec![Some(s)], halves, 2)?;
    let g = op(cx, Opcode::Gelu, vec![Some(parts[1])], Attrs::new())?;
    let y = op1(cx, Opcode::Mul, &[parts[0], g])?;
    cx.bind(&[y]);
    Ok(())
}

/// `GemmFastGelu(X, W, bias?)` → `FastGelu(MatMul(X, W) + bias)`.
pub(super) fn gemm_fast_gelu(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, w) = (ins.req(0, "X")?, ins.req(1, "W")?);
    let mut y = op1(cx, Opcode::MatMul, &[x, w])?;
    if let Some(b) = ins.opt(2) {
        y = op1(cx, Opcode::Add, &[y, b])?;
    }
    let y = op(cx, Opcode::Gelu, vec![Some(y)], Attrs::new().with("approximate", Attr::Str("tanh".into())))?;
    cx.bind(&[y]);
    Ok(())
}
