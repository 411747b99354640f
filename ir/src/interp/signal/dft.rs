//! DFT (forward, inverse, one-sided RFFT and IRFFT) and STFT.

use super::{check_size, scalar_int};
use crate::interp::tensor::real::to_tensor;
use crate::interp::{EvalCtx, Tensor};
use crate::ops::signal::{dft_axis, dft_check_last, dft_length, dft_out_len, flag, stft_frame_length, stft_frames};
use crate::types::DType;
use std::f64::consts::PI;

type Out = Result<Vec<Tensor>, String>;

/// A complex number `(re, im)`.
type C = (f64, f64);

const I32_I64: &[DType] = &[DType::I32, DType::I64];

/// A DFT of one length: the table of `e^{-2πi j/n}` for `j < n`.
struct Plan {
    n: usize,
    twiddles: Vec<C>,
}

impl Plan {
    fn new(n: usize) -> Plan {
        let twiddles = (0..n)
            .map(|j| {
                let a = -2.0 * PI * j as f64 / n as f64;
                (a.cos(), a.sin())
            })
            .collect();
        Plan { n, twiddles }
    }

    /// The first `out_len` bins of the length-`n` DFT of `x` (zero-padded or
    /// truncated to `n`); `inverse` conjugates the kernel and divides by `n`.
    fn line(&self, x: &[C], out_len: usize, inverse: bool) -> Vec<C> {
        let n = self.n;
        let used = &x[..x.len().min(n)];
        let sign = if inverse { -1.0 } else { 1.0 };
        let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
        (0..out_len)
            .map(|k| {
                let (mut re, mut im) = (0.0, 0.0);
                for (t, &(xr, xi)) in used.iter().enumerate() {
                    let (c, s) = self.twiddles[((k as u128 * t as u128) % n as u128) as usize];
                    let s = sign * s;
                    re += xr * c - xi * s;
                    im += xr * s + xi * c;
                }
                (re * scale, im * scale)
            })
            .collect()
    }

    /// IRFFT: the real length-`n` signal whose spectrum has `x` (zero-padded or
    /// truncated to `n / 2 + 1` bins) as its first half, extended by Hermitian
    /// symmetry; imaginary parts that symmetry forces to 0 are ignored (numpy `irfft`).
    fn irfft_line(&self, x: &[C]) -> Vec<C> {
        let n = self.n;
        let bin = |k: usize| x.get(k).copied().unwrap_or((0.0, 0.0));
        let full: Vec<C> = (0..n)
            .map(|k| {
                if k <= n / 2 {
                    bin(k)
                } else {
                    let (r, i) = bin(n - k);
                    (r, -i)
                }
            })
            .collect();
        self.line(&full, n, true).into_iter().map(|(r, _)| (r, 0.0)).collect()
    }
}

/// The elements of a `[..., 1|2]` float tensor as complex numbers (imaginary 0 for real input).
fn complex_values(t: &Tensor) -> Vec<C> {
    let c = t.shape.last().copied().unwrap_or(1).max(1);
    let v = t.to_f64s();
    v.chunks(c).map(|p| (p[0], if c == 2 { p[1] } else { 0.0 })).collect()
}

/// Apply `line` to every 1-D lane of `x` (row-major over `dims`) along `axis`,
/// producing lanes of `out_len`.
fn along_axis(x: &[C], dims: &[usize], axis: usize, out_len: usize, line: impl Fn(&[C]) -> Vec<C>) -> Vec<C> {
    let outer: usize = dims[..axis].iter().product();
    let m = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let mut out = vec![(0.0, 0.0); outer * out_len * inner];
    let mut lane = Vec::with_capacity(m);
    for o in 0..outer {
        for i in 0..inner {
            lane.clear();
            lane.extend((0..m).map(|k| x[(o * m + k) * inner + i]));
            for (k, v) in line(&lane).into_iter().enumerate() {
                out[(o * out_len + k) * inner + i] = v;
            }
        }
    }
    out
}

/// A tensor of `dt` from complex values: `[..., 2]` if `complex`, else the real parts as `[..., 1]`.
fn store(dt: DType, mut shape: Vec<usize>, v: &[C], complex: bool) -> Result<Tensor, String> {
    let flat: Vec<f64> =
        if complex { v.iter().flat_map(|&(r, i)| [r, i]).collect() } else { v.iter().map(|c| c.0).collect() };
    if let Some(last) = shape.last_mut() {
        *last = if complex { 2 } else { 1 };
    }
    to_tensor::<f64>(dt, shape, flat)
}

