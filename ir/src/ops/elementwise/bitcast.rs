//! `BitCast` inference: reinterpret the bits of each element as another type
//! of the same bit width; the shape is unchanged.

use crate::ops::{InferCtx, InferResult};
use crate::types::{DType, TensorType};

/// Bits per element of `dt` (`None` for strings).
pub fn bit_width(dt: DType) -> Option<usize> {
    match dt {
        DType::String => None,
        DType::I4 | DType::U4 | DType::F4E2M1 => Some(4),
        DType::I2 | DType::U2 => Some(2),
        _ => dt.size_bytes().map(|b| b * 8),
    }
}

/// `BitCast(input) {to}`: same shape, element type `to` of equal bit width.
pub fn bitcast(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let to = ctx.attrs.dtype("to").ok_or("missing attribute `to`")?;
    match (bit_width(x.dtype), bit_width(to)) {
        (Some(a), Some(b)) if a == b && (a >= 8 || x.dtype == to) => Ok(vec![TensorType::new(to, x.shape.clone())]),
        (Some(a), Some(b)) => {
            Err(format!("BitCast needs equal bit widths of whole bytes: {} is {a} bits, {to} is {b}", x.dtype))
        }
        _ => Err("BitCast from or to string is not supported".into()),
    }
}
