//! Inference of the spatial NN ops added after the first batch: DepthToSpace,
//! SpaceToDepth, Einsum, Upsample, MaxUnpool, RoiAlign, GridSample and Col2Im.

use super::super::{expect_dtype, InferCtx, InferResult};
use super::norm::{dim_div, dim_mul, same_type, shape};
use crate::types::{DType, Dim, Shape, TensorType};

/// The `blocksize` attribute (≥ 1).
fn blocksize(ctx: &InferCtx<'_>) -> Result<u64, String> {
    match ctx.int("blocksize", 0) {
        b if b >= 1 => Ok(b as u64),
        b => Err(format!("attribute `blocksize` = {b} must be ≥ 1")),
    }
}

/// X's dims if 4-D (`None` if unranked).
fn dims4(x: &TensorType) -> Result<Option<&[Dim]>, String> {
    match x.dims() {
        Some(d) if d.len() != 4 => Err(format!("input {x} must be 4-D [N, C, H, W]")),
        d => Ok(d),
    }
}

/// DepthToSpace: `[N, C, H, W]` → `[N, C/b², H*b, W*b]`, any element type.
pub fn depth_to_space(ctx: &InferCtx<'_>) -> InferResult {
    let (x, b) = (ctx.input(0)?, blocksize(ctx)?);
    let Some(d) = dims4(x)? else { return Ok(vec![x.clone()]) };
    let bb = b.checked_mul(b).ok_or("attribute `blocksize` is too large")?;
    let c = dim_div(d[1], bb, "channel count")?;
    Ok(vec![TensorType::new(x.dtype, shape([d[0], c, dim_mul(d[2], b), dim_mul(d[3], b)]))])
}

/// SpaceToDepth: `[N, C, H, W]` → `[N, C*b², H/b, W/b]`, any element type.
pub fn space_to_depth(ctx: &InferCtx<'_>) -> InferResult {
    let (x, b) = (ctx.input(0)?, blocksize(ctx)?);
    let Some(d) = dims4(x)? else { return Ok(vec![x.clone()]) };
    let (h, w) = (dim_div(d[2], b, "height")?, dim_div(d[3], b, "width")?);
    let bb = b.checked_mul(b).ok_or("attribute `blocksize` is too large")?;
    Ok(vec![TensorType::new(x.dtype, shape([d[0], dim_mul(d[1], bb), h, w]))])
}

/// Einsum: numeric operands of one type; the output dims follow the equation
/// (unknown where an operand dim is not static; unranked if any operand is).
pub fn einsum(ctx: &InferCtx<'_>) -> InferResult {
    let eq = ctx.attrs.str("equation").ok_or("missing required attribute `equation`")?;
    let first = ctx.input(0)?;
    expect_dtype(first, "Inputs", DType::is_numeric, "a numeric type")?;
    let mut shapes = Vec::new();
    for i in 0..ctx.num_operands() {
        let t = ctx.input(i)?;
        same_type(t, "Inputs", first.dtype)?;
        let Some(d) = t.dims() else { return Ok(vec![TensorType::unranked(first.dtype)]) };
        shapes.push(d.iter().map(|d| d.as_static().map(|x| x as usize)).collect());
    }
    let out = edgec_numeric::einsum::infer_dims(eq, &shapes)?;
    Ok(vec![TensorType::new(
        first.dtype,
        shape(out.into_iter().map(|d| d.map_or(Dim::Unknown, |x| Dim::Static(x as u64)))),
    )])
}

/// Upsample (opset 9): f32 `scales` with one value per axis of X; with constant scales
/// the dims are `floor(d * scale)`, otherwise unknown.
pub fn upsample(ctx: &InferCtx<'_>) -> InferResult {
    let (x, s) = (ctx.input(0)?, ctx.input(1)?);
    same_type(s, "scales", DType::F32)?;
    let Some(d) = x.dims() else { return Ok(vec![x.clone()]) };
    let Some(scales) = ctx.const_floats(1) else {
        return Ok(vec![TensorType::new(x.dtype, shape(vec![Dim::Unknown; d.len()]))]);
    };
    if scales.len() != d.len() || scales.iter().any(|&v| !(v.is_finite() && v > 0.0)) {
        return Err(format!("`scales` = {scales:?} must hold {} positive values", d.len()));
    }
    let out = d.iter().zip(&scales).map(|(&d, &s)| match d {
        _ if s == 1.0 => d,
        Dim::Static(x) => Dim::Static((x as f64 * s).floor() as u64),
        _ => Dim::Unknown,
    });
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}

