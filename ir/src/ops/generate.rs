//! Shape/type inference of tensors made from attributes and scalars:
//! `core.const`, ConstantOfShape, Range, EyeLike and Trilu.
//!
//! The Range length rules are shared with the reference kernel.

use super::{int_list, unknown_dims, InferCtx, InferResult, IntList, I64_ONLY};
use crate::types::{DType, Dim, Shape, TensorType};

/// `core.const`: the type of the referenced constant.
pub fn core_const(ctx: &InferCtx<'_>) -> InferResult {
    let c = ctx.attr_const.ok_or("`value` does not name a constant in the module")?;
    Ok(vec![c.ty.clone()])
}

/// ConstantOfShape: shape from the 1-D i64 input, dtype from the `value` constant (default f32).
pub fn constant_of_shape(ctx: &InferCtx<'_>) -> InferResult {
    let dtype = match (ctx.attr_const, ctx.attrs.get("value")) {
        (Some(c), _) if c.num_elements() != 1 => {
            return Err(format!("`value` must have exactly one element, found {}", c.ty))
        }
        (Some(c), _) => c.ty.dtype,
        (None, Some(_)) => return Err("`value` does not name a constant in the module".into()),
        (None, None) => DType::F32,
    };
    let shape = match int_list(ctx, 0, "input", I64_ONLY)?.ok_or("missing operand `input`")? {
        IntList::Known(v) => {
            if let Some(x) = v.iter().find(|&&x| x < 0) {
                return Err(format!("`input` {v:?} has negative dim {x}"));
            }
            Shape::from_dims(v.iter().map(|&x| Dim::Static(x as u64)))
        }
        IntList::Len(n) => unknown_dims(n),
        IntList::Unknown => Shape::Unranked,
    };
    Ok(vec![TensorType::new(dtype, shape)])
}

/// Element types Range accepts.
pub const RANGE_TYPES: &[DType] =
    &[DType::F32, DType::F64, DType::F16, DType::BF16, DType::I16, DType::I32, DType::I64];

/// Number of Range elements, `max(ceil((limit - start) / delta), 0)`, for integers (exact).
pub fn range_len_int(start: i128, limit: i128, delta: i128) -> Result<u64, String> {
    if delta == 0 {
        return Err("`delta` must not be zero".into());
    }
    let (q, r) = ((limit - start) / delta, (limit - start) % delta);
    let n = (q + i128::from(r != 0 && (r < 0) == (delta < 0))).max(0);
    u64::try_from(n).ok().filter(|&n| n <= u32::MAX as u64).ok_or_else(|| format!("Range has {n} elements"))
}

/// Number of Range elements, `max(ceil((limit - start) / delta), 0)`, for floats (in f64).
pub fn range_len_float(start: f64, limit: f64, delta: f64) -> Result<u64, String> {
    if delta == 0.0 {
        return Err("`delta` must not be zero".into());
    }
    let n = ((limit - start) / delta).ceil().max(0.0);
    if !n.is_finite() || n > u32::MAX as f64 {
        return Err(format!("Range({start}, {limit}, {delta}) has too many elements"));
    }
    Ok(n as u64)
}

/// Range: a 1-D tensor whose length is known when all three operands are constants.
pub fn range(ctx: &InferCtx<'_>) -> InferResult {
    let dt = ctx.input(0)?.dtype;
    if !RANGE_TYPES.contains(&dt) {
        return Err(format!("Range does not support element type {dt}"));
    }
    for (i, name) in [(0, "start"), (1, "limit"), (2, "delta")] {
        let t = ctx.input(i)?;
        if t.dtype != dt || t.shape.num_elements().is_some_and(|n| n != 1) {
            return Err(format!("`{name}` must be one {dt} value, found {t}"));
        }
    }
    let len = if dt.is_float() {
        match (ctx.const_floats(0).as_deref(), ctx.const_floats(1).as_deref(), ctx.const_floats(2).as_deref()) {
            (Some(&[s]), Some(&[l]), Some(&[d])) => Dim::Static(range_len_float(s, l, d)?),
            _ => Dim::Unknown,
        }
    } else {
        match (ctx.const_ints(0).as_deref(), ctx.const_ints(1).as_deref(), ctx.const_ints(2).as_deref()) {
            (Some(&[s]), Some(&[l]), Some(&[d])) => Dim::Static(range_len_int(s as i128, l as i128, d as i128)?),
            _ => Dim::Unknown,
        }
    };
    Ok(vec![TensorType::new(dt, Shape::from_dims([len]))])
}

/// EyeLike: the 2-D input's shape with element type `dtype` (default: the input's).
pub fn eye_like(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let dt = ctx.attrs.dtype("dtype").unwrap_or(x.dtype);
    if dt == DType::String || x.dtype == DType::String {
        return Err("EyeLike does not support strings".into());
    }
    if x.rank().is_some_and(|r| r != 2) {
        return Err(format!("EyeLike needs a 2-D input, found {}", x.shape));
    }
    Ok(vec![TensorType::new(dt, x.shape.clone())])
}

/// Trilu: the input's type; rank >= 2 and an optional scalar i64 `k`.
pub fn trilu(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    if x.rank().is_some_and(|r| r < 2) {
        return Err(format!("Trilu needs rank >= 2, found {}", x.shape));
    }
    if let Some(k) = int_list(ctx, 1, "k", I64_ONLY)? {
        if k.known_len().is_some_and(|n| n != 1) {
            return Err("`k` must hold one value".into());
        }
    }
    Ok(vec![x.clone()])
}
