//! `MaxUnpool`: scatter each value of `x` to the flat position its index
//! names in the unpooled shape `inferred` (what MaxPool's indices count in),
//! re-flattened into the possibly larger `output_shape`; every other output
//! element is zero. An index outside `[0, prod(inferred))` is a run-time
//! error (the kernel panics naming it, as `Gather` does).

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
