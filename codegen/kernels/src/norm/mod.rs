//! Normalizations: softmax family ([`mod@softmax`]), LayerNormalization,
//! RMSNormalization, BatchNormalization (inference), Instance- and
//! GroupNormalization, LRN, MeanVarianceNormalization and LpNormalization;
//! the f64 Softmax/LogSoftmax is in [`wide`].
//!
//! Means and variances accumulate in f64 (two passes: mean, then the mean
//! squared deviation), so they are at least as accurate as the
//! interpreter's f32 accumulation; the normalized values are rounded to f32
//! before the f32 affine step.

pub mod softmax;
pub mod wide;

pub use softmax::{hardmax, log_softmax, softmax};

use crate::math::{sum_f64, sum_map_f64};
use crate::strided::{axes_offset, axes_space, numel};

/// Mean and biased variance of `v` in f64.
fn mean_var(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = sum_f64(v) / n;
    let var = sum_map_f64(v, |x| (x - mean) * (x - mean)) / n;
    (mean, var)
}

fn check_xy(shape: &[usize], x: &[f32], y: &[f32]) {
    assert_eq!(x.len(), numel(shape), "x holds {} elements, shape {shape:?} needs more or fewer", x.len());
    assert_eq!(y.len(), x.len(), "y holds {} elements, x {}", y.len(), x.len());
}

/// LayerNormalization: each row over axes `[axis, rank)` is normalized to
/// zero mean and unit variance (`1 / sqrt(var + eps)`), then `* scale + bias`.
/// `scale` and `bias` repeat along the row (numpy broadcasting of a trailing
/// shape such as `[D]` over `[L, D]`): their length divides the row length.
pub fn layer_norm(
    shape: &[usize],
    axis: usize,
    x: &[f32],
    scale: &[f32],
    bias: Option<&[f32]>,
    eps: f32,
    y: &mut [f32],
) {
    check_xy(shape, x, y);
    assert!(axis <= shape.len(), "layer_norm: axis {axis} out of range for {shape:?}");
    let cols = numel(&shape[axis..]);
    let ok = |p: &[f32]| !p.is_empty() && cols.is_multiple_of(p.len());
    assert!(ok(scale) && bias.is_none_or(ok), "layer_norm: scale/bias do not repeat along rows of {cols}");
    if cols == 0 {
        return;
    }
    for (xr, yr) in x.chunks_exact(cols).zip(y.chunks_exact_mut(cols)) {
        let (mean, var) = mean_var(xr);
        let inv = 1.0 / (var + eps as f64).sqrt();
        for (xs, ys) in xr.chunks_exact(scale.len()).zip(yr.chunks_exact_mut(scale.len())) {
            for ((y, &v), &s) in ys.iter_mut().zip(xs).zip(scale) {
                *y = ((v as f64 - mean) * inv) as f32 * s;
            }
        }
        if let Some(b) = bias {
            yr.chunks_exact_mut(b.len()).for_each(|ys| ys.iter_mut().zip(b).for_each(|(y, &b)| *y += b));
        }
    }
}

/// Which per-row statistic [`layer_norm_stat`] writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stat {
    /// The row mean (LayerNormalization's `Mean`).
    Mean,
    /// `1 / sqrt(var + eps)` (LayerNormalization's `InvStdDev`).
    InvStdDev,
}

/// One statistic of every LayerNormalization row (axes `[axis, rank)` of
/// `shape`), computed as [`layer_norm`] does: `out` holds one value per row.
pub fn layer_norm_stat(shape: &[usize], axis: usize, x: &[f32], eps: f32, stat: Stat, out: &mut [f32]) {
    assert_eq!(x.len(), numel(shape), "x holds {} elements, shape {shape:?} needs more or fewer", x.len());
    assert!(axis <= shape.len(), "layer_norm_stat: axis {axis} out of range for {shape:?}");
    let (rows, cols) = (numel(&shape[..axis]), numel(&shape[axis..]));
    assert_eq!(out.len(), rows, "layer_norm_stat: out holds {} values for {rows} rows", out.len());
    if cols == 0 {
        out.fill(f32::NAN);
        return;
    }
    for (xr, o) in x.chunks_exact(cols).zip(out.iter_mut()) {
        let (mean, var) = mean_var(xr);
        *o = match stat {
            Stat::Mean => mean as f32,
            Stat::InvStdDev => (1.0 / (var + eps as f64).sqrt()) as f32,
        };
    }
}

