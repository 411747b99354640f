//! The ONNX backend-test harness: import a test's `model.onnx`, run every
//! `test_data_set_*` through the reference interpreter, compare outputs.
//! Reading and comparison are `compiler::check`, shared with `edgec verify`.

use compiler::check::{compare, data_sets, read_data_set, Tolerance};
use compiler::frontend::onnx::{import_file, ImportError};
use std::path::Path;

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

/// The ONNX backend runner's default tolerances.
pub const NODE_TOLERANCE: Tolerance = Tolerance { rtol: 1e-3, atol: 1e-7 };

/// Tests whose expected data carries float32 rounding noise larger than the
/// default `atol` where the exact answer is 0 (ONNX generated them with
/// numpy's single-precision FFT). edgec's exact result is checked with this
/// absolute tolerance instead; everything else uses the runner's defaults.
pub const TOLERANCE_OVERRIDES: &[(&str, f64)] = &[("test_dft_inverse", 1e-6), ("test_dft_inverse_opset19", 1e-6)];

/// The tolerance of node test `name` (a directory name such as `test_dft`).
pub fn node_tolerance(name: &str) -> Tolerance {
    let mut tol = NODE_TOLERANCE;
    if let Some((_, atol)) = TOLERANCE_OVERRIDES.iter().find(|(n, _)| *n == name) {
        tol.atol = *atol;
    }
    tol
}

fn classify(msg: String, what: &str) -> Status {
    let unsupported = ["not supported", "no reference kernel", "unsupported op type", "not a tensor"];
    if unsupported.iter().any(|u| msg.contains(u)) {
        Status::Unsupported(msg)
    } else {
        Status::Fail(format!("{what}: {msg}"))
    }
}

/// Run the test in `dir` (a folder with `model.onnx` and `test_data_set_*`).
pub fn run_test_dir(dir: &Path, tol: Tolerance) -> Status {
    let m = match import_file(&dir.join("model.onnx")) {
        Ok(m) => m,
        Err(e @ (ImportError::Problems(_) | ImportError::Tensor(_))) => {
            return classify(one_line(&e.to_string()), "import")
        }
        Err(e) => return Status::Fail(format!("import: {}", one_line(&e.to_string()))),
    };
    if let Err(e) = ir::verify::verify(&m) {
        return Status::Fail(format!("verify: {}", one_line(&e.to_string())));
    }
    let sets = data_sets(dir);
    if sets.is_empty() {
        return Status::Fail("no test_data_set_* directory".into());
    }
    for set in sets {
        let set_name = set.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let (inputs, expected) = match read_data_set(&set) {
            Ok(x) => x,
            Err(e) => return classify(one_line(&e), "data"),
        };
        let outputs = match ir::interp::run(&m, "main", inputs) {
            Ok(o) => o,
            Err(e) => return classify(one_line(&e.to_string()), "run"),
        };
        if outputs.len() != expected.len() {
            return Status::Fail(format!("{} outputs, expected {}", outputs.len(), expected.len()));
        }
        for (i, (got, want)) in outputs.iter().zip(&expected).enumerate() {
            if let Some(f) = compare(i, got, want, tol).failure {
                return Status::Fail(format!("{set_name}: output #{i}: {f}"));
            }
        }
    }
    Status::Pass
}

fn one_line(s: &str) -> String {
    let s = s.replace('\n', " | ");
    if s.len() <= 300 {
        return s;
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// ONNX's dummy inputs for the wheel's `light` models: `arange(n) / n` in f32
/// for each parameter of `f`, unknown dims taken as 1.
pub fn light_inputs(f: &ir::Function) -> Vec<ir::interp::Tensor> {
    use ir::interp::{Data, Tensor};
    f.body
        .params
        .iter()
        .map(|&p| {
            let shape: Vec<usize> =
                f.ty(p).dims().unwrap_or(&[]).iter().map(|d| d.as_static().unwrap_or(1) as usize).collect();
            let n: usize = shape.iter().product();
            Tensor::new(shape, Data::F32((0..n).map(|i| (i as f64 / n as f64) as f32).collect()))
        })
        .collect()
}
