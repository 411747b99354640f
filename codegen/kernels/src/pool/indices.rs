//! MaxPool's `Indices` output.

use crate::strided::{next_index, numel};

/// The most spatial axes [`max_pool_indices`] takes.
pub const MAX_RANK: usize = 6;

/// An N-D max-pooling window geometry (`[N, C, spatial...]` input).
#[derive(Copy, Clone, Debug)]
pub struct PoolIndices<'a> {
    /// `N · C` planes.
    pub planes: usize,
    /// Input size per spatial axis.
    pub input: &'a [usize],
    /// Output size per axis.
    pub out: &'a [usize],
    /// Window size per axis.
    pub kernel: &'a [usize],
    /// Stride per axis.
    pub stride: &'a [usize],
    /// Dilation per axis.
    pub dilation: &'a [usize],
    /// Leading pad per axis.
    pub pads: &'a [usize],
    /// Column-major spatial indices (`storage_order = 1`).
    pub col_major: bool,
}

/// MaxPool `Indices`: per output position, the flat index into the whole
/// input (`plane · prod(input) + spatial offset`, row-major, or column-major
/// spatial order with `col_major`) of the window's first maximum (taps in
/// row-major window order; padding never wins; -1 for a window without an
/// input tap).
pub fn max_pool_indices(p: &PoolIndices<'_>, x: &[f32], y: &mut [i64]) {
    let n = p.input.len();
    assert!(n <= MAX_RANK, "max_pool_indices: {n} spatial axes (at most {MAX_RANK})");
    let (is, os, ks) = (numel(p.input), numel(p.out), numel(p.kernel));
    assert_eq!(x.len(), p.planes * is, "max_pool_indices: input holds {} elements", x.len());
    assert_eq!(y.len(), p.planes * os, "max_pool_indices: output holds {} elements", y.len());
    for c in 0..p.planes {
        let plane = &x[c * is..(c + 1) * is];
        let mut o = [0usize; MAX_RANK];
        for of in 0..os {
            let mut best: Option<(f32, usize)> = None;
            let mut k = [0usize; MAX_RANK];
            for _ in 0..ks {
                let (mut row, mut col, mut inside) = (0usize, 0usize, true);
                for a in 0..n {
                    let q = (o[a] * p.stride[a] + k[a] * p.dilation[a]) as i64 - p.pads[a] as i64;
                    inside &= q >= 0 && (q as usize) < p.input[a];
                    row = row * p.input[a] + q.max(0) as usize;
                }
                for a in (0..n).rev() {
                    let q = (o[a] * p.stride[a] + k[a] * p.dilation[a]) as i64 - p.pads[a] as i64;
                    col = col * p.input[a] + q.max(0) as usize;
                }
                if inside && best.is_none_or(|(b, _)| plane[row] > b) {
                    best = Some((plane[row], if p.col_major { col } else { row }));
                }
                next_index(&mut k[..n], p.kernel);
            }
            y[c * os + of] = best.map_or(-1, |(_, i)| (c * is + i) as i64);
            next_index(&mut o[..n], p.out);
        }
    }
}
