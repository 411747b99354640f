//! QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.

use crate::common::elementwise::*;

fn u8t(shape: &[usize], v: &[u8]) -> Tensor {
    t(shape, Data::U8(v.to_vec()))
}

fn quant(inputs: &[Option<Tensor>], a: Attrs) -> Result<Tensor, String> {
    evaln(Opcode::QuantizeLinear, inputs, a, 1).map(|mut v| v.remove(0))
}

fn dequant(inputs: &[Option<Tensor>], a: Attrs) -> Result<Tensor, String> {
    evaln(Opcode::DequantizeLinear, inputs, a, 1).map(|mut v| v.remove(0))
}

fn axis_block(axis: i64, block: i64) -> Attrs {
    attrs(&[("axis", Attr::Int(axis)), ("block_size", Attr::Int(block))])
}

#[test]
fn quantize_per_tensor() {
    // test_quantizelinear.
    let x = f32t(&[6], &[0., 2., 3., 1000., -254., -1000.]);
    let y = quant(&[Some(x.clone()), Some(f32t(&[], &[2.])), Some(u8t(&[], &[128]))], Attrs::new()).unwrap();
    assert_eq!(y.data, Data::U8(vec![128, 129, 130, 255, 1, 0]));
    // Without a zero point: u8 and zero point 0. Halves round to even: 3/2 = 1.5 -> 2, 5/2 -> 2.
    let x2 = f32t(&[4], &[1., 3., 5., -7.]);
    let y = quant(&[Some(x2), Some(f32t(&[], &[2.]))], Attrs::new()).unwrap();
    assert_eq!(y.data, Data::U8(vec![0, 2, 2, 0]));
    // test_quantizelinear_int16.
    let x = f32t(&[8], &[0., -514., 3., -3., 2.9, -2.9, 65022., -66047.]);
    let zp = t(&[], Data::I16(vec![256]));
    let y = quant(&[Some(x), Some(f32t(&[], &[2.])), Some(zp)], Attrs::new()).unwrap();
    assert_eq!(y.data, Data::I16(vec![256, -1, 258, 254, 257, 255, 32767, -32768]));
    // test_quantizelinear_uint16.
    let x = f32t(&[6], &[0., -128., 2.9, 65536., -65534., -70000.]);
    let zp = t(&[], Data::U16(vec![32767]));
    let y = quant(&[Some(x), Some(f32t(&[], &[2.])), Some(zp)], Attrs::new()).unwrap();
    assert_eq!(y.data, Data::U16(vec![32767, 32703, 32768, 65535, 0, 0]));
    // output_dtype without a zero point; NaN goes to the lowest value.
    let i8_out = attrs(&[("output_dtype", Attr::Type(DType::I8))]);
    let y = quant(&[Some(f32t(&[3], &[-300., 5., f32::NAN])), Some(f32t(&[], &[1.]))], i8_out).unwrap();
    assert_eq!(y.data, Data::I8(vec![-128, 5, -128]));
}

#[test]
fn quantize_per_axis_and_blocked() {
    // test_quantizelinear_axis.
    let x = f32t(
        &[1, 3, 3, 2],
        &[-162., 10., -100., 232., -20., -50., -76., 0., 0., 252., 32., -44., 245., -485., -960., -270., -375., -470.],
    );
    let s = f32t(&[3], &[2., 4., 5.]);
    let zp = u8t(&[3], &[84, 24, 196]);
    let y = quant(&[Some(x.clone()), Some(s.clone()), Some(zp.clone())], Attrs::new()).unwrap();
    let want = [3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102];
    assert_eq!(y.data, Data::U8(want.to_vec()));
    // Negative axis means the same dim.
    let y2 = quant(&[Some(x), Some(s), Some(zp)], attrs(&[("axis", Attr::Int(-3))])).unwrap();
    assert_eq!(y2, y);
    // test_quantizelinear_blocked_asymmetric.
    let x = f32t(&[3, 4], &[6., 12., 50., 5., 1., 8., 4., 5., 0., 20., 10., 4.]);
    let s = f32t(&[3, 2], &[1.5, 2.5, 3.0, 4.9, 5.1, 6.9]);
    let zp = u8t(&[3, 2], &[0, 1, 1, 0, 2, 3]);
    let y = quant(&[Some(x), Some(s.clone()), Some(zp)], axis_block(1, 2)).unwrap();
    assert_eq!(y.data, Data::U8(vec![4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4]));
    // test_quantizelinear_blocked_symmetric (int16 via output_dtype).
    let x = f32t(&[3, 4], &[6., -8., -10., 5., 1., 8., 4., 5., 0., 20., 10., 4.]);
    let a = axis_block(1, 2).with("output_dtype", Attr::Type(DType::I16));
    let y = quant(&[Some(x), Some(s)], a).unwrap();
    assert_eq!(y.data, Data::I16(vec![4, -5, -4, 2, 0, 3, 1, 1, 0, 4, 1, 1]));
    // A ragged last block: 5 columns in blocks of 2 -> 3 scales per row.
    let x = f32t(&[1, 5], &[1., 2., 3., 4., 5.]);
    let s = f32t(&[1, 3], &[1., 2., 5.]);
    let y = quant(&[Some(x), Some(s)], axis_block(1, 2)).unwrap();
    assert_eq!(y.data, Data::U8(vec![1, 2, 2, 2, 1]));
}

