//! Canonical `core.*` forms of the ONNX layout ops whose shape or axes
//! parameters are tensor operands (`Reshape`, `Squeeze`, `Unsqueeze`, `Slice`,
//! `Expand`). In the canonical form those parameters are static attributes,
//! normalized so that equal computations have equal attributes and later
//! stages (kernels, NPU legality) see plain numbers. `core.reduce` (`Reduce*`)
//! is in [`crate::ops::reduce`]; it uses the axes validator [`sorted_axes`] and
//! [`infer_via`] from here.
//!
//! Each op is defined as its `onnx.*` counterpart applied to constant
//! operands built from the attributes: inference and the reference kernels
//! (`crate::interp::layout::canonical`) call the onnx functions, so a canonical op
//! computes bit for bit what the onnx op computes. The validators here state
//! and check each op's attribute invariants; the verifier reports a violation
//! as an inference error.

use crate::attr::{Attr, Attrs};
use crate::constant::Constant;
use crate::ops::{InferCtx, InferFn, InferResult};
use crate::types::TensorType;

/// A required integer-list attribute.
fn ints<'a>(attrs: &'a Attrs, name: &str) -> Result<&'a [i64], String> {
    attrs.ints(name).ok_or_else(|| format!("missing integer-list attribute `{name}`"))
}

/// `core.reshape`'s `shape`: every entry is a dim `>= 0` (0 is a zero-size dim,
/// never a copy of an input dim) or `-1` (inferred); at most one `-1`, and not
/// together with a 0 (the inferred dim would be ambiguous).
pub fn reshape_shape(attrs: &Attrs) -> Result<&[i64], String> {
    let s = ints(attrs, "shape")?;
    if let Some(v) = s.iter().find(|&&v| v < -1) {
        return Err(format!("`shape` {s:?} has invalid entry {v} (dims are >= 0, or -1 for the inferred one)"));
    }
    match s.iter().filter(|&&v| v == -1).count() {
        0 => Ok(s),
        1 if s.contains(&0) => Err(format!("`shape` {s:?} has both a 0 dim and -1 (the -1 is ambiguous)")),
        1 => Ok(s),
        _ => Err(format!("`shape` {s:?} has more than one -1")),
    }
}

/// A list of axes attribute `name`: non-empty, non-negative, strictly increasing.
pub fn sorted_axes<'a>(attrs: &'a Attrs, name: &str) -> Result<&'a [i64], String> {
    let a = ints(attrs, name)?;
    if a.is_empty() {
        return Err(format!("`{name}` must not be empty"));
    }
    if a.iter().any(|&x| x < 0) || a.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("`{name}` {a:?} must be non-negative and strictly increasing"));
    }
    Ok(a)
}

/// `core.slice`'s parameters, each one entry per sliced axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceParams<'a> {
    /// First index (ONNX semantics: negative counts from the end, clamped).
    pub starts: &'a [i64],
    /// End index, exclusive (same semantics).
    pub ends: &'a [i64],
    /// Sliced axes: non-negative, strictly increasing.
    pub axes: &'a [i64],
    /// Steps, non-zero.
    pub steps: &'a [i64],
}

/// Read and check `core.slice`'s attributes: all four lists present with equal
/// lengths, axes as in [`sorted_axes`], steps non-zero. Starts and ends keep
/// ONNX's semantics; the canonicalizing rewrite clamps them into range
/// wherever the dim is static (see the rule file).
pub fn slice_params(attrs: &Attrs) -> Result<SliceParams<'_>, String> {
    let p = SliceParams {
        starts: ints(attrs, "starts")?,
        ends: ints(attrs, "ends")?,
        axes: sorted_axes(attrs, "axes")?,
        steps: ints(attrs, "steps")?,
    };
    let n = p.axes.len();
    if p.starts.len() != n || p.ends.len() != n || p.steps.len() != n {
        return Err(format!(
            "`starts` {:?}, `ends` {:?}, `axes` {:?} and `steps` {:?} must have equal lengths",
            p.starts, p.ends, p.axes, p.steps
        ));
    }
    if p.steps.contains(&0) {
        return Err(format!("`steps` {:?} must not contain 0", p.steps));
    }
    Ok(p)
}

/// `core.expand`'s `shape`: dims `>= 0`.
pub fn expand_shape(attrs: &Attrs) -> Result<&[i64], String> {
    let s = ints(attrs, "shape")?;
    match s.iter().find(|&&v| v < 0) {
        Some(v) => Err(format!("`shape` {s:?} has negative dim {v}")),
        None => Ok(s),
    }
}

/// A 1-D i64 constant holding `v`.
pub fn i64_const(v: &[i64]) -> Constant {
    Constant::from_i64s("", &[v.len() as u64], v)
}

/// Run the onnx inference `f` on `ctx`'s first operand followed by the
/// constant operands `extra` (`None`: omitted), with attributes `attrs`.
pub(crate) fn infer_via(ctx: &InferCtx<'_>, f: InferFn, extra: &[Option<Constant>], attrs: &Attrs) -> InferResult {
    let x = ctx.input(0)?;
    if ctx.num_operands() != 1 {
        return Err(format!("expected 1 operand, found {}", ctx.num_operands()));
    }
    let operands: Vec<Option<&TensorType>> =
        std::iter::once(Some(x)).chain(extra.iter().map(|c| c.as_ref().map(|c| &c.ty))).collect();
    let consts: Vec<Option<&Constant>> = std::iter::once(None).chain(extra.iter().map(Option::as_ref)).collect();
    let sub = InferCtx { operands: &operands, consts: &consts, attrs, num_results: 1, attr_const: None };
    f(&sub)
}

/// `core.reshape`: `onnx.Reshape(X, shape)` with `allowzero = 1`.
pub fn reshape(ctx: &InferCtx<'_>) -> InferResult {
    let s = reshape_shape(ctx.attrs)?;
    infer_via(ctx, super::reshape, &[Some(i64_const(s))], &Attrs::new().with("allowzero", Attr::Int(1)))
}

/// `core.squeeze`: `onnx.Squeeze(X, axes)`.
pub fn squeeze(ctx: &InferCtx<'_>) -> InferResult {
    let axes = sorted_axes(ctx.attrs, "axes")?;
    infer_via(ctx, super::squeeze, &[Some(i64_const(axes))], &Attrs::new())
}

/// `core.unsqueeze`: `onnx.Unsqueeze(X, axes)`; axes are output positions.
pub fn unsqueeze(ctx: &InferCtx<'_>) -> InferResult {
    let axes = sorted_axes(ctx.attrs, "axes")?;
    infer_via(ctx, super::unsqueeze, &[Some(i64_const(axes))], &Attrs::new())
}

/// `core.slice`: `onnx.Slice(X, starts, ends, axes, steps)`.
pub fn slice(ctx: &InferCtx<'_>) -> InferResult {
    let p = slice_params(ctx.attrs)?;
    let lists = [p.starts, p.ends, p.axes, p.steps].map(|v| Some(i64_const(v)));
    infer_via(ctx, super::slice, &lists, &Attrs::new())
}

/// `core.expand`: `onnx.Expand(X, shape)`.
pub fn expand(ctx: &InferCtx<'_>) -> InferResult {
    let s = expand_shape(ctx.attrs)?;
    infer_via(ctx, super::expand, &[Some(i64_const(s))], &Attrs::new())
}
