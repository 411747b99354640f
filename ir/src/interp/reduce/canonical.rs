//! Reference kernel of the canonical `core.reduce` (see
//! [`crate::ops::reduce`]): it checks its attributes with the op family's
//! validators and calls the onnx `Reduce*` kernel of its kind on the same data
//! tensor with the axes as a constant operand (through [`crate::interp::call_canonical`]), so
//! it gives bit for bit the result of its `onnx.*` counterpart.

use crate::attr::{Attr, Attrs};
use crate::interp::{call_canonical as call, reduce as rk, EvalCtx, EvalFn, Tensor};
use crate::ops::reduce as c;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

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
    let (kind, axes, keepdims) = c::reduce_params(ctx.attrs)?;
    call(ctx, reduce_kernel(kind)?, &[axes], &Attrs::new().with("keepdims", Attr::Int(keepdims)))
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
