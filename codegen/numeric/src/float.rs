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

impl Float for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline]
    fn exp(self) -> Self {
        f32::exp(self)
    }
    #[inline]
    fn exp_m1(self) -> Self {
        f32::exp_m1(self)
    }
    #[inline]
    fn ln_1p(self) -> Self {
        f32::ln_1p(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        f32::tanh(self)
    }
    #[inline]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        f32::max(self, other)
    }
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        f32::clamp(self, lo, hi)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline]
    fn exp_m1(self) -> Self {
        f64::exp_m1(self)
    }
    #[inline]
    fn ln_1p(self) -> Self {
        f64::ln_1p(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        f64::max(self, other)
    }
    #[inline]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        f64::clamp(self, lo, hi)
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
}
