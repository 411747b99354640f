//! Reduce*, ArgMax/ArgMin and CumSum.

use crate::common::shape::*;
use ir::interp::Data;
use proptest::prelude::*;

/// The ONNX node tests' "example" data.
fn example() -> Tensor {
    f32t(&[3, 2, 2], &[5., 1., 20., 2., 30., 1., 40., 2., 55., 1., 60., 2.])
}

type Case = (&'static str, &'static [i64], i64, &'static [usize], &'static [f64]);

/// (op, axes (empty: operand omitted), keepdims, shape, values) from the ONNX reference.
const EXAMPLES: &[Case] = &[
    ("ReduceSum", &[], 1, &[1, 1, 1], &[219.0]),
    ("ReduceSum", &[1], 0, &[3, 2], &[25.0, 3.0, 70.0, 3.0, 115.0, 3.0]),
    ("ReduceSum", &[-2], 1, &[3, 1, 2], &[25.0, 3.0, 70.0, 3.0, 115.0, 3.0]),
    ("ReduceSum", &[0, 2], 0, &[2], &[93.0, 126.0]),
    ("ReduceMean", &[], 1, &[1, 1, 1], &[18.25]),
    ("ReduceMean", &[1], 0, &[3, 2], &[12.5, 1.5, 35.0, 1.5, 57.5, 1.5]),
    ("ReduceMean", &[-2], 1, &[3, 1, 2], &[12.5, 1.5, 35.0, 1.5, 57.5, 1.5]),
    ("ReduceMean", &[0, 2], 0, &[2], &[15.5, 21.0]),
    ("ReduceMax", &[], 1, &[1, 1, 1], &[60.0]),
    ("ReduceMax", &[1], 0, &[3, 2], &[20.0, 2.0, 40.0, 2.0, 60.0, 2.0]),
    ("ReduceMax", &[-2], 1, &[3, 1, 2], &[20.0, 2.0, 40.0, 2.0, 60.0, 2.0]),
    ("ReduceMin", &[], 1, &[1, 1, 1], &[1.0]),
    ("ReduceMin", &[1], 1, &[3, 1, 2], &[5.0, 1.0, 30.0, 1.0, 55.0, 1.0]),
    ("ReduceMin", &[0, 2], 0, &[2], &[1.0, 2.0]),
    ("ReduceProd", &[], 1, &[1, 1, 1], &[3168000000.0]),
    ("ReduceProd", &[1], 0, &[3, 2], &[100.0, 2.0, 1200.0, 2.0, 3300.0, 2.0]),
    ("ReduceProd", &[0, 2], 0, &[2], &[8250.0, 384000.0]),
    ("ReduceL1", &[], 1, &[1, 1, 1], &[219.0]),
    ("ReduceL1", &[-2], 1, &[3, 1, 2], &[25.0, 3.0, 70.0, 3.0, 115.0, 3.0]),
    ("ReduceL2", &[], 1, &[1, 1, 1], &[97.80081939697266]),
    (
        "ReduceL2",
        &[1],
        0,
        &[3, 2],
        &[20.615528106689453, 2.2360680103302, 50.0, 2.2360680103302, 81.39410400390625, 2.2360680103302],
    ),
    ("ReduceL2", &[0, 2], 0, &[2], &[62.872886657714844, 74.91328430175781]),
    ("ReduceSumSquare", &[], 1, &[1, 1, 1], &[9565.0]),
    ("ReduceSumSquare", &[1], 0, &[3, 2], &[425.0, 5.0, 2500.0, 5.0, 6625.0, 5.0]),
    ("ReduceSumSquare", &[0, 2], 0, &[2], &[3953.0, 5612.0]),
    ("ReduceLogSum", &[], 1, &[1, 1, 1], &[5.389071941375732]),
    (
        "ReduceLogSum",
        &[1],
        0,
        &[3, 2],
        &[
            3.2188758850097656,
            1.0986123085021973,
            4.248495101928711,
            1.0986123085021973,
            4.744932174682617,
            1.0986123085021973,
        ],
    ),
    ("ReduceLogSum", &[0, 2], 0, &[2], &[4.532599449157715, 4.836281776428223]),
    ("ReduceLogSumExp", &[], 1, &[1, 1, 1], &[60.0067138671875]),
    (
        "ReduceLogSumExp",
        &[1],
        0,
        &[3, 2],
        &[20.0, 2.3132617473602295, 40.00004577636719, 2.3132617473602295, 60.0067138671875, 2.3132617473602295],
    ),
    (
        "ReduceLogSumExp",
        &[-2],
        1,
        &[3, 1, 2],
        &[20.0, 2.3132617473602295, 40.00004577636719, 2.3132617473602295, 60.0067138671875, 2.3132617473602295],
    ),
    ("ReduceLogSumExp", &[0, 2], 0, &[2], &[55.0, 60.0]),
];

