//! Shared helpers of the Rust backend's lowering tests: emit a one-op module
//! and expect it to compile, or to fail with an error naming the problem.
#![allow(dead_code)]

use codegen::rust::{generate, EmitOptions};

/// Emit a one-op module: `params` of `main`, the op line producing `%y : ty`.
pub fn emit_op(params: &str, op: &str, ty: &str) -> Result<(), String> {
    let src = format!(
        "module @m attributes {{phase = \"onnx\"}} {{\n  func @main({params}) -> ({ty}) {{\n    %y = {op} : {ty}\n    return %y\n  }}\n}}\n"
    );
    let m = ir::text::parse_module(&src, "case", None).map_err(|e| format!("parse: {e}\n{src}"))?.module;
    let opts = EmitOptions { name: "t".into(), source: "case".into(), pack_for: codegen::rust::DEFAULT_PACK_FOR };
    generate(&m, &opts).map(|_| ()).map_err(|e| e.to_string())
}

/// Emit a one-op module and expect an error mentioning every one of `needles`.
pub fn expect_err(params: &str, op: &str, ty: &str, needles: &[&str]) {
    let e = emit_op(params, op, ty).expect_err("the backend must refuse this op");
    for n in needles {
        assert!(e.contains(n), "error {e:?} should mention {n:?}");
    }
}
