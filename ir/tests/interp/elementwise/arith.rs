//! Reference kernels of the elementwise arithmetic ops (Add, Sub, Mul, Div, Mod, Pow, the
//! variadic Max/Min/Sum/Mean, PRelu, Clip), run through `eval_op`. Expected values are
//! hand-checked or taken from the ONNX node tests named in each test.

use crate::common::elementwise::*;

// ---- binary arithmetic --------------------------------------------------------

#[test]
fn add_broadcasts_like_numpy() {
    let a = f32t(&[2, 1, 3], &[1., 2., 3., 4., 5., 6.]);
    let b = f32t(&[2, 1], &[10., 20.]);
    let c = run(Opcode::Add, &[a, b]);
    assert_eq!(c.shape, vec![2, 2, 3]);
    assert_eq!(f32s(&c), vec![11., 12., 13., 21., 22., 23., 14., 15., 16., 24., 25., 26.]);
    // Scalar operand.
    let c = run(Opcode::Add, &[f32t(&[], &[0.5]), f32t(&[2], &[1., 2.])]);
    assert_eq!(f32s(&c), vec![1.5, 2.5]);
}

#[test]
fn add_sub_mul_wrap_integers() {
    let c = run(Opcode::Add, &[t(&[2], Data::U8(vec![200, 100])), t(&[2], Data::U8(vec![100, 100]))]);
    assert_eq!(c.data, Data::U8(vec![44, 200]));
    let c = run(Opcode::Add, &[t(&[1], Data::I8(vec![127])), t(&[1], Data::I8(vec![1]))]);
    assert_eq!(c.data, Data::I8(vec![-128]));
    let c = run(Opcode::Sub, &[t(&[1], Data::U32(vec![1])), t(&[1], Data::U32(vec![2]))]);
    assert_eq!(c.data, Data::U32(vec![u32::MAX]));
    let c = run(Opcode::Mul, &[t(&[1], Data::U64(vec![u64::MAX])), t(&[1], Data::U64(vec![2]))]);
    assert_eq!(c.data, Data::U64(vec![u64::MAX - 1]));
    let c = run(Opcode::Mul, &[t(&[2], Data::I16(vec![300, -300])), t(&[2], Data::I16(vec![300, 300]))]);
    assert_eq!(c.data, Data::I16(vec![(90000i32 as i16), (-90000i32 as i16)]));
    // test_sub_bcast-like: [3,4,5] - [5].
    let a = f32t(&[1, 2, 3], &[1., 2., 3., 4., 5., 6.]);
    let c = run(Opcode::Sub, &[a, f32t(&[3], &[1., 1., 1.])]);
    assert_eq!(f32s(&c), vec![0., 1., 2., 3., 4., 5.]);
}

#[test]
fn half_precision_arithmetic_rounds_once() {
    // f16: 2048 + 1 = 2049 is a tie between 2048 and 2050 -> even (2048); 2048 + 3 -> 2052.
    let c = run(Opcode::Add, &[f16t(&[2], &[2048., 2048.]), f16t(&[2], &[1., 3.])]);
    assert_eq!(f16s(&c), vec![2048., 2052.]);
    // bf16: 1 + 2^-8 ties to 1; 1 + 3*2^-8 rounds to 1 + 2^-6.
    let b = |v: &[f32]| t(&[v.len()], Data::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()));
    let c = run(Opcode::Add, &[b(&[1., 1.]), b(&[1. / 256., 3. / 256.])]);
    assert_eq!(c.data, Data::BF16(vec![bf16::from_f32(1.0), bf16::from_f32(1.0 + 1.0 / 64.0)]));
    let c = run(Opcode::Mul, &[t(&[1], Data::F64(vec![0.1])), t(&[1], Data::F64(vec![3.0]))]);
    assert_eq!(c.data, Data::F64(vec![0.1 * 3.0]));
}

