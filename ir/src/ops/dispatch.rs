//! `core.bucket_dispatch`: run one of several static specializations of a
//! function, chosen by the runtime size of symbolic dims.
//!
//! Semantics (the interpreter, the Rust backend and the blob runtime all follow
//! them): for each bucketed dim `d`, its actual size `n_d` is read from the
//! operand axes that carry it (`pad_axes`; all must agree); the bucket is the
//! smallest listed size `≥ n_d` (no such bucket is an error naming the dim and
//! its buckets). Every operand is padded at the end of each of its `pad_axes`
//! to the bucket size with its `pad_values` entry (converted to the operand's
//! element type), the callee for the chosen bucket combination runs, and every
//! result is sliced back to `[0, n_d)` along its `slice_axes`.
//!
//! Invariants (checked by inference, hence by the verifier):
//! - `dims` is non-empty; `bucket_counts[i]` buckets of dim `i` follow each
//!   other in `buckets`, strictly increasing and positive;
//! - `callees` has one function per bucket combination, row-major over `dims`
//!   (the last dim varies fastest); each takes the operands' element types and
//!   ranks, is static (its own number) at every pad axis, yields as many
//!   results as the op has, and contains no dispatch itself;
//! - `pad_axes` / `slice_axes` are `(operand or result, axis, dim index)`
//!   triples; every dim appears on at least one operand axis.

use super::{InferCtx, InferResult};
use crate::attr::{Attr, Attrs};
use crate::module::{Function, Module};
use crate::types::{Dim, Shape, Symbol, TensorType};

/// One `(tensor index, axis, dim index)` triple of `pad_axes` / `slice_axes`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AxisRef {
    /// Operand (for pads) or result (for slices) index.
    pub tensor: usize,
    /// Axis within that tensor.
    pub axis: usize,
    /// Index into [`Dispatch::dims`].
    pub dim: usize,
}

/// The decoded attributes of a `core.bucket_dispatch`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// Names of the bucketed symbolic dims.
    pub dims: Vec<String>,
    /// Bucket sizes per dim, each list strictly increasing.
    pub buckets: Vec<Vec<u64>>,
    /// Callee function names, row-major over the bucket lists.
    pub callees: Vec<String>,
    /// Operand axes padded to the bucket size (and read for the actual size).
    pub pads: Vec<AxisRef>,
    /// Pad value per operand.
    pub pad_values: Vec<f32>,
    /// Result axes sliced back to the actual size.
    pub slices: Vec<AxisRef>,
}

fn triples(v: &[i64], what: &str) -> Result<Vec<AxisRef>, String> {
    if !v.len().is_multiple_of(3) || v.iter().any(|&x| x < 0) {
        return Err(format!("`{what}` must be non-negative (tensor, axis, dim) triples"));
    }
    Ok(v.chunks(3).map(|c| AxisRef { tensor: c[0] as usize, axis: c[1] as usize, dim: c[2] as usize }).collect())
}

fn flat(v: &[AxisRef]) -> Vec<i64> {
    v.iter().flat_map(|r| [r.tensor as i64, r.axis as i64, r.dim as i64]).collect()
}

impl Dispatch {
    /// Decode and check the attributes (structure only, not the callees).
    pub fn from_attrs(a: &Attrs) -> Result<Dispatch, String> {
        let strs = |k: &str| match a.get(k) {
            Some(Attr::Strs(v)) => Ok(v.clone()),
            _ => Err(format!("missing string-list attribute `{k}`")),
        };
        let ints = |k: &str| a.ints(k).map(<[i64]>::to_vec).ok_or_else(|| format!("missing int-list attribute `{k}`"));
        let dims = strs("dims")?;
        let counts = ints("bucket_counts")?;
        let flat_buckets = ints("buckets")?;
        if dims.is_empty() || counts.len() != dims.len() || counts.iter().any(|&c| c < 1) {
            return Err("`dims` must be non-empty and `bucket_counts` give a positive count per dim".into());
        }
        let total = counts.iter().try_fold(0i64, |acc, &c| acc.checked_add(c));
        if total != Some(flat_buckets.len() as i64) {
            return Err("`buckets` must hold exactly the sum of `bucket_counts` sizes".into());
        }
        let mut buckets = Vec::new();
        let mut rest = &flat_buckets[..];
        for (d, &c) in dims.iter().zip(&counts) {
            let (head, tail) = rest.split_at(c as usize);
            if head.first().is_some_and(|&b| b < 1) || head.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("buckets of `{d}` must be positive and strictly increasing, found {head:?}"));
            }
            buckets.push(head.iter().map(|&b| b as u64).collect());
            rest = tail;
        }
        let d = Dispatch {
            dims,
            buckets,
            callees: strs("callees")?,
            pads: triples(&ints("pad_axes")?, "pad_axes")?,
            pad_values: a
                .floats("pad_values")
                .map(<[f32]>::to_vec)
                .ok_or("missing float-list attribute `pad_values`")?,
            slices: triples(&ints("slice_axes")?, "slice_axes")?,
        };
        d.check_structure()?;
        Ok(d)
    }

    fn check_structure(&self) -> Result<(), String> {
        let combos = self.buckets.iter().try_fold(1usize, |acc, b| acc.checked_mul(b.len()));
        if combos != Some(self.callees.len()) {
            let n = combos.map_or("too many".to_string(), |c| c.to_string());
            return Err(format!("{} callee(s) for {n} bucket combination(s)", self.callees.len()));
        }
        if let Some(r) = self.pads.iter().chain(&self.slices).find(|r| r.dim >= self.dims.len()) {
            return Err(format!("axis triple names dim #{} of {}", r.dim, self.dims.len()));
        }
        if let Some(d) = (0..self.dims.len()).find(|&d| !self.pads.iter().any(|r| r.dim == d)) {
            return Err(format!("dim `{}` is on no operand axis, so its size cannot be known", self.dims[d]));
        }
        Ok(())
    }

    /// The attributes encoding `self`.
    pub fn to_attrs(&self) -> Attrs {
        let counts = self.buckets.iter().map(|b| b.len() as i64).collect();
        let flat_b = self.buckets.iter().flatten().map(|&b| b as i64).collect();
        Attrs::new()
            .with("dims", Attr::Strs(self.dims.clone()))
            .with("bucket_counts", Attr::Ints(counts))
            .with("buckets", Attr::Ints(flat_b))
            .with("callees", Attr::Strs(self.callees.clone()))
            .with("pad_axes", Attr::Ints(flat(&self.pads)))
            .with("pad_values", Attr::Floats(self.pad_values.clone()))
            .with("slice_axes", Attr::Ints(flat(&self.slices)))
    }

    /// The bucket sizes of combination `index` (row-major, last dim fastest).
    pub fn combination(&self, mut index: usize) -> Vec<u64> {
        let mut out = vec![0; self.buckets.len()];
        for (d, b) in self.buckets.iter().enumerate().rev() {
            out[d] = b[index % b.len()];
            index /= b.len();
        }
        out
    }

    /// The callee index and bucket sizes for the actual dim sizes, or an error
    /// naming the first dim that exceeds its largest bucket.
    pub fn select(&self, sizes: &[u64]) -> Result<(usize, Vec<u64>), String> {
        let mut index = 0;
        let mut chosen = Vec::new();
        for ((d, b), &n) in self.dims.iter().zip(&self.buckets).zip(sizes) {
            let Some(i) = b.iter().position(|&s| s >= n) else {
                let list: Vec<String> = b.iter().map(u64::to_string).collect();
                return Err(format!(
                    "dim `{d}` is {n}, larger than the largest bucket {} (buckets: {})",
                    b[b.len() - 1],
                    list.join(", ")
                ));
            };
            index = index * b.len() + i;
            chosen.push(b[i]);
        }
        Ok((index, chosen))
    }
}

