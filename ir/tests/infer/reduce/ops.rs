//! Shape inference of the Reduce* ops and ArgMax / ArgMin.

use crate::common::dims::*;

// ---------------------------------------------------------------- Reduce / ArgMax

#[test]
fn reduce_keepdims_and_negative_axes() {
    let x = f32t(&[s("a"), d(4), d(5)]);
    assert_eq!(one(Opcode::ReduceMean, &[t(x.clone()), c(&[-1])], &[]), f32t(&[s("a"), d(4), d(1)]));
    let k0 = [("keepdims", int(0))];
    assert_eq!(one(Opcode::ReduceSum, &[t(x.clone()), c(&[-1, 0])], &k0), f32t(&[d(4)]));
    assert_eq!(one(Opcode::ReduceMax, &[t(x.clone()), c(&[1])], &[("keepdims", int(1))]), f32t(&[s("a"), d(1), d(5)]));
    for op in [Opcode::ReduceMin, Opcode::ReduceProd, Opcode::ReduceL1, Opcode::ReduceL2] {
        assert_eq!(one(op, &[t(x.clone()), c(&[0])], &k0), f32t(&[d(4), d(5)]));
    }
    for op in [Opcode::ReduceSumSquare, Opcode::ReduceLogSumExp] {
        assert_eq!(one(op, &[t(x.clone()), c(&[0])], &[]), f32t(&[d(1), d(4), d(5)]));
    }
    err(Opcode::ReduceMean, &[t(x.clone()), c(&[1, -2])], &[], "repeated");
    err(Opcode::ReduceMean, &[t(x), c(&[3])], &[], "out of range");
}

#[test]
fn reduce_empty_axes_and_noop() {
    let x = f32t(&[s("a"), d(4)]);
    assert_eq!(one(Opcode::ReduceMean, &[t(x.clone())], &[]), f32t(&[d(1), d(1)]));
    assert_eq!(one(Opcode::ReduceMean, &[t(x.clone()), c(&[])], &[("keepdims", int(0))]), f32t(&[]));
    let noop = [("noop_with_empty_axes", int(1))];
    assert_eq!(one(Opcode::ReduceSum, &[t(x.clone()), c(&[])], &noop), x);
    assert_eq!(one(Opcode::ReduceSum, &[t(x.clone()), NONE], &noop), x);
    assert_eq!(one(Opcode::ReduceSum, &[t(x.clone()), c(&[1])], &noop), f32t(&[s("a"), d(1)]));
}

#[test]
fn reduce_non_constant_axes() {
    let x = f32t(&[s("a"), d(1), d(4)]);
    assert_eq!(one(Opcode::ReduceMean, &[t(x.clone()), dyn_ints(1)], &[]), f32t(&[U, d(1), U]));
    let k0 = [("keepdims", int(0))];
    assert_eq!(one(Opcode::ReduceMean, &[t(x.clone()), dyn_ints(2)], &k0), f32t(&[U]));
    let r = one(Opcode::ReduceMean, &[t(x), t(ty(DType::I64, &[U]))], &k0);
    assert_eq!(r, TensorType::unranked(DType::F32));
}

#[test]
fn arg_reduce_shapes() {
    let x = f32t(&[s("a"), d(4), d(5)]);
    let i64t = |dims: &[Dim]| ty(DType::I64, dims);
    assert_eq!(one(Opcode::ArgMax, &[t(x.clone())], &[("axis", int(-1))]), i64t(&[s("a"), d(4), d(1)]));
    assert_eq!(one(Opcode::ArgMax, &[t(x.clone())], &[("keepdims", int(0))]), i64t(&[d(4), d(5)]));
    assert_eq!(one(Opcode::ArgMin, &[t(x.clone())], &[("axis", int(1)), ("keepdims", int(0))]), i64t(&[s("a"), d(5)]));
    err(Opcode::ArgMax, &[t(x)], &[("axis", int(3))], "out of range");
}
