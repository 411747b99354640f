//! Gather, GatherElements, GatherND and OneHot.

use crate::common::shape::*;

fn vals(v: &[i32]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

#[test]
fn gather_axes_ranks_and_negative_indices() {
    let x = iota(&[5, 4, 3, 2]);
    let r = run1(Opcode::Gather, vec![x.clone(), ints(&[0, 1, 3])], &[]);
    assert_eq!(r.shape, vec![3, 4, 3, 2]);
    assert_eq!(r.to_f64s()[24], 24.);
    assert_eq!(r.to_f64s()[48], 72.);
    let r = run1(Opcode::Gather, vec![x.clone(), ints(&[0, 1, 3])], &[("axis", int(1))]);
    assert_eq!(r.shape, vec![5, 3, 3, 2]);
    assert_eq!(r.to_f64s()[12..14], [18., 19.]);
    // test_gather_2d_indices
    let m = iota(&[3, 3]);
    let r = run1(Opcode::Gather, vec![m.clone(), i64t(&[1, 2], &[0, 2])], &[("axis", int(1))]);
    eq_f32(&r, &[3, 1, 2], &vals(&[0, 2, 3, 5, 6, 8]));
    // test_gather_negative_indices
    let r = run1(Opcode::Gather, vec![iota(&[10]), ints(&[0, -9, -10])], &[]);
    eq_f32(&r, &[3], &[0., 1., 0.]);
    // Scalar index drops the axis; i32 indices; strings.
    let r = run1(Opcode::Gather, vec![m.clone(), i32t(&[], &[1])], &[]);
    eq_f32(&r, &[3], &[3., 4., 5.]);
    let r = run1(Opcode::Gather, vec![strt(&[3], &["a", "b", "c"]), ints(&[2, 2, 0])], &[]);
    assert_eq!(r, strt(&[3], &["c", "c", "a"]));
    fails(Opcode::Gather, vec![Some(m.clone()), Some(ints(&[3]))], &[], 1);
    fails(Opcode::Gather, vec![Some(m), Some(ints(&[-4]))], &[], 1);
}

#[test]
fn gather_elements_node_tests() {
    let a = f32t(&[2, 2], &[1., 2., 3., 4.]);
    let r = run1(Opcode::GatherElements, vec![a, i64t(&[2, 2], &[0, 0, 1, 0])], &[("axis", int(1))]);
    eq_f32(&r, &[2, 2], &[1., 1., 4., 3.]);
    let b = f32t(&[3, 3], &vals(&[1, 2, 3, 4, 5, 6, 7, 8, 9]));
    let r = run1(Opcode::GatherElements, vec![b.clone(), i32t(&[2, 3], &[1, 2, 0, 2, 0, 0])], &[]);
    eq_f32(&r, &[2, 3], &vals(&[4, 8, 3, 7, 2, 3]));
    let r = run1(Opcode::GatherElements, vec![b.clone(), i64t(&[2, 3], &[-1, -2, 0, -2, 0, 0])], &[]);
    eq_f32(&r, &[2, 3], &vals(&[7, 5, 3, 4, 2, 3]));
    let s = run1(Opcode::GatherElements, vec![strt(&[2], &["p", "q"]), ints(&[1, 1, 0])], &[]);
    assert_eq!(s, strt(&[3], &["q", "q", "p"]));
    fails(Opcode::GatherElements, vec![Some(b.clone()), Some(i64t(&[1, 1], &[3]))], &[], 1);
    fails(Opcode::GatherElements, vec![Some(b), Some(ints(&[0]))], &[], 1);
}

#[test]
fn gather_nd_node_tests() {
    let d = iota(&[2, 2, 2]);
    let r = run1(Opcode::GatherND, vec![d.clone(), i64t(&[2, 1, 2], &[0, 1, 1, 0])], &[]);
    eq_f32(&r, &[2, 1, 2], &[2., 3., 4., 5.]);
    let r = run1(Opcode::GatherND, vec![i32t(&[2, 2], &[0, 1, 2, 3]), i64t(&[2, 2], &[0, 0, 1, 1])], &[]);
    assert_eq!(r, i32t(&[2], &[0, 3]));
    let r = run1(Opcode::GatherND, vec![i32t(&[2, 2], &[0, 1, 2, 3]), i64t(&[2, 1], &[1, 0])], &[]);
    assert_eq!(r, i32t(&[2, 2], &[2, 3, 0, 1]));
    // test_gathernd_example_int32_batch_dim1
    let r = run1(Opcode::GatherND, vec![d.clone(), i64t(&[2, 1], &[1, 0])], &[("batch_dims", int(1))]);
    eq_f32(&r, &[2, 2], &[2., 3., 4., 5.]);
    let r = run1(Opcode::GatherND, vec![d.clone(), i64t(&[2, 2], &[1, -1, 0, 0])], &[("batch_dims", int(1))]);
    eq_f32(&r, &[2], &[3., 4.]);
    let s = run1(Opcode::GatherND, vec![strt(&[2, 2], &["a", "b", "c", "d"]), i64t(&[1, 2], &[1, 0])], &[]);
    assert_eq!(s, strt(&[1], &["c"]));
    fails(Opcode::GatherND, vec![Some(d.clone()), Some(i64t(&[1, 2], &[2, 0]))], &[], 1);
    fails(Opcode::GatherND, vec![Some(d), Some(i64t(&[1, 4], &[0; 4]))], &[], 1);
}

#[test]
fn one_hot_node_tests() {
    // test_onehot_without_axis: indices [0, 7, 8], depth 12, values [2, 5].
    let r = run1(Opcode::OneHot, vec![ints(&[0, 7, 8]), f32t(&[], &[12.]), f32t(&[2], &[2., 5.])], &[]);
    assert_eq!(r.shape, vec![3, 12]);
    let v = r.to_f64s();
    assert_eq!((v[0], v[1], v[12 + 7], v[24 + 8], v[24 + 7]), (5., 2., 5., 5., 2.));
    // test_onehot_with_axis: [[1, 9], [2, 4]], depth 10, axis 1.
    let idx = f32t(&[2, 2], &[1., 9., 2., 4.]);
    for axis in [1, -2] {
        let r =
            run1(Opcode::OneHot, vec![idx.clone(), f32t(&[1], &[10.]), f32t(&[2], &[1., 3.])], &[("axis", int(axis))]);
        assert_eq!(r.shape, vec![2, 10, 2]);
        let v = r.to_f64s();
        assert_eq!((v[2], v[19], v[20 + 4], v[20 + 9], v[0]), (3., 3., 3., 3., 1.));
    }
    // test_onehot_negative_indices: [0, -7, -8] with depth 10 mean [0, 3, 2].
    let r = run1(Opcode::OneHot, vec![ints(&[0, -7, -8]), i32t(&[], &[10]), f32t(&[2], &[1., 3.])], &[]);
    let hot: Vec<usize> = r.to_f64s().chunks(10).map(|row| row.iter().position(|&x| x == 3.).unwrap()).collect();
    assert_eq!(hot, [0, 3, 2]);
    // Out of range: all off (the spec's rule). String values.
    let r = run1(Opcode::OneHot, vec![ints(&[5, -4]), scalar_i64(3), strt(&[2], &["n", "y"])], &[]);
    assert_eq!(r, strt(&[2, 3], &["n"; 6]));
    let r = run1(Opcode::OneHot, vec![ints(&[1]), scalar_i64(2), i64t(&[2], &[0, 1])], &[("axis", int(0))]);
    eq_i64(&r, &[2, 1], &[0, 1]);
    fails(Opcode::OneHot, vec![Some(ints(&[1])), Some(scalar_i64(2)), Some(ints(&[0, 1, 2]))], &[], 1);
    fails(Opcode::OneHot, vec![Some(ints(&[1])), Some(scalar_i64(2)), Some(ints(&[0, 1]))], &[("axis", int(2))], 1);
}

proptest::proptest! {
    #[test]
    fn gather_matches_naive(a in 1usize..4, b in 1usize..4, axis in 0i64..2, raw in proptest::collection::vec(any_index(), 0..5)) {
        let x = iota(&[a, b]);
        let n = if axis == 0 { a } else { b } as i64;
        let idx: Vec<i64> = raw.iter().map(|&r| r.rem_euclid(2 * n) - n).collect();
        let r = run1(Opcode::Gather, vec![x, ints(&idx)], &[("axis", int(axis))]);
        let norm = |i: i64| (if i < 0 { i + n } else { i }) as usize;
        let want: Vec<f32> = if axis == 0 {
            idx.iter().flat_map(|&i| (0..b).map(move |j| (norm(i) * b + j) as f32)).collect()
        } else {
            (0..a).flat_map(|i| idx.iter().map(move |&j| (i * b + norm(j)) as f32)).collect()
        };
        let shape = if axis == 0 { vec![idx.len(), b] } else { vec![a, idx.len()] };
        proptest::prop_assert_eq!(r, f32t(&shape, &want));
    }
}

fn any_index() -> std::ops::Range<i64> {
    -100..100
}
