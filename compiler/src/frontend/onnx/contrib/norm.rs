//! Normalizations: onnxruntime's LayerNormalization alias, the RMS
//! ("simplified") forms, the skip-connection fusions and BERT's embedding
//! layer. Epsilon defaults follow ORT's schemas: 1e-5 for
//! (Simplified)LayerNormalization, 1e-12 for the Skip*/Embed* fusions.

use super::{bind_at, cast, dtype, float_attr, int_attr, op, op1, op_n, rank, wants, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx};
use ir::{Attr, Attrs, DType, Opcode, Value};

/// Epsilon default of the Skip*/EmbedLayerNormalization schemas.
const FUSED_EPSILON: f32 = 1e-12;

/// `LayerNormalization` (com.microsoft alias of the standard op).
pub(super) fn layer_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let operands = vec![Some(ins.req(0, "X")?), Some(ins.req(1, "Scale")?), ins.opt(2)];
    cx.emit_with(Opcode::LayerNormalization, operands, &[], Attrs::new())
}

/// `1 / sqrt(mean(x², axes [axis, rank)) + epsilon)` in f32, dims kept.
fn inv_rms(cx: &mut NodeCx<'_, '_, '_>, x: Value, axis: i64, epsilon: f32) -> NResult<Value> {
    let r = rank(cx, x, "X")? as i64;
    let axis = if axis < 0 { axis + r } else { axis };
    let x = if dtype(cx, x) == DType::F32 { x } else { cast(cx, x, DType::F32)? };
    let sq = op1(cx, Opcode::Mul, &[x, x])?;
    let axes: Vec<i64> = (axis..r).collect();
    let axes = cx.const_i64s(&axes, "axes");
    let mean = op(cx, Opcode::ReduceMean, vec![Some(sq), Some(axes)], Attrs::new().with("keepdims", Attr::Int(1)))?;
    let eps = super::f32_const(cx, epsilon, "epsilon");
    let var = op1(cx, Opcode::Add, &[mean, eps])?;
    let sd = op1(cx, Opcode::Sqrt, &[var])?;
    op1(cx, Opcode::Reciprocal, &[sd])
}

/// `RMSNormalization(x, scale)` over `[axis, rank)`.
fn rms(cx: &mut NodeCx<'_, '_, '_>, x: Value, scale: Value, axis: i64, epsilon: f32, stash: i64) -> NResult<Value> {
    let attrs = Attrs::new()
        .with("axis", Attr::Int(axis))
        .with("epsilon", Attr::Float(epsilon))
        .with("stash_type", Attr::Int(stash));
    op(cx, Opcode::RMSNormalization, vec![Some(x), Some(scale)], attrs)
}

/// `SimplifiedLayerNormalization(X, scale)` → `RMSNormalization`; the
/// optional `inv_std_var` output is computed beside it.
pub(super) fn simplified_layer_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (x, scale) = (ins.req(0, "X")?, ins.req(1, "scale")?);
    let axis = int_attr(cx, "axis", -1);
    let epsilon = float_attr(cx, "epsilon", 1e-5);
    let y = rms(cx, x, scale, axis, epsilon, int_attr(cx, "stash_type", 1))?;
    bind_at(cx, 0, y);
    if wants(cx, 1) {
        let inv = inv_rms(cx, x, axis, epsilon)?;
        bind_at(cx, 1, inv);
    }
    Ok(())
}

/// `SkipLayerNormalization(input, skip, gamma, beta?, bias?)` and
/// `SkipSimplifiedLayerNormalization(input, skip, gamma, bias?)`: normalize
/// `(input + skip) + bias` over the last axis. Outputs: `output`, `mean`,
/// `inv_std_var`, `input_skip_bias_sum`.
pub(super) fn skip_layer_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let simplified = op_type == "SkipSimplifiedLayerNormalization";
    let (x, skip, gamma) = (ins.req(0, "input")?, ins.req(1, "skip")?, ins.req(2, "gamma")?);
    let (beta, bias) = if simplified { (None, ins.opt(3)) } else { (ins.opt(3), ins.opt(4)) };
    let mut s = op1(cx, Opcode::Add, &[x, skip])?;
    if let Some(b) = bias {
        s = op1(cx, Opcode::Add, &[s, b])?;
    }
    let epsilon = float_attr(cx, "epsilon", FUSED_EPSILON);
    if simplified {
        if wants(cx, 1) {
            return Err("output `mean` of SkipSimplifiedLayerNormalization is not supported".into());
        }
        let y = rms(cx, s, gamma, -1, epsilon, 1)?;
        bind_at(cx, 0, y);
        if wants(cx, 2) {
            let inv = inv_rms(cx, s, -1, epsilon)?;
            bind_at(cx, 2, inv);
        }
    } else {
        let attrs = Attrs::new().with("axis", Attr::Int(-1)).with("epsilon", Attr::Float(epsilon));
        let n = if wants(cx, 2) {
            3
        } else if wants(cx, 1) {
            2
        } else {
            1
        };
        let outs = op_n(cx, Opcode::LayerNormalization, vec![Some(s), Some(gamma), beta], attrs, n)?;
        for (i, &v) in outs.iter().enumerate() {
            bind_at(cx, i, v);
        }
    }
    bind_at(cx, 3, s);
    Ok(())
}

