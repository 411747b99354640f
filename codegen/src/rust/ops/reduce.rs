//! Reductions over axes (`k::reduce`; on integers and bool the exact,
//! wrapping `k::reduce::exact`), ArgMax/ArgMin, and the cumulative
//! CumSum/CumProd (`k::reduce::cum`).
//!
//! The axes are attributes, constants, or read from their input when the
//! model runs (checked then: an error in a function that returns one, a
//! panic naming the op otherwise). The scans take every integer of 8 to 64
//! bits and f32/f64/f16/bf16.

use super::{axis, call_x_out, const_ints, dims, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a reduction, arg-reduction or scan; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    let op = cx.op;
    let xs = cx.in_dims(0);
    match op.opcode {
        CoreReduce | ReduceSum | ReduceMean | ReduceMax | ReduceMin | ReduceProd | ReduceL1 | ReduceL2
        | ReduceSumSquare | ReduceLogSumExp | ReduceLogSum => reduce(cx, &xs)?,
        ArgMax | ArgMin => {
            let a = axis(op.attrs.int("axis").unwrap_or(0), xs.len())?;
            let last = op.attrs.int("select_last_index").unwrap_or(0) != 0;
            let k = if op.opcode == ArgMax { "arg_max" } else { "arg_min" };
            call_x_out(cx, &format!("k::reduce::{k}({}, {a}, {last}, ", dims(&xs)))?;
        }
        CumSum => cum(cx, "Sum")?,
        CumProd => cum(cx, "Prod")?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn reduce(cx: &mut OpCx<'_, '_>, xs: &[Sz]) -> Result<(), String> {
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
    call_x_out(cx, &format!("k::reduce::reduce(k::reduce::Reduce::{k}, {}, &{axes:?}, ", dims(xs)))
}

/// A reduction whose `axes` operand is read when the model runs.
fn reduce_rt_axes(cx: &mut OpCx<'_, '_>, k: &str, xs: &[Sz], noop: bool) -> Result<(), String> {
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
            "k::reduce::exact::reduce_exact(k::reduce::exact::ExactReduce::{k}, {}, axes.as_slice(), {x}, {out});",
            dims(xs)
        ));
        return Ok(());
    }
    cx.line(format!("k::reduce::reduce(k::reduce::Reduce::{k}, {}, axes.as_slice(), {x}, {out});", dims(xs)));
    Ok(())
}

/// Fail unless an exact reduction `k` exists for this op's class and rank.
fn exact_check(cx: &OpCx<'_, '_>, k: &str, xs: &[Sz]) -> Result<(), String> {
    let c = cx.out_class(0);
    let ok = match k {
        "Max" | "Min" => c.is_int() || c == Class::Bool,
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
    if xs.len() > edgec_kernels::reduce::exact::EXACT_MAX_RANK {
        return Err(format!("{} of a rank-{} integer tensor is not supported", cx.op.opcode.name(), xs.len()));
    }
    Ok(())
}

/// A Max/Min (integers, bool) or Sum/Prod (integers) reduction, wrapping.
fn exact_reduce(cx: &mut OpCx<'_, '_>, k: &str, xs: &[Sz], axes: &str) -> Result<(), String> {
    exact_check(cx, k, xs)?;
    call_x_out(
        cx,
        &format!("k::reduce::exact::reduce_exact(k::reduce::exact::ExactReduce::{k}, {}, {axes}, ", dims(xs)),
    )
}

fn cum(cx: &mut OpCx<'_, '_>, fold: &str) -> Result<(), String> {
    let name = cx.op.opcode.name();
    if cx.out_class(0) == Class::Bool {
        return Err(format!("{name} on bool is not supported"));
    }
    if cx.in_const(1).is_none() {
        return cum_runtime(cx, fold);
    }
    let xs = cx.in_static(0);
    let ax = match const_ints(cx, 1)?.as_slice() {
        [a] => axis(*a, xs.len())?,
        other => return Err(format!("{name}: the axis must be one integer, got {other:?}")),
    };
    let flag = |k: &str| cx.op.attrs.int(k).unwrap_or(0) != 0;
    let (exclusive, reverse) = (flag("exclusive"), flag("reverse"));
    let (outer, inner): (usize, usize) = (xs[..ax].iter().product(), xs[ax + 1..].iter().product());
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!(
        "k::reduce::cum::cum(&k::reduce::cum::Cum {{ fold: k::reduce::cum::Fold::{fold}, outer: {outer}, n: {}, inner: {inner}, exclusive: {exclusive}, reverse: {reverse} }}, {x}, {out});",
        xs[ax]
    ));
    Ok(())
}

/// CumSum/CumProd whose axis is an input: read (and checked) when the
/// model runs; the scan geometry follows from it.
fn cum_runtime(cx: &mut OpCx<'_, '_>, fold: &str) -> Result<(), String> {
    let name = cx.op.opcode.name();
    if !matches!(cx.in_class(1), Some(Class::I64 | Class::I32)) {
        return Err(format!("{name}: the axis must be i64 or i32"));
    }
    let xs = cx.in_dims(0);
    let flag = |k: &str| cx.op.attrs.int(k).unwrap_or(0) != 0;
    let (exclusive, reverse) = (flag("exclusive"), flag("reverse"));
    let out = cx.begin(0);
    let (x, a) = (cx.input(0)?, cx.input(1)?);
    let what = format!("{name} [{}]", cx.base_name());
    let ax = super::try_expr(
        cx,
        format!("k::shape::axis({what:?}, {a}.first().map_or(i64::MAX, |&v| v as i64), {})", xs.len()),
    );
    cx.line(format!("let ax = {ax};"));
    cx.line(format!(
        "k::reduce::cum::cum(&k::reduce::cum::Cum::along(k::reduce::cum::Fold::{fold}, {}, ax, {exclusive}, {reverse}), {x}, {out});",
        dims(&xs)
    ));
    Ok(())
}
