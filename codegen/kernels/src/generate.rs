//! Generated tensors: Range (the run-time form, whose size the model
//! declares, and the static-shape `range_*` kernels), Trilu and EyeLike.
//!
//! The run-time Range computes the size its parameters give and returns an
//! [`Error`] naming the op when it differs from the declared one. Values
//! follow the reference interpreter: Range exactly for integers, in f64
//! rounded once for f32/f64, and in f32 (`stash_type` 1, the default) or f64
//! for f16/bf16.

use crate::lowp::{Real, BF16, F16};
use crate::rt::{check_count, Error};
use crate::strided::numel;

/// An element type of Range.
pub trait RangeElem: Copy {
    /// Number of elements `max(ceil((limit - start) / delta), 0)`.
    fn count(start: Self, limit: Self, delta: Self) -> Result<usize, Error>;
    /// Element `i`: `start + i * delta` (`stash_f64`: f16/bf16 computed in f64).
    fn at(start: Self, delta: Self, i: usize, stash_f64: bool) -> Self;
}

macro_rules! range_int {
    ($($t:ty),*) => {$(
        impl RangeElem for $t {
            fn count(start: $t, limit: $t, delta: $t) -> Result<usize, Error> {
                let (s, l, d) = (start as i128, limit as i128, delta as i128);
                if d == 0 {
                    return Err(Error("Range: `delta` must not be zero".into()));
                }
                let (q, r) = ((l - s) / d, (l - s) % d);
                Ok((q + i128::from(r != 0 && (r < 0) == (d < 0))).max(0) as usize)
            }
            #[inline]
            fn at(start: $t, delta: $t, i: usize, _: bool) -> $t {
                (start as i128 + i as i128 * delta as i128) as $t
            }
        }
    )*};
}
range_int!(i16, i32, i64);

/// Float count in f64.
fn float_count(s: f64, l: f64, d: f64) -> Result<usize, Error> {
    if d == 0.0 {
        return Err(Error("Range: `delta` must not be zero".into()));
    }
    let n = ((l - s) / d).ceil().max(0.0);
    if !n.is_finite() || n > u32::MAX as f64 {
        return Err(Error(format!("Range({s}, {l}, {d}) has too many elements")));
    }
    Ok(n as usize)
}

macro_rules! range_float {
    ($($t:ty, $low:expr);*) => {$(
        impl RangeElem for $t {
            fn count(start: $t, limit: $t, delta: $t) -> Result<usize, Error> {
                float_count(Real::to_f64(start), Real::to_f64(limit), Real::to_f64(delta))
            }
            #[inline]
            fn at(start: $t, delta: $t, i: usize, stash_f64: bool) -> $t {
                let (s, d) = (Real::to_f64(start), Real::to_f64(delta));
                if $low && !stash_f64 {
                    <$t as Real>::from_f64((s as f32 + i as f32 * d as f32) as f64)
                } else {
                    <$t as Real>::from_f64(s + i as f64 * d)
                }
            }
        }
    )*};
}
range_float!(f32, false; f64, false; F16, true; BF16, true);

/// Elements of an integer `Range(start, limit, delta)`.
pub fn range_len_int(start: i64, limit: i64, delta: i64) -> Result<usize, Error> {
    <i64 as RangeElem>::count(start, limit, delta)
}

/// Elements of a float `Range(start, limit, delta)` (the exact values of
/// any float type, as f64).
pub fn range_len_float(start: f64, limit: f64, delta: f64) -> Result<usize, Error> {
    float_count(start, limit, delta)
}

/// `Range(start, limit, delta)` into `y`, whose length is the declared size.
pub fn range<T: RangeElem>(start: T, limit: T, delta: T, stash_f64: bool, y: &mut [T]) -> Result<(), Error> {
    let n = T::count(start, limit, delta)?;
    check_count("Range", "elements", n, y.len())?;
    for (i, v) in y.iter_mut().enumerate() {
        *v = T::at(start, delta, i, stash_f64);
    }
    Ok(())
}

/// Number of `Range` elements, `max(ceil((limit - start) / delta), 0)` (in f64).
pub fn range_len_f32(start: f32, limit: f32, delta: f32) -> usize {
    assert!(delta != 0.0, "range: delta must not be 0");
    ((limit as f64 - start as f64) / delta as f64).ceil().max(0.0) as usize
}

/// Number of `Range` elements for integers.
pub fn range_len_i64(start: i64, limit: i64, delta: i64) -> usize {
    assert!(delta != 0, "range: delta must not be 0");
    let (d, s, l) = (delta as i128, start as i128, limit as i128);
    let (q, r) = ((l - s) / d, (l - s) % d);
    (q + i128::from(r != 0 && (r < 0) == (d < 0))).max(0) as usize
}

/// `y[i] = start + i * delta`, computed in f64 and rounded once.
pub fn range_f32(start: f32, delta: f32, y: &mut [f32]) {
    let (s, d) = (start as f64, delta as f64);
    y.iter_mut().enumerate().for_each(|(i, y)| *y = (s + i as f64 * d) as f32);
}

/// `y[i] = start + i * delta` (wrapping).
pub fn range_i64(start: i64, delta: i64, y: &mut [i64]) {
    y.iter_mut().enumerate().for_each(|(i, y)| *y = start.wrapping_add((i as i64).wrapping_mul(delta)));
}

/// `Trilu` over the last two axes of `shape`: keep `x` where `j - i ≥ k`
/// (`upper`) or `j - i ≤ k` (lower), `zero` elsewhere.
pub fn trilu<T: Copy>(shape: &[usize], upper: bool, k: i64, zero: T, x: &[T], y: &mut [T]) {
    let r = shape.len();
    assert!(r >= 2, "trilu: shape {shape:?} needs rank >= 2");
    assert!(x.len() == numel(shape) && y.len() == x.len(), "trilu: lengths for {shape:?}");
    let (rows, cols) = (shape[r - 2], shape[r - 1]);
    for (f, (o, &v)) in y.iter_mut().zip(x).enumerate() {
        let (i, j) = ((f / cols.max(1)) % rows.max(1), f % cols.max(1));
        let d = j as i64 - i as i64;
        *o = if (upper && d >= k) || (!upper && d <= k) { v } else { zero };
    }
}

/// `EyeLike`: `one` on diagonal `k` (`j - i = k`) of a `[rows, cols]`
/// matrix, `zero` elsewhere.
pub fn eye_like<T: Copy>(rows: usize, cols: usize, k: i64, one: T, zero: T, y: &mut [T]) {
    assert_eq!(y.len(), rows * cols, "eye_like: y holds {} elements for [{rows}, {cols}]", y.len());
    for (f, o) in y.iter_mut().enumerate() {
        *o = if (f % cols) as i64 - (f / cols) as i64 == k { one } else { zero };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_like_numpy() {
        let mut y = [0i32; 2];
        range(10, 4, -3, false, &mut y).unwrap();
        assert_eq!(y, [10, 7]);
        assert!(range(10, 4, -3, false, &mut [0i32; 3]).is_err());
        assert!(range(1, 4, 0, false, &mut [0i32; 3]).is_err());
        let mut f = [0.0f32; 3];
        range(1.0, 2.0, 0.4, false, &mut f).unwrap();
        assert_eq!(f, [1.0, 1.4, 1.8]);
    }
}
