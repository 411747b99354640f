//! `MaxUnpool`: scatter each value of `x` to the flat position its index
//! names in the unpooled shape `inferred` (what MaxPool's indices count in),
//! re-flattened into the possibly larger `output_shape`; every other output
//! element is zero. An index outside `[0, prod(inferred))` is a run-time
//! error (the kernel panics naming it, as `Gather` does; with run-time
//! sizes, [`max_unpool_checked`] returns it).

use crate::rt::Error;

/// Most dims the kernel takes.
pub const UNPOOL_MAX_RANK: usize = 8;

/// `y` (of `shape`) = zero, then `y[reflat(idx[i])] = x[i]`.
pub fn max_unpool<T: Copy + Default, I: Copy + Into<i64>>(
    inferred: &[usize],
    shape: &[usize],
    x: &[T],
    idx: &[I],
    y: &mut [T],
) {
    let r = inferred.len();
    assert!(r == shape.len() && r <= UNPOOL_MAX_RANK, "MaxUnpool: ranks {r} and {}", shape.len());
    assert_eq!(x.len(), idx.len(), "MaxUnpool: X and I differ in length");
    let total: usize = inferred.iter().product();
    y.fill(T::default());
    let mut pos = [0usize; UNPOOL_MAX_RANK];
    for (&v, &i) in x.iter().zip(idx) {
        let i: i64 = i.into();
        let mut rem = usize::try_from(i).ok().filter(|&i| i < total).unwrap_or_else(|| {
            panic!("MaxUnpool: index {i} is out of range [0, {total})");
        });
        for a in (0..r).rev() {
            pos[a] = rem % inferred[a];
            rem /= inferred[a];
        }
        let t = pos[..r].iter().zip(shape).fold(0, |acc, (&p, &d)| acc * d + p);
        y[t] = v;
    }
}

/// MaxUnpool's unpooled size of an axis of `x` elements: `(x − 1) · stride
/// − pad_begin − pad_end + kernel` (an error naming the op if negative).
pub fn unpool_size(x: usize, kernel: i64, stride: i64, pad_begin: i64, pad_end: i64) -> Result<usize, Error> {
    let d = (x as i64 - 1) * stride - pad_begin - pad_end + kernel;
    usize::try_from(d).map_err(|_| Error(format!("MaxUnpool: an axis of {x} unpools to the negative size {d}")))
}

/// [`max_unpool`] with run-time sizes: the unpooled shape follows from
/// `x_dims` and the attributes (`pads`: begins, then ends); the result's
/// `shape` must be at least as large on every axis and every index in
/// range, else an error naming the op (before anything is written).
#[allow(clippy::too_many_arguments)]
pub fn max_unpool_checked<T: Copy + Default, I: Copy + Into<i64>>(
    x_dims: &[usize],
    kernel: &[i64],
    strides: &[i64],
    pads: &[i64],
    shape: &[usize],
    x: &[T],
    idx: &[I],
    y: &mut [T],
) -> Result<(), Error> {
    let (r, n) = (x_dims.len(), kernel.len());
    if r != n + 2 || shape.len() != r || r > UNPOOL_MAX_RANK || strides.len() != n || pads.len() != 2 * n {
        return Err(Error(format!("MaxUnpool: X {x_dims:?} and output {shape:?} do not fit kernel_shape {kernel:?}")));
    }
    let mut inferred = [0usize; UNPOOL_MAX_RANK];
    inferred[..2].copy_from_slice(&x_dims[..2]);
    for a in 0..n {
        inferred[a + 2] = unpool_size(x_dims[a + 2], kernel[a], strides[a], pads[a], pads[a + n])?;
    }
    let inferred = &inferred[..r];
    if shape.iter().zip(inferred).any(|(s, i)| s < i) {
        return Err(Error(format!("MaxUnpool: output_shape {shape:?} is smaller than the unpooled {inferred:?}")));
    }
    if x.len() != idx.len() {
        return Err(Error(format!("MaxUnpool: X holds {} values but I {}", x.len(), idx.len())));
    }
    let total: usize = inferred.iter().product();
    if let Some(&bad) = idx.iter().find(|&&i| usize::try_from(i.into()).map_or(true, |i| i >= total)) {
        return Err(Error(format!("MaxUnpool: index {} is out of range [0, {total})", bad.into())));
    }
    max_unpool(inferred, shape, x, idx, y);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatters_into_a_larger_output() {
        let mut y = [9.0f32; 6];
        max_unpool(&[1, 1, 2, 2], &[1, 1, 2, 3], &[5.0, 7.0], &[1i64, 2], &mut y);
        assert_eq!(y, [0.0, 5.0, 0.0, 7.0, 0.0, 0.0]);
    }
}
