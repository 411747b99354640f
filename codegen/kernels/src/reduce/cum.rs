//! `CumSum` and `CumProd`: running sums and products along one axis.
//!
//! Invariant (edgec's interpreter semantics): floats accumulate in `f64` and
//! each output is rounded once to the element type; integers wrap (two's
//! complement) in their own width. `exclusive` leaves out the current element
//! (the first output is the identity), `reverse` scans from the end.

use crate::lowp::{Real, BF16, F16};

/// An element type that can be scanned: its accumulator and the two folds.
pub trait CumElem: Copy {
    /// The running value (`f64` for floats, the type itself for integers).
    type Acc: Copy;
    /// The identity of `+`.
    const ZERO: Self::Acc;
    /// The identity of `*`.
    const ONE: Self::Acc;
    /// `acc + x`.
    fn add(acc: Self::Acc, x: Self) -> Self::Acc;
    /// `acc * x`.
    fn mul(acc: Self::Acc, x: Self) -> Self::Acc;
    /// The accumulator rounded to the element type.
    fn get(acc: Self::Acc) -> Self;
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl CumElem for $t {
            type Acc = $t;
            const ZERO: $t = 0;
            const ONE: $t = 1;
            #[inline]
            fn add(acc: $t, x: $t) -> $t {
                acc.wrapping_add(x)
            }
            #[inline]
            fn mul(acc: $t, x: $t) -> $t {
                acc.wrapping_mul(x)
            }
            #[inline]
            fn get(acc: $t) -> $t {
                acc
            }
        }
    )*};
}
impl_int!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! impl_float {
    ($($t:ty),*) => {$(
        impl CumElem for $t {
            type Acc = f64;
            const ZERO: f64 = 0.0;
            const ONE: f64 = 1.0;
            #[inline]
            fn add(acc: f64, x: $t) -> f64 {
                acc + Real::to_f64(x)
            }
            #[inline]
            fn mul(acc: f64, x: $t) -> f64 {
                acc * Real::to_f64(x)
            }
            #[inline]
            fn get(acc: f64) -> $t {
                <$t as Real>::from_f64(acc)
            }
        }
    )*};
}
impl_float!(f32, f64, F16, BF16);

/// Which fold a scan applies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fold {
    /// `CumSum`.
    Sum,
    /// `CumProd`.
    Prod,
}

/// The static parameters of one scan.
#[derive(Copy, Clone, Debug)]
pub struct Cum {
    /// The fold.
    pub fold: Fold,
    /// Product of the dims before the axis.
    pub outer: usize,
    /// The axis length.
    pub n: usize,
    /// Product of the dims after the axis.
    pub inner: usize,
    /// Leave out the current element.
    pub exclusive: bool,
    /// Scan from the end.
    pub reverse: bool,
}

impl Cum {
    /// The scan along `axis` of `shape` (an axis read when the model runs,
    /// already checked to be in range).
    pub fn along(fold: Fold, shape: &[usize], axis: usize, exclusive: bool, reverse: bool) -> Cum {
        let (outer, inner) = (shape[..axis].iter().product(), shape[axis + 1..].iter().product());
        Cum { fold, outer, n: shape[axis], inner, exclusive, reverse }
    }
}

/// `y` = the running fold of `x` along the axis described by `p`; `x` and
/// `y` hold `outer * n * inner` elements.
pub fn cum<T: CumElem>(p: &Cum, x: &[T], y: &mut [T]) {
    let len = p.outer * p.n * p.inner;
    assert!(x.len() == len && y.len() == len, "CumSum/CumProd: buffers do not match the shape");
    let (start, step) = match p.fold {
        Fold::Sum => (T::ZERO, T::add as fn(T::Acc, T) -> T::Acc),
        Fold::Prod => (T::ONE, T::mul as fn(T::Acc, T) -> T::Acc),
    };
    for o in 0..p.outer {
        for i in 0..p.inner {
            let mut acc = start;
            for s in 0..p.n {
                let j = if p.reverse { p.n - 1 - s } else { s };
                let f = (o * p.n + j) * p.inner + i;
                if p.exclusive {
                    y[f] = T::get(acc);
                    acc = step(acc, x[f]);
                } else {
                    acc = step(acc, x[f]);
                    y[f] = T::get(acc);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_products_on_both_ends() {
        let p = Cum { fold: Fold::Sum, outer: 1, n: 4, inner: 1, exclusive: false, reverse: false };
        let mut y = [0.0f32; 4];
        cum(&p, &[1.0, 2.0, 3.0, 4.0], &mut y);
        assert_eq!(y, [1.0, 3.0, 6.0, 10.0]);
        cum(&Cum { exclusive: true, reverse: true, ..p }, &[1.0, 2.0, 3.0, 4.0], &mut y);
        assert_eq!(y, [9.0, 7.0, 4.0, 0.0]);
        let mut z = [0i32; 4];
        cum(&Cum { fold: Fold::Prod, exclusive: true, ..p }, &[3, 5, 7, i32::MAX], &mut z);
        assert_eq!(z, [1, 3, 15, 105]);
        cum(&Cum { fold: Fold::Prod, n: 2, inner: 2, ..p }, &[i32::MAX, 2, 2, 3], &mut z);
        assert_eq!(z, [i32::MAX, 2, i32::MAX.wrapping_mul(2), 6]);
    }
}
