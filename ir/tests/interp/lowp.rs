//! ONNX low-precision element types (float8, float4, 4-bit and 2-bit
//! integers): bit-exact conversions of `ir::interp::lowp`, ONNX packing, and
//! Cast / QuantizeLinear / DequantizeLinear on these types. Expected values are
//! hand-checked against the format definitions (and agree with `ml_dtypes`).

use ir::interp::lowp::{decode, encode, encode_e8m0, pack, unpack, wrap_small_int, RoundMode};
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode};

const INF: f64 = f64::INFINITY;

fn enc(dt: DType, x: f64, sat: bool) -> u8 {
    encode(dt, x, sat)
}

#[test]
fn e4m3fn_conversions() {
    let d = DType::F8E4M3FN;
    assert_eq!(decode(d, 0x7E), 448.0);
    assert!(decode(d, 0x7F).is_nan() && decode(d, 0xFF).is_nan());
    assert_eq!(decode(d, 0x38), 1.0);
    assert_eq!(decode(d, 0x01), 2f64.powi(-9)); // smallest subnormal
    assert_eq!(decode(d, 0x08), 2f64.powi(-6)); // smallest normal
    assert_eq!(enc(d, 448.0, false), 0x7E);
    // Saturation on: clamp to ±448; off: NaN (no inf in this format).
    assert_eq!((enc(d, 1e6, true), enc(d, -1e6, true)), (0x7E, 0xFE));
    assert_eq!((enc(d, 1e6, false), enc(d, -1e6, false)), (0x7F, 0xFF));
    assert_eq!((enc(d, INF, true), enc(d, -INF, true), enc(d, INF, false)), (0x7E, 0xFE, 0x7F));
    assert_eq!(enc(d, f64::NAN, true), 0x7F);
    // 464 is the tie between 448 and (nonexistent) 480: even mantissa wins.
    assert_eq!((enc(d, 464.0, false), enc(d, 465.0, false)), (0x7E, 0x7F));
    // Ties to even in the normal range: 1.0625 -> 1.0, 1.1875 -> 1.25.
    assert_eq!((enc(d, 1.0625, true), enc(d, 1.1875, true)), (0x38, 0x3A));
    // Subnormals: 2^-10 is the tie 0 / 2^-9 -> 0; 3·2^-10 -> 2·2^-9.
    assert_eq!((enc(d, 1e-3, true), enc(d, 2f64.powi(-10), true), enc(d, 3.0 * 2f64.powi(-10), true)), (1, 0, 2));
    assert_eq!(enc(d, -0.0, true), 0x80);
}

#[test]
fn fnuz_conversions() {
    let d = DType::F8E4M3FNUZ;
    assert_eq!(decode(d, 0x7F), 240.0);
    assert!(decode(d, 0x80).is_nan());
    assert_eq!(decode(d, 0xFF), -240.0);
    assert_eq!((enc(d, -0.0, true), enc(d, -1e-9, true)), (0, 0)); // no negative zero
    assert_eq!((enc(d, 247.0, false), enc(d, 248.0, false), enc(d, 248.0, true)), (0x7F, 0x80, 0x7F));
    assert_eq!((enc(d, INF, true), enc(d, -INF, true), enc(d, -INF, false)), (0x7F, 0xFF, 0x80));
    assert_eq!(enc(d, 1.75, true), 70);
    let d = DType::F8E5M2FNUZ;
    assert_eq!(decode(d, 0x7F), 57344.0);
    assert_eq!((enc(d, 1e-3, true), enc(d, f64::NAN, true), enc(d, 1e6, false)), (24, 0x80, 0x80));
}

