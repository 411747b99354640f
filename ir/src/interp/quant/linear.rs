//! Linear quantization kernels: QuantizeLinear, DequantizeLinear and
//! DynamicQuantizeLinear (integer quantized types u8/i8/u16/i16/u4/i4/u2/i2
//! and the float8 / float4 types).

use crate::interp::broadcast::norm_axis;
use crate::interp::elementwise::num::*;
use crate::interp::{lowp, strides, Data, EvalCtx, Tensor};
use crate::types::DType;

/// For every element of `x`, the flat index of its scale / zero point:
/// per-tensor (one-element scale), per-axis (1-D scale of length
/// `x.shape[axis]`, `block_size` 0) or blocked (scale of the input's rank whose
/// `axis` dim is `ceil(x.shape[axis] / block_size)`, other dims equal).
pub(crate) fn param_index(x: &[usize], s: &[usize], axis: i64, block: i64) -> Result<Vec<usize>, String> {
    let n: usize = x.iter().product();
    if s.iter().product::<usize>() == 1 || n == 0 {
        return Ok(vec![0; n]);
    }
    let ax = norm_axis(axis, x.len())?;
    if block < 0 {
        return Err(format!("`block_size` must be positive, got {block}"));
    }
    if block == 0 {
        if s.len() != 1 || s[0] != x[ax] {
            return Err(format!("per-axis scale of shape {s:?} must be 1-D of length {} (axis {ax} of {x:?})", x[ax]));
        }
        let inner: usize = x[ax + 1..].iter().product();
        return Ok((0..n).map(|i| (i / inner) % x[ax]).collect());
    }
    let b = block as usize;
    let ok = s.len() == x.len() && (0..x.len()).all(|d| if d == ax { x[d].div_ceil(b) == s[d] } else { x[d] == s[d] });
    if !ok {
        return Err(format!(
            "blocked scale of shape {s:?} does not match input {x:?} with axis {ax} and block_size {b}"
        ));
    }
    let (xs, ss) = (strides(x), strides(s));
    let index = |i: usize| -> usize {
        (0..x.len())
            .map(|d| {
                let c = (i / xs[d]) % x[d];
                (if d == ax { c / b } else { c }) * ss[d]
            })
            .sum()
    };
    Ok((0..n).map(index).collect())
}

/// The zero points (as integers, same shape as the scale) or zeros.
fn zero_points(zp: Option<&Tensor>, scale: &Tensor, what: &str) -> Result<Vec<i128>, String> {
    let Some(z) = zp else { return Ok(vec![0; scale.len()]) };
    if z.shape != scale.shape && !(z.len() == 1 && scale.len() == 1) {
        return Err(format!("{what} shape {:?} differs from the scale shape {:?}", z.shape, scale.shape));
    }
    int_input(z, what)
}

/// Numeric elements of a float or integer tensor as `f64`.
fn reals(t: &Tensor, what: &str) -> Result<Vec<f64>, String> {
    match numeric(t).map_err(|e| format!("{what}: {e}"))? {
        Nums::F(v) => Ok(v),
        Nums::I(v) => Ok(v.into_iter().map(|i| i as f64).collect()),
    }
}

/// `onnx.QuantizeLinear`: `y = saturate(round_half_even(x / y_scale) + y_zero_point)`.
/// The division is done in the `precision` type (default: the scale's type;
/// an i32 scale divides exactly). The output type is `output_dtype`, else the
/// zero point's type, else u8. NaN quantizes to the lowest output value.
pub fn quantize_linear(ctx: &EvalCtx<'_>) -> KResult {
    let (x, scale, zp) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2));
    let out_dt = match (ctx.attrs.dtype("output_dtype"), zp.map(|z| z.dtype())) {
        (Some(a), Some(z)) if a != z => return Err(format!("`output_dtype` {a} differs from the zero point type {z}")),
        (Some(a), _) => a,
        (None, Some(z)) => z,
        (None, None) => DType::U8,
    };
    let prec = ctx.attrs.dtype("precision").unwrap_or(scale.dtype());
    let (xs, ss) = (reals(x, "x")?, reals(scale, "y_scale")?);
    let idx = param_index(&x.shape, &scale.shape, ctx.int("axis", 1), ctx.int("block_size", 0))?;
    if out_dt.is_low_float() && out_dt != DType::F8E8M0 {
        return quantize_float(ctx, x, (&ss, zp, scale), &idx, (out_dt, prec), xs);
    }
    if !matches!(out_dt, DType::U8 | DType::I8 | DType::U16 | DType::I16) && !out_dt.is_low_int() {
        return Err(format!("unsupported quantized type {out_dt}"));
    }
    let (qmin, qmax) = int_range(out_dt).ok_or("internal: no range")?;
    let zps = zero_points(zp, scale, "y_zero_point")?;
    let quantize = |(v, &p): (f64, &usize)| -> i128 {
        let q = round_to(prec, round_to(prec, v) / round_to(prec, ss[p]));
        if q.is_nan() {
            return qmin;
        }
        (q.round_ties_even() + zps[p] as f64).clamp(qmin as f64, qmax as f64) as i128
    };
    let out = xs.into_iter().zip(&idx).map(quantize).collect();
    Ok(vec![Tensor::new(x.shape.clone(), int_data(out_dt, out)?)])
}

