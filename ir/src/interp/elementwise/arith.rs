//! Arithmetic kernels: Add, Sub, Mul, Div, Pow, Mod, the variadic Max, Min,
//! Sum and Mean, PRelu and Clip.
//!
//! Floats are computed in `f64` and rounded to the element type once per ONNX
//! primitive operation (so `f16` addition is the correctly rounded `f16` sum);
//! integers are computed in `i128` and wrap to the element type.

use super::num::*;
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

/// A two-operand, same-type, broadcasting numeric op.
fn binary(
    ctx: &EvalCtx<'_>,
    fop: impl Fn(f64, f64) -> f64,
    iop: impl Fn(i128, i128) -> Result<i128, String>,
) -> KResult {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let dt = same_dtype(&[a, b])?;
    let (shape, maps) = broadcast_all(&[a, b])?;
    let pairs = maps[0].iter().zip(&maps[1]);
    let out = match (numeric(a)?, numeric(b)?) {
        (Nums::F(x), Nums::F(y)) => Nums::F(pairs.map(|(&i, &j)| fop(x[i], y[j])).collect()),
        (Nums::I(x), Nums::I(y)) => Nums::I(pairs.map(|(&i, &j)| iop(x[i], y[j])).collect::<Result<_, _>>()?),
        _ => return Err("operands must both be float or both be integer".into()),
    };
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// `onnx.Add`: `A + B` (integers wrap).
pub fn add(ctx: &EvalCtx<'_>) -> KResult {
    binary(ctx, |a, b| a + b, |a, b| Ok(a + b))
}

/// `onnx.Sub`: `A - B` (integers wrap).
pub fn sub(ctx: &EvalCtx<'_>) -> KResult {
    binary(ctx, |a, b| a - b, |a, b| Ok(a - b))
}

/// `onnx.Mul`: `A * B` (integers wrap).
pub fn mul(ctx: &EvalCtx<'_>) -> KResult {
    binary(ctx, |a, b| a * b, |a, b| Ok(a.wrapping_mul(b)))
}

/// `onnx.Div`: `A / B`; integer division truncates toward zero and division
/// of an integer by zero is an error (ONNX leaves it undefined).
pub fn div(ctx: &EvalCtx<'_>) -> KResult {
    binary(ctx, |a, b| a / b, |a, b| if b == 0 { Err("integer division by zero".into()) } else { Ok(a / b) })
}

/// `onnx.Mod`. `fmod = 0` (integers only): Python `%`, the result takes the
/// sign of the divisor. `fmod = 1`: C `fmod`, the result takes the sign of the
/// dividend (floats and integers). An integer modulus of zero is an error.
pub fn mod_(ctx: &EvalCtx<'_>) -> KResult {
    let fmod = match ctx.int("fmod", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("`fmod` must be 0 or 1, got {v}")),
    };
    if !fmod && ctx.input(0)?.dtype().is_float() {
        return Err("Mod of float tensors requires `fmod = 1`".into());
    }
    let int_mod = move |a: i128, b: i128| {
        if b == 0 {
            return Err("integer modulo by zero".to_string());
        }
        let r = a % b;
        Ok(if !fmod && r != 0 && (r < 0) != (b < 0) { r + b } else { r })
    };
    binary(ctx, |a, b| a % b, int_mod)
}

