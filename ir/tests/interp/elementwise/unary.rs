//! One-input kernels: math functions, activations, rounding, Identity,
//! IsNaN/IsInf, Dropout.

use crate::common::elementwise::*;

/// Run a float op on an f32 vector and compare to `want` within `ulps`.
fn check(op: Opcode, a: Attrs, x: &[f32], want: &[f32], ulps: u32) {
    let y = ok(op, &[f32t(&[x.len()], x)], a);
    assert_f32s(&f32s(&y), want, ulps);
}

fn none() -> Attrs {
    Attrs::new()
}

fn alpha(v: f32) -> Attrs {
    attrs(&[("alpha", Attr::Float(v))])
}

const V: [f32; 5] = [-2.0, -0.5, 0.0, 0.5, 2.0];

#[test]
fn math_functions_match_numpy() {
    // Expected values: numpy in float64, rounded to float32.
    check(Opcode::Tanh, none(), &V, &[-0.9640276, -0.46211717, 0.0, 0.46211717, 0.9640276], 0);
    check(Opcode::Exp, none(), &V, &[0.13533528, 0.60653067, 1.0, 1.6487212, 7.389056], 0);
    check(Opcode::Sin, none(), &V, &[-0.9092974, -0.47942555, 0.0, 0.47942555, 0.9092974], 0);
    check(Opcode::Cos, none(), &V, &[-0.41614684, 0.87758255, 1.0, 0.87758255, -0.41614684], 0);
    check(Opcode::Tan, none(), &V, &[2.1850398, -0.5463025, 0.0, 0.5463025, -2.1850398], 0);
    check(Opcode::Atan, none(), &V, &[-1.1071488, -0.4636476, 0.0, 0.4636476, 1.1071488], 0);
    check(Opcode::Sinh, none(), &V, &[-3.6268604, -0.5210953, 0.0, 0.5210953, 3.6268604], 0);
    check(Opcode::Cosh, none(), &V, &[3.7621956, 1.127626, 1.0, 1.127626, 3.7621956], 0);
    check(Opcode::Asinh, none(), &V, &[-1.4436355, -0.4812118, 0.0, 0.4812118, 1.4436355], 0);
    let w = [-0.9f32, -0.5, 0.0, 0.5, 0.9];
    check(Opcode::Asin, none(), &w, &[-1.1197695, -0.5235988, 0.0, 0.5235988, 1.1197695], 0);
    check(Opcode::Acos, none(), &w, &[2.6905658, 2.0943952, 1.5707964, 1.0471976, 0.45102686], 0);
    check(Opcode::Atanh, none(), &w, &[-1.4722193, -0.54930615, 0.0, 0.54930615, 1.4722193], 0);
    let u = [1.0f32, 1.5, 2.0, 10.0];
    check(Opcode::Acosh, none(), &u, &[0.0, 0.96242362, 1.3169579, 2.993223], 0);
    check(Opcode::Log, none(), &u, &[0.0, 0.4054651, 0.6931472, 2.3025851], 0);
    check(Opcode::Sqrt, none(), &u, &[1.0, 1.2247449, 1.4142135, 3.1622777], 0);
    check(Opcode::Reciprocal, none(), &u, &[1.0, 0.6666667, 0.5, 0.1], 0);
    // Out-of-domain inputs give NaN / inf like C.
    check(Opcode::Asin, none(), &[2.0], &[f32::NAN], 0);
    check(Opcode::Acosh, none(), &[0.5], &[f32::NAN], 0);
    check(Opcode::Atanh, none(), &[1.0], &[f32::INFINITY], 0);
    check(Opcode::Log, none(), &[0.0, -1.0], &[f32::NEG_INFINITY, f32::NAN], 0);
    check(Opcode::Sqrt, none(), &[-1.0], &[f32::NAN], 0);
    check(Opcode::Reciprocal, none(), &[0.0, -0.0], &[f32::INFINITY, f32::NEG_INFINITY], 0);
}

#[test]
fn erf_is_accurate_in_f64() {
    // Python math.erf values.
    let x = [-3.0, -0.5, 0.0, 1e-10, 0.3, 1.0, 2.4999, 2.5, 3.3, 5.9, 6.5];
    let want = [
        -0.9999779095030014,
        -0.5204998778130465,
        0.0,
        1.1283791670955126e-10,
        0.3286267594591274,
        0.8427007929497149,
        0.9995928300996666,
        0.999593047982555,
        0.9999969422902035,
        0.9999999999999999,
        1.0,
    ];
    let y = run(Opcode::Erf, &[t(&[x.len()], Data::F64(x.to_vec()))]);
    let Data::F64(got) = y.data else { panic!() };
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 4.0 * f64::EPSILON * w.abs().max(1e-300), "erf: got {g}, want {w}");
    }
    check(Opcode::Erf, none(), &[f32::NAN, f32::INFINITY, -f32::INFINITY], &[f32::NAN, 1.0, -1.0], 0);
}

