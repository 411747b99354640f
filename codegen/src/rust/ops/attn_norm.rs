//! Attention-era ops and the normalizations around them: LayerNormalization
//! (with its `Mean`/`InvStdDev` results), RMSNormalization,
//! GroupNormalization, MeanVarianceNormalization, LpNormalization, LpPool,
//! and (in [`attention`]) `onnx.Attention`, `onnx.FlexAttention`,
//! `onnx.LinearAttention` and `onnx.RotaryEmbedding`.
//! All f32 only; shapes are checked here so a bad model is a compile error.

mod attention;

use super::layout::axis;
use super::{f32_lit, f32_only, Sz};
use crate::rust::emit::OpCx;
use ir::{DType, Opcode};

/// Lower one of this file's ops; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    match cx.op.opcode {
        LayerNormalization => layer_norm(cx)?,
        RMSNormalization => rms_norm(cx)?,
        GroupNormalization => group_norm(cx)?,
        MeanVarianceNormalization => mvn(cx)?,
        LpNormalization => lp_norm(cx)?,
        LpPool => lp_pool(cx)?,
        Attention => attention::attention(cx)?,
        FlexAttention => attention::flex(cx)?,
        LinearAttention => attention::linear(cx)?,
        RotaryEmbedding => attention::rotary(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fail unless every operand in `which` and every result is f32.
fn all_f32(cx: &OpCx<'_, '_>, which: &[usize]) -> Result<(), String> {
    f32_only(cx)?;
    let f = cx.func();
    let bad_in = which.iter().filter_map(|&i| cx.op.operand(i)).find(|&v| f.ty(v).dtype != DType::F32);
    let bad_out = cx.op.results.iter().copied().find(|&v| f.ty(v).dtype != DType::F32);
    if let Some(v) = bad_in.or(bad_out) {
        return Err(format!(
            "{} with a {} operand or result is not supported by the Rust backend (f32 only)",
            cx.op.opcode.name(),
            f.ty(v).dtype
        ));
    }
    Ok(())
}

/// The normalization axis (attribute `axis`, default -1) of a rank-`rank` input.
fn norm_axis(cx: &OpCx<'_, '_>, rank: usize) -> Result<usize, String> {
    axis(cx.op.attrs.int("axis").unwrap_or(-1), rank)
}

/// `epsilon` (default 1e-5) as a literal.
fn eps(cx: &OpCx<'_, '_>) -> String {
    f32_lit(cx.op.attrs.float("epsilon").unwrap_or(1e-5))
}

/// Check that parameter operand `i` repeats along the normalized rows
/// `row`: its dims, leading 1s dropped, are a suffix of `row` (what the
/// kernels' "repeat along the row" means under numpy broadcasting).
fn row_param(cx: &OpCx<'_, '_>, i: usize, row: &[Sz], what: &str) -> Result<(), String> {
    let d = cx.in_static(i);
    let lead = d.iter().take_while(|&&x| x == 1).count();
    let core = &d[lead..];
    // A symbolic row dim cannot be checked now; the kernel asserts the lengths.
    let fits = core.len() <= row.len()
        && row[row.len() - core.len()..].iter().zip(core).all(|(r, &c)| r.lit().is_none_or(|r| r == c));
    if !fits {
        return Err(format!(
            "{} {what} {d:?} is not supported: it must broadcast along the normalized dims {row:?} only",
            cx.op.opcode.name()
        ));
    }
    Ok(())
}

/// `prefix x, out)` into result 0.
fn unary(cx: &mut OpCx<'_, '_>, prefix: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{prefix}{x}, {out});"));
    Ok(())
}

/// LayerNormalization; `Mean` and `InvStdDev` recomputed by their own blocks.
fn layer_norm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2])?;
    let xs = cx.in_dims(0);
    let a = norm_axis(cx, xs.len())?;
    row_param(cx, 1, &xs[a..], "Scale")?;
    if cx.op.operand(2).is_some() {
        row_param(cx, 2, &xs[a..], "B")?;
    }
    let (shape, e) = (super::dims(&xs), eps(cx));
    let out = cx.begin(0);
    let (x, s) = (cx.input(0)?, cx.input(1)?);
    let b = match cx.op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    cx.line(format!("k::norm::layer_norm({shape}, {a}, {x}, {s}, {b}, {e}, {out});"));
    let rows = Sz::product(&xs[..a]);
    for (j, stat) in [(1, "Mean"), (2, "InvStdDev")] {
        if j >= cx.op.results.len() {
            break;
        }
        if Sz::product(&cx.out_dims(j)) != rows {
            return Err(format!("LayerNormalization {stat} {:?} does not hold one value per row", cx.out_dims(j)));
        }
        let out = cx.begin(j);
        let x = cx.input(0)?;
        cx.line(format!("k::norm::layer_norm_stat({shape}, {a}, {x}, {e}, k::norm::Stat::{stat}, {out});"));
    }
    Ok(())
}

