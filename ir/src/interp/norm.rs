//! Reference kernels: norm family. Normalizations here: BatchNormalization
//! (inference), LayerNormalization, RMSNormalization, InstanceNormalization,
//! GroupNormalization, MeanVarianceNormalization, LpNormalization and LRN;
//! Softmax, LogSoftmax and Hardmax in [`softmax`].
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when
//! the result is stored) and in f64 for f64 tensors.

pub mod softmax;

pub use softmax::{hardmax, log_softmax, softmax};

use crate::interp::broadcast::{broadcast_map, norm_axis};
use crate::interp::tensor::real::{float_kernel, int_at_least, reals, split_at_axis, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

/// Flat index map of `t` unidirectionally broadcast to `shape`, or an error.
fn uni_map(t: &Tensor, shape: &[usize], what: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("{what} {:?} does not broadcast to {shape:?}", t.shape);
    let off = shape.len().checked_sub(t.rank()).ok_or_else(bad)?;
    if t.shape.iter().enumerate().any(|(i, &d)| d != 1 && d != shape[off + i]) {
        return Err(bad());
    }
    Ok(broadcast_map(&t.shape, shape))
}

/// For every element of `shape`, the id of its reduction group when reducing over
/// `axes` (elements that differ only on `axes` share a group), and the group count.
fn group_ids(shape: &[usize], axes: &[usize]) -> (Vec<usize>, usize) {
    let kept: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).collect();
    let n: usize = shape.iter().product();
    let strides = crate::interp::strides(shape);
    let groups = kept.iter().map(|&a| shape[a]).product();
    let ids = (0..n).map(|i| kept.iter().fold(0, |acc, &a| acc * shape[a] + (i / strides[a]) % shape[a])).collect();
    (ids, groups)
}

/// Per-group mean and (biased) variance `E[(x - mean)^2]` of `x`.
fn mean_var<T: Real>(x: &[T], ids: &[usize], groups: usize) -> (Vec<T>, Vec<T>) {
    let mut sum = vec![T::ZERO; groups];
    let mut cnt = vec![0usize; groups];
    for (&v, &g) in x.iter().zip(ids) {
        sum[g] += v;
        cnt[g] += 1;
    }
    let mean: Vec<T> = sum.iter().zip(&cnt).map(|(&s, &c)| s / T::from_f64(c as f64)).collect();
    let mut sq = vec![T::ZERO; groups];
    for (&v, &g) in x.iter().zip(ids) {
        let d = v - mean[g];
        sq[g] += d * d;
    }
    let var = sq.iter().zip(&cnt).map(|(&s, &c)| s / T::from_f64(c as f64)).collect();
    (mean, var)
}

/// The channel (axis 1) of each flat element of `shape` (0 for rank < 2).
fn channel_of(shape: &[usize], i: usize) -> usize {
    if shape.len() < 2 {
        return 0;
    }
    (i / shape[2..].iter().product::<usize>()) % shape[1]
}

/// `onnx.BatchNormalization` in inference mode: `scale * (x - mean) / sqrt(var + eps) + B`
/// per channel. The optional `running_mean`/`running_var` results echo the inputs
/// (no statistics are updated in inference); `training_mode = 1` is an error.
pub fn batch_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    if ctx.int("training_mode", 0) != 0 {
        return Err("BatchNormalization with training_mode = 1 is not supported (inference only)".into());
    }
    let x = ctx.input(0)?;
    let c = if x.rank() < 2 { 1 } else { x.shape[1] };
    for i in 1..5 {
        let t = ctx.input(i)?;
        if t.shape != [c] {
            return Err(format!("operand #{i} {:?} must have shape [{c}]", t.shape));
        }
    }
    let mut out = vec![float_kernel!(x.dtype(), batch_norm_t(ctx, x))?];
    for i in 1..ctx.num_results() {
        out.push(ctx.input(i + 2)?.clone());
    }
    Ok(out)
}

fn batch_norm_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    let eps = T::from_f64(ctx.float("epsilon", 1e-5) as f64);
    let p: Vec<Vec<T>> = (1..5).map(|i| ctx.input(i).map(reals::<T>)).collect::<Result<_, _>>()?;
    let (s, b, m, v) = (&p[0], &p[1], &p[2], &p[3]);
    let xv = reals::<T>(x);
    let y = xv
        .iter()
        .enumerate()
        .map(|(i, &xi)| {
            let c = channel_of(&x.shape, i);
            s[c] * (xi - m[c]) / (v[c] + eps).sqrt() + b[c]
        })
        .collect();
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// The element type of a `stash_type` code.
fn stash_dtype(code: i64) -> Result<DType, String> {
    Ok(match code {
        1 => DType::F32,
        10 => DType::F16,
        11 => DType::F64,
        16 => DType::BF16,
        _ => return Err(format!("attribute `stash_type` = {code} is not a float type code")),
    })
}

