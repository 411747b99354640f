//! onnxruntime `com.microsoft` contrib ops: every case in `testsuite/contrib/`
//! (made by `make_contrib.py` with onnxruntime's outputs) is imported, run by
//! the reference interpreter and compared with onnxruntime at the op's
//! tolerance (`testsuite::contrib::TOLERANCES`).

use testsuite::contrib::{cases, root, run_interpreter};

#[test]
fn contrib_ops_match_onnxruntime() {
    let cases = cases(&root()).expect("contrib cases listed");
    assert!(!cases.is_empty(), "no contrib cases under {}", root().display());
    let mut failures = Vec::new();
    for c in &cases {
        if let Err(e) = run_interpreter(c) {
            failures.push(format!("{} ({}): {}", c.name, c.op, e.replace('\n', " | ")));
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!("interpreter: {} of {} contrib cases match onnxruntime", cases.len() - failures.len(), cases.len());
    assert!(failures.is_empty(), "{} contrib case(s) fail", failures.len());
}
