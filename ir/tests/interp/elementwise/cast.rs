//! Cast and CastLike between all element-type pairs.

use crate::common::elementwise::*;

fn cast(x: Tensor, to: DType) -> Result<Tensor, String> {
    eval(Opcode::Cast, &[x], attrs(&[("to", Attr::Type(to))]))
}

fn cast_ok(x: Tensor, to: DType) -> Tensor {
    let y = cast(x, to).unwrap_or_else(|e| panic!("cast to {to}: {e}"));
    assert_eq!(y.dtype(), to);
    y
}

fn strs(v: &[&str]) -> Tensor {
    t(&[v.len()], Data::String(v.iter().map(|s| s.to_string()).collect()))
}

fn strings(t: &Tensor) -> Vec<String> {
    match &t.data {
        Data::String(v) => v.clone(),
        d => panic!("expected strings, got {:?}", d.dtype()),
    }
}

/// The inputs of ONNX's test_cast_FLOAT_to_* cases.
const CAST_INPUT: [f32; 12] = [
    0.478_925_47,
    0.480_336_67,
    0.499_684_87,
    0.819_105_45,
    0.470_312_48,
    0.816_468,
    0.210_871_95,
    0.722_903_8,
    f32::NAN,
    f32::INFINITY,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

#[test]
fn float_to_float_rounds_to_nearest_even() {
    let x = f32t(&[3, 4], &CAST_INPUT);
    // test_cast_FLOAT_to_FLOAT16 (bit patterns from the ONNX test data).
    let h = cast_ok(x.clone(), DType::F16);
    let Data::F16(hv) = &h.data else { panic!() };
    let bits: Vec<u16> = hv.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, [14250, 14255, 14335, 14990, 14214, 14984, 12991, 14793, 32256, 31744, 31744, 64512]);
    // test_cast_FLOAT_to_BFLOAT16 (NaN payloads aside).
    let b = cast_ok(x.clone(), DType::BF16);
    let Data::BF16(bv) = &b.data else { panic!() };
    let bits: Vec<u16> = bv.iter().map(|v| v.to_bits()).collect();
    assert_eq!(&bits[..8], &[16117, 16118, 16128, 16210, 16113, 16209, 15960, 16185]);
    assert!(bv[8].is_nan() && bits[9..] == [32640, 32640, 65408]);
    // f16 -> f32 is exact; f32 -> f64 -> f32 round-trips.
    assert_eq!(f32s(&cast_ok(h, DType::F32))[..2], [0.47900390625, 0.480224609375]);
    let back = cast_ok(cast_ok(x, DType::F64), DType::F32);
    assert_f32s(&f32s(&back), &CAST_INPUT, 0);
    // Overflow to infinity.
    let big = cast_ok(t(&[2], Data::F64(vec![1e300, -70000.0])), DType::F16);
    assert_eq!(f16s(&big), vec![f32::INFINITY, f32::NEG_INFINITY]);
}

#[test]
fn f64_to_half_rounds_only_once() {
    // 1 + 2^-11 + 2^-40 lies just above the f16 midpoint between 1 and 1 + 2^-10:
    // rounding through f32 first would give 1.0.
    let h = cast_ok(t(&[1], Data::F64(vec![1.0 + 2f64.powi(-11) + 2f64.powi(-40)])), DType::F16);
    assert_eq!(h.data, Data::F16(vec![f16::from_bits(0x3C01)]));
    let b = cast_ok(t(&[1], Data::F64(vec![1.0 + 2f64.powi(-8) + 2f64.powi(-40)])), DType::BF16);
    assert_eq!(b.data, Data::BF16(vec![bf16::from_bits(0x3F81)]));
    // 2^60 + 2^52 + 1 as i64 -> bf16: through f64 it would tie to even (2^60).
    let b = cast_ok(i64t(&[1], &[(1i64 << 60) + (1i64 << 52) + 1]), DType::BF16);
    assert_eq!(b.data, Data::BF16(vec![bf16::from_bits(0x5D81)]));
}

#[test]
fn float_to_int_truncates() {
    let x = f32t(&[6], &[-1.7, 2.9, -0.5, 1e10, f32::NAN, -1e10]);
    assert_eq!(cast_ok(x.clone(), DType::I32).data, Data::I32(vec![-1, 2, 0, i32::MAX, 0, i32::MIN]));
    assert_eq!(cast_ok(x.clone(), DType::U8).data, Data::U8(vec![0, 2, 0, 255, 0, 0]));
    assert_eq!(cast_ok(x, DType::Bool).data, Data::Bool(vec![true, true, true, true, true, true]));
    let z = f32t(&[2], &[0.0, -0.0]);
    assert_eq!(cast_ok(z, DType::Bool).data, Data::Bool(vec![false, false]));
}

