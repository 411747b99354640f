//! Reference kernels: pool family. MaxPool, AveragePool, LpPool, their global
//! forms, and MaxUnpool; the window geometry is the conv family's
//! ([`crate::interp::conv::window`]).

use crate::interp::conv::window::{self, Geom};
use crate::interp::tensor::real::{float_kernel, next_index, reals, to_tensor, to_tensor_any, IntCast, Real};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

/// The taps of the window at output position `o`: spatial multi-indices of the
/// input elements it covers, and how many taps fall into the explicit padding
/// (taps past the end padding, which `ceil_mode` can create, are not counted).
fn taps(g: &Geom, o: &[usize]) -> (Vec<Vec<usize>>, usize) {
    let n = o.len();
    let (mut real, mut pad) = (Vec::new(), 0);
    let mut k = vec![0; n];
    loop {
        let mut inside = true;
        let mut counted = true;
        let mut pos = Vec::with_capacity(n);
        for i in 0..n {
            let p = (o[i] * g.strides[i] + k[i] * g.dilations[i]) as i64 - g.begin[i];
            if p < 0 || p >= g.input[i] as i64 {
                inside = false;
                counted &= p < g.input[i] as i64 + g.end[i];
            }
            pos.push(p.max(0) as usize);
        }
        if inside {
            real.push(pos);
        } else if counted {
            pad += 1;
        }
        if !next_index(&mut k, &g.kernel) {
            return (real, pad);
        }
    }
}

/// Row-major flat offset of a spatial multi-index.
fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Column-major flat offset (MaxPool `storage_order = 1`).
fn flat_col_major(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).rev().fold(0, |acc, (&i, &d)| acc * d + i)
}

fn pool_geom(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<Geom, String> {
    let ks = ctx.attrs.ints("kernel_shape").ok_or("missing required attribute `kernel_shape`")?;
    if x.rank() != ks.len() + 2 {
        return Err(format!("X {:?} must have rank {} to match `kernel_shape` {ks:?}", x.shape, ks.len() + 2));
    }
    window::forward(ctx, &x.shape[2..], None)
}

/// Apply `f(values of the window's real taps, pad tap count)` to every output position.
fn pool_map<T: Copy, U>(
    x: &[T],
    nc: usize,
    g: &Geom,
    mut f: impl FnMut(usize, &[T], usize, &[Vec<usize>]) -> U,
) -> Vec<U> {
    let (is, os) = (g.input.iter().product::<usize>(), g.output.iter().product::<usize>());
    let mut out = Vec::with_capacity(nc * os);
    let windows: Vec<(Vec<Vec<usize>>, usize)> = {
        let mut o = vec![0; g.output.len()];
        (0..os)
            .map(|_| {
                let t = taps(g, &o);
                next_index(&mut o, &g.output);
                t
            })
            .collect()
    };
    for c in 0..nc {
        for (real, pad) in &windows {
            let vals: Vec<T> = real.iter().map(|p| x[c * is + flat(p, &g.input)]).collect();
            out.push(f(c, &vals, *pad, real));
        }
    }
    out
}

fn out_shape(x: &Tensor, g: &Geom) -> Vec<usize> {
    let mut s = x.shape[..2].to_vec();
    s.extend(&g.output);
    s
}

/// `onnx.MaxPool`: maximum over each window (padding never wins); the optional
/// `Indices` are flat indices into X (row-major, or column-major spatial order
/// when `storage_order = 1`); the first maximum wins. Float, i8 and u8.
pub fn max_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let dt = x.dtype();
    if !(dt.is_float() || matches!(dt, DType::I8 | DType::U8)) {
        return Err(format!("MaxPool does not support element type {dt}"));
    }
    let g = pool_geom(ctx, x)?;
    let col_major = ctx.int("storage_order", 0) != 0;
    let nc = x.shape[0] * x.shape[1];
    let is = g.input.iter().product::<usize>();
    let xv = x.to_f64s();
    let res = pool_map(&xv, nc, &g, |c, vals, _, real| {
        let mut best: Option<(f64, usize)> = None;
        for (v, p) in vals.iter().zip(real) {
            if best.is_none_or(|(b, _)| *v > b) {
                let idx = if col_major { flat_col_major(p, &g.input) } else { flat(p, &g.input) };
                best = Some((*v, idx));
            }
        }
        best.map_or((0.0, -1), |(v, i)| (v, (c * is + i) as i64))
    });
    let shape = out_shape(x, &g);
    let y = to_tensor_any(dt, shape.clone(), &res.iter().map(|r| r.0).collect::<Vec<_>>(), IntCast::Truncate)?;
    let mut out = vec![y];
    if ctx.num_results() > 1 {
        out.push(Tensor::new(shape, crate::interp::Data::I64(res.iter().map(|r| r.1).collect())));
    }
    Ok(out)
}

