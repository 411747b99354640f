//! The `com.microsoft` contrib-op cases (`testsuite/contrib/<case>/`, made by
//! `make_contrib.py` with onnxruntime's outputs): listing, per-op
//! tolerances, and comparison of edgec's outputs with ORT's.
//!
//! Comparison rules: float outputs pass if `|got - want| <= atol + rtol *
//! |want|` with the op's row of [`TOLERANCES`]; integer and bool outputs
//! must be equal, except that the quantized outputs of the ops whose row
//! gives `units > 0` may differ by at most that many quantization units.

use compiler::check::{compare, data_sets, read_data_set, Tolerance};
use compiler::frontend::onnx::proto::ModelProto;
use ir::interp::Tensor;
use prost::Message;
use std::path::{Path, PathBuf};

/// How closely one op's outputs must match onnxruntime's, and why.
#[derive(Clone, Copy, Debug)]
pub struct OpTolerance {
    /// Op type (`com.microsoft` unless it is a default-domain ORT op).
    pub op: &'static str,
    /// Relative float tolerance.
    pub rtol: f64,
    /// Absolute float tolerance.
    pub atol: f64,
    /// Quantized (integer) outputs may differ by this many units.
    pub units: i64,
    /// Why the tolerance is what it is.
    pub why: &'static str,
}

/// The float default: 1e-5 relative, with a 1e-6 absolute floor for values
/// near zero (where a relative bound means nothing).
pub const DEFAULT_TOLERANCE: OpTolerance =
    OpTolerance { op: "", rtol: 1e-5, atol: 1e-6, units: 0, why: "default: float32 rounding" };

const ONE_UNIT: &str = "MLAS folds the scales into ratios (Add: a·(As/Cs) + b·(Bs/Cs) + offset; Mul: (a−Az)(b−Bz)·(As·Bs/Cs)) instead of dequantize → op → quantize; a result at a .5 tie may round the other way: 1 unit, never more";

/// Per-op tolerances; ops not listed use [`DEFAULT_TOLERANCE`] (and so
/// must match integers exactly). Every float output of every case is within
/// the default: the largest absolute difference seen is about 2e-6 (a
/// MatMulNBits sum of 32 products), and the near-zero outputs of the Gelu
/// family, where MLAS's tanh/erf/logistic approximations leave ~5e-7, sit
/// under the 1e-6 floor.
pub const TOLERANCES: &[OpTolerance] = &[
    OpTolerance { op: "QLinearAdd", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QLinearMul", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QAttention", rtol: 1e-4, atol: 1e-6, units: 0, why: "the u8/i8 projection yields logits of a few hundred, so the last-bit difference of MLAS's fused scale-and-bias stage (one rounding; edgec: two) moves softmax outputs by up to ~2e-5 relative" },
    OpTolerance {
        op: "QLinearAveragePool",
        rtol: 0.0,
        atol: 0.0,
        units: 1,
        why: "ORT divides the float sum by the count with its own rounding order: 1 unit at ties",
    },
];

/// The tolerance row of `op`.
pub fn tolerance(op: &str) -> OpTolerance {
    TOLERANCES.iter().find(|t| t.op == op).copied().unwrap_or(OpTolerance { op: "", ..DEFAULT_TOLERANCE })
}

/// One case directory.
#[derive(Clone, Debug)]
pub struct Case {
    /// Directory name.
    pub name: String,
    /// The directory (holds `model.onnx` and `test_data_set_*`).
    pub dir: PathBuf,
    /// The op type of the model's (single) node.
    pub op: String,
    /// Its domain (`com.microsoft`, or empty for ORT's default-domain ops).
    pub domain: String,
    /// Where the expected outputs come from when not from onnxruntime (the
    /// case's `REFERENCE` file: a numpy formula, for ops ORT has no CPU
    /// kernel for).
    pub reference: Option<String>,
}

/// Where the cases live.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib")
}

