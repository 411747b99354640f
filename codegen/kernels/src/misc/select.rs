//! Selection and generation: TopK, Trilu, EyeLike, OneHot.

use crate::strided::numel;
use std::cmp::Ordering;

/// Total order of TopK and Unique: numeric, NaN above every number and
/// equal to itself.
#[allow(clippy::eq_op)]
#[inline]
pub(crate) fn order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// The geometry of a TopK: `shape`, the axis, `k` and the direction.
#[derive(Copy, Clone, Debug)]
pub struct TopK<'a> {
    /// Input shape.
    pub shape: &'a [usize],
    /// The axis sorted along.
    pub axis: usize,
    /// Entries kept per line (at most `shape[axis]`).
    pub k: usize,
    /// Largest (else smallest) first.
    pub largest: bool,
}

/// Select the top `p.k` of each line of `x` into `out` (shape `p.shape`
/// with `shape[axis] = k`), storing `make(value, index)` and reading a
/// stored entry's value back with `key`. Stable insertion into the output
/// line: equal values keep index order; nothing is allocated (`O(n·k)` in
/// the worst case).
fn select<T: Copy + PartialOrd, S: Copy>(
    p: &TopK<'_>,
    x: &[T],
    out: &mut [S],
    key: impl Fn(&[T], usize, S) -> T,
    make: impl Fn(T, usize) -> S,
) {
    let (shape, axis, k) = (p.shape, p.axis, p.k);
    assert!(axis < shape.len(), "top_k: axis {axis} for {shape:?}");
    let n = shape[axis];
    assert!(k <= n, "TopK: K = {k} is out of range for an axis of size {n}");
    let (outer, inner) = (numel(&shape[..axis]), numel(&shape[axis + 1..]));
    assert_eq!(x.len(), outer * n * inner, "top_k: x holds {} elements for {shape:?}", x.len());
    assert_eq!(out.len(), outer * k * inner, "top_k: output holds {} elements", out.len());
    if k == 0 {
        return;
    }
    // `a` ranks strictly before `b` (a later index never beats an equal value).
    let want = if p.largest { Ordering::Greater } else { Ordering::Less };
    let before = |a: &T, b: &T| order(a, b) == want;
    for o in 0..outer {
        for i in 0..inner {
            let line = |j: usize| (o * n + j) * inner + i;
            let slot = |s: usize| (o * k + s) * inner + i;
            let val = |out: &[S], s: usize| key(x, line(0), out[slot(s)]);
            let mut m = 0;
            for j in 0..n {
                let v = x[line(j)];
                if m == k && !before(&v, &val(out, k - 1)) {
                    continue;
                }
                let mut s = m.min(k - 1);
                while s > 0 && before(&v, &val(out, s - 1)) {
                    out[slot(s)] = out[slot(s - 1)];
                    s -= 1;
                }
                out[slot(s)] = make(v, j);
                m = (m + 1).min(k);
            }
        }
    }
}

/// `Err` naming the op unless `p.k` fits the axis (the kernels panic otherwise).
pub fn top_k_check(p: &TopK<'_>) -> Result<(), crate::rt::Error> {
    let n = p.shape.get(p.axis).copied().unwrap_or(0);
    if p.axis < p.shape.len() && p.k <= n {
        Ok(())
    } else {
        Err(crate::rt::Error(format!("TopK: K = {} is out of range for an axis of size {n}", p.k)))
    }
}

/// `TopK` values: the `k` largest (or smallest) entries of each line along
/// `axis` in sorted order (NaN above every number). Panics (a run-time
/// error) when `k` exceeds the axis.
pub fn top_k_values<T: Copy + PartialOrd>(p: &TopK<'_>, x: &[T], values: &mut [T]) {
    select(p, x, values, |_, _, v| v, |v, _| v);
}

/// `TopK` indices along the axis, matching [`top_k_values`] (equal values
/// in index order).
pub fn top_k_indices<T: Copy + PartialOrd>(p: &TopK<'_>, x: &[T], indices: &mut [i64]) {
    let inner = numel(&p.shape[p.axis + 1..]);
    select(p, x, indices, |x, line0, j| x[line0 + j as usize * inner], |_, j| j as i64);
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

/// Index element types of OneHot: integers, or floats truncated toward zero.
pub trait AsIndex: Copy {
    /// The index value.
    fn as_index(self) -> i64;
}

macro_rules! as_index {
    ($($t:ty),*) => {$(
        impl AsIndex for $t {
            #[inline]
            fn as_index(self) -> i64 {
                self as i64
            }
        }
    )*};
}
as_index!(i64, i32, i8, u8, f32);

/// `OneHot`: a new axis of `depth` at `axis` of `idx_shape` (so `y` has
/// `idx_shape[..axis] ++ [depth] ++ idx_shape[axis..]`), `values[1]` where
/// the coordinate equals the index (negative counting from `depth`),
/// `values[0]` elsewhere; indices outside `[-depth, depth)` give all-off lines.
pub fn one_hot<T: Copy, I: AsIndex>(
    idx_shape: &[usize],
    axis: usize,
    depth: usize,
    indices: &[I],
    values: &[T],
    y: &mut [T],
) {
    assert!(axis <= idx_shape.len() && values.len() == 2, "one_hot: axis {axis}, {} values", values.len());
    let (outer, inner) = (numel(&idx_shape[..axis]), numel(&idx_shape[axis..]));
    assert_eq!(indices.len(), outer * inner, "one_hot: indices for {idx_shape:?}");
    assert_eq!(y.len(), outer * depth * inner, "one_hot: y holds {} elements", y.len());
    for o in 0..outer {
        for i in 0..inner {
            let v = indices[o * inner + i].as_index();
            let v = if v < 0 { v + depth as i64 } else { v };
            for d in 0..depth {
                y[(o * depth + d) * inner + i] = values[usize::from(v == d as i64)];
            }
        }
    }
}
