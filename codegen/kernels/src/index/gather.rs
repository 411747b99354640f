//! Gather, GatherElements, and OneHot with an `(off, on)` pair (the
//! static-shape forms, generic over the element type).

use crate::strided::{check_len, for_each_row, numel, stride};

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
