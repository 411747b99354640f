//! Ops whose result size depends on the data: NonZero, Compress and Unique.
//!
//! The size of such a result is known only once the data is: a generated
//! model asks for it first ([`nonzero_count`], [`compress_count`],
//! [`unique_groups`]), sizes the result's buffer from it, then has the
//! kernel write the result. A size the model declares static is checked
//! against the count ([`check_count`]). The writers check that the count
//! they are given is the data's (an [`Error`] naming the op otherwise),
//! before writing anything. Nothing here allocates: Unique sorts item
//! indices in a caller-provided `usize` scratch.
//!
//! Semantics are the reference interpreter's: an element is non-zero when
//! it compares unequal to zero (NaN is non-zero, -0 is zero); Unique orders
//! numbers with NaN above every number and equal to itself (-0 equals 0),
//! compares slices lexicographically in row-major order, and breaks ties
//! by the lower index, so a group's first member is its first occurrence.

use crate::lowp::{BF16, F16};
use crate::rt::{check_count, Error};
use std::cmp::Ordering;

/// An element that can be tested against zero.
pub trait Truth: Copy {
    /// True unless the value equals zero (NaN is true).
    fn truth(self) -> bool;
}

macro_rules! truth_num {
    ($($t:ty),*) => {$(
        impl Truth for $t {
            #[inline]
            #[allow(clippy::float_cmp)]
            fn truth(self) -> bool {
                self != (0 as $t)
            }
        }
    )*};
}
truth_num!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Truth for bool {
    #[inline]
    fn truth(self) -> bool {
        self
    }
}

impl Truth for F16 {
    #[inline]
    fn truth(self) -> bool {
        self.to_f32() != 0.0
    }
}

impl Truth for BF16 {
    #[inline]
    fn truth(self) -> bool {
        self.to_f32() != 0.0
    }
}

/// The number of non-zero elements of `x` (NonZero's result size).
pub fn nonzero_count<T: Truth>(x: &[T]) -> usize {
    x.iter().filter(|v| v.truth()).count()
}

/// `NonZero`: the coordinates of the non-zero elements of `x` (row-major
/// `shape`) as an `[rank, count]` i64 tensor in `y`; `count` is the number
/// of non-zero elements the result is sized for (an error if the data has
/// another).
pub fn nonzero<T: Truth>(shape: &[usize], x: &[T], count: usize, y: &mut [i64]) -> Result<(), Error> {
    let rank = shape.len();
    assert_eq!(x.len(), shape.iter().product::<usize>(), "NonZero: x holds {} elements for {shape:?}", x.len());
    assert_eq!(y.len(), rank * count, "NonZero: y holds {} elements for [{rank}, {count}]", y.len());
    check_count("NonZero", "non-zero elements", nonzero_count(x), count)?;
    for (j, flat) in x.iter().enumerate().filter(|(_, v)| v.truth()).map(|(f, _)| f).enumerate() {
        // Coordinates from the last axis inward.
        let mut rest = flat;
        for a in (0..rank).rev() {
            let d = shape[a].max(1);
            y[a * count + j] = (rest % d) as i64;
            rest /= d;
        }
    }
    Ok(())
}

/// The geometry of a Compress: `outer × n × inner` with the condition
/// selecting along `n` (without `axis` the flattened input: `1 × len × 1`).
#[derive(Copy, Clone, Debug)]
pub struct Compress {
    /// Product of the dims before the axis.
    pub outer: usize,
    /// The axis length.
    pub n: usize,
    /// Product of the dims after the axis.
    pub inner: usize,
}

/// The number of slices a Compress keeps (its result size along the axis).
/// Error: a true condition entry at or past the axis length.
pub fn compress_count<C: Truth>(p: &Compress, cond: &[C]) -> Result<usize, Error> {
    if let Some(i) = cond.iter().skip(p.n).position(|c| c.truth()) {
        return Err(Error(format!("Compress: the condition selects entry {} of an axis of size {}", p.n + i, p.n)));
    }
    Ok(cond.iter().filter(|c| c.truth()).count())
}

/// `Compress`: the slices along the axis whose condition is true, in order.
/// `kept` is the number of kept slices the result is sized for. Errors: a
/// true condition entry at or past the axis length, or another number of
/// kept slices.
pub fn compress<T: Copy, C: Truth>(p: &Compress, cond: &[C], x: &[T], kept: usize, y: &mut [T]) -> Result<(), Error> {
    let (outer, n, inner) = (p.outer, p.n, p.inner);
    assert_eq!(x.len(), outer * n * inner, "Compress: x holds {} elements", x.len());
    assert_eq!(y.len(), outer * kept * inner, "Compress: y holds {} elements", y.len());
    check_count("Compress", "kept slices", compress_count(p, cond)?, kept)?;
    let mut at = 0;
    for o in 0..outer {
        for (j, _) in cond.iter().enumerate().filter(|(_, c)| c.truth()) {
            let from = (o * n + j) * inner;
            y[at..at + inner].copy_from_slice(&x[from..from + inner]);
            at += inner;
        }
    }
    Ok(())
}

/// Unique orders numbers as TopK does (NaN above every number).
use super::order;

/// The geometry of a Unique: `n` items, each the `outer × inner` slice at
/// one position of the axis (without `axis`, `n` single elements).
#[derive(Copy, Clone, Debug)]
pub struct Unique {
    /// Product of the dims before the axis (1 without `axis`).
    pub outer: usize,
    /// Number of items (the axis length, or every element).
    pub n: usize,
    /// Product of the dims after the axis (1 without `axis`).
    pub inner: usize,
    /// Groups in ascending order (else in order of first occurrence).
    pub sorted: bool,
}