/// The operands of an embedding layer, tables already in float.
pub(super) struct Embed {
    pub(super) ids: Value,
    pub(super) segment_ids: Option<Value>,
    pub(super) word: Value,
    pub(super) position: Value,
    pub(super) segment: Option<Value>,
    pub(super) gamma: Value,
    pub(super) beta: Value,
    pub(super) mask: Option<Value>,
    pub(super) position_ids: Option<Value>,
}

/// `EmbedLayerNormalization(input_ids, segment_ids?, word_embedding,
/// position_embedding, segment_embedding?, gamma, beta, mask?, position_ids?)`.
pub(super) fn embed_layer_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let e = Embed {
        ids: ins.req(0, "input_ids")?,
        segment_ids: ins.opt(1),
        word: ins.req(2, "word_embedding")?,
        position: ins.req(3, "position_embedding")?,
        segment: ins.opt(4),
        gamma: ins.req(5, "gamma")?,
        beta: ins.req(6, "beta")?,
        mask: ins.opt(7),
        position_ids: ins.opt(8),
    };
    embed(cx, e)
}

/// `LayerNorm((word[ids] + position[pos]) + segment[seg])` with positions
/// `0..S` unless given (output 0); `mask_index[b]` counts the ones in
/// `mask[b]` (output 1); the sum before normalization (output 2).
pub(super) fn embed(cx: &mut NodeCx<'_, '_, '_>, e: Embed) -> NResult<()> {
    let gather = |cx: &mut NodeCx<'_, '_, '_>, table: Value, idx: Value| {
        op(cx, Opcode::Gather, vec![Some(table), Some(idx)], Attrs::new().with("axis", Attr::Int(0)))
    };
    let w = gather(cx, e.word, e.ids)?;
    let p = match e.position_ids {
        Some(pid) => gather(cx, e.position, pid)?,
        None => {
            // position_embedding[0..S]
            let shape = op1(cx, Opcode::Shape, &[e.ids])?;
            let (one, two, zero) =
                (cx.const_i64s(&[1], "one"), cx.const_i64s(&[2], "two"), cx.const_i64s(&[0], "zero"));
            let s = op1(cx, Opcode::Slice, &[shape, one, two])?;
            op1(cx, Opcode::Slice, &[e.position, zero, s, zero])?
        }
    };
    let mut sum = op1(cx, Opcode::Add, &[w, p])?;
    if let (Some(seg_ids), Some(seg)) = (e.segment_ids, e.segment) {
        let g = gather(cx, seg, seg_ids)?;
        sum = op1(cx, Opcode::Add, &[sum, g])?;
    }
    let epsilon = float_attr(cx, "epsilon", FUSED_EPSILON);
    let attrs = Attrs::new().with("axis", Attr::Int(-1)).with("epsilon", Attr::Float(epsilon));
    let y = op(cx, Opcode::LayerNormalization, vec![Some(sum), Some(e.gamma), Some(e.beta)], attrs)?;
    bind_at(cx, 0, y);
    if wants(cx, 1) {
        let idx = mask_index(cx, e.mask, e.ids)?;
        bind_at(cx, 1, idx);
    }
    bind_at(cx, 2, sum);
    Ok(())
}

/// `mask_index[b] = count(mask[b, :] == 1)` (int32); zeros without a mask.
fn mask_index(cx: &mut NodeCx<'_, '_, '_>, mask: Option<Value>, ids: Value) -> NResult<Value> {
    let axes = cx.const_i64s(&[1], "axes");
    let keep0 = Attrs::new().with("keepdims", Attr::Int(0));
    let Some(m) = mask else {
        let zero = cx_zero(cx, ids)?;
        let zeros = op1(cx, Opcode::Mul, &[ids, zero])?;
        let zeros = cast(cx, zeros, DType::I32)?;
        return op(cx, Opcode::ReduceSum, vec![Some(zeros), Some(axes)], keep0);
    };
    let one = cx.scalar(dtype(cx, m), 1.0, "one")?;
    let eq = op1(cx, Opcode::Equal, &[m, one])?;
    let ones = cast(cx, eq, DType::I32)?;
    op(cx, Opcode::ReduceSum, vec![Some(ones), Some(axes)], keep0)
}