/// Every case directory under `root`, sorted by name.
pub fn cases(root: &Path) -> Result<Vec<Case>, String> {
    let rd = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mut out = Vec::new();
    for e in rd.flatten() {
        let dir = e.path();
        let model = dir.join("model.onnx");
        if !model.is_file() {
            continue;
        }
        let bytes = std::fs::read(&model).map_err(|e| format!("{}: {e}", model.display()))?;
        let m = ModelProto::decode(bytes.as_slice()).map_err(|e| format!("{}: {e}", model.display()))?;
        let node = m.graph.as_ref().and_then(|g| g.node.first()).ok_or(format!("{}: no node", model.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let reference = std::fs::read_to_string(dir.join("REFERENCE")).ok().map(|r| r.trim().to_string());
        out.push(Case { name, dir, op: node.op_type.clone(), domain: node.domain.clone(), reference });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The largest differences seen over a case's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Deviation {
    /// Largest absolute float difference.
    pub max_abs: f64,
    /// Largest relative float difference (over nonzero expected values).
    pub max_rel: f64,
    /// Largest integer difference (quantization units).
    pub max_units: f64,
}

impl Deviation {
    /// The element-wise maximum of two deviations.
    pub fn max(self, o: Deviation) -> Deviation {
        Deviation {
            max_abs: self.max_abs.max(o.max_abs),
            max_rel: self.max_rel.max(o.max_rel),
            max_units: self.max_units.max(o.max_units),
        }
    }
}

/// Compare `got` with onnxruntime's `want` under `tol`; the deviation seen.
pub fn check(got: &[Tensor], want: &[Tensor], tol: OpTolerance) -> Result<Deviation, String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, onnxruntime gives {}", got.len(), want.len()));
    }
    let mut dev = Deviation::default();
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let dt = w.dtype();
        if dt.is_float() {
            let c = compare(i, g, w, Tolerance { rtol: tol.rtol, atol: tol.atol });
            if let Some(f) = c.failure {
                return Err(format!("output #{i}: {f}"));
            }
            dev = dev.max(Deviation { max_abs: c.max_abs, max_rel: c.max_rel, max_units: 0.0 });
            continue;
        }
        // Integers and bools: exact, or within `units` for quantized outputs.
        let c = compiler::check::compare_units(i, g, w, tol.units);
        if let Some(f) = c.failure {
            return Err(format!("output #{i} ({dt}): {f}"));
        }
        dev = dev.max(Deviation { max_units: c.max_abs, ..Deviation::default() });
    }
    Ok(dev)
}

/// Import `case`, run the reference interpreter on every data set, compare.
pub fn run_interpreter(case: &Case) -> Result<Deviation, String> {
    let m = compiler::frontend::onnx::import_file(&case.dir.join("model.onnx")).map_err(|e| format!("import: {e}"))?;
    ir::verify::verify(&m).map_err(|e| format!("verify: {e}"))?;
    let sets = data_sets(&case.dir);
    if sets.is_empty() {
        return Err("no test_data_set_*".into());
    }
    let mut dev = Deviation::default();
    for set in sets {
        let (inputs, expected) = read_data_set(&set)?;
        let got = ir::interp::run(&m, "main", inputs).map_err(|e| format!("run: {e}"))?;
        dev = dev.max(check(&got, &expected, tolerance(&case.op))?);
    }
    Ok(dev)
}

