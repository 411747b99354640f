//! Cross-family property tests: elementwise arithmetic, Where, Cast and QuantizeLinear kernels
//! against naive, independently written formulas.

use crate::common::elementwise::*;
use proptest::prelude::*;

/// The layouts B can have against an `[r, c]` A: `[c]`, `[r, 1]`, `[]`, `[r, c]`.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Row,
    Col,
    Scalar,
    Full,
}

impl Layout {
    fn shape(self, r: usize, c: usize) -> Vec<usize> {
        match self {
            Layout::Row => vec![c],
            Layout::Col => vec![r, 1],
            Layout::Scalar => vec![],
            Layout::Full => vec![r, c],
        }
    }
    /// Index into B for output element `(i, j)`.
    fn index(self, i: usize, j: usize, c: usize) -> usize {
        match self {
            Layout::Row => j,
            Layout::Col => i,
            Layout::Scalar => 0,
            Layout::Full => i * c + j,
        }
    }
}

/// A generated binary case: rows, cols, B's layout, A's and B's elements.
type Case<T> = (usize, usize, Layout, Vec<T>, Vec<T>);

/// An op and the Rust function it should agree with.
type BinOp<T> = (Opcode, fn(T, T) -> T);

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![Just(Layout::Row), Just(Layout::Col), Just(Layout::Scalar), Just(Layout::Full)]
}

/// `(rows, cols, layout, a, b)` with `b` sized for the layout.
fn case<T: std::fmt::Debug + Clone>(elem: impl Strategy<Value = T> + Clone) -> impl Strategy<Value = Case<T>> {
    (1usize..4, 1usize..4, layout()).prop_flat_map(move |(r, c, l)| {
        let nb = l.shape(r, c).iter().product::<usize>();
        (Just(r), Just(c), Just(l), prop::collection::vec(elem.clone(), r * c), prop::collection::vec(elem.clone(), nb))
    })
}

/// Naive broadcasting application of `f`.
fn naive<T: Copy, U>(r: usize, c: usize, l: Layout, a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).map(|(i, j)| f(a[i * c + j], b[l.index(i, j, c)])).collect()
}

fn py_mod(a: i32, b: i32) -> i32 {
    let r = a.wrapping_rem(b);
    if r != 0 && (r < 0) != (b < 0) {
        r.wrapping_add(b)
    } else {
        r
    }
}

