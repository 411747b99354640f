//! ONNX's low-precision element types as one byte per element: the float8 /
//! float4 formats as their raw bit pattern (the codec is
//! [`edgec_numeric::lowp`], shared with the kernels), the 4-bit and 2-bit
//! integers as their value.
//!
//! Packing: ONNX stores 4-bit types two per byte (low nibble first) and 2-bit
//! types four per byte (lowest bits first).

use crate::types::DType;
pub use edgec_numeric::lowp::RoundMode;
use edgec_numeric::lowp::{self as codec, Spec};

/// The format of low-precision float type `dt` (not E8M0).
fn spec(dt: DType) -> Option<Spec> {
    Some(match dt {
        DType::F8E4M3FN => codec::E4M3FN,
        DType::F8E4M3FNUZ => codec::E4M3FNUZ,
        DType::F8E5M2 => codec::E5M2,
        DType::F8E5M2FNUZ => codec::E5M2FNUZ,
        DType::F4E2M1 => codec::E2M1,
        _ => return None,
    })
}

/// Decode the raw bits of low-precision float type `dt` to `f64` (NaN for a
/// type that is not one).
pub fn decode(dt: DType, bits: u8) -> f64 {
    match dt {
        DType::F8E8M0 => codec::decode_e8m0(bits),
        _ => spec(dt).map_or(f64::NAN, |f| f.decode(bits)),
    }
}

/// Encode `x` into low-precision float type `dt` with round-to-nearest-even
/// and ONNX `saturate` semantics (E8M0 rounds up; see [`encode_e8m0`]).
pub fn encode(dt: DType, x: f64, saturate: bool) -> u8 {
    match dt {
        DType::F8E8M0 => codec::encode_e8m0(x, saturate, RoundMode::Up),
        _ => spec(dt).map_or(0, |f| f.encode(x, saturate)),
    }
}

/// Encode `x` into float8 E8M0, as `onnx.numpy_helper.to_float8e8m0` (the
/// value is first rounded to f32; the sign is ignored; NaN/inf give 0xFF).
pub fn encode_e8m0(x: f64, saturate: bool, mode: RoundMode) -> u8 {
    codec::encode_e8m0(x, saturate, mode)
}

/// `v` wrapped into the 4-bit / 2-bit integer type `dt` (two's complement).
pub fn wrap_small_int(dt: DType, v: i128) -> i128 {
    match dt {
        DType::U4 => v & 0xF,
        DType::I4 => ((v & 0xF) ^ 0x8) - 0x8,
        DType::U2 => v & 0x3,
        DType::I2 => ((v & 0x3) ^ 0x2) - 0x2,
        _ => v,
    }
}

/// Elements per byte in ONNX's packed storage of `dt` (2 for 4-bit types,
/// 4 for 2-bit types, 1 otherwise).
pub fn per_byte(dt: DType) -> usize {
    match dt {
        DType::U4 | DType::I4 | DType::F4E2M1 => 2,
        DType::U2 | DType::I2 => 4,
        _ => 1,
    }
}

/// Pack one-per-byte elements (raw bits or values) of `dt` ONNX-style.
pub fn pack(dt: DType, v: &[u8]) -> Vec<u8> {
    let k = per_byte(dt);
    let w = 8 / k;
    let mask = ((1u16 << w) - 1) as u8;
    v.chunks(k).map(|c| c.iter().enumerate().fold(0u8, |acc, (i, &b)| acc | (b & mask) << (i * w))).collect()
}

/// Unpack `n` elements of `dt` from ONNX packed bytes (low bits first); signed
/// integer types are sign-extended. Errors if there are too few bytes.
pub fn unpack(dt: DType, b: &[u8], n: usize) -> Result<Vec<u8>, String> {
    let k = per_byte(dt);
    if b.len() * k < n {
        return Err(format!("{} packed bytes hold fewer than {n} {dt} elements", b.len()));
    }
    let w = 8 / k;
    let mask = ((1u16 << w) - 1) as u8;
    let sext = |x: u8| -> u8 {
        match dt {
            DType::I4 | DType::I2 => wrap_small_int(dt, x as i128) as i8 as u8,
            _ => x,
        }
    };
    Ok((0..n).map(|i| sext((b[i / k] >> ((i % k) * w)) & mask)).collect())
}

/// The value range of a 4-bit / 2-bit integer type.
pub fn int_range(dt: DType) -> Option<(i128, i128)> {
    Some(match dt {
        DType::U4 => (0, 15),
        DType::I4 => (-8, 7),
        DType::U2 => (0, 3),
        DType::I2 => (-2, 1),
        _ => return None,
    })
}
