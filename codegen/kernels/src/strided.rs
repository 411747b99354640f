//! Coalesced strided iteration spaces, shared by the broadcasting, layout and
//! reduction kernels, and the row-major helpers every family uses (element
//! counts, [`check_len`], multi-index stepping with [`next_index`]).
//!
//! A kernel describes the loop nest it needs as a list of dims (outer to
//! inner), each with a size and one element stride per operand. [`Space`]
//! drops size-1 dims and merges adjacent dims whose strides are compatible in
//! every operand (a contiguous `[N, C, H, W] + [C, 1, 1]` becomes three dims:
//! `N`, `C`, `H*W`), so the innermost loop runs over the longest possible
//! row. [`for_each_row`] visits those rows without allocating; a space that
//! does not coalesce into [`MAX_DIMS`] dims (only possible above rank 16) is
//! visited element by element instead, by decoding flat indices.

/// Most dims a coalesced [`Space`] holds.
pub(crate) const MAX_DIMS: usize = 8;

/// A coalesced loop nest over `N` strided operands (strides in elements, may
/// be negative or zero). Invariant: dims `0..rank` have sizes other than 1 and
/// no two adjacent dims could be merged.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Space<const N: usize> {
    /// Number of dims.
    pub rank: usize,
    /// Size of each dim (outer to inner).
    pub size: [usize; MAX_DIMS],
    /// Per dim, the stride of each operand.
    pub stride: [[isize; N]; MAX_DIMS],
}

impl<const N: usize> Space<N> {
    /// The coalesced space of the `count` dims `dim(0)` (outermost) to
    /// `dim(count - 1)`, each `(size, strides)`; `None` if more than
    /// [`MAX_DIMS`] dims remain.
    pub fn new(count: usize, dim: impl Fn(usize) -> (usize, [isize; N])) -> Option<Self> {
        let mut s = Space { rank: 0, size: [1; MAX_DIMS], stride: [[0; N]; MAX_DIMS] };
        for i in 0..count {
            let (n, st) = dim(i);
            if n == 1 {
                continue;
            }
            if s.rank > 0 {
                let p = s.rank - 1;
                if (0..N).all(|k| s.stride[p][k] == st[k] * n as isize) {
                    s.size[p] *= n;
                    s.stride[p] = st;
                    continue;
                }
            }
            if s.rank == MAX_DIMS {
                return None;
            }
            s.size[s.rank] = n;
            s.stride[s.rank] = st;
            s.rank += 1;
        }
        Some(s)
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.size[..self.rank].iter().product()
    }

    /// Call `f(offsets, inner_strides, len)` for every innermost row, in
    /// row-major order; `offsets` are those of the row's first element.
    pub fn rows(&self, mut f: impl FnMut([isize; N], [isize; N], usize)) {
        if self.size[..self.rank].contains(&0) {
            return;
        }
        if self.rank == 0 {
            f([0; N], [0; N], 1);
            return;
        }
        let inner = self.rank - 1;
        let mut idx = [0usize; MAX_DIMS];
        let mut off = [0isize; N];
        loop {
            f(off, self.stride[inner], self.size[inner]);
            let mut d = inner;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                idx[d] += 1;
                (0..N).for_each(|k| off[k] += self.stride[d][k]);
                if idx[d] < self.size[d] {
                    break;
                }
                (0..N).for_each(|k| off[k] -= self.stride[d][k] * self.size[d] as isize);
                idx[d] = 0;
            }
        }
    }

    /// The offsets of every point, in row-major order.
    pub fn points(&self) -> Points<'_, N> {
        Points { s: self, idx: [0; MAX_DIMS], off: [0; N], left: self.len() }
    }
}

/// Iterator over the points of a [`Space`] (see [`Space::points`]).
#[derive(Clone, Debug)]
pub(crate) struct Points<'a, const N: usize> {
    s: &'a Space<N>,
    idx: [usize; MAX_DIMS],
    off: [isize; N],
    left: usize,
}

