//! onnxruntime's `com.microsoft` contrib ops, lowered on import to standard
//! `onnx.*` ops so every later stage (interpreter, passes, backends) handles
//! them without knowing they existed.
//!
//! Each rule follows onnxruntime's CPU kernel: where ORT computes in integers
//! (dynamic quantization, `MatMulInteger`-style accumulation) the rule emits
//! the integer ops rather than dequantizing, so results match ORT's; where
//! ORT computes in float and requantizes (`QLinear*`), the rule emits
//! `DequantizeLinear` → float op → `QuantizeLinear`.
//!
//! Invariants: every emitted op carries the node's name and op type as its
//! `Loc` (via `NodeCx`); a rule either binds all requested outputs or returns
//! an error naming what is wrong (never panics on input-derived data).

mod attention;
mod extra;
mod fused;
mod mask;
mod misc;
mod mlas;
mod nbits;
mod norm;
mod qlstm;
mod qmatmul;
mod quant;

use super::node::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode, Value};

/// Contrib op types with an importer rule.
const SUPPORTED: &[&str] = &[
    // quant.rs
    "QLinearAdd",
    "QLinearMul",
    "QLinearSigmoid",
    "QLinearLeakyRelu",
    "QLinearGlobalAveragePool",
    "QLinearAveragePool",
    "QLinearConcat",
    "QLinearSoftmax",
    "QLinearConv",
    "QLinearWhere",
    "QuantizeLinear",
    "DequantizeLinear",
    "NhwcMaxPool",
    // qmatmul.rs
    "DynamicQuantizeMatMul",
    "MatMulIntegerToFloat",
    "QGemm",
    "MatMulNBits",
    // qlstm.rs
    "DynamicQuantizeLSTM",
    // fused.rs
    "FusedConv",
    "FusedGemm",
    "FusedMatMul",
    "Gelu",
    "FastGelu",
    "BiasGelu",
    "QuickGelu",
    "BiasAdd",
    "Range",
    "Trilu",
    "GridSample",
    "Inverse",
    "TransposeMatMul",
    "ExpandDims",
    "Pad",
    "GatherND",
    "Unique",
    "MatMulInteger16",
    "CDist",
    "QEmbedLayerNormalization",
    "GatherBlockQuantized",
    "GroupNorm",
    "SkipGroupNorm",
    "BiasSplitGelu",
    "GemmFastGelu",
    // norm.rs
    "LayerNormalization",
    "SimplifiedLayerNormalization",
    "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization",
    "EmbedLayerNormalization",
    // attention.rs
    "Attention",
    "QAttention",
    "RotaryEmbedding",
    "MultiHeadAttention",
    "BiasSoftmax",
];

/// Whether a contrib op type has an importer rule.
pub(super) fn is_supported(op_type: &str) -> bool {
    SUPPORTED.contains(&op_type)
}

/// Default-domain op types that onnxruntime registers itself (not in the
/// ONNX standard) and that are imported by the contrib rules.
pub(super) fn default_domain_op(op_type: &str) -> bool {
    op_type == "SimplifiedLayerNormalization"
}

