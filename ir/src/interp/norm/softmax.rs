//! Softmax, LogSoftmax and Hardmax along one axis (opset 13 semantics).

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::real::{float_kernel, reals, split_at_axis, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};

/// Apply `f` to every 1-D lane along `axis` (default -1), writing the results in place.
fn along_axis<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor, f: impl Fn(&mut [T])) -> Result<Tensor, String> {
    let axis = norm_axis(ctx.int("axis", -1), x.rank())?;
    let (outer, n, inner) = split_at_axis(&x.shape, axis);
    let mut xv = reals::<T>(x);
    let mut lane = vec![T::ZERO; n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            for (k, l) in lane.iter_mut().enumerate() {
                *l = xv[at(k)];
            }
            f(&mut lane);
            for (k, l) in lane.iter().enumerate() {
                xv[at(k)] = *l;
            }
        }
    }
    to_tensor(x.dtype(), x.shape.clone(), xv)
}

/// `exp(x - max)` of a lane in place; returns the sum.
fn shifted_exp<T: Real>(lane: &mut [T]) -> T {
    let max = lane.iter().copied().fold(T::NEG_INFINITY, T::max_nan);
    let mut sum = T::ZERO;
    for v in lane.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    sum
}

fn softmax_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    along_axis(ctx, x, |lane: &mut [T]| {
        let sum = shifted_exp(lane);
        lane.iter_mut().for_each(|v| *v /= sum);
    })
}

fn log_softmax_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    along_axis(ctx, x, |lane: &mut [T]| {
        let max = lane.iter().copied().fold(T::NEG_INFINITY, T::max_nan);
        let sum: T = lane.iter().map(|&v| (v - max).exp()).sum();
        lane.iter_mut().for_each(|v| *v = *v - max - sum.ln());
    })
}

fn hardmax_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Tensor, String> {
    along_axis(ctx, x, |lane: &mut [T]| {
        // numpy argmax: the first maximum (a NaN counts as the maximum).
        let mut best = 0;
        for k in 1..lane.len() {
            if lane[best].is_nan() {
                break;
            }
            if lane[k].is_nan() || lane[k] > lane[best] {
                best = k;
            }
        }
        lane.iter_mut().enumerate().for_each(|(k, v)| *v = if k == best { T::ONE } else { T::ZERO });
    })
}

/// `onnx.Softmax`: `exp(x - max) / sum(exp(x - max))` along `axis` (default -1).
pub fn softmax(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), softmax_t(ctx, x))?])
}

/// `onnx.LogSoftmax`: `x - max - log(sum(exp(x - max)))` along `axis` (default -1).
pub fn log_softmax(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), log_softmax_t(ctx, x))?])
}

/// `onnx.Hardmax`: 1 at the first maximum along `axis` (default -1), 0 elsewhere.
pub fn hardmax(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), hardmax_t(ctx, x))?])
}
