//! Runtime support of generated models: errors, tensor views, the weights
//! file's types (re-exported from [`crate::weights`]), and the pad/slice steps
//! of bucket dispatch.
//! Shared infrastructure, not about one op family: also the run-time
//! checks kernels of several families share ([`check_count`]: select,
//! generate and signal).

pub use crate::error::Error;

/// A borrowed tensor: row-major data and its shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct View<'a, T> {
    /// The dims.
    pub shape: &'a [usize],
    /// `shape.iter().product()` elements.
    pub data: &'a [T],
}

/// `Err` unless input `name` has `len` elements.
pub fn check_len(name: &str, got: usize, want: usize) -> Result<(), Error> {
    if got == want {
        Ok(())
    } else {
        Err(Error(format!("input `{name}` has {got} elements, the model takes {want}")))
    }
}

/// `Err` naming `op` unless the computed size `got` is the declared `want`.
pub fn check_count(op: &str, what: &str, got: usize, want: usize) -> Result<(), Error> {
    if got == want {
        Ok(())
    } else {
        Err(Error(format!("{op}: the data gives {got} {what}, the model declares {want}")))
    }
}

/// `Err` unless the view's shape matches `want` (`None` = any size) and its
/// data holds the shape's element count.
pub fn check_shape<T>(name: &str, v: &View<'_, T>, want: &[Option<usize>]) -> Result<(), Error> {
    let ok = v.shape.len() == want.len() && v.shape.iter().zip(want).all(|(&d, w)| w.is_none_or(|w| w == d));
    let fmt = |s: &[Option<usize>]| {
        s.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect::<Vec<_>>().join(", ")
    };
    if !ok {
        return Err(Error(format!("input `{name}` has shape {:?}, the model takes [{}]", v.shape, fmt(want))));
    }
    check_len(name, v.data.len(), v.shape.iter().product())
}

/// Grow `v` to at least `n` elements (a model with symbolic dims sizes its
/// arenas and scratch for the largest inputs seen so far; a run at sizes
/// seen before allocates nothing).
pub fn grow<T: Clone + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// `v` resized to exactly `n` elements (new ones default), as a slice: an
/// own buffer of a value whose size is known only when its op runs. The
/// capacity stays, so a run at sizes seen before allocates nothing.
pub fn fit<T: Clone + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    v.resize(n, T::default());
    v.as_mut_slice()
}

/// Reverse the order of the `chunk`-element blocks of `v`, each block kept
/// as it is (a scan output stacked in reverse). `chunk` 0 leaves `v` alone.
pub fn reverse_chunks<T>(v: &mut [T], chunk: usize) {
    if chunk > 0 {
        v.reverse();
        v.chunks_mut(chunk).for_each(<[T]>::reverse);
    }
}

/// FNV-1a 64-bit hash (the numeric core's, shared with the compiler).
pub use edgec_numeric::hash::fnv1a64;

pub use crate::weights::{Counts, Section, Weights, SECTIONS, SECTION_SIZES, WEIGHTS_MAGIC};

/// The runtime size of a bucketed dim: every `(shape, axis)` carrying it must agree.
pub fn dim_size(dim: &str, carriers: &[(&[usize], usize)]) -> Result<usize, Error> {
    let mut size = None;
    for &(shape, axis) in carriers {
        let n = *shape.get(axis).ok_or_else(|| Error(format!("dim `{dim}`: input has no axis {axis}")))?;
        match size {
            Some(m) if m != n => return Err(Error(format!("dim `{dim}` is {m} on one input but {n} on another"))),
            _ => size = Some(n),
        }
    }
    size.ok_or_else(|| Error(format!("dim `{dim}` is on no input")))
}

/// Index of the smallest bucket `>= n`, or an error naming the dim and the buckets.
pub fn select_bucket(dim: &str, n: usize, buckets: &[usize]) -> Result<usize, Error> {
    buckets.iter().position(|&b| b >= n).ok_or_else(|| {
        let list: Vec<String> = buckets.iter().map(|b| b.to_string()).collect();
        Error(format!(
            "dim `{dim}` is {n}, larger than the largest bucket {} (buckets: {})",
            buckets.last().copied().unwrap_or(0),
            list.join(", ")
        ))
    })
}

