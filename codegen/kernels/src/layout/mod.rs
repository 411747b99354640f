//! Data movement, generic over the element type (f32, i64, bool, ...):
//! transpose, concat/split, expand, tile, slice, pad, depth/space
//! rearrangements and ReverseSequence. Every kernel writes its output
//! in row-major order; most are loops over coalesced rows (the crate's
//! strided-iteration core) whose innermost step is a `copy_from_slice`
//! when the source row is contiguous.

mod reverse;
mod slice;
mod space;

pub use reverse::{reverse_sequence, reverse_sequence_checked};
pub use slice::{pad, slice, slice_axis, PadMode, SliceAxis};
pub use space::{depth_to_space, space_to_depth, DepthToSpace};

use crate::elementwise::broadcast::map1;
use crate::strided::{check_len, for_each_row, numel, stride, Space};

/// Side of the square tiles of the blocked 2-D transpose.
const TILE: usize = 16;

/// `y = x` (reshape-like ops the compiler does not turn into views).
pub fn copy<T: Copy>(x: &[T], y: &mut [T]) {
    y.copy_from_slice(x);
}

/// Copy the `rows x cols` matrix whose element `(r, c)` is at
/// `x[xo + r * sr + c * sc]` into row-major `y[yo..]`, in square tiles.
fn tile2d<T: Copy>(x: &[T], xo: isize, y: &mut [T], yo: isize, (rows, cols): (usize, usize), (sr, sc): (isize, isize)) {
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            let (r1, c1) = ((r0 + TILE).min(rows), (c0 + TILE).min(cols));
            if sr == 1 && r1 - r0 == TILE && c1 - c0 == TILE {
                let src = (xo + r0 as isize + c0 as isize * sc) as usize;
                block(x, src, sc as usize, y, yo as usize + r0 * cols + c0, cols);
                continue;
            }
            for r in r0..r1 {
                let src = xo + r as isize * sr;
                let dst = &mut y[yo as usize + r * cols + c0..yo as usize + r * cols + c1];
                dst.iter_mut().zip(c0..).for_each(|(d, c)| *d = x[(src + c as isize * sc) as usize]);
            }
        }
    }
}

/// A full `TILE x TILE` tile whose source columns are contiguous:
/// `y[dst + r * cols + c] = x[src + r + c * sc]`. Fixed-size arrays let the
/// compiler drop the bounds checks (and use shuffles).
fn block<T: Copy>(x: &[T], src: usize, sc: usize, y: &mut [T], dst: usize, cols: usize) {
    let mut t = [[x[src]; TILE]; TILE];
    for (c, col) in t.iter_mut().enumerate() {
        let s: &[T; TILE] = x[src + c * sc..src + c * sc + TILE].try_into().expect("a tile column");
        *col = *s;
    }
    for r in 0..TILE {
        let d: &mut [T; TILE] = (&mut y[dst + r * cols..dst + r * cols + TILE]).try_into().expect("a tile row");
        for (c, d) in d.iter_mut().enumerate() {
            *d = t[c][r];
        }
    }
}

/// Permute the axes of `x`: output axis `d` is input axis `perm[d]`.
/// Adjacent axes that stay adjacent are merged first; when the innermost
/// output axis is not contiguous in the input (2-D and batched last-two-axes
/// swaps, NCHW ↔ NHWC, ...) the last two merged axes are copied in tiles.
pub fn transpose<T: Copy>(shape: &[usize], perm: &[usize], x: &[T], y: &mut [T]) {
    let r = shape.len();
    let is_perm = perm.len() == r && (0..r).all(|a| perm.iter().filter(|&&p| p == a).count() == 1);
    assert!(is_perm, "transpose: {perm:?} is not a permutation of the axes of {shape:?}");
    check_len("x", x, shape);
    check_len("y", y, shape);
    let out_stride = |d: usize| perm[d + 1..].iter().map(|&p| shape[p]).product::<usize>() as isize;
    let dim = |d: usize| (shape[perm[d]], [out_stride(d), stride(shape, perm[d])]);
    let row = |[oo, oi]: [isize; 2], [_, si]: [isize; 2], len: usize| {
        let dst = &mut y[oo as usize..oo as usize + len];
        if si == 1 {
            dst.copy_from_slice(&x[oi as usize..oi as usize + len]);
        } else {
            dst.iter_mut().enumerate().for_each(|(k, d)| *d = x[(oi + k as isize * si) as usize]);
        }
    };
    match Space::new(r, dim) {
        Some(s) if s.rank >= 2 && s.stride[s.rank - 1][1] != 1 => {
            let (a, b) = (s.rank - 2, s.rank - 1);
            let Some(outer) = Space::<2>::new(a, |d| (s.size[d], s.stride[d])) else { unreachable!() };
            for [oo, oi] in outer.points() {
                tile2d(x, oi, y, oo, (s.size[a], s.size[b]), (s.stride[a][1], s.stride[b][1]));
            }
        }
        Some(s) => s.rows(row),
        None => for_each_row(r, dim, row),
    }
}