/// Import one contrib node (`is_supported` holds for its op type).
pub(super) fn convert(cx: &mut NodeCx<'_, '_, '_>, inputs: &[Option<Value>]) -> NResult<()> {
    let op = cx.node.op_type.clone();
    let ins = Ins(inputs);
    match op.as_str() {
        "QLinearAdd" | "QLinearMul" => quant::binary(cx, &ins, &op),
        "QLinearSigmoid" | "QLinearLeakyRelu" => quant::unary(cx, &ins, &op),
        "QLinearGlobalAveragePool" | "QLinearAveragePool" => quant::avg_pool(cx, &ins, &op),
        "QLinearConcat" => quant::concat(cx, &ins),
        "QLinearSoftmax" => quant::softmax(cx, &ins),
        "QLinearConv" => quant::conv(cx, &ins),
        "QLinearWhere" => quant::select(cx, &ins),
        "QuantizeLinear" | "DequantizeLinear" => quant::q_dq(cx, &ins, &op),
        "NhwcMaxPool" => misc::nhwc_max_pool(cx, &ins),
        "Inverse" => misc::inverse(cx, &ins),
        "DynamicQuantizeMatMul" => qmatmul::dynamic_quantize_matmul(cx, &ins),
        "MatMulIntegerToFloat" => qmatmul::matmul_integer_to_float(cx, &ins),
        "QGemm" => qmatmul::qgemm(cx, &ins),
        "MatMulNBits" => nbits::matmul_nbits(cx, &ins),
        "DynamicQuantizeLSTM" => qlstm::dynamic_quantize_lstm(cx, &ins),
        "FusedConv" => fused::fused_conv(cx, &ins),
        "FusedGemm" => fused::fused_gemm(cx, &ins),
        "FusedMatMul" | "TransposeMatMul" => fused::fused_matmul(cx, &ins),
        "ExpandDims" => extra::expand_dims(cx, &ins),
        "Pad" => extra::pad(cx, &ins),
        "GatherND" => extra::gather_nd(cx, &ins),
        "Unique" => extra::unique(cx, &ins),
        "MatMulInteger16" => extra::matmul_integer16(cx, &ins),
        "CDist" => extra::cdist(cx, &ins),
        "QEmbedLayerNormalization" => extra::q_embed_layer_norm(cx, &ins),
        "GatherBlockQuantized" => extra::gather_block_quantized(cx, &ins),
        "GroupNorm" | "SkipGroupNorm" => norm::group_norm(cx, &ins, &op),
        "BiasSplitGelu" => fused::bias_split_gelu(cx, &ins),
        "GemmFastGelu" => fused::gemm_fast_gelu(cx, &ins),
        "Gelu" | "FastGelu" | "BiasGelu" | "QuickGelu" => fused::gelu(cx, &ins, &op),
        "BiasAdd" => fused::bias_add(cx, &ins),
        "Range" | "Trilu" | "GridSample" => misc::standard(cx, &ins, &op),
        "LayerNormalization" => norm::layer_norm(cx, &ins),
        "SimplifiedLayerNormalization" => norm::simplified_layer_norm(cx, &ins),
        "SkipLayerNormalization" | "SkipSimplifiedLayerNormalization" => norm::skip_layer_norm(cx, &ins, &op),
        "EmbedLayerNormalization" => norm::embed_layer_norm(cx, &ins),
        "Attention" => attention::attention(cx, &ins),
        "QAttention" => attention::q_attention(cx, &ins),
        "RotaryEmbedding" => norm::rotary_embedding(cx, &ins),
        "MultiHeadAttention" => attention::multi_head_attention(cx, &ins),
        "BiasSoftmax" => attention::bias_softmax(cx, &ins),
        _ => Err(NodeError::Unsupported(format!("com.microsoft::{op}"))),
    }
}

/// The node's operands (absent optional inputs are `None`).
pub(super) struct Ins<'a>(&'a [Option<Value>]);

impl Ins<'_> {
    /// Required input `i`, named `name` in messages.
    fn req(&self, i: usize, name: &str) -> NResult<Value> {
        self.opt(i).ok_or_else(|| NodeError::Error(format!("required input #{i} (`{name}`) is missing")))
    }
    /// Optional input `i`.
    fn opt(&self, i: usize) -> Option<Value> {
        self.0.get(i).copied().flatten()
    }
    /// Number of input slots (present or not).
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Emit `opcode` with `operands` and `attrs`; its first result.
fn op(cx: &mut NodeCx<'_, '_, '_>, opcode: Opcode, operands: Vec<Option<Value>>, attrs: Attrs) -> NResult<Value> {
    cx.emit_tmp(opcode, operands, attrs)
}

