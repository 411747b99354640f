//! Fused and canonical `core.*` ops produced by the e-graph fusion and
//! recognition rules: convolutions and matrix products with an activation
//! epilogue, scaled dot-product attention and SiLU.
//!
//! Each fused op is defined as the composition of the unfused `onnx.*` ops it
//! replaces, evaluated exactly as the reference interpreter evaluates that
//! chain (so a rewrite never changes interpreter results). Standalone forms
//! that already exist (`onnx.Gelu`, `onnx.HardSwish`, `onnx.HardSigmoid`,
//! `onnx.LayerNormalization`, `onnx.Softmax`) are used as they are.

use super::{conv, expect_dtype, nn, InferCtx, InferResult};
use crate::attr::{Attr, AttrKind, Attrs};
use crate::types::{DType, Dim, Shape, TensorType};
pub use edgec_numeric::act::{ActAttrs, Activation, ACT_NAMES};

/// Schema kind of the `act` attribute.
pub const ACT_KIND: AttrKind = AttrKind::Enum(ACT_NAMES);

/// The IR's attribute map holds an [`Activation`] as `act`, `act_alpha`
/// and `act_beta`.
impl ActAttrs for Attrs {
    fn get_str(&self, name: &str) -> Result<Option<&str>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Attr::Str(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(format!("attribute `{name}` must be a string, found {other:?}")),
        }
    }
    fn get_float(&self, name: &str) -> Result<Option<f32>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Attr::Float(x)) => Ok(Some(*x)),
            Some(other) => Err(format!("attribute `{name}` must be a float, found {other:?}")),
        }
    }
    fn remove(&mut self, name: &str) {
        Attrs::remove(self, name);
    }
    fn set_str(&mut self, name: &str, value: &str) {
        self.set(name, Attr::Str(value.into()));
    }
    fn set_float(&mut self, name: &str, value: f32) {
        self.set(name, Attr::Float(value));
    }
}

/// `core.conv`: `onnx.Conv`'s inference after checking the activation attributes.
pub fn conv(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    conv::conv(ctx)
}

/// `core.conv_transpose`: `onnx.ConvTranspose`'s inference after checking the activation attributes.
pub fn conv_transpose(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    conv::conv_transpose(ctx)
}

/// `t` with its last two axes swapped (unchanged if unranked).
fn swap_last_two(t: &TensorType) -> TensorType {
    match t.dims() {
        Some(d) if d.len() >= 2 => {
            let mut d = d.to_vec();
            let r = d.len();
            d.swap(r - 2, r - 1);
            TensorType::new(t.dtype, Shape::from_dims(d))
        }
        _ => t.clone(),
    }
}

/// The last dim of `t`, if ranked and rank ≥ 1.
fn last(t: &TensorType) -> Option<Dim> {
    t.dims().and_then(|d| d.last().copied())
}

/// `onnx.MatMul`'s inference on two given operand types.
fn matmul_of(ctx: &InferCtx<'_>, a: &TensorType, b: &TensorType) -> Result<TensorType, String> {
    let operands = [Some(a), Some(b)];
    let sub = InferCtx { operands: &operands, consts: &[], attrs: ctx.attrs, num_results: 1, attr_const: None };
    nn::matmul(&sub)?.pop().ok_or_else(|| "internal: MatMul inference gave no result".into())
}

/// Error unless `what` (type `t`) has element type `dt` (that of `of`).
pub(crate) fn expect_same(t: &TensorType, what: &str, dt: DType, of: &str) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt} (the type of {of})", t.dtype))
    }
}

/// Check that `src` broadcasts to `target` without changing it (only `src`
/// may stretch). Returns `target` with unknown dims refined from static
/// non-1 dims of `src`.
pub(crate) fn broadcast_into(src: &TensorType, what: &str, target: &TensorType) -> Result<TensorType, String> {
    let (Some(sd), Some(td)) = (src.dims(), target.dims()) else { return Ok(target.clone()) };
    let bad = |why: String| format!("{what} {src} does not broadcast to {target} without changing it ({why})");
    if sd.len() > td.len() {
        return Err(bad(format!("rank {} > {}", sd.len(), td.len())));
    }
    let off = td.len() - sd.len();
    let mut out = td.to_vec();
    for (j, &d) in sd.iter().enumerate() {
        match (d, out[off + j]) {
            (Dim::Static(a), Dim::Static(b)) if a != 1 && a != b => return Err(bad(format!("dims {a} and {b}"))),
            (Dim::Static(a), Dim::Unknown) if a != 1 => out[off + j] = Dim::Static(a),
            _ => {}
        }
    }
    Ok(TensorType::new(target.dtype, Shape::from_dims(out)))
}

