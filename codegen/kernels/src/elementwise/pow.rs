//! `Pow` whose exponent has another element type than the base (ONNX allows
//! any numeric exponent; the result has the base's type), as the
//! interpreter evaluates it: a float base uses `f64` `powf` rounded once;
//! an integer base with an integer exponent is the exact wrapping power (a
//! negative exponent gives the truncated real result, 0 unless the base is
//! ±1); an integer base with a float exponent truncates the real power
//! toward zero (saturating, NaN gives 0).

use super::broadcast::zip2;
use crate::lowp::{Real, BF16, F16};

/// A number widened without loss: `f64` for floats, `i128` for integers.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Wide {
    /// A float.
    F(f64),
    /// An integer.
    I(i128),
}

impl Wide {
    fn as_f64(self) -> f64 {
        match self {
            Wide::F(x) => x,
            Wide::I(i) => i as f64,
        }
    }
}

/// An element type usable as a `Pow` exponent.
pub trait Exponent: Copy {
    /// The value, widened.
    fn wide(self) -> Wide;
}

/// An element type usable as a `Pow` base.
pub trait Base: Copy {
    /// `self ^ e` in this type.
    fn pow_wide(self, e: Wide) -> Self;
}

/// Integer power with wrapping multiplication (mod 2^128, narrowed by the caller).
fn int_pow(base: i128, exp: i128) -> i128 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 if exp % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
    }
    let (mut r, mut b, mut e) = (1i128, base, exp);
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

macro_rules! int_pow_types {
    ($($t:ty),*) => {$(
        impl Exponent for $t {
            #[inline]
            fn wide(self) -> Wide {
                Wide::I(self as i128)
            }
        }
        impl Base for $t {
            #[inline]
            fn pow_wide(self, e: Wide) -> $t {
                match e {
                    Wide::I(e) => int_pow(self as i128, e) as $t,
                    Wide::F(f) => (self as f64).powf(f) as $t,
                }
            }
        }
    )*};
}
int_pow_types!(i64, i32, i16, i8, u64, u32, u16, u8);

macro_rules! float_pow_types {
    ($($t:ty),*) => {$(
        impl Exponent for $t {
            #[inline]
            fn wide(self) -> Wide {
                Wide::F(Real::to_f64(self))
            }
        }
        impl Base for $t {
            #[inline]
            fn pow_wide(self, e: Wide) -> $t {
                <$t as Real>::from_f64(Real::to_f64(self).powf(e.as_f64()))
            }
        }
    )*};
}
float_pow_types!(f32, f64, F16, BF16);

/// `out = a ^ b` with numpy broadcasting, `b` of any numeric type.
pub fn pow_mixed<T: Base, E: Exponent>(
    a_shape: &[usize],
    a: &[T],
    b_shape: &[usize],
    b: &[E],
    out_shape: &[usize],
    out: &mut [T],
) {
    zip2(a_shape, a, b_shape, b, out_shape, out, |x, e| x.pow_wide(e.wide()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_types() {
        let mut y = [0f32; 3];
        pow_mixed(&[3], &[2.0f32, -2.0, 0.5], &[3], &[3i64, 2, -1], &[3], &mut y);
        assert_eq!(y, [8.0, 4.0, 2.0]);
        let mut i = [0i32; 4];
        pow_mixed(&[4], &[2i32, -1, 3, 7], &[4], &[10u64, 3, 0, 40], &[4], &mut i);
        assert_eq!(i, [1024, -1, 1, 7i32.wrapping_pow(40)]);
        pow_mixed(&[2], &[4i32, 2], &[2], &[0.5f32, -1.0], &[2], &mut i[..2]);
        assert_eq!(i[..2], [2, 0]);
    }
}
