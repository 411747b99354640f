//! Kernels that select or add elements: Slice, Gather, GatherElements, Pad,
//! OneHot and TopK.

use super::check_len;
use crate::strided::{for_each_row, numel, stride};
use std::cmp::Ordering;

/// One axis of a slice, ONNX clamping already resolved: `len` elements
/// `start, start + step, ...` (`step` may be negative, never 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SliceAxis {
    /// First index.
    pub start: usize,
    /// Distance between taken indices.
    pub step: isize,
    /// Number of indices taken (the output dim).
    pub len: usize,
}

/// The [`SliceAxis`] of ONNX `start:end:step` over a dim of size `dim`
/// (negative `start`/`end` count from the end; out-of-range values clamp).
pub fn slice_axis(dim: usize, start: i64, end: i64, step: i64) -> SliceAxis {
    let (start, len) = edgec_numeric::slice::slice_range(dim as u64, start, end, step);
    SliceAxis { start: start as usize, step: step as isize, len: len as usize }
}

/// `Slice`: `y` (of dims `axes[d].len`) takes elements
/// `axes[d].start + i * axes[d].step` along every axis `d` of `x`.
pub fn slice<T: Copy>(shape: &[usize], axes: &[SliceAxis], x: &[T], y: &mut [T]) {
    assert_eq!(axes.len(), shape.len(), "slice: {} axis ranges for rank {}", axes.len(), shape.len());
    check_len("x", x, shape);
    let out_len: usize = axes.iter().map(|a| a.len).product();
    assert_eq!(y.len(), out_len, "slice: y holds {} elements, the slice {out_len}", y.len());
    if out_len == 0 {
        return;
    }
    for (a, &n) in axes.iter().zip(shape) {
        let last = a.start as isize + (a.len as isize - 1) * a.step;
        assert!(a.start < n && last >= 0 && (last as usize) < n, "slice: {a:?} out of range for a dim of {n}");
    }
    let base: isize = axes.iter().enumerate().map(|(d, a)| a.start as isize * stride(shape, d)).sum();
    let os = |d: usize| axes[d + 1..].iter().map(|a| a.len).product::<usize>() as isize;
    let dim = |d: usize| (axes[d].len, [os(d), axes[d].step * stride(shape, d)]);
    for_each_row(shape.len(), dim, |[oo, oi], [_, si], len| {
        let (dst, oi) = (&mut y[oo as usize..oo as usize + len], base + oi);
        if si == 1 {
            dst.copy_from_slice(&x[oi as usize..oi as usize + len]);
        } else {
            dst.iter_mut().enumerate().for_each(|(k, d)| *d = x[(oi + k as isize * si) as usize]);
        }
    });
}

/// Index `i` into a dim of `n`, negative counting from the end.
#[inline]
fn wrap_index(i: i64, n: usize) -> usize {
    let j = if i < 0 { i + n as i64 } else { i };
    assert!(j >= 0 && (j as usize) < n, "index {i} out of range for a dim of {n}");
    j as usize
}

/// `Gather` along `axis`: `y[o, j, i] = x[o, indices[j], i]` (indices of any
/// shape, flattened; negative ones count from the end). `y` holds
/// `shape[..axis] ++ indices.shape ++ shape[axis + 1..]`.
pub fn gather<T: Copy, I: Copy + Into<i64>>(shape: &[usize], axis: usize, x: &[T], indices: &[I], y: &mut [T]) {
    assert!(axis < shape.len(), "gather: axis {axis} out of range for {shape:?}");
    check_len("x", x, shape);
    let (outer, n, inner) = (numel(&shape[..axis]), shape[axis], numel(&shape[axis + 1..]));
    assert_eq!(y.len(), outer * indices.len() * inner, "gather: y holds {} elements", y.len());
    if inner == 0 {
        return;
    }
    let mut rows = y.chunks_exact_mut(inner);
    for o in 0..outer {
        for (&i, dst) in indices.iter().zip(rows.by_ref()) {
            let src = (o * n + wrap_index(i.into(), n)) * inner;
            dst.copy_from_slice(&x[src..src + inner]);
        }
    }
}

/// `GatherElements` along `axis`: `y[p] = x[p with axis coordinate
/// indices[p]]` for every position `p` of `indices` (same rank as `x`, each
/// other dim at most `x`'s); `y` has `idx_shape`.
pub fn gather_elements<T: Copy, I: Copy + Into<i64>>(
    shape: &[usize],
    axis: usize,
    x: &[T],
    idx_shape: &[usize],
    indices: &[I],
    y: &mut [T],
) {
    assert!(axis < shape.len() && idx_shape.len() == shape.len(), "gather_elements: {idx_shape:?} for {shape:?}");
    assert!((0..shape.len()).all(|d| d == axis || idx_shape[d] <= shape[d]), "gather_elements: {idx_shape:?} too big");
    check_len("x", x, shape);
    check_len("indices", indices, idx_shape);
    check_len("y", y, idx_shape);
    let (n, sa) = (shape[axis], stride(shape, axis));
    let dim = |d: usize| (idx_shape[d], [stride(idx_shape, d), if d == axis { 0 } else { stride(shape, d) }]);
    for_each_row(shape.len(), dim, |[oo, ox], [_, sx], len| {
        for k in 0..len {
            let o = oo as usize + k;
            y[o] = x[(ox + k as isize * sx) as usize + wrap_index(indices[o].into(), n) * sa as usize];
        }
    });
}