fn op(name: &str) -> Opcode {
    Opcode::from_name(&format!("onnx.{name}")).unwrap_or_else(|| panic!("no op {name}"))
}

#[test]
fn reduce_examples_match_reference() {
    for &(name, axes, keepdims, shape, want) in EXAMPLES {
        let axes_t = (!axes.is_empty()).then(|| ints(axes));
        let r = run(op(name), vec![Some(example()), axes_t], &[("keepdims", int(keepdims))], 1)
            .unwrap_or_else(|e| panic!("{name} {axes:?}: {e}"));
        close(&r[0], shape, want, 1e-6);
    }
}

#[test]
fn reduce_empty_set_gives_identities() {
    // test_reduce_*_empty_set: data [2, 0, 4], axes [1], keepdims 1.
    let empty = || f32t(&[2, 0, 4], &[]);
    let cases = [
        ("ReduceSum", 0.0),
        ("ReduceProd", 1.0),
        ("ReduceMax", f64::NEG_INFINITY),
        ("ReduceMin", f64::INFINITY),
        ("ReduceL1", 0.0),
        ("ReduceL2", 0.0),
        ("ReduceSumSquare", 0.0),
        ("ReduceLogSum", f64::NEG_INFINITY),
        ("ReduceLogSumExp", f64::NEG_INFINITY),
        ("ReduceMean", f64::NAN),
    ];
    for (name, v) in cases {
        let r = run1(op(name), vec![empty(), ints(&[1])], &[("keepdims", int(1))]);
        close(&r, &[2, 1, 4], &[v; 8], 0.0);
    }
    // test_reduce_sum_empty_set_non_reduced_axis_zero
    let r = run1(op("ReduceSum"), vec![empty(), ints(&[2])], &[("keepdims", int(1))]);
    close(&r, &[2, 0, 1], &[], 0.0);
    // Integer max/min of nothing: the type's extremes.
    let r = run1(op("ReduceMax"), vec![i32t(&[0, 2], &[]), ints(&[0])], &[("keepdims", int(0))]);
    assert_eq!(r, i32t(&[2], &[i32::MIN, i32::MIN]));
    let r = run1(op("ReduceMin"), vec![t(&[0], Data::U8(vec![])), ints(&[0])], &[("keepdims", int(0))]);
    assert_eq!(r, t(&[], Data::U8(vec![255])));
}

#[test]
fn reduce_noop_with_empty_axes() {
    let x = f32t(&[2, 2], &[1., -2., 3., -4.]);
    // test_reduce_sum_empty_axes_input_noop: identity.
    for axes in [None, Some(ints(&[]))] {
        let r = run(op("ReduceSum"), vec![Some(x.clone()), axes], &[("noop_with_empty_axes", int(1))], 1).unwrap();
        assert_eq!(r[0], x);
    }
    // Reduction over the empty set of axes still applies the per-element parts.
    let sq = run1(op("ReduceSumSquare"), vec![x.clone(), ints(&[])], &[("noop_with_empty_axes", int(1))]);
    eq_f32(&sq, &[2, 2], &[1., 4., 9., 16.]);
    let l1 = run1(op("ReduceL1"), vec![x.clone(), ints(&[])], &[("noop_with_empty_axes", int(1))]);
    eq_f32(&l1, &[2, 2], &[1., 2., 3., 4.]);
    // Without the flag an empty axes list reduces everything.
    let all = run1(op("ReduceSum"), vec![x, ints(&[])], &[("keepdims", int(0))]);
    eq_f32(&all, &[], &[-2.]);
}

