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
    /// Per-output statistics against the data set's expected outputs (or, for
    /// a data set with inputs only, against the module's reference function),
    /// or the error that prevented running.
    pub outputs: Result<Vec<OutputCheck>, String>,
    /// What `outputs` compares with.
    pub against: Against,
    /// Deviation from the module's exact reference function (bucketed or
    /// approximated modules), if it has one.
    pub reference: Option<Result<Vec<OutputCheck>, String>>,
    /// How the module ran this data set (e.g. the bucket it chose).
    pub notes: Vec<String>,
    /// `reference` must pass too (a generated crate against the
    /// interpreter); otherwise it is reported only (the deviation of a
    /// bucketed or approximated module from its exact reference).
    pub reference_gates: bool,
}

/// The expected values of a verification.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Against {
    /// The data set's `output_K.pb` files.
    Expected,
    /// The module's reference function (the data set has inputs only).
    Reference,
}

impl DataSetReport {
    /// True if every output is within tolerance.
    pub fn passed(&self) -> bool {
        let ok = |r: &Result<Vec<OutputCheck>, String>| r.as_ref().is_ok_and(|v| v.iter().all(|c| c.failure.is_none()));
        ok(&self.outputs) && (!self.reference_gates || self.reference.as_ref().is_none_or(ok))
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
    Ok(dirs.into_iter().map(|dir| check_one(m, dir, tol)).collect())
}

/// Compare every output (the counts must agree).
pub fn compare_all(got: &[Tensor], want: &[Tensor], tol: Tolerance, what: &str) -> Result<Vec<OutputCheck>, String> {
    if got.len() != want.len() {
        return Err(format!("model has {} outputs, {what} has {}", got.len(), want.len()));
    }
    Ok(got
        .iter()
        .zip(want)
        .enumerate()
        .map(|(i, (g, w))| compare(i, &crate::check::narrow_like(g.clone(), w), w, tol))
        .collect())
}

/// The data set's inputs the module takes: those bound by `--const` at
/// compile time (module attribute [`BOUND_INPUTS`]) are dropped when the
/// data set holds every original input.
///
/// [`BOUND_INPUTS`]: crate::frontend::onnx::BOUND_INPUTS
pub fn model_inputs(m: &Module, inputs: Vec<Tensor>) -> Vec<Tensor> {
    let Some(ir::Attr::Ints(bound)) = m.attrs.get(crate::frontend::onnx::BOUND_INPUTS) else { return inputs };
    let takes = m.func("main").map_or(0, |f| f.body.params.len());
    if inputs.len() != takes + bound.len() {
        return inputs;
    }
    inputs.into_iter().enumerate().filter(|(i, _)| !bound.contains(&(*i as i64))).map(|(_, t)| t).collect()
}

fn check_one(m: &Module, dir: PathBuf, tol: Tolerance) -> DataSetReport {
    let mut r = DataSetReport {
        dir,
        outputs: Err(String::new()),
        against: Against::Expected,
        reference: None,
        notes: vec![],
        reference_gates: false,
    };
    let (inputs, expected) = match read_data_set(&r.dir) {
        Ok((i, e)) => (model_inputs(m, i), e),
        Err(e) => {
            r.outputs = Err(e);
            return r;
        }
    };
    r.notes = describe_run(m, &inputs);
    let reference_name = passes::bucket::reference_name("main");
    let reference = m.func(&reference_name).map(|_| ir::interp::run(m, &reference_name, inputs.clone()));
    let got = match ir::interp::run(m, "main", inputs) {
        Ok(g) => g,
        Err(e) => {
            r.outputs = Err(e.to_string());
            return r;
        }
    };
    r.reference = reference.as_ref().map(|res| match res {
        Ok(want) => compare_all(&got, want, tol, "the reference"),
        Err(e) => Err(format!("@{reference_name} failed: {e}")),
    });
    r.outputs = match (expected.is_empty(), &r.reference) {
        (true, Some(dev)) => {
            r.against = Against::Reference;
            dev.clone()
        }
        (true, None) => Err("the data set has no output_K.pb files and the module no reference function".into()),
        (false, _) => compare_all(&got, &expected, tol, "the data set"),
    };
    r
}

/// What a bucketed or approximated module does on these inputs.
pub fn describe_run(m: &Module, inputs: &[Tensor]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(ir::Attr::Strs(a)) = m.attrs.get("approximations") {
        notes.extend(a.iter().map(|s| format!("approximation: {s}")));
    }
    let Some(f) = m.func("main") else { return notes };
    for id in f.live_ops() {
        let op = &f.ops[id];
        if op.opcode != ir::Opcode::CoreBucketDispatch {
            continue;
        }
        let Ok(d) = ir::ops::control::dispatch::Dispatch::from_attrs(&op.attrs) else { continue };
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let Ok(sizes) = ir::interp::control::dispatch::actual_sizes(&d, &refs) else { continue };
        match d.select(&sizes) {
            Ok((i, chosen)) => {
                let dims: Vec<String> =
                    d.dims.iter().zip(&sizes).zip(&chosen).map(|((n, s), b)| format!("`{n}` = {s} -> {b}")).collect();
                notes.push(format!("bucket: {} (@{})", dims.join(", "), d.callees[i]));
            }
            Err(e) => notes.push(format!("bucket: {e}")),
        }
    }
    notes
}

/// The `edgec verify` text for `reports` (outputs named by `names`) and the
/// number of data sets that failed.
pub fn render_reports(
    reports: &[DataSetReport],
    names: &[String],
    reference: &str,
    tol: crate::check::Tolerance,
) -> (String, usize) {
    let name = |i: usize| names.get(i).map_or("?", |s| s.as_str());
    let line = |c: &OutputCheck, pass: &str, fail: &dyn Fn(&str) -> String| {
        let verdict = c.failure.as_deref().map_or(pass.to_string(), fail);
        format!("{}: max_abs={:.3e} max_rel={:.3e} {verdict}", name(c.index), c.max_abs, c.max_rel)
    };
    let (mut s, mut failed) = (String::new(), 0);
    for r in reports {
        s += &format!("{}:\n", r.dir.display());
        for n in &r.notes {
            s += &format!("  {n}\n");
        }
        if r.against == Against::Reference {
            s += "  (no expected outputs in the data set: comparing with the reference)\n";
        }
        match &r.outputs {
            Err(e) => s += &format!("  ERROR {e}\n"),
            Ok(checks) => {
                for c in checks {
                    s += &format!("  {}\n", line(c, "PASS", &|f| format!("FAIL ({f})")));
                }
            }
        }
        if let (Some(dev), Against::Expected) = (&r.reference, r.against) {
            s += &format!("  deviation from {reference}:\n");
            match dev {
                Err(e) => s += &format!("    ERROR {e}\n"),
                Ok(checks) => {
                    for c in checks {
                        s += &format!("    {}\n", line(c, "within tolerance", &|f| format!("beyond tolerance ({f})")));
                    }
                }
            }
        }
        failed += usize::from(!r.passed());
    }
    s += &format!(
        "{} of {} data set(s) passed (rtol {}, atol {})\n",
        reports.len() - failed,
        reports.len(),
        tol.rtol,
        tol.atol
    );
    (s, failed)
}
