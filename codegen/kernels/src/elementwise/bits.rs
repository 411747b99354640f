//! Bitwise ops on integers (`BitwiseAnd`/`Or`/`Xor`/`Not`, `BitShift`),
//! with numpy broadcasting. A shift by the type's width or more gives 0
//! (ONNX defines `BitShift` on unsigned types only).

use super::broadcast::zip2;

/// A two-operand bitwise op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bitwise {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a << b` (0 once `b` reaches the width).
    ShiftLeft,
    /// `a >> b` (0 once `b` reaches the width).
    ShiftRight,
}

/// An integer element type with the [`Bitwise`] ops.
pub trait Bits: Copy {
    /// `a op b`.
    fn apply(op: Bitwise, a: Self, b: Self) -> Self;
    /// `!a`.
    fn not(a: Self) -> Self;
}

macro_rules! impl_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline]
            fn apply(op: Bitwise, a: $t, b: $t) -> $t {
                // A negative amount (signed types only) shifts everything out too.
                let amount = u32::try_from(b).ok().filter(|&s| s < <$t>::BITS);
                match op {
                    Bitwise::And => a & b,
                    Bitwise::Or => a | b,
                    Bitwise::Xor => a ^ b,
                    Bitwise::ShiftLeft => amount.map_or(0, |s| a << s),
                    Bitwise::ShiftRight => amount.map_or(0, |s| a >> s),
                }
            }
            #[inline]
            fn not(a: $t) -> $t {
                !a
            }
        }
    )*};
}
impl_bits!(i64, i32, i16, i8, u64, u32, u16, u8);

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
    zip2(a_shape, a, b_shape, b, out_shape, out, |x, y| T::apply(op, x, y));
}

/// `y = !x`.
pub fn bitwise_not<T: Bits>(x: &[T], y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "bitwise_not: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| *y = T::not(x));
}
