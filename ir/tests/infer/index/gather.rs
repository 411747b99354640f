//! Shape inference of Gather.

use crate::common::dims::*;

// ---------------------------------------------------------------- Gather

#[test]
fn gather_shapes() {
    let x = f32t(&[s("a"), s("b"), d(8)]);
    let scalar = t(TensorType::scalar(DType::I64));
    assert_eq!(one(Opcode::Gather, &[t(x.clone()), scalar], &[("axis", int(1))]), f32t(&[s("a"), d(8)]));
    let idx = t(ty(DType::I32, &[d(2), d(3)]));
    assert_eq!(one(Opcode::Gather, &[t(x.clone()), idx], &[]), f32t(&[d(2), d(3), s("b"), d(8)]));
    let idx = t(ty(DType::I64, &[s("k")]));
    assert_eq!(
        one(Opcode::Gather, &[t(x.clone()), idx.clone()], &[("axis", int(-1))]),
        f32t(&[s("a"), s("b"), s("k")])
    );
    err(Opcode::Gather, &[t(x.clone()), idx], &[("axis", int(3))], "out of range");
    err(Opcode::Gather, &[t(x), t(f32t(&[d(2)]))], &[], "`indices` has element type f32");
}
