//! Data movement without arithmetic, and shape queries: Reshape, Transpose,
//! Concat, Split, Squeeze, Unsqueeze, Flatten, DepthToSpace, SpaceToDepth,
//! ReverseSequence, CenterCropPad, Shape and Size here; Slice, Pad, Tile and
//! Expand in the `slicing` submodule (re-exported here); the canonical
//! `core.*` forms with static attributes (`core.reshape`, `core.squeeze`,
//! `core.unsqueeze`, `core.slice`, `core.expand`) in [`canonical`].
//!
//! [`DimProduct`] (symbolic products of dims, for element counts) is also used
//! by `Unique` ([`super::select`]).

use super::{
    dim_div, dim_mul, index_dtype, int_list, merge_equal_dims, norm_axes, norm_axis, shape, unknown_dims, InferCtx,
    InferResult, IntList, I32_I64, I64_ONLY,
};
use crate::types::{DType, Dim, Shape, Symbol, TensorType};

pub mod canonical;
mod slicing;
pub use slicing::{expand, pad, slice, tile};

/// A product of dims: a static coefficient times a multiset of symbols,
/// possibly times something unknown. Used to reason about element counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimProduct {
    /// Product of the static factors (`None` after overflow).
    pub coef: Option<u64>,
    /// Symbolic factors, sorted.
    pub syms: Vec<Symbol>,
    /// True if some factor is unknown.
    pub unknown: bool,
}

impl DimProduct {
    /// The product of `dims`.
    pub fn of(dims: &[Dim]) -> Self {
        let mut p = DimProduct { coef: Some(1), syms: Vec::new(), unknown: false };
        for &d in dims {
            match d {
                Dim::Static(n) => p.coef = p.coef.and_then(|c| c.checked_mul(n)),
                Dim::Sym(s) => p.syms.push(s),
                Dim::Unknown => p.unknown = true,
            }
        }
        p.syms.sort();
        p
    }
    /// True if the product is a plain number (no symbols, nothing unknown).
    pub fn is_static(&self) -> bool {
        self.syms.is_empty() && !self.unknown && self.coef.is_some()
    }
    /// The product as a dim: a number if static (or zero), the symbol if it is a
    /// single symbol times 1, otherwise unknown.
    pub fn to_dim(&self) -> Dim {
        match (self.coef, self.syms.as_slice(), self.unknown) {
            (Some(0), _, _) => Dim::Static(0),
            (Some(c), [], false) => Dim::Static(c),
            (Some(1), [s], false) => Dim::Sym(*s),
            _ => Dim::Unknown,
        }
    }
    /// `self / other` as a dim if it is determined; `Err` if both are static and
    /// do not divide evenly.
    pub fn div(&self, other: &DimProduct) -> Result<Dim, String> {
        let (Some(a), Some(b)) = (self.coef, other.coef) else { return Ok(Dim::Unknown) };
        if a == 0 {
            return Ok(if other.is_static() && b != 0 { Dim::Static(0) } else { Dim::Unknown });
        }
        if self.unknown || other.unknown || b == 0 {
            return Ok(Dim::Unknown);
        }
        let mut rest = self.syms.clone();
        for s in &other.syms {
            let Some(p) = rest.iter().position(|x| x == s) else { return Ok(Dim::Unknown) };
            rest.remove(p);
        }
        if a % b != 0 {
            if self.is_static() && other.is_static() {
                return Err(format!("{a} elements cannot be divided into parts of {b}"));
            }
            return Ok(Dim::Unknown);
        }
        Ok(DimProduct { coef: Some(a / b), syms: rest, unknown: false }.to_dim())
    }
}

/// Output dims of Reshape from the constant `shape` (the `-1` entry, if any, left `Unknown`),
/// plus the position of the `-1`.
fn reshape_dims(inp: Option<&[Dim]>, spec: &[i64], allowzero: bool) -> Result<(Vec<Dim>, Option<usize>), String> {
    let mut dims = Vec::with_capacity(spec.len());
    let mut infer_at = None;
    for (i, &v) in spec.iter().enumerate() {
        dims.push(match v {
            -1 if infer_at.is_some() => return Err(format!("`shape` {spec:?} has more than one -1")),
            -1 => {
                infer_at = Some(i);
                Dim::Unknown
            }
            0 if allowzero => Dim::Static(0),
            0 => match inp {
                Some(d) => *d
                    .get(i)
                    .ok_or_else(|| format!("`shape` {spec:?} copies dim {i} (0) but the input has rank {}", d.len()))?,
                None => Dim::Unknown,
            },
            v if v < 0 => return Err(format!("`shape` {spec:?} has invalid negative entry {v}")),
            v => Dim::Static(v as u64),
        });
    }
    if allowzero && infer_at.is_some() && spec.contains(&0) {
        return Err(format!("`shape` {spec:?} contains both 0 and -1 with allowzero=1"));
    }
    Ok((dims, infer_at))
}