/// `onnx.LayerNormalization`: normalize over axes `[axis, rank)`, then `* Scale + B`
/// (both broadcast to X). Optional `Mean` and `InvStdDev` results have X's dims
/// before `axis` and 1s after, in the `stash_type` element type.
pub fn layer_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    float_kernel!(x.dtype(), layer_norm_t(ctx, x))
}

fn layer_norm_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Vec<Tensor>, String> {
    let axis = norm_axis(ctx.int("axis", -1), x.rank())?;
    let eps = T::from_f64(ctx.float("epsilon", 1e-5) as f64);
    let stash = stash_dtype(ctx.int("stash_type", 1))?;
    let scale = ctx.input(1)?;
    let smap = uni_map(scale, &x.shape, "Scale")?;
    let sv = reals::<T>(scale);
    let bias = ctx.opt(2).map(|b| Ok::<_, String>((reals::<T>(b), uni_map(b, &x.shape, "B")?))).transpose()?;
    let (rows, cols) = (x.shape[..axis].iter().product::<usize>(), x.shape[axis..].iter().product::<usize>());
    let xv = reals::<T>(x);
    let ids: Vec<usize> = (0..xv.len()).map(|i| i / cols.max(1)).collect();
    let (mean, var) = mean_var(&xv, &ids, rows);
    let inv: Vec<T> = var.iter().map(|&v| T::ONE / (v + eps).sqrt()).collect();
    let y = xv
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let r = ids[i];
            let n = (v - mean[r]) * inv[r] * sv[smap[i]];
            bias.as_ref().map_or(n, |(b, m)| n + b[m[i]])
        })
        .collect();
    let mut out = vec![to_tensor(x.dtype(), x.shape.clone(), y)?];
    let mut stat_shape = x.shape[..axis].to_vec();
    stat_shape.resize(x.rank(), 1);
    for stat in [mean, inv].into_iter().take(ctx.num_results().saturating_sub(1)) {
        out.push(to_tensor(stash, stat_shape.clone(), stat)?);
    }
    Ok(out)
}

/// `onnx.RMSNormalization`: `X / sqrt(mean(X^2 over [axis, rank)) + epsilon) * scale`;
/// the result has scale's element type.
pub fn rms_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    stash_dtype(ctx.int("stash_type", 1))?;
    Ok(vec![float_kernel!(x.dtype(), rms_norm_t(ctx, x))?])
}

fn rms_norm_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    let axis = norm_axis(ctx.int("axis", -1), x.rank())?;
    let eps = T::from_f64(ctx.float("epsilon", 1e-5) as f64);
    let scale = ctx.input(1)?;
    let (smap, sv) = (uni_map(scale, &x.shape, "scale")?, reals::<T>(scale));
    let cols = x.shape[axis..].iter().product::<usize>().max(1);
    let xv = reals::<T>(x);
    let rms: Vec<T> = xv
        .chunks(cols)
        .map(|row| (row.iter().map(|&v| v * v).sum::<T>() / T::from_f64(cols as f64) + eps).sqrt())
        .collect();
    let y = xv.iter().enumerate().map(|(i, &v)| v * (T::ONE / rms[i / cols]) * sv[smap[i]]).collect();
    to_tensor(scale.dtype(), x.shape.clone(), y)
}

/// Check a per-channel parameter (operand `i`) has shape `[c]`.
fn per_channel(ctx: &EvalCtx<'_>, i: usize, c: usize, what: &str) -> Result<(), String> {
    let t = ctx.input(i)?;
    if t.shape != [c] {
        return Err(format!("{what} {:?} must have shape [{c}]", t.shape));
    }
    Ok(())
}

/// `onnx.InstanceNormalization`: per (n, c), normalize over the spatial axes, then
/// `scale[c] * . + B[c]`.
pub fn instance_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    if x.rank() < 2 {
        return Err(format!("input {:?} must have rank ≥ 2", x.shape));
    }
    per_channel(ctx, 1, x.shape[1], "scale")?;
    per_channel(ctx, 2, x.shape[1], "B")?;
    Ok(vec![float_kernel!(x.dtype(), grouped_norm_t(ctx, x, x.shape[1]))?])
}

/// `onnx.GroupNormalization` (opset 21): per (n, group), normalize over the group's
/// channels and the spatial axes, then `scale[c] * . + bias[c]`.
pub fn group_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let groups = int_at_least(ctx, "num_groups", 1, 1)? as usize;
    stash_dtype(ctx.int("stash_type", 1))?;
    if x.rank() < 2 || x.shape[1] % groups != 0 {
        return Err(format!("X {:?} must have rank ≥ 2 and channels divisible by num_groups {groups}", x.shape));
    }
    per_channel(ctx, 1, x.shape[1], "scale")?;
    per_channel(ctx, 2, x.shape[1], "bias")?;
    Ok(vec![float_kernel!(x.dtype(), grouped_norm_t(ctx, x, groups))?])
}

