//! Reference kernels: elementwise family (arithmetic, math and activation
//! functions, comparisons and logic, bitwise ops, casts, `core.silu`).
//!
//! Floats of every width are computed in `f64` and rounded to the element type
//! once per ONNX primitive (a basic `f16` or `f32` operation therefore equals
//! the correctly rounded IEEE result, and composite functions such as Gelu are
//! rounded once at the end); integers are computed in `i128` and wrap to the
//! element type like numpy's fixed-width arithmetic (Swish, in
//! [`activation`], computes in the `Real` domain of the float kernels, f32
//! for f32/f16/bf16). Each submodule holds one
//! group of ops; the kernels are re-exported here so the op table can name
//! them `ik::elementwise::<kernel>`.

pub mod activation;
pub mod arith;
pub mod cast;
pub mod logic;
pub(crate) mod num;
pub mod unary;

pub use activation::{apply_activation, silu, swish};
pub use arith::{add, clip, div, max, mean, min, mod_, mul, pow, prelu, sub, sum};
pub use cast::{cast, cast_like};
pub use logic::{
    and, bit_shift, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal, greater, greater_or_equal, less,
    less_or_equal, not, or, where_, xor,
};
pub use unary::{
    abs, acos, acosh, asin, asinh, atan, atanh, ceil, celu, cos, cosh, dropout, elu, erf, exp, floor, gelu,
    hard_sigmoid, hard_swish, identity, is_inf, is_nan, leaky_relu, log, mish, neg, reciprocal, relu, round,
    scaled_tanh, selu, shrink, sigmoid, sign, sin, sinh, softplus, softsign, sqrt, tan, tanh, thresholded_relu,
};

/// `BitCast`: the little-endian bytes of each element read as type `to`.
pub fn bitcast(ctx: &crate::interp::EvalCtx<'_>) -> Result<Vec<crate::interp::Tensor>, String> {
    let x = ctx.input(0)?;
    let to = ctx.attrs.dtype("to").ok_or("missing attribute `to`")?;
    let bytes = x.to_le_bytes().ok_or("BitCast from string is not supported")?;
    let data = crate::interp::from_le_bytes(to, &bytes)?;
    if data.len() != x.len() {
        return Err(format!("BitCast from {} to {to} changes the element count", x.dtype()));
    }
    Ok(vec![crate::interp::Tensor { shape: x.shape.clone(), data }])
}
