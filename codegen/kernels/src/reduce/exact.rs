//! ReduceMax/ReduceMin/ReduceSum/ReduceProd on integers and bools, exactly
//! as the interpreter computes them: integers wrap in their own width
//! (numpy's fixed-width arithmetic), a bool maximum is logical or and a
//! minimum logical and; an empty reduction gives the fold's identity (the
//! type's lowest value for Max, its highest for Min).

/// Largest rank [`reduce_exact`] takes.
pub const EXACT_MAX_RANK: usize = 16;

/// The folds defined on integers and bools.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExactReduce {
    /// Largest element.
    Max,
    /// Smallest element.
    Min,
    /// Wrapping sum (integers only).
    Sum,
    /// Wrapping product (integers only).
    Prod,
}

/// A fold's identity and step.
pub type Fold<T> = (T, fn(T, T) -> T);

/// An element type reducible without rounding.
pub trait ExactElem: Copy + Ord {
    /// Lowest value (the identity of Max).
    const LOWEST: Self;
    /// Highest value (the identity of Min).
    const HIGHEST: Self;
    /// `Some` identity and fold of Sum or Prod, `None` where undefined (bool).
    fn arith(kind: ExactReduce) -> Option<Fold<Self>>;
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl ExactElem for $t {
            const LOWEST: $t = <$t>::MIN;
            const HIGHEST: $t = <$t>::MAX;
            fn arith(kind: ExactReduce) -> Option<Fold<$t>> {
                match kind {
                    ExactReduce::Sum => Some((0, <$t>::wrapping_add)),
                    ExactReduce::Prod => Some((1, <$t>::wrapping_mul)),
                    _ => None,
                }
            }
        }
    )*};
}
impl_int!(i8, u8, i16, u16, i32, u32, i64, u64);

impl ExactElem for bool {
    const LOWEST: bool = false;
    const HIGHEST: bool = true;
    fn arith(_: ExactReduce) -> Option<Fold<bool>> {
        None
    }
}

/// True if `kind` is defined on `T` (Sum and Prod are not, on bool).
pub fn supported<T: ExactElem>(kind: ExactReduce) -> bool {
    matches!(kind, ExactReduce::Max | ExactReduce::Min) || T::arith(kind).is_some()
}

/// Reduce `x` (of `shape`) over the sorted, distinct `axes` into `y` (the
/// kept dims). Panics if `kind` is not [`supported`] on `T` (the compiler
/// checks first) or the lengths disagree with the shape.
pub fn reduce_exact<T: ExactElem>(kind: ExactReduce, shape: &[usize], axes: &[usize], x: &[T], y: &mut [T]) {
    assert_eq!(x.len(), shape.iter().product::<usize>(), "reduce: x does not match its shape");
    let (init, f): Fold<T> = match kind {
        ExactReduce::Max => (T::LOWEST, Ord::max),
        ExactReduce::Min => (T::HIGHEST, Ord::min),
        _ => T::arith(kind).expect("reduce: the fold is defined on this type"),
    };
    let kept: usize = (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| shape[d]).product();
    assert_eq!(y.len(), kept, "reduce: y does not match the kept dims");
    y.fill(init);
    assert!(shape.len() <= EXACT_MAX_RANK, "reduce: rank {} above {EXACT_MAX_RANK}", shape.len());
    // Stride in y of each input dim (0 for reduced dims); stack arrays, so
    // nothing is allocated per inference.
    let mut ystride = [0usize; EXACT_MAX_RANK];
    let mut s = 1;
    for d in (0..shape.len()).rev() {
        if !axes.contains(&d) {
            ystride[d] = s;
            s *= shape[d];
        }
    }
    let mut idx = [0usize; EXACT_MAX_RANK];
    let mut at = 0usize;
    for &v in x {
        y[at] = f(y[at], v);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            at += ystride[d];
            if idx[d] < shape[d] {
                break;
            }
            at -= ystride[d] * idx[d];
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_the_reduced_axes() {
        let x = [true, false, false, true, true, true];
        let mut y = [false; 2];
        reduce_exact(ExactReduce::Max, &[2, 3], &[1], &x, &mut y);
        assert_eq!(y, [true, true]);
        reduce_exact(ExactReduce::Min, &[2, 3], &[1], &x, &mut y);
        assert_eq!(y, [false, true]);
        let mut z = [0i8; 3];
        reduce_exact(ExactReduce::Sum, &[2, 3], &[0], &[100i8, 1, 2, 100, 3, 4], &mut z);
        assert_eq!(z, [-56, 4, 6]);
        let mut e = [0i32; 2];
        reduce_exact(ExactReduce::Max, &[2, 0], &[1], &[], &mut e);
        assert_eq!(e, [i32::MIN; 2]);
        assert!(!supported::<bool>(ExactReduce::Sum));
    }
}
