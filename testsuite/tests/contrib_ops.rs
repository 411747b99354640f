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

use compiler::frontend::onnx::import_bytes;
use compiler::frontend::onnx::proto::{AttributeProto, ModelProto, NodeProto};
use prost::Message;
use std::path::Path;
use testsuite::contrib::{cases, root, run_interpreter};
use testsuite::contrib_rust::{report, run_all, RustStatus};

/// The number of cases `make_contrib.py` writes; fewer means cases were lost.
const MIN_CASES: usize = 163;

#[test]
fn contrib_ops_match_onnxruntime() {
    let cases = cases(&root()).expect("contrib cases listed");
    assert!(!cases.is_empty(), "no contrib cases under {}", root().display());
    assert!(cases.len() >= MIN_CASES, "{} contrib cases, expected at least {MIN_CASES}", cases.len());
    let interp: Vec<Result<_, String>> = cases.iter().map(run_interpreter).collect();
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(&interp) {
        if let Err(e) = r {
            failures.push(format!("interpreter: {} ({}): {}", c.name, c.op, e.replace('\n', " | ")));
        }
    }
    let checked = interp.iter().filter(|r| r.is_ok()).count();
    eprintln!("interpreter: {checked} of {} contrib cases match their reference", cases.len());
    if std::env::var_os("EDGEC_CONTRIB_SKIP_RUST").is_none() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/edgec-contrib-batch");
        let rust = run_all(&cases, &dir);
        for (c, r) in cases.iter().zip(&rust) {
            if let RustStatus::Fail(e) = r {
                failures.push(format!("rust backend: {} ({}): {e}", c.name, c.op));
            }
        }
        let passed = rust.iter().filter(|r| matches!(r, RustStatus::Pass(_))).count();
        let attempted = rust.iter().filter(|r| !matches!(r, RustStatus::Symbolic)).count();
        eprintln!("rust backend: {passed} of {attempted} static-shape contrib cases compile and match");
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

/// A case's model with its node edited by `edit`, imported.
fn import_edited(case: &str, edit: impl FnOnce(&mut NodeProto)) -> Result<ir::Module, String> {
    let path = root().join(case).join("model.onnx");
    let bytes = std::fs::read(&path).expect("case model");
    let mut m = ModelProto::decode(bytes.as_slice()).expect("model decodes");
    let node = m.graph.as_mut().and_then(|g| g.node.first_mut()).expect("a node");
    edit(node);
    import_bytes(&m.encode_to_vec(), None, case).map_err(|e| e.to_string())
}

fn set_attr(node: &mut NodeProto, name: &str, f: impl FnOnce(&mut AttributeProto)) {
    let a = node.attribute.iter_mut().find(|a| a.name == name).expect("attribute present");
    f(a);
}

/// An edit of a case's node.
type Edit = Box<dyn FnOnce(&mut NodeProto)>;

#[test]
fn contrib_errors_name_the_node_and_the_problem() {
    let unknown = import_edited("gelu", |n| n.op_type = "NoSuchContribOp".into()).unwrap_err();
    assert!(unknown.contains("com.microsoft::NoSuchContribOp"), "{unknown}");
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("attention_nomask", Box::new(|n| n.attribute.retain(|a| a.name != "num_heads")), "num_heads"),
        (
            "dynamicquantizelstm_forward",
            Box::new(|n| set_attr(n, "direction", |a| a.s = b"sideways".to_vec())),
            "direction `sideways`",
        ),
        (
            "qlinearconcat_u8",
            Box::new(|n| {
                n.input.pop();
            }),
            "2 + 3k inputs",
        ),
        ("matmulnbits_4bit_zp", Box::new(|n| set_attr(n, "bits", |a| a.i = 3)), "bits = 3"),
        (
            "fusedconv_relu",
            Box::new(|n| set_attr(n, "activation", |a| a.s = b"Swoosh".to_vec())),
            "activation `Swoosh`",
        ),
        (
            "attention_nomask",
            Box::new(|n| {
                n.attribute.push(AttributeProto { name: "do_rotary".into(), i: 1, r#type: 2, ..Default::default() })
            }),
            "do_rotary",
        ),
    ];
    for (case, edit, want) in cases {
        let e = import_edited(case, edit).unwrap_err();
        assert!(e.contains(want) && e.contains(&format!("{case}_node")), "{case}: {e}");
    }
}

#[test]
fn mutated_contrib_models_never_panic() {
    let cases = cases(&root()).expect("contrib cases listed");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for c in &cases {
        let bytes = std::fs::read(c.dir.join("model.onnx")).expect("case model");
        for _ in 0..20 {
            let mut b = bytes.clone();
            for _ in 0..3 {
                let i = (next() as usize) % b.len();
                b[i] = next() as u8;
            }
            if let Ok(m) = import_bytes(&b, None, &c.name) {
                let _ = ir::verify::verify(&m);
            }
        }
    }
}
