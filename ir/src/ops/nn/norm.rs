//! Inference of the shape-preserving NN ops added after the first batch:
//! Instance/Group/RMS/MeanVariance normalization, LRN and RotaryEmbedding.

use super::super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Error unless `t` has element type `dt`.
pub(crate) fn same_type(t: &TensorType, what: &str, dt: DType) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt}", t.dtype))
    }
}

/// Error unless `axis` lies in `[-r, r)`.
pub(crate) fn check_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("{what} = {axis} is out of range for rank {rank}"));
    }
    Ok((if axis < 0 { axis + r } else { axis }) as usize)
}

/// Check a 1-D per-channel operand `i` against X's channel dim.
fn per_channel(ctx: &InferCtx<'_>, i: usize, what: &str, x: &TensorType) -> Result<(), String> {
    let t = ctx.input(i)?;
    same_type(t, what, x.dtype)?;
    let c = x.dims().and_then(|d| d.get(1).copied()).unwrap_or(Dim::Unknown);
    match t.dims() {
        None => Ok(()),
        Some([d]) if d.compatible(c) => Ok(()),
        Some(_) => Err(format!("{what} {t} must have shape [{c}] (one value per channel of X {x})")),
    }
}

/// A float X of rank ≥ `min_rank` (if ranked).
fn float_x<'a>(ctx: &InferCtx<'a>, min_rank: usize) -> Result<&'a TensorType, String> {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    if x.rank().is_some_and(|r| r < min_rank) {
        return Err(format!("X {x} must have rank ≥ {min_rank}"));
    }
    Ok(x)
}

/// InstanceNormalization: float X `[N, C, ...]`, `scale`/`B` of shape `[C]`; Y is X's type.
pub fn instance_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = float_x(ctx, 2)?;
    per_channel(ctx, 1, "scale", x)?;
    per_channel(ctx, 2, "B", x)?;
    Ok(vec![x.clone()])
}

/// GroupNormalization (opset 21): like InstanceNormalization; `num_groups` ≥ 1 must
/// divide a static channel count.
pub fn group_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = float_x(ctx, 2)?;
    per_channel(ctx, 1, "scale", x)?;
    per_channel(ctx, 2, "bias", x)?;
    let g = ctx.int("num_groups", 0);
    if g < 1 {
        return Err(format!("attribute `num_groups` = {g} must be ≥ 1"));
    }
    if let Some(c) = x.dims().and_then(|d| d[1].as_static()) {
        if c % g as u64 != 0 {
            return Err(format!("channels {c} of X {x} are not divisible by num_groups {g}"));
        }
    }
    Ok(vec![x.clone()])
}

/// RMSNormalization: float X, float `scale` broadcasting to X; Y has X's shape and
/// scale's element type; `axis` (default -1) must be in range.
pub fn rms_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = float_x(ctx, 0)?;
    let s = ctx.input(1)?;
    expect_dtype(s, "scale", DType::is_float, "a float type")?;
    if let Some(r) = x.rank() {
        check_axis(ctx.int("axis", -1), r, "attribute `axis`")?;
    }
    Ok(vec![TensorType::new(s.dtype, x.shape.clone())])
}

/// MeanVarianceNormalization: float X; `axes` (default `[0, 2, 3]`) must be in range.
pub fn mean_variance_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = float_x(ctx, 0)?;
    if let Some(r) = x.rank() {
        for &a in ctx.attrs.ints("axes").unwrap_or(&[0, 2, 3]) {
            check_axis(a, r, "attribute `axes` entry")?;
        }
    }
    Ok(vec![x.clone()])
}

/// LRN: float X of rank ≥ 3; `size` ≥ 1.
pub fn lrn(ctx: &InferCtx<'_>) -> InferResult {
    let x = float_x(ctx, 3)?;
    let size = ctx.int("size", 0);
    if size < 1 {
        return Err(format!("attribute `size` = {size} must be ≥ 1"));
    }
    Ok(vec![x.clone()])
}

/// LpNormalization / Hardmax: float input, `axis` (default -1) in range, `p` 1 or 2.
pub fn lp_normalization(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    if let Some(r) = x.rank() {
        check_axis(ctx.int("axis", -1), r, "attribute `axis`")?;
    }
    if !matches!(ctx.int("p", 2), 1 | 2) {
        return Err(format!("attribute `p` = {} must be 1 or 2", ctx.int("p", 2)));
    }
    Ok(vec![x.clone()])
}

/// RotaryEmbedding: X `[B, H, S, D]` or `[B, S, hidden]` (f32/f16/bf16), caches of X's
/// type, optional i64 `position_ids`; Y is X's type.
pub fn rotary_embedding(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", |d| matches!(d, DType::F32 | DType::F16 | DType::BF16), "f32, f16 or bf16")?;
    if x.rank().is_some_and(|r| r != 3 && r != 4) {
        return Err(format!("X {x} must be 3-D or 4-D"));
    }
    if x.rank() == Some(3) && ctx.int("num_heads", 0) < 1 {
        return Err("3-D X needs attribute `num_heads` ≥ 1".into());
    }
    same_type(ctx.input(1)?, "cos_cache", x.dtype)?;
    same_type(ctx.input(2)?, "sin_cache", x.dtype)?;
    if let Some(p) = ctx.opt_input(3) {
        same_type(p, "position_ids", DType::I64)?;
    }
    Ok(vec![x.clone()])
}

/// A dim times a constant (symbols survive multiplication by 1 only).
pub(crate) fn dim_mul(d: Dim, k: u64) -> Dim {
    match d {
        _ if k == 1 => d,
        Dim::Static(x) => x.checked_mul(k).map_or(Dim::Unknown, Dim::Static),
        _ => Dim::Unknown,
    }
}

/// A dim divided by a constant that must divide a static dim exactly.
pub(crate) fn dim_div(d: Dim, k: u64, what: &str) -> Result<Dim, String> {
    Ok(match d {
        _ if k == 1 => d,
        Dim::Static(x) if x % k == 0 => Dim::Static(x / k),
        Dim::Static(x) => return Err(format!("{what} {x} is not divisible by {k}")),
        _ => Dim::Unknown,
    })
}

/// Shape from dims.
pub(crate) fn shape(d: impl IntoIterator<Item = Dim>) -> Shape {
    Shape::from_dims(d)
}