/// Emit `opcode` on required operands without attributes.
fn op1(cx: &mut NodeCx<'_, '_, '_>, opcode: Opcode, operands: &[Value]) -> NResult<Value> {
    cx.emit_tmp(opcode, operands.iter().map(|&v| Some(v)).collect(), Attrs::new())
}

/// Emit an op with `n` results.
fn op_n(
    cx: &mut NodeCx<'_, '_, '_>,
    opcode: Opcode,
    operands: Vec<Option<Value>>,
    attrs: Attrs,
    n: usize,
) -> NResult<Vec<Value>> {
    cx.emit(opcode, operands, attrs, n, &[])
}

/// Bind output `i` of the node (if requested) to `v`.
fn bind_at(cx: &mut NodeCx<'_, '_, '_>, i: usize, v: Value) {
    if let Some(name) = cx.node.output.get(i).filter(|n| !n.is_empty()).cloned() {
        cx.scope.define(&name, v);
    }
}

/// Whether output `i` is requested.
fn wants(cx: &NodeCx<'_, '_, '_>, i: usize) -> bool {
    cx.node.output.get(i).is_some_and(|n| !n.is_empty())
}

fn int_attr(cx: &NodeCx<'_, '_, '_>, name: &str, default: i64) -> i64 {
    cx.attr(name).map_or(default, |a| a.i)
}

fn float_attr(cx: &NodeCx<'_, '_, '_>, name: &str, default: f32) -> f32 {
    cx.attr(name).map_or(default, |a| a.f)
}

fn str_attr(cx: &NodeCx<'_, '_, '_>, name: &str, default: &str) -> String {
    cx.attr(name).map_or_else(|| default.to_string(), |a| String::from_utf8_lossy(&a.s).into_owned())
}

fn ints_attr(cx: &NodeCx<'_, '_, '_>, name: &str) -> Option<Vec<i64>> {
    cx.attr(name).map(|a| a.ints.clone())
}

fn floats_attr(cx: &NodeCx<'_, '_, '_>, name: &str) -> Vec<f32> {
    cx.attr(name).map(|a| a.floats.clone()).unwrap_or_default()
}

/// Copy the listed attributes (those present) into `attrs` as the given kind.
fn copy_attrs(cx: &NodeCx<'_, '_, '_>, names: &[&str], mut attrs: Attrs) -> Attrs {
    for &n in names {
        let Some(a) = cx.attr(n) else { continue };
        let v = if !a.ints.is_empty() || a.r#type == 7 {
            Attr::Ints(a.ints.clone())
        } else if a.r#type == 3 {
            Attr::Str(String::from_utf8_lossy(&a.s).into_owned())
        } else if a.r#type == 1 {
            Attr::Float(a.f)
        } else {
            Attr::Int(a.i)
        };
        attrs.set(n, v);
    }
    attrs
}

fn dtype(cx: &NodeCx<'_, '_, '_>, v: Value) -> DType {
    cx.ty(v).dtype
}

/// Static dims of `v`, or an error naming `what`.
fn static_dims(cx: &NodeCx<'_, '_, '_>, v: Value, what: &str) -> NResult<Vec<u64>> {
    cx.ty(v).shape.static_dims().ok_or_else(|| NodeError::Error(format!("`{what}` needs a static shape here")))
}

/// Rank of `v`, or an error naming `what`.
fn rank(cx: &NodeCx<'_, '_, '_>, v: Value, what: &str) -> NResult<usize> {
    cx.ty(v).rank().ok_or_else(|| NodeError::Error(format!("`{what}` needs a known rank")))
}

/// An f32 scalar constant.
fn f32_const(cx: &mut NodeCx<'_, '_, '_>, x: f32, hint: &str) -> Value {
    cx.constant(&Tensor::new(vec![], Data::F32(vec![x])), hint)
}

/// An f64 scalar constant.
fn f64_const(cx: &mut NodeCx<'_, '_, '_>, x: f64, hint: &str) -> Value {
    cx.constant(&Tensor::new(vec![], Data::F64(vec![x])), hint)
}