/// Reshape: `0` copies the input dim (unless `allowzero`), `-1` is inferred, symbolically if possible.
pub fn reshape(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let spec = int_list(ctx, 1, "shape", I64_ONLY)?.ok_or("missing operand `shape`")?;
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    let spec = match spec {
        IntList::Known(v) => v,
        IntList::Len(n) => return out(unknown_dims(n)),
        IntList::Unknown => return out(Shape::Unranked),
    };
    let inp = data.dims();
    let (mut dims, infer_at) = reshape_dims(inp, &spec, ctx.int("allowzero", 0) != 0)?;
    let Some(inp) = inp else { return out(Shape::from_dims(dims)) };
    let (pin, pout) = (DimProduct::of(inp), DimProduct::of(&dims));
    let mismatch = || format!("cannot reshape {} to {spec:?}: element counts differ", data.shape);
    match infer_at {
        Some(i) => {
            let known: Vec<Dim> = dims.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, d)| *d).collect();
            dims[i] = pin.div(&DimProduct::of(&known)).map_err(|_| mismatch())?;
        }
        None if pin.is_static() && pout.is_static() && pin.coef != pout.coef => return Err(mismatch()),
        None => {}
    }
    out(Shape::from_dims(dims))
}

/// Transpose: permute by `perm` (default: reversed axes).
pub fn transpose(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let perm: Vec<i64> = match (ctx.attrs.ints("perm"), data.rank()) {
        (Some(p), _) => p.to_vec(),
        (None, Some(r)) => (0..r as i64).rev().collect(),
        (None, None) => return Ok(vec![data.clone()]),
    };
    let r = perm.len();
    let mut seen = vec![false; r];
    for &p in &perm {
        if p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true) {
            return Err(format!("`perm` {perm:?} is not a permutation of 0..{r}"));
        }
    }
    let shape = match data.dims() {
        None => unknown_dims(r),
        Some(d) if d.len() != r => {
            return Err(format!("`perm` {perm:?} has length {r} but the input {} has rank {}", data.shape, d.len()))
        }
        Some(d) => Shape::from_dims(perm.iter().map(|&p| d[p as usize])),
    };
    Ok(vec![TensorType::new(data.dtype, shape)])
}

/// Sum of dims along a concatenation axis.
fn concat_axis_dim(dims: &[Dim]) -> Dim {
    if let Some(v) = dims.iter().map(|d| d.as_static()).collect::<Option<Vec<u64>>>() {
        // Absurd (fuzzed) sizes must not overflow: the sum is then unknown.
        return v.iter().try_fold(0u64, |a, &b| a.checked_add(b)).map_or(Dim::Unknown, Dim::Static);
    }
    let nonzero: Vec<&Dim> = dims.iter().filter(|d| **d != Dim::Static(0)).collect();
    match nonzero.as_slice() {
        [only] => **only,
        _ => Dim::Unknown,
    }
}

/// Concat: same dtype and rank; non-axis dims agree; the axis dim is summed.
pub fn concat(ctx: &InferCtx<'_>) -> InferResult {
    let axis = ctx.attrs.int("axis").ok_or("missing attribute `axis`")?;
    let first = ctx.input(0)?;
    let mut merged: Option<Vec<Dim>> = None;
    let mut axis_dims = Vec::new();
    let mut any_unranked = false;
    for i in 0..ctx.num_operands() {
        let t = ctx.input(i)?;
        if t.dtype != first.dtype {
            return Err(format!("operand #{i} has element type {}, operand #0 has {}", t.dtype, first.dtype));
        }
        let Some(d) = t.dims() else {
            any_unranked = true;
            continue;
        };
        let ax = norm_axis(axis, d.len()).map_err(|e| format!("`axis`: {e} (operand #{i} is {})", t.shape))?;
        axis_dims.push(d[ax]);
        let Some(m) = merged.as_mut() else {
            merged = Some(d.to_vec());
            continue;
        };
        if m.len() != d.len() {
            return Err(format!("operand #{i} {} has rank {}, expected {}", t.shape, d.len(), m.len()));
        }
        for (j, (x, y)) in m.iter_mut().zip(d).enumerate().filter(|(j, _)| *j != ax) {
            *x = merge_equal_dims(*x, *y).map_err(|e| format!("operand #{i} {}: dim {j}: {e}", t.shape))?;
        }
    }
    let Some(mut dims) = merged else { return Ok(vec![TensorType::unranked(first.dtype)]) };
    let ax = norm_axis(axis, dims.len())?;
    dims[ax] = if any_unranked { Dim::Unknown } else { concat_axis_dim(&axis_dims) };
    Ok(vec![TensorType::new(first.dtype, Shape::from_dims(dims))])
}

