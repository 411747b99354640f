//! Shape/type inference of the ops whose result depends on comparing the
//! data: NonZero, Compress, TopK, Unique and NonMaxSuppression. Their counts
//! are data-dependent, so those dims are mostly [`Dim::Unknown`].

use super::layout::DimProduct;
use super::{expect_dtype, int_list, norm_axis, InferCtx, InferResult, I64_ONLY};
use crate::types::{DType, Dim, Shape, TensorType};

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
