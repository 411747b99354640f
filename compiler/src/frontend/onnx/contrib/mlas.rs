//! onnxruntime's MLAS approximations of the logistic function and `tanh`,
//! spelled as standard ops, for rules whose onnxruntime kernel feeds those
//! values back into a dynamic quantization (the recurrent LSTM step): there a
//! one-ulp difference can move a value across a quantization step and the
//! recurrence amplifies it, so the float values must be MLAS's to the bit.
//!
//! On x86-64 with FMA3 (every AVX2 machine, AVX-512 ones included) MLAS runs
//! `MlasComputeLogisticF32KernelFma3` and `MlasComputeTanhF32KernelFma3`
//! (onnxruntime 1.29 to 1.32 at least): Eigen's odd rational approximations
//! `x * P(x^2) / Q(x^2)` after clamping `x`, with each Horner step one fused
//! multiply-add. ONNX has no fused multiply-add, so each is computed in
//! `f64`: the product of two `f32` is exact there, and the sum is rounded to
//! `f64` and then to `f32`. That equals the fused result except where the
//! `f64` rounding lands exactly on an `f32` rounding tie, which has a
//! probability near 2^-29 per step.

use super::{cast, f32_const, f64_const, op1};
use crate::frontend::onnx::node::{NResult, NodeCx};
use ir::{DType, Opcode, Value};

/// Logistic: clamp to ±18, `x * P(x^2) / Q(x^2) + 1/2`, then `max(.., 0)`
/// (the FMA3 kernel clamps only from below). Coefficients highest first,
/// written as MLAS writes them (`logistic.cpp`) and rounded to `f32` alike.
#[allow(clippy::excessive_precision)]
const LOGISTIC_P: [f32; 5] =
    [4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05, 8.51377133304701e-03, 2.48287947061529e-01];
#[allow(clippy::excessive_precision)]
const LOGISTIC_Q: [f32; 6] = [
    6.10247389755681e-13,
    5.76102136993427e-09,
    6.29106785017040e-06,
    1.70198817374094e-03,
    1.16817656904453e-01,
    9.93151921023180e-01,
];
const LOGISTIC_RANGE: f32 = 18.0;

/// Tanh: clamp to ±9, `x * P(x^2) / Q(x^2)` (constants of `tanh.cpp`).
#[allow(clippy::excessive_precision)]
const TANH_P: [f32; 7] = [
    -2.76076847742355e-16,
    2.00018790482477e-13,
    -8.60467152213735e-11,
    5.12229709037114e-08,
    1.48572235717979e-05,
    6.37261928875436e-04,
    4.89352455891786e-03,
];
#[allow(clippy::excessive_precision)]
const TANH_Q: [f32; 4] = [1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03];
const TANH_RANGE: f32 = 9.0;

/// `fma(a, b, c)` in `f32` for `f64` operands holding `f32` values.
fn fma(cx: &mut NodeCx<'_, '_, '_>, a: Value, b: Value, c: Value) -> NResult<Value> {
    let m = op1(cx, Opcode::Mul, &[a, b])?;
    let s = op1(cx, Opcode::Add, &[m, c])?;
    cast(cx, s, DType::F32)
}

/// `P(x2)` by Horner's rule with fused steps: `p = c0; p = fma(x2, p, c_k)`.
/// `x2` is the `f64` copy of an `f32` square.
fn horner(cx: &mut NodeCx<'_, '_, '_>, x2: Value, coeffs: &[f32]) -> NResult<Value> {
    let c = |cx: &mut NodeCx<'_, '_, '_>, k: usize| f64_const(cx, coeffs[k] as f64, "mlas_coeff");
    let (c0, c1) = (c(cx, 0), c(cx, 1));
    let mut p = fma(cx, x2, c0, c1)?;
    for k in 2..coeffs.len() {
        let p64 = cast(cx, p, DType::F64)?;
        let ck = c(cx, k);
        p = fma(cx, x2, p64, ck)?;
    }
    Ok(p)
}

/// `v * P(v^2) / Q(v^2)` with `v = clamp(x, -range, range)`.
fn odd_rational(cx: &mut NodeCx<'_, '_, '_>, x: Value, range: f32, p: &[f32], q: &[f32]) -> NResult<Value> {
    let (lo, hi) = (f32_const(cx, -range, "mlas_lo"), f32_const(cx, range, "mlas_hi"));
    let v = op1(cx, Opcode::Clip, &[x, lo, hi])?;
    let v2 = op1(cx, Opcode::Mul, &[v, v])?;
    let x2 = cast(cx, v2, DType::F64)?;
    let pv = horner(cx, x2, p)?;
    let qv = horner(cx, x2, q)?;
    let pv = op1(cx, Opcode::Mul, &[v, pv])?;
    op1(cx, Opcode::Div, &[pv, qv])
}

/// MLAS's logistic function of an `f32` tensor.
pub(super) fn logistic(cx: &mut NodeCx<'_, '_, '_>, x: Value) -> NResult<Value> {
    let r = odd_rational(cx, x, LOGISTIC_RANGE, &LOGISTIC_P, &LOGISTIC_Q)?;
    let half = f32_const(cx, 0.5, "half");
    let r = op1(cx, Opcode::Add, &[r, half])?;
    let zero = f32_const(cx, 0.0, "zero");
    op1(cx, Opcode::Max, &[r, zero])
}

/// MLAS's `tanh` of an `f32` tensor.
pub(super) fn tanh(cx: &mut NodeCx<'_, '_, '_>, x: Value) -> NResult<Value> {
    odd_rational(cx, x, TANH_RANGE, &TANH_P, &TANH_Q)
}
