//! The element types beyond f32: F16/BF16 conversions (exhaustively), and
//! arithmetic, comparisons, casts, Clip and one-input math on f64, F16,
//! BF16 and the 8- to 64-bit integers, bit for bit against the interpreter.

use super::common::*;
use edgec_kernels::elementwise::*;
use edgec_kernels::{BF16, F16};
use ir::interp::{from_le_bytes, Tensor};
use ir::{Attr, DType, Opcode};
use proptest::prelude::*;

/// A kernel element type with its interpreter dtype and byte encoding.
trait El: Copy + Default + std::fmt::Debug {
    const DT: DType;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! el {
    ($($t:ty => $dt:ident),*) => {$(
        impl El for $t {
            const DT: DType = DType::$dt;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> $t {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    )*};
}
el!(f32 => F32, f64 => F64, F16 => F16, BF16 => BF16, i64 => I64, i32 => I32, i16 => I16, i8 => I8,
    u64 => U64, u32 => U32, u16 => U16, u8 => U8);

fn bytes<T: El>(v: &[T]) -> Vec<u8> {
    let mut b = Vec::new();
    v.iter().for_each(|x| x.put(&mut b));
    b
}

/// An interpreter tensor holding `v`.
fn tensor_of<T: El>(shape: &[usize], v: &[T]) -> Tensor {
    Tensor::new(shape.to_vec(), from_le_bytes(T::DT, &bytes(v)).unwrap())
}

/// The elements of an interpreter tensor of type `T`.
fn elems_of<T: El>(t: &Tensor) -> Vec<T> {
    assert_eq!(t.dtype(), T::DT, "interpreter result type");
    let b = t.to_le_bytes().unwrap();
    let n = b.len() / t.len().max(1);
    b.chunks_exact(n.max(1)).map(T::get).collect()
}

/// Same bits, or both NaN (NaN payloads are not specified).
fn same<T: El>(got: &[T], want: &Tensor) -> Result<(), TestCaseError> {
    let w = elems_of::<T>(want);
    prop_assert_eq!(got.len(), w.len());
    let g = tensor_of(&want.shape, got);
    for i in 0..w.len() {
        let nan = g.data.get_f64(i).is_nan() && want.data.get_f64(i).is_nan();
        prop_assert!(
            nan || bytes(&[got[i]]) == bytes(&[w[i]]),
            "element {}: got {:?} want {:?} ({:?})",
            i,
            got[i],
            w[i],
            T::DT
        );
    }
    Ok(())
}

fn cast_interp(t: Tensor, to: DType) -> Tensor {
    interp(Opcode::Cast, vec![Some(t)], attrs(vec![("to", Attr::Type(to))]), 1).remove(0)
}

#[test]
fn widening_every_16_bit_pattern() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let (h, g): (Vec<F16>, Vec<BF16>) = all.iter().map(|&b| (F16(b), BF16(b))).unzip();
    let n = [all.len()];
    let want = cast_interp(tensor_of(&n, &h), DType::F32);
    same(&h.iter().map(|x| x.to_f32()).collect::<Vec<_>>(), &want).unwrap();
    let want = cast_interp(tensor_of(&n, &h), DType::F64);
    same(&h.iter().map(|x| x.to_f64()).collect::<Vec<_>>(), &want).unwrap();
    let want = cast_interp(tensor_of(&n, &g), DType::F32);
    same(&g.iter().map(|x| x.to_f32()).collect::<Vec<_>>(), &want).unwrap();
    let want = cast_interp(tensor_of(&n, &g), DType::F64);
    same(&g.iter().map(|x| x.to_f64()).collect::<Vec<_>>(), &want).unwrap();
}

/// Every 16-bit value, the midpoints to its successor and the values just
/// around them, as `f64`.
fn rounding_cases(widen: impl Fn(u16) -> f64, tiny: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut v = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -1e-300, 0.0, -0.0];
    for b in 0..=u16::MAX {
        let (x, y) = (widen(b), widen(b.wrapping_add(1)));
        if x.is_nan() || y.is_nan() || x.is_infinite() || (x < 0.0) != (y < 0.0) && b != 0x7fff {
            v.push(x);
            continue;
        }
        let y = if b == 0x7fff { x * 2.0 } else { y };
        let mid = (x + y) / 2.0;
        v.extend([x, mid, mid + tiny(mid), mid - tiny(mid)]);
    }
    v
}

/// An f32 ulp at `x` (nonzero for zero too).
fn ulp32(x: f64) -> f64 {
    let f = (x as f32).abs();
    ((f32::from_bits(f.to_bits() + 1) - f) as f64).max(f32::from_bits(1) as f64)
}

#[test]
fn narrowing_rounds_to_nearest_even() {
    let cases = [
        rounding_cases(|b| F16(b).to_f64(), ulp32),
        rounding_cases(|b| BF16(b).to_f64(), ulp32),
        rounding_cases(|b| F16(b).to_f64(), |m| m.abs() * 1e-15 + 1e-300),
        rounding_cases(|b| BF16(b).to_f64(), |m| m.abs() * 1e-15 + 1e-300),
    ];
    for (k, c) in cases.iter().enumerate() {
        if k < 2 {
            let x: Vec<f32> = c.iter().map(|&x| x as f32).collect();
            let t = tensor_of(&[x.len()], &x);
            let h: Vec<F16> = x.iter().map(|&x| F16::from_f32(x)).collect();
            let g: Vec<BF16> = x.iter().map(|&x| BF16::from_f32(x)).collect();
            same(&h, &cast_interp(t.clone(), DType::F16)).unwrap();
            same(&g, &cast_interp(t, DType::BF16)).unwrap();
        } else {
            let t = tensor_of(&[c.len()], c);
            let h: Vec<F16> = c.iter().map(|&x| F16::from_f64(x)).collect();
            let g: Vec<BF16> = c.iter().map(|&x| BF16::from_f64(x)).collect();
            same(&h, &cast_interp(t.clone(), DType::F16)).unwrap();
            same(&g, &cast_interp(t, DType::BF16)).unwrap();
        }
    }
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

/// Floats of type `T` from f32 `special()` values (rounded once).
fn floats<T: El>(conv: fn(f32) -> T) -> impl Strategy<Value = T> + Clone {
    special().prop_map(conv)
}

/// `a op b` of element type `T` with broadcasting, kernel vs interpreter.
fn check_binary<T: El + Num>(
    op: Binary,
    (sa, a): (&[usize], &[T]),
    (sb, b): (&[usize], &[T]),
) -> Result<(), TestCaseError> {
    let want = bin_interp(op, tensor_of(sa, a), tensor_of(sb, b));
    let mut out = vec![T::default(); numel(&want.shape)];
    binary(op, sa, a, sb, b, &want.shape, &mut out);
    same(&out, &want)?;
    if want.shape == sa {
        let mut acc = a.to_vec();
        binary_inplace(op, sa, &mut acc, sb, b);
        same(&acc, &want)?;
    }
    Ok(())
}

/// Broadcasting operand shapes and data from `elem`.
/// `(a_shape, a, b_shape, b)`.
type Case<T> = (Vec<usize>, Vec<T>, Vec<usize>, Vec<T>);

fn case<S: Strategy + Clone>(elem: S) -> impl Strategy<Value = Case<S::Value>>
where
    S::Value: std::fmt::Debug + Clone,
{
    bcast2(4).prop_flat_map(move |(a, b, _)| {
        let (na, nb) = (numel(&a), numel(&b));
        (Just(a), prop::collection::vec(elem.clone(), na), Just(b), prop::collection::vec(elem.clone(), nb))
    })
}

fn float_op() -> impl Strategy<Value = Binary> {
    use Binary::*;
    prop::sample::select(vec![Add, Sub, Mul, Div, Pow, Max, Min, Mod { fmod: true }])
}

/// Integer ops whose interpreter result is defined for nonzero divisors and
/// non-negative exponents.
fn int_op() -> impl Strategy<Value = Binary> {
    use Binary::*;
    prop::sample::select(vec![Add, Sub, Mul, Div, Pow, Max, Min, Mod { fmod: true }, Mod { fmod: false }])
}

/// Nonzero integers of `T` (the interpreter rejects integer division and
/// modulus by zero, and 0 to a negative power), small ones frequent.
fn ints_of<T: El>(conv: fn(i64) -> T) -> impl Strategy<Value = T> + Clone {
    prop_oneof![4 => (-300i64..300).prop_map(conv), 1 => any::<i64>().prop_map(move |x| conv(x | 1))]
        .prop_filter("nonzero", move |x| bytes(&[*x]).iter().any(|&b| b != 0))
}

macro_rules! int_binary_tests {
    ($($name:ident: $t:ty),*) => {$(
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(op in int_op(), (sa, a, sb, b) in case(ints_of::<$t>(|x| x as $t))) {
                check_binary(op, (&sa, &a), (&sb, &b))?;
            }
        }
    )*};
}
int_binary_tests!(binary_i8: i8, binary_u8: u8, binary_i16: i16, binary_u16: u16, binary_u32: u32, binary_u64: u64,
    binary_i32: i32, binary_i64: i64);

proptest! {
    #![proptest_config(config())]

    #[test]
    fn binary_f16(op in float_op(), (sa, a, sb, b) in case(floats(F16::from_f32))) {
        check_binary(op, (&sa, &a), (&sb, &b))?;
    }

    #[test]
    fn binary_bf16(op in float_op(), (sa, a, sb, b) in case(floats(BF16::from_f32))) {
        check_binary(op, (&sa, &a), (&sb, &b))?;
    }

    #[test]
    fn binary_f64(op in float_op(), (sa, a, sb, b) in case(floats(|x| x as f64 * 1.000_000_1))) {
        check_binary(op, (&sa, &a), (&sb, &b))?;
    }

    #[test]
    fn f16_bit_patterns_add_and_mul(a in prop::collection::vec(any::<u16>(), 64), b in prop::collection::vec(any::<u16>(), 64)) {
        let (a, b): (Vec<F16>, Vec<F16>) = (a.into_iter().map(F16).collect(), b.into_iter().map(F16).collect());
        for op in [Binary::Add, Binary::Mul, Binary::Div, Binary::Max] {
            check_binary(op, (&[64], &a), (&[64], &b))?;
        }
    }

    #[test]
    fn variadic_f16_and_u16((sa, a, sb, b) in case(floats(F16::from_f32)), k in 0usize..4) {
        let v = [Variadic::Sum, Variadic::Mean, Variadic::Max, Variadic::Min][k];
        let code = [Opcode::Sum, Opcode::Mean, Opcode::Max, Opcode::Min][k];
        let want = interp(code, vec![Some(tensor_of(&sa, &a)), Some(tensor_of(&sb, &b)), Some(tensor_of(&sa, &a))], attrs(vec![]), 1).remove(0);
        let mut out = vec![F16::ZERO; numel(&want.shape)];
        variadic(v, &[(&sa, &a), (&sb, &b), (&sa, &a)], &want.shape, &mut out);
        same(&out, &want)?;
        let (ia, ib): (Vec<u16>, Vec<u16>) = (a.iter().map(|x| x.to_bits()).collect(), b.iter().map(|x| x.to_bits()).collect());
        let want = interp(code, vec![Some(tensor_of(&sa, &ia)), Some(tensor_of(&sb, &ib))], attrs(vec![]), 1).remove(0);
        let mut out = vec![0u16; numel(&want.shape)];
        variadic(v, &[(&sa, &ia), (&sb, &ib)], &want.shape, &mut out);
        same(&out, &want)?;
    }

    #[test]
    fn compare_f16_i16((sa, a, sb, b) in case(floats(F16::from_f32)), k in 0usize..5) {
        let c = [Compare::Equal, Compare::Less, Compare::LessOrEqual, Compare::Greater, Compare::GreaterOrEqual][k];
        let code = [Opcode::Equal, Opcode::Less, Opcode::LessOrEqual, Opcode::Greater, Opcode::GreaterOrEqual][k];
        let want = interp(code, vec![Some(tensor_of(&sa, &a)), Some(tensor_of(&sb, &b))], attrs(vec![]), 1).remove(0);
        let mut out = vec![false; numel(&want.shape)];
        compare(c, &sa, &a, &sb, &b, &want.shape, &mut out);
        prop_assert_eq!(out, as_bool(&want));
        let (ia, ib): (Vec<i16>, Vec<i16>) = (a.iter().map(|x| x.to_bits() as i16).collect(), b.iter().map(|x| x.to_bits() as i16).collect());
        let want = interp(code, vec![Some(tensor_of(&sa, &ia)), Some(tensor_of(&sb, &ib))], attrs(vec![]), 1).remove(0);
        let mut out = vec![false; numel(&want.shape)];
        compare(c, &sa, &ia, &sb, &ib, &want.shape, &mut out);
        prop_assert_eq!(out, as_bool(&want));
    }

    #[test]
    fn unary_f16_bf16_f64(op in prop::sample::select(vec![
        Unary::Abs, Unary::Neg, Unary::Exp, Unary::Log, Unary::Sqrt, Unary::Reciprocal, Unary::Floor, Unary::Ceil,
        Unary::Round, Unary::Sin, Unary::Cos, Unary::Tanh, Unary::Sigmoid, Unary::Relu, Unary::Sign, Unary::Softplus,
        Unary::Softsign, Unary::HardSwish, Unary::Mish, Unary::Elu { alpha: 0.5 }, Unary::LeakyRelu { alpha: 0.1 },
        Unary::HardSigmoid { alpha: 0.2, beta: 0.5 }, Unary::Selu { alpha: 1.5, gamma: 1.1 },
        Unary::Shrink { lambd: 0.5, bias: 0.25 }, Unary::ThresholdedRelu { alpha: 1.0 }, Unary::Atan, Unary::Asinh,
        Unary::ScaledTanh { alpha: 0.7, beta: 1.3 },
    ]), x in prop::collection::vec(special(), 1..40)) {
        let code = unary_code(op);
        let h: Vec<F16> = x.iter().map(|&x| F16::from_f32(x)).collect();
        let g: Vec<BF16> = x.iter().map(|&x| BF16::from_f32(x)).collect();
        let d: Vec<f64> = x.iter().map(|&x| x as f64 * 1.000_000_1).collect();
        let n = [x.len()];
        let run = |t: Tensor| interp(code.0, vec![Some(t)], attrs(code.1.clone()), 1).remove(0);
        let mut yh = vec![F16::ZERO; x.len()];
        unary_real(op, &h, &mut yh);
        same(&yh, &run(tensor_of(&n, &h)))?;
        if !matches!(op, Unary::Shrink { .. }) {
            // (ONNX Shrink has no bf16.)
            let mut yg = vec![BF16::ZERO; x.len()];
            unary_real(op, &g, &mut yg);
            same(&yg, &run(tensor_of(&n, &g)))?;
        }
        let mut yd = d.clone();
        unary_real_inplace(op, &mut yd);
        same(&yd, &run(tensor_of(&n, &d)))?;
    }

    #[test]
    fn casts_between_all_types(x in prop::collection::vec(special(), 1..30), scale in prop_oneof![Just(1.0f32), Just(300.0), Just(1e5), Just(1e12)]) {
        let x: Vec<f32> = x.into_iter().map(|v| v * scale).collect();
        let n = [x.len()];
        let src = [
            tensor_of(&n, &x),
            cast_interp(tensor_of(&n, &x), DType::F16),
            cast_interp(tensor_of(&n, &x), DType::BF16),
            cast_interp(tensor_of(&n, &x), DType::F64),
            cast_interp(tensor_of(&n, &x), DType::I64),
            cast_interp(tensor_of(&n, &x), DType::I16),
            cast_interp(tensor_of(&n, &x), DType::U64),
            cast_interp(tensor_of(&n, &x), DType::U8),
        ];
        for s in &src {
            cast_all(s)?;
        }
    }

    #[test]
    fn clip_integers_and_halves(x in prop::collection::vec(-200i64..200, 1..20), lo in -150i64..150, hi in -150i64..150) {
        let v: Vec<i8> = x.iter().map(|&x| x as i8).collect();
        let (l, h) = (lo as i8, hi as i8);
        let want = interp(Opcode::Clip, vec![Some(tensor_of(&[v.len()], &v)), Some(tensor_of(&[], &[l])), Some(tensor_of(&[], &[h]))], attrs(vec![]), 1).remove(0);
        let mut out = vec![0i8; v.len()];
        clip(&v, l, h, &mut out);
        same(&out, &want)?;
        let f: Vec<F16> = x.iter().map(|&x| F16::from_f32(x as f32 * 0.37)).collect();
        let (l, h) = (F16::from_f32(lo as f32 * 0.3), F16::from_f32(hi as f32 * 0.3));
        let want = interp(Opcode::Clip, vec![Some(tensor_of(&[f.len()], &f)), Some(tensor_of(&[], &[l])), Some(tensor_of(&[], &[h]))], attrs(vec![]), 1).remove(0);
        let mut out = vec![F16::ZERO; f.len()];
        clip(&f, l, h, &mut out);
        same(&out, &want)?;
    }

    #[test]
    fn pow_with_other_exponent_types(b in prop::collection::vec(-4i64..5, 1..12), e in prop::collection::vec(0i64..6, 1..12)) {
        let n = b.len().min(e.len());
        let (b, e) = (&b[..n], &e[..n]);
        let s = [n];
        let bf: Vec<f32> = b.iter().map(|&x| x as f32 * 0.75).collect();
        let eu: Vec<u32> = e.iter().map(|&x| x as u32).collect();
        let want = interp(Opcode::Pow, vec![Some(tensor_of(&s, &bf)), Some(tensor_of(&s, &eu))], attrs(vec![]), 1).remove(0);
        let mut out = vec![0f32; n];
        pow_mixed(&s, &bf, &s, &eu, &s, &mut out);
        same(&out, &want)?;
        let bi: Vec<i32> = b.iter().map(|&x| x as i32).collect();
        let ef: Vec<f64> = e.iter().map(|&x| x as f64 * 0.5).collect();
        let want = interp(Opcode::Pow, vec![Some(tensor_of(&s, &bi)), Some(tensor_of(&s, &ef))], attrs(vec![]), 1).remove(0);
        let mut out = vec![0i32; n];
        pow_mixed(&s, &bi, &s, &ef, &s, &mut out);
        same(&out, &want)?;
        let el: Vec<i64> = e.to_vec();
        let want = interp(Opcode::Pow, vec![Some(tensor_of(&s, &bi)), Some(tensor_of(&s, &el))], attrs(vec![]), 1).remove(0);
        pow_mixed(&s, &bi, &s, &el, &s, &mut out);
        same(&out, &want)?;
    }
}

fn unary_code(op: Unary) -> (Opcode, Vec<(&'static str, Attr)>) {
    use Unary::*;
    let f = |k: &'static str, v: f32| (k, Attr::Float(v));
    match op {
        Abs => (Opcode::Abs, vec![]),
        Neg => (Opcode::Neg, vec![]),
        Exp => (Opcode::Exp, vec![]),
        Log => (Opcode::Log, vec![]),
        Sqrt => (Opcode::Sqrt, vec![]),
        Reciprocal => (Opcode::Reciprocal, vec![]),
        Floor => (Opcode::Floor, vec![]),
        Ceil => (Opcode::Ceil, vec![]),
        Round => (Opcode::Round, vec![]),
        Sin => (Opcode::Sin, vec![]),
        Cos => (Opcode::Cos, vec![]),
        Tanh => (Opcode::Tanh, vec![]),
        Sigmoid => (Opcode::Sigmoid, vec![]),
        Relu => (Opcode::Relu, vec![]),
        Sign => (Opcode::Sign, vec![]),
        Softplus => (Opcode::Softplus, vec![]),
        Softsign => (Opcode::Softsign, vec![]),
        HardSwish => (Opcode::HardSwish, vec![]),
        Mish => (Opcode::Mish, vec![]),
        Atan => (Opcode::Atan, vec![]),
        Asinh => (Opcode::Asinh, vec![]),
        Elu { alpha } => (Opcode::Elu, vec![f("alpha", alpha)]),
        LeakyRelu { alpha } => (Opcode::LeakyRelu, vec![f("alpha", alpha)]),
        HardSigmoid { alpha, beta } => (Opcode::HardSigmoid, vec![f("alpha", alpha), f("beta", beta)]),
        Selu { alpha, gamma } => (Opcode::Selu, vec![f("alpha", alpha), f("gamma", gamma)]),
        Celu { alpha } => (Opcode::Celu, vec![f("alpha", alpha)]),
        Shrink { lambd, bias } => (Opcode::Shrink, vec![f("lambd", lambd), f("bias", bias)]),
        ThresholdedRelu { alpha } => (Opcode::ThresholdedRelu, vec![f("alpha", alpha)]),
        ScaledTanh { alpha, beta } => (Opcode::ScaledTanh, vec![f("alpha", alpha), f("beta", beta)]),
        other => panic!("no interpreter op listed for {other:?}"),
    }
}

/// Cast `src` (any type) to every kernel type; kernel vs interpreter.
fn cast_all(src: &Tensor) -> Result<(), TestCaseError> {
    macro_rules! from {
        ($($s:ty),*) => {
            match src.dtype() {
                $(<$s as El>::DT => to_all::<$s>(src),)*
                d => panic!("no source type {d:?}"),
            }
        };
    }
    from!(f32, f64, F16, BF16, i64, i32, i16, i8, u64, u32, u16, u8)
}

fn to_all<S: El>(src: &Tensor) -> Result<(), TestCaseError>
where
    f32: CastFrom<S>,
    f64: CastFrom<S>,
    F16: CastFrom<S>,
    BF16: CastFrom<S>,
    i64: CastFrom<S>,
    i32: CastFrom<S>,
    i16: CastFrom<S>,
    i8: CastFrom<S>,
    u64: CastFrom<S>,
    u32: CastFrom<S>,
    u16: CastFrom<S>,
    u8: CastFrom<S>,
{
    let x: Vec<S> = elems_of(src);
    fn one<S: El, D: El + CastFrom<S>>(src: &Tensor, x: &[S]) -> Result<(), TestCaseError> {
        let mut y = vec![D::default(); x.len()];
        cast(x, &mut y);
        same(&y, &cast_interp(src.clone(), D::DT))
    }
    one::<S, f32>(src, &x)?;
    one::<S, f64>(src, &x)?;
    one::<S, F16>(src, &x)?;
    one::<S, BF16>(src, &x)?;
    one::<S, i64>(src, &x)?;
    one::<S, i32>(src, &x)?;
    one::<S, i16>(src, &x)?;
    one::<S, i8>(src, &x)?;
    one::<S, u64>(src, &x)?;
    one::<S, u32>(src, &x)?;
    one::<S, u16>(src, &x)?;
    one::<S, u8>(src, &x)
}

fn reduce_code(k: edgec_kernels::reduce::Reduce) -> Opcode {
    use edgec_kernels::reduce::Reduce::*;
    match k {
        Sum => Opcode::ReduceSum,
        Mean => Opcode::ReduceMean,
        Max => Opcode::ReduceMax,
        Min => Opcode::ReduceMin,
        Prod => Opcode::ReduceProd,
        L1 => Opcode::ReduceL1,
        L2 => Opcode::ReduceL2,
        SumSquare => Opcode::ReduceSumSquare,
        LogSum => Opcode::ReduceLogSum,
        LogSumExp => Opcode::ReduceLogSumExp,
    }
}

proptest! {
    #![proptest_config(config())]

    /// f64 and F16 reductions accumulate in f64 like the interpreter (the
    /// summation order differs, hence the tolerance of a few f64 ulps, and
    /// of one F16 ulp where that lands on a rounding boundary).
    #[test]
    fn reduce_f64_and_f16(
        k in prop::sample::select(edgec_kernels::reduce::Reduce::ALL.to_vec()),
        (s, pick) in shape(1..=4, 5).prop_flat_map(|s| { let r = s.len(); (Just(s), prop::collection::vec(any::<bool>(), r)) }),
        seed in prop::collection::vec(finite(), 625),
    ) {
        use edgec_kernels::reduce::reduce;
        let axes: Vec<usize> = (0..s.len()).filter(|&i| pick[i]).collect();
        let n = numel(&s);
        let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
        let at = attrs(vec![("keepdims", Attr::Int(0)), ("noop_with_empty_axes", Attr::Int(1))]);
        let d: Vec<f64> = seed[..n].iter().map(|&x| x as f64 * 1.000_000_1).collect();
        let want = interp(reduce_code(k), vec![Some(tensor_of(&s, &d)), Some(ints(&ax))], at.clone(), 1).remove(0);
        let mut y = vec![0f64; want.len()];
        reduce(k, &s, &axes, &d, &mut y);
        let w: Vec<f64> = elems_of(&want);
        for (g, w) in y.iter().zip(&w) {
            prop_assert!((g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * w.abs() + 1e-300 || g == w, "{} vs {}", g, w);
        }
        let h: Vec<F16> = seed[..n].iter().map(|&x| F16::from_f32(x)).collect();
        let want = interp(reduce_code(k), vec![Some(tensor_of(&s, &h)), Some(ints(&ax))], at, 1).remove(0);
        let mut y = vec![F16::ZERO; want.len()];
        reduce(k, &s, &axes, &h, &mut y);
        let w: Vec<F16> = elems_of(&want);
        let (g, w): (Vec<f32>, Vec<f32>) = (y.iter().map(|x| x.to_f32()).collect(), w.iter().map(|x| x.to_f32()).collect());
        check_close(&g, &w, 1e-3, 0.0)?;
    }
}

fn bits_interp<T: El>(op: Bitwise, (sa, a): (&[usize], &[T]), (sb, b): (&[usize], &[T])) -> Tensor {
    let (code, at) = match op {
        Bitwise::And => (Opcode::BitwiseAnd, vec![]),
        Bitwise::Or => (Opcode::BitwiseOr, vec![]),
        Bitwise::Xor => (Opcode::BitwiseXor, vec![]),
        Bitwise::ShiftLeft => (Opcode::BitShift, vec![("direction", Attr::Str("LEFT".into()))]),
        Bitwise::ShiftRight => (Opcode::BitShift, vec![("direction", Attr::Str("RIGHT".into()))]),
    };
    interp(code, vec![Some(tensor_of(sa, a)), Some(tensor_of(sb, b))], attrs(at), 1).remove(0)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn bitwise_ops((sa, a, sb, b) in case(any::<u64>()), k in 0usize..5) {
        let op = [Bitwise::And, Bitwise::Or, Bitwise::Xor, Bitwise::ShiftLeft, Bitwise::ShiftRight][k];
        // Shift amounts around the widths.
        let b: Vec<u64> = if k >= 3 { b.iter().map(|x| x % 70).collect() } else { b };
        let want = bits_interp(op, (&sa, &a), (&sb, &b));
        let mut out = vec![0u64; want.len()];
        bitwise(op, &sa, &a, &sb, &b, &want.shape, &mut out);
        same(&out, &want)?;
        let (a8, b8): (Vec<u8>, Vec<u8>) = (a.iter().map(|&x| x as u8).collect(), b.iter().map(|&x| x as u8 % 12).collect());
        let want = bits_interp(op, (&sa, &a8), (&sb, &b8));
        let mut out = vec![0u8; want.len()];
        bitwise(op, &sa, &a8, &sb, &b8, &want.shape, &mut out);
        same(&out, &want)?;
        if k < 3 {
            let (ai, bi): (Vec<i16>, Vec<i16>) = (a.iter().map(|&x| x as i16).collect(), b.iter().map(|&x| x as i16).collect());
            let want = bits_interp(op, (&sa, &ai), (&sb, &bi));
            let mut out = vec![0i16; want.len()];
            bitwise(op, &sa, &ai, &sb, &bi, &want.shape, &mut out);
            same(&out, &want)?;
            let want = interp(Opcode::BitwiseNot, vec![Some(tensor_of(&sa, &ai))], attrs(vec![]), 1).remove(0);
            let mut out = vec![0i16; ai.len()];
            bitwise_not(&ai, &mut out);
            same(&out, &want)?;
        }
    }
}
