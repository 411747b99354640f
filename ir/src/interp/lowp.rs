//! Bit-exact conversions of ONNX's low-precision element types.
//!
//! Float8 / float4 values are stored as their raw bit pattern (one per byte),
//! 4-bit and 2-bit integers as their value (one per byte). Encoding a float
//! rounds to nearest-even once; out-of-range handling follows ONNX `Cast`
//! (and `ml_dtypes`, which the ONNX reference uses):
//!
//! * `saturate = true`: ±inf and values beyond the largest finite value become
//!   ±max finite (NaN stays NaN).
//! * `saturate = false`: overflow gives ±inf for E5M2 and NaN for the formats
//!   without infinity (E4M3FN, E4M3FNUZ, E5M2FNUZ).
//! * FNUZ formats have no negative zero: `-0` (and negative underflow) is `+0`.
//! * float4 E2M1 has neither inf nor NaN: overflow always saturates and NaN
//!   encodes as `0x8` (like `ml_dtypes`).
//! * float8 E8M0 is `2^(bits-127)` (0xFF = NaN, sign ignored), rounded on the
//!   f32 exponent with `round_mode` up / down / nearest exactly as
//!   `onnx.numpy_helper.to_float8e8m0`.
//!
//! Packing: ONNX stores 4-bit types two per byte (low nibble first) and 2-bit
//! types four per byte (lowest bits first).

use crate::interp::Data;
use crate::types::DType;

/// Layout of a small float format.
#[derive(Copy, Clone, Debug)]
struct Fmt {
    /// Exponent bits.
    e: u32,
    /// Mantissa bits.
    m: u32,
    /// Exponent bias.
    bias: i32,
    /// Magnitude code of the largest finite value.
    max: u8,
    /// How specials are encoded.
    kind: Kind,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Kind {
    /// IEEE-like: inf = exponent all ones + mantissa 0, NaN otherwise.
    Ieee,
    /// No inf; NaN = all magnitude bits set.
    Fn,
    /// No inf, no -0; NaN = sign bit only (0x80).
    Fnuz,
    /// No inf, no NaN.
    Finite,
}

fn fmt_of(dt: DType) -> Option<Fmt> {
    Some(match dt {
        DType::F8E4M3FN => Fmt { e: 4, m: 3, bias: 7, max: 0x7E, kind: Kind::Fn },
        DType::F8E4M3FNUZ => Fmt { e: 4, m: 3, bias: 8, max: 0x7F, kind: Kind::Fnuz },
        DType::F8E5M2 => Fmt { e: 5, m: 2, bias: 15, max: 0x7B, kind: Kind::Ieee },
        DType::F8E5M2FNUZ => Fmt { e: 5, m: 2, bias: 16, max: 0x7F, kind: Kind::Fnuz },
        DType::F4E2M1 => Fmt { e: 2, m: 1, bias: 1, max: 0x7, kind: Kind::Finite },
        _ => return None,
    })
}

/// Rounding of float8 E8M0 conversions (Cast's `round_mode`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RoundMode {
    /// Round up to the next power of two (the ONNX default).
    Up,
    /// Round down (truncate the f32 mantissa).
    Down,
    /// Round to nearest, as the ONNX reference does it.
    Nearest,
}

impl RoundMode {
    /// Parse the attribute spelling (`up`, `down`, `nearest`).
    pub fn parse(s: &str) -> Result<RoundMode, String> {
        match s {
            "up" => Ok(RoundMode::Up),
            "down" => Ok(RoundMode::Down),
            "nearest" => Ok(RoundMode::Nearest),
            _ => Err(format!("unknown round_mode {s:?} (expected up, down or nearest)")),
        }
    }
}

