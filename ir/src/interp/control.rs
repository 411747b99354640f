//! Reference kernels: control family (`If`, `Loop`, `Scan` here, which run
//! the op's regions, and `core.bucket_dispatch` in [`dispatch`], which runs a
//! module function).

pub mod dispatch;

pub use dispatch::bucket_dispatch;

use super::broadcast::norm_axis;
use super::{Data, EvalCtx, Tensor};

type R = Result<Vec<Tensor>, String>;

fn truthy(t: &Tensor, what: &str) -> Result<bool, String> {
    if t.len() != 1 {
        return Err(format!("`{what}` must hold one element, found shape {:?}", t.shape));
    }
    Ok(t.data.get_f64(0) != 0.0)
}

/// `If`: run the `then` or `else` region.
pub fn if_(ctx: &EvalCtx<'_>) -> R {
    let branch = if truthy(ctx.input(0)?, "cond")? { 0 } else { 1 };
    ctx.regions.borrow_mut().run_region(branch, vec![])
}

/// `Loop`: iterate while `iter < M` and `cond` holds.
pub fn loop_(ctx: &EvalCtx<'_>) -> R {
    let max = ctx.opt(0).map(|t| t.data.get_i64(0));
    let mut cond = match ctx.opt(1) {
        Some(t) => truthy(t, "cond")?,
        None => true,
    };
    let mut carried: Vec<Tensor> =
        ctx.inputs[2..].iter().map(|t| t.cloned().ok_or("missing loop-carried value")).collect::<Result<_, _>>()?;
    let n = carried.len();
    let mut scans: Vec<Vec<Tensor>> = Vec::new();
    let mut i: i64 = 0;
    while cond && max.is_none_or(|m| i < m) {
        let mut params = vec![Tensor::new(vec![], Data::I64(vec![i])), Tensor::new(vec![], Data::Bool(vec![cond]))];
        params.extend(carried.iter().cloned());
        let out = ctx.regions.borrow_mut().run_region(0, params)?;
        if out.len() < n + 1 {
            return Err(format!("loop body yielded {} values, expected at least {}", out.len(), n + 1));
        }
        cond = truthy(&out[0], "body condition")?;
        carried = out[1..=n].to_vec();
        scans.resize(out.len() - n - 1, Vec::new());
        for (k, t) in out[n + 1..].iter().enumerate() {
            scans[k].push(t.clone());
        }
        i += 1;
    }
    let k_total = ctx.num_results() - n;
    let mut results = carried;
    for k in 0..k_total {
        let parts = scans.get(k).cloned().unwrap_or_default();
        results.push(stack(&parts, 0, &ctx.result_types[n + k])?);
    }
    Ok(results)
}

/// Stack equally shaped tensors along a new axis `axis`. An empty list gives a
/// zero-length axis with the other dims taken from the declared type (0 if unknown).
pub fn stack(parts: &[Tensor], axis: usize, declared: &crate::types::TensorType) -> Result<Tensor, String> {
    let Some(first) = parts.first() else {
        let mut shape: Vec<usize> = declared
            .dims()
            .map(|d| d.iter().map(|x| x.as_static().unwrap_or(0) as usize).collect())
            .unwrap_or_default();
        if shape.is_empty() {
            shape.push(0);
        }
        let last = shape.len() - 1;
        shape[axis.min(last)] = 0;
        return Ok(Tensor::zeros(declared.dtype, shape));
    };
    if let Some(p) = parts.iter().find(|p| p.shape != first.shape || p.dtype() != first.dtype()) {
        return Err(format!("scan outputs differ across iterations: {:?} vs {:?}", first.shape, p.shape));
    }
    let outer: usize = first.shape[..axis].iter().product();
    let inner: usize = first.shape[axis..].iter().product();
    let mut idx = Vec::with_capacity(outer * inner * parts.len());
    // Concatenate all parts' data, then gather in stacked order.
    let all: Vec<&Data> = parts.iter().map(|p| &p.data).collect();
    for o in 0..outer {
        for pi in 0..parts.len() {
            for e in 0..inner {
                idx.push(pi * first.len() + o * inner + e);
            }
        }
    }
    let data = Data::concat(&all)?.gather(&idx);
    let mut shape = first.shape.clone();
    shape.insert(axis, parts.len());
    Ok(Tensor::new(shape, data))
}

