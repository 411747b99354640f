//! The ONNX backend-test harness: import a test's `model.onnx`, run every
//! `test_data_set_*` through the reference interpreter, compare outputs.

use compiler::frontend::onnx::proto::TensorProto;
use compiler::frontend::onnx::tensor::tensor_from_proto;
use compiler::frontend::onnx::{import_file, ImportError};
use ir::interp::{Data, Tensor};
use prost::Message;
use std::path::{Path, PathBuf};

/// Outcome of one test.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Every data set matched.
    Pass,
    /// Something edgec claims to support gave a wrong answer or failed.
    Fail(String),
    /// The model uses something edgec does not support (yet).
    Unsupported(String),
}

/// Tolerances of the comparison (the ONNX backend runner's defaults).
#[derive(Copy, Clone, Debug)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { rtol: 1e-3, atol: 1e-7 }
    }
}

fn is_unsupported(msg: &str) -> bool {
    msg.contains("not supported") || msg.contains("no reference kernel") || msg.contains("unsupported op type")
}

/// Run the node test in `dir` (a folder with `model.onnx` and `test_data_set_*`).
pub fn run_test_dir(dir: &Path, tol: Tolerance) -> Status {
    let model = dir.join("model.onnx");
    let m = match import_file(&model) {
        Ok(m) => m,
        Err(e @ ImportError::Problems(_)) | Err(e @ ImportError::Tensor(_)) => {
            let msg = one_line(&e.to_string());
            return if is_unsupported(&msg) { Status::Unsupported(msg) } else { Status::Fail(format!("import: {msg}")) };
        }
        Err(e) => return Status::Fail(format!("import: {}", one_line(&e.to_string()))),
    };
    if let Err(e) = ir::verify::verify(&m) {
        return Status::Fail(format!("verify: {}", one_line(&e.to_string())));
    }
    let mut sets = data_sets(dir);
    sets.sort();
    if sets.is_empty() {
        return Status::Fail("no test_data_set_* directory".into());
    }
    for set in sets {
        if let Err(s) = run_data_set(&m, &set, tol) {
            return s;
        }
    }
    Status::Pass
}

fn data_sets(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    rd.flatten().map(|e| e.path()).filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("test_data_set"))).collect()
}

/// `prefix_K.pb` files of a data set, in K order.
fn numbered(dir: &Path, prefix: &str) -> Vec<PathBuf> {
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

/// Read a `TensorProto` file; sequences/optionals are reported as unsupported.
pub fn read_tensor(path: &Path) -> Result<Tensor, Status> {
    let bytes = std::fs::read(path).map_err(|e| Status::Fail(format!("{}: {e}", path.display())))?;
    let t = TensorProto::decode(bytes.as_slice())
        .map_err(|_| Status::Unsupported(format!("{}: not a tensor (sequence/optional data is not supported)", path.display())))?;
    if t.data_type == 0 {
        return Err(Status::Unsupported(format!("{}: not a tensor (sequence/optional data is not supported)", file_name(path))));
    }
    tensor_from_proto(&t, None).map_err(|e| {
        let msg = format!("{}: {e}", file_name(path));
        if is_unsupported(&msg) {
            Status::Unsupported(msg)
        } else {
            Status::Fail(msg)
        }
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn run_data_set(m: &ir::Module, set: &Path, tol: Tolerance) -> Result<(), Status> {
    let inputs: Vec<Tensor> = numbered(set, "input_").iter().map(|p| read_tensor(p)).collect::<Result<_, _>>()?;
    let expected: Vec<Tensor> = numbered(set, "output_").iter().map(|p| read_tensor(p)).collect::<Result<_, _>>()?;
    let outputs = ir::interp::run(m, "main", inputs).map_err(|e| {
        let msg = one_line(&e.to_string());
        if is_unsupported(&msg) {
            Status::Unsupported(msg)
        } else {
            Status::Fail(format!("run: {msg}"))
        }
    })?;
    if outputs.len() != expected.len() {
        return Err(Status::Fail(format!("{} outputs, expected {}", outputs.len(), expected.len())));
    }
    for (i, (got, want)) in outputs.iter().zip(&expected).enumerate() {
        compare(got, want, tol).map_err(|e| Status::Fail(format!("{}: output #{i}: {e}", file_name(set))))?;
    }
    Ok(())
}

/// Compare a result with the expected tensor: same dtype and shape, values
/// within `|got - want| <= atol + rtol * |want|` (NaN matches NaN).
pub fn compare(got: &Tensor, want: &Tensor, tol: Tolerance) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!("element type {} != expected {}", got.dtype(), want.dtype()));
    }
    if got.shape != want.shape {
        return Err(format!("shape {:?} != expected {:?}", got.shape, want.shape));
    }
    match (&got.data, &want.data) {
        (Data::String(a), Data::String(b)) => {
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                return Err(format!("element {i}: {:?} != expected {:?}", a[i], b[i]));
            }
        }
        _ => {
            for i in 0..got.len() {
                let (a, b) = (got.data.get_f64(i), want.data.get_f64(i));
                let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol.atol + tol.rtol * b.abs();
                if !ok {
                    return Err(format!("element {i}: {a} != expected {b}"));
                }
            }
        }
    }
    Ok(())
}

fn one_line(s: &str) -> String {
    let s = s.replace('\n', " | ");
    if s.len() > 300 {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}
