//! TopK and Unique.

use crate::common::shape::*;
use ir::interp::Data;

fn top_k(x: Tensor, k: i64, at: &[(&str, ir::Attr)]) -> (Tensor, Tensor) {
    let mut r = run(Opcode::TopK, vec![Some(x), Some(ints(&[k]))], at, 2).unwrap_or_else(|e| panic!("{e}"));
    let i = r.pop().unwrap();
    (r.pop().unwrap(), i)
}

#[test]
fn top_k_node_tests() {
    let x = iota(&[3, 4]);
    let (v, i) = top_k(x.clone(), 3, &[("axis", int(1))]);
    eq_f32(&v, &[3, 3], &[3., 2., 1., 7., 6., 5., 11., 10., 9.]);
    eq_i64(&i, &[3, 3], &[3, 2, 1, 3, 2, 1, 3, 2, 1]);
    let (v2, i2) = top_k(x.clone(), 3, &[("axis", int(-1))]);
    assert_eq!((v2, i2), (v, i));
    // test_top_k_smallest
    let x = f32t(&[3, 4], &[0., 1., 2., 3., 4., 5., 6., 7., 11., 10., 9., 8.]);
    let (v, i) = top_k(x, 3, &[("largest", int(0)), ("sorted", int(1))]);
    eq_f32(&v, &[3, 3], &[0., 1., 2., 4., 5., 6., 8., 9., 10.]);
    eq_i64(&i, &[3, 3], &[0, 1, 2, 0, 1, 2, 3, 2, 1]);
    // Ties keep the lower index first, for largest and smallest.
    let (v, i) = top_k(i32t(&[4], &[1, 3, 3, 2]), 3, &[]);
    assert_eq!(v, i32t(&[3], &[3, 3, 2]));
    eq_i64(&i, &[3], &[1, 2, 3]);
    let (_, i) = top_k(i32t(&[4], &[2, 1, 1, 3]), 2, &[("largest", int(0))]);
    eq_i64(&i, &[2], &[1, 2]);
    // Axis 0, u64 (test_top_k_uint64), f16, NaN counted as largest, k = 0.
    let (v, i) = top_k(t(&[3, 1], Data::U64(vec![5, u64::MAX, 0])), 2, &[("axis", int(0))]);
    assert_eq!(v, t(&[2, 1], Data::U64(vec![u64::MAX, 5])));
    eq_i64(&i, &[2, 1], &[1, 0]);
    let (v, _) = top_k(f16t(&[3], &[0.5, -1., 2.]), 1, &[("largest", int(0))]);
    assert_eq!(v, f16t(&[1], &[-1.]));
    let (_, i) = top_k(f32t(&[3], &[1., f32::NAN, 5.]), 1, &[]);
    eq_i64(&i, &[1], &[1]);
    assert_eq!(top_k(iota(&[2, 3]), 0, &[]).0.shape, vec![2, 0]);
    fails(Opcode::TopK, vec![Some(iota(&[3])), Some(ints(&[4]))], &[], 2);
    fails(Opcode::TopK, vec![Some(strt(&[1], &["a"])), Some(ints(&[1]))], &[], 2);
}

fn unique(x: Tensor, at: &[(&str, ir::Attr)]) -> Vec<Tensor> {
    run(Opcode::Unique, vec![Some(x)], at, 4).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn unique_node_tests() {
    let x = f32t(&[6], &[2., 1., 1., 3., 4., 3.]);
    let r = unique(x.clone(), &[("sorted", int(0))]);
    eq_f32(&r[0], &[4], &[2., 1., 3., 4.]);
    eq_i64(&r[1], &[4], &[0, 1, 3, 4]);
    eq_i64(&r[2], &[6], &[0, 1, 1, 2, 3, 2]);
    eq_i64(&r[3], &[4], &[1, 2, 2, 1]);
    let r = unique(x.clone(), &[]);
    eq_f32(&r[0], &[4], &[1., 2., 3., 4.]);
    eq_i64(&r[1], &[4], &[1, 0, 3, 4]);
    eq_i64(&r[2], &[6], &[1, 0, 0, 2, 3, 2]);
    eq_i64(&r[3], &[4], &[2, 1, 2, 1]);
    // test_unique_sorted_with_axis
    let m = f32t(&[3, 3], &[1., 0., 0., 1., 0., 0., 2., 3., 4.]);
    let r = unique(m, &[("axis", int(0))]);
    eq_f32(&r[0], &[2, 3], &[1., 0., 0., 2., 3., 4.]);
    eq_i64(&r[1], &[2], &[0, 2]);
    eq_i64(&r[2], &[3], &[0, 0, 1]);
    eq_i64(&r[3], &[2], &[2, 1]);
    // test_unique_sorted_with_axis_3d
    let c = f32t(&[2, 4, 2], &[1., 1., 0., 1., 2., 1., 0., 1., 1., 1., 0., 1., 2., 1., 0., 1.]);
    let r = unique(c, &[("axis", int(1))]);
    eq_f32(&r[0], &[2, 3, 2], &[0., 1., 1., 1., 2., 1., 0., 1., 1., 1., 2., 1.]);
    eq_i64(&r[1], &[3], &[1, 0, 2]);
    eq_i64(&r[2], &[4], &[1, 0, 2, 0]);
    eq_i64(&r[3], &[3], &[2, 1, 1]);
    // test_unique_sorted_with_negative_axis
    let n = f32t(&[3, 3], &[1., 0., 0., 1., 0., 0., 2., 3., 3.]);
    let r = unique(n, &[("axis", int(-1))]);
    eq_f32(&r[0], &[3, 2], &[0., 1., 0., 1., 3., 2.]);
    eq_i64(&r[1], &[2], &[1, 0]);
    eq_i64(&r[2], &[3], &[1, 0, 0]);
    eq_i64(&r[3], &[2], &[2, 1]);
    // test_unique_length_1, fewer results, strings.
    let r = unique(f32t(&[1], &[5.]), &[]);
    assert_eq!((r[1].clone(), r[2].clone(), r[3].clone()), (ints(&[0]), ints(&[0]), ints(&[1])));
    let y = run(Opcode::Unique, vec![Some(strt(&[3], &["b", "a", "b"]))], &[], 1).unwrap();
    assert_eq!(y, vec![strt(&[2], &["a", "b"])]);
    fails(Opcode::Unique, vec![Some(x)], &[("axis", int(1))], 4);
}
