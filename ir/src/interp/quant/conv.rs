//! ConvInteger and QLinearConv: an N-D grouped convolution on i32 values.

use super::{per_channel, q8_values, saturate, scale_values};
use crate::interp::conv::window::{self, Geom};
use crate::interp::tensor::real::{next_index, numel};
use crate::interp::{Data, EvalCtx, Tensor};

/// Check ranks and channel counts; returns `group`.
fn check(ctx: &EvalCtx<'_>, x: &Tensor, w: &Tensor) -> Result<usize, String> {
    let group = match ctx.int("group", 1) {
        g if g >= 1 => g as usize,
        g => return Err(format!("attribute `group` = {g} must be ≥ 1")),
    };
    if x.rank() < 3 || w.rank() != x.rank() {
        return Err(format!("x {:?} and w {:?} must have the same rank ≥ 3", x.shape, w.shape));
    }
    if w.shape[1].checked_mul(group) != Some(x.shape[1]) || !w.shape[0].is_multiple_of(group) {
        return Err(format!("x {:?} and w {:?} do not agree for group {group}", x.shape, w.shape));
    }
    Ok(group)
}

/// For each (output position, kernel tap), the input offset within one channel
/// plane, or `None` where the tap falls in the padding.
fn taps(g: &Geom, os: usize, ks: usize) -> Vec<Option<usize>> {
    let mut taps = Vec::with_capacity(os * ks);
    let mut o = vec![0; g.output.len()];
    for _ in 0..os {
        let mut k = vec![0; g.kernel.len()];
        for _ in 0..ks {
            let mut flat = Some(0usize);
            for i in 0..k.len() {
                let p = (o[i] * g.strides[i] + k[i] * g.dilations[i]) as i64 - g.begin[i];
                let inside = p >= 0 && (p as usize) < g.input[i];
                flat = flat.filter(|_| inside).map(|f| f * g.input[i] + p as usize);
            }
            taps.push(flat);
            next_index(&mut k, &g.kernel);
        }
        next_index(&mut o, &g.output);
    }
    taps
}

