//! Activation kernels that are not plain unary maps of `num`: Swish (with
//! its `alpha`), `core.silu`, and [`apply_activation`], the activation epilogue
//! of the fused `core.*` ops (conv, linear), which uses the elementwise
//! family's own formulas through [`Activation::apply_rounded`].

use super::num::{float_data, floats, round_to};
use crate::interp::tensor::real::{float_kernel, reals, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};
use crate::ops::elementwise::Activation;

type Out = Result<Vec<Tensor>, String>;

fn swish_t<T: Real>(x: &Tensor, alpha: f64) -> Result<Tensor, String> {
    let alpha = T::from_f64(alpha);
    let y = reals::<T>(x).into_iter().map(|v| v * (T::ONE / (T::ONE + (-(alpha * v)).exp()))).collect();
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.Swish` (opset 24): `x * sigmoid(alpha * x)`, `alpha` defaulting to 1.
pub fn swish(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let alpha = ctx.float("alpha", 1.0) as f64;
    Ok(vec![float_kernel!(x.dtype(), swish_t(x, alpha))?])
}

/// `y` with the activation applied to every element (unchanged for `None`).
pub fn apply_activation(act: Activation, y: Tensor) -> Result<Tensor, String> {
    if act == Activation::None {
        return Ok(y);
    }
    let dt = y.dtype();
    let v = floats(&y.data).ok_or_else(|| format!("activation `{}` needs a float tensor, got {dt}", act.name()))?;
    let out = v.into_iter().map(|x| act.apply_rounded(x, |v| round_to(dt, v))).collect();
    Ok(Tensor::new(y.shape, float_data(dt, out)?))
}

/// `core.silu`: `X * Sigmoid(X)`, the sigmoid rounded to X's type first.
pub fn silu(ctx: &EvalCtx<'_>) -> Out {
    Ok(vec![apply_activation(Activation::Silu, ctx.input(0)?.clone())?])
}