/// QuantizeLinear to a float8 / float4 type: `x / y_scale` cast with the
/// `saturate` attribute (the zero point is ignored for float8, added for float4).
fn quantize_float(
    ctx: &EvalCtx<'_>,
    x: &Tensor,
    (ss, zp, scale): (&[f64], Option<&Tensor>, &Tensor),
    idx: &[usize],
    (out_dt, prec): (DType, DType),
    xs: Vec<f64>,
) -> KResult {
    let zps = match zp {
        Some(z) if out_dt == DType::F4E2M1 => reals(z, "y_zero_point")?,
        _ => vec![0.0; scale.len()],
    };
    if zps.len() != scale.len() {
        return Err(format!("y_zero_point has {} elements, the scale has {}", zps.len(), scale.len()));
    }
    let saturate = ctx.int("saturate", 1) != 0;
    let q = |(v, &p): (f64, &usize)| round_to(prec, round_to(prec, v) / round_to(prec, ss[p])) + zps[p];
    let out =
        lowp::float_data(out_dt, xs.into_iter().zip(idx).map(q), saturate).ok_or("internal: not a float8 type")?;
    Ok(vec![Tensor::new(x.shape.clone(), out)])
}

/// `onnx.DequantizeLinear`: `y = (x - x_zero_point) * x_scale`, computed
/// exactly and rounded once to `output_dtype` (default: the scale's type).
pub fn dequantize_linear(ctx: &EvalCtx<'_>) -> KResult {
    let (x, scale, zp) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2));
    if let Some(z) = zp.filter(|z| z.dtype() != x.dtype()) {
        return Err(format!("x_zero_point has type {}, x has {}", z.dtype(), x.dtype()));
    }
    let out_dt = ctx.attrs.dtype("output_dtype").unwrap_or(scale.dtype());
    if !out_dt.is_float() {
        return Err(format!("DequantizeLinear output type must be a float type, got {out_dt}"));
    }
    let ss = float_input(scale, "x_scale")?;
    let idx = param_index(&x.shape, &scale.shape, ctx.int("axis", 1), ctx.int("block_size", 0))?;
    if x.dtype().is_low_float() {
        // Float8 / float4: the zero point (which must be 0 for float8) is ignored.
        let xs = floats(&x.data).ok_or("internal: not a float type")?;
        let out = xs.into_iter().zip(&idx).map(|(v, &p)| v * ss[p]).collect();
        return Ok(vec![Tensor::new(x.shape.clone(), float_data(out_dt, out)?)]);
    }
    let xs = int_input(x, "x")?;
    let zps = zero_points(zp, scale, "x_zero_point")?;
    let out = xs.into_iter().zip(&idx).map(|(v, &p)| (v - zps[p]) as f64 * ss[p]).collect();
    Ok(vec![Tensor::new(x.shape.clone(), float_data(out_dt, out)?)])
}

/// `onnx.DynamicQuantizeLinear`, in f32 arithmetic exactly as the ONNX formula:
/// `scale = (max(0, max x) - min(0, min x)) / 255` (1/255 if that range is 0),
/// `zero_point = round(clamp(-min(0, min x) / scale, 0, 255))`,
/// `y = clamp(round(x / scale) + zero_point, 0, 255)`, rounding halves to even.
pub fn dynamic_quantize_linear(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let Data::F32(v) = &x.data else { return Err(format!("x must be f32, got {}", x.dtype())) };
    if v.is_empty() {
        return Err("DynamicQuantizeLinear of an empty tensor has no range".into());
    }
    if v.iter().any(|e| e.is_nan()) {
        return Err("DynamicQuantizeLinear input contains NaN".into());
    }
    let hi = v.iter().fold(0f32, |a, &b| a.max(b));
    let lo = v.iter().fold(0f32, |a, &b| a.min(b));
    let scale = (if hi == lo { 1.0 } else { hi - lo }) / 255.0;
    let zp = (0.0 - lo / scale).clamp(0.0, 255.0).round_ties_even();
    let y = v.iter().map(|&e| ((e / scale).round_ties_even() + zp).clamp(0.0, 255.0) as u8).collect();
    Ok(vec![
        Tensor::new(x.shape.clone(), Data::U8(y)),
        Tensor::new(vec![], Data::F32(vec![scale])),
        Tensor::new(vec![], Data::U8(vec![zp as u8])),
    ])
}
