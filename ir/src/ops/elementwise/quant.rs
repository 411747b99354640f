//! Shape/type inference of the linear quantization ops.

use super::super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Types a tensor can be quantized to: 16/8/4/2-bit integers, float8 (not
/// E8M0) and float4.
fn is_quantized(d: DType) -> bool {
    matches!(d, DType::U8 | DType::I8 | DType::U16 | DType::I16)
        || d.is_low_int()
        || (d.is_low_float() && d != DType::F8E8M0)
}

const QUANTIZED: &str = "u8, i8, u16, i16, u4, i4, u2, i2, f8e4m3fn, f8e4m3fnuz, f8e5m2, f8e5m2fnuz or f4e2m1";

/// Check the scale / zero-point layout against the input where it is known:
/// zero point shaped like the scale; a 1-D scale of more than one element
/// (per-axis, no `block_size`) has the length of `x`'s `axis` dim; a blocked
/// scale has the input's rank.
fn check_params(ctx: &InferCtx<'_>, x: &TensorType, scale: &TensorType) -> Result<(), String> {
    let single = |t: &TensorType| t.dims().is_some_and(|d| d.iter().all(|&d| d == Dim::Static(1)));
    if let Some(zp) = ctx.opt_input(2) {
        // A one-element zero point may differ in rank from a one-element scale ([1] vs []).
        if !(zp.shape.compatible(&scale.shape) || single(zp) && single(scale)) {
            return Err(format!("zero point shape {} differs from scale shape {}", zp.shape, scale.shape));
        }
    }
    let (Some(xd), Some(sd)) = (x.dims(), scale.dims()) else { return Ok(()) };
    if sd.iter().all(|&d| d == Dim::Static(1)) {
        return Ok(()); // per-tensor
    }
    let block = ctx.int("block_size", 0);
    if block < 0 {
        return Err(format!("`block_size` must be positive, got {block}"));
    }
    let r = xd.len() as i64;
    let axis = ctx.int("axis", 1);
    if axis < -r || axis >= r {
        return Err(format!("axis {axis} is out of range for rank {r}"));
    }
    let ax = axis.rem_euclid(r.max(1)) as usize;
    if block == 0 && (sd.len() != 1 || !sd[0].compatible(xd[ax])) {
        return Err(format!("per-axis scale {} must be 1-D of length {} (axis {ax})", scale.shape, xd[ax]));
    }
    if block > 0 && sd.len() != xd.len() {
        return Err(format!("blocked scale {} must have the input's rank {}", scale.shape, xd.len()));
    }
    Ok(())
}

/// QuantizeLinear: the input's shape; element type `output_dtype`, else the
/// zero point's type, else u8.
pub fn quantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let (x, scale) = (ctx.input(0)?, ctx.input(1)?);
    let ok = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16 | DType::I32);
    expect_dtype(x, "x", ok, "f32, f16, bf16 or i32")?;
    expect_dtype(scale, "y_scale", ok, "f32, f16, bf16 or i32")?;
    let zp = ctx.opt_input(2).map(|t| t.dtype);
    let out = match (ctx.attrs.dtype("output_dtype"), zp) {
        (Some(a), Some(z)) if a != z => return Err(format!("`output_dtype` {a} differs from the zero point type {z}")),
        (Some(a), _) => a,
        (None, Some(z)) => z,
        (None, None) => DType::U8,
    };
    if !is_quantized(out) {
        return Err(format!("quantized type {out} is not one of {QUANTIZED}"));
    }
    if let Some(p) = ctx.attrs.dtype("precision").filter(|p| !p.is_float()) {
        return Err(format!("`precision` must be a float type, got {p}"));
    }
    check_params(ctx, x, scale)?;
    Ok(vec![TensorType::new(out, x.shape.clone())])
}

/// DequantizeLinear: the input's shape; element type `output_dtype`, else the
/// scale's type.
pub fn dequantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let (x, scale) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(x, "x", |d| is_quantized(d) || d == DType::I32, &format!("{QUANTIZED} or i32"))?;
    let float = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    expect_dtype(scale, "x_scale", float, "f32, f16 or bf16")?;
    if let Some(zp) = ctx.opt_input(2) {
        if zp.dtype != x.dtype {
            return Err(format!("x_zero_point has element type {}, x has {}", zp.dtype, x.dtype));
        }
    }
    let out = ctx.attrs.dtype("output_dtype").unwrap_or(scale.dtype);
    if !float(out) {
        return Err(format!("`output_dtype` must be f32, f16 or bf16, got {out}"));
    }
    check_params(ctx, x, scale)?;
    Ok(vec![TensorType::new(out, x.shape.clone())])
}

/// DynamicQuantizeLinear: f32 input; u8 data of its shape, an f32 scalar scale
/// and a u8 scalar zero point.
pub fn dynamic_quantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "x", |d| d == DType::F32, "f32")?;
    Ok(vec![
        TensorType::new(DType::U8, x.shape.clone()),
        TensorType::new(DType::F32, Shape::scalar()),
        TensorType::new(DType::U8, Shape::scalar()),
    ])
}
