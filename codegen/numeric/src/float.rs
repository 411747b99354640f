//! [`Float`]: the few operations the shared formulas need, for f32 and f64.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// An IEEE binary float (f32 or f64). The shared formulas are written once
/// over this trait so that each caller keeps its own precision: an f32 caller
/// computes every step in f32, an f64 caller in f64.
pub trait Float:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// `e^self`, the standard library's.
    fn exp(self) -> Self;
    /// `e^self - 1`, the standard library's.
    fn exp_m1(self) -> Self;
    /// `ln(1 + self)`, the standard library's.
    fn ln_1p(self) -> Self;
    /// `tanh(self)`, the standard library's.
    fn tanh(self) -> Self;
    /// `|self|`, the standard library's.
    fn abs(self) -> Self;
    /// The standard library's `max` (the other operand if one is NaN).
    fn max(self, other: Self) -> Self;
    /// The standard library's `clamp` (NaN stays NaN).
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// `x` rounded to this precision (parameter defaults are written in f64).
    fn from_f64(x: f64) -> Self;
}

/// [`Float`] for a primitive float type: every method is the standard
/// library's, `#[inline]` (see the crate's invariants).
macro_rules! std_float {
    ($t:ident) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            fn exp(self) -> Self {
                $t::exp(self)
            }
            #[inline]
            fn exp_m1(self) -> Self {
                $t::exp_m1(self)
            }
            #[inline]
            fn ln_1p(self) -> Self {
                $t::ln_1p(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                $t::tanh(self)
            }
            #[inline]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                $t::max(self, other)
            }
            #[inline]
            fn clamp(self, lo: Self, hi: Self) -> Self {
                $t::clamp(self, lo, hi)
            }
            #[inline]
            #[allow(clippy::unnecessary_cast)] // f64 as f64
            fn from_f64(x: f64) -> Self {
                x as $t
            }
        }
    };
}

std_float!(f32);
std_float!(f64);
