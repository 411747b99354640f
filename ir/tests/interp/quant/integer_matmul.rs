//! MatMulInteger and QLinearMatMul.

use crate::common::qlinear::*;

/// Mirrors test_matmulinteger.
#[test]
fn matmul_integer_node_test() {
    let a = u8t(&[4, 3], &[11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0]);
    let b = u8t(&[3, 2], &[1, 4, 2, 5, 3, 6]);
    let out = run(Opcode::MatMulInteger, &[Some(a), Some(b), Some(u8t(&[1], &[12])), Some(u8t(&[1], &[0]))], &[], 1);
    check(&out[0], &i32t(&[4, 2], &[-38, -83, -44, -98, -50, -113, -56, -128]));
}

/// i8 × u8, a per-row `a_zero_point` and a per-column `b_zero_point` (by hand):
/// A - zp = [[0, 1, 2], [2, 3, 4]], B - zp = [[0, 1], [2, 2], [4, 5]].
#[test]
fn matmul_integer_per_row_and_column_zero_points() {
    let a = i8t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let b = u8t(&[3, 2], &[1, 3, 3, 4, 5, 7]);
    let out =
        run(Opcode::MatMulInteger, &[Some(a), Some(b), Some(i8t(&[2], &[1, 2])), Some(u8t(&[2], &[1, 2]))], &[], 1);
    check(&out[0], &i32t(&[2, 2], &[10, 12, 22, 28]));
}

/// A 1-D A against a batch of B matrices, no zero points (by hand).
#[test]
fn matmul_integer_1d_and_batched() {
    let a = u8t(&[3], &[1, 2, 3]);
    let b = u8t(&[2, 3, 2], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let out = run(Opcode::MatMulInteger, &[Some(a), Some(b), None, None], &[], 1);
    check(&out[0], &i32t(&[2, 2], &[22, 28, 58, 64]));
}

/// N-D zero points `[.., M, 1]` and `[.., 1, N]` broadcast like the per-row/column forms.
#[test]
fn matmul_integer_nd_zero_points() {
    let a = i8t(&[1, 2, 3], &[1, 2, 3, 4, 5, 6]);
    let b = u8t(&[1, 3, 2], &[1, 3, 3, 4, 5, 7]);
    let (azp, bzp) = (i8t(&[1, 2, 1], &[1, 2]), u8t(&[1, 1, 2], &[1, 2]));
    let out = run(Opcode::MatMulInteger, &[Some(a), Some(b), Some(azp), Some(bzp)], &[], 1);
    check(&out[0], &i32t(&[1, 2, 2], &[10, 12, 22, 28]));
}

fn qmm(a: Tensor, sa: Tensor, za: Tensor, b: Tensor, sb: Tensor, zb: Tensor, sy: Tensor, zy: Tensor) -> Tensor {
    let ins = [Some(a), Some(sa), Some(za), Some(b), Some(sb), Some(zb), Some(sy), Some(zy)];
    run(Opcode::QLinearMatMul, &ins, &[], 1).remove(0)
}

/// Mirrors test_qlinearmatmul_2D_uint8_float32.
#[test]
fn qlinear_matmul_2d_uint8_float32() {
    let y = qmm(
        u8t(&[2, 4], &[208, 236, 0, 238, 3, 214, 255, 29]),
        f32t(&[1], &[0.0066]),
        u8t(&[1], &[113]),
        u8t(&[4, 3], &[152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247]),
        f32t(&[1], &[0.00705]),
        u8t(&[1], &[114]),
        f32t(&[1], &[0.0107]),
        u8t(&[1], &[118]),
    );
    check(&y, &u8t(&[2, 3], &[168, 115, 255, 1, 66, 151]));
}

/// Mirrors test_qlinearmatmul_3D_int8_float16 (f16 scales).
#[test]
fn qlinear_matmul_3d_int8_float16() {
    let a = [81, 109, -127, 111, -124, 87, -128, -98];
    let b = [25, -76, 117, -67, -101, -128, -127, 0, 119, 0, 127, 120];
    let y = qmm(
        i8t(&[2, 2, 4], &[a, a].concat()),
        f16t(&[1], &[0.0066]),
        i8t(&[1], &[-14]),
        i8t(&[2, 4, 3], &[b, b].concat()),
        f16t(&[1], &[0.00705]),
        i8t(&[1], &[114]),
        f16t(&[1], &[0.0107]),
        i8t(&[1], &[-9]),
    );
    let r = [-86, -128, -128, 115, 39, -121];
    check(&y, &i8t(&[2, 2, 3], &[r, r].concat()));
}

/// Per-row a and per-column b parameters (by hand): C = [[20, 20], [40, 40]], the
/// multipliers `a_scale[i] * b_scale[j] / 4` are [[0.125, 0.25], [0.25, 0.5]], so
/// y = [[102.5, 105], [110, 120]] with 102.5 rounding half to even.
#[test]
fn qlinear_matmul_per_row_and_column() {
    let y = qmm(
        u8t(&[2, 2], &[10, 20, 30, 40]),
        f32t(&[2], &[0.5, 1.0]),
        u8t(&[2], &[10, 20]),
        u8t(&[2, 2], &[1, 2, 3, 4]),
        f32t(&[2], &[1.0, 2.0]),
        u8t(&[2], &[1, 2]),
        f32t(&[], &[4.0]),
        u8t(&[], &[100]),
    );
    check(&y, &u8t(&[2, 2], &[102, 105, 110, 120]));
}

/// Results saturate to the output type, which is `y_zero_point`'s (u8 inputs, i8 output).
#[test]
fn qlinear_matmul_saturates_to_y_type() {
    let one = || f32t(&[], &[1.0]);
    let y = qmm(
        u8t(&[1, 2], &[200, 100]),
        one(),
        u8t(&[], &[0]),
        u8t(&[2, 2], &[1, 0, 0, 1]),
        one(),
        u8t(&[], &[0]),
        one(),
        i8t(&[], &[-50]),
    );
    check(&y, &i8t(&[1, 2], &[127, 50]));
}

#[test]
fn qlinear_matmul_errors() {
    let one = || Some(f32t(&[], &[1.0]));
    let a = || Some(u8t(&[2, 2], &[1, 2, 3, 4]));
    // a per-row scale of the wrong length
    let ins = [
        a(),
        Some(f32t(&[3], &[1.0; 3])),
        Some(u8t(&[], &[0])),
        a(),
        one(),
        Some(u8t(&[], &[0])),
        one(),
        Some(u8t(&[], &[0])),
    ];
    run_err(Opcode::QLinearMatMul, &ins, &[], 1, "a_scale of shape [3]");
    // a zero point of another element type than its tensor
    let ins = [a(), one(), Some(i8t(&[], &[0])), a(), one(), Some(u8t(&[], &[0])), one(), Some(u8t(&[], &[0]))];
    run_err(Opcode::QLinearMatMul, &ins, &[], 1, "a_zero_point has element type i8");
    // mismatched inner dims
    run_err(Opcode::MatMulInteger, &[a(), Some(u8t(&[3, 1], &[1, 2, 3]))], &[], 1, "inner dimensions differ");
}