/// `onnx.AveragePool`: mean over each window's input elements, counting explicit
/// padding when `count_include_pad = 1`; taps past the end padding (from
/// `ceil_mode`) are never counted.
pub fn average_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let g = pool_geom(ctx, x)?;
    let include_pad = ctx.int("count_include_pad", 0) != 0;
    Ok(vec![float_kernel!(x.dtype(), average_pool_t(x, &g, include_pad))?])
}

fn average_pool_t<T: Real>(x: &Tensor, g: &Geom, include_pad: bool) -> Result<Tensor, String> {
    let nc = x.shape[0] * x.shape[1];
    let out = pool_map(&reals::<T>(x), nc, g, |_, vals, pad, _| {
        let n = vals.len() + if include_pad { pad } else { 0 };
        vals.iter().copied().sum::<T>() / T::from_f64(n as f64)
    });
    to_tensor(x.dtype(), out_shape(x, g), out)
}

/// The `p` attribute of the Lp ops (default 2, must be ≥ 1).
fn lp_p(ctx: &EvalCtx<'_>) -> Result<f64, String> {
    crate::interp::tensor::real::int_at_least(ctx, "p", 2, 1).map(|p| p as f64)
}

/// `onnx.LpPool`: `(sum |x|^p)^(1/p)` over each window (padding contributes 0).
pub fn lp_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let g = pool_geom(ctx, x)?;
    Ok(vec![float_kernel!(x.dtype(), lp_pool_t(x, &g, lp_p(ctx)?))?])
}

fn lp_norm<T: Real>(vals: &[T], p: T) -> T {
    vals.iter().map(|v| v.abs().powf(p)).sum::<T>().powf(T::ONE / p)
}

fn lp_pool_t<T: Real>(x: &Tensor, g: &Geom, p: f64) -> Result<Tensor, String> {
    let nc = x.shape[0] * x.shape[1];
    let out = pool_map(&reals::<T>(x), nc, g, |_, vals, _, _| lp_norm(vals, T::from_f64(p)));
    to_tensor(x.dtype(), out_shape(x, g), out)
}

/// Reduce every `[N, C]` plane of X with `f`, giving `[N, C, 1, ...]`.
fn global<T: Real>(x: &Tensor, f: impl Fn(&[T]) -> T) -> Result<Tensor, String> {
    if x.rank() < 2 {
        return Err(format!("X {:?} must have rank ≥ 2", x.shape));
    }
    let nc = x.shape[0] * x.shape[1];
    let plane: usize = x.shape[2..].iter().product();
    let xv = reals::<T>(x);
    let out = (0..nc).map(|c| f(&xv[c * plane..(c + 1) * plane])).collect();
    let mut shape = x.shape[..2].to_vec();
    shape.resize(x.rank(), 1);
    to_tensor(x.dtype(), shape, out)
}