/// RMSNormalization: `x / sqrt(mean(x²) + eps) * scale` over rows of axes
/// `[axis, rank)`; `scale` repeats along the row like [`layer_norm`]'s.
pub fn rms_norm(shape: &[usize], axis: usize, x: &[f32], scale: &[f32], eps: f32, y: &mut [f32]) {
    check_xy(shape, x, y);
    assert!(axis <= shape.len(), "rms_norm: axis {axis} out of range for {shape:?}");
    let cols = numel(&shape[axis..]);
    assert!(
        !scale.is_empty() && cols.is_multiple_of(scale.len()),
        "rms_norm: scale does not repeat along rows of {cols}"
    );
    if cols == 0 {
        return;
    }
    for (xr, yr) in x.chunks_exact(cols).zip(y.chunks_exact_mut(cols)) {
        let ms = sum_map_f64(xr, |v| v * v) / cols as f64;
        let inv = (1.0 / (ms + eps as f64).sqrt()) as f32;
        for (xs, ys) in xr.chunks_exact(scale.len()).zip(yr.chunks_exact_mut(scale.len())) {
            ys.iter_mut().zip(xs).zip(scale).for_each(|((y, &v), &s)| *y = v * inv * s);
        }
    }
}

/// `(batch, channels, spatial)` of an NC... tensor (rank < 2: one channel).
fn ncs(shape: &[usize]) -> (usize, usize, usize) {
    match shape.len() {
        0 | 1 => (1, 1, numel(shape)),
        _ => (shape[0], shape[1], numel(&shape[2..])),
    }
}

/// Inference BatchNormalization over channel axis 1:
/// `y = scale * (x - mean) / sqrt(var + eps) + bias`, all parameters `[C]`.
pub fn batch_norm(
    shape: &[usize],
    x: &[f32],
    scale: &[f32],
    bias: &[f32],
    mean: &[f32],
    var: &[f32],
    eps: f32,
    y: &mut [f32],
) {
    check_xy(shape, x, y);
    let (_, c, sp) = ncs(shape);
    for p in [scale, bias, mean, var] {
        assert_eq!(p.len(), c, "batch_norm: a parameter holds {} values for {c} channels", p.len());
    }
    if sp == 0 {
        return;
    }
    for (i, (xs, ys)) in x.chunks_exact(sp).zip(y.chunks_exact_mut(sp)).enumerate() {
        let ch = i % c;
        let a = scale[ch] / (var[ch] + eps).sqrt();
        let (m, b) = (mean[ch], bias[ch]);
        ys.iter_mut().zip(xs).for_each(|(y, &v)| *y = (v - m) * a + b);
    }
}

/// InstanceNormalization: each `(n, c)` plane normalized over the spatial
/// axes, then `* scale[c] + bias[c]`.
pub fn instance_norm(shape: &[usize], x: &[f32], scale: &[f32], bias: &[f32], eps: f32, y: &mut [f32]) {
    let c = ncs(shape).1;
    group_norm(shape, c, x, scale, bias, eps, y);
}

/// GroupNormalization (opset 21): the channels of each batch item split into
/// `groups` groups, each normalized over its channels and the spatial axes,
/// then `* scale[c] + bias[c]` per channel.
pub fn group_norm(shape: &[usize], groups: usize, x: &[f32], scale: &[f32], bias: &[f32], eps: f32, y: &mut [f32]) {
    check_xy(shape, x, y);
    assert!(shape.len() >= 2, "group_norm: input {shape:?} needs rank >= 2");
    let (_, c, sp) = ncs(shape);
    assert!(groups > 0 && c % groups == 0, "group_norm: {c} channels do not split into {groups} groups");
    assert!(scale.len() == c && bias.len() == c, "group_norm: scale and bias need {c} values");
    let per = c / groups;
    if per * sp == 0 {
        return;
    }
    for (g, (xg, yg)) in x.chunks_exact(per * sp).zip(y.chunks_exact_mut(per * sp)).enumerate() {
        let (mean, var) = mean_var(xg);
        let inv = 1.0 / (var + eps as f64).sqrt();
        for (k, (xs, ys)) in xg.chunks_exact(sp).zip(yg.chunks_exact_mut(sp)).enumerate() {
            let ch = (g % groups) * per + k;
            let (s, b) = (scale[ch], bias[ch]);
            ys.iter_mut().zip(xs).for_each(|(y, &v)| *y = ((v as f64 - mean) * inv) as f32 * s + b);
        }
    }
}