#[test]
fn int_to_int_wraps_and_int_to_float_rounds() {
    // "200 (int16) -> -56 (int8)".
    let x = t(&[4], Data::I16(vec![200, -129, 300, 127]));
    assert_eq!(cast_ok(x, DType::I8).data, Data::I8(vec![-56, 127, 44, 127]));
    assert_eq!(cast_ok(i32t(&[2], &[-1, 65536]), DType::U16).data, Data::U16(vec![65535, 0]));
    assert_eq!(cast_ok(t(&[1], Data::U64(vec![u64::MAX])), DType::I64).data, Data::I64(vec![-1]));
    let f = cast_ok(t(&[1], Data::U64(vec![u64::MAX])), DType::F32);
    assert_eq!(f32s(&f), vec![1.8446744e19]);
    let h = cast_ok(i64t(&[4], &[65519, 65520, -70000, 2049]), DType::F16);
    assert_eq!(f16s(&h), vec![65504.0, f32::INFINITY, f32::NEG_INFINITY, 2048.0]);
    assert_eq!(cast_ok(i64t(&[3], &[0, 5, -1]), DType::Bool).data, Data::Bool(vec![false, true, true]));
}

#[test]
fn bool_casts() {
    let b = t(&[2], Data::Bool(vec![true, false]));
    assert_eq!(f32s(&cast_ok(b.clone(), DType::F32)), vec![1.0, 0.0]);
    assert_eq!(cast_ok(b.clone(), DType::U64).data, Data::U64(vec![1, 0]));
    assert_eq!(cast_ok(b.clone(), DType::Bool), b);
    assert_eq!(strings(&cast_ok(b, DType::String)), ["True", "False"]);
}

#[test]
fn numbers_print_like_the_reference() {
    // numpy astype(str) of float32 values.
    let x = f32t(&[10], &[0.1, 1e20, 1.0, -0.0, 123456789.0, 0.00015, 1e-5, 3.4028235e38, 999999.0, 1e6]);
    let want =
        ["0.1", "1e+20", "1.0", "-0.0", "1.2345679e+08", "0.00015", "1e-05", "3.4028235e+38", "999999.0", "1e+06"];
    assert_eq!(strings(&cast_ok(x, DType::String)), want);
    let x = t(&[7], Data::F64(vec![0.1, 1e16, 1e15, 1.5e-5, 5e-324, 1e100, -7.25]));
    let want = ["0.1", "1e+16", "1000000000000000.0", "1.5e-05", "5e-324", "1e+100", "-7.25"];
    assert_eq!(strings(&cast_ok(x, DType::String)), want);
    let x = f16t(&[5], &[0.1, 1234.5, 0.000123, 65504.0, -2.5]);
    assert_eq!(strings(&cast_ok(x, DType::String)), ["0.1", "1.234e+03", "0.000123", "6.55e+04", "-2.5"]);
    let x = f32t(&[3], &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    assert_eq!(strings(&cast_ok(x, DType::String)), ["nan", "inf", "-inf"]);
    let x = t(&[3], Data::I8(vec![-5, 7, 0]));
    assert_eq!(strings(&cast_ok(x, DType::String)), ["-5", "7", "0"]);
    assert_eq!(strings(&cast_ok(t(&[1], Data::U64(vec![u64::MAX])), DType::String)), [u64::MAX.to_string()]);
}

#[test]
fn strings_parse_as_numbers() {
    // test_cast_STRING_to_FLOAT-style literals, case-insensitive specials.
    let x = strs(&["1e-5", "INF", "+INF", "-inf", "NaN", "  2.5 ", "-0.0", "1E8"]);
    let y = f32s(&cast_ok(x, DType::F32));
    assert_f32s(&y, &[1e-5, f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 2.5, -0.0, 1e8], 0);
    let y = cast_ok(strs(&["0.1"]), DType::F64);
    assert_eq!(y.data, Data::F64(vec![0.1]));
    let y = cast_ok(strs(&["100", "+7", "-8", "100.5", "300"]), DType::I32);
    assert_eq!(y.data, Data::I32(vec![100, 7, -8, 100, 300]));
    assert_eq!(cast_ok(strs(&["300"]), DType::U8).data, Data::U8(vec![44]));
    let y = cast_ok(strs(&["0", "1", "-2.5", "true", "False"]), DType::Bool);
    assert_eq!(y.data, Data::Bool(vec![false, true, true, true, false]));
    assert_eq!(cast_ok(strs(&["x", "y"]), DType::String), strs(&["x", "y"]));
    let e = cast(strs(&["Hello World!"]), DType::F32).unwrap_err();
    assert!(e.contains("Hello World!"), "{e}");
    assert!(cast(strs(&["1.5.2"]), DType::I64).is_err());
}

#[test]
fn cast_like_takes_the_target_type() {
    // test_castlike_FLOAT_to_BFLOAT16 (the target may be empty).
    let x = f32t(&[3, 4], &CAST_INPUT);
    let like = t(&[0], Data::BF16(vec![]));
    let y = run_dt(Opcode::CastLike, &[x.clone(), like], DType::BF16);
    assert_eq!(y.shape, vec![3, 4]);
    let Data::BF16(v) = &y.data else { panic!() };
    assert_eq!(v[2].to_f32(), 0.5);
    let y = run_dt(Opcode::CastLike, &[x, i64t(&[1], &[0])], DType::I64);
    assert_eq!(&y.to_i64s()[..3], &[0, 0, 0]);
    let y = run_dt(Opcode::CastLike, &[strs(&["3"]), f16t(&[1], &[0.0])], DType::F16);
    assert_eq!(f16s(&y), vec![3.0]);
}
