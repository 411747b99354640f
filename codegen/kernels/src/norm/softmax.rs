//! Softmax, LogSoftmax and Hardmax along one axis (opset-13 semantics).
//!
//! Stable forms: the lane maximum is subtracted before exponentiating (with
//! the vectorizable [`crate::math::exp`]); the sum of exponentials
//! accumulates in f64. A lane along the last axis is a
//! contiguous row; along another axis, 128 adjacent lanes are processed
//! together so every pass reads contiguous memory.

use crate::math::{exp, max_nan, sum_f64};
use crate::strided::numel;

/// Lanes processed together when the axis is not the last one.
const LANES: usize = 128;

#[inline]
fn max2(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// A computation on each lane along an axis.
trait LaneOp {
    /// One lane, contiguous.
    fn row(x: &[f32], y: &mut [f32]);
    /// `w <= LANES` lanes of length `n`: element `k` of lane `j` is at `k * inner + j`.
    fn lanes(x: &[f32], y: &mut [f32], n: usize, inner: usize, w: usize);
}

/// Apply `K` to every lane of `x` along `axis`.
fn along_axis<K: LaneOp>(shape: &[usize], axis: usize, x: &[f32], y: &mut [f32]) {
    assert!(axis < shape.len(), "axis {axis} out of range for {shape:?}");
    assert_eq!(x.len(), numel(shape), "x holds {} elements, shape {shape:?} needs more or fewer", x.len());
    assert_eq!(y.len(), x.len(), "y holds {} elements, x {}", y.len(), x.len());
    let (n, inner) = (shape[axis], numel(&shape[axis + 1..]));
    if n == 0 || inner == 0 {
        return;
    }
    if inner == 1 {
        x.chunks_exact(n).zip(y.chunks_exact_mut(n)).for_each(|(x, y)| K::row(x, y));
        return;
    }
    for (xb, yb) in x.chunks_exact(n * inner).zip(y.chunks_exact_mut(n * inner)) {
        for j0 in (0..inner).step_by(LANES) {
            K::lanes(&xb[j0..], &mut yb[j0..], n, inner, LANES.min(inner - j0));
        }
    }
}

/// Per-lane maxima of `w` lanes.
fn lane_max(x: &[f32], n: usize, inner: usize, w: usize) -> [f32; LANES] {
    let mut m = [f32::NEG_INFINITY; LANES];
    for k in 0..n {
        m.iter_mut().zip(&x[k * inner..k * inner + w]).for_each(|(m, &v)| *m = max2(*m, v));
    }
    m
}

/// `y = exp(x - m)` per lane; returns the per-lane sums.
fn lane_exp(x: &[f32], y: &mut [f32], m: &[f32; LANES], n: usize, inner: usize, w: usize) -> [f64; LANES] {
    let mut s = [0f64; LANES];
    for k in 0..n {
        let (xr, yr) = (&x[k * inner..k * inner + w], &mut y[k * inner..k * inner + w]);
        yr.iter_mut().zip(xr).zip(m).for_each(|((y, &v), &m)| *y = exp(v - m));
        s.iter_mut().zip(yr.iter()).for_each(|(s, &y)| *s += y as f64);
    }
    s
}

struct Softmax;

impl LaneOp for Softmax {
    fn row(x: &[f32], y: &mut [f32]) {
        let m = max_nan(x);
        y.iter_mut().zip(x).for_each(|(y, &v)| *y = exp(v - m));
        let inv = (1.0 / sum_f64(y)) as f32;
        y.iter_mut().for_each(|y| *y *= inv);
    }

    fn lanes(x: &[f32], y: &mut [f32], n: usize, inner: usize, w: usize) {
        let m = lane_max(x, n, inner, w);
        let s = lane_exp(x, y, &m, n, inner, w);
        let inv = s.map(|s| (1.0 / s) as f32);
        for k in 0..n {
            y[k * inner..k * inner + w].iter_mut().zip(&inv).for_each(|(y, &i)| *y *= i);
        }
    }
}

struct LogSoftmax;

impl LaneOp for LogSoftmax {
    fn row(x: &[f32], y: &mut [f32]) {
        let m = max_nan(x);
        y.iter_mut().zip(x).for_each(|(y, &v)| *y = exp(v - m));
        let ls = sum_f64(y).ln() as f32;
        y.iter_mut().zip(x).for_each(|(y, &v)| *y = v - m - ls);
    }

    fn lanes(x: &[f32], y: &mut [f32], n: usize, inner: usize, w: usize) {
        let m = lane_max(x, n, inner, w);
        let s = lane_exp(x, y, &m, n, inner, w);
        let ls = s.map(|s| s.ln() as f32);
        for k in 0..n {
            let (xr, yr) = (&x[k * inner..k * inner + w], &mut y[k * inner..k * inner + w]);
            for (((y, &v), &m), &l) in yr.iter_mut().zip(xr).zip(&m).zip(&ls) {
                *y = v - m - l;
            }
        }
    }
}

struct Hardmax;

impl Hardmax {
    /// Index of the first maximum (a NaN counts as the maximum).
    fn first_max(n: usize, at: impl Fn(usize) -> f32) -> usize {
        let mut best = 0;
        for k in 1..n {
            if at(best).is_nan() {
                break;
            }
            if at(k).is_nan() || at(k) > at(best) {
                best = k;
            }
        }
        best
    }
}

impl LaneOp for Hardmax {
    fn row(x: &[f32], y: &mut [f32]) {
        let best = Hardmax::first_max(x.len(), |k| x[k]);
        y.iter_mut().enumerate().for_each(|(k, y)| *y = if k == best { 1.0 } else { 0.0 });
    }

    fn lanes(x: &[f32], y: &mut [f32], n: usize, inner: usize, w: usize) {
        for j in 0..w {
            let best = Hardmax::first_max(n, |k| x[k * inner + j]);
            (0..n).for_each(|k| y[k * inner + j] = if k == best { 1.0 } else { 0.0 });
        }
    }
}

/// `y = exp(x - max) / Σ exp(x - max)` along `axis` (normalized, `< rank`).
pub fn softmax(shape: &[usize], axis: usize, x: &[f32], y: &mut [f32]) {
    along_axis::<Softmax>(shape, axis, x, y);
}

/// `y = x - max - ln Σ exp(x - max)` along `axis` (normalized, `< rank`).
pub fn log_softmax(shape: &[usize], axis: usize, x: &[f32], y: &mut [f32]) {
    along_axis::<LogSoftmax>(shape, axis, x, y);
}

/// `y = 1` at the first maximum along `axis` (normalized), 0 elsewhere.
pub fn hardmax(shape: &[usize], axis: usize, x: &[f32], y: &mut [f32]) {
    along_axis::<Hardmax>(shape, axis, x, y);
}
