//! Broadcasting arithmetic (`Add`, `Sub`, `Mul`, `Div`, `Pow`, `Max`, `Min`,
//! `Mod`, `PRelu`) for every numeric element type (f32, f64, F16, BF16 and
//! the 8- to 64-bit integers), in place or not, and the
//! variadic `Sum`/`Max`/`Min`/`Mean`.
//!
//! f32 results are the correctly rounded IEEE results, so they equal the
//! interpreter's (which computes in f64 and rounds once) exactly, except
//! `Pow` (libm `powf`, within an ulp or two); f64, F16 and BF16 compute in
//! f64 and round once, like the interpreter. Integers wrap like numpy;
//! integer division and modulus by zero give 0 (ONNX leaves them undefined,
//! the interpreter reports an error).

use super::broadcast::{map1, zip2, zip2_inplace};
use crate::lowp::{Real, BF16, F16};

/// A two-operand arithmetic op.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (integers truncate toward zero).
    Div,
    /// `a ^ b` (integers: exact wrapping power; a negative exponent gives
    /// the truncated real result, 0 unless `a` is ±1).
    Pow,
    /// NaN-propagating maximum.
    Max,
    /// NaN-propagating minimum.
    Min,
    /// Remainder: `fmod` (C, sign of the dividend) or, without it, Python's
    /// `%` (sign of the divisor).
    Mod {
        /// C `fmod` semantics.
        fmod: bool,
    },
    /// `a > 0 ? a : a * b` (`b` is the slope).
    PRelu,
}

