//! Smoke tests of the text format on hand-written modules.

use ir::text::{parse_module, print_module};
use ir::verify::verify;

const SRC: &str = r#"module @m attributes {phase = "onnx", onnx.opset = 17} {
  const @w : f32[2, 2] = dense<[1.0, -0.5, 3.25, 0.1]>
  const @shape : i64[2] = dense<[1, -1]>

  func @main(%x: f32[batch, 2], %input.1: f32[2]) -> (f32[batch, 2]) {
    %0 = core.const {value = @w} : f32[2, 2]
    %1 = onnx.MatMul %x, %0 : f32[batch, 2] loc("mm" op "MatMul")
    %2 = onnx.Add %1, %input.1 : f32[batch, 2] loc(fused["a" op "Add", "b" op "Relu"])
    return %2
  }
}
"#;

#[test]
fn parse_print_is_identity_on_canonical_text() {
    let p = parse_module(SRC, "t.eir", None).unwrap_or_else(|e| panic!("{e}"));
    let printed = print_module(&p.module);
    assert_eq!(printed, SRC);
}

#[test]
fn undefined_value_is_a_positioned_error() {
    let src = SRC.replace("%1 = onnx.MatMul %x", "%1 = onnx.MatMul %nope");
    let e = parse_module(&src, "t.eir", None).unwrap_err();
    assert_eq!(e.to_string(), "t.eir:7:22: error: use of undefined value %nope");
}

#[test]
fn verifier_accepts_the_valid_module() {
    let p = parse_module(SRC, "t.eir", None).unwrap();
    if let Err(e) = verify(&p.module) {
        panic!("{}", e.render(&p.module));
    }
}
