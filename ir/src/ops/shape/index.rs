//! Inference of the indexing ops: GatherElements, GatherND, ScatterElements,
//! ScatterND, OneHot, NonZero, Compress, TopK, Unique, NonMaxSuppression,
//! ReverseSequence, CenterCropPad and Size.

use super::{int_list, merge_equal_dims, norm_axes, norm_axis, DimProduct, I32_I64, I64_ONLY};
use crate::ops::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Check that an index operand has one of the allowed integer types.
fn index_dtype(t: &TensorType, name: &str, allowed: &[DType]) -> Result<(), String> {
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    expect_dtype(t, &format!("`{name}`"), |d| allowed.contains(&d), &names.join(" or "))
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

/// NonZero: i64 `[rank, count]` with an unknown count.
pub fn non_zero(ctx: &InferCtx<'_>) -> InferResult {
    let rank = ctx.input(0)?.rank().map_or(Dim::Unknown, |r| Dim::Static(r as u64));
    Ok(vec![TensorType::new(DType::I64, Shape::from_dims([rank, Dim::Unknown]))])
}

/// Compress: the kept count replaces the `axis` dim (or the flattened length).
pub fn compress(ctx: &InferCtx<'_>) -> InferResult {
    let (data, cond) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(cond, "`condition`", |d| d == DType::Bool, "bool")?;
    if let Some(r) = cond.rank().filter(|&r| r != 1) {
        return Err(format!("`condition` must be 1-D, found rank {r}"));
    }
    let kept = ctx.const_ints(1).map_or(Dim::Unknown, |v| Dim::Static(v.iter().filter(|&&x| x != 0).count() as u64));
    let Some(axis) = ctx.attrs.int("axis") else {
        return Ok(vec![TensorType::new(data.dtype, Shape::from_dims([kept]))]);
    };
    let Some(d) = data.dims() else { return Ok(vec![TensorType::unranked(data.dtype)]) };
    let ax = norm_axis(axis, d.len()).map_err(|e| format!("`axis`: {e}"))?;
    let mut dims = d.to_vec();
    dims[ax] = kept;
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// TopK: values and i64 indices, the `axis` dim replaced by `K`.
pub fn top_k(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "`X`", DType::is_numeric, "a numeric type")?;
    let k = int_list(ctx, 1, "K", I64_ONLY)?.ok_or("missing operand `K`")?;
    let shape = match x.dims() {
        None => Shape::Unranked,
        Some(d) => {
            let ax = norm_axis(ctx.int("axis", -1), d.len()).map_err(|e| format!("`axis`: {e}"))?;
            let mut dims = d.to_vec();
            dims[ax] = match k.known() {
                Some(&[k]) if k < 0 || d[ax].as_static().is_some_and(|n| k as u64 > n) => {
                    return Err(format!("`K` {k} is out of range for axis {ax} of {}", x.shape))
                }
                Some(&[k]) => Dim::Static(k as u64),
                Some(v) => return Err(format!("`K` must hold one value, found {v:?}")),
                None => Dim::Unknown,
            };
            Shape::from_dims(dims)
        }
    };
    Ok(vec![TensorType::new(x.dtype, shape.clone()), TensorType::new(DType::I64, shape)])
}

/// Unique: `Y` (unknown count along `axis`, or 1-D), then i64 `indices`,
/// `inverse_indices` (one per input item) and `counts`.
pub fn unique(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let n = ctx.num_results;
    if !(1..=4).contains(&n) {
        return Err(format!("Unique has 1 to 4 results, found {n}"));
    }
    let one_d = |d: Dim| TensorType::new(DType::I64, Shape::from_dims([d]));
    let (y, items) = match (ctx.attrs.int("axis"), x.dims()) {
        (None, d) => (Shape::from_dims([Dim::Unknown]), d.map_or(Dim::Unknown, |d| DimProduct::of(d).to_dim())),
        (Some(_), None) => (Shape::Unranked, Dim::Unknown),
        (Some(a), Some(d)) => {
            let ax = norm_axis(a, d.len()).map_err(|e| format!("`axis`: {e}"))?;
            let mut dims = d.to_vec();
            dims[ax] = Dim::Unknown;
            (Shape::from_dims(dims), d[ax])
        }
    };
    let all = [TensorType::new(x.dtype, y), one_d(Dim::Unknown), one_d(items), one_d(Dim::Unknown)];
    Ok(all.into_iter().take(n).collect())
}

/// NonMaxSuppression: i64 `[selected, 3]`.
pub fn non_max_suppression(ctx: &InferCtx<'_>) -> InferResult {
    let (boxes, scores) = (ctx.input(0)?, ctx.input(1)?);
    for (t, name) in [(boxes, "`boxes`"), (scores, "`scores`")] {
        expect_dtype(t, name, |d| d == DType::F32, "f32")?;
        if t.rank().is_some_and(|r| r != 3) {
            return Err(format!("{name} must have rank 3, found {}", t.shape));
        }
    }
    if let Some(d) = boxes.dims() {
        if d[2].as_static().is_some_and(|n| n != 4) {
            return Err(format!("`boxes` must be [batches, boxes, 4], found {}", boxes.shape));
        }
    }
    Ok(vec![TensorType::new(DType::I64, Shape::from_dims([Dim::Unknown, Dim::Static(3)]))])
}

/// ReverseSequence: the input's type; rank >= 2 and distinct batch/time axes.
pub fn reverse_sequence(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    index_dtype(ctx.input(1)?, "sequence_lens", I64_ONLY)?;
    if let Some(r) = data.rank() {
        let b = norm_axis(ctx.int("batch_axis", 1), r).map_err(|e| format!("`batch_axis`: {e}"))?;
        let t = norm_axis(ctx.int("time_axis", 0), r).map_err(|e| format!("`time_axis`: {e}"))?;
        if b == t || r < 2 {
            return Err(format!("input {} needs distinct batch and time axes", data.shape));
        }
    }
    Ok(vec![data.clone()])
}

/// CenterCropPad: the `axes` (default all) take the sizes in `shape`.
pub fn center_crop_pad(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let target = int_list(ctx, 1, "shape", I32_I64)?.ok_or("missing operand `shape`")?;
    let Some(d) = data.dims() else { return Ok(vec![TensorType::unranked(data.dtype)]) };
    let axes = match ctx.attrs.ints("axes") {
        Some(a) => norm_axes(a, d.len()).map_err(|e| format!("`axes`: {e}"))?,
        None => (0..d.len()).collect(),
    };
    if let Some(n) = target.known_len().filter(|&n| n != axes.len()) {
        return Err(format!("`shape` has {n} entries for {} axes", axes.len()));
    }
    let mut dims = d.to_vec();
    for (k, &ax) in axes.iter().enumerate() {
        dims[ax] = match target.known() {
            Some(v) if v[k] < 0 => return Err(format!("`shape` {v:?} has a negative size")),
            Some(v) => Dim::Static(v[k] as u64),
            None => Dim::Unknown,
        };
    }
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// Size: a rank-0 i64.
pub fn size(ctx: &InferCtx<'_>) -> InferResult {
    ctx.input(0)?;
    Ok(vec![TensorType::scalar(DType::I64)])
}