/// RMSNormalization (`stash_type` only changes the accumulation type; the
/// kernel accumulates in f64).
fn rms_norm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1])?;
    let xs = cx.in_dims(0);
    let a = norm_axis(cx, xs.len())?;
    row_param(cx, 1, &xs[a..], "scale")?;
    let (shape, e) = (super::dims(&xs), eps(cx));
    let out = cx.begin(0);
    let (x, s) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::norm::rms_norm({shape}, {a}, {x}, {s}, {e}, {out});"));
    Ok(())
}

/// GroupNormalization (opset 21: per-channel `scale` and `bias`).
fn group_norm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2])?;
    let xs = cx.in_dims(0);
    let groups = cx.op.attrs.int("num_groups").ok_or("GroupNormalization needs attribute `num_groups`")?;
    let c = xs
        .get(1)
        .and_then(Sz::lit)
        .ok_or_else(|| format!("GroupNormalization input {xs:?} needs a static channel dim"))?;
    if groups < 1 || c % groups as usize != 0 {
        return Err(format!("GroupNormalization: {c} channels do not split into num_groups = {groups}"));
    }
    for (i, what) in [(1, "scale"), (2, "bias")] {
        if cx.in_static(i) != [c] {
            return Err(format!(
                "GroupNormalization {what} {:?} is not supported: it must be per channel [{c}] (opset 21)",
                cx.in_static(i)
            ));
        }
    }
    let (shape, e) = (super::dims(&xs), eps(cx));
    let out = cx.begin(0);
    let (x, s, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    cx.line(format!("k::norm::group_norm({shape}, {groups}, {x}, {s}, {b}, {e}, {out});"));
    Ok(())
}

/// MeanVarianceNormalization over `axes` (default `[0, 2, 3]`).
fn mvn(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0])?;
    let xs = cx.in_dims(0);
    let raw = cx.op.attrs.ints("axes").map_or_else(|| vec![0, 2, 3], <[i64]>::to_vec);
    let mut axes: Vec<usize> = raw.iter().map(|&a| axis(a, xs.len())).collect::<Result<_, _>>()?;
    axes.sort_unstable();
    axes.dedup();
    unary(cx, &format!("k::norm::mean_variance_normalization({}, &{axes:?}, ", super::dims(&xs)))
}

/// LpNormalization (`p` 1 or 2, default 2) along `axis` (default -1).
fn lp_norm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0])?;
    let xs = cx.in_dims(0);
    let a = norm_axis(cx, xs.len())?;
    let p = cx.op.attrs.int("p").unwrap_or(2);
    if p != 1 && p != 2 {
        return Err(format!("LpNormalization with p = {p} is not supported (p must be 1 or 2)"));
    }
    if xs.is_empty() {
        return Err("LpNormalization of a scalar is not supported".into());
    }
    unary(cx, &format!("k::norm::lp_normalization({}, {a}, {p}, ", super::dims(&xs)))
}

/// LpPool (`p ≥ 1`, default 2), through the N-D pooling kernel.
fn lp_pool(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0])?;
    let op = cx.op;
    let (xs, ys) = (cx.in_static(0), cx.out_static(0));
    let r = xs.len().checked_sub(2).filter(|&r| r >= 1).ok_or("LpPool input must have rank >= 3")?;
    let kernel = super::conv::ints(op, "kernel_shape", r, 1);
    let (stride, dil) = (super::conv::ints(op, "strides", r, 1), super::conv::ints(op, "dilations", r, 1));
    let lens = [kernel.len(), stride.len(), dil.len()];
    if lens.iter().any(|&l| l != r) || [&kernel, &stride, &dil].iter().any(|v| v.contains(&0)) {
        return Err(format!("LpPool kernel_shape/strides/dilations {kernel:?}/{stride:?}/{dil:?} do not fit {r} axes"));
    }
    let (sx, sy) = (super::Sz::lits(&xs[2..]), super::Sz::lits(&ys[2..]));
    let pads: Vec<usize> =
        super::conv::pads(cx, &sx, &sy, &kernel, &stride, &dil).iter().map(|p| p.lit().unwrap_or(0)).collect();
    let p = op.attrs.int("p").unwrap_or(2);
    if p < 1 {
        return Err(format!("LpPool with p = {p} is not supported (p must be at least 1)"));
    }
    let params = format!(
        "k::pool::PoolNd {{ n: {}, c: {}, spatial: vec!{:?}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads: vec!{pads:?}, dilation: vec!{dil:?}, out: vec!{:?} }}",
        xs[0], xs[1], &xs[2..], &ys[2..]
    );
    let f = cx.field("k::pool::PoolNd", params);
    unary(cx, &format!("k::pool::lp_pool_nd(&self.{f}, {p}, "))
}