#[test]
fn e5m2_conversions() {
    let d = DType::F8E5M2;
    assert_eq!(decode(d, 0x7B), 57344.0);
    assert_eq!((decode(d, 0x7C), decode(d, 0xFC)), (INF, -INF));
    assert!(decode(d, 0x7D).is_nan());
    assert_eq!(decode(d, 0x01), 2f64.powi(-16));
    // 61440 ties 57344 / 65536 (= inf): even goes to inf without saturation.
    assert_eq!((enc(d, 61440.0, false), enc(d, 61440.0, true)), (0x7C, 0x7B));
    assert_eq!((enc(d, -INF, false), enc(d, -INF, true)), (0xFC, 0xFB));
    assert_eq!(enc(d, f64::NAN, false), 0x7E);
    assert_eq!((enc(d, 1e-3, true), enc(d, 1.75, true), enc(d, -0.0, true)), (20, 63, 0x80));
}

#[test]
fn e2m1_conversions() {
    let d = DType::F4E2M1;
    let all: Vec<f64> = (0..8).map(|b| decode(d, b)).collect();
    assert_eq!(all, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
    assert_eq!(decode(d, 0xF), -6.0);
    // No inf/NaN: overflow always saturates; NaN encodes as 0x8 (like ml_dtypes).
    assert_eq!((enc(d, 7.0, false), enc(d, -INF, false), enc(d, f64::NAN, true)), (0x7, 0xF, 0x8));
    // Ties to even: 5 -> 4, 1.25 -> 1, 0.25 -> 0, 0.75 -> 1.
    assert_eq!([enc(d, 5.0, true), enc(d, 1.25, true), enc(d, 0.25, true), enc(d, 0.75, true)], [6, 2, 0, 2]);
}

#[test]
fn e8m0_conversions() {
    let d = DType::F8E8M0;
    assert_eq!((decode(d, 127), decode(d, 0), decode(d, 128)), (1.0, 2f64.powi(-127), 2.0));
    assert!(decode(d, 0xFF).is_nan());
    let e = |x: f64, sat: bool, m: RoundMode| encode_e8m0(x, sat, m);
    assert_eq!(
        (e(1.0, true, RoundMode::Up), e(1.5, true, RoundMode::Up), e(3.0, true, RoundMode::Up)),
        (127, 128, 129)
    );
    assert_eq!((e(3.0, true, RoundMode::Down), e(3.0, true, RoundMode::Nearest)), (128, 129));
    assert_eq!(e(2.5, true, RoundMode::Nearest), 128);
    assert_eq!(e(-2.0, true, RoundMode::Up), 128); // sign ignored
    let big = f32::MAX as f64;
    assert_eq!((e(big, true, RoundMode::Up), e(big, false, RoundMode::Up)), (0xFE, 0xFF));
    assert_eq!((e(INF, true, RoundMode::Up), e(f64::NAN, true, RoundMode::Down)), (0xFF, 0xFF));
    assert_eq!(e(0.0, true, RoundMode::Up), 0);
}

#[test]
fn small_ints_and_packing() {
    assert_eq!(
        [wrap_small_int(DType::I4, 8), wrap_small_int(DType::I4, -9), wrap_small_int(DType::U4, 17)],
        [-8, 7, 1]
    );
    assert_eq!(
        [wrap_small_int(DType::I2, 2), wrap_small_int(DType::U2, 5), wrap_small_int(DType::I2, -1)],
        [-2, 1, -1]
    );
    assert_eq!(pack(DType::U4, &[1, 2, 3]), [0x21, 0x03]);
    assert_eq!(unpack(DType::I4, &[0xF7], 2).unwrap(), [7, 0xFF]);
    assert_eq!(pack(DType::U2, &[1, 2, 3, 0, 1]), [0x39, 0x01]);
    assert_eq!(unpack(DType::I2, &[0x39, 0x01], 5).unwrap(), [1, 0xFE, 0xFF, 0, 1]);
    assert_eq!(unpack(DType::U2, &[0x39, 0x01], 5).unwrap(), [1, 2, 3, 0, 1]);
    // Packing round-trips (the sign bits of negative values are dropped and restored).
    let v: Vec<u8> = [-8i8, 7, -1, 0, 3].iter().map(|&x| x as u8).collect();
    assert_eq!(unpack(DType::I4, &pack(DType::I4, &v), 5).unwrap(), v);
    assert!(unpack(DType::U4, &[0x12], 3).is_err());
    assert_eq!(pack(DType::F8E4M3FN, &[1, 2]), [1, 2]); // float8 is not packed
}

fn run(op: Opcode, inputs: Vec<Tensor>, attrs: &[(&str, Attr)]) -> Tensor {
    let mut a = Attrs::new();
    for (k, v) in attrs {
        a.set(*k, v.clone());
    }
    let ins: Vec<Option<Tensor>> = inputs.into_iter().map(Some).collect();
    eval_op(op, &ins, a, 1).unwrap().remove(0)
}

fn f32s(v: &[f32]) -> Tensor {
    Tensor::new(vec![v.len()], Data::F32(v.to_vec()))
}

#[test]
fn cast_to_and_from_low_types() {
    let x = f32s(&[-9.0, 8.0, 1.5]);
    let y = run(Opcode::Cast, vec![x.clone()], &[("to", Attr::Type(DType::I4))]);
    assert_eq!(y.data, Data::I4(vec![7, -8, 1]));
    let x = f32s(&[1e6, 448.0, -0.0]);
    let sat = run(Opcode::Cast, vec![x.clone()], &[("to", Attr::Type(DType::F8E4M3FN))]);
    assert_eq!(sat.data, Data::F8E4M3FN(vec![0x7E, 0x7E, 0x80]));
    let nosat = run(Opcode::Cast, vec![x], &[("to", Attr::Type(DType::F8E4M3FN)), ("saturate", Attr::Int(0))]);
    assert_eq!(nosat.data, Data::F8E4M3FN(vec![0x7F, 0x7E, 0x80]));
    let back = run(Opcode::Cast, vec![nosat], &[("to", Attr::Type(DType::F32))]);
    let Data::F32(b) = back.data else { panic!("not f32") };
    assert!(b[0].is_nan() && b[1] == 448.0 && b[2] == 0.0 && b[2].is_sign_negative());
    let x = f32s(&[3.0]);
    let attrs = [("to", Attr::Type(DType::F8E8M0)), ("round_mode", Attr::Str("down".into()))];
    assert_eq!(run(Opcode::Cast, vec![x.clone()], &attrs).data, Data::F8E8M0(vec![128]));
    assert_eq!(run(Opcode::Cast, vec![x], &attrs[..1]).data, Data::F8E8M0(vec![129]));
    let u = Tensor::new(vec![2], Data::U4(vec![15, 3]));
    assert_eq!(run(Opcode::Cast, vec![u], &[("to", Attr::Type(DType::I4))]).data, Data::I4(vec![-1, 3]));
}

#[test]
fn quantize_dequantize_low_types() {
    let x = f32s(&[0.0, 1.0, 3.0, 100.0]);
    let zp = Tensor::new(vec![], Data::I4(vec![1]));
    let s = Tensor::new(vec![], Data::F32(vec![0.5]));
    let q = run(Opcode::QuantizeLinear, vec![x, s.clone(), zp.clone()], &[]);
    assert_eq!(q.data, Data::I4(vec![1, 3, 7, 7]));
    let dq = run(Opcode::DequantizeLinear, vec![q, s.clone(), zp], &[]);
    assert_eq!(dq.data, Data::F32(vec![0.0, 1.0, 3.0, 3.0]));
    let x = f32s(&[1000.0, 0.75]);
    let q8 = run(Opcode::QuantizeLinear, vec![x, s.clone()], &[("output_dtype", Attr::Type(DType::F8E4M3FN))]);
    assert_eq!(q8.data, Data::F8E4M3FN(vec![0x7E, 0x3C])); // 448 (saturated), 1.5
    let dq8 = run(Opcode::DequantizeLinear, vec![q8, s], &[]);
    assert_eq!(dq8.data, Data::F32(vec![224.0, 0.75]));
}
