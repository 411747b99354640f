//! Type inference of MatMulInteger / QLinearMatMul and ConvInteger / QLinearConv.

use crate::common::listed::*;

#[test]
fn matmul_integer_and_qlinear_matmul() {
    assert_eq!(ok(Opcode::MatMulInteger, &["u8[b, M, 3]", "i8[3, N]"], &[], 1), "i32[b, M, N]");
    assert_eq!(ok(Opcode::MatMulInteger, &["u8[3]", "u8[2, 3, 4]", "u8[]", ""], &[], 1), "i32[2, 4]");
    err(Opcode::MatMulInteger, &["f32[2, 3]", "u8[3, 4]"], &[], 1, "expected i8 or u8");
    err(Opcode::MatMulInteger, &["u8[2, 3]", "u8[4, 4]"], &[], 1, "inner dimensions differ");
    err(Opcode::MatMulInteger, &["u8[2, 3]", "u8[3, 4]", "i8[]"], &[], 1, "a_zero_point has element type i8");
    let q = |a: &str, s: &str, y: &str| [a, s, "u8[]", "u8[3, 4]", s, "u8[]", s, y].map(String::from);
    let ops = q("u8[2, 3]", "f16[]", "i8[]");
    let refs: Vec<&str> = ops.iter().map(String::as_str).collect();
    assert_eq!(ok(Opcode::QLinearMatMul, &refs, &[], 1), "i8[2, 4]");
    let ops = q("u8[2, 3]", "f64[]", "u8[]");
    let refs: Vec<&str> = ops.iter().map(String::as_str).collect();
    err(Opcode::QLinearMatMul, &refs, &[], 1, "a_scale has element type f64");
    let ops = ["u8[2, 3]", "f32[]", "u8[]", "u8[3, 4]", "f16[]", "u8[]", "f32[]", "u8[]"];
    err(Opcode::QLinearMatMul, &ops, &[], 1, "b_scale has element type f16");
}

#[test]
fn conv_integer_and_qlinear_conv() {
    let pads = [("pads", Attr::Ints(vec![1, 1, 1, 1]))];
    assert_eq!(ok(Opcode::ConvInteger, &["u8[N, 1, 3, 3]", "u8[2, 1, 2, 2]"], &pads, 1), "i32[N, 2, 4, 4]");
    assert_eq!(ok(Opcode::ConvInteger, &["u8[*]", "u8[*]"], &[], 1), "i32[*]");
    err(Opcode::ConvInteger, &["u8[1, 3, 3, 3]", "u8[2, 2, 2, 2]"], &[], 1, "channels");
    err(Opcode::ConvInteger, &["u8[1, 3]", "u8[2, 3]"], &[], 1, "rank ≥ 3");
    let ops = ["u8[1, 4, 5, 5]", "f32[]", "u8[]", "i8[6, 2, 3, 3]", "f32[6]", "i8[6]", "f32[]", "i8[]", "i32[6]"];
    let a = [("group", Attr::Int(2)), ("strides", Attr::Ints(vec![2, 2]))];
    assert_eq!(ok(Opcode::QLinearConv, &ops, &a, 1), "i8[1, 6, 2, 2]");
    let mut bad = ops;
    bad[8] = "i32[5]";
    err(Opcode::QLinearConv, &bad, &a, 1, "B i32[5] must have shape [6]");
    bad[8] = "f32[6]";
    err(Opcode::QLinearConv, &bad, &a, 1, "B has element type f32");
    bad[8] = "";
    bad[4] = "f16[6]";
    err(Opcode::QLinearConv, &bad, &a, 1, "w_scale has element type f16");
}
