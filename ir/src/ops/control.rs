//! Control flow: `If`, `Loop`, `Scan`. Their result types come from their
//! regions' parameter and yield types.
//!
//! `core.bucket_dispatch` (run one static specialization of a function per
//! size bucket) is in [`dispatch`].

use super::{InferCtx, InferResult, RegionTypes};
use crate::types::{DType, Dim, Shape, TensorType};

pub mod dispatch;

/// Placeholder for ops whose inference needs their regions (`infer_regions`).
pub fn needs_regions(_ctx: &InferCtx<'_>) -> InferResult {
    Err("result types are inferred from the op's regions".into())
}

/// The most precise type both `a` and `b` satisfy: equal dims kept, others unknown.
pub fn join_types(a: &TensorType, b: &TensorType) -> Result<TensorType, String> {
    if a.dtype != b.dtype {
        return Err(format!("element types differ: {} vs {}", a.dtype, b.dtype));
    }
    let shape = match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => {
            Shape::from_dims(x.iter().zip(y).map(|(p, q)| if p == q { *p } else { Dim::Unknown }))
        }
        _ => Shape::Unranked,
    };
    Ok(TensorType::new(a.dtype, shape))
}

fn scalar_of(t: Option<&TensorType>, dt: DType, what: &str) -> Result<(), String> {
    match t {
        Some(t) if t.dtype != dt => Err(format!("`{what}` has element type {}, expected {dt}", t.dtype)),
        Some(t) if t.shape.num_elements().is_some_and(|n| n != 1) => {
            Err(format!("`{what}` must hold one element, found shape {}", t.shape))
        }
        _ => Ok(()),
    }
}

/// `If`: both branches yield the same number of values; results join their types.
pub fn if_(ctx: &InferCtx<'_>, regions: &[RegionTypes]) -> InferResult {
    scalar_of(ctx.opt_input(0), DType::Bool, "cond")?;
    let [then, els] = regions else { return Err("If needs two regions".into()) };
    if then.results.len() != els.results.len() {
        return Err(format!("branches yield {} and {} values", then.results.len(), els.results.len()));
    }
    then.results
        .iter()
        .zip(&els.results)
        .enumerate()
        .map(|(i, (a, b))| join_types(a, b).map_err(|e| format!("output #{i}: {e}")))
        .collect()
}

/// `Loop`: body params `(iter: i64, cond: bool, carried...)`, yields
/// `(cond, carried..., scan outputs...)`; results are the final carried values
/// and the scan outputs stacked along a new leading axis.
pub fn loop_(ctx: &InferCtx<'_>, regions: &[RegionTypes]) -> InferResult {
    scalar_of(ctx.opt_input(0), DType::I64, "M")?;
    scalar_of(ctx.opt_input(1), DType::Bool, "cond")?;
    let [body] = regions else { return Err("Loop needs one region".into()) };
    let n = ctx.num_operands().saturating_sub(2);
    if body.params.len() != n + 2 {
        return Err(format!("body takes {} parameters, expected 2 + {n} loop-carried", body.params.len()));
    }
    if body.results.len() < n + 1 {
        return Err(format!("body yields {} values, expected at least 1 + {n}", body.results.len()));
    }
    scalar_of(body.results.first(), DType::Bool, "body condition output")?;
    let mut out = Vec::new();
    for i in 0..n {
        let init = ctx.input(i + 2)?;
        out.push(join_types(init, &body.results[i + 1]).map_err(|e| format!("loop-carried #{i}: {e}"))?);
    }
    for t in &body.results[n + 1..] {
        out.push(stacked(t, 0, Dim::Unknown));
    }
    check_count(ctx, out)
}

/// `t` with a new axis of unknown length inserted at `axis`.
fn stacked(t: &TensorType, axis: usize, len: Dim) -> TensorType {
    match t.dims() {
        Some(d) if axis <= d.len() => {
            let mut dims = d.to_vec();
            dims.insert(axis, len);
            TensorType::new(t.dtype, Shape::from_dims(dims))
        }
        _ => TensorType::unranked(t.dtype),
    }
}

fn check_count(ctx: &InferCtx<'_>, out: Vec<TensorType>) -> InferResult {
    if out.len() != ctx.num_results {
        return Err(format!("op declares {} results, its body gives {}", ctx.num_results, out.len()));
    }
    Ok(out)
}

/// `Scan`: operands are N states then M scan inputs; the body sees the states
/// and one slice of each scan input, yields new states and K slices of scan
/// outputs, which are stacked along `scan_output_axes`.
pub fn scan(ctx: &InferCtx<'_>, regions: &[RegionTypes]) -> InferResult {
    let [body] = regions else { return Err("Scan needs one region".into()) };
    let m = ctx.int("num_scan_inputs", 0);
    let total = ctx.num_operands();
    if m < 1 || m as usize > total {
        return Err(format!("num_scan_inputs = {m} does not fit {total} operands"));
    }
    let n = total - m as usize;
    if body.params.len() != total {
        return Err(format!("body takes {} parameters, expected {total}", body.params.len()));
    }
    if body.results.len() < n {
        return Err(format!("body yields {} values, expected at least {n} states", body.results.len()));
    }
    let mut out = Vec::new();
    for i in 0..n {
        out.push(join_types(ctx.input(i)?, &body.results[i]).map_err(|e| format!("state #{i}: {e}"))?);
    }
    // Every scan input has the same length along its scan axis: the trip count.
    let in_axis = ctx.attrs.ints("scan_input_axes").and_then(|a| a.first().copied()).unwrap_or(0);
    let first = ctx.input(n)?;
    let len = first.dims().map_or(Dim::Unknown, |d| {
        let a = if in_axis < 0 { in_axis + d.len() as i64 } else { in_axis };
        usize::try_from(a).ok().and_then(|a| d.get(a).copied()).unwrap_or(Dim::Unknown)
    });
    let axes = ctx.attrs.ints("scan_output_axes").unwrap_or(&[]);
    for (k, t) in body.results[n..].iter().enumerate() {
        let rank = t.rank().unwrap_or(0) as i64 + 1;
        let ax = axes.get(k).copied().unwrap_or(0);
        let ax = if ax < 0 { ax + rank } else { ax };
        if !(0..rank).contains(&ax) {
            return Err(format!("scan_output_axes[{k}] = {ax} is out of range for rank {rank}"));
        }
        out.push(stacked(t, ax as usize, len));
    }
    check_count(ctx, out)
}
