//! One-input kernels: math functions, activations, rounding, Identity, the
//! float predicates IsNaN/IsInf and inference-mode Dropout.
//!
//! Float functions are evaluated in `f64` (numerically stable forms where the
//! textbook formula overflows, e.g. Softplus) and rounded once to the element
//! type, so `f16`/`bf16`/`f32` results are the correctly rounded values up to
//! the accuracy of the `f64` library function.

use super::num::*;
use crate::interp::{Data, EvalCtx, Tensor};
use edgec_numeric::special::erf as erf_f64;

/// Apply `f` to every element of a float tensor.
fn float_map(ctx: &EvalCtx<'_>, f: impl Fn(f64) -> f64) -> KResult {
    let x = ctx.input(0)?;
    let v = float_input(x, "input")?;
    Ok(vec![Tensor::new(x.shape.clone(), float_data(x.dtype(), v.into_iter().map(f).collect())?)])
}

/// Apply `f` to floats or `g` to integers (results wrap to the element type).
fn num_map(ctx: &EvalCtx<'_>, f: impl Fn(f64) -> f64, g: impl Fn(i128) -> i128) -> KResult {
    let x = ctx.input(0)?;
    let out = match numeric(x)? {
        Nums::F(v) => Nums::F(v.into_iter().map(f).collect()),
        Nums::I(v) => Nums::I(v.into_iter().map(g).collect()),
    };
    Ok(vec![Tensor::new(x.shape.clone(), nums_data(x.dtype(), out)?)])
}

/// A float attribute widened to `f64`.
fn attr(ctx: &EvalCtx<'_>, name: &str, default: f32) -> f64 {
    ctx.float(name, default) as f64
}

pub(crate) use edgec_numeric::act::{clamp01, sigmoid as sigmoid_f64};
use edgec_numeric::unary::{
    celu as celu_f64, elu as elu_f64, scaled_tanh as scaled_tanh_f64, shrink as shrink_f64, softplus as softplus_f64,
};

macro_rules! float_kernels {
    ($($(#[doc = $doc:literal])+ $name:ident => $f:expr;)*) => {
        $( $(#[doc = $doc])+ pub fn $name(ctx: &EvalCtx<'_>) -> KResult { float_map(ctx, $f) } )*
    };
}

float_kernels! {
    /// `onnx.Tanh`.
    tanh => f64::tanh;
    /// `onnx.Exp`.
    exp => f64::exp;
    /// `onnx.Log`: natural logarithm (`-inf` at 0, NaN below).
    log => f64::ln;
    /// `onnx.Sqrt` (NaN for negative inputs).
    sqrt => f64::sqrt;
    /// `onnx.Reciprocal`: `1 / x`.
    reciprocal => |x| 1.0 / x;
    /// `onnx.Erf`: the Gauss error function.
    erf => erf_f64;
    /// `onnx.Sin`.
    sin => f64::sin;
    /// `onnx.Cos`.
    cos => f64::cos;
    /// `onnx.Tan`.
    tan => f64::tan;
    /// `onnx.Asin` (NaN outside `[-1, 1]`).
    asin => f64::asin;
    /// `onnx.Acos` (NaN outside `[-1, 1]`).
    acos => f64::acos;
    /// `onnx.Atan`.
    atan => f64::atan;
    /// `onnx.Sinh`.
    sinh => f64::sinh;
    /// `onnx.Cosh`.
    cosh => f64::cosh;
    /// `onnx.Asinh`.
    asinh => f64::asinh;
    /// `onnx.Acosh` (NaN below 1).
    acosh => f64::acosh;
    /// `onnx.Atanh` (±inf at ±1, NaN outside).
    atanh => f64::atanh;
    /// `onnx.Floor`.
    floor => f64::floor;
    /// `onnx.Ceil`.
    ceil => f64::ceil;
    /// `onnx.Round`: to nearest, halves to even.
    round => f64::round_ties_even;
    /// `onnx.Sigmoid`: `1 / (1 + exp(-x))`.
    sigmoid => sigmoid_f64;
    /// `onnx.Softplus`: `ln(exp(x) + 1)`, evaluated without overflow.
    softplus => softplus_f64;
    /// `onnx.Softsign`: `x / (1 + |x|)`.
    softsign => |x| x / (1.0 + x.abs());
    /// `onnx.Mish`: `x * tanh(softplus(x))`.
    mish => |x| x * softplus_f64(x).tanh();
    /// `onnx.HardSwish`: `x * max(0, min(1, x / 6 + 1/2))`.
    hard_swish => |x| x * clamp01(x / 6.0 + 0.5);
}

/// `onnx.LeakyRelu`: `x > 0 ? x : alpha * x` (alpha defaults to 0.01).
pub fn leaky_relu(ctx: &EvalCtx<'_>) -> KResult {
    let alpha = attr(ctx, "alpha", 0.01);
    float_map(ctx, |x| if x > 0.0 { x } else { alpha * x })
}

/// `onnx.Elu`: `x > 0 ? x : alpha * (exp(x) - 1)` (alpha defaults to 1).
pub fn elu(ctx: &EvalCtx<'_>) -> KResult {
    let alpha = attr(ctx, "alpha", 1.0);
    float_map(ctx, |x| elu_f64(x, alpha))
}

/// `onnx.Selu`: `gamma * (x > 0 ? x : alpha * (exp(x) - 1))` with ONNX's
/// float32 default coefficients.
pub fn selu(ctx: &EvalCtx<'_>) -> KResult {
    let alpha = attr(ctx, "alpha", 1.673_263_2);
    let gamma = attr(ctx, "gamma", 1.050_701);
    float_map(ctx, |x| gamma * elu_f64(x, alpha))
}

/// `onnx.Celu`: `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`.
pub fn celu(ctx: &EvalCtx<'_>) -> KResult {
    let alpha = attr(ctx, "alpha", 1.0);
    float_map(ctx, |x| celu_f64(x, alpha))
}

/// `onnx.ThresholdedRelu`: `x > alpha ? x : 0` (alpha defaults to 1).
pub fn thresholded_relu(ctx: &EvalCtx<'_>) -> KResult {
    let alpha = attr(ctx, "alpha", 1.0);
    float_map(ctx, |x| if x > alpha { x } else { 0.0 })
}

/// `onnx.ScaledTanh`: `alpha * tanh(beta * x)` (both default to 1).
pub fn scaled_tanh(ctx: &EvalCtx<'_>) -> KResult {
    let (alpha, beta) = (attr(ctx, "alpha", 1.0), attr(ctx, "beta", 1.0));
    float_map(ctx, |x| scaled_tanh_f64(x, alpha, beta))
}

/// `onnx.HardSigmoid`: `max(0, min(1, alpha * x + beta))` (0.2 and 0.5 by default).
pub fn hard_sigmoid(ctx: &EvalCtx<'_>) -> KResult {
    let (alpha, beta) = (attr(ctx, "alpha", 0.2), attr(ctx, "beta", 0.5));
    float_map(ctx, |x| clamp01(alpha * x + beta))
}

/// `onnx.Gelu`: `0.5 x (1 + erf(x / sqrt 2))`, or with `approximate = "tanh"`
/// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
pub fn gelu(ctx: &EvalCtx<'_>) -> KResult {
    match ctx.str("approximate", "none") {
        "none" => float_map(ctx, |x| 0.5 * x * (1.0 + erf_f64(x / std::f64::consts::SQRT_2))),
        "tanh" => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            float_map(ctx, |x| 0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh()))
        }
        other => Err(format!("unknown `approximate` value {other:?}")),
    }
}

/// `onnx.Relu`: `max(x, 0)` (NaN stays NaN).
pub fn relu(ctx: &EvalCtx<'_>) -> KResult {
    num_map(ctx, |x| if x < 0.0 { 0.0 } else { x }, |x| x.max(0))
}

/// `onnx.Neg`: `-x` (integers wrap: `-(-128i8) = -128`).
pub fn neg(ctx: &EvalCtx<'_>) -> KResult {
    num_map(ctx, |x| -x, |x| -x)
}

/// `onnx.Abs` (integers wrap: `|-128i8| = -128`).
pub fn abs(ctx: &EvalCtx<'_>) -> KResult {
    num_map(ctx, f64::abs, i128::abs)
}

/// `onnx.Sign`: -1, 0 or 1 (zeros keep their sign, NaN stays NaN).
pub fn sign(ctx: &EvalCtx<'_>) -> KResult {
    let f = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        }
    };
    num_map(ctx, f, i128::signum)
}

