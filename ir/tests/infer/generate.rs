//! Type inference of ConstantOfShape.

use crate::common::dims::*;

#[test]
fn constant_of_shape_types() {
    assert_eq!(one(Opcode::ConstantOfShape, &[c(&[2, 3])], &[]), f32t(&[d(2), d(3)]));
    assert_eq!(one(Opcode::ConstantOfShape, &[c(&[])], &[]), f32t(&[]));
    assert_eq!(one(Opcode::ConstantOfShape, &[dyn_ints(2)], &[]), f32t(&[U, U]));
    let v = Constant::from_i64s("v", &[1], &[7]);
    let at = attrs(&[("value", Attr::Sym("v".into()))]);
    let r = run(Opcode::ConstantOfShape, &[c(&[4])], &at, 1, Some(&v)).unwrap();
    assert_eq!(r, vec![ty(DType::I64, &[d(4)])]);
    let bad = Constant::from_i64s("v", &[2], &[7, 8]);
    assert!(run(Opcode::ConstantOfShape, &[c(&[4])], &at, 1, Some(&bad)).unwrap_err().contains("exactly one"));
    assert!(run(Opcode::ConstantOfShape, &[c(&[4])], &at, 1, None).unwrap_err().contains("does not name"));
    err(Opcode::ConstantOfShape, &[c(&[2, -3])], &[], "negative");
}
