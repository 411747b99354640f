//! Reductions: `Reduce*` over axes, `core.reduce` (their canonical form with
//! static attributes), ArgMax/ArgMin and the cumulative CumSum/CumProd.
//!
//! `core.reduce` is `onnx.Reduce<kind>(X, axes) {keepdims}` with the axes as a
//! static attribute; like the other canonical forms (see
//! [`super::layout::canonical`]), its inference runs the onnx inference on
//! constant operands built from the attributes.

use super::layout::canonical::{i64_const, infer_via, sorted_axes};
use super::{int_list, norm_axes, norm_axis, unknown_dims, InferCtx, InferResult, IntList, I32_I64, I64_ONLY};
use crate::attr::{Attr, AttrKind, Attrs};
use crate::types::{DType, Dim, Shape, TensorType};

/// The values of `core.reduce`'s `kind` attribute: one per `onnx.Reduce*` op
/// (`mean` is `onnx.ReduceMean`, `sum_square` is `onnx.ReduceSumSquare`, ...).
pub const REDUCE_KINDS: &[&str] =
    &["mean", "sum", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum", "log_sum_exp"];

/// Schema kind of `core.reduce`'s `kind` attribute.
pub const REDUCE_KIND: AttrKind = AttrKind::Enum(REDUCE_KINDS);

/// `core.reduce`'s parameters: the onnx op's kernel-family name, the axes
/// (see [`sorted_axes`]) and `keepdims` (0 or 1).
pub fn reduce_params(attrs: &Attrs) -> Result<(&str, &[i64], i64), String> {
    let kind = attrs.str("kind").ok_or("missing attribute `kind`")?;
    if !REDUCE_KINDS.contains(&kind) {
        return Err(format!("attribute `kind`: value {kind:?} is not one of {}", REDUCE_KINDS.join("|")));
    }
    let keepdims = attrs.int("keepdims").ok_or("missing attribute `keepdims`")?;
    if keepdims != 0 && keepdims != 1 {
        return Err(format!("attribute `keepdims` = {keepdims} must be 0 or 1"));
    }
    Ok((kind, sorted_axes(attrs, "axes")?, keepdims))
}

/// Dims after reducing `axes` of `dims`: kept as 1 with `keepdims`, removed otherwise.
fn reduced_dims(dims: &[Dim], axes: &[usize], keepdims: bool) -> Shape {
    let kept = dims.iter().enumerate().filter_map(|(i, &d)| match axes.contains(&i) {
        true if keepdims => Some(Dim::Static(1)),
        true => None,
        false => Some(d),
    });
    Shape::from_dims(kept)
}

/// `Reduce*`: reduce over the `axes` operand (all axes if empty or omitted, unless
/// `noop_with_empty_axes`); `keepdims` (default 1) keeps reduced axes as size 1.
pub fn reduce(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let keepdims = ctx.int("keepdims", 1) != 0;
    let noop = ctx.int("noop_with_empty_axes", 0) != 0;
    let axes = int_list(ctx, 1, "axes", I64_ONLY)?.unwrap_or(IntList::Known(vec![]));
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    if noop && axes.known_len() == Some(0) {
        return Ok(vec![data.clone()]);
    }
    let Some(d) = data.dims() else { return out(Shape::Unranked) };
    let axes = match axes {
        IntList::Known(v) if v.is_empty() => (0..d.len()).collect(),
        IntList::Len(0) => (0..d.len()).collect(),
        IntList::Known(v) => norm_axes(&v, d.len()).map_err(|e| format!("`axes`: {e} (data {})", data.shape))?,
        // Unknown axes: a static 1 stays 1 whether reduced or not; the rest is unknown.
        _ if keepdims => {
            return out(Shape::from_dims(d.iter().map(|&x| if x == Dim::Static(1) { x } else { Dim::Unknown })))
        }
        IntList::Len(n) if n > d.len() => {
            return Err(format!("`axes` has {n} entries but the data {} has rank {}", data.shape, d.len()))
        }
        IntList::Len(n) if n > 0 => return out(unknown_dims(d.len() - n)),
        _ => return out(Shape::Unranked),
    };
    out(reduced_dims(d, &axes, keepdims))
}

/// `ArgMax`/`ArgMin`: i64 indices along `axis` (default 0), kept as size 1 with `keepdims` (default 1).
pub fn arg_reduce(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let Some(d) = data.dims() else { return Ok(vec![TensorType::unranked(DType::I64)]) };
    let ax = norm_axis(ctx.int("axis", 0), d.len()).map_err(|e| format!("`axis`: {e} (data {})", data.shape))?;
    Ok(vec![TensorType::new(DType::I64, reduced_dims(d, &[ax], ctx.int("keepdims", 1) != 0))])
}

/// CumSum: the input's type; `axis` is a scalar i32/i64 within the input's rank.
pub fn cum_sum(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    super::expect_dtype(x, "`x`", DType::is_numeric, "a numeric type")?;
    let axis = int_list(ctx, 1, "axis", I32_I64)?.ok_or("missing operand `axis`")?;
    match (axis.known(), x.rank()) {
        (Some(&[a]), Some(r)) => drop(norm_axis(a, r).map_err(|e| format!("`axis`: {e}"))?),
        (Some(v), _) if v.len() != 1 => return Err(format!("`axis` must hold one value, found {v:?}")),
        _ => {}
    }
    Ok(vec![x.clone()])
}

/// `core.reduce`: `onnx.Reduce<kind>(X, axes) {keepdims}`.
pub fn core_reduce(ctx: &InferCtx<'_>) -> InferResult {
    let (_, axes, keepdims) = reduce_params(ctx.attrs)?;
    let attrs = Attrs::new().with("keepdims", Attr::Int(keepdims));
    infer_via(ctx, reduce, &[Some(i64_const(axes))], &attrs)
}
