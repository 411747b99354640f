//! Reference kernels of the fused `core.conv` and `core.conv_transpose` (see
//! [`crate::ops::conv`]): the onnx kernel followed by the activation epilogue
//! of the elementwise family ([`apply_activation`]), so a fused op gives bit
//! for bit the result of the chain it replaces.

use crate::interp::elementwise::apply_activation;
use crate::interp::{first, EvalCtx, Tensor};
use crate::ops::elementwise::Activation;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// `core.conv`: `act(Conv(X, W, B))`.
pub fn conv(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    Ok(vec![apply_activation(act, first(super::conv(ctx)?)?)?])
}

/// `core.conv_transpose`: `act(ConvTranspose(X, W, B))`.
pub fn conv_transpose(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    Ok(vec![apply_activation(act, first(super::conv_transpose(ctx)?)?)?])
}