#[test]
fn div_truncates_integers_and_errors_on_zero() {
    // test_div_example / test_div_int32_trunc.
    assert_eq!(f32s(&run(Opcode::Div, &[f32t(&[2], &[3., 4.]), f32t(&[2], &[1., 2.])])), vec![3., 2.]);
    let c = run(Opcode::Div, &[i32t(&[4], &[-3, 3, -3, 3]), i32t(&[4], &[2, 2, -2, -2])]);
    assert_eq!(c.data, Data::I32(vec![-1, 1, 1, -1]));
    let c = run(Opcode::Div, &[i32t(&[1], &[i32::MIN]), i32t(&[1], &[-1])]);
    assert_eq!(c.data, Data::I32(vec![i32::MIN]));
    let c = run(Opcode::Div, &[f32t(&[2], &[1., -1.]), f32t(&[2], &[0., 0.])]);
    assert_eq!(f32s(&c), vec![f32::INFINITY, f32::NEG_INFINITY]);
    let e = eval(Opcode::Div, &[i64t(&[2], &[1, 2]), i64t(&[2], &[1, 0])], Attrs::new()).unwrap_err();
    assert!(e.contains("division by zero"), "{e}");
}

#[test]
fn mod_follows_onnx_sign_rules() {
    let x = [-4i64, 7, 5, 4, -7, 8];
    let y = [2i64, -3, 8, -2, 3, 5];
    // test_mod_mixed_sign_int64: Python %, sign of the divisor.
    let c = run(Opcode::Mod, &[i64t(&[6], &x), i64t(&[6], &y)]);
    assert_eq!(c.data, Data::I64(vec![0, -2, 5, 0, 2, 3]));
    // test_mod_int64_fmod: C fmod, sign of the dividend.
    let fmod = attrs(&[("fmod", Attr::Int(1))]);
    let c = ok(Opcode::Mod, &[i64t(&[6], &x), i64t(&[6], &y)], fmod.clone());
    assert_eq!(c.data, Data::I64(vec![0, 1, 5, 0, -1, 3]));
    // test_mod_mixed_sign_float32 / float16.
    let xf = [-4.3f32, 7.2, 5.0, 4.3, -7.2, 8.0];
    let yf = [2.1f32, -3.4, 8.0, -2.1, 3.4, 5.0];
    let c = ok(Opcode::Mod, &[f32t(&[6], &xf), f32t(&[6], &yf)], fmod.clone());
    assert_f32s(&f32s(&c), &[-0.10000038, 0.39999962, 5., 0.10000038, -0.39999962, 3.], 0);
    let c = ok(Opcode::Mod, &[f16t(&[6], &xf), f16t(&[6], &yf)], fmod);
    assert_eq!(f16s(&c), vec![-0.1015625, 0.3984375, 5.0, 0.1015625, -0.3984375, 3.0]);
    // test_mod_uint8 and test_mod_broadcast.
    let c = run(Opcode::Mod, &[t(&[3], Data::U8(vec![4, 7, 5])), t(&[3], Data::U8(vec![2, 3, 8]))]);
    assert_eq!(c.data, Data::U8(vec![0, 1, 5]));
    let x: Vec<i32> = (0..30).collect();
    let c = run(Opcode::Mod, &[i32t(&[3, 2, 5], &x), i32t(&[1], &[7])]);
    assert_eq!(c.data, Data::I32(x.iter().map(|v| v % 7).collect()));
    // Errors: float without fmod, integer modulus 0.
    assert!(eval(Opcode::Mod, &[f32t(&[1], &[1.]), f32t(&[1], &[2.])], Attrs::new()).is_err());
    assert!(eval(Opcode::Mod, &[i32t(&[1], &[1]), i32t(&[1], &[0])], Attrs::new()).is_err());
}

