//! Comparison, boolean, Where and bitwise kernels.

use crate::common::elementwise::*;

fn bools(v: &[u8]) -> Data {
    Data::Bool(v.iter().map(|&b| b != 0).collect())
}

fn strs(v: &[&str]) -> Data {
    Data::String(v.iter().map(|s| s.to_string()).collect())
}

#[test]
fn comparisons_on_numbers() {
    let a = f32t(&[4], &[1., 2., f32::NAN, -0.0]);
    let b = f32t(&[4], &[2., 2., f32::NAN, 0.0]);
    assert_eq!(run(Opcode::Equal, &[a.clone(), b.clone()]).data, bools(&[0, 1, 0, 1]));
    assert_eq!(run(Opcode::Less, &[a.clone(), b.clone()]).data, bools(&[1, 0, 0, 0]));
    assert_eq!(run(Opcode::LessOrEqual, &[a.clone(), b.clone()]).data, bools(&[1, 1, 0, 1]));
    assert_eq!(run(Opcode::Greater, &[a.clone(), b.clone()]).data, bools(&[0, 0, 0, 0]));
    assert_eq!(run(Opcode::GreaterOrEqual, &[a, b]).data, bools(&[0, 1, 0, 1]));
    // test_greater_uint64-like: the full unsigned range compares correctly.
    let u = run(Opcode::Greater, &[t(&[2], Data::U64(vec![u64::MAX, 0])), t(&[1], Data::U64(vec![1]))]);
    assert_eq!(u.data, bools(&[1, 0]));
    // test_less_bcast: [3,4] vs [4] (here [2,3] vs [3]).
    let c = run(Opcode::Less, &[i32t(&[2, 3], &[1, 5, 3, 0, 2, 9]), i32t(&[3], &[2, 2, 2])]);
    assert_eq!(c.shape, vec![2, 3]);
    assert_eq!(c.data, bools(&[1, 0, 0, 1, 0, 0]));
    let c = run(Opcode::GreaterOrEqual, &[t(&[2], Data::I8(vec![-128, 127])), t(&[], Data::I8(vec![0]))]);
    assert_eq!(c.data, bools(&[0, 1]));
}

#[test]
fn equal_on_strings_and_bools() {
    // test_equal_string_broadcast.
    let c = run(Opcode::Equal, &[t(&[2], strs(&["string1", "string2"])), t(&[1], strs(&["string1"]))]);
    assert_eq!(c.data, bools(&[1, 0]));
    let c = run(Opcode::Equal, &[t(&[2], bools(&[1, 0])), t(&[2], bools(&[1, 1]))]);
    assert_eq!(c.data, bools(&[1, 0]));
    // Ordering comparisons are numeric-only.
    assert!(eval(Opcode::Less, &[t(&[1], strs(&["a"])), t(&[1], strs(&["b"]))], Attrs::new()).is_err());
    assert!(eval(Opcode::Greater, &[t(&[1], bools(&[1])), t(&[1], bools(&[0]))], Attrs::new()).is_err());
}

#[test]
fn boolean_ops_broadcast() {
    // test_and_bcast3v1d-like: [2,3] with [3].
    let a = t(&[2, 3], bools(&[1, 1, 0, 0, 1, 0]));
    let b = t(&[3], bools(&[1, 0, 1]));
    assert_eq!(run(Opcode::And, &[a.clone(), b.clone()]).data, bools(&[1, 0, 0, 0, 0, 0]));
    assert_eq!(run(Opcode::Or, &[a.clone(), b.clone()]).data, bools(&[1, 1, 1, 1, 1, 1]));
    assert_eq!(run(Opcode::Xor, &[a.clone(), b]).data, bools(&[0, 1, 1, 1, 1, 1]));
    assert_eq!(run(Opcode::Not, &[a]).data, bools(&[0, 0, 1, 1, 0, 1]));
    assert!(eval(Opcode::And, &[i32t(&[1], &[1]), i32t(&[1], &[1])], Attrs::new()).is_err());
}

#[test]
fn where_selects_with_three_way_broadcast() {
    // test_where_long_example.
    let c = t(&[2, 2], bools(&[1, 0, 1, 1]));
    let w = run(Opcode::Where, &[c.clone(), i64t(&[2, 2], &[1, 2, 3, 4]), i64t(&[2, 2], &[9, 8, 7, 6])]);
    assert_eq!(w.data, Data::I64(vec![1, 8, 3, 4]));
    // Condition [2,1], X scalar, Y [3] -> [2,3].
    let w = run(Opcode::Where, &[t(&[2, 1], bools(&[1, 0])), f32t(&[], &[7.]), f32t(&[3], &[1., 2., 3.])]);
    assert_eq!(w.shape, vec![2, 3]);
    assert_eq!(f32s(&w), vec![7., 7., 7., 1., 2., 3.]);
    // Strings.
    let w = run(Opcode::Where, &[t(&[2], bools(&[0, 1])), t(&[2], strs(&["a", "b"])), t(&[1], strs(&["z"]))]);
    assert_eq!(w.data, strs(&["z", "b"]));
    // Errors: non-bool condition, mismatched X/Y, bad broadcast.
    assert!(eval(Opcode::Where, &[i32t(&[1], &[1]), i32t(&[1], &[1]), i32t(&[1], &[2])], Attrs::new()).is_err());
    assert!(eval(Opcode::Where, &[c.clone(), i32t(&[1], &[1]), f32t(&[1], &[2.])], Attrs::new()).is_err());
    assert!(eval(Opcode::Where, &[c, i32t(&[3], &[1, 2, 3]), i32t(&[1], &[2])], Attrs::new()).is_err());
}