#[test]
fn activations_match_onnx_node_tests() {
    let x = [-1.0f32, 0.0, 1.0];
    // test_relu, test_leakyrelu_example, test_leakyrelu_default.
    check(Opcode::Relu, none(), &[-1.5, 0.0, 2.0, f32::NAN], &[0.0, 0.0, 2.0, f32::NAN], 0);
    check(Opcode::LeakyRelu, alpha(0.1), &x, &[-0.1, 0.0, 1.0], 0);
    check(Opcode::LeakyRelu, none(), &x, &[-0.01, 0.0, 1.0], 0);
    // test_elu_example, test_selu_example, test_selu_default.
    // ONNX's data has -1.2642412 (float32 evaluation); the correctly rounded value is 1 ulp away.
    check(Opcode::Elu, alpha(2.0), &x, &[-1.2642411, 0.0, 1.0], 0);
    check(Opcode::Elu, alpha(2.0), &x, &[-1.2642412, 0.0, 1.0], 1);
    let selu = attrs(&[("alpha", Attr::Float(2.0)), ("gamma", Attr::Float(3.0))]);
    check(Opcode::Selu, selu.clone(), &x, &[-3.7927234, 0.0, 3.0], 0);
    check(Opcode::Selu, selu, &x, &[-3.7927237, 0.0, 3.0], 1); // ONNX's float32 data
                                                               // Default coefficients are the float32 values 1.67326319217681884765625 / 1.05070102214813232421875.
    let (a, g) = (1.673_263_192_176_818_8_f64, 1.050_701_022_148_132_3_f64);
    check(Opcode::Selu, none(), &[-1.0, 1.0], &[(g * a * (-1f64).exp_m1()) as f32, g as f32], 0);
    // test_sigmoid_example; extreme inputs do not overflow.
    check(Opcode::Sigmoid, none(), &x, &[0.26894143, 0.5, 0.7310586], 0);
    check(Opcode::Sigmoid, none(), &x, &[0.2689414, 0.5, 0.7310586], 1); // ONNX's float32 data
    check(Opcode::Sigmoid, none(), &[-1000.0, 1000.0], &[0.0, 1.0], 0);
    // test_hardsigmoid_example, test_hardswish values.
    let hs = attrs(&[("alpha", Attr::Float(0.5)), ("beta", Attr::Float(0.6))]);
    check(Opcode::HardSigmoid, hs, &x, &[0.100_000_024, 0.6, 1.0], 0); // beta is the f32 0.6
    check(Opcode::HardSigmoid, none(), &[-3.0, 0.0, 3.0], &[0.0, 0.5, 1.0], 0);
    check(
        Opcode::HardSwish,
        none(),
        &[-4.0, -1.0, 0.0, 1.0, 3.0, 4.0],
        &[-0.0, -0.33333334, 0.0, 0.6666667, 3.0, 4.0],
        0,
    );
    check(Opcode::HardSwish, none(), &[1.764_052_4, -0.977_277_9], &[1.400_673, -0.329_460_26], 0);
    // test_softplus_example plus overflow-prone inputs.
    let sp = [-100.0, -1.0, 0.0, 1.0, 100.0, 1000.0];
    check(Opcode::Softplus, none(), &sp, &[3.783506e-44, 0.31326169, 0.6931472, 1.3132616, 100.0, 1000.0], 0);
    check(Opcode::Softsign, none(), &V, &[-0.6666667, -0.33333334, 0.0, 0.33333334, 0.6666667], 0);
    check(Opcode::Mish, none(), &V, &[-0.2525015, -0.22074378, 0.0, 0.37524521, 1.943959], 0);
    // test_mish first element.
    check(Opcode::Mish, none(), &[-10.0], &[-0.000_453_989], 0);
    // ONNX's data (-0.00045398893) is 2 ulp off: the reference evaluates log(1 + exp(x)) in f32.
    check(Opcode::Mish, none(), &[-10.0], &[-0.000_453_988_93], 2);
}