#[test]
fn pow_mixes_types_like_the_reference() {
    // test_pow_example, test_pow_bcast_array.
    let c = run(Opcode::Pow, &[f32t(&[3], &[1., 2., 3.]), f32t(&[3], &[4., 5., 6.])]);
    assert_eq!(f32s(&c), vec![1., 32., 729.]);
    let c = run(Opcode::Pow, &[f32t(&[2, 3], &[1., 2., 3., 4., 5., 6.]), f32t(&[3], &[1., 2., 3.])]);
    assert_eq!(f32s(&c), vec![1., 4., 27., 4., 25., 216.]);
    // test_pow_types_int32_float32, float32_int64, int64_int64.
    let c = run(Opcode::Pow, &[i32t(&[3], &[1, 2, 3]), f32t(&[3], &[4., 5., 6.])]);
    assert_eq!(c.data, Data::I32(vec![1, 32, 729]));
    let c = run(Opcode::Pow, &[f32t(&[3], &[1., 2., 3.]), i64t(&[3], &[4, 5, 6])]);
    assert_eq!(f32s(&c), vec![1., 32., 729.]);
    let c = run(Opcode::Pow, &[i64t(&[3], &[1, 2, 3]), i64t(&[3], &[4, 5, 6])]);
    assert_eq!(c.data, Data::I64(vec![1, 32, 729]));
    // Integer powers wrap; negative exponents truncate the real result.
    let c = run(Opcode::Pow, &[i32t(&[4], &[2, 2, -1, 3]), i32t(&[4], &[31, -1, -3, 2])]);
    assert_eq!(c.data, Data::I32(vec![i32::MIN, 0, -1, 9]));
    let c = run(Opcode::Pow, &[i32t(&[1], &[2]), f32t(&[1], &[0.5])]);
    assert_eq!(c.data, Data::I32(vec![1]));
    assert!(eval(Opcode::Pow, &[i32t(&[1], &[0]), i32t(&[1], &[-1])], Attrs::new()).is_err());
    let c = run(Opcode::Pow, &[f32t(&[2], &[-8., f32::NAN]), f32t(&[2], &[1. / 3., 0.])]);
    assert!(f32s(&c)[0].is_nan());
    assert_eq!(f32s(&c)[1], 1.0);
}

// ---- variadic ----------------------------------------------------------------

#[test]
fn variadic_max_min_sum_mean() {
    // test_max_example / test_min_example / test_sum_example / test_mean_example.
    let d = [f32t(&[3], &[3., 2., 1.]), f32t(&[3], &[1., 4., 4.]), f32t(&[3], &[2., 5., 0.])];
    assert_eq!(f32s(&run(Opcode::Max, &d)), vec![3., 5., 4.]);
    assert_eq!(f32s(&run(Opcode::Min, &d)), vec![1., 2., 0.]);
    assert_eq!(f32s(&run(Opcode::Sum, &d)), vec![6., 11., 5.]);
    assert_eq!(f32s(&run(Opcode::Mean, &d)), vec![2., 11. / 3., 5. / 3.]);
    // One input.
    assert_eq!(f32s(&run(Opcode::Max, &d[..1])), vec![3., 2., 1.]);
    // Broadcasting and NaN propagation.
    let c = run(Opcode::Max, &[f32t(&[2, 1], &[1., f32::NAN]), f32t(&[2], &[0., 5.])]);
    assert_eq!(c.shape, vec![2, 2]);
    let v = f32s(&c);
    assert_eq!(&v[..2], &[1., 5.]);
    assert!(v[2].is_nan() && v[3].is_nan());
    // Integers: test_max_uint64-like values and wrapping sums.
    let c = run(Opcode::Max, &[t(&[2], Data::U64(vec![u64::MAX, 1])), t(&[2], Data::U64(vec![0, 2]))]);
    assert_eq!(c.data, Data::U64(vec![u64::MAX, 2]));
    let c = run(Opcode::Min, &[t(&[2], Data::I8(vec![-128, 5])), t(&[1], Data::I8(vec![0]))]);
    assert_eq!(c.data, Data::I8(vec![-128, 0]));
    let c = run(Opcode::Sum, &[t(&[1], Data::U8(vec![200])), t(&[1], Data::U8(vec![100]))]);
    assert_eq!(c.data, Data::U8(vec![44]));
    let c = run(Opcode::Mean, &[i32t(&[2], &[1, -3]), i32t(&[2], &[2, 0])]);
    assert_eq!(c.data, Data::I32(vec![1, -1]));
}

