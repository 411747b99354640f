//! QuantizeLinear to i16/u16, the 4- and 2-bit integers and float8/float4,
//! and DequantizeLinear back (to f32 and f16), vs the interpreter, bit for
//! bit, per tensor and per axis, with and without saturation.

use super::common::*;
use edgec_kernels::quant::lowp8::{dequantize_real, quantize_float, DeqElem, QFloat};
use edgec_kernels::quant::{quantize, QInt, QLayout};
use edgec_kernels::{F16, F4E2M1, F8E4M3FN, F8E5M2, I2, I4, U2, U4};
use ir::interp::{lowp, Data, Tensor};
use ir::{Attr, DType, Opcode};
use proptest::prelude::*;

/// `(shape, scale, layout)`: per tensor, or per axis 0 of a `[d, 3]` input.
fn layout_of(d: usize, per_axis: bool) -> (Vec<usize>, Vec<usize>, QLayout) {
    if per_axis {
        (vec![d, 3], vec![d], QLayout::Axis { dim: d, inner: 3 })
    } else {
        (vec![d, 3], vec![1], QLayout::Tensor)
    }
}

fn interp_q(x: &Tensor, scale: &Tensor, to: DType, saturate: bool) -> Tensor {
    let at =
        attrs(vec![("axis", Attr::Int(0)), ("output_dtype", Attr::Type(to)), ("saturate", Attr::Int(saturate as i64))]);
    interp(Opcode::QuantizeLinear, vec![Some(x.clone()), Some(scale.clone())], at, 1).remove(0)
}

fn raw(t: &Tensor) -> Vec<i64> {
    match &t.data {
        Data::I16(v) => v.iter().map(|&x| x as i64).collect(),
        Data::U16(v) => v.iter().map(|&x| x as i64).collect(),
        d => lowp::raw_bytes(d).expect("a sub-16-bit type").into_iter().map(|b| b as i64).collect(),
    }
}

fn check_int<T: QInt + Default>(
    to: DType,
    x: &[f32],
    s: &[f32],
    per_axis: bool,
    bits: impl Fn(T) -> i64,
) -> Result<(), TestCaseError> {
    let (shape, sshape, l) = layout_of(x.len() / 3, per_axis);
    let want = raw(&interp_q(&f32t(&shape, x), &f32t(&sshape, &s[..numel(&sshape)]), to, true));
    let mut y = vec![T::default(); x.len()];
    quantize(l, x, &s[..numel(&sshape)], None, &mut y);
    prop_assert_eq!(y.into_iter().map(bits).collect::<Vec<_>>(), want, "{}", to);
    Ok(())
}

fn check_float<T: QFloat + DeqElem + Default>(
    to: DType,
    x: &[f32],
    s: &[f32],
    per_axis: bool,
    sat: bool,
    bits: impl Fn(T) -> u8,
) -> Result<(), TestCaseError> {
    let (shape, sshape, l) = layout_of(x.len() / 3, per_axis);
    let ss = &s[..numel(&sshape)];
    let want = raw(&interp_q(&f32t(&shape, x), &f32t(&sshape, ss), to, sat));
    let mut y = vec![T::default(); x.len()];
    quantize_float(l, x, ss, None, &mut y, sat);
    prop_assert_eq!(y.iter().map(|&v| bits(v) as i64).collect::<Vec<_>>(), want.clone(), "{}", to);
    // And back, to f32 and to f16 (the scale's type decides the default output).
    let q = Tensor::new(shape.clone(), lowp::from_raw(to, want.iter().map(|&b| b as u8).collect()).expect("low type"));
    let back = interp(
        Opcode::DequantizeLinear,
        vec![Some(q), Some(f32t(&sshape, ss))],
        attrs(vec![("axis", Attr::Int(0))]),
        1,
    );
    let mut z = vec![0.0f32; x.len()];
    dequantize_real(l, &y, ss, None, &mut z);
    prop_assert_eq!(
        z.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        as_f32(&back[0]).iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    let q16 =
        Tensor::new(shape.clone(), lowp::from_raw(to, want.iter().map(|&b| b as u8).collect()).expect("low type"));
    let at = attrs(vec![("axis", Attr::Int(0)), ("output_dtype", Attr::Type(DType::F16))]);
    let back16 = interp(Opcode::DequantizeLinear, vec![Some(q16), Some(f32t(&sshape, ss))], at, 1).remove(0);
    let Data::F16(want16) = back16.data else { panic!("not f16") };
    let mut h = vec![F16::from_f32(0.0); x.len()];
    dequantize_real(l, &y, ss, None, &mut h);
    prop_assert_eq!(
        h.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want16.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn quantize_to_narrow_integers(d in 1usize..5, per_axis in any::<bool>(),
                                   x in prop::collection::vec(-300.0f32..300.0, 12),
                                   s in prop::collection::vec(0.01f32..4.0, 4)) {
        let x = &x[..3 * d];
        check_int::<i16>(DType::I16, x, &s, per_axis, |v| v as i64)?;
        check_int::<u16>(DType::U16, x, &s, per_axis, |v| v as i64)?;
        check_int::<I4>(DType::I4, x, &s, per_axis, |v| v.get() as u8 as i64)?;
        check_int::<U4>(DType::U4, x, &s, per_axis, |v| v.get() as i64)?;
        check_int::<I2>(DType::I2, x, &s, per_axis, |v| v.get() as u8 as i64)?;
        check_int::<U2>(DType::U2, x, &s, per_axis, |v| v.get() as i64)?;
    }

    #[test]
    fn quantize_to_float8_and_back(d in 1usize..5, per_axis in any::<bool>(), sat in any::<bool>(),
                                   x in prop::collection::vec(-3000.0f32..3000.0, 12),
                                   s in prop::collection::vec(0.01f32..4.0, 4)) {
        let x = &x[..3 * d];
        check_float::<F8E4M3FN>(DType::F8E4M3FN, x, &s, per_axis, sat, |v| v.0)?;
        check_float::<F8E5M2>(DType::F8E5M2, x, &s, per_axis, sat, |v| v.0)?;
        check_float::<F4E2M1>(DType::F4E2M1, x, &s, per_axis, sat, |v| v.0)?;
    }
}
