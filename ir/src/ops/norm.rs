//! Shape/type inference of the normalizations (Batch, Layer, Instance,
//! Group, RMS, MeanVariance, LRN, Lp) and the softmaxes (Softmax, LogSoftmax,
//! Hardmax).
//!
//! Each main result has the input's shape (the optional statistics results of
//! BatchNormalization and LayerNormalization have their own); the checks are
//! on element types, the per-channel operands and the axis attributes.

use super::{broadcast_to, check_axis, expect_dtype, expect_same, normalize_axis, same_type, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// The more precise of two dims that must be equal; `None` on a static contradiction.
fn unify(a: Dim, b: Dim) -> Option<Dim> {
    match (a, b) {
        (Dim::Static(p), Dim::Static(q)) => (p == q).then_some(a),
        (Dim::Static(_), _) => Some(a),
        (_, Dim::Static(_)) | (Dim::Unknown, _) => Some(b),
        _ => Some(a),
    }
}

/// BatchNormalization: Y has X's type. `scale`, `B`, `input_mean` and `input_var` are
/// 1-D of size C (X's dim 1, or 1 for a 1-D X); `scale`/`B` share one float type and
/// `input_mean`/`input_var` another. Optional `running_mean`/`running_var` results are
/// `[C]` with the mean's element type.
pub fn batch_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    let mut c = match x.dims() {
        None => Dim::Unknown,
        Some([]) => return Err(format!("X {x} must have rank ≥ 1")),
        Some([_]) => Dim::Static(1),
        Some(d) => d[1],
    };
    for (i, name) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
        let t = ctx.input(i)?;
        expect_dtype(t, name, DType::is_float, "a float type")?;
        match t.dims() {
            None => {}
            Some(&[d]) => {
                c = unify(c, d).ok_or_else(|| format!("{name} {t} does not match the {c} channels of X {x}"))?
            }
            Some(_) => return Err(format!("{name} {t} must be 1-D")),
        }
    }
    expect_same(ctx.input(2)?, "B", ctx.input(1)?.dtype, "scale")?;
    let mean_dt = ctx.input(3)?.dtype;
    expect_same(ctx.input(4)?, "input_var", mean_dt, "input_mean")?;
    let stat = TensorType::new(mean_dt, Shape::from_dims([c]));
    let mut out = vec![x.clone()];
    out.resize(ctx.num_results.clamp(1, 3), stat);
    Ok(out)
}

/// The element type named by an ONNX `stash_type` code (a float `TensorProto` type).
fn stash_dtype(code: i64) -> Result<DType, String> {
    Ok(match code {
        1 => DType::F32,
        10 => DType::F16,
        11 => DType::F64,
        16 => DType::BF16,
        _ => return Err(format!("attribute `stash_type` = {code} is not a float type code (1, 10, 11 or 16)")),
    })
}

/// LayerNormalization over axes `[axis, rank)` (`axis` defaults to -1): Y has X's type;
/// Scale and the optional B have X's element type and broadcast to X. The optional
/// `Mean`/`InvStdDev` results have X's shape with the dims from `axis` on set to 1, and
/// the `stash_type` element type (default f32), as in ONNX.
pub fn layer_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    for (i, name) in [(1, "Scale"), (2, "B")] {
        let Some(t) = ctx.opt_input(i) else { continue };
        expect_same(t, name, x.dtype, "X")?;
        if let Some(d) = x.dims() {
            broadcast_to(t, name, d)?;
        }
    }
    let stats_shape = match x.dims() {
        None => Shape::Unranked,
        Some(d) => {
            let axis = normalize_axis(ctx.int("axis", -1), d.len(), "attribute `axis`")?;
            Shape::from_dims(d.iter().enumerate().map(|(i, &d)| if i < axis { d } else { Dim::Static(1) }))
        }
    };
    let stats = TensorType::new(stash_dtype(ctx.int("stash_type", 1))?, stats_shape);
    let mut out = vec![x.clone()];
    out.resize(ctx.num_results.clamp(1, 3), stats);
    Ok(out)
}

/// Softmax / LogSoftmax: same type as the float input; `axis` (default -1) must lie
/// in `[-r, r-1]` when the rank r is known.
pub fn softmax(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    if let Some(r) = x.rank() {
        normalize_axis(ctx.int("axis", -1), r, "attribute `axis`")?;
    }
    Ok(vec![x.clone()])
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