/// How `Pad` fills the border.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PadMode<T> {
    /// A constant.
    Constant(T),
    /// Mirror without repeating the edge (`3 2 | 1 2 3 | 2 1`).
    Reflect,
    /// Repeat the edge.
    Edge,
    /// Wrap around.
    Wrap,
}

/// Source coordinate of padded coordinate `i` over `len` kept elements, or
/// `None` for the constant.
#[inline]
fn pad_coord<T>(i: isize, len: usize, mode: &PadMode<T>) -> Option<usize> {
    let n = len as isize;
    if (0..n).contains(&i) {
        return Some(i as usize);
    }
    let c = match mode {
        PadMode::Constant(_) => return None,
        _ if n == 0 => panic!("pad: cannot pad an empty axis in {} mode", "reflect/edge/wrap"),
        PadMode::Edge => i.clamp(0, n - 1),
        PadMode::Wrap => i.rem_euclid(n),
        PadMode::Reflect if n == 1 => 0,
        PadMode::Reflect => {
            let (period, m) = (2 * (n - 1), i.rem_euclid(2 * (n - 1)));
            if m >= n {
                period - m
            } else {
                m
            }
        }
    };
    Some(c as usize)
}

/// `Pad`: axis `d` gets `begin[d]` elements before and `end[d]` after
/// (negative pads crop; reflect/edge/wrap read the kept region, as ONNX).
pub fn pad<T: Copy>(shape: &[usize], begin: &[isize], end: &[isize], mode: PadMode<T>, x: &[T], y: &mut [T]) {
    let r = shape.len();
    assert!(begin.len() == r && end.len() == r, "pad: pads {begin:?}/{end:?} for rank {r}");
    check_len("x", x, shape);
    let dims = |d: usize| {
        let (n, b, e) = (shape[d] as isize, begin[d], end[d]);
        let kept = n - (-b).max(0) - (-e).max(0);
        assert!(kept >= 0 && n + b + e >= 0, "pad: pads {b}/{e} do not fit a dim of {n}");
        ((n + b + e) as usize, kept as usize, b.max(0), (-b).max(0) as usize)
    };
    let out_len: usize = (0..r).map(|d| dims(d).0).product();
    assert_eq!(y.len(), out_len, "pad: y holds {} elements, the padded shape {out_len}", y.len());
    if r == 0 {
        return y.copy_from_slice(x);
    }
    let (w, kept, lead, crop) = dims(r - 1);
    if w == 0 {
        return;
    }
    for (row, dst) in y.chunks_exact_mut(w).enumerate() {
        let (mut rem, mut src) = (row, Some(0usize));
        for d in (0..r - 1).rev() {
            let (n, k, l, c) = dims(d);
            let o = rem % n;
            rem /= n;
            src = src.zip(pad_coord(o as isize - l, k, &mode)).map(|(s, i)| s + (i + c) * stride(shape, d) as usize);
        }
        let Some(s) = src else {
            let PadMode::Constant(v) = mode else { unreachable!("only constant mode pads with a value") };
            dst.fill(v);
            continue;
        };
        let src = &x[s + crop..s + crop + kept];
        dst[lead as usize..lead as usize + kept].copy_from_slice(src);
        for o in (0..lead as usize).chain(lead as usize + kept..w) {
            dst[o] = match (pad_coord(o as isize - lead, kept, &mode), mode) {
                (Some(i), _) => src[i],
                (None, PadMode::Constant(v)) => v,
                (None, _) => unreachable!("only constant mode pads with a value"),
            };
        }
    }
}

/// `OneHot`: a new axis of `depth` at position `axis` (`0..=rank` of the
/// indices) holding `on` where it equals the index (negative indices count
/// from `depth`) and `off` elsewhere; out-of-range indices give all `off`.
pub fn one_hot<T: Copy, I: Copy + Into<i64>>(
    idx_shape: &[usize],
    axis: usize,
    depth: usize,
    indices: &[I],
    (off, on): (T, T),
    y: &mut [T],
) {
    assert!(axis <= idx_shape.len(), "one_hot: axis {axis} out of range for indices {idx_shape:?}");
    check_len("indices", indices, idx_shape);
    let (outer, inner) = (numel(&idx_shape[..axis]), numel(&idx_shape[axis..]));
    assert_eq!(y.len(), outer * depth * inner, "one_hot: y holds {} elements", y.len());
    y.fill(off);
    for (p, &i) in indices.iter().enumerate() {
        let (o, j) = (p / inner, p % inner);
        let v: i64 = i.into();
        let v = if v < 0 { v + depth as i64 } else { v };
        if (0..depth as i64).contains(&v) {
            y[(o * depth + v as usize) * inner + j] = on;
        }
    }
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