/// Decode the raw bits of low-precision float type `dt` to `f64`.
pub fn decode(dt: DType, bits: u8) -> f64 {
    if dt == DType::F8E8M0 {
        return if bits == 0xFF { f64::NAN } else { 2f64.powi(bits as i32 - 127) };
    }
    let Some(f) = fmt_of(dt) else { return f64::NAN };
    let width = 1 + f.e + f.m;
    let bits = bits & ((1u16 << width) - 1) as u8;
    let sign_bit = 1u8 << (width - 1);
    let mag = bits & (sign_bit - 1);
    let neg = bits & sign_bit != 0;
    match f.kind {
        Kind::Fnuz if bits == sign_bit => return f64::NAN,
        Kind::Fn if mag == sign_bit - 1 => return f64::NAN,
        Kind::Ieee if mag >> f.m == (1 << f.e) - 1 => {
            return if mag & ((1 << f.m) - 1) != 0 {
                f64::NAN
            } else if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        _ => {}
    }
    let exp = (mag >> f.m) as i32;
    let man = (mag & ((1 << f.m) - 1)) as f64;
    let scale = 2f64.powi(f.m as i32);
    let v = if exp == 0 { man / scale * 2f64.powi(1 - f.bias) } else { (1.0 + man / scale) * 2f64.powi(exp - f.bias) };
    if neg {
        -v
    } else {
        v
    }
}

/// Magnitude code of finite `a >= 0` rounded to nearest-even in format `f`
/// (may exceed `f.max` on overflow).
fn magnitude(f: Fmt, a: f64) -> u32 {
    let emin = 1 - f.bias;
    if a < 2f64.powi(emin) {
        // Subnormal (or zero): integer multiples of the smallest step.
        return (a / 2f64.powi(emin - f.m as i32)).round_ties_even() as u32;
    }
    let e = ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023;
    let q = (a / 2f64.powi(e - f.m as i32)).round_ties_even() as u32; // in [2^m, 2^(m+1)]
    let biased = (e + f.bias) as u32;
    // q == 2^(m+1) carries into the exponent naturally.
    (biased << f.m) + (q - (1 << f.m))
}

/// Encode `x` into low-precision float type `dt` (not E8M0; see
/// [`encode_e8m0`]) with round-to-nearest-even and ONNX `saturate` semantics.
pub fn encode(dt: DType, x: f64, saturate: bool) -> u8 {
    if dt == DType::F8E8M0 {
        return encode_e8m0(x, saturate, RoundMode::Up);
    }
    let Some(f) = fmt_of(dt) else { return 0 };
    let width = 1 + f.e + f.m;
    let sign_bit = 1u8 << (width - 1);
    let nan = match f.kind {
        Kind::Ieee => (sign_bit - 1) & !1 | 1 << (f.m - 1), // quiet NaN 0x7E
        Kind::Fn => sign_bit - 1,
        Kind::Fnuz => sign_bit,
        Kind::Finite => sign_bit, // no NaN: ml_dtypes gives -0
    };
    if x.is_nan() {
        return nan;
    }
    let neg = x.is_sign_negative();
    let sign = if neg { sign_bit } else { 0 };
    let saturate = saturate || f.kind == Kind::Finite;
    let code = if x.is_infinite() { u32::MAX } else { magnitude(f, x.abs()) };
    let mag = if code <= f.max as u32 {
        code as u8
    } else if saturate {
        f.max
    } else {
        match f.kind {
            Kind::Ieee => f.max + 1, // inf
            Kind::Fnuz => return nan,
            _ => return nan | sign,
        }
    };
    if mag == 0 && f.kind == Kind::Fnuz {
        return 0;
    }
    mag | sign
}

/// Encode `x` into float8 E8M0, as `onnx.numpy_helper.to_float8e8m0` (the
/// value is first rounded to f32; the sign is ignored; NaN/inf give 0xFF).
pub fn encode_e8m0(x: f64, saturate: bool, mode: RoundMode) -> u8 {
    let bits = (x as f32).to_bits();
    let exp = (bits >> 23) & 0xFF;
    if exp == 0xFF {
        return 0xFF;
    }
    let up = match mode {
        RoundMode::Down => false,
        RoundMode::Up => bits & 0x7F_FFFF != 0,
        RoundMode::Nearest => {
            let g = bits & 0x40_0000 != 0;
            let r = bits & 0x20_0000 != 0;
            let s = bits & 0x1F_FFFF != 0;
            g && (r || s || exp > 0)
        }
    };
    let up = up && !(saturate && exp == 0xFE);
    (exp + up as u32) as u8
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

/// Data of low-precision float type `dt` from `f64`s (E8M0 rounds `up`);
/// `None` if `dt` is not a low-precision float type.
pub fn float_data(dt: DType, v: impl IntoIterator<Item = f64>, saturate: bool) -> Option<Data> {
    let enc = |v: &mut dyn Iterator<Item = f64>| -> Vec<u8> { v.map(|x| encode(dt, x, saturate)).collect() };
    let mut it = v.into_iter();
    Some(match dt {
        DType::F8E4M3FN => Data::F8E4M3FN(enc(&mut it)),
        DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(enc(&mut it)),
        DType::F8E5M2 => Data::F8E5M2(enc(&mut it)),
        DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(enc(&mut it)),
        DType::F8E8M0 => Data::F8E8M0(enc(&mut it)),
        DType::F4E2M1 => Data::F4E2M1(enc(&mut it)),
        _ => return None,
    })
}

/// Data of 4-bit / 2-bit integer type `dt` from `i128`s, wrapping; `None` if
/// `dt` is not one of those types.
pub fn int_data(dt: DType, v: impl IntoIterator<Item = i128>) -> Option<Data> {
    let it = v.into_iter().map(|x| wrap_small_int(dt, x));
    Some(match dt {
        DType::U4 => Data::U4(it.map(|x| x as u8).collect()),
        DType::I4 => Data::I4(it.map(|x| x as i8).collect()),
        DType::U2 => Data::U2(it.map(|x| x as u8).collect()),
        DType::I2 => Data::I2(it.map(|x| x as i8).collect()),
        _ => return None,
    })
}

/// Raw bytes (bit patterns / values) of low-precision data, one per element;
/// `None` for other element types.
pub fn raw_bytes(d: &Data) -> Option<Vec<u8>> {
    Some(match d {
        Data::F8E4M3FN(v) | Data::F8E4M3FNUZ(v) | Data::F8E5M2(v) | Data::F8E5M2FNUZ(v) => v.clone(),
        Data::F8E8M0(v) | Data::F4E2M1(v) | Data::U4(v) | Data::U2(v) => v.clone(),
        Data::I4(v) | Data::I2(v) => v.iter().map(|&x| x as u8).collect(),
        _ => return None,
    })
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

/// Low-precision data of type `dt` from raw one-per-byte bytes (bit patterns
/// for floats; two's-complement values for integers, which are wrapped).
pub fn from_raw(dt: DType, b: Vec<u8>) -> Option<Data> {
    Some(match dt {
        DType::F8E4M3FN => Data::F8E4M3FN(b),
        DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(b),
        DType::F8E5M2 => Data::F8E5M2(b),
        DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(b),
        DType::F8E8M0 => Data::F8E8M0(b),
        DType::F4E2M1 => Data::F4E2M1(b),
        _ => return int_data(dt, b.into_iter().map(|x| x as i8 as i128)),
    })
}
