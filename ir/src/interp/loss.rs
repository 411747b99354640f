//! Reference kernels: loss family. NegativeLogLikelihoodLoss and
//! SoftmaxCrossEntropyLoss (opset 13+ semantics).
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when
//! the result is stored) and in f64 for f64 tensors.

use crate::interp::tensor::real::{float_kernel, reals, to_tensor, Real};
use crate::interp::tensor::wide::int_operand;
use crate::interp::{EvalCtx, Tensor};

/// The `reduction` attribute.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Reduction {
    None,
    Sum,
    Mean,
}

fn reduction(ctx: &EvalCtx<'_>) -> Result<Reduction, String> {
    match ctx.str("reduction", "mean") {
        "none" => Ok(Reduction::None),
        "sum" => Ok(Reduction::Sum),
        "mean" => Ok(Reduction::Mean),
        other => Err(format!("attribute `reduction` = \"{other}\" must be none, sum or mean")),
    }
}

/// Check `input [N, C, d...]` (float), `target [N, d...]` (i32/i64) and the optional
/// `weight [C]` of the input's type; returns the target values.
fn check_operands(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Vec<i64>, String> {
    let target = ctx.input(1)?;
    if !x.dtype().is_float() {
        return Err(format!("the input has element type {}, expected a float type", x.dtype()));
    }
    if x.rank() < 2 {
        return Err(format!("the input {:?} must have rank ≥ 2 ([N, C, d...])", x.shape));
    }
    let want: Vec<usize> = x.shape.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &d)| d).collect();
    if target.shape != want {
        return Err(format!("the target {:?} must have shape {want:?} (input {:?})", target.shape, x.shape));
    }
    if !matches!(target.dtype(), crate::types::DType::I32 | crate::types::DType::I64) {
        return Err(format!("the target has element type {}, expected i32 or i64", target.dtype()));
    }
    if let Some(w) = ctx.opt(2) {
        if w.dtype() != x.dtype() || w.shape != [x.shape[1]] {
            return Err(format!("the weight {}{:?} must be {}[{}]", w.dtype(), w.shape, x.dtype(), x.shape[1]));
        }
    }
    int_operand(target, "target")
}

/// The loss of log-probabilities `logp` (shape of the input `[N, C, d...]`) at the
/// target classes: `-logp[n, t, d] * weight[t]`, 0 where `t == ignore_index`, then
/// reduced; `mean` divides by the sum of the applied weights.
fn nll_t<T: Real>(ctx: &EvalCtx<'_>, logp: &[T], shape: &[usize], target: &[i64]) -> Result<Tensor, String> {
    let (n, c) = (shape[0], shape[1]);
    let d: usize = shape[2..].iter().product();
    let weight = ctx.opt(2).map(reals::<T>);
    let ignore = ctx.attrs.int("ignore_index");
    let (mut losses, mut wsum) = (Vec::with_capacity(n * d), T::ZERO);
    for i in 0..n {
        for j in 0..d {
            let t = target[i * d + j];
            if ignore == Some(t) {
                losses.push(T::ZERO);
                continue;
            }
            if t < 0 || t as usize >= c {
                return Err(format!("target value {t} is out of range for {c} classes"));
            }
            let w = weight.as_ref().map_or(T::ONE, |w| w[t as usize]);
            wsum += w;
            losses.push(-logp[(i * c + t as usize) * d + j] * w);
        }
    }
    let dt = ctx.input(0)?.dtype();
    let total = || losses.iter().copied().sum::<T>();
    match reduction(ctx)? {
        Reduction::None => to_tensor(dt, ctx.input(1)?.shape.clone(), losses),
        Reduction::Sum => to_tensor(dt, vec![], vec![total()]),
        Reduction::Mean => to_tensor(dt, vec![], vec![total() / wsum]),
    }
}

fn nll_loss_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor, target: &[i64]) -> Result<Tensor, String> {
    nll_t(ctx, &reals::<T>(x), &x.shape, target)
}

/// `onnx.NegativeLogLikelihoodLoss`: `-input[n, target[n, d], d] * weight[target]`,
/// zero where the target equals `ignore_index`, reduced by `reduction` (default
/// `mean`: the sum divided by the sum of the applied weights).
pub fn nll_loss(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let target = check_operands(ctx, x)?;
    Ok(vec![float_kernel!(x.dtype(), nll_loss_t(ctx, x, &target))?])
}

/// Log-softmax over axis 1 of `[N, C, d...]` values.
fn log_softmax_axis1<T: Real>(x: &[T], shape: &[usize]) -> Vec<T> {
    let (n, c) = (shape[0], shape[1]);
    let d: usize = shape[2..].iter().product();
    let mut out = x.to_vec();
    for i in 0..n {
        for j in 0..d {
            let at = |k: usize| (i * c + k) * d + j;
            let max = (0..c).map(|k| x[at(k)]).fold(T::NEG_INFINITY, T::max_nan);
            let sum: T = (0..c).map(|k| (x[at(k)] - max).exp()).sum();
            for k in 0..c {
                out[at(k)] = x[at(k)] - max - sum.ln();
            }
        }
    }
    out
}

fn sce_t<T: Real>(ctx: &EvalCtx<'_>, x: &Tensor, target: &[i64]) -> Result<Vec<Tensor>, String> {
    let logp = log_softmax_axis1(&reals::<T>(x), &x.shape);
    let mut out = vec![nll_t(ctx, &logp, &x.shape, target)?];
    if ctx.num_results() > 1 {
        out.push(to_tensor(x.dtype(), x.shape.clone(), logp)?);
    }
    Ok(out)
}

/// `onnx.SoftmaxCrossEntropyLoss`: NegativeLogLikelihoodLoss of the log-softmax of
/// `scores` over the class axis 1; the optional second result is that log-softmax.
pub fn softmax_cross_entropy_loss(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let target = check_operands(ctx, x)?;
    float_kernel!(x.dtype(), sce_t(ctx, x, &target))
}
