//! ScatterElements, ScatterND and GatherND. Scatters copy `data` to the
//! output, then apply the updates in order (with duplicate indices and no
//! reduction, the last update wins).

use super::index;
use crate::elementwise::Num;
use crate::strided::{numel, stride};

/// How a scatter combines an update with the value it lands on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScatterReduction {
    /// Overwrite.
    None,
    /// `old + update` (wrapping for integers).
    Add,
    /// `old · update` (wrapping for integers).
    Mul,
    /// The larger (a NaN loses to a number, as `f64::max`).
    Max,
    /// The smaller (a NaN loses to a number).
    Min,
}

/// Scatter element types: copyable, with the reductions' arithmetic.
pub trait ScatterElem: Copy + PartialOrd {
    /// `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// `a · b`.
    fn mul(a: Self, b: Self) -> Self;
}

impl<T: Num> ScatterElem for T {
    fn add(a: T, b: T) -> T {
        <T as Num>::add(a, b)
    }
    fn mul(a: T, b: T) -> T {
        <T as Num>::mul(a, b)
    }
}

impl ScatterReduction {
    /// The combining function of this reduction for `T`.
    pub fn combine<T: ScatterElem>(self) -> fn(T, T) -> T {
        match self {
            ScatterReduction::None => overwrite,
            ScatterReduction::Add => T::add,
            ScatterReduction::Mul => T::mul,
            ScatterReduction::Max => |old, u| if is_nan(old) || (!is_nan(u) && u > old) { u } else { old },
            ScatterReduction::Min => |old, u| if is_nan(old) || (!is_nan(u) && u < old) { u } else { old },
        }
    }
}

/// True for a NaN (the only value unequal to itself).
#[allow(clippy::eq_op)]
fn is_nan<T: PartialOrd>(v: T) -> bool {
    v != v
}

/// `Err` naming the op unless indices of shape `idx_shape` and updates of
/// shape `upd_shape` fit data of shape `shape` (for sizes known only when
/// the model runs; the kernels assert the same). `axis` is `Some` for
/// ScatterElements (indices as big as the data except along `axis`, updates
/// shaped like the indices), `None` for ScatterND (updates shaped
/// `idx_shape[..q-1] ++ shape[k..]`).
pub fn scatter_check(
    shape: &[usize],
    axis: Option<usize>,
    idx_shape: &[usize],
    upd_shape: &[usize],
) -> Result<(), crate::rt::Error> {
    let fits = match axis {
        Some(a) => {
            a < shape.len()
                && idx_shape.len() == shape.len()
                && (0..shape.len()).all(|d| d == a || idx_shape[d] <= shape[d])
                && upd_shape == idx_shape
        }
        None => match idx_shape.split_last() {
            Some((&k, rows)) => {
                k <= shape.len() && upd_shape.len() == rows.len() + shape.len() - k && {
                    let (head, tail) = upd_shape.split_at(rows.len());
                    head == rows && tail == &shape[k..]
                }
            }
            None => false,
        },
    };
    if fits {
        Ok(())
    } else {
        let op = if axis.is_some() { "ScatterElements" } else { "ScatterND" };
        Err(crate::rt::Error(format!(
            "{op}: indices {idx_shape:?} and updates {upd_shape:?} do not fit data {shape:?}"
        )))
    }
}

/// The combining function of a scatter without reduction (any element type).
pub fn overwrite<T>(_old: T, update: T) -> T {
    update
}

