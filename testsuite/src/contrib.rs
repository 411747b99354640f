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

const ONE_UNIT: &str = "ORT requantizes with its own float order (scale ratios folded into one multiplier, or a 256-entry table built in float); a result at a .5 tie may round the other way: 1 unit, never more";

/// Per-op tolerances; ops not listed use [`DEFAULT_TOLERANCE`].
pub const TOLERANCES: &[OpTolerance] = &[
    OpTolerance { op: "QLinearAdd", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QLinearMul", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QLinearSigmoid", rtol: 0.0, atol: 0.0, units: 1, why: "ORT's table uses MLAS's logistic approximation, rounded once: 1 unit at ties" },
    OpTolerance { op: "QLinearLeakyRelu", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QLinearGlobalAveragePool", rtol: 0.0, atol: 0.0, units: 1, why: "ORT sums in int32 and scales once by x_scale/(y_scale*N): 1 unit at ties" },
    OpTolerance { op: "QLinearAveragePool", rtol: 0.0, atol: 0.0, units: 1, why: ONE_UNIT },
    OpTolerance { op: "QLinearSoftmax", rtol: 0.0, atol: 0.0, units: 1, why: "ORT reads exp from a 256-entry table and divides by the table sum: 1 unit at ties" },
    OpTolerance { op: "QLinearConv", rtol: 0.0, atol: 0.0, units: 1, why: "requantization of the int32 sum by one folded multiplier: 1 unit at ties" },
    OpTolerance { op: "QGemm", rtol: 1e-5, atol: 1e-6, units: 1, why: "requantized output: the folded multiplier alpha*a_scale*b_scale/y_scale may round a tie the other way (1 unit); float output: default" },
    OpTolerance { op: "DynamicQuantizeMatMul", rtol: 1e-5, atol: 1e-5, units: 0, why: "int32 accumulation is exact; MLAS applies scale and bias in one fused multiply-add (one rounding less); atol covers outputs near 0 after the bias" },
    OpTolerance { op: "MatMulIntegerToFloat", rtol: 1e-5, atol: 1e-5, units: 0, why: "as DynamicQuantizeMatMul" },
    OpTolerance { op: "DynamicQuantizeLSTM", rtol: 1e-4, atol: 1e-5, units: 0, why: "gates use MLAS's logistic/tanh approximations (a few ulp) and errors feed back through the recurrence; the per-step dynamic quantization of h is emulated exactly" },
    OpTolerance { op: "Attention", rtol: 1e-4, atol: 1e-6, units: 0, why: "edgec scales Q and K by sqrt(scale) each (ONNX Attention), ORT scales Q*K^T once; MLAS softmax uses its own exp" },
    OpTolerance { op: "MultiHeadAttention", rtol: 1e-4, atol: 1e-6, units: 0, why: "as Attention" },
    OpTolerance { op: "FastGelu", rtol: 1e-5, atol: 1e-6, units: 0, why: "default: ORT's MLAS tanh approximation stays within float32 rounding here" },
    OpTolerance { op: "Gelu", rtol: 1e-5, atol: 1e-6, units: 0, why: "default (MLAS erf)" },
    OpTolerance { op: "BiasGelu", rtol: 1e-5, atol: 1e-6, units: 0, why: "default (MLAS erf)" },
    OpTolerance { op: "SkipLayerNormalization", rtol: 1e-5, atol: 1e-5, units: 0, why: "ORT accumulates mean and mean-square in one pass; atol covers outputs near 0" },
    OpTolerance { op: "SkipSimplifiedLayerNormalization", rtol: 1e-5, atol: 1e-5, units: 0, why: "as SkipLayerNormalization" },
    OpTolerance { op: "SimplifiedLayerNormalization", rtol: 1e-5, atol: 1e-5, units: 0, why: "as SkipLayerNormalization" },
    OpTolerance { op: "EmbedLayerNormalization", rtol: 1e-5, atol: 1e-5, units: 0, why: "as SkipLayerNormalization" },
    OpTolerance { op: "MatMulNBits", rtol: 1e-5, atol: 1e-5, units: 0, why: "dequantized weights are exact; MLAS's blocked sum order differs" },
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
        out.push(Case { name, dir, op: node.op_type.clone(), domain: node.domain.clone() });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Compare `got` with onnxruntime's `want` under `tol`.
pub fn check(got: &[Tensor], want: &[Tensor], tol: OpTolerance) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, onnxruntime gives {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let dt = w.dtype();
        if dt.is_float() {
            let t = Tolerance { rtol: tol.rtol, atol: tol.atol };
            if let Some(f) = compare(i, g, w, t).failure {
                return Err(format!("output #{i}: {f}"));
            }
            continue;
        }
        // Integers and bools: exact, or within `units` for quantized outputs.
        let c = compare(i, g, w, Tolerance { rtol: 0.0, atol: tol.units as f64 });
        if let Some(f) = c.failure {
            return Err(format!("output #{i} ({dt}): {f}"));
        }
    }
    Ok(())
}

/// Import `case`, run the reference interpreter on every data set, compare.
pub fn run_interpreter(case: &Case) -> Result<(), String> {
    let m = compiler::frontend::onnx::import_file(&case.dir.join("model.onnx")).map_err(|e| format!("import: {e}"))?;
    ir::verify::verify(&m).map_err(|e| format!("verify: {e}"))?;
    let sets = data_sets(&case.dir);
    if sets.is_empty() {
        return Err("no test_data_set_*".into());
    }
    for set in sets {
        let (inputs, expected) = read_data_set(&set)?;
        let got = ir::interp::run(&m, "main", inputs).map_err(|e| format!("run: {e}"))?;
        check(&got, &expected, tolerance(&case.op))?;
    }
    Ok(())
}