#[test]
fn quantize_precision_and_input_types() {
    // f16 scale: x / scale is rounded to f16 before rounding to an integer.
    // 1000.7 / 1 in f16 is 1000.5 -> rounds to even 1000; in f32 it would give 1001.
    let s = f16t(&[], &[1.0]);
    let a = attrs(&[("output_dtype", Attr::Type(DType::I16))]);
    let y = quant(&[Some(f32t(&[1], &[1000.7])), Some(s)], a.clone()).unwrap();
    assert_eq!(y.data, Data::I16(vec![1000]));
    let p = a.clone().with("precision", Attr::Type(DType::F32));
    let y = quant(&[Some(f32t(&[1], &[1000.7])), Some(f16t(&[], &[1.0]))], p).unwrap();
    assert_eq!(y.data, Data::I16(vec![1001]));
    // i32 input.
    let y = quant(&[Some(i32t(&[3], &[-7, 0, 7])), Some(f32t(&[], &[2.0]))], a).unwrap();
    assert_eq!(y.data, Data::I16(vec![-4, 0, 4]));
}

#[test]
fn quantize_errors() {
    let x = f32t(&[2, 3], &[0.; 6]);
    // Per-axis scale of the wrong length.
    assert!(quant(&[Some(x.clone()), Some(f32t(&[2], &[1., 1.]))], Attrs::new()).is_err());
    // Zero point shaped unlike the scale.
    let zp = u8t(&[2], &[0, 0]);
    assert!(quant(&[Some(x.clone()), Some(f32t(&[3], &[1.; 3])), Some(zp)], Attrs::new()).is_err());
    // output_dtype disagreeing with the zero point; unsupported quantized type.
    let a = attrs(&[("output_dtype", Attr::Type(DType::I8))]);
    assert!(quant(&[Some(x.clone()), Some(f32t(&[], &[1.])), Some(u8t(&[], &[0]))], a).is_err());
    let a = attrs(&[("output_dtype", Attr::Type(DType::I32))]);
    assert!(quant(&[Some(x.clone()), Some(f32t(&[], &[1.]))], a).is_err());
    // Blocked scale with a wrong block count, negative block size, axis out of range.
    assert!(quant(&[Some(x.clone()), Some(f32t(&[2, 3], &[1.; 6]))], axis_block(1, 2)).is_err());
    assert!(quant(&[Some(x.clone()), Some(f32t(&[2, 2], &[1.; 4]))], axis_block(1, -1)).is_err());
    assert!(quant(&[Some(x), Some(f32t(&[3], &[1.; 3]))], attrs(&[("axis", Attr::Int(2))])).is_err());
}