/// `usize`s of scratch [`unique_groups`] needs for `n` items.
pub fn unique_scratch_len(n: usize) -> usize {
    5 * n
}

/// Group the items of `x`; returns the number of distinct items `u`.
/// Afterwards `scratch` holds (read by the `unique_*` writers): at
/// `[n..2n)` the group of each item, at `[2n..2n+u)` each group's first
/// item, at `[3n..3n+u)` each group's size, groups in output order.
pub fn unique_groups<T: Copy + PartialOrd>(p: &Unique, x: &[T], scratch: &mut [usize]) -> usize {
    let (outer, n, inner) = (p.outer, p.n, p.inner);
    assert_eq!(x.len(), outer * n * inner, "Unique: x holds {} elements", x.len());
    assert!(scratch.len() >= unique_scratch_len(n), "Unique: scratch of {} for {n} items", scratch.len());
    let (order_s, rest) = scratch.split_at_mut(n);
    let (gid, rest) = rest.split_at_mut(n);
    let (first, rest) = rest.split_at_mut(n);
    let (count, tmp) = rest.split_at_mut(n);
    // Items compare element by element in row-major order (outer, then inner).
    let cmp = |a: usize, b: usize| -> Ordering {
        for o in 0..outer {
            let (ra, rb) = ((o * n + a) * inner, (o * n + b) * inner);
            for i in 0..inner {
                let c = order(&x[ra + i], &x[rb + i]);
                if c.is_ne() {
                    return c;
                }
            }
        }
        Ordering::Equal
    };
    for (i, s) in order_s.iter_mut().enumerate() {
        *s = i;
    }
    // Ties broken by index: a strict total order, so the unstable sort is deterministic.
    order_s.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    let mut u = 0;
    for (k, &item) in order_s.iter().enumerate() {
        if k == 0 || cmp(first[u - 1], item).is_ne() {
            first[u] = item;
            count[u] = 0;
            u += 1;
        }
        count[u - 1] += 1;
        gid[item] = u - 1;
    }
    if !p.sorted {
        // Renumber the groups by first occurrence (`order_s` becomes the map).
        let map = &mut order_s[..u];
        map.fill(usize::MAX);
        let mut next = 0;
        for (i, g) in gid.iter_mut().enumerate() {
            if map[*g] == usize::MAX {
                map[*g] = next;
                tmp[next] = count[*g];
                first[next] = i;
                next += 1;
            }
            *g = map[*g];
        }
        count[..u].copy_from_slice(&tmp[..u]);
    }
    u
}

/// Unique's `Y`: the first occurrence of each group, `outer × u × inner`.
pub fn unique_values<T: Copy>(p: &Unique, x: &[T], scratch: &[usize], u: usize, y: &mut [T]) {
    let (outer, n, inner) = (p.outer, p.n, p.inner);
    assert_eq!(y.len(), outer * u * inner, "Unique: Y holds {} elements", y.len());
    let first = &scratch[2 * n..2 * n + u];
    for o in 0..outer {
        for (g, &item) in first.iter().enumerate() {
            let (to, from) = ((o * u + g) * inner, (o * n + item) * inner);
            y[to..to + inner].copy_from_slice(&x[from..from + inner]);
        }
    }
}

/// Unique's `indices`: the first occurrence of each group.
pub fn unique_indices(n: usize, scratch: &[usize], y: &mut [i64]) {
    let u = y.len();
    y.iter_mut().zip(&scratch[2 * n..2 * n + u]).for_each(|(d, &s)| *d = s as i64);
}

/// Unique's `inverse_indices`: the group of each item (`n` entries).
pub fn unique_inverse(n: usize, scratch: &[usize], y: &mut [i64]) {
    assert_eq!(y.len(), n, "Unique: inverse_indices holds {} elements for {n} items", y.len());
    y.iter_mut().zip(&scratch[n..2 * n]).for_each(|(d, &s)| *d = s as i64);
}

/// Unique's `counts`: the size of each group.
pub fn unique_counts(n: usize, scratch: &[usize], y: &mut [i64]) {
    let u = y.len();
    y.iter_mut().zip(&scratch[3 * n..3 * n + u]).for_each(|(d, &s)| *d = s as i64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_counts_and_coordinates() {
        let x = [0.0f32, 2.0, f32::NAN, -0.0];
        let mut y = [0i64; 4];
        nonzero(&[2, 2], &x, 2, &mut y).unwrap();
        assert_eq!(y, [0, 1, 1, 0]);
        assert!(nonzero(&[2, 2], &x, 3, &mut [0i64; 6]).unwrap_err().0.contains("NonZero"));
    }

    #[test]
    fn unique_sorted_and_first_occurrence() {
        let x = [2.0f32, 1.0, 1.0, 3.0, 4.0, 3.0];
        let p = Unique { outer: 1, n: 6, inner: 1, sorted: false };
        let mut s = [0usize; 30];
        let u = unique_groups(&p, &x, &mut s);
        assert_eq!(u, 4);
        let mut y = [0.0f32; 4];
        unique_values(&p, &x, &s, u, &mut y);
        assert_eq!(y, [2.0, 1.0, 3.0, 4.0]);
        let mut inv = [0i64; 6];
        unique_inverse(6, &s, &mut inv);
        assert_eq!(inv, [0, 1, 1, 2, 3, 2]);
        let u = unique_groups(&Unique { sorted: true, ..p }, &x, &mut s);
        unique_values(&p, &x, &s, u, &mut y);
        assert_eq!(y, [1.0, 2.0, 3.0, 4.0]);
        let mut c = [0i64; 4];
        unique_counts(6, &s, &mut c);
        assert_eq!(c, [2, 1, 2, 1]);
    }
}
