//! Reshape, Transpose, Concat, Split, Squeeze, Unsqueeze, Flatten, Expand,
//! Tile, Shape and Size.

use crate::common::shape::*;
use ir::interp::Data;
use proptest::prelude::*;

fn iota_vals(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

#[test]
fn reshape_node_test_shapes() {
    let x = iota(&[2, 3, 4]);
    let cases: &[(&[i64], &[usize])] = &[
        (&[4, 2, 3], &[4, 2, 3]),
        (&[2, 4, 3], &[2, 4, 3]),
        (&[2, 12], &[2, 12]),
        (&[2, 3, 2, 2], &[2, 3, 2, 2]),
        (&[24], &[24]),
        (&[2, -1, 2], &[2, 6, 2]),
        (&[-1, 2, 3, 4], &[1, 2, 3, 4]),
        (&[2, 0, 4, 1], &[2, 3, 4, 1]),
        (&[2, 0, 1, -1], &[2, 3, 1, 4]),
    ];
    for &(spec, shape) in cases {
        let r = run1(Opcode::Reshape, vec![x.clone(), ints(spec)], &[]);
        eq_f32(&r, shape, &iota_vals(24));
    }
    // test_reshape_allowzero_reordered
    let r = run1(Opcode::Reshape, vec![f32t(&[0, 3, 4], &[]), ints(&[3, 4, 0])], &[("allowzero", int(1))]);
    eq_f32(&r, &[3, 4, 0], &[]);
    let s = run1(Opcode::Reshape, vec![strt(&[2, 2], &["a", "b", "c", "d"]), ints(&[4])], &[]);
    assert_eq!(s, strt(&[4], &["a", "b", "c", "d"]));
    fails(Opcode::Reshape, vec![Some(x.clone()), Some(ints(&[5, -1]))], &[], 1);
    fails(Opcode::Reshape, vec![Some(x.clone()), Some(ints(&[-1, -1]))], &[], 1);
    fails(Opcode::Reshape, vec![Some(x), Some(ints(&[0, -1, 0]))], &[("allowzero", int(1))], 1);
}

#[test]
fn transpose_permutations_and_dtypes() {
    let x = iota(&[2, 3, 4]);
    let r = run1(Opcode::Transpose, vec![x.clone()], &[]);
    assert_eq!(r.shape, vec![4, 3, 2]);
    assert_eq!(r.to_f64s()[..4], [0., 12., 4., 16.]);
    let perm = ir::Attr::Ints(vec![1, 2, 0]);
    let r = run1(Opcode::Transpose, vec![x.clone()], &[("perm", perm)]);
    assert_eq!(r.shape, vec![3, 4, 2]);
    assert_eq!(r.to_f64s()[..6], [0., 12., 1., 13., 2., 14.]);
    let s = run1(Opcode::Transpose, vec![strt(&[2, 2], &["a", "b", "c", "d"])], &[]);
    assert_eq!(s, strt(&[2, 2], &["a", "c", "b", "d"]));
    let b = run1(Opcode::Transpose, vec![boolt(&[1, 2], &[true, false])], &[]);
    assert_eq!(b, boolt(&[2, 1], &[true, false]));
    fails(Opcode::Transpose, vec![Some(x.clone())], &[("perm", ir::Attr::Ints(vec![0, 0, 1]))], 1);
    fails(Opcode::Transpose, vec![Some(x)], &[("perm", ir::Attr::Ints(vec![1, 0]))], 1);
}

proptest! {
    #[test]
    fn transpose_matches_naive(d in proptest::array::uniform3(1usize..4), p in 0usize..6) {
        let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        let perm = perms[p];
        let x = iota(&d);
        let r = run1(Opcode::Transpose, vec![x], &[("perm", ir::Attr::Ints(perm.iter().map(|&v| v as i64).collect()))]);
        let os: Vec<usize> = perm.iter().map(|&k| d[k]).collect();
        prop_assert_eq!(&r.shape, &os);
        let got = r.to_f64s();
        for a in 0..os[0] { for b in 0..os[1] { for c in 0..os[2] {
            let mut src = [0; 3];
            (src[perm[0]], src[perm[1]], src[perm[2]]) = (a, b, c);
            let want = ((src[0] * d[1] + src[1]) * d[2] + src[2]) as f64;
            prop_assert_eq!(got[(a * os[1] + b) * os[2] + c], want);
        }}}
    }
}

#[test]
fn concat_axes_and_dtypes() {
    let a = f32t(&[2, 2], &[1., 2., 3., 4.]);
    let b = f32t(&[2, 2], &[5., 6., 7., 8.]);
    let cat = |axis: i64| run1(Opcode::Concat, vec![a.clone(), b.clone()], &[("axis", int(axis))]);
    eq_f32(&cat(0), &[4, 2], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    eq_f32(&cat(1), &[2, 4], &[1., 2., 5., 6., 3., 4., 7., 8.]);
    eq_f32(&cat(-1), &[2, 4], &[1., 2., 5., 6., 3., 4., 7., 8.]);
    eq_f32(&cat(-2), &[4, 2], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let one =
        run1(Opcode::Concat, vec![f32t(&[1], &[1.]), f32t(&[0], &[]), f32t(&[2], &[2., 3.])], &[("axis", int(0))]);
    eq_f32(&one, &[3], &[1., 2., 3.]);
    let s = run1(Opcode::Concat, vec![strt(&[1], &["x"]), strt(&[2], &["y", "z"])], &[("axis", int(0))]);
    assert_eq!(s, strt(&[3], &["x", "y", "z"]));
    let bl = run1(Opcode::Concat, vec![boolt(&[1, 1], &[true]), boolt(&[1, 1], &[false])], &[("axis", int(1))]);
    assert_eq!(bl, boolt(&[1, 2], &[true, false]));
    fails(Opcode::Concat, vec![Some(a.clone()), Some(f32t(&[3], &[0.; 3]))], &[("axis", int(0))], 1);
    fails(Opcode::Concat, vec![Some(a)], &[("axis", int(2))], 1);
}

#[test]
fn split_equal_variable_and_uneven() {
    let x = f32t(&[6], &[1., 2., 3., 4., 5., 6.]);
    let r = run(Opcode::Split, vec![Some(x.clone())], &[("num_outputs", int(3))], 3).unwrap();
    for (k, p) in r.iter().enumerate() {
        eq_f32(p, &[2], &[2. * k as f32 + 1., 2. * k as f32 + 2.]);
    }
    let r = run(Opcode::Split, vec![Some(x.clone()), Some(ints(&[2, 4]))], &[], 2).unwrap();
    eq_f32(&r[0], &[2], &[1., 2.]);
    eq_f32(&r[1], &[4], &[3., 4., 5., 6.]);
    // test_split_1d_uneven_split_opset18: 7 elements into 4 parts.
    let x7 = f32t(&[7], &[1., 2., 3., 4., 5., 6., 7.]);
    let r = run(Opcode::Split, vec![Some(x7)], &[("num_outputs", int(4))], 4).unwrap();
    let lens: Vec<usize> = r.iter().map(|p| p.shape[0]).collect();
    assert_eq!(lens, [2, 2, 2, 1]);
    eq_f32(&r[3], &[1], &[7.]);
    // test_split_2d_uneven_split_opset18: [2, 8] into 3 parts along axis 1.
    let m = iota(&[2, 8]);
    let r = run(Opcode::Split, vec![Some(m)], &[("axis", int(1)), ("num_outputs", int(3))], 3).unwrap();
    eq_f32(&r[0], &[2, 3], &[0., 1., 2., 8., 9., 10.]);
    eq_f32(&r[2], &[2, 2], &[6., 7., 14., 15.]);
    // test_split_zero_size_splits
    let r = run(Opcode::Split, vec![Some(f32t(&[0], &[])), Some(ints(&[0, 0, 0]))], &[], 3).unwrap();
    assert!(r.iter().all(|p| p.shape == [0]));
    // Default: equal parts by result count; strings too.
    let s = run(Opcode::Split, vec![Some(strt(&[2, 2], &["a", "b", "c", "d"]))], &[("axis", int(-1))], 2).unwrap();
    assert_eq!(s[1], strt(&[2, 1], &["b", "d"]));
    fails(Opcode::Split, vec![Some(x.clone()), Some(ints(&[2, 2]))], &[], 2);
    fails(Opcode::Split, vec![Some(x)], &[("num_outputs", int(2))], 3);
}

#[test]
fn squeeze_unsqueeze_flatten() {
    let x = iota(&[1, 3, 1, 5]);
    let sq = |axes: Option<Tensor>| run(Opcode::Squeeze, vec![Some(x.clone()), axes], &[], 1).unwrap().remove(0);
    assert_eq!(sq(Some(ints(&[0]))).shape, vec![3, 1, 5]);
    assert_eq!(sq(Some(ints(&[-2]))).shape, vec![1, 3, 5]);
    assert_eq!(sq(None).shape, vec![3, 5]);
    fails(Opcode::Squeeze, vec![Some(x), Some(ints(&[1]))], &[], 1);
    let y = iota(&[3, 4, 5]);
    let us = |axes: &[i64]| run1(Opcode::Unsqueeze, vec![y.clone(), ints(axes)], &[]).shape;
    assert_eq!(us(&[0]), vec![1, 3, 4, 5]);
    assert_eq!(us(&[2]), vec![3, 4, 1, 5]);
    assert_eq!(us(&[1, 4]), vec![3, 1, 4, 5, 1]);
    assert_eq!(us(&[2, 4, 5]), vec![3, 4, 1, 5, 1, 1]);
    assert_eq!(us(&[5, 4, 2]), vec![3, 4, 1, 5, 1, 1]);
    assert_eq!(us(&[-2]), vec![3, 4, 1, 5]);
    fails(Opcode::Unsqueeze, vec![Some(y.clone()), Some(ints(&[0, 0]))], &[], 1);
    let z = iota(&[2, 3, 4, 5]);
    let fl = |axis: i64| run1(Opcode::Flatten, vec![z.clone()], &[("axis", int(axis))]);
    assert_eq!(run1(Opcode::Flatten, vec![z.clone()], &[]).shape, vec![2, 60]);
    let cases = [(0, [1, 120]), (1, [2, 60]), (2, [6, 20]), (3, [24, 5]), (4, [120, 1]), (-1, [24, 5]), (-4, [1, 120])];
    for (axis, shape) in cases {
        eq_f32(&fl(axis), &shape, &iota_vals(120));
    }
    fails(Opcode::Flatten, vec![Some(z)], &[("axis", int(5))], 1);
}

#[test]
fn expand_and_tile() {
    let x = f32t(&[3, 1], &[1., 2., 3.]);
    // test_expand_dim_changed / test_expand_dim_unchanged
    let r = run1(Opcode::Expand, vec![x.clone(), ints(&[2, 1, 6])], &[]);
    assert_eq!(r.shape, vec![2, 3, 6]);
    assert_eq!(r.to_f64s()[..8], [1., 1., 1., 1., 1., 1., 2., 2.]);
    eq_f32(
        &run1(Opcode::Expand, vec![x.clone(), ints(&[3, 4])], &[]),
        &[3, 4],
        &[1., 1., 1., 1., 2., 2., 2., 2., 3., 3., 3., 3.],
    );
    let s = run1(Opcode::Expand, vec![strt(&[1], &["s"]), ints(&[2])], &[]);
    assert_eq!(s, strt(&[2], &["s", "s"]));
    fails(Opcode::Expand, vec![Some(x), Some(ints(&[2, 4]))], &[], 1);
    // test_tile_precomputed
    let m = f32t(&[2, 2], &[0., 1., 2., 3.]);
    let r = run1(Opcode::Tile, vec![m.clone(), ints(&[2, 2])], &[]);
    eq_f32(&r, &[4, 4], &[0., 1., 0., 1., 2., 3., 2., 3., 0., 1., 0., 1., 2., 3., 2., 3.]);
    eq_f32(&run1(Opcode::Tile, vec![m.clone(), ints(&[1, 0])], &[]), &[2, 0], &[]);
    let b = run1(Opcode::Tile, vec![boolt(&[1], &[true]), ints(&[3])], &[]);
    assert_eq!(b, boolt(&[3], &[true; 3]));
    fails(Opcode::Tile, vec![Some(m.clone()), Some(ints(&[2]))], &[], 1);
    fails(Opcode::Tile, vec![Some(m), Some(ints(&[1, -1]))], &[], 1);
}

#[test]
fn shape_and_size() {
    let x = iota(&[3, 4, 5]);
    let sh = |at: &[(&str, ir::Attr)]| run1(Opcode::Shape, vec![x.clone()], at);
    eq_i64(&sh(&[]), &[3], &[3, 4, 5]);
    eq_i64(&sh(&[("start", int(1))]), &[2], &[4, 5]);
    eq_i64(&sh(&[("end", int(1))]), &[1], &[3]);
    eq_i64(&sh(&[("start", int(-1))]), &[1], &[5]);
    eq_i64(&sh(&[("end", int(-1))]), &[2], &[3, 4]);
    eq_i64(&sh(&[("start", int(1)), ("end", int(2))]), &[1], &[4]);
    eq_i64(&sh(&[("start", int(1)), ("end", int(-1))]), &[1], &[4]);
    eq_i64(&sh(&[("start", int(-10))]), &[3], &[3, 4, 5]);
    eq_i64(&sh(&[("end", int(10))]), &[3], &[3, 4, 5]);
    eq_i64(&sh(&[("start", int(2)), ("end", int(1))]), &[0], &[]);
    eq_i64(&run1(Opcode::Size, vec![x], &[]), &[], &[60]);
    eq_i64(&run1(Opcode::Size, vec![t(&[0, 3], Data::String(vec![]))], &[]), &[], &[0]);
}