/// `onnx.Pow`: `X ^ Y` with broadcasting; the exponent may have another
/// numeric type and the result has the base's type. Float bases use C `pow`;
/// integer bases with integer exponents use exact wrapping powers (a negative
/// exponent gives the truncated real result: 0 unless the base is ±1; base 0
/// is an error); integer bases with float exponents truncate the real power.
pub fn pow(ctx: &EvalCtx<'_>) -> KResult {
    let (x, y) = (ctx.input(0)?, ctx.input(1)?);
    let dt = x.dtype();
    let (shape, maps) = broadcast_all(&[x, y])?;
    let exps = numeric(y)?;
    let exp_f = |j: usize| match &exps {
        Nums::F(e) => e[j],
        Nums::I(e) => e[j] as f64,
    };
    let idx = maps[0].iter().zip(&maps[1]);
    let out = match (numeric(x)?, &exps) {
        (Nums::F(b), _) => Nums::F(idx.map(|(&i, &j)| b[i].powf(exp_f(j))).collect()),
        (Nums::I(b), Nums::I(e)) => Nums::I(idx.map(|(&i, &j)| int_pow(b[i], e[j])).collect::<Result<_, _>>()?),
        (Nums::I(b), Nums::F(_)) => {
            Nums::I(idx.map(|(&i, &j)| float_to_int(dt, (b[i] as f64).powf(exp_f(j)))).collect())
        }
    };
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// Integer power with wrapping multiplication (mod 2^128, narrowed later).
fn int_pow(base: i128, exp: i128) -> Result<i128, String> {
    if exp < 0 {
        return match base {
            0 => Err("integer 0 raised to a negative power".into()),
            1 => Ok(1),
            -1 => Ok(if exp % 2 == 0 { 1 } else { -1 }),
            _ => Ok(0),
        };
    }
    let (mut result, mut b, mut e) = (1i128, base, exp);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    Ok(result)
}

/// Fold all (variadic) operands elementwise after broadcasting them together.
fn fold_variadic(
    ctx: &EvalCtx<'_>,
    fop: impl Fn(DType, f64, f64) -> f64,
    iop: impl Fn(i128, i128) -> i128,
) -> Result<(Vec<usize>, DType, Nums), String> {
    let ts: Vec<&Tensor> = ctx.inputs.iter().flatten().copied().collect();
    let dt = same_dtype(&ts)?;
    let (shape, maps) = broadcast_all(&ts)?;
    let n = shape.iter().product::<usize>();
    let views = ts.iter().map(|t| numeric(t)).collect::<Result<Vec<_>, _>>()?;
    let out = if dt.is_float() {
        let vs: Vec<&Vec<f64>> = views.iter().filter_map(|v| if let Nums::F(f) = v { Some(f) } else { None }).collect();
        let at = |k: usize| vs.iter().zip(&maps).map(move |(v, m)| v[m[k]]);
        Nums::F((0..n).map(|k| at(k).reduce(|a, b| fop(dt, a, b)).unwrap_or(0.0)).collect())
    } else {
        let vs: Vec<&Vec<i128>> =
            views.iter().filter_map(|v| if let Nums::I(i) = v { Some(i) } else { None }).collect();
        let at = |k: usize| vs.iter().zip(&maps).map(move |(v, m)| v[m[k]]);
        Nums::I((0..n).map(|k| at(k).reduce(&iop).unwrap_or(0)).collect())
    };
    Ok((shape, dt, out))
}

/// `onnx.Max`: elementwise maximum of all operands (NaN propagates).
pub fn max(ctx: &EvalCtx<'_>) -> KResult {
    let (shape, dt, out) = fold_variadic(ctx, |_, a, b| max_nan(a, b), |a, b| a.max(b))?;
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// `onnx.Min`: elementwise minimum of all operands (NaN propagates).
pub fn min(ctx: &EvalCtx<'_>) -> KResult {
    let (shape, dt, out) = fold_variadic(ctx, |_, a, b| min_nan(a, b), |a, b| a.min(b))?;
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// `onnx.Sum`: elementwise sum, left to right, rounding after each addition.
pub fn sum(ctx: &EvalCtx<'_>) -> KResult {
    let (shape, dt, out) = fold_variadic(ctx, |dt, a, b| round_to(dt, a + b), |a, b| a + b)?;
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// `onnx.Mean`: the [`sum`] divided by the operand count (for integer
/// tensors: the wrapped sum divided as a real number and truncated).
pub fn mean(ctx: &EvalCtx<'_>) -> KResult {
    let count = ctx.inputs.iter().flatten().count();
    let (shape, dt, out) = fold_variadic(ctx, |dt, a, b| round_to(dt, a + b), |a, b| a + b)?;
    let out = match out {
        Nums::F(v) => Nums::F(v.into_iter().map(|s| s / count as f64).collect()),
        Nums::I(v) => Nums::I(v.into_iter().map(|s| float_to_int(dt, wrap_int(dt, s) as f64 / count as f64)).collect()),
    };
    Ok(vec![Tensor::new(shape, nums_data(dt, out)?)])
}

/// `onnx.PRelu`: `X > 0 ? X : slope * X`, slope broadcast unidirectionally to X.
pub fn prelu(ctx: &EvalCtx<'_>) -> KResult {
    let (x, slope) = (ctx.input(0)?, ctx.input(1)?);
    let (shape, _) = broadcast_all(&[x, slope])?;
    if shape != x.shape {
        return Err(format!("slope of shape {:?} does not broadcast to X of shape {:?}", slope.shape, x.shape));
    }
    binary(ctx, |x, s| if x > 0.0 { x } else { x * s }, |x, s| Ok(if x > 0 { x } else { x.wrapping_mul(s) }))
}

/// `onnx.Clip`: `min(max(x, lo), hi)` with optional one-element bounds of the
/// input's type; NaN inputs stay NaN; if `lo > hi` every element becomes `hi`.
pub fn clip(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let mut bounds = [None, None];
    for (i, name) in [(1, "min"), (2, "max")] {
        if let Some(t) = ctx.opt(i) {
            if t.dtype() != x.dtype() || t.len() != 1 {
                return Err(format!("`{name}` must be a one-element {} tensor, got {t:?}", x.dtype()));
            }
            bounds[i - 1] = Some(numeric(t)?);
        }
    }
    let out = match numeric(x)? {
        Nums::F(v) => {
            let b = |i: usize, d: f64| match &bounds[i] {
                Some(Nums::F(f)) => f[0],
                _ => d,
            };
            let (lo, hi) = (b(0, f64::NEG_INFINITY), b(1, f64::INFINITY));
            Nums::F(v.into_iter().map(|e| min_nan(max_nan(e, lo), hi)).collect())
        }
        Nums::I(v) => {
            let b = |i: usize, d: i128| match &bounds[i] {
                Some(Nums::I(n)) => n[0],
                _ => d,
            };
            let (lo, hi) = (b(0, i128::MIN), b(1, i128::MAX));
            Nums::I(v.into_iter().map(|e| e.max(lo).min(hi)).collect())
        }
    };
    Ok(vec![Tensor::new(x.shape.clone(), nums_data(x.dtype(), out)?)])
}