proptest! {
    #[test]
    fn i32_arithmetic_wraps_like_rust((r, c, l, a, b) in case(any::<i32>())) {
        let (ta, tb) = (i32t(&[r, c], &a), t(&l.shape(r, c), Data::I32(b.clone())));
        let ops: [BinOp<i32>; 3] =
            [(Opcode::Add, i32::wrapping_add), (Opcode::Sub, i32::wrapping_sub), (Opcode::Mul, i32::wrapping_mul)];
        for (op, f) in ops {
            let got = run(op, &[ta.clone(), tb.clone()]);
            prop_assert_eq!(got.shape.clone(), vec![r, c]);
            prop_assert_eq!(got.data, Data::I32(naive(r, c, l, &a, &b, f)));
        }
        if b.iter().all(|&v| v != 0) {
            let div = run(Opcode::Div, &[ta.clone(), tb.clone()]);
            prop_assert_eq!(div.data, Data::I32(naive(r, c, l, &a, &b, i32::wrapping_div)));
            let m = run(Opcode::Mod, &[ta.clone(), tb.clone()]);
            prop_assert_eq!(m.data, Data::I32(naive(r, c, l, &a, &b, py_mod)));
            let fm = ok(Opcode::Mod, &[ta, tb], attrs(&[("fmod", Attr::Int(1))]));
            prop_assert_eq!(fm.data, Data::I32(naive(r, c, l, &a, &b, i32::wrapping_rem)));
        }
    }

    #[test]
    fn f32_arithmetic_is_correctly_rounded((r, c, l, a, b) in case(-1e6f32..1e6)) {
        let (ta, tb) = (f32t(&[r, c], &a), t(&l.shape(r, c), Data::F32(b.clone())));
        let ops: [BinOp<f32>; 4] =
            [(Opcode::Add, |x, y| x + y), (Opcode::Sub, |x, y| x - y), (Opcode::Mul, |x, y| x * y), (Opcode::Div, |x, y| x / y)];
        for (op, f) in ops {
            let want = naive(r, c, l, &a, &b, f);
            let got = f32s(&run(op, &[ta.clone(), tb.clone()]));
            prop_assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())));
        }
        let fm = f32s(&ok(Opcode::Mod, &[ta.clone(), tb.clone()], attrs(&[("fmod", Attr::Int(1))])));
        let want = naive(r, c, l, &a, &b, |x, y| x % y);
        prop_assert!(fm.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())));
        let lt = run(Opcode::Less, &[ta.clone(), tb.clone()]);
        prop_assert_eq!(lt.data, Data::Bool(naive(r, c, l, &a, &b, |x, y| x < y)));
        let mx = f32s(&run(Opcode::Max, &[ta, tb]));
        prop_assert_eq!(mx, naive(r, c, l, &a, &b, f32::max));
    }

    #[test]
    fn f16_add_matches_exact_sum_rounded((r, c, l, a, b) in case(-60000f32..60000.0)) {
        let h = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
        let (ha, hb) = (h(&a), h(&b));
        let ta = t(&[r, c], Data::F16(ha.clone()));
        let tb = t(&l.shape(r, c), Data::F16(hb.clone()));
        // Two f16 values sum exactly in f32 only if their exponents are close; in f64 always.
        // An exact f64 sum whose f32 rounding is exact can be rounded by half's f32 path.
        let want: Vec<Option<f16>> = naive(r, c, l, &ha, &hb, |x, y| {
            let s = x.to_f64() + y.to_f64();
            (s as f32 as f64 == s).then(|| f16::from_f32(s as f32))
        });
        let Data::F16(got) = run(Opcode::Add, &[ta, tb]).data else { panic!() };
        for (g, w) in got.iter().zip(&want) {
            if let Some(w) = w {
                prop_assert_eq!(g.to_bits(), w.to_bits());
            }
        }
    }

    #[test]
    fn where_picks_like_naive((r, c, l, x, y) in case(any::<i64>()), cond in prop::collection::vec(any::<bool>(), 9)) {
        let cond = &cond[..r * c];
        let w = run(Opcode::Where, &[t(&[r, c], Data::Bool(cond.to_vec())), i64t(&[r, c], &x), t(&l.shape(r, c), Data::I64(y.clone()))]);
        let want: Vec<i64> = (0..r * c).map(|k| if cond[k] { x[k] } else { y[l.index(k / c, k % c, c)] }).collect();
        prop_assert_eq!(w.data, Data::I64(want));
    }

    #[test]
    fn integer_casts_match_rust_as(v in prop::collection::vec(any::<i64>(), 1..8)) {
        let x = i64t(&[v.len()], &v);
        let i8s = cast_to(&x, DType::I8);
        prop_assert_eq!(i8s, Data::I8(v.iter().map(|&e| e as i8).collect()));
        let u16s = cast_to(&x, DType::U16);
        prop_assert_eq!(u16s, Data::U16(v.iter().map(|&e| e as u16).collect()));
        let f32s_ = cast_to(&x, DType::F32);
        prop_assert_eq!(f32s_, Data::F32(v.iter().map(|&e| e as f32).collect()));
        let f64s = cast_to(&x, DType::F64);
        prop_assert_eq!(f64s, Data::F64(v.iter().map(|&e| e as f64).collect()));
    }

    #[test]
    fn float_casts_match_half_and_rust(v in prop::collection::vec(any::<f32>(), 1..8)) {
        let x = f32t(&[v.len()], &v);
        let Data::F16(h) = cast_to(&x, DType::F16) else { panic!() };
        let want: Vec<f16> = v.iter().map(|&e| f16::from_f32(e)).collect();
        prop_assert!(h.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())));
        let Data::BF16(b) = cast_to(&x, DType::BF16) else { panic!() };
        let want: Vec<bf16> = v.iter().map(|&e| bf16::from_f32(e)).collect();
        prop_assert!(b.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())));
        prop_assert_eq!(cast_to(&x, DType::I32), Data::I32(v.iter().map(|&e| e as i32).collect()));
        // Printing and parsing round-trips every finite value.
        let s = t(&[v.len()], cast_to(&x, DType::String));
        let back = cast_to(&s, DType::F32);
        let Data::F32(back) = back else { panic!() };
        prop_assert!(back.iter().zip(&v).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())));
    }

    #[test]
    fn quantize_per_tensor_matches_formula(v in prop::collection::vec(-1000f32..1000.0, 1..10), s in 0.01f32..10.0, z in any::<u8>()) {
        let x = f32t(&[v.len()], &v);
        let ins = [Some(x), Some(f32t(&[], &[s])), Some(t(&[], Data::U8(vec![z])))];
        let y = evaln(Opcode::QuantizeLinear, &ins, Attrs::new(), 1).unwrap().remove(0);
        let want: Vec<u8> = v.iter().map(|&e| ((e / s).round_ties_even() + z as f32).clamp(0.0, 255.0) as u8).collect();
        prop_assert_eq!(y.data.clone(), Data::U8(want));
        let ins = [Some(y), Some(f32t(&[], &[s])), Some(t(&[], Data::U8(vec![z])))];
        let d = evaln(Opcode::DequantizeLinear, &ins, Attrs::new(), 1).unwrap().remove(0);
        let Data::U8(q) = &ins[0].as_ref().unwrap().data else { panic!() };
        prop_assert_eq!(f32s(&d), q.iter().map(|&e| (e as f32 - z as f32) * s).collect::<Vec<_>>());
    }
}

fn cast_to(x: &Tensor, to: DType) -> Data {
    ok(Opcode::Cast, std::slice::from_ref(x), attrs(&[("to", Attr::Type(to))])).data
}