#[test]
fn gelu_exact_and_tanh() {
    // test_gelu_default_1 / test_gelu_tanh_1.
    check(Opcode::Gelu, none(), &[-1.0, 0.0, 1.0], &[-0.15865526, 0.0, 0.8413448], 0);
    let tanh = attrs(&[("approximate", Attr::Str("tanh".into()))]);
    check(Opcode::Gelu, tanh.clone(), &[-1.0, 0.0, 1.0], &[-0.15880801, 0.0, 0.841192], 0);
    check(Opcode::Gelu, tanh.clone(), &[-1.0, 0.0, 1.0], &[-0.15880799, 0.0, 0.841192], 1); // ONNX's data
    let x = [-3.5f32, -1.2, 0.3, 2.0, 3.7];
    check(Opcode::Gelu, none(), &x, &[-0.0008142018, -0.13808359, 0.18537344, 1.9544997, 3.6996012], 0);
    check(Opcode::Gelu, tanh, &x, &[-0.00061619765, -0.13829723, 0.18537094, 1.9545977, 3.6997283], 0);
}

#[test]
fn new_activations_celu_thresholded_relu_shrink() {
    check(Opcode::Celu, alpha(2.0), &V, &[-1.2642411, -0.44239843, 0.0, 0.5, 2.0], 0);
    check(Opcode::Celu, none(), &[0.843_968_3, -1.0], &[0.843_968_3, -0.63212055], 0);
    // test_thresholdedrelu_example / default.
    check(Opcode::ThresholdedRelu, alpha(2.0), &[-1.5, 0.0, 1.2, 2.0, 2.2], &[0.0, 0.0, 0.0, 0.0, 2.2], 0);
    check(Opcode::ThresholdedRelu, none(), &[0.5, 1.0, 1.5], &[0.0, 0.0, 1.5], 0);
    // test_shrink_hard / test_shrink_soft.
    let x = [-2.0, -1.0, 0.0, 1.0, 2.0];
    check(Opcode::Shrink, attrs(&[("lambd", Attr::Float(1.5))]), &x, &[-2.0, 0.0, 0.0, 0.0, 2.0], 0);
    let soft = attrs(&[("lambd", Attr::Float(1.5)), ("bias", Attr::Float(1.5))]);
    check(Opcode::Shrink, soft.clone(), &x, &[-0.5, 0.0, 0.0, 0.0, 0.5], 0);
    // Integer Shrink computes in real arithmetic and truncates.
    let y = ok(Opcode::Shrink, &[i32t(&[5], &[-5, -1, 0, 1, 5])], soft);
    assert_eq!(y.data, Data::I32(vec![-3, 0, 0, 0, 3]));
    // Celu is f32-only.
    assert!(eval(Opcode::Celu, &[t(&[1], Data::F64(vec![1.0]))], Attrs::new()).is_err());
}

#[test]
fn sign_abs_neg_relu_on_integers() {
    let i8t = |v: &[i8]| t(&[v.len()], Data::I8(v.to_vec()));
    assert_eq!(run(Opcode::Abs, &[i8t(&[-128, -3, 4])]).data, Data::I8(vec![-128, 3, 4]));
    assert_eq!(run(Opcode::Neg, &[i8t(&[-128, -3, 4])]).data, Data::I8(vec![-128, 3, -4]));
    assert_eq!(run(Opcode::Relu, &[i8t(&[-128, 0, 4])]).data, Data::I8(vec![0, 0, 4]));
    assert_eq!(run(Opcode::Sign, &[i64t(&[3], &[-7, 0, 9])]).data, Data::I64(vec![-1, 0, 1]));
    let u = run(Opcode::Abs, &[t(&[2], Data::U16(vec![0, 65535]))]);
    assert_eq!(u.data, Data::U16(vec![0, 65535]));
    check(Opcode::Sign, none(), &[-2.5, -0.0, 0.0, 3.0, f32::NAN], &[-1.0, -0.0, 0.0, 1.0, f32::NAN], 0);
    check(Opcode::Abs, none(), &[-2.5, -0.0], &[2.5, 0.0], 0);
    check(Opcode::Neg, none(), &[-2.5, 0.0], &[2.5, -0.0], 0);
}

