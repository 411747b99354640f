//! ONNX's sub-16-bit element types, one element per byte (unpacked):
//! the float8 formats [`F8E4M3FN`], [`F8E4M3FNUZ`], [`F8E5M2`],
//! [`F8E5M2FNUZ`], [`F8E8M0`], float4 [`F4E2M1`] (each holding its raw bit
//! pattern in the low bits), and the small integers [`I4`], [`U4`], [`I2`],
//! [`U2`] (each holding its value, always in range).
//! Shared infrastructure: element types of the elementwise (Cast), quant
//! and data-movement kernels, the weights file and `.npy` I/O.
//!
//! Conversions are bit-exact with edgec's interpreter (and the ONNX
//! reference):
//! - decoding is exact;
//! - encoding a float rounds to nearest-even once; with `saturate`, ±inf and
//!   values beyond the largest finite value become ±max finite (NaN stays
//!   NaN); without it overflow gives ±inf for E5M2 and NaN for the formats
//!   without infinity. FNUZ formats have no -0 (it and negative underflow
//!   encode as +0). E2M1 has no inf or NaN: it always saturates and NaN
//!   encodes as `0x8`.
//! - E8M0 is `2^(bits-127)` (`0xFF` is NaN); encoding first rounds to `f32`,
//!   ignores the sign and rounds the exponent per [`RoundMode`].
//! - the small integers wrap (two's complement).

mod npy;

pub use edgec_numeric::lowp::{decode_e8m0, encode_e8m0, RoundMode};
use edgec_numeric::lowp::{E2M1, E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ};

macro_rules! small_float {
    ($(#[$doc:meta])* $name:ident, $spec:expr) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug)]
        pub struct $name(pub u8);

        impl $name {
            /// The element with bit pattern `bits`.
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits)
            }
            /// The bit pattern.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
            /// From one byte (the bit pattern; extra high bits are kept, and
            /// ignored by [`Self::to_f64`]).
            pub const fn from_le_bytes(b: [u8; 1]) -> $name {
                $name(b[0])
            }
            /// The value, exactly.
            pub fn to_f64(self) -> f64 {
                $spec.decode(self.0)
            }
            /// `x` rounded to nearest-even; overflow saturates to ±max
            /// finite if `saturate`, else gives inf or NaN (see the module doc).
            pub fn encode(x: f64, saturate: bool) -> $name {
                $name($spec.encode(x, saturate))
            }
            /// `x` converted like numpy's `astype` (no saturation).
            pub fn from_f64(x: f64) -> $name {
                $name::encode(x, false)
            }
        }
    };
}

small_float!(
    /// float8 E4M3FN: 4 exponent bits (bias 7), 3 mantissa bits, no inf, NaN `0x7F`/`0xFF`.
    F8E4M3FN,
    E4M3FN
);
small_float!(
    /// float8 E4M3FNUZ: bias 8, no inf, no -0, NaN `0x80`.
    F8E4M3FNUZ,
    E4M3FNUZ
);
small_float!(
    /// float8 E5M2: 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like inf and NaN.
    F8E5M2,
    E5M2
);
small_float!(
    /// float8 E5M2FNUZ: bias 16, no inf, no -0, NaN `0x80`.
    F8E5M2FNUZ,
    E5M2FNUZ
);
small_float!(
    /// float4 E2M1 (in the low 4 bits): 2 exponent bits (bias 1), 1 mantissa bit, no inf or NaN.
    F4E2M1,
    E2M1
);

/// float8 E8M0: an exponent alone, `2^(bits-127)`; `0xFF` is NaN.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct F8E8M0(pub u8);

