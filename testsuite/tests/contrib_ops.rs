//! onnxruntime `com.microsoft` contrib ops: every case in `testsuite/contrib/`
//! (made by `make_contrib.py` with onnxruntime's outputs) is imported, run by
//! the reference interpreter and compared with onnxruntime at the op's
//! tolerance (`testsuite::contrib::TOLERANCES`), then compiled with the Rust
//! backend (one batch crate) and compared the same way. Writes
//! `testsuite/conformance/contrib-report.md`.
//!
//! Fails if there are no cases, if any case fails in the interpreter, or if
//! any case the Rust backend compiles gives a wrong answer; cases the Rust
//! backend cannot compile are listed in the report with the reason.
//! `EDGEC_CONTRIB_SKIP_RUST=1` checks the interpreter only (no report).

use std::path::Path;
use testsuite::contrib::{cases, root, run_interpreter};
use testsuite::contrib_rust::{report, run_all, RustStatus};

#[test]
fn contrib_ops_match_onnxruntime() {
    let cases = cases(&root()).expect("contrib cases listed");
    assert!(!cases.is_empty(), "no contrib cases under {}", root().display());
    let interp: Vec<Result<_, String>> = cases.iter().map(run_interpreter).collect();
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(&interp) {
        if let Err(e) = r {
            failures.push(format!("interpreter: {} ({}): {}", c.name, c.op, e.replace('\n', " | ")));
        }
    }
    let checked = interp.iter().filter(|r| r.is_ok()).count();
    eprintln!("interpreter: {checked} of {} contrib cases match onnxruntime", cases.len());
    if std::env::var_os("EDGEC_CONTRIB_SKIP_RUST").is_none() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/edgec-contrib-batch");
        let rust = run_all(&cases, &dir);
        for (c, r) in cases.iter().zip(&rust) {
            if let RustStatus::Fail(e) = r {
                failures.push(format!("rust backend: {} ({}): {e}", c.name, c.op));
            }
        }
        let passed = rust.iter().filter(|r| matches!(r, RustStatus::Pass(_))).count();
        eprintln!("rust backend: {passed} of {} contrib cases compile and match onnxruntime", cases.len());
        let text = report(&cases, &interp, &rust);
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/contrib-report.md");
        std::fs::write(path, text).expect("report written");
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} contrib check(s) fail", failures.len());
    assert_eq!(checked, cases.len(), "every contrib case checked");
}
