//! ONNX `Cast` between f32, f64, F16, BF16, the 8- to 64-bit integers and
//! bool:
//!
//! - float → integer truncates toward zero; out-of-range values saturate and
//!   NaN becomes 0 (ONNX leaves them undefined; the interpreter does the same);
//! - integer → integer wraps (two's complement);
//! - integer → float and float → narrower float round to nearest (even),
//!   once;
//! - bool → number is 0/1; number → bool is `!= 0` (NaN is true).

use crate::lowp::{BF16, F16};

/// Conversion from `S` with ONNX `Cast` semantics.
pub trait CastFrom<S>: Sized {
    /// `v` converted.
    fn cast_from(v: S) -> Self;
}

macro_rules! impl_cast {
    ($($t:ty),*) => {
        impl_cast!(@each [$($t),*] [$($t),*]);
        $(
            impl CastFrom<bool> for $t {
                #[inline]
                fn cast_from(v: bool) -> $t {
                    v as u8 as $t
                }
            }
            impl CastFrom<$t> for bool {
                #[inline]
                #[allow(clippy::float_cmp)]
                fn cast_from(v: $t) -> bool {
                    v != 0 as $t
                }
            }
        )*
    };
    (@each [$($s:ty),*] $d:tt) => {
        $( impl_cast!(@one $s $d); )*
    };
    (@one $s:ty [$($d:ty),*]) => {
        $(
            impl CastFrom<$s> for $d {
                #[inline]
                fn cast_from(v: $s) -> $d {
                    v as $d
                }
            }
        )*
    };
}
impl_cast!(f32, f64, i64, i32, i16, i8, u64, u32, u16, u8);

impl CastFrom<bool> for bool {
    #[inline]
    fn cast_from(v: bool) -> bool {
        v
    }
}

/// `v` as `f64`, rounded to odd when it needs more than 53 bits, so that a
/// second rounding to a narrower float equals one direct rounding of `v`.
pub(crate) fn int_to_f64_odd(v: i128) -> f64 {
    let m = v.unsigned_abs();
    let bits = 128 - m.leading_zeros();
    if bits <= 53 {
        return v as f64;
    }
    let shift = bits - 53;
    let kept = (m >> shift) | (m & ((1u128 << shift) - 1) != 0) as u128;
    let mag = kept as f64 * f64::from_bits(((shift + 1023) as u64) << 52);
    if v < 0 {
        -mag
    } else {
        mag
    }
}

/// Casts to and from the 16-bit floats go through `f64` (exact for every
/// float source; integers are rounded to odd first), so each is rounded once.
macro_rules! impl_cast_half {
    ($h:ty: floats $($f:ty),*; ints $($i:ty),*) => {
        $(
            impl CastFrom<$f> for $h {
                #[inline]
                fn cast_from(v: $f) -> $h {
                    <$h>::from_f64(v as f64)
                }
            }
        )*
        $(
            impl CastFrom<$i> for $h {
                #[inline]
                fn cast_from(v: $i) -> $h {
                    <$h>::from_f64(int_to_f64_odd(v as i128))
                }
            }
        )*
        $(
            impl CastFrom<$h> for $f {
                #[inline]
                fn cast_from(v: $h) -> $f {
                    v.to_f64() as $f
                }
            }
        )*
        $(
            impl CastFrom<$h> for $i {
                #[inline]
                fn cast_from(v: $h) -> $i {
                    v.to_f64() as $i
                }
            }
        )*
        impl CastFrom<bool> for $h {
            #[inline]
            fn cast_from(v: bool) -> $h {
                <$h>::from_f64(v as u8 as f64)
            }
        }
        impl CastFrom<$h> for bool {
            #[inline]
            fn cast_from(v: $h) -> bool {
                v.to_f64() != 0.0
            }
        }
        impl CastFrom<F16> for $h {
            #[inline]
            fn cast_from(v: F16) -> $h {
                <$h>::from_f64(v.to_f64())
            }
        }
        impl CastFrom<BF16> for $h {
            #[inline]
            fn cast_from(v: BF16) -> $h {
                <$h>::from_f64(v.to_f64())
            }
        }
    };
}
impl_cast_half!(F16: floats f32, f64; ints i64, i32, i16, i8, u64, u32, u16, u8);
impl_cast_half!(BF16: floats f32, f64; ints i64, i32, i16, i8, u64, u32, u16, u8);

/// `y[i] = x[i] as D` with ONNX `Cast` semantics.
pub fn cast<S: Copy, D: CastFrom<S>>(x: &[S], y: &mut [D]) {
    assert_eq!(x.len(), y.len(), "cast: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| *y = D::cast_from(x));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnx_cast_rules() {
        let mut i = [0i32; 5];
        cast(&[-1.9f32, 2.9, f32::NAN, 1e20, -1e20], &mut i);
        assert_eq!(i, [-1, 2, 0, i32::MAX, i32::MIN]);
        let mut u = [0u8; 2];
        cast(&[300i64, -1], &mut u);
        assert_eq!(u, [44, 255]);
        let mut b = [false; 3];
        cast(&[0.0f32, -0.0, f32::NAN], &mut b);
        assert_eq!(b, [false, false, true]);
        let mut f = [0f32; 2];
        cast(&[true, false], &mut f);
        assert_eq!(f, [1.0, 0.0]);
        let mut g = [0f32; 1];
        cast(&[16_777_217i64], &mut g);
        assert_eq!(g, [16_777_216.0]);
    }
}