/// An element type with the [`Binary`] ops.
pub trait Num: Copy + PartialOrd {
    /// `n` in this type (the divisor of `Mean`).
    fn from_count(n: usize) -> Self;
    /// `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// `a - b`.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b`.
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b`.
    fn div(a: Self, b: Self) -> Self;
    /// `a ^ b`.
    fn pow(a: Self, b: Self) -> Self;
    /// NaN-propagating maximum.
    fn max(a: Self, b: Self) -> Self;
    /// NaN-propagating minimum.
    fn min(a: Self, b: Self) -> Self;
    /// C `fmod`.
    fn fmod(a: Self, b: Self) -> Self;
    /// Python `%`.
    fn pymod(a: Self, b: Self) -> Self;
    /// `a > 0 ? a : a * b`.
    fn prelu(a: Self, b: Self) -> Self;
}

impl Num for f32 {
    fn from_count(n: usize) -> f32 {
        n as f32
    }
    #[inline]
    fn add(a: f32, b: f32) -> f32 {
        a + b
    }
    #[inline]
    fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    #[inline]
    fn mul(a: f32, b: f32) -> f32 {
        a * b
    }
    #[inline]
    fn div(a: f32, b: f32) -> f32 {
        a / b
    }
    #[inline]
    fn pow(a: f32, b: f32) -> f32 {
        a.powf(b)
    }
    #[inline]
    fn max(a: f32, b: f32) -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if b > a {
            b
        } else {
            a
        }
    }
    #[inline]
    fn min(a: f32, b: f32) -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if b < a {
            b
        } else {
            a
        }
    }
    #[inline]
    fn fmod(a: f32, b: f32) -> f32 {
        a % b
    }
    #[inline]
    fn pymod(a: f32, b: f32) -> f32 {
        let r = a % b;
        if r != 0.0 && (r < 0.0) != (b < 0.0) {
            r + b
        } else {
            r
        }
    }
    #[inline]
    fn prelu(a: f32, b: f32) -> f32 {
        if a > 0.0 {
            a
        } else {
            a * b
        }
    }
}

macro_rules! impl_int_num {
    ($($t:ty),*) => {$(
        // One body for signed and unsigned types: sign tests are constant
        // false for the unsigned ones.
        #[allow(unused_comparisons)]
        impl Num for $t {
            fn from_count(n: usize) -> $t {
                n as $t
            }
            #[inline]
            fn add(a: $t, b: $t) -> $t {
                a.wrapping_add(b)
            }
            #[inline]
            fn sub(a: $t, b: $t) -> $t {
                a.wrapping_sub(b)
            }
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                a.wrapping_mul(b)
            }
            #[inline]
            fn div(a: $t, b: $t) -> $t {
                if b == 0 { 0 } else { a.wrapping_div(b) }
            }
            #[inline]
            fn pow(a: $t, b: $t) -> $t {
                if b < 0 {
                    // The truncated real power: 0 unless the base is 1 or -1.
                    let minus_one = (0 as $t).wrapping_sub(1);
                    return match a {
                        1 => 1,
                        _ if a == minus_one && <$t>::MIN != 0 => if b % 2 == 0 { 1 } else { minus_one },
                        _ => 0,
                    };
                }
                let (mut r, mut base, mut e) = (1 as $t, a, b);
                while e > 0 {
                    if e & 1 == 1 {
                        r = r.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                r
            }
            #[inline]
            fn max(a: $t, b: $t) -> $t {
                Ord::max(a, b)
            }
            #[inline]
            fn min(a: $t, b: $t) -> $t {
                Ord::min(a, b)
            }
            #[inline]
            fn fmod(a: $t, b: $t) -> $t {
                if b == 0 { 0 } else { a.wrapping_rem(b) }
            }
            #[inline]
            fn pymod(a: $t, b: $t) -> $t {
                let r = Self::fmod(a, b);
                if r != 0 && (r < 0) != (b < 0) { r + b } else { r }
            }
            #[inline]
            fn prelu(a: $t, b: $t) -> $t {
                if a > 0 { a } else { a.wrapping_mul(b) }
            }
        }
    )*};
}
impl_int_num!(i64, i32, i16, i8, u64, u32, u16, u8);

/// `f64`, `F16` and `BF16`: computed in `f64` and rounded once per op, the
/// interpreter's arithmetic exactly (for `f64` itself, IEEE `f64`).
macro_rules! impl_real_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn from_count(n: usize) -> $t {
                <$t>::from_f64(n as f64)
            }
            #[inline]
            fn add(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64() + b.to_f64())
            }
            #[inline]
            fn sub(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64() - b.to_f64())
            }
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64() * b.to_f64())
            }
            #[inline]
            fn div(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64() / b.to_f64())
            }
            #[inline]
            fn pow(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64().powf(b.to_f64()))
            }
            #[inline]
            fn max(a: $t, b: $t) -> $t {
                if a.to_f64().is_nan() || b.to_f64().is_nan() {
                    <$t>::from_f64(f64::NAN)
                } else if b > a {
                    b
                } else {
                    a
                }
            }
            #[inline]
            fn min(a: $t, b: $t) -> $t {
                if a.to_f64().is_nan() || b.to_f64().is_nan() {
                    <$t>::from_f64(f64::NAN)
                } else if b < a {
                    b
                } else {
                    a
                }
            }
            #[inline]
            fn fmod(a: $t, b: $t) -> $t {
                <$t>::from_f64(a.to_f64() % b.to_f64())
            }
            #[inline]
            fn pymod(a: $t, b: $t) -> $t {
                <$t>::from_f64(pymod_f64(a.to_f64(), b.to_f64()))
            }
            #[inline]
            fn prelu(a: $t, b: $t) -> $t {
                let x = a.to_f64();
                if x > 0.0 { a } else { <$t>::from_f64(x * b.to_f64()) }
            }
        }
    )*};
}
impl_real_num!(f64, F16, BF16);

/// Python's `%` on floats (the result has the sign of the divisor).
fn pymod_f64(a: f64, b: f64) -> f64 {
    let r = a % b;
    if r != 0.0 && (r < 0.0) != (b < 0.0) {
        r + b
    } else {
        r
    }
}

/// Run `$body` with `$f` bound to the element function of `$op` for `T`
/// (a function item, so every op gets its own inlined loop).
macro_rules! with_op {
    ($op:expr, |$f:ident| $body:expr) => {
        match $op {
            Binary::Add => {
                let $f = T::add;
                $body
            }
            Binary::Sub => {
                let $f = T::sub;
                $body
            }
            Binary::Mul => {
                let $f = T::mul;
                $body
            }
            Binary::Div => {
                let $f = T::div;
                $body
            }
            Binary::Pow => {
                let $f = T::pow;
                $body
            }
            Binary::Max => {
                let $f = T::max;
                $body
            }
            Binary::Min => {
                let $f = T::min;
                $body
            }
            Binary::Mod { fmod: true } => {
                let $f = T::fmod;
                $body
            }
            Binary::Mod { fmod: false } => {
                let $f = T::pymod;
                $body
            }
            Binary::PRelu => {
                let $f = T::prelu;
                $body
            }
        }
    };
}

/// `out = a op b` with numpy broadcasting of `a` and `b` to `out_shape`.
pub fn binary<T: Num>(
    op: Binary,
    a_shape: &[usize],
    a: &[T],
    b_shape: &[usize],
    b: &[T],
    out_shape: &[usize],
    out: &mut [T],
) {
    with_op!(op, |f| zip2(a_shape, a, b_shape, b, out_shape, out, f))
}

/// `acc = acc op b`, `b` broadcast to `acc`'s shape `out_shape`.
pub fn binary_inplace<T: Num>(op: Binary, out_shape: &[usize], acc: &mut [T], b_shape: &[usize], b: &[T]) {
    with_op!(op, |f| zip2_inplace(out_shape, acc, b_shape, b, f))
}

/// `acc = b op acc` (for non-commutative ops whose right operand's buffer is
/// reused for the result), `b` broadcast to `acc`'s shape `out_shape`.
pub fn binary_inplace_rev<T: Num>(op: Binary, out_shape: &[usize], acc: &mut [T], b_shape: &[usize], b: &[T]) {
    with_op!(op, |f| zip2_inplace(out_shape, acc, b_shape, b, |x, y| f(y, x)))
}

/// A variadic elementwise op (`Sum`, `Max`, `Min`, `Mean` of ONNX).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variadic {
    /// Left-to-right sum, rounded after each addition.
    Sum,
    /// NaN-propagating maximum.
    Max,
    /// NaN-propagating minimum.
    Min,
    /// The sum divided by the operand count (integers truncate).
    Mean,
}

/// `out = inputs[0] op inputs[1] op ...`, every `(shape, data)` operand
/// broadcast to `out_shape`. At least one operand.
pub fn variadic<T: Num>(op: Variadic, inputs: &[(&[usize], &[T])], out_shape: &[usize], out: &mut [T]) {
    assert!(!inputs.is_empty(), "a variadic op needs at least one operand");
    let (s0, x0) = inputs[0];
    map1(s0, x0, out_shape, out, |v| v);
    let bin = match op {
        Variadic::Sum | Variadic::Mean => Binary::Add,
        Variadic::Max => Binary::Max,
        Variadic::Min => Binary::Min,
    };
    for &(s, x) in &inputs[1..] {
        binary_inplace(bin, out_shape, out, s, x);
    }
    if op == Variadic::Mean {
        let n = T::from_count(inputs.len());
        out.iter_mut().for_each(|v| *v = T::div(*v, n));
    }
}