#[test]
fn reduce_integer_and_bool_semantics() {
    let r = run1(op("ReduceSum"), vec![i32t(&[2], &[i32::MAX, 1])], &[("keepdims", int(0))]);
    assert_eq!(r, i32t(&[], &[i32::MIN]), "integer sums wrap");
    let r = run1(op("ReduceMean"), vec![i32t(&[3], &[1, 2, 2])], &[("keepdims", int(0))]);
    assert_eq!(r, i32t(&[], &[1]), "integer mean truncates");
    let r = run1(op("ReduceMean"), vec![i32t(&[2], &[-1, -2])], &[("keepdims", int(0))]);
    assert_eq!(r, i32t(&[], &[-1]), "toward zero");
    let r = run1(op("ReduceProd"), vec![t(&[3], Data::U8(vec![16, 16, 3]))], &[("keepdims", int(0))]);
    assert_eq!(r, t(&[], Data::U8(vec![0])), "u8 product wraps");
    let r = run1(op("ReduceL2"), vec![i64t(&[2], &[3, 4])], &[("keepdims", int(0))]);
    eq_i64(&r, &[], &[5]);
    // test_reduce_max_bool_inputs / test_reduce_min_bool_inputs
    let b = boolt(&[4, 2], &[true, true, true, false, false, true, false, false]);
    let r = run1(op("ReduceMax"), vec![b.clone(), ints(&[1])], &[("keepdims", int(1))]);
    assert_eq!(r, boolt(&[4, 1], &[true, true, true, false]));
    let r = run1(op("ReduceMin"), vec![b, ints(&[1])], &[("keepdims", int(1))]);
    assert_eq!(r, boolt(&[4, 1], &[true, false, false, false]));
}

#[test]
fn reduce_low_precision_floats_round_once() {
    // 2048 + 1 + 1 in f16 step by step would stay at 2048; rounding once gives 2050.
    let r = run1(op("ReduceSum"), vec![f16t(&[3], &[2048., 1., 1.])], &[("keepdims", int(0))]);
    assert_eq!(r, f16t(&[], &[2050.]));
    let r = run1(op("ReduceMean"), vec![bf16t(&[2, 2], &[1., 2., 3., 5.]), ints(&[1])], &[]);
    assert_eq!(r, bf16t(&[2, 1], &[1.5, 4.]));
    let r = run1(op("ReduceMax"), vec![t(&[3], Data::F64(vec![1., f64::NAN, 3.]))], &[("keepdims", int(0))]);
    assert!(r.to_f64s()[0].is_nan(), "NaN propagates");
    let r = run1(op("ReduceLogSumExp"), vec![f32t(&[2], &[1000., 1000.])], &[("keepdims", int(0))]);
    close(&r, &[], &[1000.0 + std::f64::consts::LN_2], 1e-7);
}

#[test]
fn reduce_errors() {
    fails(op("ReduceSum"), vec![Some(example()), Some(ints(&[3]))], &[], 1);
    fails(op("ReduceSum"), vec![Some(example()), Some(ints(&[1, -2]))], &[], 1);
    fails(op("ReduceMax"), vec![Some(strt(&[1], &["a"]))], &[], 1);
}

/// The ONNX ArgMax/ArgMin example data.
fn arg_data(last: bool) -> Tensor {
    f32t(&[2, 2], if last { &[2., 2., 3., 10.] } else { &[2., 1., 3., 10.] })
}

#[test]
fn arg_max_and_min() {
    let am = Opcode::ArgMax;
    eq_i64(&run1(am, vec![arg_data(false)], &[]), &[1, 2], &[1, 1]);
    eq_i64(&run1(am, vec![arg_data(false)], &[("axis", int(1))]), &[2, 1], &[0, 1]);
    eq_i64(&run1(am, vec![arg_data(false)], &[("axis", int(1)), ("keepdims", int(0))]), &[2], &[0, 1]);
    eq_i64(&run1(am, vec![arg_data(false)], &[("axis", int(-1))]), &[2, 1], &[0, 1]);
    let last = [("axis", int(1)), ("select_last_index", int(1))];
    eq_i64(&run1(am, vec![arg_data(true)], &last), &[2, 1], &[1, 1]);
    eq_i64(&run1(am, vec![arg_data(true)], &[("axis", int(1))]), &[2, 1], &[0, 1]);
    let an = Opcode::ArgMin;
    eq_i64(&run1(an, vec![arg_data(false)], &[]), &[1, 2], &[0, 0]);
    eq_i64(&run1(an, vec![arg_data(false)], &[("axis", int(1)), ("keepdims", int(0))]), &[2], &[1, 0]);
    eq_i64(&run1(an, vec![arg_data(true)], &last), &[2, 1], &[1, 0]);
    // Integers and NaN (NaN wins, like numpy).
    eq_i64(&run1(an, vec![i32t(&[3], &[5, -7, -7])], &[]), &[1], &[1]);
    eq_i64(&run1(am, vec![f32t(&[3], &[1., f32::NAN, 5.])], &[]), &[1], &[1]);
    fails(am, vec![Some(f32t(&[0], &[]))], &[], 1);
    fails(am, vec![Some(arg_data(false))], &[("axis", int(2))], 1);
}

