//! Normalizations, softmax, reductions and Resize (LayerNormalization and
//! the newer normalizations are in `attn_norm`).

use super::layout::{axis, const_ints};
use super::{dims, f32_lit};
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a normalization, reduction or resize; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    let op = cx.op;
    let xs = cx.in_dims(0);
    let eps = |d: f32| f32_lit(op.attrs.float("epsilon").unwrap_or(d));
    if matches!(
        op.opcode,
        Softmax | LogSoftmax | Hardmax | LayerNormalization | BatchNormalization | InstanceNormalization | LRN
    ) {
        super::f32_only(cx)?;
    }
    match op.opcode {
        Softmax | LogSoftmax | Hardmax => {
            let a = axis(op.attrs.int("axis").unwrap_or(-1), xs.len())?;
            let k = match op.opcode {
                Softmax => "softmax",
                LogSoftmax => "log_softmax",
                _ => "hardmax",
            };
            unary(cx, &format!("k::norm::{k}({}, {a}, ", dims(&xs)))?;
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
                eps(1e-5)
            ));
        }
        InstanceNormalization => {
            let out = cx.begin(0);
            let (x, s, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
            cx.line(format!("k::norm::instance_norm({}, {x}, {s}, {b}, {}, {out});", dims(&xs), eps(1e-5)));
        }
        LRN => {
            let size = op.attrs.int("size").unwrap_or(1);
            let (a, b, k) = (
                f32_lit(op.attrs.float("alpha").unwrap_or(1e-4)),
                f32_lit(op.attrs.float("beta").unwrap_or(0.75)),
                f32_lit(op.attrs.float("bias").unwrap_or(1.0)),
            );
            unary(cx, &format!("k::norm::lrn({}, {size}, {a}, {b}, {k}, ", dims(&xs)))?;
        }
        CoreReduce | ReduceSum | ReduceMean | ReduceMax | ReduceMin | ReduceProd | ReduceL1 | ReduceL2
        | ReduceSumSquare | ReduceLogSumExp | ReduceLogSum => reduce(cx, &xs)?,
        ArgMax | ArgMin => {
            let a = axis(op.attrs.int("axis").unwrap_or(0), xs.len())?;
            let last = op.attrs.int("select_last_index").unwrap_or(0) != 0;
            let k = if op.opcode == ArgMax { "arg_max" } else { "arg_min" };
            unary(cx, &format!("k::reduce::{k}({}, {a}, {last}, ", dims(&xs)))?;
        }
        Resize | Upsample => {
            let xs: Vec<usize> = xs.iter().map(|d| d.lit().unwrap_or(0)).collect();
            super::resize::resize(cx, &xs)?
        }
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

/// `prefix x, out)`.
fn unary(cx: &mut OpCx<'_, '_>, prefix: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{prefix}{x}, {out});"));
    Ok(())
}

fn reduce(cx: &mut OpCx<'_, '_>, xs: &[super::Sz]) -> Result<(), String> {
    let op = cx.op;
    let kind = match op.opcode {
        Opcode::CoreReduce => op.attrs.str("kind").unwrap_or("sum").to_string(),
        o => o.name().trim_start_matches("onnx.Reduce").to_lowercase(),
    };
    let k = match kind.as_str() {
        "sum" => "Sum",
        "mean" => "Mean",
        "max" => "Max",
        "min" => "Min",
        "prod" => "Prod",
        "l1" => "L1",
        "l2" => "L2",
        "sumsquare" | "sum_square" => "SumSquare",
        "logsum" | "log_sum" => "LogSum",
        "logsumexp" | "log_sum_exp" => "LogSumExp",
        other => return Err(format!("reduction `{other}` is not supported")),
    };
    let noop = op.attrs.int("noop_with_empty_axes").unwrap_or(0) != 0;
    let axes: Vec<usize> = if op.opcode == Opcode::CoreReduce {
        op.attrs.ints("axes").unwrap_or(&[]).iter().map(|&a| a as usize).collect()
    } else if op.operand(1).is_some() && cx.in_const(1).is_none() {
        return reduce_rt_axes(cx, k, xs, noop);
    } else if op.operand(1).is_some() {
        let mut a: Vec<usize> = const_ints(cx, 1)?.iter().map(|&a| axis(a, xs.len())).collect::<Result<_, _>>()?;
        a.sort_unstable();
        a.dedup();
        a
    } else if noop {
        vec![]
    } else {
        (0..xs.len()).collect()
    };
    if cx.in_class(0) != Some(cx.out_class(0)) {
        return Err("reductions whose result type differs from the input's are not supported".into());
    }
    if !cx.out_class(0).is_float() {
        return exact_reduce(cx, k, xs, &format!("&{axes:?}"));
    }
    unary(cx, &format!("k::reduce::reduce(k::reduce::Reduce::{k}, {}, &{axes:?}, ", dims(xs)))
}

/// A reduction whose `axes` operand is read when the model runs.
fn reduce_rt_axes(cx: &mut OpCx<'_, '_>, k: &str, xs: &[super::Sz], noop: bool) -> Result<(), String> {
    if cx.in_class(0) != Some(cx.out_class(0)) {
        return Err("reductions whose result type differs from the input's are not supported".into());
    }
    let out = cx.begin(0);
    let a = cx.input(1)?;
    let what = format!("{} {}", cx.op.opcode.name(), cx.op.loc);
    let axes = super::try_expr(cx, format!("k::shape::Axes::new({what:?}, {a}, {}, {noop})", xs.len()));
    cx.line(format!("let axes = {axes};"));
    let x = cx.input(0)?;
    if !cx.out_class(0).is_float() {
        exact_check(cx, k, xs)?;
        cx.line(format!(
            "k::reduce_exact::reduce_exact(k::reduce_exact::ExactReduce::{k}, {}, axes.as_slice(), {x}, {out});",
            dims(xs)
        ));
        return Ok(());
    }
    cx.line(format!("k::reduce::reduce(k::reduce::Reduce::{k}, {}, axes.as_slice(), {x}, {out});", dims(xs)));
    Ok(())
}

/// Fail unless an exact reduction `k` exists for this op's class and rank.
fn exact_check(cx: &OpCx<'_, '_>, k: &str, xs: &[super::Sz]) -> Result<(), String> {
    let c = cx.out_class(0);
    let ok = match k {
        "Max" | "Min" => c.is_int() || c == crate::plan::Class::Bool,
        "Sum" | "Prod" => c.is_int(),
        _ => false,
    };
    if !ok {
        return Err(format!(
            "{} on {} is not supported (integers: max, min, sum, prod; bool: max, min)",
            cx.op.opcode.name(),
            c.name()
        ));
    }
    if xs.len() > edgec_kernels::reduce_exact::EXACT_MAX_RANK {
        return Err(format!("{} of a rank-{} integer tensor is not supported", cx.op.opcode.name(), xs.len()));
    }
    Ok(())
}

/// A Max/Min (integers, bool) or Sum/Prod (integers) reduction, wrapping.
fn exact_reduce(cx: &mut OpCx<'_, '_>, k: &str, xs: &[super::Sz], axes: &str) -> Result<(), String> {
    exact_check(cx, k, xs)?;
    unary(cx, &format!("k::reduce_exact::reduce_exact(k::reduce_exact::ExactReduce::{k}, {}, {axes}, ", dims(xs)))
}
