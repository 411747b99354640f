//! Reference kernels: layout family, the kernels that only move elements
//! around: Reshape, Transpose, Concat, Split, Squeeze, Unsqueeze, Flatten,
//! Expand, Tile, plus Shape and Size here; Slice, Pad, CenterCropPad and
//! ReverseSequence in [`slicing`]; DepthToSpace and SpaceToDepth in
//! [`space`]; the canonical `core.*` layout ops in [`canonical`]. Every kernel
//! computes, for each output element, the flat index of its source element, so
//! all element types (strings and bools included) are handled alike.

use crate::attr::{Attr, Attrs};
use crate::interp::broadcast::{broadcast_map, broadcast_shapes, norm_axis};
use crate::interp::tensor::wide::{int_operand, norm_axes, numel, pick, ravel, unravel};
use crate::interp::{call, strides, Data, EvalCtx, Tensor};

pub mod canonical;
pub mod slicing;
pub mod space;

pub use slicing::{center_crop_pad, pad, reverse_sequence, slice};
pub use space::{depth_to_space, space_to_depth};

type Out = Result<Vec<Tensor>, String>;

/// The shape Reshape produces from `spec` for an input of shape `inp`.
fn reshape_target(inp: &[usize], spec: &[i64], allowzero: bool) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(spec.len());
    let mut infer_at = None;
    for (i, &v) in spec.iter().enumerate() {
        out.push(match v {
            -1 if infer_at.is_some() => return Err(format!("`shape` {spec:?} has more than one -1")),
            -1 => {
                infer_at = Some(i);
                1
            }
            0 if !allowzero => *inp
                .get(i)
                .ok_or_else(|| format!("`shape` {spec:?} copies dim {i} of an input of rank {}", inp.len()))?,
            v if v < 0 => return Err(format!("`shape` {spec:?} has invalid entry {v}")),
            v => v as usize,
        });
    }
    if allowzero && infer_at.is_some() && spec.contains(&0) {
        return Err(format!("`shape` {spec:?} has both 0 and -1 with allowzero=1"));
    }
    let n = numel(inp);
    let known = out.iter().try_fold(1usize, |p, &d| p.checked_mul(d)).ok_or("`shape` overflows")?;
    if let Some(i) = infer_at {
        if known == 0 || !n.is_multiple_of(known) {
            return Err(format!("cannot reshape {inp:?} to {spec:?}: -1 cannot be inferred"));
        }
        out[i] = n / known;
    } else if known != n {
        return Err(format!("cannot reshape {inp:?} ({n} elements) to {spec:?}"));
    }
    Ok(out)
}

/// `onnx.Reshape`.
pub fn reshape(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let spec = int_operand(ctx.input(1)?, "shape")?;
    let shape = reshape_target(&data.shape, &spec, ctx.int("allowzero", 0) != 0)?;
    Ok(vec![Tensor::new(shape, data.data.clone())])
}

/// Output shape and source index map of permuting `shape` by `perm`.
pub fn permute(shape: &[usize], perm: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let in_strides = strides(shape);
    let step: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let map = (0..numel(&out_shape)).map(|i| ravel(&unravel(i, &out_shape), &step)).collect();
    (out_shape, map)
}