/// Numpy-broadcast `x` of `shape` to `out_shape` (`Expand`).
pub fn expand<T: Copy>(shape: &[usize], x: &[T], out_shape: &[usize], y: &mut [T]) {
    map1(shape, x, out_shape, y, |v| v);
}

/// Repeat `x` `repeats[d]` times along each axis `d` (`Tile`).
pub fn tile<T: Copy>(shape: &[usize], repeats: &[usize], x: &[T], y: &mut [T]) {
    assert_eq!(repeats.len(), shape.len(), "tile: {} repeats for rank {}", repeats.len(), shape.len());
    check_len("x", x, shape);
    let out_len: usize = shape.iter().zip(repeats).map(|(&d, &k)| d * k).product();
    assert_eq!(y.len(), out_len, "tile: y holds {} elements, the tiled shape {out_len}", y.len());
    // Output stride of axis d: product of the later tiled dims.
    let os = |d: usize| (d + 1..shape.len()).map(|e| shape[e] * repeats[e]).product::<usize>() as isize;
    let dim = |i: usize| {
        let d = i / 2;
        if i.is_multiple_of(2) {
            (repeats[d], [shape[d] as isize * os(d), 0])
        } else {
            (shape[d], [os(d), stride(shape, d)])
        }
    };
    for_each_row(2 * shape.len(), dim, |[oo, oi], [_, si], len| {
        let dst = &mut y[oo as usize..oo as usize + len];
        match si {
            0 => dst.fill(x[oi as usize]),
            _ => dst.copy_from_slice(&x[oi as usize..oi as usize + len]),
        }
    });
}

/// Concatenate `parts` (`(shape, data)`, equal except along `axis`) along
/// `axis` into `out` of `out_shape`.
pub fn concat<T: Copy>(axis: usize, parts: &[(&[usize], &[T])], out_shape: &[usize], out: &mut [T]) {
    assert!(axis < out_shape.len(), "concat: axis {axis} out of range for {out_shape:?}");
    check_len("out", out, out_shape);
    let mut total = 0;
    for &(s, x) in parts {
        let fits = s.len() == out_shape.len() && (0..s.len()).all(|d| d == axis || s[d] == out_shape[d]);
        assert!(fits, "concat: part {s:?} does not fit {out_shape:?} along axis {axis}");
        check_len("a part", x, s);
        total += s[axis];
    }
    assert_eq!(total, out_shape[axis], "concat: parts add up to {total} along axis {axis} of {out_shape:?}");
    let (outer, inner) = (numel(&out_shape[..axis]), numel(&out_shape[axis + 1..]));
    let mut o = 0;
    for i in 0..outer {
        for &(s, x) in parts {
            let blk = s[axis] * inner;
            out[o..o + blk].copy_from_slice(&x[i * blk..(i + 1) * blk]);
            o += blk;
        }
    }
}

/// The part `[start, start + len)` along `axis` of `x` (one output of `Split`).
pub fn split_part<T: Copy>(axis: usize, shape: &[usize], x: &[T], start: usize, len: usize, y: &mut [T]) {
    assert!(
        axis < shape.len() && start + len <= shape[axis],
        "split_part: [{start}, +{len}) of axis {axis} of {shape:?}"
    );
    check_len("x", x, shape);
    let (outer, n, inner) = (numel(&shape[..axis]), shape[axis], numel(&shape[axis + 1..]));
    assert_eq!(y.len(), outer * len * inner, "split_part: y holds {} elements", y.len());
    if len * inner == 0 {
        return;
    }
    for (i, dst) in y.chunks_exact_mut(len * inner).enumerate() {
        let src = (i * n + start) * inner;
        dst.copy_from_slice(&x[src..src + len * inner]);
    }
}

/// `Split` along `axis` into parts of `sizes` (summing to the axis length),
/// `outs[i]` receiving part `i`.
pub fn split<T: Copy>(axis: usize, shape: &[usize], x: &[T], sizes: &[usize], outs: &mut [&mut [T]]) {
    assert_eq!(sizes.len(), outs.len(), "split: {} sizes for {} outputs", sizes.len(), outs.len());
    assert!(axis < shape.len() && sizes.iter().sum::<usize>() == shape[axis], "split: sizes {sizes:?} of {shape:?}");
    let mut start = 0;
    for (&len, y) in sizes.iter().zip(outs.iter_mut()) {
        split_part(axis, shape, x, start, len, y);
        start += len;
    }
}
