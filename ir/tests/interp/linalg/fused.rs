//! `core.linear` against `onnx.MatMul` + `Add` + activation, in f16 and f64.

use crate::common::fused::*;

#[test]
fn linear_in_f16_and_f64_matches_matmul_add_act() {
    let a: Vec<f32> = (0..24).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let b: Vec<f32> = (0..20).map(|i| (i as f32 * 0.71).cos() * 2.0).collect();
    let bias = [0.25f32, -1.5, 0.125, 2.0, -0.5];
    for dt in [DType::F16, DType::F64, DType::F32] {
        let (a, bt) = (as_dtype(&f32t(&[2, 3, 4], &a), dt), as_dtype(&f32t(&[5, 4], &b), dt));
        let bias = as_dtype(&f32t(&[5], &bias), dt);
        for &act in ALL_ACTS {
            let attrs = with_act(Attrs::new().with("trans_b", Attr::Int(1)), act);
            let fused = run(Opcode::CoreLinear, &[Some(a.clone()), Some(bt.clone()), Some(bias.clone())], attrs);
            let b = run(Opcode::Transpose, &[Some(bt.clone())], Attrs::new());
            let y = run(Opcode::MatMul, &[Some(a.clone()), Some(b)], Attrs::new());
            let y = run(Opcode::Add, &[Some(y), Some(bias.clone())], Attrs::new());
            check(&fused, &unfused_act(act, y));
        }
    }
}