#[test]
fn rounding_ops() {
    // test_round: halves to even.
    let x = [0.1, 0.5, 0.9, 1.2, 1.5, 1.8, 2.3, 2.5, 2.7, -1.1, -1.5, -1.9, -2.2, -2.5, -2.8];
    let want = [0., 0., 1., 1., 2., 2., 2., 2., 3., -1., -2., -2., -2., -2., -3.];
    check(Opcode::Round, none(), &x, &want, 0);
    check(Opcode::Floor, none(), &[-1.5, 1.2, 2.0, f32::NAN], &[-2.0, 1.0, 2.0, f32::NAN], 0);
    check(Opcode::Ceil, none(), &[-1.5, 1.2, 2.0, -0.5], &[-1.0, 2.0, 2.0, -0.0], 0);
    let y = run(Opcode::Round, &[f16t(&[3], &[0.5, 1.5, 2.5])]);
    assert_eq!(f16s(&y), vec![0.0, 2.0, 2.0]);
}

#[test]
fn float_ops_keep_half_types() {
    let y = run_dt(Opcode::Exp, &[f16t(&[2], &[0.0, 1.0])], DType::F16);
    assert_eq!(f16s(&y), vec![1.0, 2.71875]);
    let b = t(&[1], Data::BF16(vec![bf16::from_f32(1.0)]));
    let y = run_dt(Opcode::Sigmoid, &[b], DType::BF16);
    assert_eq!(y.data, Data::BF16(vec![bf16::from_f32(0.73046875)]));
    // Integer inputs are rejected by float-only ops.
    assert!(eval(Opcode::Exp, &[i32t(&[1], &[1])], Attrs::new()).is_err());
}

#[test]
fn identity_is_nan_is_inf() {
    let s = t(&[2], Data::String(vec!["a".into(), "b".into()]));
    assert_eq!(run(Opcode::Identity, std::slice::from_ref(&s)), s);
    let x = f32t(&[6], &[-1.7, f32::NAN, f32::INFINITY, 3.6, f32::NEG_INFINITY, f32::INFINITY]);
    assert_eq!(
        run(Opcode::IsNaN, std::slice::from_ref(&x)).data,
        Data::Bool(vec![false, true, false, false, false, false])
    );
    let all = vec![false, false, true, false, true, true];
    assert_eq!(run(Opcode::IsInf, std::slice::from_ref(&x)).data, Data::Bool(all));
    // test_isinf_negative / test_isinf_positive.
    let neg = ok(Opcode::IsInf, std::slice::from_ref(&x), attrs(&[("detect_positive", Attr::Int(0))]));
    assert_eq!(neg.data, Data::Bool(vec![false, false, false, false, true, false]));
    let pos = ok(Opcode::IsInf, &[x], attrs(&[("detect_negative", Attr::Int(0))]));
    assert_eq!(pos.data, Data::Bool(vec![false, false, true, false, false, true]));
    let h = run(Opcode::IsNaN, &[f16t(&[2], &[f32::NAN, 1.0])]);
    assert_eq!(h.data, Data::Bool(vec![true, false]));
}

#[test]
fn dropout_inference_mode() {
    let x = f32t(&[2, 2], &[1., 2., 3., 4.]);
    // test_dropout_default: identity.
    assert_eq!(run(Opcode::Dropout, std::slice::from_ref(&x)), x);
    // test_dropout_default_mask_ratio: the mask is all true.
    let r = Some(f32t(&[], &[0.1]));
    let out = evaln(Opcode::Dropout, &[Some(x.clone()), r.clone()], Attrs::new(), 2).unwrap();
    assert_eq!(out[0], x);
    assert_eq!(out[1].data, Data::Bool(vec![true; 4]));
    // training_mode false is inference; true with ratio 0 is identity; true with ratio > 0 is an error.
    let tm = |b: bool| Some(t(&[], Data::Bool(vec![b])));
    let out = evaln(Opcode::Dropout, &[Some(x.clone()), r.clone(), tm(false)], Attrs::new(), 1).unwrap();
    assert_eq!(out[0], x);
    let zero = Some(f32t(&[], &[0.0]));
    let out = evaln(Opcode::Dropout, &[Some(x.clone()), zero, tm(true)], Attrs::new(), 2).unwrap();
    assert_eq!(out[1].data, Data::Bool(vec![true; 4]));
    let e = evaln(Opcode::Dropout, &[Some(x.clone()), r, tm(true)], Attrs::new(), 1).unwrap_err();
    assert!(e.contains("training-mode dropout"), "{e}");
    let e = evaln(Opcode::Dropout, &[Some(x), None, tm(true)], Attrs::new(), 1).unwrap_err();
    assert!(e.contains("not supported"), "{e}");
}
