//! CumProd, Swish, TensorScatter and Split's uneven `num_outputs` rule.

use super::*;

const CP: Opcode = Opcode::CumProd;
const TS: Opcode = Opcode::TensorScatter;

/// The CumProd doc example in every exclusive/reverse combination (test_cumprod_1d_*).
#[test]
fn cum_prod_1d_modes() {
    let x = || Some(f64t(&[5], &[1.0, 2.0, 3.0, 4.0, 5.0]));
    let axis = || Some(i32t(&[], &[0]));
    let cases: [(i64, i64, [f64; 5]); 4] = [
        (0, 0, [1.0, 2.0, 6.0, 24.0, 120.0]),
        (1, 0, [1.0, 1.0, 2.0, 6.0, 24.0]),
        (0, 1, [120.0, 120.0, 60.0, 20.0, 5.0]),
        (1, 1, [120.0, 60.0, 20.0, 5.0, 1.0]),
    ];
    for (exclusive, reverse, want) in cases {
        let out = run(CP, &[x(), axis()], &[("exclusive", int(exclusive)), ("reverse", int(reverse))], 1);
        check(&out[0], &f64t(&[5], &want));
    }
}

/// 2-D along either axis, negative axis, i32 (test_cumprod_2d_*), and integer wrapping.
#[test]
fn cum_prod_2d_and_ints() {
    let x = || Some(i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]));
    check(&run(CP, &[x(), Some(i32t(&[], &[0]))], &[], 1)[0], &i32t(&[2, 3], &[1, 2, 3, 4, 10, 18]));
    check(&run(CP, &[x(), Some(i64t(&[], &[-1]))], &[], 1)[0], &i32t(&[2, 3], &[1, 2, 6, 4, 20, 120]));
    let big = t(&[3], Data::U8(vec![16, 16, 3]));
    check(&run(CP, &[Some(big), Some(i64t(&[], &[0]))], &[], 1)[0], &t(&[3], Data::U8(vec![16, 0, 0])));
    let x = f32t(&[2, 2], &[0.5, -2.0, 3.0, 0.25]);
    let out = run(CP, &[Some(x), Some(i64t(&[], &[1]))], &[("exclusive", int(1))], 1);
    check(&out[0], &f32t(&[2, 2], &[1.0, 0.5, 1.0, 3.0]));
    let e = run_err(CP, &[Some(f32t(&[2], &[1.0, 2.0])), Some(i64t(&[], &[1]))], &[], 1);
    assert!(e.contains("out of range"), "{e}");
}

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

/// Split into `num_outputs` uneven parts follows the ONNX reference: parts of
/// `ceil(d / n)` clamped to the dim, so trailing parts may be smaller or empty.
#[test]
fn split_uneven_num_outputs() {
    let x = f32t(&[5, 2], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let out = run(Opcode::Split, &[Some(x), None], &[("num_outputs", int(4))], 4);
    let shapes: Vec<Vec<usize>> = out.iter().map(|t| t.shape.clone()).collect();
    assert_eq!(shapes, vec![vec![2, 2], vec![2, 2], vec![1, 2], vec![0, 2]]);
    check(&out[2], &f32t(&[1, 2], &[8.0, 9.0]));
    let out = run(Opcode::Split, &[Some(ints(&[1, 2, 3, 4, 5, 6, 7])), None], &[("num_outputs", int(3))], 3);
    let lens: Vec<usize> = out.iter().map(|t| t.len()).collect();
    assert_eq!(lens, vec![3, 3, 1]);
    let out = run(Opcode::Split, &[Some(ints(&[1, 2])), None], &[("num_outputs", int(3))], 3);
    let lens: Vec<usize> = out.iter().map(|t| t.len()).collect();
    assert_eq!(lens, vec![1, 1, 0]);
}