/// `core.linear`: `act(MatMul(A, B') + bias)` where `B'` is `B` with its last
/// two axes swapped if `trans_b = 1`. The result is MatMul's; `bias` must
/// broadcast to it without changing its shape.
pub fn linear(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(a, "A", DType::is_float, "a float type")?;
    expect_same(b, "B", a.dtype, "A")?;
    let trans_b = match ctx.int("trans_b", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("attribute `trans_b` = {v} must be 0 or 1")),
    };
    let bt = if trans_b {
        if b.rank().is_some_and(|r| r < 2) {
            return Err(format!("B {b} must have rank ≥ 2 when trans_b = 1"));
        }
        if let (Some(Dim::Static(p)), Some(Dim::Static(q))) = (last(a), last(b)) {
            if p != q {
                return Err(format!(
                    "inner dimensions differ: A {a} has K = {p} but B {b} has K = {q} (trans_b = 1: B is [.., N, K])"
                ));
            }
        }
        swap_last_two(b)
    } else {
        b.clone()
    };
    let mut y = matmul_of(ctx, a, &bt)?;
    if let Some(bias) = ctx.opt_input(2) {
        expect_same(bias, "bias", a.dtype, "A")?;
        y = broadcast_into(bias, "bias", &y)?;
    }
    Ok(vec![y])
}

/// Error unless `t` is unranked or has rank ≥ 2; `layout` describes the expected axes.
fn rank2(t: &TensorType, what: &str, layout: &str) -> Result<(), String> {
    match t.rank() {
        Some(r) if r < 2 => Err(format!("{what} {t} must have rank ≥ 2 ({layout})")),
        _ => Ok(()),
    }
}

/// Dim `i` counted from the end (`1` is the last), if known.
fn from_end(t: &TensorType, i: usize) -> Option<Dim> {
    t.dims().and_then(|d| d.len().checked_sub(i).map(|k| d[k]))
}

/// Error if both dims are static and differ.
fn same_dim(a: Option<Dim>, b: Option<Dim>, msg: impl FnOnce(u64, u64) -> String) -> Result<(), String> {
    match (a, b) {
        (Some(Dim::Static(p)), Some(Dim::Static(q))) if p != q => Err(msg(p, q)),
        _ => Ok(()),
    }
}

/// `core.attention`: `Q [..., Sq, D]`, `K [..., Sk, D]`, `V [..., Sk, Dv]`,
/// optional `mask` (bool or Q's type) broadcasting to the scores `[..., Sq, Sk]`
/// → `Y [..., Sq, Dv]`; leading dims broadcast like MatMul batch dims.
pub fn attention(ctx: &InferCtx<'_>) -> InferResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(q, "Q", DType::is_float, "a float type")?;
    expect_same(k, "K", q.dtype, "Q")?;
    expect_same(v, "V", q.dtype, "Q")?;
    rank2(q, "Q", "[..., Sq, D]")?;
    rank2(k, "K", "[..., Sk, D]")?;
    rank2(v, "V", "[..., Sk, Dv]")?;
    if ctx.attrs.float("scale").is_none() {
        return Err("missing required attribute `scale`".into());
    }
    let causal = ctx.int("causal", 0);
    if causal != 0 && causal != 1 {
        return Err(format!("attribute `causal` = {causal} must be 0 or 1"));
    }
    if let Some(w) = ctx.attrs.int("window").filter(|&w| w < 0) {
        return Err(format!("attribute `window` = {w} must be >= 0"));
    }
    same_dim(from_end(q, 1), from_end(k, 1), |p, r| {
        format!("Q {q} and K {k} must have the same head size D (last dim): {p} vs {r}")
    })?;
    same_dim(from_end(k, 2), from_end(v, 2), |p, r| {
        format!("K {k} and V {v} must have the same key count Sk (second-to-last dim): {p} vs {r}")
    })?;
    let scores = matmul_of(ctx, q, &swap_last_two(k)).map_err(|e| format!("Q @ Kᵀ: {e}"))?;
    if let Some(mask) = ctx.opt_input(3) {
        if mask.dtype != DType::Bool {
            expect_same(mask, "mask", q.dtype, "Q").map_err(|e| format!("{e} or bool"))?;
        }
        broadcast_into(mask, "mask", &scores)?;
    }
    let y = matmul_of(ctx, &scores, v).map_err(|e| format!("softmax(scores) @ V: {e}"))?;
    Ok(vec![y])
}

/// `core.attention_blocked`: `core.attention`'s inference, plus `block_q` and
/// `block_k` (required) must be ≥ 1. The result does not depend on them.
pub fn attention_blocked(ctx: &InferCtx<'_>) -> InferResult {
    for name in ["block_q", "block_k"] {
        match ctx.attrs.int(name) {
            None => return Err(format!("missing required attribute `{name}`")),
            Some(b) if b < 1 => return Err(format!("attribute `{name}` = {b} must be >= 1")),
            Some(_) => {}
        }
    }
    attention(ctx)
}