/// LRN across channels (axis 1, rank >= 3):
/// `y = x / (bias + alpha / size * Σ x²)^beta`, the sum over channels
/// `[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]` clipped to the
/// tensor. Uses `y` as the accumulator (f32, in channel order, as the
/// interpreter).
pub fn lrn(shape: &[usize], size: usize, alpha: f32, beta: f32, bias: f32, x: &[f32], y: &mut [f32]) {
    check_xy(shape, x, y);
    assert!(size >= 1, "lrn: size must be at least 1");
    let (_, c, sp) = ncs(shape);
    let (lo, hi) = ((size - 1) / 2, size / 2);
    let k = alpha / size as f32;
    if c * sp == 0 {
        return;
    }
    for (xb, yb) in x.chunks_exact(c * sp).zip(y.chunks_exact_mut(c * sp)) {
        for (ch, yc) in yb.chunks_exact_mut(sp).enumerate() {
            yc.fill(0.0);
            for src in ch.saturating_sub(lo)..(ch + hi + 1).min(c) {
                let xs = &xb[src * sp..(src + 1) * sp];
                yc.iter_mut().zip(xs).for_each(|(a, &v)| *a += v * v);
            }
            let xc = &xb[ch * sp..(ch + 1) * sp];
            yc.iter_mut().zip(xc).for_each(|(a, &v)| *a = v / (bias + k * *a).powf(beta));
        }
    }
}

/// Normalize one group (elements at `offs`) as MeanVarianceNormalization.
fn mvn_group(x: &[f32], y: &mut [f32], offs: impl Iterator<Item = usize> + Clone, n: usize) {
    let (s, sq) = offs.clone().fold((0f64, 0f64), |(s, sq), o| (s + x[o] as f64, sq + x[o] as f64 * x[o] as f64));
    let mean = s / n as f64;
    let std = (sq / n as f64 - mean * mean).sqrt() + 1e-9;
    offs.for_each(|o| y[o] = ((x[o] as f64 - mean) / std) as f32);
}

/// MeanVarianceNormalization: `(x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9)`,
/// the expectations over `axes` (sorted, distinct; ONNX's default is
/// `[0, 2, 3]`).
pub fn mean_variance_normalization(shape: &[usize], axes: &[usize], x: &[f32], y: &mut [f32]) {
    check_xy(shape, x, y);
    assert!(axes.iter().all(|&a| a < shape.len()), "mvn: axes {axes:?} out of range for {shape:?}");
    let n: usize = axes.iter().map(|&a| shape[a]).product();
    if x.is_empty() {
        return;
    }
    match (axes_space(shape, axes, false), axes_space(shape, axes, true)) {
        (Some(kept), Some(red)) => {
            for [b] in kept.points() {
                mvn_group(x, y, red.points().map(|[p]| (b + p) as usize), n);
            }
        }
        _ => {
            for g in 0..x.len() / n {
                let b = axes_offset(shape, axes, false, g);
                mvn_group(x, y, (0..n).map(|q| b + axes_offset(shape, axes, true, q)), n);
            }
        }
    }
}

/// LpNormalization: `x / ||x||_p` along `axis`, `p` 1 or 2; a zero norm gives 0.
pub fn lp_normalization(shape: &[usize], axis: usize, p: u32, x: &[f32], y: &mut [f32]) {
    check_xy(shape, x, y);
    assert!(axis < shape.len() && (p == 1 || p == 2), "lp_normalization: axis {axis} of {shape:?}, p = {p}");
    let (n, inner) = (shape[axis], numel(&shape[axis + 1..]));
    for j in 0..x.len() / n.max(1) {
        let base = (j / inner) * n * inner + j % inner;
        let at = |k: usize| x[base + k * inner] as f64;
        let norm = match p {
            1 => (0..n).map(|k| at(k).abs()).sum::<f64>(),
            _ => (0..n).map(|k| at(k) * at(k)).sum::<f64>().sqrt(),
        };
        for k in 0..n {
            y[base + k * inner] = if norm == 0.0 { 0.0 } else { (at(k) / norm) as f32 };
        }
    }
}
