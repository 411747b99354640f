//! Reference kernels: canonical `core.*` shape and reduction ops (see
//! [`crate::ops::layout::canonical`], [`crate::ops::reduce`]).
//!
//! Each kernel checks its attributes with the op family's validators, builds
//! the onnx op's constant operands from them and calls the onnx kernel on the
//! same data tensor, so a canonical op gives bit for bit the result of its
//! `onnx.*` counterpart.

use super::{reduce as rk, shape as sk, EvalCtx, EvalFn, RegionRunner, Tensor};
use crate::attr::{Attr, Attrs};
use crate::ops::layout::canonical as c;
use crate::types::TensorType;
use std::cell::RefCell;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// Region runner for the onnx kernels called here (none of them has regions).
struct NoRegions;

impl RegionRunner for NoRegions {
    fn run_region(&mut self, index: usize, _params: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        Err(format!("internal: a canonical op's onnx kernel asked for region #{index}"))
    }
}

/// Run `kernel` on `ctx`'s data operand followed by the 1-D i64 operands
/// `lists`, with `attrs`, as the interpreter would run the onnx op.
fn call(ctx: &EvalCtx<'_>, kernel: EvalFn, lists: &[&[i64]], attrs: &Attrs) -> KResult {
    let x = ctx.input(0)?;
    let extra: Vec<Tensor> = lists.iter().map(|v| Tensor::from_i64s(v.to_vec())).collect();
    let inputs: Vec<Option<&Tensor>> = std::iter::once(Some(x)).chain(extra.iter().map(Some)).collect();
    let result_types = [TensorType::unranked(x.dtype())];
    let mut none = NoRegions;
    let sub = EvalCtx {
        inputs: &inputs,
        attrs,
        module: ctx.module,
        result_types: &result_types,
        regions: RefCell::new(&mut none),
    };
    kernel(&sub)
}

/// `core.reshape`: `onnx.Reshape(X, shape) {allowzero = 1}`.
pub fn reshape(ctx: &EvalCtx<'_>) -> KResult {
    let s = c::reshape_shape(ctx.attrs)?;
    call(ctx, sk::reshape, &[s], &Attrs::new().with("allowzero", Attr::Int(1)))
}

/// `core.squeeze`: `onnx.Squeeze(X, axes)`.
pub fn squeeze(ctx: &EvalCtx<'_>) -> KResult {
    call(ctx, sk::squeeze, &[c::sorted_axes(ctx.attrs, "axes")?], &Attrs::new())
}

/// `core.unsqueeze`: `onnx.Unsqueeze(X, axes)`.
pub fn unsqueeze(ctx: &EvalCtx<'_>) -> KResult {
    call(ctx, sk::unsqueeze, &[c::sorted_axes(ctx.attrs, "axes")?], &Attrs::new())
}

/// The onnx kernel of a `core.reduce` kind.
fn reduce_kernel(kind: &str) -> Result<EvalFn, String> {
    Ok(match kind {
        "mean" => rk::reduce_mean,
        "sum" => rk::reduce_sum,
        "max" => rk::reduce_max,
        "min" => rk::reduce_min,
        "prod" => rk::reduce_prod,
        "l1" => rk::reduce_l1,
        "l2" => rk::reduce_l2,
        "sum_square" => rk::reduce_sum_square,
        "log_sum" => rk::reduce_log_sum,
        "log_sum_exp" => rk::reduce_log_sum_exp,
        other => return Err(format!("unknown reduction kind {other:?}")),
    })
}

/// `core.reduce`: `onnx.Reduce<kind>(X, axes) {keepdims}` (axes are never empty).
pub fn reduce(ctx: &EvalCtx<'_>) -> KResult {
    let (kind, axes, keepdims) = crate::ops::reduce::reduce_params(ctx.attrs)?;
    call(ctx, reduce_kernel(kind)?, &[axes], &Attrs::new().with("keepdims", Attr::Int(keepdims)))
}

/// `core.slice`: `onnx.Slice(X, starts, ends, axes, steps)`.
pub fn slice(ctx: &EvalCtx<'_>) -> KResult {
    let p = c::slice_params(ctx.attrs)?;
    call(ctx, sk::slice, &[p.starts, p.ends, p.axes, p.steps], &Attrs::new())
}

/// `core.expand`: `onnx.Expand(X, shape)`.
pub fn expand(ctx: &EvalCtx<'_>) -> KResult {
    call(ctx, sk::expand, &[c::expand_shape(ctx.attrs)?], &Attrs::new())
}

#[cfg(test)]
mod tests {
    use super::reduce_kernel;
    use crate::ops::reduce::REDUCE_KINDS;

    #[test]
    fn every_reduce_kind_has_a_kernel() {
        for k in REDUCE_KINDS {
            assert!(reduce_kernel(k).is_ok(), "{k}");
        }
    }
}
