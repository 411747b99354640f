//! Reference kernels: the canonical `core.*` layout ops (see
//! [`crate::ops::layout::canonical`]): `core.reshape`, `core.squeeze`,
//! `core.unsqueeze`, `core.slice` and `core.expand`.
//!
//! Each kernel checks its attributes with the op family's validators, builds
//! the onnx op's constant operands from them and calls the onnx kernel on the
//! same data tensor (through [`crate::interp::call_canonical`]), so a canonical op gives bit
//! for bit the result of its `onnx.*` counterpart.

use crate::attr::{Attr, Attrs};
use crate::interp::{call_canonical as call, layout as sk, EvalCtx, Tensor};
use crate::ops::layout::canonical as c;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

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

/// `core.slice`: `onnx.Slice(X, starts, ends, axes, steps)`.
pub fn slice(ctx: &EvalCtx<'_>) -> KResult {
    let p = c::slice_params(ctx.attrs)?;
    call(ctx, sk::slice, &[p.starts, p.ends, p.axes, p.steps], &Attrs::new())
}

/// `core.expand`: `onnx.Expand(X, shape)`.
pub fn expand(ctx: &EvalCtx<'_>) -> KResult {
    call(ctx, sk::expand, &[c::expand_shape(ctx.attrs)?], &Attrs::new())
}