#[test]
fn dequantize() {
    // test_dequantizelinear, _int16, _uint16.
    let y =
        dequant(&[Some(u8t(&[4], &[0, 3, 128, 255])), Some(f32t(&[], &[2.])), Some(u8t(&[], &[128]))], Attrs::new());
    assert_eq!(f32s(&y.unwrap()), vec![-256., -250., 0., 254.]);
    let x = t(&[4], Data::I16(vec![-300, -30, -1025, 1270]));
    let y = dequant(&[Some(x), Some(f32t(&[], &[2.])), Some(t(&[], Data::I16(vec![-1024])))], Attrs::new());
    assert_eq!(f32s(&y.unwrap()), vec![1448., 1988., -2., 4588.]);
    let x = t(&[4], Data::U16(vec![30000, 31000, 32768, 33000]));
    let y = dequant(&[Some(x), Some(f32t(&[], &[2.])), Some(t(&[], Data::U16(vec![32767])))], Attrs::new());
    assert_eq!(f32s(&y.unwrap()), vec![-5534., -3534., 2., 466.]);
    // test_dequantizelinear_axis.
    let x = u8t(&[1, 3, 3, 2], &[3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102]);
    let y = dequant(&[Some(x), Some(f32t(&[3], &[2., 4., 5.])), Some(u8t(&[3], &[84, 24, 196]))], Attrs::new());
    let want =
        [-162., 10., -100., 232., -20., -50., -76., 0., 0., 252., 32., -44., 245., -485., -960., -270., -375., -470.];
    assert_eq!(f32s(&y.unwrap()), want);
    // test_dequantizelinear_blocked.
    let x = u8t(
        &[1, 4, 3, 2],
        &[3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 5, 12, 12, 33, 65, 42, 245, 99, 4, 142, 121, 102],
    );
    let s = f32t(&[1, 2, 3, 2], &[3., 2., 4., 1., 2., 2., 5., 2., 4., 3., 5., 2.]);
    let zp = u8t(&[1, 2, 3, 2], &[1, 0, 0, 1, 2, 20, 3, 2, 4, 3, 15, 2]);
    let y = dequant(&[Some(x), Some(s), Some(zp)], axis_block(1, 2)).unwrap();
    let want = [
        6., 178., 136., 199., 144., 78., 12., 48., 96., 86., 60., -14., 10., 20., 32., 90., 250., 80., 1210., 194., 0.,
        417., 530., 200.,
    ];
    assert_eq!(f32s(&y), want);
}

#[test]
fn dequantize_types_and_errors() {
    // i32 input without zero point; f16 scale gives f16 output; output_dtype overrides.
    let x = i32t(&[2], &[1 << 24, -3]);
    let y = dequant(&[Some(x.clone()), Some(f32t(&[], &[0.5]))], Attrs::new()).unwrap();
    assert_eq!(f32s(&y), vec![8388608., -1.5]);
    let y = dequant(&[Some(x.clone()), Some(f16t(&[], &[0.5]))], Attrs::new()).unwrap();
    assert_eq!(f16s(&y), vec![f32::INFINITY, -1.5]);
    let a = attrs(&[("output_dtype", Attr::Type(DType::F32))]);
    let y = dequant(&[Some(x.clone()), Some(f16t(&[], &[0.5]))], a).unwrap();
    assert_eq!(f32s(&y), vec![8388608., -1.5]);
    // Zero point of another type; float input; per-axis length mismatch.
    assert!(dequant(&[Some(u8t(&[1], &[1])), Some(f32t(&[], &[1.])), Some(i32t(&[], &[0]))], Attrs::new()).is_err());
    assert!(dequant(&[Some(f32t(&[1], &[1.])), Some(f32t(&[], &[1.]))], Attrs::new()).is_err());
    assert!(dequant(&[Some(u8t(&[2, 2], &[0; 4])), Some(f32t(&[3], &[1.; 3]))], Attrs::new()).is_err());
}

#[test]
fn dynamic_quantize() {
    let dq = |x: Tensor| evaln(Opcode::DynamicQuantizeLinear, &[Some(x)], Attrs::new(), 3);
    // test_dynamicquantizelinear.
    let r = dq(f32t(&[6], &[0., 2., -3., -2.5, 1.34, 0.5])).unwrap();
    assert_eq!(r[0].data, Data::U8(vec![153, 255, 0, 26, 221, 179]));
    assert_eq!(f32s(&r[1]), vec![0.019607844]);
    assert_eq!((r[1].shape.len(), &r[2].data), (0, &Data::U8(vec![153])));
    // test_dynamicquantizelinear_max_adjusted.
    let r = dq(f32t(&[6], &[-1.0, -2.1, -1.3, -2.5, -3.34, -4.0])).unwrap();
    assert_eq!(r[0].data, Data::U8(vec![191, 121, 172, 96, 42, 0]));
    assert_eq!((f32s(&r[1]), &r[2].data), (vec![0.015686275], &Data::U8(vec![255])));
    // test_dynamicquantizelinear_min_adjusted.
    let r = dq(f32t(&[3, 4], &[1.0, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345])).unwrap();
    assert_eq!(r[0].data, Data::U8(vec![64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149]));
    assert_eq!((f32s(&r[1]), &r[2].data), (vec![0.015686275], &Data::U8(vec![0])));
    // All zeros: scale 1/255, zero point 0.
    let r = dq(f32t(&[2], &[0., 0.])).unwrap();
    assert_eq!((f32s(&r[1]), &r[0].data), (vec![1.0 / 255.0], &Data::U8(vec![0, 0])));
    // Empty, NaN and non-f32 inputs are errors.
    assert!(dq(f32t(&[0], &[])).is_err());
    assert!(dq(f32t(&[1], &[f32::NAN])).is_err());
    assert!(dq(f16t(&[1], &[1.0])).is_err());
}
