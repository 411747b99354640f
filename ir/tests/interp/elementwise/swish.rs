//! Swish reference values (computed with the ONNX reference implementation).

use crate::common::loss::*;

/// Mirrors test_swish; `alpha` scales the sigmoid's argument (reference values).
#[test]
fn swish_values() {
    let out = run(Opcode::Swish, &[Some(f32t(&[3], &[3.0, 4.0, 5.0]))], &[("alpha", Attr::Float(1.0))], 1);
    check(&out[0], &f32t(&[3], &[2.8577223, 3.928055, 4.966536]));
    let out = run(Opcode::Swish, &[Some(f32t(&[3], &[-2.0, 0.0, 1.5]))], &[("alpha", Attr::Float(0.5))], 1);
    check(&out[0], &f32t(&[3], &[-0.5378828, 0.0, 1.0187681]));
    let out = run(Opcode::Swish, &[Some(f16t(&[2], &[1.0, -1.0]))], &[], 1);
    check(&out[0], &f16t(&[2], &[0.7310586, -0.26894143]));
    let e = run_err(Opcode::Swish, &[Some(i32t(&[1], &[1]))], &[], 1);
    assert!(e.contains("float"), "{e}");
}
