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
use crate::interp::elementwise::num::round_to;
use crate::types::{DType, Dim, Shape, TensorType};
use edgec_numeric::act::Activation as Formula;

/// The values of the `act` attribute, in [`Activation`] order.
pub const ACT_NAMES: &[&str] = &[
    "none",
    "relu",
    "clip",
    "sigmoid",
    "hard_sigmoid",
    "hard_swish",
    "leaky_relu",
    "silu",
    "gelu",
    "gelu_tanh",
    "tanh",
];

/// Schema kind of the `act` attribute.
pub const ACT_KIND: AttrKind = AttrKind::Enum(ACT_NAMES);

/// The activation epilogue of `core.conv`, `core.conv_transpose` and
/// `core.linear`, applied to every element of the op's (rounded) result.
///
/// Invariant: applying it to an element of float type `dt` gives bit for bit
/// what the corresponding unfused `onnx.*` op (or, for `Silu`, the pair
/// `Mul(x, Sigmoid(x))`) gives in the reference interpreter, because the
/// formulas are the interpreter's own (computed in `f64`, rounded to `dt`
/// once per ONNX primitive). `Clip` bounds are `f32` attributes, so they match
/// an `onnx.Clip` whose bounds are representable in the element type.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Activation {
    /// No epilogue (`act` absent or `"none"`).
    #[default]
    None,
    /// `onnx.Relu`: `x < 0 ? 0 : x`.
    Relu,
    /// `onnx.Clip` with bounds `min = act_alpha` (default `-inf`) and `max = act_beta` (default `+inf`).
    Clip {
        /// Lower bound.
        min: f32,
        /// Upper bound.
        max: f32,
    },
    /// `onnx.Sigmoid`.
    Sigmoid,
    /// `onnx.HardSigmoid`: `max(0, min(1, alpha * x + beta))`.
    HardSigmoid {
        /// `act_alpha`, default 0.2.
        alpha: f32,
        /// `act_beta`, default 0.5.
        beta: f32,
    },
    /// `onnx.HardSwish`.
    HardSwish,
    /// `onnx.LeakyRelu`: `x > 0 ? x : alpha * x`.
    LeakyRelu {
        /// `act_alpha`, default 0.01.
        alpha: f32,
    },
    /// `Mul(x, Sigmoid(x))`: the sigmoid is rounded to the element type before the product.
    Silu,
    /// `onnx.Gelu` with `approximate = "none"`.
    Gelu,
    /// `onnx.Gelu` with `approximate = "tanh"`.
    GeluTanh,
    /// `onnx.Tanh`.
    Tanh,
}

