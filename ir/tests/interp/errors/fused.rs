//! Inference errors of the fused `core.*` ops (CoreLinear, CoreAttention, CoreConv,
//! CoreConvTranspose): the message names the offending operand and dimension.

use crate::common::fused::*;

#[test]
fn inference_errors_are_precise() {
    let z = |shape: &[usize]| Some(f32t(shape, &vec![0.0; shape.iter().product()]));
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[4, 5])], Attrs::new());
    assert!(e.contains("inner dimensions differ"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[5, 4])], Attrs::new().with("trans_b", Attr::Int(1)));
    assert!(e.contains("has K = 3 but B f32[5, 4] has K = 4 (trans_b = 1"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5]), z(&[4, 5])], Attrs::new());
    assert!(e.contains("bias f32[4, 5] does not broadcast to f32[2, 5] without changing it"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5]), z(&[7])], Attrs::new());
    assert!(e.contains("(dims 7 and 5)"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3])], Attrs::new().with("trans_b", Attr::Int(1)));
    assert!(e.contains("must have rank ≥ 2 when trans_b = 1"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5])], Attrs::new().with("trans_b", Attr::Int(2)));
    assert!(e.contains("`trans_b` = 2 must be 0 or 1"), "{e}");
    let relu_alpha = with_act(Attrs::new(), Activation::Relu).with("act_alpha", Attr::Float(1.0));
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5])], relu_alpha);
    assert!(e.contains("not used by act"), "{e}");

    let sc = || Attrs::new().with("scale", Attr::Float(1.0));
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[2, 5, 6]), z(&[2, 5, 8])], sc());
    assert!(e.contains("must have the same head size D"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[2, 5, 8]), z(&[2, 6, 8])], sc());
    assert!(e.contains("must have the same key count Sk"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[8]), z(&[2, 5, 8]), z(&[2, 5, 8])], sc());
    assert!(e.contains("Q f32[8] must have rank ≥ 2"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[3, 5, 8]), z(&[2, 5, 8])], sc());
    assert!(e.contains("Q @ Kᵀ"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[4, 8]), z(&[5, 8]), z(&[5, 8]), z(&[2, 4, 5])], sc());
    assert!(e.contains("mask f32[2, 4, 5] does not broadcast to f32[4, 5]"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[4, 8]), z(&[5, 8]), z(&[5, 8])], Attrs::new());
    assert!(e.contains("scale"), "{e}");

    let e = run_err(Opcode::CoreConv, &[z(&[1, 3, 8, 8]), z(&[16, 4, 3, 3])], Attrs::new());
    assert!(e.contains("has 3 channels but W"), "{e}");
    let bad_act = Attrs::new().with("act", Attr::Str("swish".into()));
    let e = run_err(Opcode::CoreConvTranspose, &[z(&[1, 3, 4, 4]), z(&[3, 2, 3, 3])], bad_act);
    assert!(e.contains("swish"), "{e}");
}
