//! The fused integer ops that stand for a float op between QDQ pairs:
//! `quant.add`, `quant.sub`, `quant.mul` (B equal to A or broadcast along A's leading and
//! trailing dims), `quant.lut` and `quant.global_avg_pool`, per element by the formulas of
//! `edgec_numeric::quant` that the kernels share.

use super::q8_values;
use crate::interp::{Data, EvalCtx, Tensor};
use edgec_numeric::act::Activation;
use edgec_numeric::quant::{broadcast_block, mean_scale, qadd, qmul, qsub, requantize_act};

/// The per-tensor grid `{k}_scale`, `{k}_zero_point`.
fn grid(ctx: &EvalCtx<'_>, k: &str) -> (f32, i32) {
    (ctx.float(&format!("{k}_scale"), 1.0), ctx.int(&format!("{k}_zero_point"), 0) as i32)
}

/// The integer range of an 8-bit tensor's type.
fn range(t: &Tensor) -> (i32, i32) {
    if matches!(t.data, Data::U8(_)) {
        (0, 255)
    } else {
        (-128, 127)
    }
}

/// Values back into the 8-bit type of `like`.
fn q8_data(like: &Tensor, y: impl Iterator<Item = i32>) -> Data {
    match like.data {
        Data::U8(_) => Data::U8(y.map(|v| v as u8).collect()),
        _ => Data::I8(y.map(|v| v as i8).collect()),
    }
}

/// `qadd` / `qsub` / `qmul`: (a, za, sa, b, zb, sb, sy, zy, lo, hi) → y.
type QBinaryFn = fn(i32, i32, f32, i32, i32, f32, f32, i32, i32, i32) -> i32;

fn binary(ctx: &EvalCtx<'_>, f: QBinaryFn) -> Result<Vec<Tensor>, String> {
    let ((sa, _), (sb, _), (sy, _)) = (grid(ctx, "a"), grid(ctx, "b"), grid(ctx, "y"));
    binary_ints(ctx, |a, za, b, zb, zy, lo, hi| f(a, za, sa, b, zb, sb, sy, zy, lo, hi))
}

/// A binary op per element by `f(a, za, b, zb, zy, lo, hi)`, B broadcast
/// along A's leading and trailing dims.
fn binary_ints(ctx: &EvalCtx<'_>, f: impl Fn(i32, i32, i32, i32, i32, i32, i32) -> i32) -> Result<Vec<Tensor>, String> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let block = broadcast_block(&a.shape, &b.shape).ok_or_else(|| {
        format!("B {:?} must equal A {:?} or broadcast along A's leading and trailing dims", b.shape, a.shape)
    })?;
    let (av, bv) = (q8_values(a, "A")?, q8_values(b, "B")?);
    if a.data.dtype() != b.data.dtype() {
        return Err(format!("A is {}, B is {}: one 8-bit type expected", a.dtype(), b.dtype()));
    }
    let ((_, za), (_, zb), (_, zy)) = (grid(ctx, "a"), grid(ctx, "b"), grid(ctx, "y"));
    let (lo, hi) = range(a);
    let lo = (ctx.int("qmin", lo as i64) as i32).clamp(lo, hi);
    let y = av.iter().enumerate().map(|(i, &x)| f(x, za, bv[(i / block) % bv.len()], zb, zy, lo, hi));
    Ok(vec![Tensor::new(a.shape.clone(), q8_data(a, y))])
}

/// `quant.add`: `qadd` per element.
pub fn quant_add(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    binary(ctx, qadd)
}

/// `quant.sub`: `qsub` per element.
pub fn quant_sub(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    binary(ctx, qsub)
}

/// `quant.mul`: `qmul` per element, or with `rounding = "gemmlowp"`
/// TFLite's MUL (`edgec_numeric::fixed::mul_gemmlowp`).
pub fn quant_mul(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    use edgec_numeric::fixed::{mul_gemmlowp, mul_multiplier, Rounding};
    match Rounding::from_name(ctx.str("rounding", "single")) {
        Some(Rounding::Single) => binary(ctx, qmul),
        Some(Rounding::Gemmlowp) => {
            let ((sa, _), (sb, _), (sy, _)) = (grid(ctx, "a"), grid(ctx, "b"), grid(ctx, "y"));
            let mm = mul_multiplier(sa, sb, sy).ok_or("the multiplier a_scale·b_scale/y_scale is out of range")?;
            binary_ints(ctx, |a, za, b, zb, zy, lo, hi| mul_gemmlowp(a, za, b, zb, mm, zy, lo, hi))
        }
        _ => Err(format!("quant.mul takes rounding single or gemmlowp, not `{}`", ctx.str("rounding", ""))),
    }
}

/// `quant.global_avg_pool`: per `[n, c]` plane the sum of `x − zx` in i32
/// (exact below 2^23 elements per plane, where the fold stops; wrapping
/// past it), requantized at `mean_scale(sx, plane)`.
pub fn quant_global_avg_pool(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    if x.shape.len() < 3 {
        return Err(format!("X {:?} must have rank ≥ 3", x.shape));
    }
    let xv = q8_values(x, "X")?;
    let ((sx, zx), (sy, zy)) = (grid(ctx, "x"), grid(ctx, "y"));
    let (lo, hi) = range(x);
    let plane: usize = x.shape[2..].iter().product();
    let scale = mean_scale(sx, plane);
    let planes = x.shape[..2].iter().product::<usize>();
    let y = (0..planes).map(|p| {
        let acc: i32 = xv[p * plane..(p + 1) * plane].iter().fold(0i32, |s, &v| s.wrapping_add(v - zx));
        requantize_act(acc, scale, Activation::None, sy, zy, lo, hi)
    });
    let mut shape = x.shape.clone();
    shape[2..].iter_mut().for_each(|d| *d = 1);
    Ok(vec![Tensor::new(shape, q8_data(x, y))])
}

/// `quant.lut`: `table[x]`, i8 values offset by 128; with a `[C, 256]`
/// table, the row of each element's channel (X's axis 1).
pub fn quant_lut(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, t) = (ctx.input(0)?, ctx.input(1)?);
    let (xv, tv) = (q8_values(x, "X")?, q8_values(t, "Table")?);
    let channels = tv.len() / 256;
    let inner: usize = x.shape.get(2..).map_or(1, |d| d.iter().product());
    if !tv.len().is_multiple_of(256) || (channels > 1 && x.shape.get(1) != Some(&channels)) {
        return Err(format!("Table of shape {:?} for X of shape {:?}", t.shape, x.shape));
    }
    let bias = if matches!(x.data, Data::U8(_)) { 0 } else { 128 };
    let y = xv.iter().enumerate().map(|(i, &v)| tv[(i / inner.max(1)) % channels * 256 + (v + bias) as usize]);
    Ok(vec![Tensor::new(x.shape.clone(), q8_data(t, y))])
}