/// `onnx.Transpose`.
pub fn transpose(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let r = data.rank();
    let perm: Vec<i64> = ctx.attrs.ints("perm").map_or_else(|| (0..r as i64).rev().collect(), |p| p.to_vec());
    let mut seen = vec![false; r];
    if perm.len() != r {
        return Err(format!("`perm` {perm:?} has {} entries for an input of rank {r}", perm.len()));
    }
    for &p in &perm {
        if p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true) {
            return Err(format!("`perm` {perm:?} is not a permutation of the {r} axes of {:?}", data.shape));
        }
    }
    let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    let (shape, map) = permute(&data.shape, &perm);
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.Concat`.
pub fn concat(ctx: &EvalCtx<'_>) -> Out {
    let inputs: Vec<&Tensor> = (0..ctx.inputs.len()).map(|i| ctx.input(i)).collect::<Result<_, _>>()?;
    let first = inputs.first().ok_or("Concat needs at least one input")?;
    let axis = ctx.attrs.int("axis").ok_or("missing attribute `axis`")?;
    let ax = norm_axis(axis, first.rank())?;
    let mut shape = first.shape.clone();
    shape[ax] = 0;
    for (i, t) in inputs.iter().enumerate() {
        let same = t.rank() == first.rank() && (0..t.rank()).all(|k| k == ax || t.shape[k] == first.shape[k]);
        if !same || t.dtype() != first.dtype() {
            return Err(format!("input #{i} {:?} {:?} does not match input #0 {:?}", t.dtype(), t.shape, first.shape));
        }
        shape[ax] += t.shape[ax];
    }
    let outer = numel(&first.shape[..ax]);
    let inner = numel(&first.shape[ax + 1..]);
    let mut picks = Vec::with_capacity(numel(&shape));
    for o in 0..outer {
        for (s, t) in inputs.iter().enumerate() {
            let block = t.shape[ax] * inner;
            picks.extend((0..block).map(|j| (s, o * block + j)));
        }
    }
    let sources: Vec<&Data> = inputs.iter().map(|t| &t.data).collect();
    Ok(vec![Tensor::new(shape, pick(&sources, &picks)?)])
}

/// Source index map of the strided box `starts[k] + i * steps[k]` (`i < out_shape[k]`).
pub fn strided_map(shape: &[usize], starts: &[usize], steps: &[i64], out_shape: &[usize]) -> Vec<usize> {
    let st = strides(shape);
    (0..numel(out_shape))
        .map(|i| {
            let idx = unravel(i, out_shape);
            (0..shape.len()).map(|k| (starts[k] as i64 + idx[k] as i64 * steps[k]) as usize * st[k]).sum()
        })
        .collect()
}

/// The part sizes of Split along a dim of size `dim` into `n` results.
fn split_sizes(ctx: &EvalCtx<'_>, dim: usize, n: usize) -> Result<Vec<usize>, String> {
    if let Some(t) = ctx.opt(1) {
        let v = int_operand(t, "split")?;
        if v.len() != n || v.iter().any(|&s| s < 0) || v.iter().sum::<i64>() != dim as i64 {
            return Err(format!("`split` {v:?} does not divide a dim of {dim} into {n} parts"));
        }
        return Ok(v.iter().map(|&s| s as usize).collect());
    }
    if let Some(k) = ctx.attrs.int("num_outputs").filter(|&k| k != n as i64) {
        return Err(format!("`num_outputs` is {k} but the op has {n} results"));
    }
    // As the ONNX reference: parts of `ceil(dim / n)`, clamped to the dim, so the
    // last parts may be smaller or even empty (5 into 4 parts: [2, 2, 1, 0]).
    let chunk = dim.div_ceil(n);
    let end = |k: usize| chunk.saturating_mul(k).min(dim);
    Ok((0..n).map(|k| end(k + 1) - end(k)).collect())
}

/// `onnx.Split`: equal parts (trailing ones smaller or empty) or the sizes in `split`.
pub fn split(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let n = ctx.num_results();
    if n == 0 {
        return Err("Split needs at least one result".into());
    }
    let ax = norm_axis(ctx.int("axis", 0), data.rank())?;
    let mut start = 0;
    let mut out = Vec::with_capacity(n);
    for size in split_sizes(ctx, data.shape[ax], n)? {
        let mut shape = data.shape.clone();
        shape[ax] = size;
        let mut starts = vec![0; data.rank()];
        starts[ax] = start;
        let map = strided_map(&data.shape, &starts, &vec![1; data.rank()], &shape);
        out.push(Tensor::new(shape, data.data.gather(&map)));
        start += size;
    }
    Ok(out)
}

/// `onnx.Squeeze`: drop the listed size-1 axes (every size-1 axis if `axes` is omitted).
pub fn squeeze(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let axes = match ctx.opt(1) {
        Some(t) => norm_axes(&int_operand(t, "axes")?, data.rank())?,
        None => (0..data.rank()).filter(|&i| data.shape[i] == 1).collect(),
    };
    if let Some(&a) = axes.iter().find(|&&a| data.shape[a] != 1) {
        return Err(format!("cannot squeeze axis {a} of size {} (input {:?})", data.shape[a], data.shape));
    }
    let shape = (0..data.rank()).filter(|i| !axes.contains(i)).map(|i| data.shape[i]).collect();
    Ok(vec![Tensor::new(shape, data.data.clone())])
}

/// `onnx.Unsqueeze`: insert size-1 axes at the listed output positions.
pub fn unsqueeze(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let axes = int_operand(ctx.input(1)?, "axes")?;
    let rank = data.rank() + axes.len();
    let axes = norm_axes(&axes, rank)?;
    let mut rest = data.shape.iter();
    let shape = (0..rank).map(|i| if axes.contains(&i) { 1 } else { *rest.next().unwrap_or(&1) }).collect();
    Ok(vec![Tensor::new(shape, data.data.clone())])
}

/// `onnx.Flatten`: `[prod(d[..axis]), prod(d[axis..])]`, `axis` in `[-r, r]`.
pub fn flatten(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let (axis, r) = (ctx.int("axis", 1), data.rank() as i64);
    if axis < -r || axis > r {
        return Err(format!("`axis` {axis} is out of range for rank {r}"));
    }
    let ax = if axis < 0 { axis + r } else { axis } as usize;
    let shape = vec![numel(&data.shape[..ax]), numel(&data.shape[ax..])];
    Ok(vec![Tensor::new(shape, data.data.clone())])
}

/// `onnx.Expand`: bidirectional numpy broadcast with `shape`.
pub fn expand(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let spec = int_operand(ctx.input(1)?, "shape")?;
    if let Some(x) = spec.iter().find(|&&x| x < 0) {
        return Err(format!("`shape` {spec:?} has negative dim {x}"));
    }
    let target: Vec<usize> = spec.iter().map(|&x| x as usize).collect();
    let shape = broadcast_shapes(&[&data.shape, &target])?;
    crate::interp::tensor::wide::check_size(&shape)?;
    let map = broadcast_map(&data.shape, &shape);
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.Tile`: repeat the input `repeats[k]` times along axis `k`.
pub fn tile(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let reps = int_operand(ctx.input(1)?, "repeats")?;
    if reps.len() != data.rank() || reps.iter().any(|&r| r < 0) {
        return Err(format!("`repeats` {reps:?} does not fit input {:?}", data.shape));
    }
    let shape: Option<Vec<usize>> = data.shape.iter().zip(&reps).map(|(&d, &r)| d.checked_mul(r as usize)).collect();
    let shape = shape.ok_or_else(|| format!("tiling {:?} by {reps:?} overflows", data.shape))?;
    crate::interp::tensor::wide::check_size(&shape)?;
    let st = data.strides();
    let map = (0..numel(&shape))
        .map(|i| unravel(i, &shape).iter().enumerate().map(|(k, &x)| (x % data.shape[k]) * st[k]).sum())
        .collect::<Vec<usize>>();
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.Shape`: the dims `start..end` (clamped to `[0, rank]`) as i64.
pub fn shape(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let r = data.rank() as i64;
    let clamp = |i: i64| (if i < 0 { i + r } else { i }).clamp(0, r) as usize;
    let (start, end) = (clamp(ctx.int("start", 0)), clamp(ctx.int("end", r)));
    let dims = data.shape.get(start..end.max(start)).unwrap_or_default();
    Ok(vec![Tensor::from_i64s(dims.iter().map(|&d| d as i64).collect())])
}

/// `onnx.Size`: the element count as a rank-0 i64.
pub fn size(ctx: &EvalCtx<'_>) -> Out {
    Ok(vec![Tensor::new(vec![], Data::I64(vec![ctx.input(0)?.len() as i64]))])
}

/// `t` with its last two axes swapped, by `onnx.Transpose`'s kernel.
pub(crate) fn transpose_last_two(ctx: &EvalCtx<'_>, t: &Tensor, what: &str) -> Result<Tensor, String> {
    let r = t.rank();
    if r < 2 {
        return Err(format!("{what} must have rank ≥ 2, got shape {:?}", t.shape));
    }
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.swap(r - 2, r - 1);
    call(ctx, transpose, &[Some(t)], &Attrs::new().with("perm", Attr::Ints(perm)))
}
