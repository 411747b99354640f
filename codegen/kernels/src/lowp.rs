//! The 16-bit float element types `F16` (IEEE binary16) and `BF16`
//! (bfloat16), stored as their bit patterns, and the [`Real`] view every
//! float element type shares.
//! Shared infrastructure: element types the kernels of every family are
//! generic over.
//!
//! Conversions are bit-exact and need no other crate:
//! - widening (`to_f32`, `to_f64`) is exact; NaNs become quiet NaNs keeping
//!   their sign and payload bits;
//! - narrowing from `f64` (and hence from `f32`, which widens exactly) rounds
//!   to nearest, ties to even, once: overflow gives ±inf, underflow gives
//!   subnormals or a signed zero, NaN stays a quiet NaN.
//!
//! Arithmetic on these types (in [`crate::elementwise`]) widens to `f64`, computes and
//! rounds once per ONNX operation, exactly like edgec's interpreter.

use edgec_numeric::float16::narrow;
use std::cmp::Ordering;
use std::fmt;

/// The value of bit pattern `h` of the 16-bit format with `e` exponent and
/// `m` mantissa bits, exactly.
fn widen(h: u16, e: u32, m: u32) -> f64 {
    let neg = h >> 15 != 0;
    let all_ones = (1u16 << e) - 1;
    let field = (h >> m) & all_ones;
    let man = (h & ((1u16 << m) - 1)) as u64;
    let sign = (neg as u64) << 63;
    if field == all_ones {
        let bits = if man == 0 { sign | 0x7ffu64 << 52 } else { sign | 0x7ffu64 << 52 | 1 << 51 | man << (52 - m) };
        return f64::from_bits(bits);
    }
    let bias = (1i32 << (e - 1)) - 1;
    let v = if field == 0 {
        man as f64 * pow2(1 - bias - m as i32)
    } else {
        ((1u64 << m) | man) as f64 * pow2(field as i32 - bias - m as i32)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// `2^k` for `-1022 <= k <= 1023`, exactly.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `w` (a widened 16-bit value) as `f32`; exact, NaN payloads kept.
fn to_f32_exact(w: f64) -> f32 {
    if w.is_nan() {
        let b = w.to_bits();
        return f32::from_bits(((b >> 63) as u32) << 31 | 0x7fc0_0000 | ((b >> 29) as u32 & 0x003f_ffff));
    }
    w as f32
}

macro_rules! half_type {
    ($(#[$doc:meta])* $name:ident, $e:expr, $m:expr) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Default)]
        pub struct $name(pub u16);

        impl $name {
            /// Positive zero.
            pub const ZERO: $name = $name(0);
            /// The value with bit pattern `bits`.
            pub const fn from_bits(bits: u16) -> $name {
                $name(bits)
            }
            /// The bit pattern.
            pub const fn to_bits(self) -> u16 {
                self.0
            }
            /// `x` rounded to nearest-even.
            pub const fn from_f64(x: f64) -> $name {
                $name(narrow(x, $e, $m))
            }
            /// `x` rounded to nearest-even.
            pub const fn from_f32(x: f32) -> $name {
                $name(narrow(x as f64, $e, $m))
            }
            /// The value, exactly.
            pub fn to_f64(self) -> f64 {
                widen(self.0, $e, $m)
            }
            /// The value, exactly.
            pub fn to_f32(self) -> f32 {
                to_f32_exact(self.to_f64())
            }
            /// True for NaN.
            pub fn is_nan(self) -> bool {
                self.to_f64().is_nan()
            }
            /// Little-endian bytes.
            pub fn to_le_bytes(self) -> [u8; 2] {
                self.0.to_le_bytes()
            }
            /// From little-endian bytes.
            pub fn from_le_bytes(b: [u8; 2]) -> $name {
                $name(u16::from_le_bytes(b))
            }
        }

        /// IEEE equality: NaN is unequal to everything, `-0 == +0`.
        impl PartialEq for $name {
            fn eq(&self, o: &$name) -> bool {
                self.to_f64() == o.to_f64()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, o: &$name) -> Option<Ordering> {
                self.to_f64().partial_cmp(&o.to_f64())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }
    };
}

half_type!(
    /// IEEE 754 binary16: 5 exponent bits, 10 mantissa bits.
    F16,
    5,
    10
);
half_type!(
    /// bfloat16: the top half of an `f32` (8 exponent bits, 7 mantissa bits).
    BF16,
    8,
    7
);

/// A float element type, seen through `f64` (exact for every one of them).
pub trait Real: Copy + PartialOrd {
    /// The value, exactly.
    fn to_f64(self) -> f64;
    /// `x` rounded once to this type (nearest-even).
    fn from_f64(x: f64) -> Self;
}

impl Real for f32 {
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Real for f64 {
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> f64 {
        x
    }
}

impl Real for F16 {
    #[inline]
    fn to_f64(self) -> f64 {
        F16::to_f64(self)
    }
    #[inline]
    fn from_f64(x: f64) -> F16 {
        F16::from_f64(x)
    }
}

impl Real for BF16 {
    #[inline]
    fn to_f64(self) -> f64 {
        BF16::to_f64(self)
    }
    #[inline]
    fn from_f64(x: f64) -> BF16 {
        BF16::from_f64(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(F16::from_f32(1.0).0, 0x3c00);
        assert_eq!(F16::from_f32(65504.0).0, 0x7bff);
        assert_eq!(F16::from_f32(65520.0).0, 0x7c00); // the midpoint to 2^16 rounds to inf
        assert_eq!(F16::from_f32(65519.99).0, 0x7bff);
        assert_eq!(F16::from_f64(2f64.powi(-24)).0, 0x0001);
        assert_eq!(F16::from_f64(2f64.powi(-25)).0, 0x0000); // tie to even
        assert_eq!(F16::from_f64(-2f64.powi(-25) * 1.5).0, 0x8001);
        assert_eq!(F16(0x0001).to_f64(), 2f64.powi(-24));
        assert_eq!(BF16::from_f32(1.0).0, 0x3f80);
        assert_eq!(BF16::from_f32(f32::from_bits(0x3f80_8000)).0, 0x3f80); // tie to even
        assert_eq!(BF16::from_f32(f32::from_bits(0x3f81_8000)).0, 0x3f82);
        assert_eq!(BF16::from_f32(f32::MAX).0, 0x7f80);
        assert!(F16::from_f64(f64::NAN).is_nan() && BF16::from_f32(-f32::NAN).is_nan());
        assert_eq!(F16(0x8000), F16(0));
        assert_ne!(F16(0x7e00), F16(0x7e00));
    }

    #[test]
    fn round_trips_every_pattern() {
        for b in 0..=u16::MAX {
            let (h, g) = (F16(b), BF16(b));
            if !h.is_nan() {
                assert_eq!(F16::from_f64(h.to_f64()).0, b);
                assert_eq!(F16::from_f32(h.to_f32()).0, b);
            }
            if !g.is_nan() {
                assert_eq!(BF16::from_f32(g.to_f32()).0, b);
                assert_eq!(g.to_f32().to_bits(), (b as u32) << 16);
            }
        }
    }
}
