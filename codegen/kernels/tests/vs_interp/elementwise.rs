//! Elementwise kernels vs the interpreter.

use super::common::*;
use edgec_kernels::elementwise::*;
use ir::interp::Tensor;
use ir::{Attr, DType, Opcode};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Every unary op, with random parameters where it has some.
fn unary_op() -> impl Strategy<Value = Unary> {
    use Unary::*;
    let a = 0.1f32..3.0;
    prop_oneof![
        prop::sample::select(vec![
            Identity, Abs, Neg, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
            Cosh, Asinh, Acosh, Atanh, Tanh, Sigmoid, Relu, Erf, Sign, Softplus, Softsign, HardSwish, Gelu, GeluTanh,
            Mish, Silu,
        ]),
        a.clone().prop_map(|alpha| Elu { alpha }),
        (a.clone(), a.clone()).prop_map(|(alpha, gamma)| Selu { alpha, gamma }),
        a.clone().prop_map(|alpha| Celu { alpha }),
        (-1f32..1.0).prop_map(|alpha| LeakyRelu { alpha }),
        (a.clone(), -1f32..1.0).prop_map(|(alpha, beta)| HardSigmoid { alpha, beta }),
        (-2f32..2.0).prop_map(|alpha| ThresholdedRelu { alpha }),
        (-5f32..5.0, -5f32..5.0).prop_map(|(min, max)| Clip { min, max }),
        a.clone().prop_map(|alpha| Swish { alpha }),
        (0f32..3.0, -1f32..1.0).prop_map(|(lambd, bias)| Shrink { lambd, bias }),
        (-2f32..2.0, -3f32..3.0).prop_map(|(alpha, beta)| ScaledTanh { alpha, beta }),
    ]
}

/// The interpreter's op, attributes and extra operands for a unary op.
fn unary_interp(op: Unary, x: Tensor) -> Vec<Tensor> {
    use Unary::*;
    let f = |k: &'static str, v: f32| (k, Attr::Float(v));
    let (code, at, mut ins) = match op {
        Identity => (Opcode::Identity, vec![], vec![]),
        Abs => (Opcode::Abs, vec![], vec![]),
        Neg => (Opcode::Neg, vec![], vec![]),
        Exp => (Opcode::Exp, vec![], vec![]),
        Log => (Opcode::Log, vec![], vec![]),
        Sqrt => (Opcode::Sqrt, vec![], vec![]),
        Reciprocal => (Opcode::Reciprocal, vec![], vec![]),
        Floor => (Opcode::Floor, vec![], vec![]),
        Ceil => (Opcode::Ceil, vec![], vec![]),
        Round => (Opcode::Round, vec![], vec![]),
        Sin => (Opcode::Sin, vec![], vec![]),
        Cos => (Opcode::Cos, vec![], vec![]),
        Tan => (Opcode::Tan, vec![], vec![]),
        Asin => (Opcode::Asin, vec![], vec![]),
        Acos => (Opcode::Acos, vec![], vec![]),
        Atan => (Opcode::Atan, vec![], vec![]),
        Sinh => (Opcode::Sinh, vec![], vec![]),
        Cosh => (Opcode::Cosh, vec![], vec![]),
        Asinh => (Opcode::Asinh, vec![], vec![]),
        Acosh => (Opcode::Acosh, vec![], vec![]),
        Atanh => (Opcode::Atanh, vec![], vec![]),
        Tanh => (Opcode::Tanh, vec![], vec![]),
        Sigmoid => (Opcode::Sigmoid, vec![], vec![]),
        Relu => (Opcode::Relu, vec![], vec![]),
        Erf => (Opcode::Erf, vec![], vec![]),
        Sign => (Opcode::Sign, vec![], vec![]),
        Softplus => (Opcode::Softplus, vec![], vec![]),
        Softsign => (Opcode::Softsign, vec![], vec![]),
        HardSwish => (Opcode::HardSwish, vec![], vec![]),
        Gelu => (Opcode::Gelu, vec![], vec![]),
        GeluTanh => (Opcode::Gelu, vec![("approximate", Attr::Str("tanh".into()))], vec![]),
        Mish => (Opcode::Mish, vec![], vec![]),
        Silu => (Opcode::CoreSilu, vec![], vec![]),
        Elu { alpha } => (Opcode::Elu, vec![f("alpha", alpha)], vec![]),
        Selu { alpha, gamma } => (Opcode::Selu, vec![f("alpha", alpha), f("gamma", gamma)], vec![]),
        Celu { alpha } => (Opcode::Celu, vec![f("alpha", alpha)], vec![]),
        LeakyRelu { alpha } => (Opcode::LeakyRelu, vec![f("alpha", alpha)], vec![]),
        HardSigmoid { alpha, beta } => (Opcode::HardSigmoid, vec![f("alpha", alpha), f("beta", beta)], vec![]),
        ThresholdedRelu { alpha } => (Opcode::ThresholdedRelu, vec![f("alpha", alpha)], vec![]),
        Clip { min, max } => (Opcode::Clip, vec![], vec![Some(f32t(&[], &[min])), Some(f32t(&[], &[max]))]),
        Swish { alpha } => (Opcode::Swish, vec![f("alpha", alpha)], vec![]),
        Shrink { lambd, bias } => (Opcode::Shrink, vec![f("lambd", lambd), f("bias", bias)], vec![]),
        ScaledTanh { alpha, beta } => (Opcode::ScaledTanh, vec![f("alpha", alpha), f("beta", beta)], vec![]),
    };
    ins.insert(0, Some(x));
    interp(code, ins, attrs(at), 1)
}

