//! Reference kernel of the fused `core.linear` (see [`crate::ops::linalg`]):
//! composed from the `onnx.*` kernels (through [`crate::interp::call`]) and
//! the elementwise family's activation epilogue, called on the same tensors
//! the unfused chain would see, so it gives bit for bit the chain's result.

use crate::attr::Attrs;
use crate::interp::elementwise::{self as ew, apply_activation};
use crate::interp::layout::transpose_last_two;
use crate::interp::{call, EvalCtx, Tensor};
use crate::ops::elementwise::Activation;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// `core.linear`: `act(MatMul(A, B') + bias)`, `B'` being `B` with its last
/// two axes swapped if `trans_b = 1`; the bias may not change the shape.
pub fn linear(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let bt;
    let b = match ctx.int("trans_b", 0) {
        0 => b,
        1 => {
            bt = transpose_last_two(ctx, b, "B (with trans_b = 1)")?;
            &bt
        }
        v => return Err(format!("attribute `trans_b` = {v} must be 0 or 1")),
    };
    let mut y = call(ctx, super::matmul, &[Some(a), Some(b)], &Attrs::new())?;
    if let Some(bias) = ctx.opt(2) {
        let s = call(ctx, ew::add, &[Some(&y), Some(bias)], &Attrs::new())?;
        if s.shape != y.shape {
            return Err(format!("bias {:?} does not broadcast to the MatMul result {:?}", bias.shape, y.shape));
        }
        y = s;
    }
    Ok(vec![apply_activation(act, y)?])
}
