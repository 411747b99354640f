//! Attention: `Attention` (packed QKV projection) and `MultiHeadAttention`
//! lower to the standard `onnx.Attention`, their mask forms turned into the
//! additive float mask ORT's CPU kernel builds (`mask.rs`).
//! `BiasSoftmax` is `Softmax(data + bias)` flattened from `axis`.

use super::mask::{build_mask, dim_scalar, i64_scalar, MaskSpec};
use super::{bind_at, float_attr, int_attr, ints_attr, op, op1, op_n, rank, static_dims, wants, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::{Attr, Attrs, Opcode, Value};

fn dim(dims: Option<&[ir::Dim]>, i: usize) -> Option<u64> {
    dims.and_then(|d| d.get(i)).and_then(|d| d.as_static())
}

/// Attributes passed to `onnx.Attention`.
fn attention_attrs(cx: &NodeCx<'_, '_, '_>, heads: Option<i64>) -> Attrs {
    let mut attrs = Attrs::new();
    let scale = float_attr(cx, "scale", 0.0);
    if scale != 0.0 {
        attrs.set("scale", Attr::Float(scale));
    }
    if let Some(n) = heads {
        attrs = attrs.with("q_num_heads", Attr::Int(n)).with("kv_num_heads", Attr::Int(n));
    }
    attrs
}

fn num_heads(cx: &NodeCx<'_, '_, '_>) -> NResult<i64> {
    match cx.attr("num_heads").map(|a| a.i) {
        Some(n) if n > 0 => Ok(n),
        _ => Err("needs a positive `num_heads`".into()),
    }
}

fn reject_unsupported(cx: &NodeCx<'_, '_, '_>, attrs: &[&str]) -> NResult<()> {
    for a in attrs {
        if int_attr(cx, a, 0) != 0 {
            return Err(NodeError::Error(format!("attribute `{a}` = 1 is not supported")));
        }
    }
    Ok(())
}

/// The Q, K, V widths of a packed projection `weights` `[H_in, Dq+Dk+Dv]`.
fn qkv_sizes(cx: &NodeCx<'_, '_, '_>, weights: Value, n: i64) -> NResult<Vec<i64>> {
    let wd = static_dims(cx, weights, "weights")?;
    let total = *wd.get(1).ok_or("`weights` must be 2-D")? as i64;
    let sizes = ints_attr(cx, "qkv_hidden_sizes").unwrap_or_else(|| vec![total / 3; 3]);
    if sizes.len() != 3 || sizes.iter().sum::<i64>() != total || sizes.iter().any(|s| s % n != 0) {
        return Err(NodeError::Error(format!(
            "qkv sizes {sizes:?} do not split {total} into 3 multiples of num_heads"
        )));
    }
    Ok(sizes)
}

/// Inputs of the packed-QKV attentions besides the projection.
struct Packed {
    input: Value,
    qkv: Value,
    sizes: Vec<i64>,
    mask: Option<Value>,
    past: Option<Value>,
    bias: Option<Value>,
}

/// `past` `(2, B, N, P, H)` → `(past_key, past_value)`.
fn split_past(cx: &mut NodeCx<'_, '_, '_>, past: Option<Value>) -> NResult<(Option<Value>, Option<Value>)> {
    let Some(past) = past else { return Ok((None, None)) };
    let ax0 = Attrs::new().with("axis", Attr::Int(0));
    let sq = cx.const_i64s(&[0], "axes");
    let mut kv = Vec::new();
    for i in 0..2 {
        let idx = cx.const_i64s(&[i], "kv");
        let g = op(cx, Opcode::Gather, vec![Some(past), Some(idx)], ax0.clone())?;
        kv.push(Some(op1(cx, Opcode::Squeeze, &[g, sq])?));
    }
    Ok((kv[0], kv[1]))
}

/// Split the projected `qkv`, attend, bind `output` and `present`.
fn packed_attention(cx: &mut NodeCx<'_, '_, '_>, p: Packed, n: i64) -> NResult<()> {
    let split = cx.const_i64s(&p.sizes, "split");
    let parts = op_n(cx, Opcode::Split, vec![Some(p.qkv), Some(split)], Attrs::new().with("axis", Attr::Int(-1)), 3)?;
    let (past_k, past_v) = split_past(cx, p.past)?;
    let seq = dim_scalar(cx, p.input, 1)?;
    let past = match p.past {
        Some(pv) => dim_scalar(cx, pv, 3)?,
        None => i64_scalar(cx, 0),
    };
    let total = op1(cx, Opcode::Add, &[seq, past])?;
    let spec = MaskSpec {
        mask: p.mask,
        bias: p.bias,
        causal: int_attr(cx, "unidirectional", 0) != 0,
        batch: cx.ty(p.input).dims().and_then(|d| d.first().copied()),
        seq,
        past,
        total,
        filter: float_attr(cx, "mask_filter_value", -10000.0),
    };
    let mask = build_mask(cx, &spec)?;
    let present = wants(cx, 1);
    let operands = vec![Some(parts[0]), Some(parts[1]), Some(parts[2]), mask, past_k, past_v];
    let outs = op_n(cx, Opcode::Attention, operands, attention_attrs(cx, Some(n)), if present { 3 } else { 1 })?;
    bind_at(cx, 0, outs[0]);
    if present {
        let ax = cx.const_i64s(&[0], "axes");
        let k = op1(cx, Opcode::Unsqueeze, &[outs[1], ax])?;
        let v = op1(cx, Opcode::Unsqueeze, &[outs[2], ax])?;
        let p = op(cx, Opcode::Concat, vec![Some(k), Some(v)], Attrs::new().with("axis", Attr::Int(0)))?;
        bind_at(cx, 1, p);
    }
    Ok(())
}

/// `Attention(input, weights, bias?, mask_index?, past?, attention_bias?)`.
pub(super) fn attention(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    reject_unsupported(cx, &["do_rotary", "past_present_share_buffer"])?;
    if ins.opt(6).is_some() {
        return Err("input `past_sequence_length` is not supported".into());
    }
    let n = num_heads(cx)?;
    let (input, weights) = (ins.req(0, "input")?, ins.req(1, "weights")?);
    let sizes = qkv_sizes(cx, weights, n)?;
    let mut qkv = op1(cx, Opcode::MatMul, &[input, weights])?;
    if let Some(b) = ins.opt(2) {
        qkv = op1(cx, Opcode::Add, &[qkv, b])?;
    }
    let p = Packed { input, qkv, sizes, mask: ins.opt(3), past: ins.opt(4), bias: ins.opt(5) };
    packed_attention(cx, p, n)
}

/// `QAttention(input, weight, bias, input_scale, weight_scale, mask_index?,
/// input_zero_point?, weight_zero_point?, past?)`: the projection is
/// `float(MatMulInteger(input, weight)) * (input_scale * weight_scale) + bias`
/// (ORT's int32 GEMM and scale-bias output stage), the rest as `Attention`.
pub(super) fn q_attention(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    reject_unsupported(cx, &["do_rotary", "past_present_share_buffer"])?;
    let n = num_heads(cx)?;
    let (input, weights, bias) = (ins.req(0, "input")?, ins.req(1, "weight")?, ins.req(2, "bias")?);
    let (is, ws) = (ins.req(3, "input_scale")?, ins.req(4, "weight_scale")?);
    let sizes = qkv_sizes(cx, weights, n)?;
    let operands = vec![Some(input), Some(weights), ins.opt(6), ins.opt(7)];
    let acc = op(cx, Opcode::MatMulInteger, operands, Attrs::new())?;
    let f = super::cast(cx, acc, ir::DType::F32)?;
    let scale = op1(cx, Opcode::Mul, &[is, ws])?;
    let scaled = op1(cx, Opcode::Mul, &[f, scale])?;
    let qkv = op1(cx, Opcode::Add, &[scaled, bias])?;
    let p = Packed { input, qkv, sizes, mask: ins.opt(5), past: ins.opt(8), bias: None };
    packed_attention(cx, p, n)
}

/// `(B, S, N*H)` → `(B, N, S, H)`.
fn to_bnsh(cx: &mut NodeCx<'_, '_, '_>, x: Value, n: i64) -> NResult<Value> {
    let x = super::reshape(cx, x, &[0, 0, n, -1])?;
    super::transpose(cx, x, &[0, 2, 1, 3])
}

/// Slice `[start, end)` of the last axis.
fn last_axis_slice(cx: &mut NodeCx<'_, '_, '_>, x: Value, start: i64, end: i64) -> NResult<Value> {
    let (s, e, a) = (cx.const_i64s(&[start], "starts"), cx.const_i64s(&[end], "ends"), cx.const_i64s(&[-1], "axes"));
    op1(cx, Opcode::Slice, &[x, s, e, a])
}

/// `q + bias[..Dq]`, `k + bias[Dq..Dq+Dk]`, `v + bias[Dq+Dk..]` (3-D inputs).
fn add_qkv_bias(
    cx: &mut NodeCx<'_, '_, '_>,
    bias: Value,
    q: Value,
    k: Value,
    v: Value,
) -> NResult<(Value, Value, Value)> {
    let dq = dim(cx.ty(q).dims(), 2).ok_or("query needs a static hidden size")? as i64;
    let dk = dim(cx.ty(k).dims(), 2).ok_or("key needs a static hidden size")? as i64;
    let dv = dim(cx.ty(v).dims(), 2).ok_or("value needs a static hidden size")? as i64;
    let bq = last_axis_slice(cx, bias, 0, dq)?;
    let bk = last_axis_slice(cx, bias, dq, dq + dk)?;
    let bv = last_axis_slice(cx, bias, dq + dk, dq + dk + dv)?;
    Ok((op1(cx, Opcode::Add, &[q, bq])?, op1(cx, Opcode::Add, &[k, bk])?, op1(cx, Opcode::Add, &[v, bv])?))
}

/// `MultiHeadAttention(query, key, value, bias?, key_padding_mask?,
/// attention_bias?, past_key?, past_value?)` with 3-D query and 3-D or
/// BNSH key/value (packed QKV/KV forms are rejected).
pub(super) fn multi_head_attention(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    if ins.opt(8).is_some() || ins.opt(9).is_some() {
        return Err("inputs `past_sequence_length` / `cache_indirection` are not supported".into());
    }
    if wants(cx, 3) {
        return Err("output `qk` is not supported".into());
    }
    let n = num_heads(cx)?;
    let q = ins.req(0, "query")?;
    let (k, v) = match (ins.opt(1), ins.opt(2)) {
        (Some(k), Some(v)) => (k, v),
        _ => return Err("packed QKV (no key/value inputs) is not supported".into()),
    };
    if rank(cx, q, "query")? != 3 {
        return Err("query must be 3-D (B, S, D)".into());
    }
    let kr = rank(cx, k, "key")?;
    let (q, k, v) = match ins.opt(3) {
        Some(_) if kr != 3 => return Err("`bias` with BNSH key/value is not supported".into()),
        Some(bias) => add_qkv_bias(cx, bias, q, k, v)?,
        None => (q, k, v),
    };
    let q4 = to_bnsh(cx, q, n)?;
    let (k4, v4) = match kr {
        3 => (to_bnsh(cx, k, n)?, to_bnsh(cx, v, n)?),
        4 => (k, v),
        _ => return Err("packed KV (5-D key) is not supported".into()),
    };
    let (pk, pv) = (ins.opt(6), ins.opt(7));
    let past = match pk {
        Some(p) => dim_scalar(cx, p, 2)?,
        None => i64_scalar(cx, 0),
    };
    let seq = dim_scalar(cx, q, 1)?;
    let kv_len = dim_scalar(cx, k4, 2)?;
    let total = op1(cx, Opcode::Add, &[kv_len, past])?;
    let spec = MaskSpec {
        mask: ins.opt(4),
        bias: ins.opt(5),
        causal: int_attr(cx, "unidirectional", 0) != 0,
        batch: cx.ty(q).dims().and_then(|d| d.first().copied()),
        seq,
        past,
        total,
        filter: float_attr(cx, "mask_filter_value", -10000.0),
    };
    let mask = build_mask(cx, &spec)?;
    let present = wants(cx, 1) || wants(cx, 2);
    let operands = vec![Some(q4), Some(k4), Some(v4), mask, pk, pv];
    let outs = op_n(cx, Opcode::Attention, operands, attention_attrs(cx, None), if present { 3 } else { 1 })?;
    let y = super::transpose(cx, outs[0], &[0, 2, 1, 3])?;
    let y = super::reshape(cx, y, &[0, 0, -1])?;
    bind_at(cx, 0, y);
    if present {
        bind_at(cx, 1, outs[1]);
        bind_at(cx, 2, outs[2]);
    }
    Ok(())
}

/// `BiasSoftmax(data, bias)`: softmax of `data + bias` over the axes from
/// `axis` on (flattened, as ORT's kernel does). The bias broadcasts as in
/// numpy (aligned to the trailing axes) whatever `is_inner_broadcast` says:
/// the attribute only tells ORT's CUDA kernel which fast path applies.
pub(super) fn bias_softmax(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, b) = (ins.req(0, "data")?, ins.req(1, "bias")?);
    let r = rank(cx, x, "data")? as i64;
    let axis = int_attr(cx, "axis", 1);
    let axis = if axis < 0 { axis + r } else { axis };
    let s = op1(cx, Opcode::Add, &[x, b])?;
    let y = if axis == r - 1 {
        op(cx, Opcode::Softmax, vec![Some(s)], Attrs::new().with("axis", Attr::Int(-1)))?
    } else {
        let shape = op1(cx, Opcode::Shape, &[s])?;
        let flat = op(cx, Opcode::Flatten, vec![Some(s)], Attrs::new().with("axis", Attr::Int(axis)))?;
        let sm = op(cx, Opcode::Softmax, vec![Some(flat)], Attrs::new().with("axis", Attr::Int(1)))?;
        op1(cx, Opcode::Reshape, &[sm, shape])?
    };
    cx.bind(&[y]);
    Ok(())
}