/// Part sizes of Split along a dim of size `dim` into `n` parts, or `None` if unknown.
fn split_sizes(ctx: &InferCtx<'_>, dim: Dim, n: usize) -> Result<Vec<Dim>, String> {
    if let Some(split) = int_list(ctx, 1, "split", I64_ONLY)? {
        if split.known_len().is_some_and(|l| l != n) {
            return Err(format!("`split` has {} entries but the op has {n} results", split.known_len().unwrap_or(0)));
        }
        let Some(v) = split.known() else { return Ok(vec![Dim::Unknown; n]) };
        if v.iter().any(|&s| s < 0) {
            return Err(format!("`split` {v:?} has a negative size"));
        }
        let total = v.iter().try_fold(0u64, |acc, &s| acc.checked_add(s as u64));
        if dim.as_static().is_some_and(|d| Some(d) != total) {
            return Err(format!("`split` {v:?} does not sum to the split dim {dim}"));
        }
        return Ok(v.iter().map(|&s| Dim::Static(s as u64)).collect());
    }
    if let Some(k) = ctx.attrs.int("num_outputs").filter(|&k| k != n as i64) {
        return Err(format!("`num_outputs` is {k} but the op has {n} results"));
    }
    // As the ONNX reference: parts of `ceil(d / n)`, clamped to the dim, so the
    // last parts may be smaller or even empty (5 into 4 parts: [2, 2, 1, 0]).
    match dim {
        _ if n == 1 => Ok(vec![dim]),
        Dim::Static(d) => {
            let chunk = d.div_ceil(n as u64);
            let end = |k: u64| chunk.saturating_mul(k).min(d);
            Ok((0..n as u64).map(|k| Dim::Static(end(k + 1) - end(k))).collect())
        }
        _ => Ok(vec![Dim::Unknown; n]),
    }
}

/// Split: one result per part along `axis`.
pub fn split(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let n = ctx.num_results;
    if n == 0 {
        return Err("Split needs at least one result".into());
    }
    let Some(d) = data.dims() else {
        split_sizes(ctx, Dim::Unknown, n)?;
        return Ok(vec![data.clone(); n]);
    };
    let ax = norm_axis(ctx.int("axis", 0), d.len()).map_err(|e| format!("`axis`: {e} (input {})", data.shape))?;
    let sizes = split_sizes(ctx, d[ax], n)?;
    let part = |s: Dim| {
        let mut v = d.to_vec();
        v[ax] = s;
        TensorType::new(data.dtype, Shape::from_dims(v))
    };
    Ok(sizes.into_iter().map(part).collect())
}

/// Squeeze: remove the `axes` (which must be 1), or every static 1 if `axes` is omitted.
pub fn squeeze(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let axes = int_list(ctx, 1, "axes", I64_ONLY)?;
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    let Some(d) = data.dims() else { return out(Shape::Unranked) };
    let axes = match axes {
        None => {
            if d.iter().any(|x| x.as_static().is_none()) {
                return out(Shape::Unranked);
            }
            return out(Shape::from_dims(d.iter().copied().filter(|x| *x != Dim::Static(1))));
        }
        Some(IntList::Known(v)) => v,
        Some(IntList::Len(n)) if n <= d.len() => return out(unknown_dims(d.len() - n)),
        Some(IntList::Len(n)) => {
            return Err(format!("`axes` has {n} entries but the input {} has rank {}", data.shape, d.len()))
        }
        Some(IntList::Unknown) => return out(Shape::Unranked),
    };
    let axes = norm_axes(&axes, d.len()).map_err(|e| format!("`axes`: {e} (input {})", data.shape))?;
    for &a in &axes {
        if d[a].as_static().is_some_and(|n| n != 1) {
            return Err(format!("cannot squeeze axis {a} of size {} (input {})", d[a], data.shape));
        }
    }
    out(Shape::from_dims(d.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, x)| *x)))
}

