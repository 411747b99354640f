//! ConvInteger and QLinearConv.

use crate::common::qlinear::*;

fn x3x3() -> Tensor {
    u8t(&[1, 1, 3, 3], &[2, 3, 4, 5, 6, 7, 8, 9, 10])
}

/// Mirrors test_convinteger_without_padding.
#[test]
fn conv_integer_without_padding() {
    let w = u8t(&[1, 1, 2, 2], &[1, 1, 1, 1]);
    let out = run(Opcode::ConvInteger, &[Some(x3x3()), Some(w), Some(u8t(&[], &[1])), None], &[], 1);
    check(&out[0], &i32t(&[1, 1, 2, 2], &[12, 16, 24, 28]));
}

/// Mirrors test_convinteger_with_padding (a per-output-channel `w_zero_point`).
#[test]
fn conv_integer_with_padding_and_per_channel_zero_point() {
    let w = u8t(&[2, 1, 2, 2], &[1; 8]);
    let ins = [Some(x3x3()), Some(w), Some(u8t(&[], &[1])), Some(u8t(&[2], &[0, 1]))];
    let out = run(Opcode::ConvInteger, &ins, &[("pads", Attr::Ints(vec![1, 1, 1, 1]))], 1);
    let mut want = vec![1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9];
    want.extend([0; 16]);
    check(&out[0], &i32t(&[1, 2, 4, 4], &want));
}

/// Strides, dilations and groups on i8 operands without zero points (by hand): two
/// groups of one channel each, kernel [1, 1] dilated by 2 with stride 2 on a 1-D signal.
#[test]
fn conv_integer_grouped_strided_dilated() {
    let x = i8t(&[1, 2, 5], &[1, 2, 3, 4, 5, -1, -2, -3, -4, -5]);
    let w = i8t(&[2, 1, 2], &[1, 1, 2, -1]);
    let a = [("group", Attr::Int(2)), ("strides", Attr::Ints(vec![2])), ("dilations", Attr::Ints(vec![2]))];
    let out = run(Opcode::ConvInteger, &[Some(x), Some(w)], &a, 1);
    // channel 0: x[0]+x[2], x[2]+x[4]; channel 1: 2*x[0]-x[2], 2*x[2]-x[4]
    check(&out[0], &i32t(&[1, 2, 2], &[4, 8, 1, -1]));
}

/// Mirrors test_qlinearconv.
#[test]
fn qlinear_conv_node_test() {
    let x = u8t(
        &[1, 1, 7, 7],
        &[
            255, 174, 162, 25, 203, 168, 58, 15, 59, 237, 95, 129, 0, 64, 56, 242, 153, 221, 168, 12, 166, 232, 178,
            186, 195, 237, 162, 237, 188, 39, 124, 77, 80, 102, 43, 127, 230, 21, 83, 41, 40, 134, 255, 154, 92, 141,
            42, 148, 247,
        ],
    );
    let ins = [
        Some(x),
        Some(f32t(&[], &[0.003_692_047])),
        Some(u8t(&[], &[132])),
        Some(u8t(&[1, 1, 1, 1], &[0])),
        Some(f32t(&[1], &[0.001_727_945_8])),
        Some(u8t(&[1], &[255])),
        Some(f32t(&[], &[0.001_626_812_6])),
        Some(u8t(&[], &[123])),
    ];
    let out = run(Opcode::QLinearConv, &ins, &[], 1);
    let want = [
        0, 81, 93, 230, 52, 87, 197, 240, 196, 18, 160, 126, 255, 191, 199, 13, 102, 34, 87, 243, 89, 23, 77, 69, 60,
        18, 93, 18, 67, 216, 131, 178, 175, 153, 212, 128, 25, 234, 172, 214, 215, 121, 0, 101, 163, 114, 213, 107, 8,
    ];
    check(&out[0], &u8t(&[1, 1, 7, 7], &want));
}

/// Per-channel `w_scale`, an i32 bias and i8 output (by hand): channel 0 is
/// `(x + 1) * 0.5` = [1, 1.5, 2, 2.5] → [1, 2, 2, 2] (half to even), channel 1 is
/// `(2 - x) * 0.25` = [0.25, 0, -0.25, -0.5] → 0.
#[test]
fn qlinear_conv_per_channel_with_bias() {
    let ins = [
        Some(u8t(&[1, 1, 2, 2], &[1, 2, 3, 4])),
        Some(f32t(&[], &[1.0])),
        Some(u8t(&[], &[0])),
        Some(i8t(&[2, 1, 1, 1], &[1, -1])),
        Some(f32t(&[2], &[0.5, 0.25])),
        Some(i8t(&[2], &[0, 0])),
        Some(f32t(&[], &[1.0])),
        Some(i8t(&[], &[0])),
        Some(i32t(&[2], &[1, 2])),
    ];
    let out = run(Opcode::QLinearConv, &ins, &[], 1);
    check(&out[0], &i8t(&[1, 2, 2, 2], &[1, 2, 2, 2, 0, 0, 0, 0]));
}

#[test]
fn conv_errors() {
    let w = || Some(u8t(&[2, 1, 2, 2], &[1; 8]));
    run_err(Opcode::ConvInteger, &[Some(x3x3()), w(), None, Some(u8t(&[3], &[0; 3]))], &[], 1, "w_zero_point");
    run_err(Opcode::ConvInteger, &[Some(x3x3()), Some(u8t(&[1, 2, 1, 1], &[1, 1]))], &[], 1, "channels");
    run_err(
        Opcode::ConvInteger,
        &[Some(x3x3()), w(), Some(i8t(&[], &[0]))],
        &[],
        1,
        "x_zero_point has element type i8",
    );
}
