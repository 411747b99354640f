//! The `legalize-core` pass: the module enters the `core` phase. Every
//! `onnx.*` op that has a `core.*` form ([`ir::ops::core_form`]) becomes that
//! form (same operands, same attributes, no fused activation), in every
//! function and region; from here on the verifier rejects the onnx form, so
//! backends lower only the core one.

use ir::{Module, Phase};

/// See the module docs.
pub struct LegalizeCore;

impl crate::Pass for LegalizeCore {
    fn name(&self) -> &'static str {
        "legalize-core"
    }

    fn run(&self, m: &mut Module, _cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let mut changed = false;
        for f in &mut m.funcs {
            for id in f.live_ops() {
                if let Some(core) = ir::ops::core_form(f.ops[id].opcode) {
                    f.ops[id].opcode = core;
                    changed = true;
                }
            }
        }
        if m.phase < Phase::Core {
            m.phase = Phase::Core;
            changed = true;
        }
        Ok(crate::PassResult::changed(changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pass;
    use ir::interp::{Data, Tensor};

    const SRC: &str = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[1, 2, 4, 4], %w: f32[2, 2, 3, 3], %b: f32[2]) -> (f32[1, 2, 4, 4]) {
    %0 = onnx.Conv %x, %w, %b {pads = [1, 1, 1, 1]} : f32[1, 2, 4, 4]
    %1 = onnx.ConvTranspose %0, %w {pads = [1, 1, 1, 1]} : f32[1, 2, 4, 4]
    return %1
  }
}"#;

    #[test]
    fn onnx_conv_becomes_core_conv_and_computes_the_same() {
        let m = ir::text::parse_module(SRC, "legalize.eir", None).expect("parses").module;
        let mut c = m.clone();
        assert!(LegalizeCore.run(&mut c, &mut Default::default()).expect("runs").changed);
        assert_eq!(c.phase, Phase::Core);
        ir::verify::verify(&c).expect("the core module verifies");
        let f = c.func("main").expect("main");
        let names: Vec<&str> = f.live_ops().into_iter().map(|id| f.ops[id].opcode.name()).collect();
        assert_eq!(names, ["core.conv", "core.conv_transpose"]);
        let t = |shape: &[usize], k: usize| {
            let n: usize = shape.iter().product();
            Tensor::new(shape.to_vec(), Data::F32((0..n).map(|i| ((i * 7 + k) % 11) as f32 / 5.0 - 1.0).collect()))
        };
        let ins = vec![t(&[1, 2, 4, 4], 1), t(&[2, 2, 3, 3], 2), t(&[2], 3)];
        let want = ir::interp::run(&m, "main", ins.clone()).expect("original runs");
        assert_eq!(ir::interp::run(&c, "main", ins).expect("core runs"), want);
        assert!(!LegalizeCore.run(&mut c, &mut Default::default()).expect("runs again").changed, "idempotent");
    }

    #[test]
    fn the_verifier_rejects_an_onnx_conv_in_the_core_phase() {
        let mut m = ir::text::parse_module(SRC, "legalize.eir", None).expect("parses").module;
        m.phase = Phase::Core;
        let e = ir::verify::verify(&m).expect_err("onnx.Conv is not core");
        let text = e.render(&m);
        assert!(text.contains("`onnx.Conv` is not allowed in phase `core`"), "{text}");
        assert!(text.contains("`onnx.ConvTranspose` is not allowed"), "{text}");
    }
}