/// MaxUnpool: float X `[N, C, D...]`, i64 `I` of X's shape; output dims from a constant
/// `output_shape`, else `(in - 1) * stride - pads + kernel` (unknown if `output_shape`
/// is given but not constant).
pub fn max_unpool(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    same_type(ctx.input(1)?, "I", DType::I64)?;
    let ks = ctx.attrs.ints("kernel_shape").ok_or("missing required attribute `kernel_shape`")?;
    let n = ks.len();
    if x.rank().is_some_and(|r| r != n + 2) {
        return Err(format!("X {x} must have rank {} to match `kernel_shape`", n + 2));
    }
    if let Some(os) = ctx.opt_input(2) {
        same_type(os, "output_shape", DType::I64)?;
        let dims = match ctx.const_ints(2) {
            Some(v) if v.len() == n + 2 && v.iter().all(|&d| d >= 0) => {
                v.iter().map(|&d| Dim::Static(d as u64)).collect()
            }
            Some(v) => return Err(format!("`output_shape` = {v:?} must hold {} sizes", n + 2)),
            None => vec![Dim::Unknown; n + 2],
        };
        return Ok(vec![TensorType::new(x.dtype, shape(dims))]);
    }
    let strides = ctx.attrs.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = ctx.attrs.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    if strides.len() != n || pads.len() != 2 * n || strides.iter().any(|&s| s < 1) || pads.iter().any(|&p| p < 0) {
        return Err(format!("attributes `strides` {strides:?} / `pads` {pads:?} do not match kernel_shape {ks:?}"));
    }
    let Some(d) = x.dims() else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let mut out = vec![d[0], d[1]];
    for i in 0..n {
        out.push(match d[i + 2] {
            Dim::Static(v) => {
                let o = (v as i64 - 1) * strides[i] - pads[i] - pads[i + n] + ks[i];
                Dim::Static(u64::try_from(o).map_err(|_| format!("spatial axis {i}: unpooled size {o} is negative"))?)
            }
            _ => Dim::Unknown,
        });
    }
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}

/// RoiAlign: float X `[N, C, H, W]`, `rois [R, 4]` of X's type, i64 `batch_indices [R]`
/// → `[R, C, output_height, output_width]`.
pub fn roi_align(ctx: &InferCtx<'_>) -> InferResult {
    let (x, rois, bi) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    same_type(rois, "rois", x.dtype)?;
    same_type(bi, "batch_indices", DType::I64)?;
    let c = match x.dims() {
        Some(d) if d.len() == 4 => d[1],
        Some(_) => return Err(format!("X {x} must be 4-D")),
        None => Dim::Unknown,
    };
    let r = match (rois.dims(), bi.dims()) {
        (Some(r), _) if r.len() != 2 || r[1].as_static().is_some_and(|k| k != 4) => {
            return Err(format!("rois {rois} must have shape [num_rois, 4]"))
        }
        (_, Some(b)) if b.len() != 1 => return Err(format!("batch_indices {bi} must be 1-D")),
        (Some(r), Some(b)) if !r[0].compatible(b[0]) => {
            return Err(format!("rois {rois} and batch_indices {bi} disagree"))
        }
        (Some(r), Some(b)) => {
            if r[0] == Dim::Unknown {
                b[0]
            } else {
                r[0]
            }
        }
        (Some(r), None) => r[0],
        (None, Some(b)) => b[0],
        (None, None) => Dim::Unknown,
    };
    let (oh, ow) = (ctx.int("output_height", 1), ctx.int("output_width", 1));
    if oh < 1 || ow < 1 {
        return Err(format!("output_height {oh} and output_width {ow} must be ≥ 1"));
    }
    Ok(vec![TensorType::new(x.dtype, shape([r, c, Dim::Static(oh as u64), Dim::Static(ow as u64)]))])
}

/// GridSample: X `[N, C, D1..Dr]`, float `grid [N, O1..Or, r]` → `[N, C, O1..Or]`.
pub fn grid_sample(ctx: &InferCtx<'_>) -> InferResult {
    let (x, g) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(g, "grid", DType::is_float, "a float type")?;
    let (Some(xd), Some(gd)) = (x.dims(), g.dims()) else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let r = xd.len().saturating_sub(2);
    if r == 0
        || gd.len() != xd.len()
        || gd[r + 1].as_static().is_some_and(|k| k != r as u64)
        || !xd[0].compatible(gd[0])
    {
        return Err(format!("grid {g} must be [N, out..., {r}] for X {x}"));
    }
    let n = if xd[0] == Dim::Unknown { gd[0] } else { xd[0] };
    let mut out = vec![n, xd[1]];
    out.extend_from_slice(&gd[1..=r]);
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}

/// Col2Im: input `[N, C*prod(block_shape), L]`, i64 `image_shape`, `block_shape` →
/// `[N, C, image_shape...]` (dims from constant operands, else unknown).
pub fn col2im(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    for (i, name) in [(1, "image_shape"), (2, "block_shape")] {
        same_type(ctx.input(i)?, name, DType::I64)?;
    }
    if x.rank().is_some_and(|r| r != 3) {
        return Err(format!("input {x} must be 3-D [N, C*prod(block_shape), L]"));
    }
    let xd = x.dims().map_or_else(|| vec![Dim::Unknown; 3], <[Dim]>::to_vec);
    let image = ctx.const_ints(1);
    let n = match (&image, ctx.input(1)?.dims()) {
        (Some(v), _) => v.len(),
        (None, Some([Dim::Static(k)])) => *k as usize,
        _ => return Ok(vec![TensorType::unranked(x.dtype)]),
    };
    let c = match ctx.const_ints(2) {
        Some(b) if b.len() != n || b.iter().any(|&k| k < 1) => {
            return Err(format!("`block_shape` = {b:?} must hold {n} positive sizes"))
        }
        Some(b) => dim_div(xd[1], b.iter().product::<i64>() as u64, "channel dim")?,
        None => Dim::Unknown,
    };
    let mut out = vec![xd[0], c];
    match image {
        Some(v) if v.iter().any(|&d| d < 1) => return Err(format!("`image_shape` = {v:?} must be positive")),
        Some(v) => out.extend(v.iter().map(|&d| Dim::Static(d as u64))),
        None => out.extend(vec![Dim::Unknown; n]),
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}
