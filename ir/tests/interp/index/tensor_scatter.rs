//! TensorScatter: linear and circular modes, `write_indices`, and its errors.

use crate::common::loss::*;

const TS: Opcode = Opcode::TensorScatter;

/// Mirrors test_tensorscatter_3d: linear writes at per-batch indices along axis -2.
#[test]
fn tensor_scatter_3d_linear() {
    let row = [1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 8.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 5.0, 4.0, 3.0, 2.0, 1.0];
    let past = f32t(&[3, 4, 5], &row.repeat(3));
    let upd: Vec<f32> = [4.0, 5.0, 6.0, 7.0, 2.0, 3.0].iter().flat_map(|&v| [v; 5]).collect();
    let out = run(TS, &[Some(past), Some(f32t(&[3, 2, 5], &upd)), Some(ints(&[1, 2, 0]))], &[], 1);
    let mut want = row.repeat(3);
    let mut put = |b: usize, r: usize, v: f32| want[(b * 4 + r) * 5..(b * 4 + r + 1) * 5].fill(v);
    put(0, 1, 4.0);
    put(0, 2, 5.0);
    put(1, 2, 6.0);
    put(1, 3, 7.0);
    put(2, 0, 2.0);
    put(2, 1, 3.0);
    check(&out[0], &f32t(&[3, 4, 5], &want));
}

/// Mirrors test_tensorscatter_circular: positions wrap modulo the cache length.
#[test]
fn tensor_scatter_circular() {
    let past = i64t(&[2, 1, 4, 1], &[10, 11, 12, 13, 20, 21, 22, 23]);
    let upd = i64t(&[2, 1, 2, 1], &[5, 6, 1, 2]);
    let out = run(TS, &[Some(past.clone()), Some(upd.clone()), Some(ints(&[1, 3]))], &[("mode", s("circular"))], 1);
    check(&out[0], &i64t(&[2, 1, 4, 1], &[10, 5, 6, 13, 2, 21, 22, 1]));
    // Without write_indices every batch entry writes at 0; strings work too.
    let strs = |v: &[&str]| Data::String(v.iter().map(|s| s.to_string()).collect());
    let past = t(&[1, 3], strs(&["a", "b", "c"]));
    let out = run(TS, &[Some(past), Some(t(&[1, 1], strs(&["z"]))), None], &[("axis", int(1))], 1);
    assert_eq!(out[0].data, strs(&["z", "b", "c"]));
    let e = run_err(TS, &[Some(past_i64()), Some(upd), Some(ints(&[3, 0]))], &[], 1);
    assert!(e.contains("outside"), "{e}");
}

fn past_i64() -> Tensor {
    i64t(&[2, 1, 4, 1], &[0; 8])
}

/// Bad axes, shapes and index operands are errors.
#[test]
fn tensor_scatter_errors() {
    let upd = || Some(i64t(&[2, 1, 2, 1], &[0; 4]));
    let e = run_err(TS, &[Some(past_i64()), upd(), None], &[("axis", int(0))], 1);
    assert!(e.contains("batch axis"), "{e}");
    let e = run_err(TS, &[Some(past_i64()), Some(i64t(&[2, 1, 5, 1], &[0; 10])), None], &[], 1);
    assert!(e.contains("does not fit"), "{e}");
    let e = run_err(TS, &[Some(past_i64()), upd(), Some(ints(&[0, 0, 0]))], &[], 1);
    assert!(e.contains("write_indices") || e.contains("batch"), "{e}");
    let e = run_err(TS, &[Some(past_i64()), Some(f32t(&[2, 1, 2, 1], &[0.0; 4])), None], &[], 1);
    assert!(e.contains("element type"), "{e}");
}