#[test]
fn cum_sum_variants() {
    let x = f32t(&[5], &[1., 2., 3., 4., 5.]);
    let cs = |x: &Tensor, axis: Tensor, at: &[(&str, ir::Attr)]| run1(Opcode::CumSum, vec![x.clone(), axis], at);
    eq_f32(&cs(&x, scalar_i64(0), &[]), &[5], &[1., 3., 6., 10., 15.]);
    eq_f32(&cs(&x, scalar_i64(0), &[("exclusive", int(1))]), &[5], &[0., 1., 3., 6., 10.]);
    eq_f32(&cs(&x, scalar_i64(0), &[("reverse", int(1))]), &[5], &[15., 14., 12., 9., 5.]);
    let both = [("exclusive", int(1)), ("reverse", int(1))];
    eq_f32(&cs(&x, scalar_i64(0), &both), &[5], &[14., 12., 9., 5., 0.]);
    let m = f32t(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    eq_f32(&cs(&m, scalar_i64(0), &[]), &[2, 3], &[1., 2., 3., 5., 7., 9.]);
    eq_f32(&cs(&m, scalar_i64(1), &[]), &[2, 3], &[1., 3., 6., 4., 9., 15.]);
    eq_f32(&cs(&m, i32t(&[], &[-1]), &[]), &[2, 3], &[1., 3., 6., 4., 9., 15.]);
    let mi = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(cs(&mi, i32t(&[], &[1]), &[]), i32t(&[2, 3], &[1, 3, 6, 4, 9, 15]));
    let xi = i32t(&[5], &[1, 2, 3, 4, 5]);
    assert_eq!(cs(&xi, i32t(&[], &[0]), &[("exclusive", int(1))]), i32t(&[5], &[0, 1, 3, 6, 10]));
    fails(Opcode::CumSum, vec![Some(x.clone()), Some(scalar_i64(1))], &[], 1);
    fails(Opcode::CumSum, vec![Some(x), Some(ints(&[0, 0]))], &[], 1);
}

/// Naive ReduceSum over `axes` of a 3-D i64 tensor with keepdims.
fn naive_sum(x: &[i64], shape: [usize; 3], axes: [bool; 3]) -> Vec<i64> {
    let out_shape: Vec<usize> = (0..3).map(|k| if axes[k] { 1 } else { shape[k] }).collect();
    let mut out = vec![0i64; out_shape.iter().product()];
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            for k in 0..shape[2] {
                let o = [i, j, k].iter().enumerate().map(|(a, &c)| if axes[a] { 0 } else { c }).collect::<Vec<_>>();
                let flat = (o[0] * out_shape[1] + o[1]) * out_shape[2] + o[2];
                out[flat] = out[flat].wrapping_add(x[(i * shape[1] + j) * shape[2] + k]);
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn reduce_sum_matches_naive(d0 in 1usize..4, d1 in 0usize..4, d2 in 1usize..4,
                                axes in proptest::array::uniform3(any::<bool>()), seed in any::<i64>()) {
        let shape = [d0, d1, d2];
        let n = d0 * d1 * d2;
        let x: Vec<i64> = (0..n as i64).map(|i| seed.wrapping_mul(i + 1) >> 3).collect();
        let list: Vec<i64> = (0..3).filter(|&k| axes[k]).map(|k| k as i64).collect();
        let want = naive_sum(&x, shape, axes);
        let r = run(op("ReduceSum"), vec![Some(i64t(&shape, &x)), Some(ints(&list))], &[], 1).unwrap();
        let expect_shape: Vec<usize> = if list.is_empty() { vec![1, 1, 1] } else { (0..3).map(|k| if axes[k] { 1 } else { shape[k] }).collect() };
        let want = if list.is_empty() { vec![x.iter().fold(0i64, |a, &b| a.wrapping_add(b))] } else { want };
        prop_assert_eq!(&r[0], &i64t(&expect_shape, &want));
    }
}
