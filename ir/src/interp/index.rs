//! Reference kernels: index family. Gather, GatherElements, GatherND and
//! OneHot here; ScatterElements, ScatterND and TensorScatter in [`scatter`].
//! Indices may be negative (counted from the end); anything out of range is an
//! error. Like the layout kernels they only move elements, so every element
//! type is supported.

pub mod scatter;

pub use scatter::{scatter_elements, scatter_nd, tensor_scatter};

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{int_operand, norm_index, numel, ravel, unravel};
use crate::interp::{strides, EvalCtx, Tensor};

type Out = Result<Vec<Tensor>, String>;

/// `onnx.Gather`: `data[..., indices, ...]` along `axis`, for indices of any rank.
pub fn gather(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let ind = ctx.input(1)?;
    let ax = norm_axis(ctx.int("axis", 0), data.rank())?;
    let n = data.shape[ax];
    let idx: Vec<usize> =
        int_operand(ind, "indices")?.iter().map(|&i| norm_index(i, n, "index")).collect::<Result<_, _>>()?;
    let shape: Vec<usize> = data.shape[..ax].iter().chain(&ind.shape).chain(&data.shape[ax + 1..]).copied().collect();
    let (outer, inner) = (numel(&data.shape[..ax]), numel(&data.shape[ax + 1..]));
    let mut map = Vec::with_capacity(numel(&shape));
    for o in 0..outer {
        for &j in &idx {
            map.extend((0..inner).map(|k| (o * n + j) * inner + k));
        }
    }
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.GatherElements`: `out[i][j][k] = data[indices[i][j][k]][j][k]` (for axis 0).
pub fn gather_elements(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let ind = ctx.input(1)?;
    let ax = norm_axis(ctx.int("axis", 0), data.rank())?;
    let fits = ind.rank() == data.rank() && (0..ind.rank()).all(|k| k == ax || ind.shape[k] <= data.shape[k]);
    if !fits {
        return Err(format!("`indices` {:?} does not fit data {:?} (axis {ax})", ind.shape, data.shape));
    }
    let vals = int_operand(ind, "indices")?;
    let st = data.strides();
    let mut map = Vec::with_capacity(vals.len());
    for (i, &v) in vals.iter().enumerate() {
        let mut idx = unravel(i, &ind.shape);
        idx[ax] = norm_index(v, data.shape[ax], "index")?;
        map.push(ravel(&idx, &st));
    }
    Ok(vec![Tensor::new(ind.shape.clone(), data.data.gather(&map))])
}

/// `onnx.GatherND`: index tuples in the last indices dim select slices of data,
/// the first `batch_dims` dims being shared batch dims.
pub fn gather_nd(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let ind = ctx.input(1)?;
    let b = usize::try_from(ctx.int("batch_dims", 0)).map_err(|_| "`batch_dims` must not be negative")?;
    let (r, q) = (data.rank(), ind.rank());
    let k = *ind.shape.last().ok_or("`indices` must have rank >= 1")?;
    if b >= q.min(r) || k > r - b || data.shape[..b] != ind.shape[..b] {
        return Err(format!("`indices` {:?} does not fit data {:?} with batch_dims {b}", ind.shape, data.shape));
    }
    let vals = int_operand(ind, "indices")?;
    let shape: Vec<usize> = ind.shape[..q - 1].iter().chain(&data.shape[b + k..]).copied().collect();
    let rows_per_batch = numel(&ind.shape[b..q - 1]);
    let (batch_size, slice) = (numel(&data.shape[b..]), numel(&data.shape[b + k..]));
    let st = strides(&data.shape[b..]);
    let mut map = Vec::with_capacity(numel(&shape));
    for row in 0..numel(&ind.shape[..q - 1]) {
        let mut base = (row / rows_per_batch) * batch_size;
        for (j, &v) in vals[row * k..(row + 1) * k].iter().enumerate() {
            base += norm_index(v, data.shape[b + j], "index")? * st[j];
        }
        map.extend(base..base + slice);
    }
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.OneHot`: a new `depth`-sized axis at `axis` holding `values[1]` where it
/// equals the index (negative indices count from `depth`) and `values[0]` elsewhere.
/// Indices outside `[-depth, depth)` give an all-`off` row, as the spec says.
pub fn one_hot(ctx: &EvalCtx<'_>) -> Out {
    let ind = ctx.input(0)?;
    let depth_t = ctx.input(1)?;
    let values = ctx.input(2)?;
    if depth_t.len() != 1 || values.len() != 2 {
        return Err(format!(
            "`depth` must have 1 element and `values` 2, found {} and {}",
            depth_t.len(),
            values.len()
        ));
    }
    if ind.dtype() == crate::DType::String || depth_t.dtype() == crate::DType::String {
        return Err("`indices` and `depth` must be numeric".into());
    }
    let depth = depth_t.data.get_i64(0);
    if depth < 0 {
        return Err(format!("`depth` {depth} is negative"));
    }
    let r = ind.rank();
    let axis = ctx.int("axis", -1);
    let ax = norm_axis(axis, r + 1)?;
    let mut shape = ind.shape.clone();
    shape.insert(ax, depth as usize);
    crate::interp::tensor::wide::check_size(&shape)?;
    let map: Vec<usize> = (0..numel(&shape))
        .map(|i| {
            let mut idx = unravel(i, &shape);
            let d = idx.remove(ax) as i64;
            let v = ind.data.get_i64(ravel(&idx, &strides(&ind.shape)));
            let v = if v < 0 { v + depth } else { v };
            usize::from(v == d)
        })
        .collect();
    Ok(vec![Tensor::new(shape, values.data.gather(&map))])
}