/// `ScatterElements` along `axis`: `y = x`, then for each position `p` of
/// `indices` (shape `idx_shape`, same rank as `shape`, each other dim at most
/// `shape`'s) `y[p with axis coordinate indices[p]] = combine(old, updates[p])`.
#[allow(clippy::too_many_arguments)]
pub fn scatter_elements<T: Copy, I: Copy + Into<i64>>(
    shape: &[usize],
    axis: usize,
    x: &[T],
    idx_shape: &[usize],
    indices: &[I],
    updates: &[T],
    combine: fn(T, T) -> T,
    y: &mut [T],
) {
    let r = shape.len();
    assert!(axis < r && idx_shape.len() == r, "scatter_elements: indices {idx_shape:?} for data {shape:?}");
    assert!((0..r).all(|d| d == axis || idx_shape[d] <= shape[d]), "scatter_elements: indices {idx_shape:?} too big");
    assert!(x.len() == numel(shape) && y.len() == x.len(), "scatter_elements: data lengths for {shape:?}");
    assert!(indices.len() == numel(idx_shape) && updates.len() == indices.len(), "scatter_elements: index lengths");
    y.copy_from_slice(x);
    let mut coord = vec![0usize; r];
    for (p, (&i, &u)) in indices.iter().zip(updates).enumerate() {
        let mut rest = p;
        for d in (0..r).rev() {
            coord[d] = rest % idx_shape[d];
            rest /= idx_shape[d];
        }
        coord[axis] = index("ScatterElements", i.into(), shape[axis]);
        let at: usize = (0..r).map(|d| coord[d] * stride(shape, d) as usize).sum();
        y[at] = combine(y[at], u);
    }
}

/// Flat offset of the slice that the index tuple `tuple` addresses in
/// `shape` (`tuple.len() ≤ shape.len()`).
fn tuple_offset<I: Copy + Into<i64>>(op: &str, shape: &[usize], tuple: &[I]) -> usize {
    tuple.iter().enumerate().map(|(j, &v)| index(op, v.into(), shape[j]) * stride(shape, j) as usize).sum()
}

/// `ScatterND`: `y = x`, then each index tuple (the last dim `k` of
/// `idx_shape`) addresses a slice `shape[k..]` of `y` that the matching slice
/// of `updates` (shape `idx_shape[..q-1] ++ shape[k..]`) is combined into
/// (`combine(old, update)`: [`overwrite`] or [`ScatterReduction::combine`]).
pub fn scatter_nd<T: Copy, I: Copy + Into<i64>>(
    shape: &[usize],
    x: &[T],
    idx_shape: &[usize],
    indices: &[I],
    updates: &[T],
    combine: fn(T, T) -> T,
    y: &mut [T],
) {
    let k = *idx_shape.last().expect("scatter_nd: indices of rank 0");
    assert!(k <= shape.len(), "scatter_nd: tuples of {k} for data {shape:?}");
    assert!(x.len() == numel(shape) && y.len() == x.len(), "scatter_nd: data lengths for {shape:?}");
    let (rows, slice) = (numel(&idx_shape[..idx_shape.len() - 1]), numel(&shape[k..]));
    assert!(indices.len() == rows * k && updates.len() == rows * slice, "scatter_nd: index/update lengths");
    y.copy_from_slice(x);
    for row in 0..rows {
        let base = tuple_offset("ScatterND", shape, &indices[row * k..(row + 1) * k]);
        for e in 0..slice {
            y[base + e] = combine(y[base + e], updates[row * slice + e]);
        }
    }
}

/// `GatherND` with `batch_dims` shared leading dims: each index tuple (the
/// last dim `k` of `idx_shape`) selects the slice `shape[b + k..]` of its
/// batch; `y` has shape `idx_shape[..q-1] ++ shape[b + k..]`.
pub fn gather_nd<T: Copy, I: Copy + Into<i64>>(
    shape: &[usize],
    batch_dims: usize,
    x: &[T],
    idx_shape: &[usize],
    indices: &[I],
    y: &mut [T],
) {
    let (b, q) = (batch_dims, idx_shape.len());
    let k = *idx_shape.last().expect("gather_nd: indices of rank 0");
    assert!(b < q.min(shape.len()) && k <= shape.len() - b, "gather_nd: indices {idx_shape:?} for {shape:?}");
    assert_eq!(x.len(), numel(shape), "gather_nd: data length for {shape:?}");
    let rows = numel(&idx_shape[..q - 1]);
    let per_batch = numel(&idx_shape[b..q - 1]).max(1);
    let (batch, slice) = (numel(&shape[b..]), numel(&shape[b + k..]));
    assert!(indices.len() == rows * k && y.len() == rows * slice, "gather_nd: index/output lengths");
    for row in 0..rows {
        let base = (row / per_batch) * batch + tuple_offset("GatherND", &shape[b..], &indices[row * k..(row + 1) * k]);
        y[row * slice..(row + 1) * slice].copy_from_slice(&x[base..base + slice]);
    }
}
