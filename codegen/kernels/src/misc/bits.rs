//! Bitwise integer ops (`BitwiseAnd/Or/Xor/Not`, `BitShift`) with numpy
//! broadcasting.

use crate::ew::zip2;

/// A bitwise binary op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bitwise {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
}

/// Integer element types of the bitwise ops.
pub trait Bits:
    Copy
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// Width in bits.
    const BITS: u32;
    /// `x << s`, 0 when `s` is at least the width.
    fn shl(x: Self, s: Self) -> Self;
    /// `x >> s`, 0 when `s` is at least the width.
    fn shr(x: Self, s: Self) -> Self;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn shl(x: $t, s: $t) -> $t {
                u32::try_from(s).ok().and_then(|s| x.checked_shl(s)).unwrap_or(0)
            }
            #[inline]
            fn shr(x: $t, s: $t) -> $t {
                u32::try_from(s).ok().and_then(|s| x.checked_shr(s)).unwrap_or(0)
            }
        }
    )*};
}
bits!(u8, i8, i32, i64);

/// `out = a op b` with `a` and `b` broadcast to `out_shape`.
pub fn bitwise<T: Bits>(
    op: Bitwise,
    a_shape: &[usize],
    a: &[T],
    b_shape: &[usize],
    b: &[T],
    out_shape: &[usize],
    out: &mut [T],
) {
    match op {
        Bitwise::And => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x & y),
        Bitwise::Or => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x | y),
        Bitwise::Xor => zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| x ^ y),
    }
}

/// `BitwiseNot`.
pub fn bitwise_not<T: Bits>(x: &[T], y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "bitwise_not: lengths");
    y.iter_mut().zip(x).for_each(|(o, &v)| *o = !v);
}

/// `BitShift` (unsigned types): `x << s` (`left`) or `x >> s`, with `x` and
/// `s` broadcast to `out_shape`; a shift by the width or more gives 0.
pub fn bit_shift<T: Bits>(
    left: bool,
    x_shape: &[usize],
    x: &[T],
    s_shape: &[usize],
    s: &[T],
    out_shape: &[usize],
    out: &mut [T],
) {
    if left {
        zip2(x_shape, x, s_shape, s, out_shape, out, T::shl)
    } else {
        zip2(x_shape, x, s_shape, s, out_shape, out, T::shr)
    }
}
