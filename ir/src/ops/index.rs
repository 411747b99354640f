//! Shape/type inference of gather and scatter by index tensors: Gather,
//! GatherElements, GatherND, ScatterElements, ScatterND, TensorScatter (the
//! KV-cache update) and OneHot.

use super::{
    expect_dtype, expect_same, index_dtype, merge_dims, merge_equal_dims, norm_axis, InferCtx, InferResult, I32_I64,
    I64_ONLY,
};
use crate::types::{DType, Dim, Shape, TensorType};

/// Gather: `data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
pub fn gather(ctx: &InferCtx<'_>) -> InferResult {
    let (data, idx) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(idx, "`indices`", |d| I32_I64.contains(&d), "i32 or i64")?;
    let (Some(d), Some(id)) = (data.dims(), idx.dims()) else { return Ok(vec![TensorType::unranked(data.dtype)]) };
    let ax = norm_axis(ctx.int("axis", 0), d.len()).map_err(|e| format!("`axis`: {e} (data {})", data.shape))?;
    let dims = d[..ax].iter().chain(id).chain(&d[ax + 1..]).copied();
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// GatherElements: the indices' shape with the data's element type.
pub fn gather_elements(ctx: &InferCtx<'_>) -> InferResult {
    let (data, idx) = (ctx.input(0)?, ctx.input(1)?);
    index_dtype(idx, "indices", I32_I64)?;
    if let (Some(d), Some(i)) = (data.rank(), idx.rank()) {
        if d != i {
            return Err(format!("`indices` {} must have the rank of data {}", idx.shape, data.shape));
        }
        norm_axis(ctx.int("axis", 0), d).map_err(|e| format!("`axis`: {e}"))?;
    }
    Ok(vec![TensorType::new(data.dtype, idx.shape.clone())])
}

/// GatherND: `indices.shape[:-1] + data.shape[batch_dims + k:]` with `k = indices.shape[-1]`.
pub fn gather_nd(ctx: &InferCtx<'_>) -> InferResult {
    let (data, idx) = (ctx.input(0)?, ctx.input(1)?);
    index_dtype(idx, "indices", I64_ONLY)?;
    let b = usize::try_from(ctx.int("batch_dims", 0)).map_err(|_| "`batch_dims` must not be negative")?;
    let unranked = Ok(vec![TensorType::unranked(data.dtype)]);
    let (Some(d), Some(id)) = (data.dims(), idx.dims()) else { return unranked };
    let (r, q) = (d.len(), id.len());
    if q == 0 || b >= q.min(r) {
        return Err(format!("`batch_dims` {b} needs data {} and indices {} of larger rank", data.shape, idx.shape));
    }
    let Some(k) = id[q - 1].as_static() else { return unranked };
    let k = k as usize;
    if k > r - b {
        return Err(format!("index tuples of length {k} are too long for data {} (batch_dims {b})", data.shape));
    }
    let mut dims: Vec<Dim> = id[..q - 1].to_vec();
    for (j, dim) in dims.iter_mut().enumerate().take(b) {
        *dim = merge_equal_dims(*dim, d[j]).map_err(|e| format!("batch dim {j}: {e}"))?;
    }
    dims.extend_from_slice(&d[b + k..]);
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// The data operand's type, after checking `updates` shares its element type.
fn scatter_common(ctx: &InferCtx<'_>, index_types: &[DType]) -> Result<(TensorType, TensorType), String> {
    let (data, idx, upd) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    index_dtype(idx, "indices", index_types)?;
    if upd.dtype != data.dtype {
        return Err(format!("`updates` has element type {}, data has {}", upd.dtype, data.dtype));
    }
    if idx.rank() == Some(0) {
        return Err("`indices` must have rank >= 1".into());
    }
    Ok((data.clone(), idx.clone()))
}

/// ScatterElements: the data's type; indices have the data's rank and the updates' shape.
pub fn scatter_elements(ctx: &InferCtx<'_>) -> InferResult {
    let (data, idx) = scatter_common(ctx, I32_I64)?;
    let upd = ctx.input(2)?;
    if let (Some(d), Some(i)) = (data.rank(), idx.rank()) {
        if d != i {
            return Err(format!("`indices` {} must have the rank of data {}", idx.shape, data.shape));
        }
        norm_axis(ctx.int("axis", 0), d).map_err(|e| format!("`axis`: {e}"))?;
    }
    if !idx.shape.compatible(&upd.shape) {
        return Err(format!("`updates` {} must have the shape of `indices` {}", upd.shape, idx.shape));
    }
    Ok(vec![data])
}

/// ScatterND: the data's type.
pub fn scatter_nd(ctx: &InferCtx<'_>) -> InferResult {
    Ok(vec![scatter_common(ctx, I64_ONLY)?.0])
}

/// OneHot: the indices' shape with a `depth` axis inserted at `axis`, element type of `values`.
pub fn one_hot(ctx: &InferCtx<'_>) -> InferResult {
    let (idx, depth, values) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(idx, "`indices`", DType::is_numeric, "a numeric type")?;
    expect_dtype(depth, "`depth`", DType::is_numeric, "a numeric type")?;
    if values.shape.num_elements().is_some_and(|n| n != 2) {
        return Err(format!("`values` must hold [off, on], found {}", values.shape));
    }
    let Some(d) = idx.dims() else { return Ok(vec![TensorType::unranked(values.dtype)]) };
    let ax = norm_axis(ctx.int("axis", -1), d.len() + 1).map_err(|e| format!("`axis`: {e}"))?;
    let depth = match ctx.const_floats(1).as_deref() {
        Some([x]) if *x < 0.0 => return Err(format!("`depth` {x} is negative")),
        Some([x]) => Dim::Static(x.trunc() as u64),
        _ => Dim::Unknown,
    };
    let mut dims = d.to_vec();
    dims.insert(ax, depth);
    Ok(vec![TensorType::new(values.dtype, Shape::from_dims(dims))])
}

/// TensorScatter: `present_cache` like `past_cache`; `update` has its rank and dims
/// except on `axis` (default -2, never the batch axis 0) where it is not larger;
/// optional i64 `write_indices [batch]`.
pub fn tensor_scatter(ctx: &InferCtx<'_>) -> InferResult {
    let (past, update) = (ctx.input(0)?, ctx.input(1)?);
    expect_same(update, "`update`", past.dtype, "`past_cache`")?;
    if let Some(wi) = ctx.opt_input(2) {
        expect_dtype(wi, "`write_indices`", |d| d == DType::I64, "i64")?;
        if wi.rank().is_some_and(|r| r != 1) {
            return Err(format!("`write_indices` {} must be 1-D [batch]", wi.shape));
        }
    }
    let mode = ctx.str("mode", "linear");
    if mode != "linear" && mode != "circular" {
        return Err(format!("attribute `mode` = \"{mode}\" must be linear or circular"));
    }
    let Some(pd) = past.dims() else { return Ok(vec![past.clone()]) };
    let ax =
        norm_axis(ctx.int("axis", -2), pd.len()).map_err(|e| format!("`axis`: {e} (past_cache {})", past.shape))?;
    if ax == 0 {
        return Err("attribute `axis` must not be the batch axis 0".into());
    }
    let mut out = pd.to_vec();
    if let Some(ud) = update.dims() {
        let bad = || format!("`update` {} does not fit `past_cache` {} (axis {ax})", update.shape, past.shape);
        if ud.len() != pd.len() {
            return Err(bad());
        }
        for i in (0..pd.len()).filter(|&i| i != ax) {
            out[i] = merge_dims(pd[i], ud[i], bad)?;
        }
        if let (Dim::Static(p), Dim::Static(u)) = (pd[ax], ud[ax]) {
            if u > p {
                return Err(bad());
            }
        }
    }
    if let Some(w) = ctx.opt_input(2).and_then(|w| w.dims()) {
        out[0] = merge_dims(out[0], w[0], || format!("`write_indices` [{}] must have one entry per batch", w[0]))?;
    }
    Ok(vec![TensorType::new(past.dtype, Shape::from_dims(out))])
}