#[test]
fn bitwise_ops() {
    // test_bitwise_and_i32_2d-like values, signed.
    let a = i32t(&[3], &[-356387803, 12, -1]);
    let b = i32t(&[3], &[0x0F0F_0F0F, 10, i32::MIN]);
    let and = run(Opcode::BitwiseAnd, &[a.clone(), b.clone()]);
    assert_eq!(and.data, Data::I32(vec![-356387803 & 0x0F0F_0F0F, 8, i32::MIN]));
    let or = run(Opcode::BitwiseOr, &[a.clone(), b.clone()]);
    assert_eq!(or.data, Data::I32(vec![-356387803 | 0x0F0F_0F0F, 14, -1]));
    let xor = run(Opcode::BitwiseXor, &[a.clone(), b]);
    assert_eq!(xor.data, Data::I32(vec![-356387803 ^ 0x0F0F_0F0F, 6, i32::MAX]));
    // test_bitwise_not_2d values.
    let not = run(Opcode::BitwiseNot, &[i32t(&[3], &[-356387803, 2135392491, 0])]);
    assert_eq!(not.data, Data::I32(vec![356387802, -2135392492, -1]));
    // Unsigned with broadcasting (test_bitwise_or_ui8_bcast_4v3d-like).
    let u = run(Opcode::BitwiseOr, &[t(&[2, 2], Data::U8(vec![1, 2, 4, 8])), t(&[2], Data::U8(vec![16, 128]))]);
    assert_eq!(u.data, Data::U8(vec![17, 130, 20, 136]));
    assert_eq!(run(Opcode::BitwiseNot, &[t(&[2], Data::U8(vec![5, 255]))]).data, Data::U8(vec![250, 0]));
    assert_eq!(run(Opcode::BitwiseNot, &[t(&[1], Data::U64(vec![0]))]).data, Data::U64(vec![u64::MAX]));
    assert!(eval(Opcode::BitwiseAnd, &[f32t(&[1], &[1.]), f32t(&[1], &[1.])], Attrs::new()).is_err());
}

#[test]
fn bit_shift_unsigned() {
    let dir = |d: &str| attrs(&[("direction", Attr::Str(d.into()))]);
    // test_bitshift_left_uint8 / test_bitshift_right_uint64.
    let x = t(&[3], Data::U8(vec![16, 4, 1]));
    let y = t(&[3], Data::U8(vec![1, 2, 3]));
    assert_eq!(ok(Opcode::BitShift, &[x.clone(), y.clone()], dir("LEFT")).data, Data::U8(vec![32, 16, 8]));
    let x64 = t(&[3], Data::U64(vec![16, 4, 1]));
    let y64 = t(&[3], Data::U64(vec![1, 2, 3]));
    assert_eq!(ok(Opcode::BitShift, &[x64, y64], dir("RIGHT")).data, Data::U64(vec![8, 1, 0]));
    // Bits shifted out are lost; shifting by the width or more gives 0.
    let x = t(&[3], Data::U8(vec![0x81, 0xFF, 0xFF]));
    let y = t(&[3], Data::U8(vec![1, 8, 200]));
    assert_eq!(ok(Opcode::BitShift, &[x.clone(), y.clone()], dir("LEFT")).data, Data::U8(vec![2, 0, 0]));
    assert_eq!(ok(Opcode::BitShift, &[x, y], dir("RIGHT")).data, Data::U8(vec![0x40, 0, 0]));
    let b = ok(Opcode::BitShift, &[t(&[1], Data::U32(vec![1])), t(&[], Data::U32(vec![31]))], dir("LEFT"));
    assert_eq!(b.data, Data::U32(vec![1 << 31]));
    // Signed types and a missing/invalid direction are rejected.
    assert!(eval(Opcode::BitShift, &[i32t(&[1], &[1]), i32t(&[1], &[1])], dir("LEFT")).is_err());
    let u = t(&[1], Data::U8(vec![1]));
    assert!(eval(Opcode::BitShift, &[u.clone(), u.clone()], Attrs::new()).is_err());
    assert!(eval(Opcode::BitShift, &[u.clone(), u], dir("UP")).is_err());
}
