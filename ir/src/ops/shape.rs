//! Shape-manipulation ops: reshape, transpose, concat, split, slice, gather, ...
//!
//! The first part of this file holds helpers shared with other op families
//! (axis normalization, reading shape-like operands, symbolic dim products).
//! Slice, Pad, Tile and Expand live in the `slicing` submodule and are
//! re-exported here; indexing ops (GatherND, Scatter*, TopK, Unique, ...) are in
//! [`index`], generators and string ops (Range, EyeLike, Trilu, String*) in
//! [`generate`].

use super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, Symbol, TensorType};

pub mod generate;
pub mod index;
mod slicing;
pub use slicing::{expand, pad, slice, tile};

/// Normalize a possibly negative `axis` against `rank`: valid values are `[-rank, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    edgec_numeric::axis::normalize_axis(axis, rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank} (expected [{}, {}])", -r, r - 1))
}

/// Normalize a list of axes against `rank` (see [`norm_axis`]), rejecting duplicates.
/// The order of `axes` is kept.
pub fn norm_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(a, rank)?;
        if out.contains(&n) {
            return Err(format!("axis {a} is repeated in {axes:?} (rank {rank})"));
        }
        out.push(n);
    }
    Ok(out)
}

/// What is known about a 1-D integer operand such as `shape`, `axes` or `pads`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntList {
    /// The operand is a constant with these contents.
    Known(Vec<i64>),
    /// Not constant, but its length is static.
    Len(usize),
    /// Neither contents nor length are known.
    Unknown,
}

impl IntList {
    /// The list length, if known.
    pub fn known_len(&self) -> Option<usize> {
        match self {
            IntList::Known(v) => Some(v.len()),
            IntList::Len(n) => Some(*n),
            IntList::Unknown => None,
        }
    }
    /// The contents, if constant.
    pub fn known(&self) -> Option<&[i64]> {
        match self {
            IntList::Known(v) => Some(v),
            _ => None,
        }
    }
}

/// Read operand `i` (called `name` in diagnostics) as a 1-D integer list.
/// `None` if the operand is omitted. Its element type must be in `allowed`
/// and its rank at most 1 (a scalar counts as a one-element list).
pub fn int_list(ctx: &InferCtx<'_>, i: usize, name: &str, allowed: &[DType]) -> Result<Option<IntList>, String> {
    let Some(t) = ctx.opt_input(i) else { return Ok(None) };
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    expect_dtype(t, &format!("`{name}`"), |d| allowed.contains(&d), &names.join(" or "))?;
    if let Some(r) = t.rank().filter(|&r| r > 1) {
        return Err(format!("`{name}` must be 1-D, found rank {r} ({})", t.shape));
    }
    if let Some(v) = ctx.const_ints(i) {
        return Ok(Some(IntList::Known(v)));
    }
    Ok(Some(match t.dims() {
        Some([]) => IntList::Len(1),
        Some([Dim::Static(n)]) if *n > MAX_RANK as u64 => {
            return Err(format!("`{name}` has {n} entries; tensors of rank above {MAX_RANK} are not supported"))
        }
        Some([Dim::Static(n)]) => IntList::Len(*n as usize),
        _ => IntList::Unknown,
    }))
}

/// Largest tensor rank shape inference accepts from a shape-like operand.
pub const MAX_RANK: usize = 64;

/// Integer element types accepted for i64-only shape operands.
pub const I64_ONLY: &[DType] = &[DType::I64];
/// Integer element types accepted for index-like operands (`Tind`).
pub const I32_I64: &[DType] = &[DType::I32, DType::I64];

/// A ranked shape of `rank` unknown dims.
pub fn unknown_dims(rank: usize) -> Shape {
    Shape::from_dims(std::iter::repeat_n(Dim::Unknown, rank))
}

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

/// `core.const`: the type of the referenced constant.
pub fn core_const(ctx: &InferCtx<'_>) -> InferResult {
    let c = ctx.attr_const.ok_or("`value` does not name a constant in the module")?;
    Ok(vec![c.ty.clone()])
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

/// Merge two dims that must be equal at runtime: keep the more precise one.
pub fn merge_equal_dims(a: Dim, b: Dim) -> Result<Dim, String> {
    Ok(match (a, b) {
        (Dim::Static(x), Dim::Static(y)) if x != y => return Err(format!("dims {x} and {y} differ")),
        (Dim::Static(x), _) | (_, Dim::Static(x)) => Dim::Static(x),
        (Dim::Unknown, y) => y,
        (x, Dim::Unknown) => x,
        // Two different symbols must be equal at run time, but neither name is
        // more right than the other: keep the dim unknown rather than pick one.
        (x, y) if x == y => x,
        _ => Dim::Unknown,
    })
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

/// Gather: `data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
pub fn gather(ctx: &InferCtx<'_>) -> InferResult {
    let (data, idx) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(idx, "`indices`", |d| I32_I64.contains(&d), "i32 or i64")?;
    let (Some(d), Some(id)) = (data.dims(), idx.dims()) else { return Ok(vec![TensorType::unranked(data.dtype)]) };
    let ax = norm_axis(ctx.int("axis", 0), d.len()).map_err(|e| format!("`axis`: {e} (data {})", data.shape))?;
    let dims = d[..ax].iter().chain(id).chain(&d[ax + 1..]).copied();
    Ok(vec![TensorType::new(data.dtype, Shape::from_dims(dims))])
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

/// ConstantOfShape: shape from the 1-D i64 input, dtype from the `value` constant (default f32).
pub fn constant_of_shape(ctx: &InferCtx<'_>) -> InferResult {
    let dtype = match (ctx.attr_const, ctx.attrs.get("value")) {
        (Some(c), _) if c.num_elements() != 1 => {
            return Err(format!("`value` must have exactly one element, found {}", c.ty))
        }
        (Some(c), _) => c.ty.dtype,
        (None, Some(_)) => return Err("`value` does not name a constant in the module".into()),
        (None, None) => DType::F32,
    };
    let shape = match int_list(ctx, 0, "input", I64_ONLY)?.ok_or("missing operand `input`")? {
        IntList::Known(v) => {
            if let Some(x) = v.iter().find(|&&x| x < 0) {
                return Err(format!("`input` {v:?} has negative dim {x}"));
            }
            Shape::from_dims(v.iter().map(|&x| Dim::Static(x as u64)))
        }
        IntList::Len(n) => unknown_dims(n),
        IntList::Unknown => Shape::Unranked,
    };
    Ok(vec![TensorType::new(dtype, shape)])
}
