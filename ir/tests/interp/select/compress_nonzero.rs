//! Compress and NonZero (node tests, every element type).

use crate::common::shape::*;
use ir::interp::Data;

#[test]
fn compress_node_tests() {
    let x = f32t(&[3, 2], &[1., 2., 3., 4., 5., 6.]);
    let c = |v: &[bool]| boolt(&[v.len()], v);
    let r = run1(Opcode::Compress, vec![x.clone(), c(&[false, true, true])], &[("axis", int(0))]);
    eq_f32(&r, &[2, 2], &[3., 4., 5., 6.]);
    let r = run1(Opcode::Compress, vec![x.clone(), c(&[false, true])], &[("axis", int(1))]);
    eq_f32(&r, &[3, 1], &[2., 4., 6.]);
    let r = run1(Opcode::Compress, vec![x.clone(), c(&[false, true, false, false, true])], &[]);
    eq_f32(&r, &[2], &[2., 5.]);
    let r = run1(Opcode::Compress, vec![x.clone(), c(&[false, true])], &[("axis", int(-1))]);
    eq_f32(&r, &[3, 1], &[2., 4., 6.]);
    let r = run1(Opcode::Compress, vec![strt(&[2], &["a", "b"]), c(&[true])], &[]);
    assert_eq!(r, strt(&[1], &["a"]));
    fails(Opcode::Compress, vec![Some(x.clone()), Some(c(&[false, false, true]))], &[("axis", int(1))], 1);
    fails(Opcode::Compress, vec![Some(x), Some(ints(&[1, 0]))], &[("axis", int(1))], 1);
}

#[test]
fn non_zero_all_dtypes() {
    let r = run1(Opcode::NonZero, vec![f32t(&[2, 2], &[1., 0., 1., 1.])], &[]);
    eq_i64(&r, &[2, 3], &[0, 1, 1, 0, 0, 1]);
    let r = run1(Opcode::NonZero, vec![boolt(&[3], &[false, true, true])], &[]);
    eq_i64(&r, &[1, 2], &[1, 2]);
    let r = run1(Opcode::NonZero, vec![strt(&[2], &["", "x"])], &[]);
    eq_i64(&r, &[1, 1], &[1]);
    let r = run1(Opcode::NonZero, vec![t(&[2], Data::F64(vec![f64::NAN, 0.0]))], &[]);
    eq_i64(&r, &[1, 1], &[0]);
    let r = run1(Opcode::NonZero, vec![i32t(&[0, 3], &[])], &[]);
    eq_i64(&r, &[2, 0], &[]);
}
