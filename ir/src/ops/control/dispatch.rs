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

use crate::attr::{Attr, Attrs};
use crate::ops::{InferCtx, InferResult};

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

/// Placeholder: the inference of ops that see the module is `crate::infer`'s.
pub fn needs_module(_ctx: &InferCtx<'_>) -> InferResult {
    Err("result types are inferred from the callee functions".into())
}
