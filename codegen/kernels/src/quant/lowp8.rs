//! QuantizeLinear to float8 / float4 and DequantizeLinear from any
//! quantized type with f32, f16 or bf16 scales and outputs, with the
//! interpreter's rounding:
//!
//! - quantize: `q = x / scale` as one correctly rounded f32 division, plus
//!   the zero point for float4 (float8 ignores it), then encoded once with
//!   Cast's `saturate`;
//! - dequantize: `(x - zero_point) * scale` computed exactly in `f64` (the
//!   zero point is ignored for float8 / float4 inputs) and rounded once to
//!   the output type.

use super::{DeqInt, QInt, QLayout};
use crate::lowp::Real;
use crate::lowp8::{F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, I2, I4, U2, U4};

// The 4- and 2-bit integers are quantized integer types like u8 and i8.
macro_rules! qint_small {
    ($($t:ident),*) => {$(
        impl QInt for $t {
            const MIN: f32 = $t::MIN as f32;
            const MAX: f32 = $t::MAX as f32;
            #[inline]
            fn to_f32(self) -> f32 {
                self.get() as f32
            }
            #[inline]
            fn from_f32(x: f32) -> Self {
                $t::wrap(x as i128)
            }
        }
        impl DeqInt for $t {
            fn to_i64(self) -> i64 {
                self.get() as i64
            }
        }
    )*};
}
qint_small!(I4, U4, I2, U2);

/// A float8 / float4 element type QuantizeLinear produces.
pub trait QFloat: Copy {
    /// True if the zero point is added (float4), false if ignored (float8).
    const ADDS_ZERO_POINT: bool;
    /// The value, exactly.
    fn value(self) -> f64;
    /// `x` encoded with `saturate`.
    fn encode_sat(x: f64, saturate: bool) -> Self;
}

macro_rules! qfloat {
    ($($t:ident $zp:expr),*) => {$(
        impl QFloat for $t {
            const ADDS_ZERO_POINT: bool = $zp;
            fn value(self) -> f64 {
                self.to_f64()
            }
            fn encode_sat(x: f64, saturate: bool) -> $t {
                $t::encode(x, saturate)
            }
        }
    )*};
}
qfloat!(F8E4M3FN false, F8E4M3FNUZ false, F8E5M2 false, F8E5M2FNUZ false, F4E2M1 true);

/// QuantizeLinear from f32 to a float8 / float4 type (see the module doc).
pub fn quantize_float<T: QFloat>(
    layout: QLayout,
    x: &[f32],
    scale: &[f32],
    zp: Option<&[T]>,
    y: &mut [T],
    saturate: bool,
) {
    assert_eq!(x.len(), y.len(), "quantize: x has {} elements, y {}", x.len(), y.len());
    assert!(zp.is_none_or(|z| z.len() == scale.len()), "quantize: zero point and scale lengths differ");
    for (i, (&v, out)) in x.iter().zip(y.iter_mut()).enumerate() {
        let p = layout.index(i);
        let z = if T::ADDS_ZERO_POINT { zp.map_or(0.0, |z| z[p].value()) } else { 0.0 };
        *out = T::encode_sat((v / scale[p]) as f64 + z, saturate);
    }
}

/// An element DequantizeLinear reads.
pub trait DeqElem: Copy {
    /// `x - zero_point` (exact; float8 / float4 ignore the zero point).
    fn centered(self, zp: Option<Self>) -> f64;
}

macro_rules! deq_int {
    ($($t:ty),*) => {$(
        impl DeqElem for $t {
            fn centered(self, zp: Option<$t>) -> f64 {
                (self as i64 - zp.map_or(0, |z| z as i64)) as f64
            }
        }
    )*};
}
deq_int!(u8, i8, i16, u16, i32);

macro_rules! deq_small {
    ($($t:ident),*) => {$(
        impl DeqElem for $t {
            fn centered(self, zp: Option<$t>) -> f64 {
                (self.get() as i64 - zp.map_or(0, |z| z.get() as i64)) as f64
            }
        }
    )*};
}
deq_small!(I4, U4, I2, U2);

macro_rules! deq_float {
    ($($t:ident),*) => {$(
        impl DeqElem for $t {
            fn centered(self, _: Option<$t>) -> f64 {
                self.to_f64()
            }
        }
    )*};
}
deq_float!(F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F4E2M1);

/// DequantizeLinear with any scale and output float type `S`, `O` (f32,
/// f16, bf16, f64).
pub fn dequantize_real<T: DeqElem, S: Real, O: Real>(
    layout: QLayout,
    x: &[T],
    scale: &[S],
    zp: Option<&[T]>,
    y: &mut [O],
) {
    assert_eq!(x.len(), y.len(), "dequantize: x has {} elements, y {}", x.len(), y.len());
    assert!(zp.is_none_or(|z| z.len() == scale.len()), "dequantize: zero point and scale lengths differ");
    for (i, (&v, out)) in x.iter().zip(y.iter_mut()).enumerate() {
        let p = layout.index(i);
        *out = O::from_f64(v.centered(zp.map(|z| z[p])) * scale[p].to_f64());
    }
}
