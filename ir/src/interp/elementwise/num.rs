//! Numeric views of tensor data shared by the elementwise kernels (also used
//! by the quant family's (de)quantization and the attention family's `core.*`
//! kernels, which round like the elementwise ops).
//!
//! Floats of every width are widened exactly to `f64` and integers to `i128`;
//! kernels compute in the wide type and narrow once per element. Narrowing a
//! float rounds to nearest-even exactly once (`f64 -> f16/bf16` goes through a
//! round-to-odd `f32`, which makes the second rounding exact); narrowing an
//! integer wraps (two's complement), like ONNX integer arithmetic.

use crate::interp::broadcast::{broadcast_map, broadcast_shapes};
use crate::interp::{lowp, Data, Tensor};
use crate::types::DType;
use half::{bf16, f16};

/// What every kernel returns.
pub(crate) type KResult = Result<Vec<Tensor>, String>;

/// The elements of a numeric tensor, widened exactly.
pub(crate) enum Nums {
    /// Any float type.
    F(Vec<f64>),
    /// Any integer type.
    I(Vec<i128>),
}

/// Float elements widened to `f64`; `None` if `d` is not a float type.
pub(crate) fn floats(d: &Data) -> Option<Vec<f64>> {
    Some(match d {
        Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
        Data::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        Data::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        Data::F64(v) => v.clone(),
        _ if d.dtype().is_low_float() => (0..d.len()).map(|i| d.get_f64(i)).collect(),
        _ => return None,
    })
}

/// Integer elements widened to `i128`; `None` if `d` is not an integer type.
pub(crate) fn ints(d: &Data) -> Option<Vec<i128>> {
    fn w<T: Copy + Into<i128>>(v: &[T]) -> Vec<i128> {
        v.iter().map(|&x| x.into()).collect()
    }
    Some(match d {
        Data::I8(v) => w(v),
        Data::U8(v) => w(v),
        Data::I16(v) => w(v),
        Data::U16(v) => w(v),
        Data::I32(v) => w(v),
        Data::U32(v) => w(v),
        Data::I64(v) => w(v),
        Data::U64(v) => w(v),
        Data::U4(v) | Data::U2(v) => w(v),
        Data::I4(v) | Data::I2(v) => w(v),
        _ => return None,
    })
}

/// The numeric view of a tensor, or an error for bool and string tensors.
pub(crate) fn numeric(t: &Tensor) -> Result<Nums, String> {
    if let Some(f) = floats(&t.data) {
        return Ok(Nums::F(f));
    }
    ints(&t.data).map(Nums::I).ok_or_else(|| format!("expected a numeric tensor, got {}", t.dtype()))
}

/// Float elements, or an error naming the operand.
pub(crate) fn float_input(t: &Tensor, what: &str) -> Result<Vec<f64>, String> {
    floats(&t.data).ok_or_else(|| format!("{what} must be a float tensor, got {}", t.dtype()))
}

/// Integer elements, or an error naming the operand.
pub(crate) fn int_input(t: &Tensor, what: &str) -> Result<Vec<i128>, String> {
    ints(&t.data).ok_or_else(|| format!("{what} must be an integer tensor, got {}", t.dtype()))
}

/// Bool elements, or an error naming the operand.
pub(crate) fn bool_input<'a>(t: &'a Tensor, what: &str) -> Result<&'a [bool], String> {
    match &t.data {
        Data::Bool(v) => Ok(v),
        _ => Err(format!("{what} must be a bool tensor, got {}", t.dtype())),
    }
}

/// `x` rounded (nearest-even) to `f32`, except that an inexact result has its
/// last mantissa bit set ("round to odd"), so a later rounding to fewer bits
/// equals a single direct rounding of `x`.
fn round_to_odd_f32(x: f64) -> f32 {
    let r = x as f32;
    if x.is_nan() || r as f64 == x {
        return r;
    }
    let mut bits = r.to_bits();
    if (r as f64).abs() > x.abs() {
        bits -= 1; // step toward zero: now the truncation of x
    }
    f32::from_bits(bits | 1)
}

/// `x` correctly rounded to `f16`.
pub(crate) fn to_f16(x: f64) -> f16 {
    f16::from_f32(round_to_odd_f32(x))
}

/// `x` correctly rounded to `bf16`.
pub(crate) fn to_bf16(x: f64) -> bf16 {
    bf16::from_f32(round_to_odd_f32(x))
}

/// `x` rounded to the precision of float type `dt` (identity for other types).
pub(crate) fn round_to(dt: DType, x: f64) -> f64 {
    match dt {
        DType::F32 => x as f32 as f64,
        DType::F16 => to_f16(x).to_f64(),
        DType::BF16 => to_bf16(x).to_f64(),
        _ if dt.is_low_float() => lowp::decode(dt, lowp::encode(dt, x, false)),
        _ => x,
    }
}

/// Float data of type `dt` from `f64`s, each rounded once.
pub(crate) fn float_data(dt: DType, v: Vec<f64>) -> Result<Data, String> {
    Ok(match dt {
        DType::F32 => Data::F32(v.into_iter().map(|x| x as f32).collect()),
        DType::F16 => Data::F16(v.into_iter().map(to_f16).collect()),
        DType::BF16 => Data::BF16(v.into_iter().map(to_bf16).collect()),
        DType::F64 => Data::F64(v),
        // Like numpy `astype`: no saturation (Cast handles `saturate` itself).
        _ => return lowp::float_data(dt, v, false).ok_or_else(|| format!("internal: {dt} is not a float type")),
    })
}

