//! Reductions.

use super::shape::{int_list, norm_axes, norm_axis, IntList, I64_ONLY};
use super::{InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

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
        IntList::Len(n) if n > 0 => return out(super::shape::unknown_dims(d.len() - n)),
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
    let axis = super::shape::int_list(ctx, 1, "axis", super::shape::I32_I64)?.ok_or("missing operand `axis`")?;
    match (axis.known(), x.rank()) {
        (Some(&[a]), Some(r)) => drop(norm_axis(a, r).map_err(|e| format!("`axis`: {e}"))?),
        (Some(v), _) if v.len() != 1 => return Err(format!("`axis` must hold one value, found {v:?}")),
        _ => {}
    }
    Ok(vec![x.clone()])
}

/// Det: `[*, M, M]` floats to `[*]`.
pub fn det(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    super::expect_dtype(x, "`X`", DType::is_float, "a float type")?;
    let Some(d) = x.dims() else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let r = d.len();
    if r < 2 || !d[r - 1].compatible(d[r - 2]) {
        return Err(format!("Det needs square matrices [*, M, M], found {}", x.shape));
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(d[..r - 2].iter().copied()))])
}
