//! Normalizations and the softmaxes: Softmax, LogSoftmax (on f64 through
//! `k::norm::wide`: models computed in double precision keep it), Hardmax,
//! BatchNormalization (inference), InstanceNormalization, LRN,
//! LayerNormalization (with its `Mean`/`InvStdDev` results),
//! RMSNormalization, GroupNormalization, MeanVarianceNormalization and
//! LpNormalization (the `k::norm` kernels). Apart from the f64 softmaxes,
//! all f32 only; shapes are checked here so a bad model is a compile error.

use super::{all_f32, axis, call_x_out, dims, f32_lit, f32_only, Sz};
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a normalization or softmax; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    let op = cx.op;
    if matches!(op.opcode, Softmax | LogSoftmax) && super::f64_op(cx) {
        wide_softmax(cx)?;
        return Ok(true);
    }
    let xs = cx.in_dims(0);
    if matches!(op.opcode, Softmax | LogSoftmax | Hardmax | BatchNormalization | InstanceNormalization | LRN) {
        f32_only(cx)?;
    }
    match op.opcode {
        Softmax | LogSoftmax | Hardmax => {
            let a = axis(op.attrs.int("axis").unwrap_or(-1), xs.len())?;
            let k = match op.opcode {
                Softmax => "softmax",
                LogSoftmax => "log_softmax",
                _ => "hardmax",
            };
            call_x_out(cx, &format!("k::norm::{k}({}, {a}, ", dims(&xs)))?;
        }
        BatchNormalization => {
            only_first_result(cx)?;
            if op.attrs.int("training_mode").unwrap_or(0) != 0 {
                return Err("BatchNormalization in training mode is not supported".into());
            }
            let out = cx.begin(0);
            let args: Vec<String> = (0..5).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
            cx.line(format!(
                "k::norm::batch_norm({}, {}, {}, {}, {}, {}, {}, {out});",
                dims(&xs),
                args[0],
                args[1],
                args[2],
                args[3],
                args[4],
                eps(cx)
            ));
        }
        InstanceNormalization => {
            let out = cx.begin(0);
            let (x, s, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
            cx.line(format!("k::norm::instance_norm({}, {x}, {s}, {b}, {}, {out});", dims(&xs), eps(cx)));
        }
        LRN => {
            let size = op.attrs.int("size").unwrap_or(1);
            let (a, b, k) = (
                f32_lit(op.attrs.float("alpha").unwrap_or(1e-4)),
                f32_lit(op.attrs.float("beta").unwrap_or(0.75)),
                f32_lit(op.attrs.float("bias").unwrap_or(1.0)),
            );
            call_x_out(cx, &format!("k::norm::lrn({}, {size}, {a}, {b}, {k}, ", dims(&xs)))?;
        }
        LayerNormalization => layer_norm(cx)?,
        RMSNormalization => rms_norm(cx)?,
        GroupNormalization => group_norm(cx)?,
        MeanVarianceNormalization => mvn(cx)?,
        LpNormalization => lp_norm(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn only_first_result(cx: &OpCx<'_, '_>) -> Result<(), String> {
    let uses = cx.func().use_counts();
    if cx.op.results[1..].iter().any(|r| uses[r.as_u32() as usize] > 0) {
        return Err("only the first result is supported".into());
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

/// LayerNormalization; `Mean` and `InvStdDev` recomputed by their own blocks.
fn layer_norm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2])?;
    let xs = cx.in_dims(0);
    let a = norm_axis(cx, xs.len())?;
    row_param(cx, 1, &xs[a..], "Scale")?;
    if cx.op.operand(2).is_some() {
        row_param(cx, 2, &xs[a..], "B")?;
    }
    let (shape, e) = (dims(&xs), eps(cx));
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
    let (shape, e) = (dims(&xs), eps(cx));
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
    let (shape, e) = (dims(&xs), eps(cx));
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
    call_x_out(cx, &format!("k::norm::mean_variance_normalization({}, &{axes:?}, ", dims(&xs)))
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
    call_x_out(cx, &format!("k::norm::lp_normalization({}, {a}, {p}, ", dims(&xs)))
}

fn wide_softmax(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_dims(0);
    let a = axis(cx.op.attrs.int("axis").unwrap_or(-1), xs.len())?;
    let (outer, inner) = (Sz::product(&xs[..a]), Sz::product(&xs[a + 1..]));
    let n = xs.get(a).cloned().unwrap_or(Sz::Lit(1));
    let log = cx.op.opcode == Opcode::LogSoftmax;
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::norm::wide::softmax({outer}, {n}, {inner}, {log}, {x}, {out});"));
    Ok(())
}