#[test]
fn sum_rounds_after_each_addition() {
    // f16: 2048 + 1 -> 2048 (tie to even), + 1 -> 2048 again; not 2050.
    let c = run(Opcode::Sum, &[f16t(&[1], &[2048.]), f16t(&[1], &[1.]), f16t(&[1], &[1.])]);
    assert_eq!(f16s(&c), vec![2048.]);
}

#[test]
fn prelu_broadcasts_slope_to_x() {
    // test_prelu_broadcast: slope [5] against X [3,4,5] (here [2,5]).
    let x = f32t(&[2, 3], &[-1., 0., 2., -4., 5., -6.]);
    let c = run(Opcode::PRelu, &[x.clone(), f32t(&[3], &[0.5, 0.25, 0.1])]);
    assert_f32s(&f32s(&c), &[-0.5, 0., 2., -2., 5., -0.6], 0);
    let c = run(Opcode::PRelu, &[i32t(&[3], &[-3, 0, 3]), i32t(&[1], &[2])]);
    assert_eq!(c.data, Data::I32(vec![-6, 0, 3]));
    // The slope may not enlarge X.
    assert!(eval(Opcode::PRelu, &[f32t(&[3], &[1., 2., 3.]), f32t(&[2, 3], &[0.; 6])], Attrs::new()).is_err());
}

#[test]
fn clip_bounds_and_edge_cases() {
    let some = |v: f32| Some(f32t(&[], &[v]));
    let x = f32t(&[3], &[-2., 0., 2.]);
    // test_clip_example.
    let c = evaln(Opcode::Clip, &[Some(x.clone()), some(-1.), some(1.)], Attrs::new(), 1).unwrap();
    assert_eq!(f32s(&c[0]), vec![-1., 0., 1.]);
    // test_clip_min_greater_than_max: everything becomes max.
    let c = evaln(Opcode::Clip, &[Some(f32t(&[3], &[-2., 0., 6.])), some(2.), some(1.)], Attrs::new(), 1).unwrap();
    assert_eq!(f32s(&c[0]), vec![1., 1., 1.]);
    // Only max (test_clip_default_max), no bounds at all.
    let c = evaln(Opcode::Clip, &[Some(x.clone()), None, some(0.)], Attrs::new(), 1).unwrap();
    assert_eq!(f32s(&c[0]), vec![-2., 0., 0.]);
    assert_eq!(f32s(&run(Opcode::Clip, &[x])), vec![-2., 0., 2.]);
    // NaN stays NaN.
    let c = evaln(Opcode::Clip, &[Some(f32t(&[1], &[f32::NAN])), some(0.), some(1.)], Attrs::new(), 1).unwrap();
    assert!(f32s(&c[0])[0].is_nan());
    // test_clip_default_int8_min.
    let i8t = |v: &[i8]| t(&[v.len()], Data::I8(v.to_vec()));
    let c = evaln(Opcode::Clip, &[Some(i8t(&[-5, 0, 100])), Some(t(&[], Data::I8(vec![0])))], Attrs::new(), 1);
    assert_eq!(c.unwrap()[0].data, Data::I8(vec![0, 0, 100]));
    // Bounds must have the input's type.
    assert!(evaln(Opcode::Clip, &[Some(i8t(&[1])), Some(f32t(&[], &[0.]))], Attrs::new(), 1).is_err());
}

#[test]
fn binary_errors_are_reported_not_panics() {
    let e = eval(Opcode::Add, &[f32t(&[2], &[1., 2.]), f32t(&[3], &[1., 2., 3.])], Attrs::new()).unwrap_err();
    assert!(e.contains("broadcast"), "{e}");
    assert!(eval(Opcode::Add, &[f32t(&[1], &[1.]), i32t(&[1], &[1])], Attrs::new()).is_err());
    assert!(
        eval(Opcode::Add, &[t(&[1], Data::Bool(vec![true])), t(&[1], Data::Bool(vec![true]))], Attrs::new()).is_err()
    );
}