/// Copy `x` (shape `from`) into the leading corner of `y` (shape `to`, each
/// dim at least `from`'s) and fill the rest with `fill`.
pub fn pad_into<T: Copy>(from: &[usize], x: &[T], to: &[usize], y: &mut [T], fill: T) {
    assert_eq!(x.len(), from.iter().product::<usize>());
    assert_eq!(y.len(), to.iter().product::<usize>());
    y.fill(fill);
    for_corner_rows(from, to, |small, large, n| y[large..large + n].copy_from_slice(&x[small..small + n]));
}

/// Copy the leading corner of shape `to` out of `x` (shape `from`) into `y`.
pub fn slice_into<T: Copy>(from: &[usize], x: &[T], to: &[usize], y: &mut [T]) {
    assert_eq!(x.len(), from.iter().product::<usize>());
    assert_eq!(y.len(), to.iter().product::<usize>());
    for_corner_rows(to, from, |small, large, n| y[small..small + n].copy_from_slice(&x[large..large + n]));
}

/// Highest rank a bucketed input or output may have.
pub const MAX_PAD_RANK: usize = 16;

/// Call `row(small_offset, large_offset, len)` for every innermost row of a
/// tensor of shape `small` placed in the leading corner of one of shape
/// `large` (same rank, every dim at least as large).
fn for_corner_rows(small: &[usize], large: &[usize], mut row: impl FnMut(usize, usize, usize)) {
    assert_eq!(small.len(), large.len(), "pad/slice between ranks {} and {}", small.len(), large.len());
    assert!(small.iter().zip(large).all(|(s, l)| s <= l), "shape {small:?} does not fit in {large:?}");
    let Some((&n, outer)) = small.split_last() else {
        row(0, 0, 1);
        return;
    };
    if n == 0 || outer.contains(&0) {
        return;
    }
    // Fixed arrays: a bucketed run allocates nothing.
    let rank = small.len();
    assert!(rank <= MAX_PAD_RANK, "pad/slice of rank {rank} (at most {MAX_PAD_RANK})");
    let mut stride = [1usize; MAX_PAD_RANK];
    for a in (0..rank - 1).rev() {
        stride[a] = stride[a + 1] * large[a + 1];
    }
    let mut idx = [0usize; MAX_PAD_RANK];
    let (stride, idx) = (&stride[..rank], &mut idx[..rank - 1]);
    let mut s_off = 0;
    loop {
        let l_off: usize = idx.iter().zip(stride).map(|(i, s)| i * s).sum();
        row(s_off, l_off, n);
        s_off += n;
        let mut a = rank - 1;
        loop {
            if a == 0 {
                return;
            }
            a -= 1;
            idx[a] += 1;
            if idx[a] < outer[a] {
                break;
            }
            idx[a] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_then_slice_round_trips() {
        let x: Vec<i64> = (0..6).collect();
        let mut y = vec![0i64; 12];
        pad_into(&[2, 3], &x, &[3, 4], &mut y, -1);
        assert_eq!(y, [0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1, -1]);
        let mut back = vec![0i64; 6];
        slice_into(&[3, 4], &y, &[2, 3], &mut back);
        assert_eq!(back, x);
    }

    #[test]
    fn buckets_and_dims() {
        assert_eq!(select_bucket("s", 7, &[8, 16]), Ok(0));
        assert_eq!(select_bucket("s", 16, &[8, 16]), Ok(1));
        let e = select_bucket("seq", 17, &[8, 16]).unwrap_err();
        assert_eq!(e.0, "dim `seq` is 17, larger than the largest bucket 16 (buckets: 8, 16)");
        assert_eq!(dim_size("s", &[(&[1, 5], 1), (&[5], 0)]), Ok(5));
        assert!(dim_size("s", &[(&[1, 5], 1), (&[4], 0)]).is_err());
    }
}
