//! Smaller contrib ops: older aliases and variants of standard ops
//! (`TransposeMatMul`, `ExpandDims`, `Pad`, `GatherND`, `Unique`,
//! `MatMulInteger16`), `CDist`, and the quantized embedding ops
//! (`QEmbedLayerNormalization`, `GatherBlockQuantized`) whose tables are
//! dequantized (folded for initializers) before the float op.

use super::norm::{embed, Embed};
use super::{cast, dequantize, dtype, int_attr, op, op1, op_n, rank, str_attr, wants, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::{Attr, Attrs, DType, Opcode, Value};

/// `ExpandDims(X, axis)` → `Unsqueeze(X, [axis])`.
pub(super) fn expand_dims(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, axis) = (ins.req(0, "X")?, ins.req(1, "axis")?);
    let axis = cast(cx, axis, DType::I64)?;
    let axes = super::reshape(cx, axis, &[1])?;
    let y = op1(cx, Opcode::Unsqueeze, &[x, axes])?;
    cx.bind(&[y]);
    Ok(())
}

/// `Pad(data, pads, value?)` (pads `[2r]` or `[1, 2r]`, value scalar or
/// `[1]`) → `onnx.Pad`.
pub(super) fn pad(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, pads) = (ins.req(0, "data")?, ins.req(1, "pads")?);
    let pads = super::reshape(cx, pads, &[-1])?;
    let value = match ins.opt(2) {
        Some(v) => Some(super::reshape(cx, v, &[])?),
        None => None,
    };
    let mode = str_attr(cx, "mode", "constant");
    if !matches!(mode.as_str(), "constant" | "reflect" | "edge") {
        return Err(NodeError::Error(format!("Pad mode `{mode}` is not supported")));
    }
    let attrs = Attrs::new().with("mode", Attr::Str(mode));
    let y = op(cx, Opcode::Pad, vec![Some(x), Some(pads), value], attrs)?;
    cx.bind(&[y]);
    Ok(())
}

/// `GatherND(data, indices)` (int32 or int64 indices) → `onnx.GatherND`.
pub(super) fn gather_nd(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, idx) = (ins.req(0, "data")?, ins.req(1, "indices")?);
    let idx = if dtype(cx, idx) == DType::I64 { idx } else { cast(cx, idx, DType::I64)? };
    let y = op1(cx, Opcode::GatherND, &[x, idx])?;
    cx.bind(&[y]);
    Ok(())
}

/// `Unique(x)` → `y, idx, counts` of `onnx.Unique(sorted = 0)` (values in
/// order of first occurrence, `idx` the inverse indices).
pub(super) fn unique(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let x = ins.req(0, "x")?;
    let attrs = Attrs::new().with("sorted", Attr::Int(0));
    let outs = op_n(cx, Opcode::Unique, vec![Some(x)], attrs, 4)?;
    super::bind_at(cx, 0, outs[0]);
    super::bind_at(cx, 1, outs[2]);
    super::bind_at(cx, 2, outs[3]);
    Ok(())
}

/// `MatMulInteger16(A, B)` (int16/uint16) → int32 `MatMul` of the widened
/// operands (exact: products fit, sums accumulate in int32 as ORT's do).
pub(super) fn matmul_integer16(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let a = cast(cx, ins.req(0, "A")?, DType::I32)?;
    let b = cast(cx, ins.req(1, "B")?, DType::I32)?;
    let y = op1(cx, Opcode::MatMul, &[a, b])?;
    cx.bind(&[y]);
    Ok(())
}