/// Every contrib op the importer lowers: `(op, domain, lowering)`.
pub const LOWERINGS: &[(&str, &str, &str)] = &[
    ("QLinearAdd", "com.microsoft", "DequantizeLinear ×2 → Add → QuantizeLinear"),
    ("QLinearMul", "com.microsoft", "DequantizeLinear ×2 → Mul → QuantizeLinear"),
    ("QLinearSigmoid", "com.microsoft", "DequantizeLinear → Sigmoid → QuantizeLinear"),
    ("QLinearLeakyRelu", "com.microsoft", "DequantizeLinear → LeakyRelu → QuantizeLinear"),
    ("QLinearGlobalAveragePool", "com.microsoft", "DequantizeLinear → (Transpose if channels_last) → GlobalAveragePool → QuantizeLinear"),
    ("QLinearAveragePool", "com.microsoft", "DequantizeLinear → (Transpose if channels_last) → AveragePool → QuantizeLinear"),
    ("QLinearConcat", "com.microsoft", "DequantizeLinear per input → Concat → QuantizeLinear"),
    ("QLinearSoftmax", "com.microsoft", "DequantizeLinear → Softmax (flattened at `axis` when `opset` < 13) → QuantizeLinear"),
    ("QLinearWhere", "com.microsoft", "DequantizeLinear ×2 → Where → QuantizeLinear"),
    ("QLinearConv", "com.microsoft", "onnx QLinearConv, with Transposes when channels_last"),
    ("QGemm", "com.microsoft", "Transposes → MatMulInteger (int32) + C → Cast → × alpha·a_scale·b_scale (float out) or QuantizeLinear(· × (alpha·a_scale·b_scale/y_scale), 1, y_zp)"),
    ("DynamicQuantizeMatMul", "com.microsoft", "DynamicQuantizeLinear(A) → MatMulInteger → Cast → × (a_scale·b_scale) → + bias"),
    ("MatMulIntegerToFloat", "com.microsoft", "MatMulInteger → Cast → × (a_scale·b_scale) → + bias"),
    ("MatMulNBits", "com.microsoft", "4/8-bit unpack (BitwiseAnd/BitShift) → (q − zp)·scale per block → Transpose → MatMul (+ bias), folded for constant weights; accuracy_level 4: A quantized per row-block to int8 (max|a|/127, Round) → MatMulInteger per block → × a_scale·b_scale → ReduceSum over blocks, as ORT; bits 4 and 8, no g_idx"),
    ("DynamicQuantizeLSTM", "com.microsoft", "DynamicQuantizeLinear(X) once + MatMulInteger with W; a Scan over the steps (any length, symbolic included): DynamicQuantizeLinear(h of all rows) + MatMulInteger with R, scales, peepholes, Wb+Rb, clip, MLAS's logistic/tanh polynomials (FMA steps in f64), input_forget; default activations, no sequence_lens"),
    ("QuantizeLinear", "com.microsoft", "onnx QuantizeLinear (8/16-bit, per-axis)"),
    ("DequantizeLinear", "com.microsoft", "onnx DequantizeLinear (8/16-bit, per-axis)"),
    ("NhwcMaxPool", "com.microsoft", "Transpose → MaxPool → Transpose"),
    ("FusedConv", "com.microsoft", "Conv (+ Z) → activation (Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid, Elu)"),
    ("FusedGemm", "com.microsoft", "Gemm → activation (activation_alpha/beta)"),
    ("FusedMatMul", "com.microsoft", "Transposes (transA/B, transBatchA/B) → MatMul → × alpha"),
    ("Gelu", "com.microsoft", "onnx Gelu"),
    ("FastGelu", "com.microsoft", "(+ bias) → onnx Gelu(approximate=tanh)"),
    ("BiasGelu", "com.microsoft", "Add → onnx Gelu"),
    ("QuickGelu", "com.microsoft", "x · Sigmoid(alpha · x)"),
    ("BiasAdd", "com.microsoft", "(X + bias) + skip"),
    ("SkipLayerNormalization", "com.microsoft", "(input + skip) + bias → LayerNormalization(axis −1); sum as output 3"),
    ("SkipSimplifiedLayerNormalization", "com.microsoft", "(input + skip) + bias → RMSNormalization; inv_std_var via ReduceMean/Sqrt/Reciprocal"),
    ("SimplifiedLayerNormalization", "ai.onnx (ORT)", "RMSNormalization; inv_std_var via ReduceMean/Sqrt/Reciprocal"),
    ("LayerNormalization", "com.microsoft", "onnx LayerNormalization"),
    ("EmbedLayerNormalization", "com.microsoft", "Gather ×3 (positions 0..S or position_ids) → Adds → LayerNormalization; mask_index = ReduceSum(mask == 1)"),
    ("Attention", "com.microsoft", "MatMul + bias → Split → onnx Attention (3-D, q/kv_num_heads) with an additive mask from mask_index (1-D B/2B, 2-D, 3-D) + causal + attention_bias; past (2,B,N,P,H) ↔ past_key/value, present = Concat"),
    ("MultiHeadAttention", "com.microsoft", "(+ bias slices) → Reshape/Transpose to BNSH → onnx Attention with the same additive mask; past/present key/value; BNSH key/value accepted"),
    ("BiasSoftmax", "com.microsoft", "Add (numpy broadcast; is_inner_broadcast is only a CUDA hint) → Softmax flattened from `axis`"),
    ("QAttention", "com.microsoft", "MatMulInteger → Cast → × (input_scale·weight_scale) + bias → as Attention"),
    ("RotaryEmbedding", "com.microsoft", "onnx RotaryEmbedding; a 1-element position_ids offset becomes offset + 0..S expanded to [B, S]"),
    ("Range", "com.microsoft", "onnx Range (delta defaults to 1)"),
    ("Trilu", "com.microsoft", "onnx Trilu"),
    ("GridSample", "com.microsoft", "onnx GridSample (bilinear/bicubic → linear/cubic)"),
    ("Inverse", "com.microsoft", "adjugate / determinant: Gather minors → Det → cofactor signs → Transpose → Div"),
    ("TransposeMatMul", "com.microsoft", "as FusedMatMul (its older name)"),
    ("ExpandDims", "com.microsoft", "Unsqueeze"),
    ("Pad", "com.microsoft", "onnx Pad (pads flattened, value made scalar)"),
    ("GatherND", "com.microsoft", "onnx GatherND (indices cast to int64)"),
    ("Unique", "com.microsoft", "onnx Unique(sorted=0): Y, inverse_indices, counts"),
    ("MatMulInteger16", "com.microsoft", "Cast to int32 → MatMul"),
    ("CDist", "com.microsoft", "Sub of broadcast rows → square → ReduceSum (→ Sqrt for euclidean)"),
    ("QEmbedLayerNormalization", "com.microsoft", "DequantizeLinear of every table → as EmbedLayerNormalization"),
    ("GroupNorm", "com.microsoft", "Transpose (channels_last) → onnx GroupNormalization → x·Sigmoid(x) if activation → Transpose"),
    ("SkipGroupNorm", "com.microsoft", "(X + skip) + bias (output S) → as GroupNorm"),
    ("BiasSplitGelu", "com.microsoft", "Add → Split in halves → a · Gelu(b)"),
    ("GemmFastGelu", "com.microsoft", "MatMul (+ bias) → onnx Gelu(approximate=tanh)"),
    ("GatherBlockQuantized", "com.microsoft", "unpack uint8 4/8-bit blocks → (q − zp)·scale → Gather (axis 0); tables folded when initializers"),
];