/// Integer data of type `dt` from `i128`s, wrapping out-of-range values.
pub(crate) fn int_data(dt: DType, v: Vec<i128>) -> Result<Data, String> {
    macro_rules! narrow {
        ($var:ident, $t:ty) => {
            Data::$var(v.into_iter().map(|x| x as $t).collect())
        };
    }
    Ok(match dt {
        DType::I8 => narrow!(I8, i8),
        DType::U8 => narrow!(U8, u8),
        DType::I16 => narrow!(I16, i16),
        DType::U16 => narrow!(U16, u16),
        DType::I32 => narrow!(I32, i32),
        DType::U32 => narrow!(U32, u32),
        DType::I64 => narrow!(I64, i64),
        DType::U64 => narrow!(U64, u64),
        _ => return lowp::int_data(dt, v).ok_or_else(|| format!("internal: {dt} is not an integer type")),
    })
}

/// Data of type `dt` from a numeric view of the same kind.
pub(crate) fn nums_data(dt: DType, n: Nums) -> Result<Data, String> {
    match n {
        Nums::F(v) => float_data(dt, v),
        Nums::I(v) => int_data(dt, v),
    }
}

/// The value range of integer type `dt`.
pub(crate) fn int_range(dt: DType) -> Option<(i128, i128)> {
    Some(match dt {
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        _ => return lowp::int_range(dt),
    })
}

/// `v` wrapped into integer type `dt` (two's complement truncation).
pub(crate) fn wrap_int(dt: DType, v: i128) -> i128 {
    match dt {
        DType::I8 => v as i8 as i128,
        DType::U8 => v as u8 as i128,
        DType::I16 => v as i16 as i128,
        DType::U16 => v as u16 as i128,
        DType::I32 => v as i32 as i128,
        DType::U32 => v as u32 as i128,
        DType::I64 => v as i64 as i128,
        DType::U64 => v as u64 as i128,
        _ => lowp::wrap_small_int(dt, v),
    }
}

/// Float to integer type `dt`: truncation toward zero. ONNX leaves
/// out-of-range values undefined; here they saturate (wrap for the 4-bit and
/// 2-bit types, as the ONNX test data does) and NaN becomes 0.
pub(crate) fn float_to_int(dt: DType, x: f64) -> i128 {
    let (lo, hi) = int_range(dt).unwrap_or((i128::MIN, i128::MAX));
    if x.is_nan() {
        return 0;
    }
    if dt.is_low_int() {
        // The ONNX test data for 4-bit / 2-bit targets wraps (-9 -> int4 7).
        return lowp::wrap_small_int(dt, x.trunc() as i128);
    }
    (x.trunc() as i128).clamp(lo, hi)
}

/// Integer `v` rounded once to float type `dt`, returned as `f64`.
pub(crate) fn int_to_float(dt: DType, v: i128) -> f64 {
    match dt {
        DType::F32 => v as f32 as f64,
        // Round to odd at 53 bits first so the final rounding is the only one.
        DType::F16 | DType::BF16 => round_to(dt, int_to_f64_odd(v)),
        // Low-precision floats are encoded (rounded) later, from this odd-rounded value.
        _ if dt.is_low_float() => int_to_f64_odd(v),
        _ => v as f64,
    }
}

/// `v` as `f64`, rounding to odd when it does not fit in 53 bits.
fn int_to_f64_odd(v: i128) -> f64 {
    let m = v.unsigned_abs();
    let bits = 128 - m.leading_zeros();
    if bits <= 53 {
        return v as f64;
    }
    let shift = bits - 53;
    let mut kept = m >> shift;
    if m & ((1u128 << shift) - 1) != 0 {
        kept |= 1;
    }
    let mag = kept as f64 * 2f64.powi(shift as i32);
    if v < 0 {
        -mag
    } else {
        mag
    }
}

pub(crate) use edgec_numeric::act::{max_nan, min_nan};

/// The numpy broadcast shape of `ts` and, per tensor, the flat source index
/// of every output element.
pub(crate) fn broadcast_all(ts: &[&Tensor]) -> Result<(Vec<usize>, Vec<Vec<usize>>), String> {
    let shapes: Vec<&[usize]> = ts.iter().map(|t| t.shape.as_slice()).collect();
    let out = broadcast_shapes(&shapes)?;
    let maps = ts.iter().map(|t| broadcast_map(&t.shape, &out)).collect();
    Ok((out, maps))
}

/// Error unless all tensors have the same element type.
pub(crate) fn same_dtype(ts: &[&Tensor]) -> Result<DType, String> {
    let dt = ts.first().ok_or("no operands")?.dtype();
    match ts.iter().find(|t| t.dtype() != dt) {
        Some(t) => Err(format!("operand element types differ: {dt} vs {}", t.dtype())),
        None => Ok(dt),
    }
}

/// The single element of a one-element tensor as `f64` (bools as 0/1).
pub(crate) fn scalar_f64(t: &Tensor, what: &str) -> Result<f64, String> {
    if t.len() != 1 || t.dtype() == DType::String {
        return Err(format!("{what} must be a single number, got {t:?}"));
    }
    Ok(t.data.get_f64(0))
}