/// Slice index `i` of `t` along `axis`, dropping that axis.
pub fn take(t: &Tensor, axis: usize, i: usize) -> Tensor {
    let outer: usize = t.shape[..axis].iter().product();
    let len = t.shape[axis];
    let inner: usize = t.shape[axis + 1..].iter().product();
    let idx: Vec<usize> = (0..outer).flat_map(|o| (0..inner).map(move |e| (o * len + i) * inner + e)).collect();
    let mut shape = t.shape.clone();
    shape.remove(axis);
    Tensor::new(shape, t.data.gather(&idx))
}

/// `Scan`: N states, M scan inputs sliced along their axes, K stacked outputs.
pub fn scan(ctx: &EvalCtx<'_>) -> R {
    let m = ctx.int("num_scan_inputs", 0) as usize;
    let inputs: Vec<&Tensor> = ctx.inputs.iter().map(|t| t.ok_or("missing Scan operand")).collect::<Result<_, _>>()?;
    let n = inputs.len().checked_sub(m).ok_or("num_scan_inputs exceeds the operands")?;
    let in_axes = ctx.attrs.ints("scan_input_axes").unwrap_or(&[]);
    let in_dirs = ctx.attrs.ints("scan_input_directions").unwrap_or(&[]);
    let mut axes = Vec::new();
    let mut seq_len = None;
    for j in 0..m {
        let t = inputs[n + j];
        let ax = norm_axis(in_axes.get(j).copied().unwrap_or(0), t.rank())?;
        let len = t.shape[ax];
        if seq_len.is_some_and(|s| s != len) {
            return Err(format!("scan input #{j} has length {len} along its axis, others {}", seq_len.unwrap_or(0)));
        }
        seq_len = Some(len);
        axes.push(ax);
    }
    let seq_len = seq_len.unwrap_or(0);
    let mut states: Vec<Tensor> = inputs[..n].iter().map(|t| (*t).clone()).collect();
    let k = ctx.num_results() - n;
    let mut outs: Vec<Vec<Tensor>> = vec![Vec::new(); k];
    for step in 0..seq_len {
        let mut params = states.clone();
        for j in 0..m {
            let i = if in_dirs.get(j).copied().unwrap_or(0) == 1 { seq_len - 1 - step } else { step };
            params.push(take(inputs[n + j], axes[j], i));
        }
        let out = ctx.regions.borrow_mut().run_region(0, params)?;
        if out.len() != n + k {
            return Err(format!("scan body yielded {} values, expected {}", out.len(), n + k));
        }
        states = out[..n].to_vec();
        for (kk, t) in out[n..].iter().enumerate() {
            outs[kk].push(t.clone());
        }
    }
    let out_axes = ctx.attrs.ints("scan_output_axes").unwrap_or(&[]);
    let out_dirs = ctx.attrs.ints("scan_output_directions").unwrap_or(&[]);
    let mut results = states;
    for (kk, mut parts) in outs.into_iter().enumerate() {
        if out_dirs.get(kk).copied().unwrap_or(0) == 1 {
            parts.reverse();
        }
        let declared = &ctx.result_types[n + kk];
        let rank = parts.first().map_or(declared.rank().unwrap_or(1).saturating_sub(1), |p| p.rank()) + 1;
        let ax = norm_axis(out_axes.get(kk).copied().unwrap_or(0), rank)?;
        results.push(stack(&parts, ax, declared)?);
    }
    Ok(results)
}