/// onnxruntime contrib ops (with a CPU kernel in 1.29.0 unless noted) that
/// the importer does not lower, and why: `(op, reason)`.
pub const LEFT_OUT: &[(&str, &str)] = &[
    ("GroupQueryAttention", "per-batch KV-cache lengths (`seqlens_k`, `total_sequence_length`) decide at run time where new keys are written and what is masked; a faithful lowering needs data-dependent scatter into the cache (and fused rotary, softcap, sinks, quantized caches)"),
    ("DecoderMaskedMultiHeadAttention, SparseAttention, PagedAttention, LongformerAttention", "cache/sparsity layouts with run-time indirection; no exact standard form"),
    ("BeamSearch, GreedySearch, Sampling, WhisperBeamSearch", "whole generation loops with subgraphs and random sampling"),
    ("MoE, QMoE", "run-time expert routing (top-k gather/scatter per token)"),
    ("Tokenizer, MurmurHash3, NGramRepeatBlock, WordConvEmbedding, DynamicTimeWarping, BifurcationDetector", "string/hash/search ops outside edgec's numeric scope"),
    ("MatMulBnb4, MatMulFpQ4, AttnLSTM, MRotaryEmbedding, CropAndResize, MaxpoolWithMask, UnfoldTensor, ConvTransposeWithDynamicPads, SparseToDenseMatMul, CausalConvWithState (ms), LinearAttention (ms), SampleOp", "rarely written by ORT's tools; not done yet"),
    ("NhwcConv (CUDA only)", "the weight layout of the CUDA kernel could not be checked against a CPU kernel"),
];
