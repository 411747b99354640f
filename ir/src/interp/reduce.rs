//! Reference kernels: reduce family. Reductions (`Reduce*`) here; ArgMax,
//! ArgMin, CumSum and CumProd in [`scan`]; the canonical `core.reduce` in
//! [`canonical`].
//!
//! Arithmetic runs in the wide domain of [`super::tensor::wide::Wide`]: floats
//! (f16/bf16/f32/f64) are accumulated in f64 and rounded once to the element
//! type; integers wrap like numpy's fixed-width arithmetic. Reductions over an
//! empty set give ONNX's identities: sum 0, product 1, max `-inf` (the type's
//! minimum for integers), min `+inf` (maximum), log-sum(-exp) `-inf`, mean NaN.

use super::tensor::wide::{from_wide, int_operand, norm_axes, numel, ravel, to_wide, unravel, Wide};
use super::{strides, EvalCtx, Tensor};
use crate::types::DType;
// Which `Reduce*` op: the numeric core's reduction kinds.
use edgec_numeric::reduce::Reduce as Kind;

pub mod canonical;
pub mod scan;

pub use scan::{arg_max, arg_min, cum_prod, cum_sum};

type Out = Result<Vec<Tensor>, String>;

/// `w` wrapped to the range of integer type `dt` (floats unchanged).
fn wrap_to(dt: DType, w: Wide) -> Wide {
    if dt.is_float() {
        return w;
    }
    to_wide(&from_wide(dt, &[w])).map_or(w, |v| v[0])
}

/// `log(sum(exp(x)))` in f64, shifted by the largest finite value for stability.
fn log_sum_exp(vals: &[Wide]) -> Wide {
    if vals.is_empty() {
        return Wide::F(f64::NEG_INFINITY);
    }
    let m = vals.iter().map(|w| w.f()).filter(|x| x.is_finite()).fold(f64::NEG_INFINITY, f64::max);
    let m = if m.is_finite() { m } else { 0.0 };
    Wide::F(vals.iter().map(|w| (w.f() - m).exp()).sum::<f64>().ln() + m)
}

/// The reduction of one group of values of element type `dt`.
fn finish(kind: Kind, vals: &[Wide], dt: DType) -> Wide {
    let sum = |it: &mut dyn Iterator<Item = Wide>| it.fold(Wide::zero(dt), |a, b| a + b);
    match kind {
        Kind::Sum => sum(&mut vals.iter().copied()),
        Kind::Prod => vals.iter().fold(Wide::one(dt), |a, &b| a * b),
        Kind::Max => vals.iter().fold(Wide::lowest(dt), |a, &b| a.max(b)),
        Kind::Min => vals.iter().fold(Wide::highest(dt), |a, &b| a.min(b)),
        Kind::Mean => Wide::F(wrap_to(dt, sum(&mut vals.iter().copied())).f() / vals.len() as f64),
        Kind::L1 => sum(&mut vals.iter().map(|w| w.abs())),
        Kind::SumSquare => sum(&mut vals.iter().map(|&w| w * w)),
        // numpy squares in the element type, then sums in 64 bits.
        Kind::L2 => Wide::F(sum(&mut vals.iter().map(|&w| wrap_to(dt, w * w))).f().sqrt()),
        Kind::LogSum => Wide::F(sum(&mut vals.iter().copied()).f().ln()),
        Kind::LogSumExp => log_sum_exp(vals),
    }
}

/// The axes a `Reduce*` op reduces: the `axes` operand, or all axes if it is
/// omitted or empty, unless `noop_with_empty_axes` (then none).
fn reduce_axes(ctx: &EvalCtx<'_>, rank: usize) -> Result<Vec<usize>, String> {
    let axes = ctx.opt(1).map(|t| int_operand(t, "axes")).transpose()?.unwrap_or_default();
    match axes.is_empty() {
        true if ctx.int("noop_with_empty_axes", 0) != 0 => Ok(vec![]),
        true => Ok((0..rank).collect()),
        false => norm_axes(&axes, rank),
    }
}

/// Shared driver: group the elements by output position and reduce each group.
fn reduce(ctx: &EvalCtx<'_>, kind: Kind) -> Out {
    let data = ctx.input(0)?;
    let dt = data.dtype();
    let vals = to_wide(&data.data).map_err(|e| format!("cannot reduce {dt} data: {e}"))?;
    let axes = reduce_axes(ctx, data.rank())?;
    let kept: Vec<usize> = data.shape.iter().enumerate().map(|(i, &d)| if axes.contains(&i) { 1 } else { d }).collect();
    let kept_strides = strides(&kept);
    let mut groups = vec![Vec::new(); numel(&kept)];
    for (f, &v) in vals.iter().enumerate() {
        let mut idx = unravel(f, &data.shape);
        axes.iter().for_each(|&a| idx[a] = 0);
        groups[ravel(&idx, &kept_strides)].push(v);
    }
    let out: Vec<Wide> = groups.iter().map(|g| finish(kind, g, dt)).collect();
    let shape = if ctx.int("keepdims", 1) != 0 {
        kept
    } else {
        (0..data.rank()).filter(|i| !axes.contains(i)).map(|i| data.shape[i]).collect()
    };
    Ok(vec![Tensor::new(shape, from_wide(dt, &out))])
}

/// `onnx.ReduceSum`.
pub fn reduce_sum(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::Sum)
}
/// `onnx.ReduceMean` (integers: wrapped sum divided, truncated toward zero).
pub fn reduce_mean(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::Mean)
}
/// `onnx.ReduceMax` (NaN propagates; bool is logical or).
pub fn reduce_max(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::Max)
}
/// `onnx.ReduceMin` (NaN propagates; bool is logical and).
pub fn reduce_min(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::Min)
}
/// `onnx.ReduceProd`.
pub fn reduce_prod(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::Prod)
}
/// `onnx.ReduceL1`: sum of absolute values.
pub fn reduce_l1(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::L1)
}
/// `onnx.ReduceL2`: square root of the sum of squares (integers truncated).
pub fn reduce_l2(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::L2)
}
/// `onnx.ReduceSumSquare`.
pub fn reduce_sum_square(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::SumSquare)
}
/// `onnx.ReduceLogSum`: `log(sum(x))`.
pub fn reduce_log_sum(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::LogSum)
}
/// `onnx.ReduceLogSumExp`: `log(sum(exp(x)))`, computed stably.
pub fn reduce_log_sum_exp(ctx: &EvalCtx<'_>) -> Out {
    reduce(ctx, Kind::LogSumExp)
}
