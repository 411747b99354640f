//! Slice, Pad, Tile and Expand: ops whose output dims are input dims adjusted
//! by constant per-axis amounts.

use crate::ops::elementwise::broadcast_shapes;
use crate::ops::{int_list, norm_axes, unknown_dims, InferCtx, InferResult, IntList, I32_I64, I64_ONLY};
use crate::types::{Dim, Shape, TensorType};

/// Slice `end` values at least this large mean "to the end" for a symbolic dim.
const TO_END: i64 = i32::MAX as i64;

/// The sliced size of one dim, keeping a symbolic dim when the slice covers it fully.
fn slice_dim(dim: Dim, start: i64, end: i64, step: i64) -> Result<Dim, String> {
    if step == 0 {
        return Err("`steps` must not contain 0".into());
    }
    let forward_full = step == 1 && (start == 0 || start <= -TO_END) && end >= TO_END;
    let backward_full = step == -1 && (start == -1 || start >= TO_END) && end <= -TO_END;
    Ok(match dim {
        Dim::Static(n) => Dim::Static(edgec_numeric::slice::slice_range(n, start, end, step).1),
        _ if forward_full || backward_full => dim,
        _ => Dim::Unknown,
    })
}

/// Slice: per-axis strided ranges from the `starts`/`ends`/`axes`/`steps` operands.
pub fn slice(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let starts = int_list(ctx, 1, "starts", I32_I64)?.ok_or("missing operand `starts`")?;
    let ends = int_list(ctx, 2, "ends", I32_I64)?.ok_or("missing operand `ends`")?;
    let axes = int_list(ctx, 3, "axes", I32_I64)?;
    let steps = int_list(ctx, 4, "steps", I32_I64)?;
    let lens = [Some(&starts), Some(&ends), axes.as_ref(), steps.as_ref()].map(|l| l.and_then(IntList::known_len));
    let n = lens.iter().flatten().copied().next();
    if lens.iter().flatten().any(|&l| Some(l) != n) {
        return Err(format!("`starts`, `ends`, `axes` and `steps` have different lengths {lens:?}"));
    }
    let Some(d) = data.dims() else { return Ok(vec![TensorType::unranked(data.dtype)]) };
    let axes: Option<Vec<usize>> = match (&axes, n) {
        (None, Some(n)) if n > d.len() => {
            return Err(format!("{n} `starts` given for input {} of rank {}", data.shape, d.len()))
        }
        (None, Some(n)) => Some((0..n).collect()),
        (Some(IntList::Known(v)), _) => {
            Some(norm_axes(v, d.len()).map_err(|e| format!("`axes`: {e} (input {})", data.shape))?)
        }
        _ => None,
    };
    let Some(axes) = axes else { return Ok(vec![TensorType::new(data.dtype, unknown_dims(d.len()))]) };
    let at = |l: &IntList, k: usize| l.known().map(|v| v[k]);
    let mut dims = d.to_vec();
    for (k, &ax) in axes.iter().enumerate() {
        let step = steps.as_ref().map_or(Some(1), |s| at(s, k));
        dims[ax] = match (at(&starts, k), at(&ends, k), step) {
            (Some(s), Some(e), Some(st)) => slice_dim(d[ax], s, e, st)?,
            (_, _, Some(0)) => return Err("`steps` must not contain 0".into()),
            _ => Dim::Unknown,
        };
    }
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// One padded dim: `d + total`, symbolic dims survive only a zero total.
fn pad_dim(d: Dim, total: i64) -> Result<Dim, String> {
    Ok(match d {
        Dim::Static(n) => {
            let v = n as i128 + total as i128;
            if v < 0 {
                return Err(format!("padding {total} makes dim {n} negative"));
            }
            Dim::Static(v as u64)
        }
        _ if total == 0 => d,
        _ => Dim::Unknown,
    })
}

/// Pad: each padded axis grows by its begin and end amounts.
pub fn pad(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let pads = int_list(ctx, 1, "pads", I64_ONLY)?.ok_or("missing operand `pads`")?;
    if let Some(c) = ctx.opt_input(2).filter(|c| c.dtype != data.dtype) {
        return Err(format!("`constant_value` has element type {}, data has {}", c.dtype, data.dtype));
    }
    let axes = int_list(ctx, 3, "axes", I32_I64)?;
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    if pads.known_len().is_some_and(|l| l % 2 != 0) {
        return Err(format!("`pads` has odd length {}", pads.known_len().unwrap_or(0)));
    }
    let Some(d) = data.dims() else {
        return match (axes, pads.known_len()) {
            (None, Some(l)) => out(unknown_dims(l / 2)),
            _ => out(Shape::Unranked),
        };
    };
    let axes: Vec<usize> = match axes {
        None => (0..d.len()).collect(),
        Some(IntList::Known(v)) => norm_axes(&v, d.len()).map_err(|e| format!("`axes`: {e} (data {})", data.shape))?,
        Some(_) => return out(unknown_dims(d.len())),
    };
    if let Some(l) = pads.known_len().filter(|&l| l != 2 * axes.len()) {
        return Err(format!("`pads` has {l} entries, expected {} for data {}", 2 * axes.len(), data.shape));
    }
    let mut dims = d.to_vec();
    for (k, &ax) in axes.iter().enumerate() {
        dims[ax] = match pads.known() {
            Some(p) => {
                let total = p[k].checked_add(p[k + axes.len()]).ok_or_else(|| format!("`pads` {p:?} overflow"))?;
                pad_dim(d[ax], total).map_err(|e| format!("`pads` {p:?}: {e}"))?
            }
            None => Dim::Unknown,
        };
    }
    out(Shape::from_dims(dims))
}

/// One tiled dim: `d * rep`; anything times 0 is 0, anything times 1 is itself.
fn tile_dim(d: Dim, rep: Option<i64>) -> Result<Dim, String> {
    Ok(match (d, rep) {
        (_, Some(r)) if r < 0 => return Err(format!("`repeats` has negative entry {r}")),
        (Dim::Static(0), _) | (_, Some(0)) => Dim::Static(0),
        (Dim::Static(n), Some(r)) => Dim::Static(n.checked_mul(r as u64).ok_or("tiled dim overflows")?),
        (x, Some(1)) => x,
        _ => Dim::Unknown,
    })
}

/// Tile: each dim multiplied by its entry of `repeats`.
pub fn tile(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let reps = int_list(ctx, 1, "repeats", I64_ONLY)?.ok_or("missing operand `repeats`")?;
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    let Some(d) = data.dims() else { return out(reps.known_len().map_or(Shape::Unranked, unknown_dims)) };
    if let Some(n) = reps.known_len().filter(|&n| n != d.len()) {
        return Err(format!("`repeats` has {n} entries but the input {} has rank {}", data.shape, d.len()));
    }
    let dims: Result<Vec<Dim>, String> =
        d.iter().enumerate().map(|(i, &x)| tile_dim(x, reps.known().map(|v| v[i]))).collect();
    out(Shape::from_dims(dims?))
}

/// Expand: bidirectional numpy broadcast of the input with `shape`.
pub fn expand(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let shape = int_list(ctx, 1, "shape", I64_ONLY)?.ok_or("missing operand `shape`")?;
    let target = match shape {
        _ if data.rank().is_none() => return Ok(vec![TensorType::unranked(data.dtype)]),
        IntList::Known(v) if v.iter().any(|&x| x < 0) => return Err(format!("`shape` {v:?} has a negative dim")),
        IntList::Known(v) => Shape::from_dims(v.iter().map(|&x| Dim::Static(x as u64))),
        IntList::Len(n) => unknown_dims(n),
        IntList::Unknown => return Ok(vec![TensorType::unranked(data.dtype)]),
    };
    let out = broadcast_shapes(&data.shape, &target).map_err(|e| format!("`shape` {target}: {e}"))?;
    Ok(vec![TensorType::new(data.dtype, out)])
}
