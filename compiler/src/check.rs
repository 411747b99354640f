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

/// Compare one output with its expected value.
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
