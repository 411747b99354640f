//! Kernels that scan one axis: ArgMax, ArgMin, CumSum and CumProd.

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{from_wide, numel, scalar_int, to_wide, Wide};
use crate::interp::{Data, EvalCtx, Tensor};
use std::cmp::Ordering;

type Out = Result<Vec<Tensor>, String>;

/// Shared ArgMax/ArgMin driver: `wins(candidate, best)` says whether a value
/// replaces the current best. NaN always wins (numpy's rule).
fn arg_reduce(ctx: &EvalCtx<'_>, better: Ordering) -> Out {
    let data = ctx.input(0)?;
    let vals = to_wide(&data.data).map_err(|e| format!("cannot compare {} data: {e}", data.dtype()))?;
    let ax = norm_axis(ctx.int("axis", 0), data.rank())?;
    let n = data.shape[ax];
    if n == 0 {
        return Err(format!("cannot take the arg-extremum of an empty axis {ax} ({:?})", data.shape));
    }
    let last = ctx.int("select_last_index", 0) != 0;
    let (outer, inner) = (numel(&data.shape[..ax]), numel(&data.shape[ax + 1..]));
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| vals[(o * n + j) * inner + i];
            let mut best = 0;
            for j in 1..n {
                let (v, b) = (at(j), at(best));
                let wins = match (v.is_nan(), b.is_nan()) {
                    (true, true) => last,
                    (false, true) => false,
                    (true, false) => true,
                    _ => v.cmp_total(b) == better || (last && v.cmp_total(b).is_eq()),
                };
                if wins {
                    best = j;
                }
            }
            out.push(best as i64);
        }
    }
    let mut shape = data.shape.clone();
    if ctx.int("keepdims", 1) != 0 {
        shape[ax] = 1;
    } else {
        shape.remove(ax);
    }
    Ok(vec![Tensor::new(shape, Data::I64(out))])
}

/// `onnx.ArgMax`: index of the first (or last, with `select_last_index`) maximum along `axis`.
pub fn arg_max(ctx: &EvalCtx<'_>) -> Out {
    arg_reduce(ctx, Ordering::Greater)
}

/// `onnx.ArgMin`: index of the first (or last, with `select_last_index`) minimum along `axis`.
pub fn arg_min(ctx: &EvalCtx<'_>) -> Out {
    arg_reduce(ctx, Ordering::Less)
}

/// `onnx.CumSum`: running sums along the `axis` operand; `exclusive` leaves out
/// the current element, `reverse` sums from the end. Floats accumulate in f64
/// and each output is rounded once; integers wrap.
pub fn cum_sum(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let dt = x.dtype();
    let vals = to_wide(&x.data).map_err(|e| format!("cannot sum {dt} data: {e}"))?;
    let ax = norm_axis(scalar_int(ctx.input(1)?, "axis")?, x.rank())?;
    let (exclusive, reverse) = (ctx.int("exclusive", 0) != 0, ctx.int("reverse", 0) != 0);
    let n = x.shape[ax];
    let (outer, inner) = (numel(&x.shape[..ax]), numel(&x.shape[ax + 1..]));
    let mut out = vec![Wide::zero(dt); vals.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = Wide::zero(dt);
            for step in 0..n {
                let j = if reverse { n - 1 - step } else { step };
                let f = (o * n + j) * inner + i;
                if exclusive {
                    out[f] = acc;
                    acc = acc + vals[f];
                } else {
                    acc = acc + vals[f];
                    out[f] = acc;
                }
            }
        }
    }
    Ok(vec![Tensor::new(x.shape.clone(), from_wide(dt, &out))])
}

/// `onnx.CumProd`: running products along the `axis` operand; `exclusive` leaves
/// out the current element (the first output is 1), `reverse` multiplies from the
/// end. Floats accumulate in f64 and each output is rounded once; integers wrap.
pub fn cum_prod(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let dt = x.dtype();
    if !dt.is_numeric() {
        return Err(format!("element type {dt} is not supported by CumProd (expected a numeric type)"));
    }
    let vals = to_wide(&x.data).map_err(|e| format!("cannot multiply {dt} data: {e}"))?;
    let ax = norm_axis(scalar_int(ctx.input(1)?, "axis")?, x.rank())?;
    let (exclusive, reverse) = (ctx.int("exclusive", 0) != 0, ctx.int("reverse", 0) != 0);
    let n = x.shape[ax];
    let (outer, inner) = (numel(&x.shape[..ax]), numel(&x.shape[ax + 1..]));
    let mut out = vec![Wide::one(dt); vals.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = Wide::one(dt);
            for step in 0..n {
                let j = if reverse { n - 1 - step } else { step };
                let f = (o * n + j) * inner + i;
                if exclusive {
                    out[f] = acc;
                    acc = acc * vals[f];
                } else {
                    acc = acc * vals[f];
                    out[f] = acc;
                }
            }
        }
    }
    Ok(vec![Tensor::new(x.shape.clone(), from_wide(dt, &out))])
}