/// The DFT axis from the `axis` operand (opset 20) or attribute (opsets 17–19), default -2.
fn axis_arg(ctx: &EvalCtx<'_>) -> Result<i64, String> {
    match (ctx.opt(2), ctx.attrs.int("axis")) {
        (Some(_), Some(_)) => Err("DFT `axis` is given both as an operand and as an attribute".into()),
        (Some(t), None) => scalar_int(t, "axis", &[DType::I64]),
        (None, a) => Ok(a.unwrap_or(-2)),
    }
}

/// `onnx.DFT`: forward or inverse (`1/n`-scaled) DFT along `axis` of a real
/// `[..., 1]` or complex `[..., 2]` float input; `onesided` gives the RFFT
/// (`n / 2 + 1` bins of a real input) or the IRFFT (real `[..., 1]` output of a
/// Hermitian half-spectrum). Computed in f64, rounded once to the input's type.
pub fn dft(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    if !x.dtype().is_float() {
        return Err(format!("input has element type {}, expected a float type", x.dtype()));
    }
    let inverse = flag(ctx.int("inverse", 0), "inverse")?;
    let onesided = flag(ctx.int("onesided", 0), "onesided")?;
    let r = x.rank();
    if r < 2 {
        return Err(format!("input shape {:?} must have rank ≥ 2 (the last dim holds real/imaginary parts)", x.shape));
    }
    dft_check_last(x.shape[r - 1] as u64, inverse, onesided)?;
    let a = dft_axis(axis_arg(ctx)?, r)?;
    let len = ctx.opt(1).map(|t| scalar_int(t, "dft_length", I32_I64)).transpose()?;
    let n = dft_length(len, x.shape[a] as u64, inverse, onesided)?;
    let n = usize::try_from(n).map_err(|_| format!("DFT length {n} is too large"))?;
    let out_len = dft_out_len(n as u64, inverse, onesided) as usize;
    let mut shape = x.shape.clone();
    shape[a] = out_len;
    check_size(&shape)?;
    check_size(&[n])?;
    let plan = Plan::new(n);
    let vals = complex_values(x);
    let dims = &x.shape[..r - 1];
    let irfft = inverse && onesided;
    let y = if irfft {
        along_axis(&vals, dims, a, out_len, |l| plan.irfft_line(l))
    } else {
        along_axis(&vals, dims, a, out_len, |l| plan.line(l, out_len, inverse))
    };
    Ok(vec![store(x.dtype(), shape, &y, !irfft)?])
}

/// `onnx.STFT`: DFTs of `frame_length` windowed frames of a `[batch, length, 1|2]`
/// float signal taken every `frame_step` samples; output
/// `[batch, frames, bins, 2]` (`bins = frame_length / 2 + 1` when `onesided`, the default).
pub fn stft(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    if !x.dtype().is_float() {
        return Err(format!("signal has element type {}, expected a float type", x.dtype()));
    }
    if x.rank() != 3 || !(1..=2).contains(&x.shape[2]) {
        return Err(format!("signal shape {:?} must be [batch, length, 1|2]", x.shape));
    }
    let onesided = flag(ctx.int("onesided", 1), "onesided")?;
    let step = scalar_int(ctx.input(1)?, "frame_step", I32_I64)?;
    let window = ctx.opt(2);
    if let Some(w) = window {
        if w.dtype() != x.dtype() || w.rank() != 1 {
            return Err(format!("window must be a 1-D {} tensor, found {} {:?}", x.dtype(), w.dtype(), w.shape));
        }
    }
    let fl = ctx.opt(3).map(|t| scalar_int(t, "frame_length", I32_I64)).transpose()?;
    let (batch, len) = (x.shape[0], x.shape[1]);
    let n = stft_frame_length(fl, window.map(|w| w.shape[0] as u64), len as u64)? as usize;
    let frames = stft_frames(len as u64, n as u64, step)? as usize;
    let bins = if onesided { n / 2 + 1 } else { n };
    check_size(&[batch, frames, bins, 2])?;
    let w: Vec<f64> = window.map_or_else(|| vec![1.0; n], |w| w.to_f64s());
    let vals = complex_values(x);
    let plan = Plan::new(n);
    let mut out = Vec::with_capacity(batch * frames * bins);
    for b in 0..batch {
        for f in 0..frames {
            let start = b * len + f * step as usize;
            let frame: Vec<C> = (0..n).map(|t| (vals[start + t].0 * w[t], vals[start + t].1 * w[t])).collect();
            out.extend(plan.line(&frame, bins, false));
        }
    }
    Ok(vec![store(x.dtype(), vec![batch, frames, bins, 2], &out, true)?])
}
