//! `edgec run` and `edgec verify`: run a model on the reference interpreter.

use crate::check::{compare, data_sets, read_data_set, OutputCheck, Tolerance};
use crate::driver::DriverError;
use crate::npy::read_npy;
use ir::interp::Tensor;
use ir::Module;
use std::path::{Path, PathBuf};

/// Parse `NAME=FILE` arguments.
pub fn parse_bindings(args: &[String]) -> Result<Vec<(String, PathBuf)>, DriverError> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((n, p)) if !n.is_empty() && !p.is_empty() => Ok((n.to_string(), PathBuf::from(p))),
            _ => Err(DriverError::Usage(format!("--input expects NAME=FILE.npy, got \"{a}\""))),
        })
        .collect()
}

/// Names of the main function's inputs and outputs.
pub fn io_names(m: &Module) -> (Vec<String>, Vec<String>) {
    let Some(f) = m.func("main") else { return (vec![], vec![]) };
    let ins = f
        .body
        .params
        .iter()
        .enumerate()
        .map(|(i, &p)| f.values[p].name.clone().unwrap_or_else(|| format!("input{i}")))
        .collect();
    let outs = (0..f.result_types.len())
        .map(|i| f.result_names.get(i).cloned().flatten().unwrap_or_else(|| format!("output{i}")))
        .collect();
    (ins, outs)
}

/// Read the `.npy` inputs and order them like the main function's parameters.
/// Every problem (missing, unknown, unreadable inputs) is reported at once.
pub fn bind_inputs(m: &Module, bindings: &[(String, PathBuf)]) -> Result<Vec<Tensor>, DriverError> {
    let f = m.func("main").ok_or_else(|| DriverError::Usage("module has no @main function".into()))?;
    let (names, _) = io_names(m);
    let mut problems = Vec::new();
    for (n, _) in bindings.iter().filter(|(n, _)| !names.contains(n)) {
        problems.push(format!("unknown input \"{n}\" (inputs are: {})", names.join(", ")));
    }
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let ty = f.ty(f.body.params[i]);
        let Some((_, path)) = bindings.iter().find(|(n, _)| n == name) else {
            problems.push(format!("missing input \"{name}\" of type {ty}: pass --input {name}=FILE.npy"));
            continue;
        };
        match std::fs::read(path).map_err(|e| e.to_string()).and_then(|b| read_npy(&b)) {
            Ok(t) => out.push(t),
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(DriverError::Usage(problems.join("\n")))
    }
}

/// Run `main` on the interpreter; interpreter errors name the failing op.
pub fn run_main(m: &Module, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, DriverError> {
    ir::interp::run(m, "main", inputs).map_err(|e| DriverError::Usage(format!("run failed: {e}")))
}

/// Result of verifying one data set.
#[derive(Debug)]
pub struct DataSetReport {
    /// The data set directory.
    pub dir: PathBuf,
    /// Per-output statistics, or the error that prevented running.
    pub outputs: Result<Vec<OutputCheck>, String>,
}

impl DataSetReport {
    /// True if every output is within tolerance.
    pub fn passed(&self) -> bool {
        self.outputs.as_ref().is_ok_and(|v| v.iter().all(|c| c.failure.is_none()))
    }
}

/// Verify `m` on the given data sets (default: every `test_data_set_*` beside `model_path`).
pub fn verify_data(
    m: &Module,
    model_path: &Path,
    dirs: &[PathBuf],
    tol: Tolerance,
) -> Result<Vec<DataSetReport>, DriverError> {
    let dirs = if dirs.is_empty() {
        let beside = model_path.parent().map(Path::to_path_buf).unwrap_or_default();
        data_sets(&beside)
    } else {
        dirs.to_vec()
    };
    if dirs.is_empty() {
        return Err(DriverError::Usage(format!(
            "no test_data_set_* directory beside {}; pass --data DIR",
            model_path.display()
        )));
    }
    Ok(dirs.into_iter().map(|dir| DataSetReport { outputs: check_one(m, &dir, tol), dir }).collect())
}

fn check_one(m: &Module, dir: &Path, tol: Tolerance) -> Result<Vec<OutputCheck>, String> {
    let (inputs, expected) = read_data_set(dir)?;
    let got = ir::interp::run(m, "main", inputs).map_err(|e| e.to_string())?;
    if got.len() != expected.len() {
        return Err(format!("model has {} outputs, data set has {}", got.len(), expected.len()));
    }
    Ok(got.iter().zip(&expected).enumerate().map(|(i, (g, w))| compare(i, g, w, tol)).collect())
}
