//! DeformConv (opset 19/22), N-D.

use crate::interp::conv::window::{self, Geom};
use crate::interp::tensor::real::{float_kernel, int_at_least, numel, reals, to_tensor, Real};
use crate::interp::tensor::wide::unravel;
use crate::interp::{EvalCtx, Tensor};

/// `[N, channels, output spatial...]`.
fn nc_shape(n: usize, channels: usize, g: &Geom) -> Vec<usize> {
    [n, channels].into_iter().chain(g.output.iter().copied()).collect()
}

/// Check the operands; returns `(group, offset_group, geometry)`.
fn check_operands(ctx: &EvalCtx<'_>) -> Result<(usize, usize, Geom), String> {
    let (x, w, off) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    if !x.dtype().is_float() {
        return Err(format!("X has element type {}, expected a float type", x.dtype()));
    }
    let others = [("W", Some(w)), ("offset", Some(off)), ("B", ctx.opt(3)), ("mask", ctx.opt(4))];
    if let Some((name, t)) = others.iter().find_map(|(n, t)| t.filter(|t| t.dtype() != x.dtype()).map(|t| (n, t))) {
        return Err(format!("{name} has element type {}, expected X's {}", t.dtype(), x.dtype()));
    }
    if x.rank() < 3 || w.rank() != x.rank() {
        return Err(format!("X {:?} and W {:?} must have the same rank ≥ 3", x.shape, w.shape));
    }
    let group = int_at_least(ctx, "group", 1, 1)? as usize;
    let og = int_at_least(ctx, "offset_group", 1, 1)? as usize;
    let (c, m) = (x.shape[1], w.shape[0]);
    if c != w.shape[1] * group || m % group != 0 {
        return Err(format!("X {:?} and W {:?} do not agree for group {group}", x.shape, w.shape));
    }
    if c % og != 0 {
        return Err(format!("X {:?}: channels {c} are not divisible by offset_group {og}", x.shape));
    }
    let g = window::forward(ctx, &x.shape[2..], Some(&w.shape[2..]))?;
    let taps = og * numel(&g.kernel)?;
    let want = nc_shape(x.shape[0], taps * g.kernel.len(), &g);
    if off.shape != want {
        return Err(format!("offset {:?} must have shape {want:?}", off.shape));
    }
    if let Some(mask) = ctx.opt(4).filter(|t| t.shape != nc_shape(x.shape[0], taps, &g)) {
        return Err(format!("mask {:?} must have shape {:?}", mask.shape, nc_shape(x.shape[0], taps, &g)));
    }
    if let Some(b) = ctx.opt(3).filter(|b| b.shape != [m]) {
        return Err(format!("B {:?} must have shape [{m}]", b.shape));
    }
    Ok((group, og, g))
}

/// Multilinear interpolation of `plane` (spatial `shape`) at the real position
/// `pos`; corners outside the input contribute 0.
fn sample<T: Real>(plane: &[T], shape: &[usize], pos: &[T]) -> T {
    if let Some(p) = pos.iter().find(|p| !p.is_finite()) {
        return if p.is_nan() { *p } else { T::ZERO };
    }
    let n = shape.len();
    let lo: Vec<T> = pos.iter().map(|p| p.floor()).collect();
    let mut acc = T::ZERO;
    'corners: for corner in 0..1usize << n {
        let (mut weight, mut flat) = (T::ONE, 0usize);
        for a in 0..n {
            let up = (corner >> (n - 1 - a)) & 1 == 1;
            let frac = pos[a] - lo[a];
            weight *= if up { frac } else { T::ONE - frac };
            let idx = lo[a].to_f64() as i64 + up as i64;
            if idx < 0 || idx >= shape[a] as i64 {
                continue 'corners;
            }
            flat = flat * shape[a] + idx as usize;
        }
        acc += weight * plane[flat];
    }
    acc
}

/// The deformed im2col matrix `[N, C, taps, out]`: for each input channel, kernel
/// tap and output position, the input sampled at the offset tap position times the mask.
fn columns<T: Real>(ctx: &EvalCtx<'_>, og: usize, g: &Geom) -> Result<Vec<T>, String> {
    let (x, off) = (ctx.input(0)?, ctx.input(2)?);
    let (xv, ov, mv) = (reals::<T>(x), reals::<T>(off), ctx.opt(4).map(reals::<T>));
    let (n, c, nsp) = (x.shape[0], x.shape[1], g.input.len());
    let (xs, ks, os) = (numel(&g.input)?, numel(&g.kernel)?, numel(&g.output)?);
    let mut cols = Vec::with_capacity(n * c * ks * os);
    for b in 0..n {
        for ic in 0..c {
            let plane = &xv[(b * c + ic) * xs..(b * c + ic + 1) * xs];
            let group_tap = (b * og + ic / (c / og)) * ks; // offset/mask channel of tap 0
            for k in 0..ks {
                let ki = unravel(k, &g.kernel);
                for o in 0..os {
                    let oi = unravel(o, &g.output);
                    let pos: Vec<T> = (0..nsp)
                        .map(|a| {
                            let at = (oi[a] * g.strides[a] + ki[a] * g.dilations[a]) as i64 - g.begin[a];
                            T::from_f64(at as f64) + ov[((group_tap + k) * nsp + a) * os + o]
                        })
                        .collect();
                    let m = mv.as_ref().map_or(T::ONE, |m| m[(group_tap + k) * os + o]);
                    cols.push(sample(plane, &g.input, &pos) * m);
                }
            }
        }
    }
    Ok(cols)
}

fn deform_t<T: Real>(ctx: &EvalCtx<'_>, group: usize, og: usize, g: &Geom) -> Result<Tensor, String> {
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    let cols = columns::<T>(ctx, og, g)?;
    let (wv, bv) = (reals::<T>(w), ctx.opt(3).map(reals::<T>));
    let (n, c, m, cg) = (x.shape[0], x.shape[1], w.shape[0], w.shape[1]);
    let (ks, os, mg) = (numel(&g.kernel)?, numel(&g.output)?, m / group);
    let mut out = Vec::with_capacity(n * m * os);
    for b in 0..n {
        for mi in 0..m {
            let c0 = (mi / mg) * cg;
            for o in 0..os {
                let mut acc = bv.as_ref().map_or(T::ZERO, |b| b[mi]);
                for ci in 0..cg {
                    for k in 0..ks {
                        acc += wv[(mi * cg + ci) * ks + k] * cols[((b * c + c0 + ci) * ks + k) * os + o];
                    }
                }
                out.push(acc);
            }
        }
    }
    to_tensor(x.dtype(), nc_shape(n, m, g), out)
}

/// `onnx.DeformConv`: grouped N-D convolution whose kernel taps are moved by the
/// per-position `offset` (sampled with multilinear interpolation, zero outside
/// the input) and scaled by the optional `mask`; optional bias `B`.
pub fn deform_conv(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (group, og, g) = check_operands(ctx)?;
    Ok(vec![float_kernel!(ctx.input(0)?.dtype(), deform_t(ctx, group, og, &g))?])
}