/// `CDist(A, B)` `[M, K] × [N, K]` → `[M, N]` squared (`sqeuclidean`) or
/// plain (`euclidean`) distances, from the differences.
pub(super) fn cdist(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (a, b) = (ins.req(0, "A")?, ins.req(1, "B")?);
    if rank(cx, a, "A")? != 2 || rank(cx, b, "B")? != 2 {
        return Err("CDist needs 2-D operands".into());
    }
    let metric = str_attr(cx, "metric", "sqeuclidean");
    let (ax1, ax0) = (cx.const_i64s(&[1], "axes"), cx.const_i64s(&[0], "axes"));
    let a3 = op1(cx, Opcode::Unsqueeze, &[a, ax1])?;
    let b3 = op1(cx, Opcode::Unsqueeze, &[b, ax0])?;
    let d = op1(cx, Opcode::Sub, &[a3, b3])?;
    let sq = op1(cx, Opcode::Mul, &[d, d])?;
    let last = cx.const_i64s(&[-1], "axes");
    let keep0 = Attrs::new().with("keepdims", Attr::Int(0));
    let s = op(cx, Opcode::ReduceSum, vec![Some(sq), Some(last)], keep0)?;
    let y = match metric.as_str() {
        "sqeuclidean" => s,
        "euclidean" => op1(cx, Opcode::Sqrt, &[s])?,
        other => return Err(NodeError::Error(format!("CDist metric `{other}` is not supported"))),
    };
    cx.bind(&[y]);
    Ok(())
}

/// Dequantize input `i` with the scale at `i + 6` and zero point at `i + 11`.
fn dq_table(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, i: usize, name: &str) -> NResult<Value> {
    let x = ins.req(i, name)?;
    let scale = ins.req(i + 6, &format!("{name}_scale"))?;
    dequantize(cx, x, scale, ins.opt(i + 11))
}

/// `QEmbedLayerNormalization`: every table (and gamma, beta) dequantized,
/// then `EmbedLayerNormalization`. Outputs `layernorm_out`, `mask_index_out`.
pub(super) fn q_embed_layer_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let segment = match ins.opt(4) {
        Some(_) => Some(dq_table(cx, ins, 4, "segment_embedding")?),
        None => None,
    };
    let e = Embed {
        ids: ins.req(0, "input_ids")?,
        segment_ids: ins.opt(1),
        word: dq_table(cx, ins, 2, "word_embedding")?,
        position: dq_table(cx, ins, 3, "position_embedding")?,
        segment,
        gamma: dq_table(cx, ins, 5, "gamma")?,
        beta: dq_table(cx, ins, 6, "beta")?,
        mask: ins.opt(7),
        position_ids: None,
    };
    if wants(cx, 2) {
        return Err("QEmbedLayerNormalization has two outputs".into());
    }
    embed(cx, e)
}

/// `GatherBlockQuantized(data, indices, scales, zero_points?)` for uint8
/// data (4-bit packed, low nibble first, or 8-bit) quantized in blocks along
/// the last axis and gathered along axis 0: the table is dequantized
/// (`(q - zp) * scale` per block; zp defaults to 8 for 4-bit, 128 for 8-bit
/// unsigned storage), then gathered.
pub(super) fn gather_block_quantized(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (data, idx, scales) = (ins.req(0, "data")?, ins.req(1, "indices")?, ins.req(2, "scales")?);
    let bits = int_attr(cx, "bits", 4);
    let block = int_attr(cx, "block_size", 128);
    let r = rank(cx, data, "data")? as i64;
    let qaxis = int_attr(cx, "quantize_axis", 1);
    if dtype(cx, data) != DType::U8 || (bits != 4 && bits != 8) || int_attr(cx, "gather_axis", 0) != 0 {
        return Err("GatherBlockQuantized is supported for uint8 data (4/8-bit), gather_axis 0".into());
    }
    if r != 2 || !(qaxis == 1 || qaxis == -1) || !(1..=1 << 20).contains(&block) {
        return Err("GatherBlockQuantized needs 2-D data quantized along the last axis".into());
    }
    let dims = super::static_dims(cx, data, "data")?;
    let (rows, packed) = (dims[0] as i64, dims[1] as i64);
    let k = packed * (8 / bits);
    if k % block != 0 {
        return Err(NodeError::Error(format!("row length {k} is not a multiple of block_size {block}")));
    }
    let nb = k / block;
    let bl = super::nbits::blocks(cx, data, scales, ins.opt(3), bits, [rows, nb, block])?;
    let w = super::nbits::dequantized(cx, &bl, rows, k)?;
    let sd = dtype(cx, scales);
    let w = if sd == DType::F32 { w } else { cast(cx, w, sd)? };
    let y = op(cx, Opcode::Gather, vec![Some(w), Some(idx)], Attrs::new().with("axis", Attr::Int(0)))?;
    cx.bind(&[y]);
    Ok(())
}