/// Grouped convolution of centered i32 values (`x [N, C, D...]`, `w [M, C/group, k...]`),
/// accumulating with wrap-around; returns the `[N, M, out...]` values. Per
/// batch and group, the taps are gathered into rows (`col[ci·ks + k][o]`, 0 in
/// the padding: a centered value), and each output row is `Σ_t w[m][t] · col[t]`
/// (wrapping sums: the order does not change the result).
fn conv_i32(x: &[i32], xs: &[usize], w: &[i32], ws: &[usize], group: usize, g: &Geom) -> Result<Vec<i32>, String> {
    let (n, c, m, cg) = (xs[0], xs[1], ws[0], ws[1]);
    let mg = m / group;
    let (is, os, ks) = (numel(&g.input)?, numel(&g.output)?, numel(&g.kernel)?);
    let taps = taps(g, os, ks);
    let mut out = vec![0i32; n * m * os];
    let mut col = vec![0i32; cg * ks * os];
    for bi in 0..n {
        for gi in 0..group {
            for ci in 0..cg {
                let plane = &x[(bi * c + gi * cg + ci) * is..(bi * c + gi * cg + ci + 1) * is];
                for k in 0..ks {
                    let row = &mut col[(ci * ks + k) * os..(ci * ks + k + 1) * os];
                    for (o, v) in row.iter_mut().enumerate() {
                        *v = taps[o * ks + k].map_or(0, |off| plane[off]);
                    }
                }
            }
            for mi in gi * mg..(gi + 1) * mg {
                let acc = &mut out[(bi * m + mi) * os..(bi * m + mi + 1) * os];
                for (t, &wv) in w[mi * cg * ks..(mi + 1) * cg * ks].iter().enumerate() {
                    for (a, &v) in acc.iter_mut().zip(&col[t * os..(t + 1) * os]) {
                        *a = a.wrapping_add(v.wrapping_mul(wv));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `x - x_zero_point` (a single value) and `w - w_zero_point` (per tensor or per output channel).
fn centered(
    x: &Tensor,
    xzp: Option<&Tensor>,
    w: &Tensor,
    wzp: Option<&Tensor>,
) -> Result<(Vec<i32>, Vec<i32>), String> {
    let (mut xv, mut wv) = (q8_values(x, "x")?, q8_values(w, "w")?);
    for (zp, of, what) in [(xzp, x, "x_zero_point"), (wzp, w, "w_zero_point")] {
        if zp.is_some_and(|z| z.dtype() != of.dtype()) {
            return Err(format!("{what} must have element type {}", of.dtype()));
        }
    }
    if let Some(z) = xzp {
        let z = per_channel(&q8_values(z, "x_zero_point")?, &z.shape, 1, "x_zero_point")?[0];
        xv.iter_mut().for_each(|v| *v -= z);
    }
    if let Some(z) = wzp {
        let m = w.shape[0];
        let z = per_channel(&q8_values(z, "w_zero_point")?, &z.shape, m, "w_zero_point")?;
        let per = w.len() / m.max(1);
        wv.iter_mut().enumerate().for_each(|(i, v)| *v -= z[i / per]);
    }
    Ok((xv, wv))
}

fn out_shape(x: &Tensor, w: &Tensor, g: &Geom) -> Vec<usize> {
    let mut shape = vec![x.shape[0], w.shape[0]];
    shape.extend(&g.output);
    shape
}

/// `onnx.ConvInteger`: `conv(x - x_zero_point, w - w_zero_point)` in i32 with the
/// Conv window attributes; `w_zero_point` is per tensor or per output channel.
pub fn conv_integer(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    let group = check(ctx, x, w)?;
    let (xv, wv) = centered(x, ctx.opt(2), w, ctx.opt(3))?;
    let g = window::forward(ctx, &x.shape[2..], Some(&w.shape[2..]))?;
    let y = conv_i32(&xv, &x.shape, &wv, &w.shape, group, &g)?;
    Ok(vec![Tensor::new(out_shape(x, w, &g), Data::I32(y))])
}

/// `onnx.QLinearConv`: the integer convolution of the centered operands plus the i32
/// bias `B`, requantized per output channel with `x_scale * w_scale[m] / y_scale`
/// (in f32) and `y_zero_point`, rounded half to even and saturated.
pub fn qlinear_conv(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, w, yzp) = (ctx.input(0)?, ctx.input(3)?, ctx.input(7)?);
    let group = check(ctx, x, w)?;
    let (xv, wv) = centered(x, Some(ctx.input(2)?), w, Some(ctx.input(5)?))?;
    let g = window::forward(ctx, &x.shape[2..], Some(&w.shape[2..]))?;
    let mut acc = conv_i32(&xv, &x.shape, &wv, &w.shape, group, &g)?;
    let m = w.shape[0];
    let os = numel(&g.output)?;
    if let Some(b) = ctx.opt(8) {
        let Data::I32(bv) = &b.data else { return Err(format!("B has element type {}, expected i32", b.dtype())) };
        if b.shape != [m] {
            return Err(format!("B {:?} must have shape [{m}]", b.shape));
        }
        acc.iter_mut().enumerate().for_each(|(i, a)| *a = a.wrapping_add(bv[(i / os) % m]));
    }
    let scale = |i: usize, what: &str| -> Result<Vec<f32>, String> {
        let t = ctx.input(i)?;
        let want = if what == "w_scale" { m } else { 1 };
        per_channel(&scale_values(t, what)?.0, &t.shape, want, what)
    };
    let (xs, ws, ys) = (scale(1, "x_scale")?[0], scale(4, "w_scale")?, scale(6, "y_scale")?[0]);
    let zp = per_channel(&q8_values(yzp, "y_zero_point")?, &yzp.shape, 1, "y_zero_point")?[0] as f64;
    let mult: Vec<f64> = ws.iter().map(|&s| ((xs * s) / ys) as f64).collect();
    let out: Vec<f64> = acc.iter().enumerate().map(|(i, &a)| a as f64 * mult[(i / os) % m] + zp).collect();
    Ok(vec![saturate(yzp.dtype(), out_shape(x, w, &g), &out)?])
}

/// The i32 elements of a `[M]` or `[1]` parameter, one per output channel.
fn i32_per_channel(t: &Tensor, m: usize, what: &str) -> Result<Vec<i32>, String> {
    let Data::I32(v) = &t.data else { return Err(format!("{what} has element type {}, expected i32", t.dtype())) };
    match v.len() {
        n if n == m => Ok(v.clone()),
        1 => Ok(vec![v[0]; m]),
        _ => Err(format!("{what} {:?} must have shape [{m}] or [1]", t.shape)),
    }
}

/// `quant.conv`: the integer conv of `X - x_zero_point` and `W` plus `B`,
/// requantized per output channel by the fixed-point `multiplier`/`shift`
/// (rounded once or, with `rounding = "gemmlowp"` / `"ruy"`, as LiteRT:
/// `edgec_numeric::fixed::requantize_with`) or, with `acc_scale`, through the
/// float activation (`requantize_act`), `+ y_zero_point`, clamped to
/// `[qmin, qmax]`; the result has X's type.
pub fn quant_conv(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    use edgec_numeric::fixed::{requantize_with, Rounding};
    use edgec_numeric::quant::{requantize_act, MAX_SHIFT, MIN_SHIFT};
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    let group = check(ctx, x, w)?;
    let (mut xv, wv) = (q8_values(x, "X")?, q8_values(w, "W")?);
    let xzp = ctx.int("x_zero_point", 0) as i32;
    xv.iter_mut().for_each(|v| *v -= xzp);
    let g = window::forward(ctx, &x.shape[2..], Some(&w.shape[2..]))?;
    let mut acc = conv_i32(&xv, &x.shape, &wv, &w.shape, group, &g)?;
    let (m, os) = (w.shape[0], numel(&g.output)?);
    if let Some(b) = ctx.opt(2) {
        let bv = i32_per_channel(b, m, "B")?;
        acc.iter_mut().enumerate().for_each(|(i, a)| *a = a.wrapping_add(bv[(i / os) % m]));
    }
    let (zp, lo, hi) = (ctx.int("y_zero_point", 0) as i32, ctx.int("qmin", 0) as i32, ctx.int("qmax", 0) as i32);
    let y: Vec<i32> = match ctx.opt(5) {
        Some(s) => {
            let Data::F32(sv) = &s.data else { return Err("acc_scale must be f32".into()) };
            let scale = |c: usize| if sv.len() == 1 { sv[0] } else { sv[c] };
            if sv.len() != 1 && sv.len() != m {
                return Err(format!("acc_scale {:?} must have shape [{m}] or [1]", s.shape));
            }
            let act = edgec_numeric::act::Activation::from_attrs(ctx.attrs)?;
            let ys = ctx.float("y_scale", 1.0);
            acc.iter().enumerate().map(|(i, &a)| requantize_act(a, scale((i / os) % m), act, ys, zp, lo, hi)).collect()
        }
        None => {
            let mult = i32_per_channel(ctx.input(3)?, m, "multiplier")?;
            let shift = i32_per_channel(ctx.input(4)?, m, "shift")?;
            if let Some(s) = shift.iter().find(|s| !(MIN_SHIFT..=MAX_SHIFT).contains(s)) {
                return Err(format!("shift {s} is outside {MIN_SHIFT}..={MAX_SHIFT}"));
            }
            let rounding = Rounding::from_name(ctx.str("rounding", "single")).ok_or("unknown rounding")?;
            acc.iter()
                .enumerate()
                .map(|(i, &a)| requantize_with(rounding, a, mult[(i / os) % m], shift[(i / os) % m], zp, lo, hi))
                .collect()
        }
    };
    let y = y.into_iter();
    let data = match x.data {
        Data::U8(_) => Data::U8(y.map(|v| v as u8).collect()),
        _ => Data::I8(y.map(|v| v as i8).collect()),
    };
    Ok(vec![Tensor::new(out_shape(x, w, &g), data)])
}