/// `onnx.Shrink`: `x < -lambd ? x + bias : x > lambd ? x - bias : 0`,
/// computed in real arithmetic (integer results are truncated, as in the
/// ONNX reference).
pub fn shrink(ctx: &EvalCtx<'_>) -> KResult {
    let (lambd, bias) = (attr(ctx, "lambd", 0.5), attr(ctx, "bias", 0.0));
    let f = move |x: f64| shrink_f64(x, lambd, bias);
    let dt = ctx.input(0)?.dtype();
    num_map(ctx, f, move |x| float_to_int(dt, f(x as f64)))
}

/// `onnx.Identity`: the input, any element type.
pub fn identity(ctx: &EvalCtx<'_>) -> KResult {
    Ok(vec![ctx.input(0)?.clone()])
}

/// Map a float tensor to a bool tensor.
fn float_pred(ctx: &EvalCtx<'_>, p: impl Fn(f64) -> bool) -> KResult {
    let x = ctx.input(0)?;
    let v = float_input(x, "input")?;
    Ok(vec![Tensor::new(x.shape.clone(), Data::Bool(v.into_iter().map(p).collect()))])
}

/// `onnx.IsNaN`.
pub fn is_nan(ctx: &EvalCtx<'_>) -> KResult {
    float_pred(ctx, f64::is_nan)
}

/// `onnx.IsInf`: `+inf` if `detect_positive`, `-inf` if `detect_negative` (both default 1).
pub fn is_inf(ctx: &EvalCtx<'_>) -> KResult {
    let (neg, pos) = (ctx.int("detect_negative", 1) != 0, ctx.int("detect_positive", 1) != 0);
    float_pred(ctx, |x| (pos && x == f64::INFINITY) || (neg && x == f64::NEG_INFINITY))
}

/// `onnx.Dropout` in inference mode: the data unchanged and an all-true mask.
/// Training mode (a true `training_mode` with a nonzero `ratio`, default 0.5)
/// would need random numbers and is rejected.
pub fn dropout(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    float_input(x, "data")?;
    let ratio = ctx.opt(1).map(|t| scalar_f64(t, "ratio")).transpose()?.unwrap_or(0.5);
    let training = match ctx.opt(2).map(|t| bool_input(t, "training_mode")).transpose()? {
        Some(&[b]) => b,
        Some(v) => return Err(format!("training_mode must be a single bool, got {} elements", v.len())),
        None => false,
    };
    if training && ratio != 0.0 {
        return Err(format!("training-mode dropout (ratio {ratio}) is not supported: it needs random numbers"));
    }
    let mut out = vec![x.clone()];
    if ctx.num_results() > 1 {
        out.push(Tensor::new(x.shape.clone(), Data::Bool(vec![true; x.len()])));
    }
    Ok(out)
}
