//! ScatterElements and ScatterND: write `updates` into a copy of `data` at
//! indexed positions, in order, optionally combining with the old value
//! (`reduction` = add, mul, max or min; `none` overwrites, so with duplicate
//! indices the last update wins); and TensorScatter, which writes a block of
//! `update` into a copy of a cache per batch entry.

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{from_wide, int_operand, norm_index, numel, pick, ravel, to_wide, unravel};
use crate::interp::{Data, EvalCtx, Tensor};
use crate::types::DType;

type Out = Result<Vec<Tensor>, String>;

/// Apply updates: `targets[j] = (flat output position, flat update index)`, in order.
fn apply(data: &Tensor, updates: &Tensor, targets: &[(usize, usize)], reduction: &str) -> Result<Data, String> {
    if data.dtype() != updates.dtype() {
        return Err(format!("`updates` has element type {}, data has {}", updates.dtype(), data.dtype()));
    }
    if reduction == "none" {
        let mut picks: Vec<(usize, usize)> = (0..data.len()).map(|i| (0, i)).collect();
        for &(t, u) in targets {
            picks[t] = (1, u);
        }
        return pick(&[&data.data, &updates.data], &picks);
    }
    let mut out = to_wide(&data.data).map_err(|e| format!("reduction `{reduction}`: {e}"))?;
    let upd = to_wide(&updates.data)?;
    for &(t, u) in targets {
        out[t] = match reduction {
            "add" => out[t] + upd[u],
            "mul" => out[t] * upd[u],
            "max" => out[t].max(upd[u]),
            "min" => out[t].min(upd[u]),
            r => return Err(format!("unknown reduction `{r}`")),
        };
    }
    Ok(from_wide(data.dtype(), &out))
}

/// `onnx.ScatterElements`: `out[indices[i][j]][j] = updates[i][j]` (for axis 0).
pub fn scatter_elements(ctx: &EvalCtx<'_>) -> Out {
    let (data, ind, upd) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let ax = norm_axis(ctx.int("axis", 0), data.rank())?;
    let fits = ind.rank() == data.rank() && (0..ind.rank()).all(|k| k == ax || ind.shape[k] <= data.shape[k]);
    if !fits || ind.shape != upd.shape {
        return Err(format!(
            "`indices` {:?} and `updates` {:?} do not fit data {:?} (axis {ax})",
            ind.shape, upd.shape, data.shape
        ));
    }
    let st = data.strides();
    let mut targets = Vec::with_capacity(ind.len());
    for (i, &v) in int_operand(ind, "indices")?.iter().enumerate() {
        let mut idx = unravel(i, &ind.shape);
        idx[ax] = norm_index(v, data.shape[ax], "index")?;
        targets.push((ravel(&idx, &st), i));
    }
    let out = apply(data, upd, &targets, ctx.str("reduction", "none"))?;
    Ok(vec![Tensor::new(data.shape.clone(), out)])
}

/// `onnx.ScatterND`: each index tuple in the last indices dim addresses a slice
/// of data that the matching slice of `updates` is written to.
pub fn scatter_nd(ctx: &EvalCtx<'_>) -> Out {
    let (data, ind, upd) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let q = ind.rank();
    let k = *ind.shape.last().ok_or("`indices` must have rank >= 1")?;
    if k > data.rank() {
        return Err(format!("index tuples of length {k} are too long for data {:?}", data.shape));
    }
    let expect: Vec<usize> = ind.shape[..q - 1].iter().chain(&data.shape[k..]).copied().collect();
    if upd.shape != expect {
        return Err(format!("`updates` has shape {:?}, expected {expect:?}", upd.shape));
    }
    let vals = int_operand(ind, "indices")?;
    let st = data.strides();
    let slice = numel(&data.shape[k..]);
    let mut targets = Vec::with_capacity(upd.len());
    for row in 0..numel(&ind.shape[..q - 1]) {
        let mut base = 0;
        for (j, &v) in vals[row * k..(row + 1) * k].iter().enumerate() {
            base += norm_index(v, data.shape[j], "index")? * st[j];
        }
        targets.extend((0..slice).map(|e| (base + e, row * slice + e)));
    }
    let out = apply(data, upd, &targets, ctx.str("reduction", "none"))?;
    Ok(vec![Tensor::new(data.shape.clone(), out)])
}

/// The TensorScatter operands: `(axis, write_indices)` after checking that `update`
/// fits `past_cache` (same type and rank, same dims except on `axis`, not longer there).
fn scatter_params(ctx: &EvalCtx<'_>, past: &Tensor, update: &Tensor) -> Result<(usize, Vec<i64>), String> {
    if update.dtype() != past.dtype() {
        return Err(format!("`update` has element type {}, expected {}", update.dtype(), past.dtype()));
    }
    let ax = norm_axis(ctx.int("axis", -2), past.rank())?;
    if ax == 0 {
        return Err("attribute `axis` must not be the batch axis 0".into());
    }
    let fits = update.rank() == past.rank()
        && (0..past.rank()).all(|i| {
            if i == ax {
                update.shape[i] <= past.shape[i]
            } else {
                update.shape[i] == past.shape[i]
            }
        });
    if !fits {
        return Err(format!("`update` {:?} does not fit `past_cache` {:?} (axis {ax})", update.shape, past.shape));
    }
    let wi = match ctx.opt(2) {
        Some(t) if t.dtype() != DType::I64 => return Err(format!("`write_indices` is {}, expected i64", t.dtype())),
        Some(t) if t.shape != [past.shape[0]] => {
            return Err(format!("`write_indices` {:?} must have shape [{}]", t.shape, past.shape[0]))
        }
        Some(t) => int_operand(t, "write_indices")?,
        None => vec![0; past.shape[0]],
    };
    Ok((ax, wi))
}

/// `onnx.TensorScatter` (opset 24): a copy of `past_cache` with `update` written
/// along `axis` starting at `write_indices[b]` for each batch entry `b`; `circular`
/// wraps the positions modulo the axis size, `linear` requires them to fit.
pub fn tensor_scatter(ctx: &EvalCtx<'_>) -> Out {
    let (past, update) = (ctx.input(0)?, ctx.input(1)?);
    let (ax, wi) = scatter_params(ctx, past, update)?;
    let circular = match ctx.str("mode", "linear") {
        "linear" => false,
        "circular" => true,
        other => return Err(format!("attribute `mode` = \"{other}\" must be linear or circular")),
    };
    let (max_seq, seq) = (past.shape[ax], update.shape[ax]);
    let inner = numel(&past.shape[ax + 1..]);
    let per_batch = numel(&past.shape[1..ax]);
    let mut picks: Vec<(usize, usize)> = (0..past.len()).map(|i| (0, i)).collect();
    for p in 0..numel(&past.shape[..ax]) {
        let start = wi[p / per_batch.max(1)];
        for s in 0..seq {
            let mut pos = start + s as i64;
            if circular {
                pos = pos.rem_euclid(max_seq as i64);
            } else if pos < 0 || pos >= max_seq as i64 {
                return Err(format!("write position {pos} is outside the cache axis of size {max_seq} (mode linear)"));
            }
            for k in 0..inner {
                picks[(p * max_seq + pos as usize) * inner + k] = (1, (p * seq + s) * inner + k);
            }
        }
    }
    Ok(vec![Tensor::new(past.shape.clone(), pick(&[&past.data, &update.data], &picks)?)])
}