impl Activation {
    /// The `act` attribute value naming this activation.
    pub fn name(&self) -> &'static str {
        match self {
            Activation::None => "none",
            Activation::Relu => "relu",
            Activation::Clip { .. } => "clip",
            Activation::Sigmoid => "sigmoid",
            Activation::HardSigmoid { .. } => "hard_sigmoid",
            Activation::HardSwish => "hard_swish",
            Activation::LeakyRelu { .. } => "leaky_relu",
            Activation::Silu => "silu",
            Activation::Gelu => "gelu",
            Activation::GeluTanh => "gelu_tanh",
            Activation::Tanh => "tanh",
        }
    }

    /// Read `act`, `act_alpha` and `act_beta`. Errors name an unknown `act`
    /// value, a parameter of the wrong kind, or a parameter the activation does
    /// not take (so equal activations always have equal attributes).
    pub fn from_attrs(attrs: &Attrs) -> Result<Activation, String> {
        let act = match attrs.get("act") {
            None => "none",
            Some(Attr::Str(s)) => s.as_str(),
            Some(other) => return Err(format!("attribute `act` must be a string, found {other:?}")),
        };
        let param = |name: &str| match attrs.get(name) {
            None => Ok(None),
            Some(Attr::Float(x)) => Ok(Some(*x)),
            Some(other) => Err(format!("attribute `{name}` must be a float, found {other:?}")),
        };
        let (alpha, beta) = (param("act_alpha")?, param("act_beta")?);
        let takes = match act {
            "clip" | "hard_sigmoid" => 2,
            "leaky_relu" => 1,
            _ => 0,
        };
        for (name, v, n) in [("act_alpha", alpha, 1), ("act_beta", beta, 2)] {
            if v.is_some() && takes < n {
                return Err(format!("attribute `{name}` is not used by act = \"{act}\""));
            }
        }
        Ok(match act {
            "none" => Activation::None,
            "relu" => Activation::Relu,
            "clip" => Activation::Clip { min: alpha.unwrap_or(f32::NEG_INFINITY), max: beta.unwrap_or(f32::INFINITY) },
            "sigmoid" => Activation::Sigmoid,
            "hard_sigmoid" => Activation::HardSigmoid { alpha: alpha.unwrap_or(0.2), beta: beta.unwrap_or(0.5) },
            "hard_swish" => Activation::HardSwish,
            "leaky_relu" => Activation::LeakyRelu { alpha: alpha.unwrap_or(0.01) },
            "silu" => Activation::Silu,
            "gelu" => Activation::Gelu,
            "gelu_tanh" => Activation::GeluTanh,
            "tanh" => Activation::Tanh,
            other => return Err(format!("attribute `act` = \"{other}\" is not one of {}", ACT_NAMES.join("|"))),
        })
    }

    /// Write `act` and its parameters into `attrs`, replacing any previous
    /// `act`, `act_alpha` and `act_beta`; `None` writes nothing. Parameters are
    /// always written explicitly, so the result does not depend on defaults.
    pub fn to_attrs(&self, attrs: &mut Attrs) {
        for name in ["act", "act_alpha", "act_beta"] {
            attrs.remove(name);
        }
        if *self == Activation::None {
            return;
        }
        attrs.set("act", Attr::Str(self.name().into()));
        let (alpha, beta) = match *self {
            Activation::Clip { min, max } => (Some(min), Some(max)),
            Activation::HardSigmoid { alpha, beta } => (Some(alpha), Some(beta)),
            Activation::LeakyRelu { alpha } => (Some(alpha), None),
            _ => (None, None),
        };
        if let Some(a) = alpha {
            attrs.set("act_alpha", Attr::Float(a));
        }
        if let Some(b) = beta {
            attrs.set("act_beta", Attr::Float(b));
        }
    }

    /// The activation of `x`, an element of float type `dt` widened to `f64`;
    /// the result is rounded to `dt` (and returned widened to `f64`).
    pub fn apply_in(&self, dt: DType, x: f64) -> f64 {
        self.formula().apply_rounded(x, |v| round_to(dt, v))
    }

    /// The numeric core's activation with these parameters, whose
    /// [`Formula::apply_rounded`] is the interpreter's formula.
    pub fn formula(&self) -> Formula {
        match *self {
            Activation::None => Formula::None,
            Activation::Relu => Formula::Relu,
            Activation::Clip { min, max } => Formula::Clip { min, max },
            Activation::Sigmoid => Formula::Sigmoid,
            Activation::HardSigmoid { alpha, beta } => Formula::HardSigmoid { alpha, beta },
            Activation::HardSwish => Formula::HardSwish,
            Activation::LeakyRelu { alpha } => Formula::LeakyRelu { alpha },
            Activation::Silu => Formula::Silu,
            Activation::Gelu => Formula::Gelu,
            Activation::GeluTanh => Formula::GeluTanh,
            Activation::Tanh => Formula::Tanh,
        }
    }

    /// The activation of an `f32` element, equal to the unfused `onnx.*` op's result.
    pub fn apply_f32(&self, x: f32) -> f32 {
        self.apply_in(DType::F32, x as f64) as f32
    }

    /// The activation of an `f64` element, equal to the unfused `onnx.*` op's result.
    pub fn apply_f64(&self, x: f64) -> f64 {
        self.apply_in(DType::F64, x)
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
