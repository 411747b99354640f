//! ScatterElements and ScatterND.

use crate::common::shape::*;

fn se(data: Tensor, idx: Tensor, upd: Tensor, at: &[(&str, ir::Attr)]) -> Tensor {
    run1(Opcode::ScatterElements, vec![data, idx, upd], at)
}

#[test]
fn scatter_elements_node_tests() {
    let data = || f32t(&[1, 5], &[1., 2., 3., 4., 5.]);
    let upd = || f32t(&[1, 2], &[1.1, 2.1]);
    let ax1 = ("axis", int(1));
    eq_f32(&se(data(), i64t(&[1, 2], &[1, 3]), upd(), std::slice::from_ref(&ax1)), &[1, 5], &[1., 1.1, 3., 2.1, 5.]);
    eq_f32(&se(data(), i64t(&[1, 2], &[1, -3]), upd(), std::slice::from_ref(&ax1)), &[1, 5], &[1., 1.1, 2.1, 4., 5.]);
    let dup = || i64t(&[1, 2], &[1, 1]);
    let with = |r: &str| [ax1.clone(), ("reduction", s(r))];
    let add = se(data(), dup(), upd(), &with("add"));
    close(&add, &[1, 5], &[1., 5.2, 3., 4., 5.], 1e-6);
    eq_f32(&se(data(), dup(), upd(), &with("max")), &[1, 5], &[1., 2.1, 3., 4., 5.]);
    eq_f32(&se(data(), dup(), upd(), &with("min")), &[1, 5], &[1., 1.1, 3., 4., 5.]);
    close(&se(data(), dup(), upd(), &with("mul")), &[1, 5], &[1., 4.62, 3., 4., 5.], 1e-6);
    // test_scatter_elements_without_axis
    let r = se(
        f32t(&[3, 3], &[0.; 9]),
        i32t(&[2, 3], &[1, 0, 2, 0, 2, 1]),
        f32t(&[2, 3], &[1., 1.1, 1.2, 2., 2.1, 2.2]),
        &[],
    );
    eq_f32(&r, &[3, 3], &[2., 1.1, 0., 1., 0., 2.2, 0., 2.1, 1.2]);
    // Duplicates without reduction: the last update wins. Strings and wrapping ints.
    eq_f32(&se(data(), dup(), upd(), std::slice::from_ref(&ax1)), &[1, 5], &[1., 2.1, 3., 4., 5.]);
    let r = se(strt(&[3], &["a", "b", "c"]), ints(&[2]), strt(&[1], &["z"]), &[]);
    assert_eq!(r, strt(&[3], &["a", "b", "z"]));
    let r = se(i32t(&[1], &[i32::MAX]), ints(&[0]), i32t(&[1], &[1]), &[("reduction", s("add"))]);
    assert_eq!(r, i32t(&[1], &[i32::MIN]));
    fails(
        Opcode::ScatterElements,
        vec![Some(data()), Some(i64t(&[1, 2], &[1, 5])), Some(upd())],
        std::slice::from_ref(&ax1),
        1,
    );
    fails(
        Opcode::ScatterElements,
        vec![Some(data()), Some(i64t(&[1, 1], &[1])), Some(upd())],
        std::slice::from_ref(&ax1),
        1,
    );
    let sr = vec![Some(strt(&[1], &["a"])), Some(ints(&[0])), Some(strt(&[1], &["b"]))];
    fails(Opcode::ScatterElements, sr, &[("reduction", s("add"))], 1);
}

#[test]
fn scatter_nd_node_tests() {
    let data = || f32t(&[8], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let idx = i64t(&[4, 1], &[4, 3, 1, 7]);
    let upd = f32t(&[4], &[9., 10., 11., 12.]);
    let r = run1(Opcode::ScatterND, vec![data(), idx.clone(), upd.clone()], &[]);
    eq_f32(&r, &[8], &[1., 11., 3., 10., 9., 6., 7., 12.]);
    // Slices: the spec's second example, shrunk to [2, 2, 2].
    let d3 = iota(&[2, 2, 2]);
    let r = run1(Opcode::ScatterND, vec![d3.clone(), i64t(&[1, 1], &[1]), f32t(&[1, 2, 2], &[9.; 4])], &[]);
    eq_f32(&r, &[2, 2, 2], &[0., 1., 2., 3., 9., 9., 9., 9.]);
    let r = run1(Opcode::ScatterND, vec![d3.clone(), i64t(&[1, 3], &[0, -1, 1]), f32t(&[1], &[-5.])], &[]);
    eq_f32(&r, &[2, 2, 2], &[0., 1., 2., -5., 4., 5., 6., 7.]);
    // Reductions with duplicate indices (test_scatternd_add/multiply/max/min).
    let dup = i64t(&[2, 1], &[0, 0]);
    let u = f32t(&[2, 2, 2], &[1., 2., 3., 4., 10., 0., 1., 1.]);
    let red = |r: &str| run1(Opcode::ScatterND, vec![d3.clone(), dup.clone(), u.clone()], &[("reduction", s(r))]);
    eq_f32(&red("add"), &[2, 2, 2], &[11., 3., 6., 8., 4., 5., 6., 7.]);
    eq_f32(&red("mul"), &[2, 2, 2], &[0., 0., 6., 12., 4., 5., 6., 7.]);
    eq_f32(&red("max"), &[2, 2, 2], &[10., 2., 3., 4., 4., 5., 6., 7.]);
    eq_f32(&red("min"), &[2, 2, 2], &[0., 0., 1., 1., 4., 5., 6., 7.]);
    let b = run1(Opcode::ScatterND, vec![boolt(&[2], &[false, false]), i64t(&[1, 1], &[1]), boolt(&[1], &[true])], &[]);
    assert_eq!(b, boolt(&[2], &[false, true]));
    fails(Opcode::ScatterND, vec![Some(data()), Some(i64t(&[1, 1], &[8])), Some(f32t(&[1], &[0.]))], &[], 1);
    fails(Opcode::ScatterND, vec![Some(data()), Some(idx), Some(f32t(&[3], &[0.; 3]))], &[], 1);
}