impl F8E8M0 {
    /// The element with bit pattern `bits`.
    pub const fn from_bits(bits: u8) -> F8E8M0 {
        F8E8M0(bits)
    }
    /// The bit pattern.
    pub const fn to_bits(self) -> u8 {
        self.0
    }
    /// From one byte (the bit pattern).
    pub const fn from_le_bytes(b: [u8; 1]) -> F8E8M0 {
        F8E8M0(b[0])
    }
    /// The value, exactly.
    pub fn to_f64(self) -> f64 {
        decode_e8m0(self.0)
    }
    /// `x` encoded with `round_mode` and `saturate` (see [`encode_e8m0`]).
    pub fn encode(x: f64, saturate: bool, mode: RoundMode) -> F8E8M0 {
        F8E8M0(encode_e8m0(x, saturate, mode))
    }
    /// `x` converted like numpy's `astype` (rounding up, no saturation).
    pub fn from_f64(x: f64) -> F8E8M0 {
        F8E8M0::encode(x, false, RoundMode::Up)
    }
}

macro_rules! small_int {
    ($(#[$doc:meta])* $name:ident($repr:ty), $bits:expr, $signed:expr) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name($repr);

        impl $name {
            /// The smallest value.
            pub const MIN: i32 = if $signed { -(1 << ($bits - 1)) } else { 0 };
            /// The largest value.
            pub const MAX: i32 = if $signed { (1 << ($bits - 1)) - 1 } else { (1 << $bits) - 1 };
            /// `v` wrapped into range (two's complement).
            pub const fn wrap(v: i128) -> $name {
                let low = v & ((1 << $bits) - 1);
                let v = if $signed && low >= 1 << ($bits - 1) { low - (1 << $bits) } else { low };
                $name(v as $repr)
            }
            /// `v` if it is in range.
            pub const fn new(v: i128) -> Option<$name> {
                if v >= Self::MIN as i128 && v <= Self::MAX as i128 {
                    Some($name(v as $repr))
                } else {
                    None
                }
            }
            /// The value.
            pub const fn get(self) -> $repr {
                self.0
            }
            /// From one byte holding a two's complement value (wrapped).
            pub const fn from_le_bytes(b: [u8; 1]) -> $name {
                $name::wrap(b[0] as i8 as i128)
            }
            /// `x` truncated toward zero and wrapped (NaN gives 0), like Cast.
            pub fn from_f64(x: f64) -> $name {
                if x.is_nan() {
                    $name(0)
                } else {
                    $name::wrap(x.trunc() as i128)
                }
            }
        }
    };
}

small_int!(
    /// 4-bit signed integer, -8..=7.
    I4(i8),
    4,
    true
);
small_int!(
    /// 4-bit unsigned integer, 0..=15.
    U4(u8),
    4,
    false
);
small_int!(
    /// 2-bit signed integer, -2..=1.
    I2(i8),
    2,
    true
);
small_int!(
    /// 2-bit unsigned integer, 0..=3.
    U2(u8),
    2,
    false
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(F8E4M3FN::encode(448.0, false).0, 0x7e);
        assert_eq!(F8E4M3FN::encode(480.0, false).0, 0x7f); // overflow without saturation: NaN
        assert_eq!(F8E4M3FN::encode(480.0, true).0, 0x7e);
        assert_eq!(F8E5M2::encode(f64::NAN, true).0, 0x7e);
        assert_eq!(F8E5M2::encode(-1e9, false).0, 0xfc);
        assert_eq!(F8E4M3FNUZ::encode(-0.0, true).0, 0);
        assert_eq!(F4E2M1::encode(1e9, false).0, 0x7);
        assert_eq!(F4E2M1::encode(f64::NAN, false).0, 0x8);
        assert_eq!(F4E2M1(0x5).to_f64(), 3.0);
        assert_eq!(F8E8M0::encode(3.0, false, RoundMode::Up).0, 129);
        assert_eq!(F8E8M0::encode(3.0, false, RoundMode::Down).0, 128);
        assert!(F8E8M0(0xff).to_f64().is_nan());
        assert_eq!(I4::wrap(-9).get(), 7);
        assert_eq!(U2::wrap(5).get(), 1);
        assert_eq!(I2::new(-3), None);
        assert_eq!(I4::from_le_bytes([0xf8]).get(), -8);
    }
}
