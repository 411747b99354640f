//! TopK: the model's kernels ([`TopK`], [`top_k_values`],
//! [`top_k_indices`], [`top_k_check`]) and the static-shape [`top_k`].

use super::order;
use crate::strided::{check_len, numel};
use std::cmp::Ordering;

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

/// numpy's total order: NaN above every number and equal to itself.
#[inline]
#[allow(clippy::eq_op)]
fn cmp_total<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// `TopK` along `axis`: the `k` largest (or smallest) entries of every lane
/// in sorted order, with their indices; equal values keep index order (NaN
/// is the largest value). Insertion into the outputs, `O(n k)` per lane.
pub fn top_k<T: PartialOrd + Copy>(
    shape: &[usize],
    axis: usize,
    k: usize,
    largest: bool,
    x: &[T],
    values: &mut [T],
    indices: &mut [i64],
) {
    assert!(axis < shape.len() && k <= shape[axis], "top_k: k = {k} along axis {axis} of {shape:?}");
    check_len("x", x, shape);
    let (outer, n, inner) = (numel(&shape[..axis]), shape[axis], numel(&shape[axis + 1..]));
    assert!(values.len() == outer * k * inner && indices.len() == values.len(), "top_k: outputs do not hold the k");
    let want = if largest { Ordering::Greater } else { Ordering::Less };
    for lane in 0..outer * inner {
        let (o, i) = (lane / inner, lane % inner);
        let (src, dst) = (o * n * inner + i, o * k * inner + i);
        let mut count = 0;
        for j in 0..n {
            let v = x[src + j * inner];
            let beats = |p: usize| cmp_total(&v, &values[dst + p * inner]) == want;
            if count == k && (k == 0 || !beats(k - 1)) {
                continue;
            }
            let pos = (0..count).find(|&p| beats(p)).unwrap_or(count);
            count = (count + 1).min(k);
            for p in (pos + 1..count).rev() {
                values[dst + p * inner] = values[dst + (p - 1) * inner];
                indices[dst + p * inner] = indices[dst + (p - 1) * inner];
            }
            values[dst + pos * inner] = v;
            indices[dst + pos * inner] = j as i64;
        }
    }
}
