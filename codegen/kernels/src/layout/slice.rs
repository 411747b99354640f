//! Kernels that select or add elements along axes: Slice and Pad.

use crate::strided::{check_len, for_each_row, stride};

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
