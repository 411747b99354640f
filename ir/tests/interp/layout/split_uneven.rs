//! Split with `num_outputs` not dividing the axis (opset 18's uneven rule).

use crate::common::loss::*;

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