/// Placeholder for ops whose inference needs the module (`infer_module`).
pub fn needs_module(_ctx: &InferCtx<'_>) -> InferResult {
    Err("result types are inferred from the callee functions".into())
}

/// Inference of `core.bucket_dispatch`: checks every callee against the
/// operands and the attributes; results are the first callee's result types
/// with the sliced axes turned back into their dim symbols.
pub fn bucket_dispatch(ctx: &InferCtx<'_>, m: &Module, caller: &Function) -> InferResult {
    let d = Dispatch::from_attrs(ctx.attrs)?;
    let mut results: Option<Vec<TensorType>> = None;
    for (ci, name) in d.callees.iter().enumerate() {
        let callee = callee(m, caller, name)?;
        check_callee(ctx, &d, callee, &d.combination(ci)).map_err(|e| format!("callee @{name}: {e}"))?;
        let got = &callee.result_types;
        results = Some(match results {
            None => got.clone(),
            Some(prev) => {
                prev.iter().zip(got).map(|(a, b)| super::control::join_types(a, b)).collect::<Result<_, _>>()?
            }
        });
    }
    let mut results = results.ok_or("no callees")?;
    if results.len() != ctx.num_results {
        return Err(format!("callees yield {} result(s), the op has {}", results.len(), ctx.num_results));
    }
    for r in &d.slices {
        let t = results.get_mut(r.tensor).ok_or_else(|| format!("slice_axes names result #{}", r.tensor))?;
        let mut dims = t.dims().ok_or_else(|| format!("result #{} is unranked", r.tensor))?.to_vec();
        let slot = dims.get_mut(r.axis).ok_or_else(|| format!("result #{} has no axis {}", r.tensor, r.axis))?;
        *slot = Dim::Sym(Symbol::new(&d.dims[r.dim]));
        t.shape = Shape::from_dims(dims);
    }
    Ok(results)
}

fn callee<'m>(m: &'m Module, caller: &Function, name: &str) -> Result<&'m Function, String> {
    let f = m.func(name).ok_or_else(|| format!("callee @{name} is not a function of the module"))?;
    let nested = f.live_ops().iter().any(|&id| f.ops[id].opcode == super::Opcode::CoreBucketDispatch);
    if name == caller.name || nested {
        return Err(format!("callee @{name} dispatches itself; callees must be plain functions"));
    }
    Ok(f)
}

fn check_callee(ctx: &InferCtx<'_>, d: &Dispatch, f: &Function, sizes: &[u64]) -> Result<(), String> {
    if f.body.params.len() != ctx.num_operands() {
        return Err(format!("takes {} parameter(s), the op passes {}", f.body.params.len(), ctx.num_operands()));
    }
    for (i, &p) in f.body.params.iter().enumerate() {
        let (want, got) = (ctx.input(i)?, f.ty(p));
        if want.dtype != got.dtype || want.rank() != got.rank() {
            return Err(format!("parameter #{i} is {got}, the op passes {want}"));
        }
    }
    for r in &d.pads {
        let p = f.body.params.get(r.tensor).ok_or_else(|| format!("pad_axes names operand #{}", r.tensor))?;
        let dim = f.ty(*p).dims().and_then(|ds| ds.get(r.axis).copied());
        if dim != Some(Dim::Static(sizes[r.dim])) {
            return Err(format!(
                "parameter #{} axis {} must be the bucket size {} of `{}`",
                r.tensor, r.axis, sizes[r.dim], d.dims[r.dim]
            ));
        }
    }
    if d.pad_values.len() != ctx.num_operands() {
        return Err(format!("{} pad value(s) for {} operand(s)", d.pad_values.len(), ctx.num_operands()));
    }
    Ok(())
}