fn cx_zero(cx: &mut NodeCx<'_, '_, '_>, like: Value) -> NResult<Value> {
    let dt = dtype(cx, like);
    cx.scalar(dt, 0.0, "zero")
}

/// `RotaryEmbedding(input, position_ids, cos_cache, sin_cache)` (com.microsoft)
/// → `onnx.RotaryEmbedding(input, cos_cache, sin_cache, position_ids)`; a
/// one-element `position_ids` is the offset of positions `0..S`, expanded to
/// `[B, S]`.
pub(super) fn rotary_embedding(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    if int_attr(cx, "is_packed_batching", 0) != 0 || float_attr(cx, "scale", 1.0) != 1.0 {
        return Err("attributes `is_packed_batching` and `scale` != 1 are not supported".into());
    }
    let x = ins.req(0, "input")?;
    let (mut pos, cos, sin) = (ins.req(1, "position_ids")?, ins.req(2, "cos_cache")?, ins.req(3, "sin_cache")?);
    if cx.ty(pos).shape.num_elements() == Some(1) && rank(cx, pos, "position_ids")? <= 1 {
        let r = rank(cx, x, "input")?;
        let s = cx.ty(x).dims().and_then(|d| d.get(if r == 4 { 2 } else { 1 })).and_then(|d| d.as_static());
        let s = s.ok_or("an offset `position_ids` needs a static sequence length")?;
        let seq: Vec<i64> = (0..s as i64).collect();
        let seq = cx.const_i64s(&seq, "positions");
        let pos64 = if dtype(cx, pos) == DType::I64 { pos } else { cast(cx, pos, DType::I64)? };
        let shifted = op1(cx, Opcode::Add, &[seq, pos64])?;
        let shape = op1(cx, Opcode::Shape, &[x])?;
        let (zero, one) = (cx.const_i64s(&[0], "zero"), cx.const_i64s(&[1], "one"));
        let b = op1(cx, Opcode::Slice, &[shape, zero, one])?;
        let sv = cx.const_i64s(&[s as i64], "seq");
        let dims = op(cx, Opcode::Concat, vec![Some(b), Some(sv)], Attrs::new().with("axis", Attr::Int(0)))?;
        pos = op1(cx, Opcode::Expand, &[shifted, dims])?;
    }
    let names = ["interleaved", "num_heads", "rotary_embedding_dim"];
    let attrs = super::copy_attrs(cx, &names, Attrs::new());
    let y = op(cx, Opcode::RotaryEmbedding, vec![Some(x), Some(cos), Some(sin), Some(pos)], attrs)?;
    bind_at(cx, 0, y);
    Ok(())
}

/// `GroupNorm(X, gamma, beta)` and `SkipGroupNorm(X, gamma, beta, skip,
/// bias?)` (Stable Diffusion fusions, channels-last by default): the sum
/// `(X + skip) + bias` (output `S`), transposed to channels-first,
/// `onnx.GroupNormalization` with per-channel gamma/beta, then SiLU when
/// `activation` = 1, transposed back.
pub(super) fn group_norm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let (mut x, gamma, beta) = (ins.req(0, "X")?, ins.req(1, "gamma")?, ins.req(2, "beta")?);
    let r = rank(cx, x, "X")?;
    if op_type == "SkipGroupNorm" {
        let mut skip = ins.req(3, "skip")?;
        if rank(cx, skip, "skip")? == 2 && r > 2 {
            let axes: Vec<i64> = (1..r as i64 - 1).collect();
            let axes = cx.const_i64s(&axes, "axes");
            skip = op1(cx, Opcode::Unsqueeze, &[skip, axes])?;
        }
        x = op1(cx, Opcode::Add, &[x, skip])?;
        if let Some(b) = ins.opt(4) {
            x = op1(cx, Opcode::Add, &[x, b])?;
        }
        bind_at(cx, 1, x);
    }
    let groups = cx.attr("groups").map(|a| a.i).filter(|&g| g > 0).ok_or("needs a positive `groups`")?;
    let channels_last = int_attr(cx, "channels_last", 1) != 0;
    let (first, last) = super::nhwc_perms(r);
    let xt = if channels_last { super::transpose(cx, x, &first)? } else { x };
    let attrs = Attrs::new()
        .with("num_groups", Attr::Int(groups))
        .with("epsilon", Attr::Float(float_attr(cx, "epsilon", 1e-5)));
    let mut y = op(cx, Opcode::GroupNormalization, vec![Some(xt), Some(gamma), Some(beta)], attrs)?;
    if int_attr(cx, "activation", 0) != 0 {
        let s = op1(cx, Opcode::Sigmoid, &[y])?;
        y = op1(cx, Opcode::Mul, &[y, s])?;
    }
    if channels_last {
        y = super::transpose(cx, y, &last)?;
    }
    bind_at(cx, 0, y);
    Ok(())
}
