//! `core.conv` against `onnx.Conv` + activation, in f16 and f64.

use crate::common::fused::*;

#[test]
fn conv_in_f16_and_f64_matches_conv_act() {
    let x: Vec<f32> = (0..32).map(|i| (i as f32 * 0.53).sin() * 2.0).collect();
    let w: Vec<f32> = (0..18).map(|i| (i as f32 * 0.29).cos()).collect();
    for dt in [DType::F16, DType::F64] {
        let (x, w) = (as_dtype(&f32t(&[1, 2, 4, 4], &x), dt), as_dtype(&f32t(&[1, 2, 3, 3], &w), dt));
        let b = as_dtype(&f32t(&[1], &[0.5]), dt);
        let conv_attrs = || Attrs::new().with("pads", Attr::Ints(vec![1, 1, 1, 1]));
        for &act in ALL_ACTS {
            let ops = [Some(x.clone()), Some(w.clone()), Some(b.clone())];
            let fused = run(Opcode::CoreConv, &ops, with_act(conv_attrs(), act));
            check(&fused, &unfused_act(act, run(Opcode::Conv, &ops, conv_attrs())));
            let wt = as_dtype(&f32t(&[2, 1, 3, 3], &(0..18).map(|i| i as f32 * 0.1).collect::<Vec<_>>()), dt);
            let ops = [Some(x.clone()), Some(wt), Some(b.clone())];
            let fused = run(Opcode::CoreConvTranspose, &ops, with_act(Attrs::new(), act));
            check(&fused, &unfused_act(act, run(Opcode::ConvTranspose, &ops, Attrs::new())));
        }
    }
}