/// Unsqueeze: insert size-1 dims at `axes` (positions in the output).
pub fn unsqueeze(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let axes = int_list(ctx, 1, "axes", I64_ONLY)?.ok_or("missing operand `axes`")?;
    let out = |s| Ok(vec![TensorType::new(data.dtype, s)]);
    let (Some(d), Some(n)) = (data.dims(), axes.known_len()) else { return out(Shape::Unranked) };
    let rank = d.len() + n;
    let Some(axes) = axes.known() else { return out(unknown_dims(rank)) };
    let axes = norm_axes(axes, rank).map_err(|e| format!("`axes`: {e} (input {}, output rank {rank})", data.shape))?;
    let mut rest = d.iter().copied();
    let dims: Vec<Dim> = (0..rank)
        .map(|i| if axes.contains(&i) { Dim::Static(1) } else { rest.next().unwrap_or(Dim::Unknown) })
        .collect();
    out(Shape::from_dims(dims))
}

/// Flatten: `[prod(d[:axis]), prod(d[axis:])]`.
pub fn flatten(ctx: &InferCtx<'_>) -> InferResult {
    let data = ctx.input(0)?;
    let axis = ctx.int("axis", 1);
    let Some(d) = data.dims() else { return Ok(vec![TensorType::new(data.dtype, unknown_dims(2))]) };
    let r = d.len() as i64;
    if axis < -r || axis > r {
        return Err(format!("`axis` {axis} is out of range for input {} (expected [{}, {r}])", data.shape, -r));
    }
    let ax = if axis < 0 { axis + r } else { axis } as usize;
    let dims = [DimProduct::of(&d[..ax]).to_dim(), DimProduct::of(&d[ax..]).to_dim()];
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
}

/// Clamp a Shape `start`/`end` attribute to `[0, rank]` per ONNX.
fn clamp_shape_index(i: i64, rank: usize) -> usize {
    let r = rank as i64;
    (if i < 0 { i + r } else { i }).clamp(0, r) as usize
}

/// Shape: a 1-D i64 tensor of length `end - start` (after clamping).
pub fn shape_of(ctx: &InferCtx<'_>) -> InferResult {
    let len = match ctx.input(0)?.rank() {
        None => Dim::Unknown,
        Some(r) => {
            let start = clamp_shape_index(ctx.int("start", 0), r);
            let end = clamp_shape_index(ctx.int("end", r as i64), r);
            Dim::Static(end.saturating_sub(start) as u64)
        }
    };
    Ok(vec![TensorType::new(DType::I64, Shape::from_dims([len]))])
}

/// Size: a rank-0 i64.
pub fn size(ctx: &InferCtx<'_>) -> InferResult {
    ctx.input(0)?;
    Ok(vec![TensorType::scalar(DType::I64)])
}

/// The `blocksize` attribute (≥ 1).
fn blocksize(ctx: &InferCtx<'_>) -> Result<u64, String> {
    match ctx.int("blocksize", 0) {
        b if b >= 1 => Ok(b as u64),
        b => Err(format!("attribute `blocksize` = {b} must be ≥ 1")),
    }
}

/// X's dims if 4-D (`None` if unranked).
fn dims4(x: &TensorType) -> Result<Option<&[Dim]>, String> {
    match x.dims() {
        Some(d) if d.len() != 4 => Err(format!("input {x} must be 4-D [N, C, H, W]")),
        d => Ok(d),
    }
}

/// DepthToSpace: `[N, C, H, W]` → `[N, C/b², H*b, W*b]`, any element type.
pub fn depth_to_space(ctx: &InferCtx<'_>) -> InferResult {
    let (x, b) = (ctx.input(0)?, blocksize(ctx)?);
    let Some(d) = dims4(x)? else { return Ok(vec![x.clone()]) };
    let bb = b.checked_mul(b).ok_or("attribute `blocksize` is too large")?;
    let c = dim_div(d[1], bb, "channel count")?;
    Ok(vec![TensorType::new(x.dtype, shape([d[0], c, dim_mul(d[2], b), dim_mul(d[3], b)]))])
}

/// SpaceToDepth: `[N, C, H, W]` → `[N, C*b², H/b, W/b]`, any element type.
pub fn space_to_depth(ctx: &InferCtx<'_>) -> InferResult {
    let (x, b) = (ctx.input(0)?, blocksize(ctx)?);
    let Some(d) = dims4(x)? else { return Ok(vec![x.clone()]) };
    let (h, w) = (dim_div(d[2], b, "height")?, dim_div(d[3], b, "width")?);
    let bb = b.checked_mul(b).ok_or("attribute `blocksize` is too large")?;
    Ok(vec![TensorType::new(x.dtype, shape([d[0], dim_mul(d[1], bb), h, w]))])
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
