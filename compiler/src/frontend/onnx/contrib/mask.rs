//! The additive attention mask ORT's CPU attention kernels build: 0 where a
//! key is visible, `mask_filter_value` (default -10000) where the padding
//! mask hides it, plus `mask_filter_value` again above the causal diagonal
//! (key `j > past + i`), plus `attention_bias`. Lengths come from shapes as
//! int64 scalars, so the mask works with symbolic dims and folds to a
//! constant when they are static.

use super::{op, op1, rank};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, Dim, Opcode, Value};

/// What the additive mask is built from.
pub(super) struct MaskSpec {
    /// `mask_index` / `key_padding_mask`, if any.
    pub(super) mask: Option<Value>,
    /// Additive `attention_bias` `(B|1, N|1, S, T)`, if any.
    pub(super) bias: Option<Value>,
    /// Causal masking requested.
    pub(super) causal: bool,
    /// The query's batch dim (tells a 1-D `(B)` mask from a `(2B)` one).
    pub(super) batch: Option<Dim>,
    /// Query length, past length and total key length: int64 scalars.
    pub(super) seq: Value,
    pub(super) past: Value,
    pub(super) total: Value,
    /// Value added where a key is masked.
    pub(super) filter: f32,
}

/// `shape(v)[axis]` as an int64 scalar.
pub(super) fn dim_scalar(cx: &mut NodeCx<'_, '_, '_>, v: Value, axis: i64) -> NResult<Value> {
    let shape = op1(cx, Opcode::Shape, &[v])?;
    let i = cx.constant(&Tensor::new(vec![], Data::I64(vec![axis])), "axis");
    op(cx, Opcode::Gather, vec![Some(shape), Some(i)], Attrs::new().with("axis", Attr::Int(0)))
}

/// An int64 scalar constant.
pub(super) fn i64_scalar(cx: &mut NodeCx<'_, '_, '_>, x: i64) -> Value {
    cx.constant(&Tensor::new(vec![], Data::I64(vec![x])), "extent")
}

/// `0..n` (int64) for an int64 scalar `n`.
fn range(cx: &mut NodeCx<'_, '_, '_>, n: Value) -> NResult<Value> {
    let (zero, one) = (i64_scalar(cx, 0), i64_scalar(cx, 1));
    op1(cx, Opcode::Range, &[zero, n, one])
}

/// Whether a 1-D mask holds `2B` entries (end then start positions) rather
/// than `B` lengths.
fn ends_and_starts(cx: &NodeCx<'_, '_, '_>, m: Value, batch: Option<Dim>) -> NResult<Option<u64>> {
    let len = cx.ty(m).dims().and_then(|d| d.first().copied());
    match (len, batch) {
        (Some(l), Some(b)) if l == b => Ok(None),
        (Some(Dim::Static(l)), Some(Dim::Static(b))) if l == 2 * b => Ok(Some(b)),
        _ => Err("cannot tell whether the 1-D mask holds B lengths or 2B end/start positions".into()),
    }
}

/// The additive `(B, 1, S|1, T)` float mask of a key-padding mask input.
fn padding_mask(cx: &mut NodeCx<'_, '_, '_>, m: Value, spec: &MaskSpec) -> NResult<Value> {
    let r = rank(cx, m, "mask_index")?;
    let masked = match r {
        1 => {
            let j = range(cx, spec.total)?;
            let m64 = super::cast(cx, m, ir::DType::I64)?;
            let ax1 = cx.const_i64s(&[1], "axes");
            match ends_and_starts(cx, m, spec.batch)? {
                None => {
                    let ends = op1(cx, Opcode::Unsqueeze, &[m64, ax1])?;
                    op1(cx, Opcode::GreaterOrEqual, &[j, ends])?
                }
                Some(b) => {
                    let (z, bb, b2) = (
                        cx.const_i64s(&[0], "zero"),
                        cx.const_i64s(&[b as i64], "b"),
                        cx.const_i64s(&[2 * b as i64], "b2"),
                    );
                    let ends = op1(cx, Opcode::Slice, &[m64, z, bb])?;
                    let ends = op1(cx, Opcode::Unsqueeze, &[ends, ax1])?;
                    let starts = op1(cx, Opcode::Slice, &[m64, bb, b2])?;
                    let starts = op1(cx, Opcode::Unsqueeze, &[starts, ax1])?;
                    let after = op1(cx, Opcode::GreaterOrEqual, &[j, ends])?;
                    let before = op1(cx, Opcode::Less, &[j, starts])?;
                    op1(cx, Opcode::Or, &[after, before])?
                }
            }
        }
        2 | 3 => {
            let z = cx.scalar(super::dtype(cx, m), 0.0, "zero")?;
            let keep = op1(cx, Opcode::Greater, &[m, z])?;
            op1(cx, Opcode::Not, &[keep])?
        }
        r => return Err(NodeError::Error(format!("a mask of rank {r} is not supported (1, 2 or 3)"))),
    };
    let add = select_filter(cx, masked, spec.filter)?;
    let axes: &[i64] = if r == 3 { &[1] } else { &[1, 2] };
    let axes = cx.const_i64s(axes, "axes");
    op1(cx, Opcode::Unsqueeze, &[add, axes])
}

/// `filter` where `masked`, else 0 (f32).
fn select_filter(cx: &mut NodeCx<'_, '_, '_>, masked: Value, filter: f32) -> NResult<Value> {
    let f = super::f32_const(cx, filter, "mask_filter_value");
    let zero = super::f32_const(cx, 0.0, "zero");
    op1(cx, Opcode::Where, &[masked, f, zero])
}

/// The causal `(S, T)` mask: `filter` where key `j > past + i`.
fn causal_mask(cx: &mut NodeCx<'_, '_, '_>, spec: &MaskSpec) -> NResult<Value> {
    let i = range(cx, spec.seq)?;
    let ax1 = cx.const_i64s(&[1], "axes");
    let i = op1(cx, Opcode::Unsqueeze, &[i, ax1])?;
    let limit = op1(cx, Opcode::Add, &[i, spec.past])?;
    let j = range(cx, spec.total)?;
    let above = op1(cx, Opcode::Greater, &[j, limit])?;
    select_filter(cx, above, spec.filter)
}

/// `attention_bias + (padding + causal)`, or `None` when nothing masks.
/// (ORT applies the causal mask only when S > 1; with S = 1 it is all zero.)
pub(super) fn build_mask(cx: &mut NodeCx<'_, '_, '_>, spec: &MaskSpec) -> NResult<Option<Value>> {
    let mut m = match spec.mask {
        Some(mask) => Some(padding_mask(cx, mask, spec)?),
        None => None,
    };
    if spec.causal {
        let c = causal_mask(cx, spec)?;
        m = Some(match m {
            Some(p) => op1(cx, Opcode::Add, &[p, c])?,
            None => c,
        });
    }
    Ok(match (spec.bias, m) {
        (Some(b), Some(m)) => Some(op1(cx, Opcode::Add, &[b, m])?),
        (b, m) => b.or(m),
    })
}
