//! ONNX backend node tests through import + reference interpreter.
//!
//! Needs the test data: `testsuite/conformance/fetch.sh` (CI runs it first).
//! Writes `testsuite/conformance/onnx-node-report.md`; fails if any test in
//! `testsuite/conformance/node-pass-list.txt` does not pass. After an
//! improvement, `UPDATE_PASS_LIST=1 cargo test -p testsuite --test conformance`
//! rewrites the pass list from the current results (review the diff).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use testsuite::conformance::{run_test_dir, Status};

fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("EDGEC_ONNX_TESTS").map(PathBuf::from).unwrap_or_else(|| manifest.join("../target/onnx-tests"))
}

fn test_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.join("model.onnx").exists()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn tolerance_for(name: &str) -> compiler::check::Tolerance {
    testsuite::conformance::node_tolerance(name)
}

/// Run tests on two threads; a panic is a failure of that test, not of the suite.
fn run_all(dirs: &[PathBuf]) -> BTreeMap<String, Status> {
    let results = std::sync::Mutex::new(BTreeMap::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(dir) = dirs.get(i) else { break };
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let status = std::panic::catch_unwind(|| run_test_dir(dir, tolerance_for(&name)))
                    .unwrap_or_else(|p| Status::Fail(format!("PANIC: {}", panic_message(&p))));
                results.lock().expect("results").insert(name, status);
            });
        }
    });
    results.into_inner().expect("results")
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// What edgec deliberately does not implement, matched against unsupported reasons.
const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("ai.onnx.preview.training::", "training-only ops (Adagrad, Adam, Momentum, Gradient)"),
    ("training-mode", "training mode of Dropout/BatchNormalization"),
    ("Bernoulli", "random ops (nondeterministic outputs)"),
    ("RandomUniformLike", "random ops (nondeterministic outputs)"),
    ("ai.onnx.ml::", "the ai.onnx.ml domain (classical ML: LabelEncoder, TreeEnsemble, ...)"),
    ("ImageDecoder", "image decoding (JPEG/PNG/... codecs)"),
    ("RegexFullMatch", "string-heavy ops (regular expressions)"),
    ("TfIdfVectorizer", "string-heavy ops (n-gram text vectorization)"),
];

/// Summary of why tests are unsupported, split into out of scope and not yet supported.
fn unsupported_summary(results: &BTreeMap<String, Status>) -> String {
    let mut scope: BTreeMap<&str, usize> = BTreeMap::new();
    let mut later = 0;
    for s in results.values() {
        let Status::Unsupported(r) = s else { continue };
        match OUT_OF_SCOPE.iter().find(|(k, _)| r.contains(k)) {
            Some((_, why)) => *scope.entry(why).or_default() += 1,
            None => later += 1,
        }
    }
    let mut out = String::from("Out of scope (by design):\n\n");
    for (why, n) in &scope {
        let _ = writeln!(out, "- {why}: {n} test(s)");
    }
    let _ = writeln!(out, "\nNot supported yet: {later} test(s) (reasons in the table: mostly sequence/optional types and their ops, FlexAttention with score_mod/prob_mod graphs, Scan-8).\n");
    out
}

fn report(suite: &str, results: &BTreeMap<String, Status>) -> String {
    let pass = results.values().filter(|s| **s == Status::Pass).count();
    let unsup = results.values().filter(|s| matches!(s, Status::Unsupported(_))).count();
    let fail = results.len() - pass - unsup;
    let mut out = String::new();
    let _ = writeln!(out, "## {suite}\n\n{pass} passed, {fail} failed, {unsup} unsupported, {} total\n", results.len());
    if unsup > 0 {
        out.push_str(&unsupported_summary(results));
    }
    let _ = writeln!(out, "| test | status | reason |\n|---|---|---|");
    for (name, s) in results {
        let (st, why) = match s {
            Status::Pass => ("pass", String::new()),
            Status::Fail(r) => ("FAIL", r.replace('|', "\\|")),
            Status::Unsupported(r) => ("unsupported", r.replace('|', "\\|")),
        };
        let _ = writeln!(out, "| {name} | {st} | {why} |");
    }
    out
}