/// `zp` if present, else a zero scalar of `dt` (the quantized type).
fn zero_point(cx: &mut NodeCx<'_, '_, '_>, zp: Option<Value>, dt: DType) -> NResult<Value> {
    match zp {
        Some(z) => Ok(z),
        None => cx.scalar(dt, 0.0, "zero_point"),
    }
}

/// `DequantizeLinear(x, scale, zp)` with an optional per-axis `axis`.
fn dequantize(cx: &mut NodeCx<'_, '_, '_>, x: Value, scale: Value, zp: Option<Value>) -> NResult<Value> {
    op(cx, Opcode::DequantizeLinear, vec![Some(x), Some(scale), zp], Attrs::new())
}

/// `QuantizeLinear(x, scale, zp)`; `zp` fixes the output type.
fn quantize(cx: &mut NodeCx<'_, '_, '_>, x: Value, scale: Value, zp: Value) -> NResult<Value> {
    op(cx, Opcode::QuantizeLinear, vec![Some(x), Some(scale), Some(zp)], Attrs::new())
}

/// `Transpose(x, perm)`.
fn transpose(cx: &mut NodeCx<'_, '_, '_>, x: Value, perm: &[i64]) -> NResult<Value> {
    op(cx, Opcode::Transpose, vec![Some(x)], Attrs::new().with("perm", Attr::Ints(perm.to_vec())))
}

/// `Cast(x, to)`.
fn cast(cx: &mut NodeCx<'_, '_, '_>, x: Value, to: DType) -> NResult<Value> {
    op(cx, Opcode::Cast, vec![Some(x)], Attrs::new().with("to", Attr::Type(to)))
}

/// `Reshape(x, shape)` with a constant target.
fn reshape(cx: &mut NodeCx<'_, '_, '_>, x: Value, shape: &[i64]) -> NResult<Value> {
    let s = cx.const_i64s(shape, "shape");
    op1(cx, Opcode::Reshape, &[x, s])
}

/// Channels-last ↔ channels-first permutations for rank `r`.
fn nhwc_perms(r: usize) -> (Vec<i64>, Vec<i64>) {
    let r = r as i64;
    let to_first: Vec<i64> = std::iter::once(0).chain(std::iter::once(r - 1)).chain(1..r - 1).collect();
    let to_last: Vec<i64> = std::iter::once(0).chain(2..r).chain(std::iter::once(1)).collect();
    (to_first, to_last)
}

/// An activation named as in FusedConv/FusedGemm, applied to `x`.
fn activation(cx: &mut NodeCx<'_, '_, '_>, name: &str, params: &[f32], x: Value) -> NResult<Value> {
    let p = |i: usize, d: f32| params.get(i).copied().unwrap_or(d);
    let alpha = |a: f32| Attrs::new().with("alpha", Attr::Float(a));
    match name {
        "" => Ok(x),
        "Relu" => op1(cx, Opcode::Relu, &[x]),
        "Tanh" => op1(cx, Opcode::Tanh, &[x]),
        "Sigmoid" => op1(cx, Opcode::Sigmoid, &[x]),
        "LeakyRelu" => op(cx, Opcode::LeakyRelu, vec![Some(x)], alpha(p(0, 0.01))),
        "Elu" => op(cx, Opcode::Elu, vec![Some(x)], alpha(p(0, 1.0))),
        "HardSigmoid" => {
            let attrs = alpha(p(0, 0.2)).with("beta", Attr::Float(p(1, 0.5)));
            op(cx, Opcode::HardSigmoid, vec![Some(x)], attrs)
        }
        "Clip" => {
            let dt = dtype(cx, x);
            let lo = cx.scalar(dt, p(0, f32::MIN) as f64, "clip_min")?;
            let hi = cx.scalar(dt, p(1, f32::MAX) as f64, "clip_max")?;
            op1(cx, Opcode::Clip, &[x, lo, hi])
        }
        other => Err(NodeError::Error(format!("activation `{other}` is not supported"))),
    }
}