/// Shared by Instance/GroupNormalization: `groups` groups of channels per batch item.
fn grouped_norm_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor, groups: usize) -> Result<Tensor, String> {
    let eps = T::from_f64(ctx.float("epsilon", 1e-5) as f64);
    let (s, b) = (reals::<T>(ctx.input(1)?), reals::<T>(ctx.input(2)?));
    let c = x.shape[1];
    let per = c / groups;
    let xv = reals::<T>(x);
    let ids: Vec<usize> = (0..xv.len())
        .map(|i| (i / x.shape[2..].iter().product::<usize>() / c) * groups + channel_of(&x.shape, i) / per)
        .collect();
    let (mean, var) = mean_var(&xv, &ids, x.shape[0] * groups);
    let y = xv
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let (g, ch) = (ids[i], channel_of(&x.shape, i));
            s[ch] * (v - mean[g]) / (var[g] + eps).sqrt() + b[ch]
        })
        .collect();
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.MeanVarianceNormalization`: `(X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9)` with
/// the expectations over `axes` (default `[0, 2, 3]`), as the ONNX function body.
pub fn mean_variance_norm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), mvn_t(ctx, x))?])
}

fn mvn_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    let raw = ctx.attrs.ints("axes").map_or_else(|| vec![0, 2, 3], <[i64]>::to_vec);
    let axes: Vec<usize> = raw.iter().map(|&a| norm_axis(a, x.rank())).collect::<Result<_, _>>()?;
    let (ids, groups) = group_ids(&x.shape, &axes);
    let xv = reals::<T>(x);
    let mut sum = vec![(T::ZERO, T::ZERO, 0usize); groups];
    for (&v, &g) in xv.iter().zip(&ids) {
        sum[g] = (sum[g].0 + v, sum[g].1 + v * v, sum[g].2 + 1);
    }
    let stats: Vec<(T, T)> = sum
        .iter()
        .map(|&(s, sq, n)| {
            let n = T::from_f64(n as f64);
            let mean = s / n;
            (mean, (sq / n - mean * mean).sqrt() + T::from_f64(1e-9))
        })
        .collect();
    let y = xv.iter().zip(&ids).map(|(&v, &g)| (v - stats[g].0) / stats[g].1).collect();
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.LpNormalization`: `x / ||x||_p` along `axis` (p is 1 or 2); a zero norm gives 0.
pub fn lp_normalization(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), lp_normalization_t(ctx, x))?])
}

fn lp_normalization_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    let axis = norm_axis(ctx.int("axis", -1), x.rank())?;
    let p = ctx.int("p", 2);
    if p != 1 && p != 2 {
        return Err(format!("attribute `p` = {p} must be 1 or 2"));
    }
    let (outer, n, inner) = split_at_axis(&x.shape, axis);
    let xv = reals::<T>(x);
    let mut y = vec![T::ZERO; xv.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| o * n * inner + k * inner + i;
            let norm = if p == 1 {
                (0..n).map(|k| xv[at(k)].abs()).sum::<T>()
            } else {
                (0..n).map(|k| xv[at(k)] * xv[at(k)]).sum::<T>().sqrt()
            };
            for k in 0..n {
                y[at(k)] = if norm == T::ZERO { T::ZERO } else { xv[at(k)] / norm };
            }
        }
    }
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.LRN`: `x / (bias + alpha / size * sum(x^2 over nearby channels))^beta`, the
/// channel window being `[c - floor((size-1)/2), c + ceil((size-1)/2)]`.
pub fn lrn(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    if x.rank() < 3 {
        return Err(format!("X {:?} must have rank ≥ 3 (N, C, spatial...)", x.shape));
    }
    Ok(vec![float_kernel!(x.dtype(), lrn_t(ctx, x))?])
}

fn lrn_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    let size = int_at_least(ctx, "size", 0, 1)? as usize;
    let (alpha, beta, bias) =
        (ctx.float("alpha", 1e-4) as f64, ctx.float("beta", 0.75) as f64, ctx.float("bias", 1.0) as f64);
    let (alpha, beta, bias) = (T::from_f64(alpha), T::from_f64(beta), T::from_f64(bias));
    let (outer, c, inner) = split_at_axis(&x.shape, 1);
    let (lo, hi) = ((size - 1) / 2, size / 2); // floor and ceil of (size - 1) / 2
    let xv = reals::<T>(x);
    let mut y = vec![T::ZERO; xv.len()];
    for o in 0..outer {
        for ch in 0..c {
            for i in 0..inner {
                let at = |k: usize| (o * c + k) * inner + i;
                let sq: T = (ch.saturating_sub(lo)..(ch + hi + 1).min(c)).map(|k| xv[at(k)] * xv[at(k)]).sum();
                y[at(ch)] = xv[at(ch)] / (bias + alpha / T::from_f64(size as f64) * sq).powf(beta);
            }
        }
    }
    to_tensor(x.dtype(), x.shape.clone(), y)
}