#[test]
fn onnx_backend_tests() {
    let root = root();
    if !root.join("node").exists() {
        eprintln!("NOTE: {} is missing; run testsuite/conformance/fetch.sh. Skipping.", root.display());
        return;
    }
    let conf = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let mut doc = String::from("# ONNX backend test report\n\nGenerated by `cargo test -p testsuite --test conformance` on the onnx==1.22.0 wheel's test data (import + reference interpreter, rtol 1e-3, atol 1e-7).\n\n");
    let mut all = BTreeMap::new();
    for suite in ["node", "pytorch-converted", "pytorch-operator", "simple"] {
        let results = run_all(&test_dirs(&root.join(suite)));
        let pass = results.values().filter(|s| **s == Status::Pass).count();
        eprintln!("{suite}: {pass} / {} passed", results.len());
        doc.push_str(&report(suite, &results));
        doc.push('\n');
        for (k, v) in results {
            all.insert(format!("{suite}/{k}"), v);
        }
    }
    std::fs::write(conf.join("onnx-node-report.md"), doc).expect("write report");
    check_pass_list(&conf.join("node-pass-list.txt"), &all);
}

fn check_pass_list(path: &Path, all: &BTreeMap<String, Status>) {
    let passing: Vec<&String> = all.iter().filter(|(_, s)| **s == Status::Pass).map(|(k, _)| k).collect();
    if std::env::var_os("UPDATE_PASS_LIST").is_some() {
        let text: String = passing.iter().map(|k| format!("{k}\n")).collect();
        std::fs::write(path, text).expect("write pass list");
        return;
    }
    let listed = std::fs::read_to_string(path).unwrap_or_default();
    let regressions: Vec<String> = listed
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter(|l| all.get(*l) != Some(&Status::Pass))
        .map(|l| format!("{l}: {:?}", all.get(l)))
        .collect();
    assert!(regressions.is_empty(), "{} listed test(s) no longer pass:\n{}", regressions.len(), regressions.join("\n"));
    let new = passing.iter().filter(|k| !listed.lines().any(|l| l == k.as_str())).count();
    if new > 0 {
        eprintln!("{new} test(s) pass that are not in the pass list; UPDATE_PASS_LIST=1 adds them");
    }
}

/// The bundled real-world-style models (`testsuite/models/`), built by
/// `make_models.py` with reference outputs from onnx's ReferenceEvaluator,
/// checked like `edgec verify` does (rtol 1e-3, atol 1e-4).
#[test]
fn bundled_models_verify() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let dirs = test_dirs(&dir);
    assert!(dirs.len() >= 5, "bundled models missing");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| match run_test_dir(d, compiler::check::Tolerance::default()) {
            Status::Pass => None,
            other => Some(format!("{}: {other:?}", d.display())),
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The wheel's `data/light` models: weights come from ConstantOfShape, inputs
/// are ONNX's dummy data (`arange(n) / n` in f32, unknown dims as 1).
#[test]
fn light_models() {
    let dir = root().join("light");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("NOTE: {} is missing; run testsuite/conformance/fetch.sh. Skipping.", dir.display());
        return;
    };
    let mut models: Vec<PathBuf> =
        rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "onnx")).collect();
    models.sort();
    let mut failures = Vec::new();
    for model in &models {
        match run_light(model) {
            Ok(()) => eprintln!("{}: pass", model.display()),
            Err(e) => failures.push(format!("{}: {e}", model.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn run_light(model: &Path) -> Result<(), String> {
    let m = compiler::frontend::onnx::import_file(model).map_err(|e| e.to_string())?;
    let inputs = testsuite::conformance::light_inputs(m.func("main").ok_or("no main")?);
    let out = ir::interp::run(&m, "main", inputs).map_err(|e| e.to_string())?;
    let stem = model.with_extension("");
    let expected = compiler::check::read_tensor_pb(Path::new(&format!("{}_output_0.pb", stem.display())))?;
    let check = compiler::check::compare(0, &out[0], &expected, compiler::check::Tolerance { rtol: 1e-3, atol: 1e-5 });
    check.failure.map_or(Ok(()), |f| Err(format!("{f} (max abs {:.2e})", check.max_abs)))
}
