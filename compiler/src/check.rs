//! Running models on ONNX-layout test data (`test_data_set_*/input_K.pb`,
//! `output_K.pb`) and comparing with tolerances: used by `edgec verify` and
//! by the conformance suite.

use crate::frontend::onnx::proto::TensorProto;
use crate::frontend::onnx::tensor::tensor_from_proto;
use ir::interp::{Data, Tensor};
use prost::Message;
use std::path::{Path, PathBuf};

/// Tolerances: a value passes if `|got - want| <= atol + rtol * |want|`.
#[derive(Copy, Clone, Debug)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { rtol: 1e-3, atol: 1e-4 }
    }
}

impl Tolerance {
    /// How closely a generated crate must match the reference interpreter
    /// running the crate's own IR (`edgec verify CRATE` fails beyond it):
    /// the same program in f32 kernels against the interpreter's (partly
    /// f64) arithmetic, so tighter than the tolerance against another
    /// runtime's outputs. Integers and bools always compare exactly.
    pub const CRATE_VS_INTERPRETER: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };
}

/// Error statistics of one output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    /// Output index.
    pub index: usize,
    /// Largest absolute error (0 for exact types).
    pub max_abs: f64,
    /// Largest relative error `|got - want| / |want|` over nonzero `want`.
    pub max_rel: f64,
    /// `None` if within tolerance, else why not.
    pub failure: Option<String>,
}

/// `test_data_set_*` directories beside a model, sorted.
pub fn data_sets(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("test_data_set")))
        .collect();
    v.sort();
    v
}

/// `prefix_K.pb` files of a data set, in K order.
pub fn numbered(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let k = name.strip_prefix(prefix)?.strip_suffix(".pb")?.parse().ok()?;
            Some((k, e.path()))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, p)| p).collect()
}

/// Read a serialized `TensorProto`. Sequence/optional files are an error that says so.
pub fn read_tensor_pb(path: &Path) -> Result<Tensor, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let t = TensorProto::decode(bytes.as_slice()).map_err(|e| format!("{name}: not a TensorProto: {e}"))?;
    if t.data_type == 0 {
        return Err(format!("{name}: not a tensor (sequence/optional data is not supported)"));
    }
    tensor_from_proto(&t, None).map_err(|e| format!("{name}: {e}"))
}

/// Read a data set's inputs and expected outputs.
pub fn read_data_set(dir: &Path) -> Result<(Vec<Tensor>, Vec<Tensor>), String> {
    let inputs = numbered(dir, "input_").iter().map(|p| read_tensor_pb(p)).collect::<Result<_, _>>()?;
    let outputs = numbered(dir, "output_").iter().map(|p| read_tensor_pb(p)).collect::<Result<_, _>>()?;
    Ok((inputs, outputs))
}

/// A generated model's output read from `.npy`, in the element type `want`
/// has when numpy has no such type: bf16 and float8/float4 come as `<f4`,
/// the 4- and 2-bit integers as `|i1`/`|u1`. Narrowing must be exact (the
/// value converts back to itself, NaN to NaN), so a wrong output is never
/// rounded into a right one; otherwise `got` is returned unchanged and the
/// comparison reports the type mismatch.
pub fn narrow_like(got: Tensor, want: &Tensor) -> Tensor {
    use ir::DType::*;
    let (g, w) = (got.dtype(), want.dtype());
    let narrowable = match w {
        BF16 => g == F32,
        _ if w.is_low_float() => g == F32,
        I4 | I2 => g == I8,
        U4 | U2 => g == U8,
        _ => false,
    };
    if !narrowable {
        return got;
    }
    let cast = |t: &Tensor, to: ir::DType| {
        let a = ir::Attrs::new()
            .with("to", ir::Attr::Type(to))
            .with("saturate", ir::Attr::Int(0))
            // E8M0: truncating keeps every power of two, 2^-127 (an f32 subnormal) included.
            .with("round_mode", ir::Attr::Str("down".into()));
        ir::interp::eval_op(ir::Opcode::Cast, &[Some(t.clone())], a, 1).ok().map(|mut v| v.remove(0))
    };
    let Some(n) = cast(&got, w) else { return got };
    let exact = cast(&n, g).is_some_and(|b| {
        (0..got.len()).all(|i| {
            let (x, y) = (got.data.get_f64(i), b.data.get_f64(i));
            (x.is_nan() && y.is_nan()) || x == y
        })
    });
    if exact {
        n
    } else {
        got
    }
}

/// Compare integer outputs allowing `units` steps of difference (quantized
/// outputs of another runtime whose rounding order differs); `max_abs` is
/// the largest difference in steps. Shapes and types must match exactly.
pub fn compare_units(index: usize, got: &Tensor, want: &Tensor, units: i64) -> OutputCheck {
    let mut c = compare(index, got, want, Tolerance::default());
    if c.failure.is_none() || got.dtype() != want.dtype() || got.shape != want.shape || !want.dtype().is_int() {
        return c;
    }
    c.failure = None;
    for i in 0..got.len() {
        let (a, b) = (got.data.get_i64(i), want.data.get_i64(i));
        let d = (a as f64 - b as f64).abs();
        c.max_abs = c.max_abs.max(d);
        if d > units as f64 && c.failure.is_none() {
            c.failure = Some(format!("element {i}: {a} != expected {b} (more than {units} steps apart)"));
        }
    }
    c
}

/// Compare one output with its expected value: integer and bool outputs
/// exactly, floats within `tol`.
pub fn compare(index: usize, got: &Tensor, want: &Tensor, tol: Tolerance) -> OutputCheck {
    let mut c = OutputCheck { index, max_abs: 0.0, max_rel: 0.0, failure: None };
    if got.dtype() != want.dtype() {
        c.failure = Some(format!("element type {} != expected {}", got.dtype(), want.dtype()));
        return c;
    }
    if got.shape != want.shape {
        c.failure = Some(format!("shape {:?} != expected {:?}", got.shape, want.shape));
        return c;
    }
    if let (Data::String(a), Data::String(b)) = (&got.data, &want.data) {
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            c.failure = Some(format!("element {i}: {:?} != expected {:?}", a[i], b[i]));
        }
        return c;
    }
    // Integers and bools compare exactly: a token id or a class index that
    // is off by one is wrong, whatever the tolerance.
    if want.dtype().is_int() || want.dtype() == ir::DType::Bool {
        if let Some(i) = (0..got.len()).find(|&i| got.data.get_i64(i) != want.data.get_i64(i)) {
            c.failure = Some(format!(
                "element {i}: {} != expected {} (compared exactly)",
                got.data.get_i64(i),
                want.data.get_i64(i)
            ));
            let d = (got.data.get_i64(i) as f64 - want.data.get_i64(i) as f64).abs();
            c.max_abs = d;
        }
        return c;
    }
    for i in 0..got.len() {
        let (a, b) = (got.data.get_f64(i), want.data.get_f64(i));
        if (a.is_nan() && b.is_nan()) || a == b {
            continue;
        }
        let abs = (a - b).abs();
        let abs = if abs.is_nan() { f64::INFINITY } else { abs };
        c.max_abs = c.max_abs.max(abs);
        if b != 0.0 {
            c.max_rel = c.max_rel.max(abs / b.abs());
        }
        let within = abs <= tol.atol + tol.rtol * b.abs();
        if !within && c.failure.is_none() {
            c.failure = Some(format!("element {i}: {a} != expected {b}"));
        }
    }
    c
}