fn global_avg_t<T: Real>(x: &Tensor) -> Result<Tensor, String> {
    global(x, |v: &[T]| v.iter().copied().sum::<T>() / T::from_f64(v.len() as f64))
}
fn global_max_t<T: Real>(x: &Tensor) -> Result<Tensor, String> {
    global(x, |v: &[T]| v.iter().copied().fold(T::NEG_INFINITY, T::max_nan))
}
fn global_lp_t<T: Real>(x: &Tensor, p: f64) -> Result<Tensor, String> {
    global(x, |v: &[T]| lp_norm(v, T::from_f64(p)))
}

/// `onnx.GlobalAveragePool`: mean over all spatial axes.
pub fn global_average_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), global_avg_t(x))?])
}

/// `onnx.GlobalMaxPool`: maximum over all spatial axes (NaN propagates).
pub fn global_max_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), global_max_t(x))?])
}

/// `onnx.GlobalLpPool`: `(sum |x|^p)^(1/p)` over all spatial axes.
pub fn global_lp_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    Ok(vec![float_kernel!(x.dtype(), global_lp_t(x, lp_p(ctx)?))?])
}

/// The output dims MaxUnpool infers from X's dims: `(in - 1) * stride - pads + kernel`.
pub fn unpool_dims(x: &[usize], ks: &[i64], strides: &[i64], pads: &[i64]) -> Result<Vec<usize>, String> {
    let n = ks.len();
    let mut out = x[..2].to_vec();
    for i in 0..n {
        let d = (x[i + 2] as i64 - 1) * strides[i] - pads[i] - pads[i + n] + ks[i];
        if d < 0 {
            return Err(format!("spatial axis {i}: unpooled size {d} is negative"));
        }
        out.push(d as usize);
    }
    Ok(out)
}

/// `onnx.MaxUnpool`: scatter X into zeros at the flat positions `I` of the inferred
/// unpooled shape; a larger `output_shape` pads that result at the end of each axis
/// (as the ONNX reference does).
pub fn max_unpool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, idx) = (ctx.input(0)?, ctx.input(1)?);
    let ks = ctx.attrs.ints("kernel_shape").ok_or("missing required attribute `kernel_shape`")?;
    let n = ks.len();
    if x.rank() != n + 2 || idx.shape != x.shape {
        return Err(format!("X {:?} and I {:?} must have the same rank-{} shape", x.shape, idx.shape, n + 2));
    }
    let strides = ctx.attrs.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = ctx.attrs.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    if strides.len() != n || pads.len() != 2 * n {
        return Err("attributes `strides`/`pads` do not match `kernel_shape`".into());
    }
    let inferred = unpool_dims(&x.shape, ks, &strides, &pads)?;
    let shape = match ctx.opt(2) {
        Some(os) => os
            .to_i64s()
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| format!("bad output_shape {d}")))
            .collect::<Result<Vec<_>, _>>()?,
        None => inferred.clone(),
    };
    if shape.len() != inferred.len() || shape.iter().zip(&inferred).any(|(s, i)| s < i) {
        return Err(format!("`output_shape` {shape:?} must be at least the inferred shape {inferred:?}"));
    }
    let total: usize = inferred.iter().product();
    let mut target = Vec::with_capacity(x.len());
    for &i in &idx.to_i64s() {
        let i = usize::try_from(i)
            .ok()
            .filter(|&i| i < total)
            .ok_or_else(|| format!("index {i} is out of range [0, {total})"))?;
        // Position in the inferred shape, re-flattened into `shape`.
        let mut rem = i;
        let mut pos = vec![0; inferred.len()];
        for a in (0..inferred.len()).rev() {
            pos[a] = rem % inferred[a];
            rem /= inferred[a];
        }
        target.push(flat(&pos, &shape));
    }
    let xv = x.to_f64s();
    let mut out = vec![0.0; shape.iter().product()];
    for (t, v) in target.into_iter().zip(xv) {
        out[t] = v;
    }
    Ok(vec![to_tensor_any(x.dtype(), shape, &out, IntCast::Truncate)?])
}