fn bin_interp(op: Binary, a: Tensor, b: Tensor) -> Tensor {
    let (code, at) = match op {
        Binary::Add => (Opcode::Add, vec![]),
        Binary::Sub => (Opcode::Sub, vec![]),
        Binary::Mul => (Opcode::Mul, vec![]),
        Binary::Div => (Opcode::Div, vec![]),
        Binary::Pow => (Opcode::Pow, vec![]),
        Binary::Max => (Opcode::Max, vec![]),
        Binary::Min => (Opcode::Min, vec![]),
        Binary::Mod { fmod } => (Opcode::Mod, vec![("fmod", Attr::Int(fmod as i64))]),
        Binary::PRelu => (Opcode::PRelu, vec![]),
    };
    interp(code, vec![Some(a), Some(b)], attrs(at), 1).remove(0)
}

fn float_binary_op() -> impl Strategy<Value = Binary> {
    use Binary::*;
    prop::sample::select(vec![Add, Sub, Mul, Div, Pow, Max, Min, Mod { fmod: true }])
}

/// `(a_shape, a, b_shape, b, out_shape)`.
type BcastCase = (Vec<usize>, Vec<f32>, Vec<usize>, Vec<f32>, Vec<usize>);

/// Two broadcasting operands and their data.
fn bcast_case() -> impl Strategy<Value = BcastCase> {
    bcast2(5).prop_flat_map(|(a, b, out)| {
        let (na, nb) = (numel(&a), numel(&b));
        (Just(a), data(na, special()), Just(b), data(nb, special()), Just(out))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn unary_matches_interpreter(op in unary_op(), (s, x) in tensor(shape(0..=4, 5), special())) {
        let want = as_f32(&unary_interp(op, f32t(&s, &x))[0]);
        let mut y = vec![0.0; x.len()];
        unary(op, &x, &mut y);
        check_close(&y, &want, 1e-5, 1e-6)?;
        let mut z = x.clone();
        unary_inplace(op, &mut z);
        check_close(&z, &want, 1e-5, 1e-6)?;
    }

    #[test]
    fn binary_f32_matches_interpreter(op in float_binary_op(), (sa, a, sb, b, so) in bcast_case()) {
        let want = bin_interp(op, f32t(&sa, &a), f32t(&sb, &b));
        prop_assert_eq!(&want.shape, &so);
        let mut out = vec![0.0; numel(&so)];
        binary(op, &sa, &a, &sb, &b, &so, &mut out);
        let tol = if op == Binary::Pow { 1e-5 } else { 0.0 };
        check_close(&out, &as_f32(&want), tol, tol / 10.0)?;
    }

    #[test]
    fn binary_inplace_matches_interpreter(
        op in float_binary_op(),
        rev in any::<bool>(),
        (so, acc, sb, b) in shape(0..=5, 4).prop_flat_map(|out| (Just(out.clone()), operand_of(out))).prop_flat_map(
            |(so, sb)| { let (n, m) = (numel(&so), numel(&sb)); (Just(so), data(n, special()), Just(sb), data(m, special())) }
        ),
    ) {
        let want = if rev { bin_interp(op, f32t(&sb, &b), f32t(&so, &acc)) } else { bin_interp(op, f32t(&so, &acc), f32t(&sb, &b)) };
        let mut got = acc.clone();
        if rev { binary_inplace_rev(op, &so, &mut got, &sb, &b) } else { binary_inplace(op, &so, &mut got, &sb, &b) }
        let tol = if op == Binary::Pow { 1e-5 } else { 0.0 };
        check_close(&got, &as_f32(&want), tol, tol / 10.0)?;
    }

    #[test]
    fn prelu_matches_interpreter((sx, x, ss, s) in shape(1..=4, 4).prop_flat_map(|out| (Just(out.clone()), operand_of(out)))
        .prop_flat_map(|(sx, ss)| { let (n, m) = (numel(&sx), numel(&ss)); (Just(sx), data(n, special()), Just(ss), data(m, finite())) }))
    {
        let want = bin_interp(Binary::PRelu, f32t(&sx, &x), f32t(&ss, &s));
        let mut out = vec![0.0; x.len()];
        binary(Binary::PRelu, &sx, &x, &ss, &s, &sx, &mut out);
        check_close(&out, &as_f32(&want), 0.0, 0.0)?;
    }

    #[test]
    fn binary_ints_match_interpreter(
        op in prop::sample::select(vec![Binary::Add, Binary::Sub, Binary::Mul, Binary::Div, Binary::Pow, Binary::Max,
            Binary::Min, Binary::Mod { fmod: true }, Binary::Mod { fmod: false }]),
        (sa, a, sb, b, so) in bcast2(4).prop_flat_map(|(a, b, out)| {
            let (na, nb) = (numel(&a), numel(&b));
            (Just(a), prop::collection::vec(-1000i64..1000, na), Just(b), prop::collection::vec(-6i64..7, nb), Just(out))
        }),
    ) {
        // The interpreter rejects integer division by zero; the kernel gives 0.
        let b: Vec<i64> = b.iter().map(|&v| if v == 0 { 3 } else { v }).collect();
        let b: Vec<i64> = if op == Binary::Pow { b.iter().map(|v| v.abs()).collect() } else { b };
        let want = as_i64(&bin_interp(op, i64t(&sa, &a), i64t(&sb, &b)));
        let mut out = vec![0i64; numel(&so)];
        binary(op, &sa, &a, &sb, &b, &so, &mut out);
        prop_assert_eq!(&out, &want);
        let (a32, b32): (Vec<i32>, Vec<i32>) = (a.iter().map(|&v| v as i32).collect(), b.iter().map(|&v| v as i32).collect());
        let want32 = bin_interp(op, i32t(&sa, &a32), i32t(&sb, &b32));
        let mut out32 = vec![0i32; numel(&so)];
        binary(op, &sa, &a32, &sb, &b32, &so, &mut out32);
        prop_assert_eq!(ir::interp::Data::I32(out32), want32.data);
    }

    #[test]
    fn compare_matches_interpreter(
        op in prop::sample::select(vec![Compare::Equal, Compare::Less, Compare::LessOrEqual, Compare::Greater, Compare::GreaterOrEqual]),
        (sa, a, sb, b, so) in bcast2(4).prop_flat_map(|(a, b, out)| {
            let e = || prop_oneof![4 => (-3i32..3).prop_map(|v| v as f32), 1 => Just(f32::NAN)];
            let (na, nb) = (numel(&a), numel(&b));
            (Just(a), data(na, e()), Just(b), data(nb, e()), Just(out))
        }),
    ) {
        let code = match op {
            Compare::Equal => Opcode::Equal,
            Compare::Less => Opcode::Less,
            Compare::LessOrEqual => Opcode::LessOrEqual,
            Compare::Greater => Opcode::Greater,
            Compare::GreaterOrEqual => Opcode::GreaterOrEqual,
        };
        let want = as_bool(&interp(code, vec![Some(f32t(&sa, &a)), Some(f32t(&sb, &b))], attrs(vec![]), 1)[0]);
        let mut out = vec![false; numel(&so)];
        compare(op, &sa, &a, &sb, &b, &so, &mut out);
        prop_assert_eq!(&out, &want);
        let (ai, bi): (Vec<i64>, Vec<i64>) = (a.iter().map(|&v| v as i64).collect(), b.iter().map(|&v| v as i64).collect());
        let want = as_bool(&interp(code, vec![Some(i64t(&sa, &ai)), Some(i64t(&sb, &bi))], attrs(vec![]), 1)[0]);
        compare(op, &sa, &ai, &sb, &bi, &so, &mut out);
        prop_assert_eq!(&out, &want);
    }

    #[test]
    fn logic_and_not_match_interpreter(
        op in prop::sample::select(vec![Logic::And, Logic::Or, Logic::Xor]),
        (sa, a, sb, b, so) in bcast2(4).prop_flat_map(|(a, b, out)| {
            let (na, nb) = (numel(&a), numel(&b));
            (Just(a), prop::collection::vec(any::<bool>(), na), Just(b), prop::collection::vec(any::<bool>(), nb), Just(out))
        }),
    ) {
        let code = match op { Logic::And => Opcode::And, Logic::Or => Opcode::Or, Logic::Xor => Opcode::Xor };
        let want = as_bool(&interp(code, vec![Some(boolt(&sa, &a)), Some(boolt(&sb, &b))], attrs(vec![]), 1)[0]);
        let mut out = vec![false; numel(&so)];
        logic(op, &sa, &a, &sb, &b, &so, &mut out);
        prop_assert_eq!(&out, &want);
        let want = as_bool(&interp(Opcode::Not, vec![Some(boolt(&sa, &a))], attrs(vec![]), 1)[0]);
        let mut y = vec![false; a.len()];
        not(&a, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn where_matches_interpreter(
        (sc, c, sx, x, sy, y, so) in shape(0..=4, 4)
            .prop_flat_map(|out| (operand_of(out.clone()), operand_of(out.clone()), operand_of(out)))
            .prop_flat_map(|(sc, sx, sy)| {
                let so = broadcast_shape(&broadcast_shape(&sc, &sx).unwrap(), &sy).unwrap();
                let (nc, nx, ny) = (numel(&sc), numel(&sx), numel(&sy));
                (Just(sc), prop::collection::vec(any::<bool>(), nc), Just(sx), data(nx, finite()), Just(sy), data(ny, finite()), Just(so))
            }),
    ) {
        let want = interp(Opcode::Where, vec![Some(boolt(&sc, &c)), Some(f32t(&sx, &x)), Some(f32t(&sy, &y))], attrs(vec![]), 1);
        let mut out = vec![0.0; numel(&so)];
        where_(&sc, &c, &sx, &x, &sy, &y, &so, &mut out);
        prop_assert_eq!(&want[0].shape, &so);
        check_close(&out, &as_f32(&want[0]), 0.0, 0.0)?;
    }

    #[test]
    fn variadic_matches_interpreter(
        op in prop::sample::select(vec![Variadic::Sum, Variadic::Max, Variadic::Min, Variadic::Mean]),
        parts in shape(0..=4, 4).prop_flat_map(|out| prop::collection::vec(operand_of(out), 1..=4)).prop_flat_map(|shapes| {
            shapes.into_iter().map(|s| { let n = numel(&s); (Just(s), data(n, special())) }).collect::<Vec<_>>()
        }),
    ) {
        let so = parts.iter().fold(vec![], |acc: Vec<usize>, (s, _)| broadcast_shape(&acc, s).unwrap());
        let code = match op { Variadic::Sum => Opcode::Sum, Variadic::Max => Opcode::Max, Variadic::Min => Opcode::Min, Variadic::Mean => Opcode::Mean };
        let want = interp(code, parts.iter().map(|(s, v)| Some(f32t(s, v))).collect(), attrs(vec![]), 1);
        let views: Vec<(&[usize], &[f32])> = parts.iter().map(|(s, v)| (s.as_slice(), v.as_slice())).collect();
        let mut out = vec![0.0; numel(&so)];
        variadic(op, &views, &so, &mut out);
        check_close(&out, &as_f32(&want[0]), 0.0, 0.0)?;
    }

    #[test]
    fn cast_matches_interpreter(
        x in prop::collection::vec(prop_oneof![4 => -300f32..300.0, 1 => -1e12f32..1e12, 1 => Just(f32::NAN), 1 => Just(0.0f32)], 0..40),
    ) {
        let s = [x.len()];
        let run = |to: DType| interp(Opcode::Cast, vec![Some(f32t(&s, &x))], attrs(vec![("to", Attr::Type(to))]), 1).remove(0).data;
        use ir::interp::Data as D;
        macro_rules! to { ($t:ty, $dt:expr, $var:ident) => {{
            let mut y = vec![<$t>::default(); x.len()];
            cast(&x, &mut y);
            prop_assert_eq!(D::$var(y), run($dt));
        }}}
        to!(i64, DType::I64, I64);
        to!(i32, DType::I32, I32);
        to!(i8, DType::I8, I8);
        to!(u8, DType::U8, U8);
        to!(bool, DType::Bool, Bool);
        let mut d = vec![0f64; x.len()];
        cast(&x, &mut d);
        let D::F64(want) = run(DType::F64) else { panic!("f64 expected") };
        prop_assert_eq!(d.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        // And back: integers and bools to f32.
        let xi: Vec<i64> = x.iter().map(|&v| v as i64 * 1_000_003).collect();
        let want = interp(Opcode::Cast, vec![Some(i64t(&s, &xi))], attrs(vec![("to", Attr::Type(DType::F32))]), 1);
        let mut y = vec![0f32; x.len()];
        cast(&xi, &mut y);
        prop_assert_eq!(D::F32(y.clone()), want[0].data.clone());
        let xb: Vec<bool> = x.iter().map(|&v| v > 0.0).collect();
        let want = interp(Opcode::Cast, vec![Some(boolt(&s, &xb))], attrs(vec![("to", Attr::Type(DType::F32))]), 1);
        cast(&xb, &mut y);
        prop_assert_eq!(D::F32(y), want[0].data.clone());
    }

    #[test]
    fn float_predicates_match_interpreter((s, x) in tensor(shape(0..=3, 5), special()), neg in any::<bool>(), pos in any::<bool>()) {
        let want = as_bool(&interp(Opcode::IsNaN, vec![Some(f32t(&s, &x))], attrs(vec![]), 1)[0]);
        let mut y = vec![false; x.len()];
        is_nan(&x, &mut y);
        prop_assert_eq!(&y, &want);
        let at = attrs(vec![("detect_negative", Attr::Int(neg as i64)), ("detect_positive", Attr::Int(pos as i64))]);
        let want = as_bool(&interp(Opcode::IsInf, vec![Some(f32t(&s, &x))], at, 1)[0]);
        is_inf(&x, neg, pos, &mut y);
        prop_assert_eq!(&y, &want);
    }
}

/// Every unary op on the special values (NaN, infinities, signed zeros, halves).
#[test]
fn unary_special_values() {
    let x = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        1.0,
        -1.0,
        88.0,
        -88.0,
        1e-30,
    ];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..200 {
        let op = unary_op().new_tree(&mut runner).unwrap().current();
        let want = as_f32(&unary_interp(op, f32t(&[x.len()], &x))[0]);
        let mut y = [0.0; 15];
        unary(op, &x, &mut y);
        if let Err(e) = check_close(&y, &want, 1e-5, 1e-6) {
            panic!("{op:?}: {e}");
        }
    }
}

#[test]
fn integer_pow_with_negative_exponents() {
    let a = [2i64, -1, 1, -1, 5, 3];
    let b = [-1i64, -3, -7, -2, 0, 13];
    let want = as_i64(&bin_interp(Binary::Pow, i64t(&[6], &a), i64t(&[6], &b)));
    let mut out = [0i64; 6];
    binary(Binary::Pow, &[6], &a, &[6], &b, &[6], &mut out);
    assert_eq!(out.to_vec(), want);
}