impl<const N: usize> Iterator for Points<'_, N> {
    type Item = [isize; N];

    fn next(&mut self) -> Option<[isize; N]> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let cur = self.off;
        let mut d = self.s.rank;
        while d > 0 {
            d -= 1;
            self.idx[d] += 1;
            (0..N).for_each(|k| self.off[k] += self.s.stride[d][k]);
            if self.idx[d] < self.s.size[d] {
                break;
            }
            (0..N).for_each(|k| self.off[k] -= self.s.stride[d][k] * self.s.size[d] as isize);
            self.idx[d] = 0;
        }
        Some(cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// Visit every innermost row of the loop nest `dim` describes (see
/// [`Space::new`] and [`Space::rows`]); if it does not coalesce, every element
/// is visited as a row of length 1.
pub(crate) fn for_each_row<const N: usize>(
    count: usize,
    dim: impl Fn(usize) -> (usize, [isize; N]),
    mut f: impl FnMut([isize; N], [isize; N], usize),
) {
    if let Some(s) = Space::new(count, &dim) {
        return s.rows(f);
    }
    let total: usize = (0..count).map(|i| dim(i).0).product();
    for e in 0..total {
        f(decode(count, &dim, e), [0; N], 1);
    }
}

/// The offsets of point number `flat` (row-major) of the loop nest `dim`.
pub(crate) fn decode<const N: usize>(
    count: usize,
    dim: impl Fn(usize) -> (usize, [isize; N]),
    flat: usize,
) -> [isize; N] {
    let mut rem = flat;
    let mut off = [0isize; N];
    for i in (0..count).rev() {
        let (n, st) = dim(i);
        let j = (rem % n) as isize;
        rem /= n;
        (0..N).for_each(|k| off[k] += j * st[k]);
    }
    off
}

/// Row-major stride of axis `d` of `shape` (product of the later dims).
pub(crate) fn stride(shape: &[usize], d: usize) -> isize {
    shape[d + 1..].iter().product::<usize>() as isize
}

/// Stride of output axis `d` (of an output of rank `out_rank`) in a tensor of
/// shape `shape` numpy-broadcast to it: 0 where it is broadcast.
pub(crate) fn bcast_stride(shape: &[usize], out_rank: usize, d: usize) -> isize {
    let off = out_rank - shape.len();
    if d < off || shape[d - off] == 1 {
        0
    } else {
        stride(shape, d - off)
    }
}

/// The loop nest of the dims of `shape` in `axes` (`inside`) or not in them,
/// with their strides in `shape` (the reduced or the kept dims of a
/// reduction); `None` if it does not coalesce.
pub(crate) fn axes_space(shape: &[usize], axes: &[usize], inside: bool) -> Option<Space<1>> {
    Space::new(shape.len(), |d| if axes.contains(&d) == inside { (shape[d], [stride(shape, d)]) } else { (1, [0]) })
}

/// Offset in `shape` of point `flat` (row-major) of [`axes_space`]`(shape, axes, inside)`.
pub(crate) fn axes_offset(shape: &[usize], axes: &[usize], inside: bool, flat: usize) -> usize {
    let (mut rem, mut off, mut st) = (flat, 0, 1);
    for d in (0..shape.len()).rev() {
        if axes.contains(&d) == inside {
            off += (rem % shape[d]) * st;
            rem /= shape[d];
        }
        st *= shape[d];
    }
    off
}

/// Number of elements of `shape`.
pub(crate) fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Check a tensor's element count.
pub(crate) fn check_len<T>(what: &str, v: &[T], shape: &[usize]) {
    assert_eq!(v.len(), numel(shape), "{what} holds {} elements, shape {shape:?} needs {}", v.len(), numel(shape));
}

/// Advance the row-major multi-index `idx` over `dims` (the last axis
/// fastest), wrapping to all zeros after the last index.
#[inline]
pub(crate) fn next_index(idx: &mut [usize], dims: &[usize]) {
    for a in (0..dims.len()).rev() {
        idx[a] += 1;
        if idx[a] < dims[a] {
            return;
        }
        idx[a] = 0;
    }
}

/// Panic unless `shape` numpy-broadcasts to `out` (a caller bug).
pub(crate) fn assert_broadcasts(shape: &[usize], out: &[usize]) {
    let ok =
        shape.len() <= out.len() && shape.iter().zip(&out[out.len() - shape.len()..]).all(|(&s, &o)| s == 1 || s == o);
    assert!(ok, "shape {shape:?} does not broadcast to {out:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesces_per_channel_broadcast() {
        // [2, 3, 4, 5] + [3, 1, 1]: N, C and H*W remain.
        let (out, b) = ([2, 3, 4, 5], [3, 1, 1]);
        let s = Space::<2>::new(4, |d| (out[d], [stride(&out, d), bcast_stride(&b, 4, d)])).unwrap();
        assert_eq!(s.rank, 3);
        assert_eq!(&s.size[..3], &[2, 3, 20]);
        assert_eq!(s.stride[2], [1, 0]);
    }

    #[test]
    fn slow_path_matches_fast_path() {
        // 10 alternating broadcast dims do not coalesce into MAX_DIMS dims.
        let out = [2usize; 10];
        let b: Vec<usize> = (0..10).map(|i| if i % 2 == 0 { 1 } else { 2 }).collect();
        let dim = |d: usize| (out[d], [stride(&out, d), bcast_stride(&b, 10, d)]);
        assert!(Space::new(10, dim).is_none());
        let mut seen = Vec::new();
        for_each_row(10, dim, |o, _, len| {
            assert_eq!(len, 1);
            seen.push(o);
        });
        assert_eq!(seen.len(), numel(&out));
        assert!(seen.iter().enumerate().all(|(i, o)| o[0] == i as isize));
        // b's offset of output element i: its odd-axis bits.
        let want_b = |i: usize| (0..5).map(|k| ((i >> (8 - 2 * k)) & 1) << (4 - k)).sum::<usize>() as isize;
        assert!(seen.iter().enumerate().all(|(i, o)| o[1] == want_b(i)));
        let small = [3usize, 1, 2];
        let s = Space::<1>::new(3, |d| (small[d], [stride(&small, d)])).unwrap();
        assert_eq!(s.points().map(|p| p[0]).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
    }
}
