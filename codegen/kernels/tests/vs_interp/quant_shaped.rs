//! The kernels of ops over run-time shapes vs the interpreter:
//! `k::quant::shaped` (the scale layout of QuantizeLinear, MatMulInteger and
//! QLinearMatMul with numpy batching and 1-D operands, bit for bit, bad
//! shapes rejected where the interpreter rejects them), the checked
//! ReverseSequence, and a 16-bit MatMul computed in f32 in the interpreter's
//! order (`k::linalg::wide::matmul::<f32>` between exact casts, bit for bit).

use super::common::*;
use edgec_kernels::layout::reverse_sequence_checked;
use edgec_kernels::quant::shaped::{layout, matmul_integer, qlinear_matmul, QTensor};
use edgec_kernels::quant::{quantize, QLayout};
use edgec_kernels::F16;
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn u8t(shape: &[usize], v: &[u8]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::U8(v.to_vec()))
}

fn i8t(shape: &[usize], v: &[i8]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::I8(v.to_vec()))
}

/// Integer matmul operands: `[.., m, k]` and `[.., k, n]` with broadcast
/// batch dims, either of them possibly 1-D; then `(m, n)` after promotion.
fn mm_case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize, usize)> {
    (1usize..4, 1usize..5, 1usize..4, 0usize..3, 0usize..3, prop::collection::vec(1usize..3, 2), any::<[bool; 2]>())
        .prop_map(|(m, k, n, ra, rb, batch, ones)| {
            let mk = |r: usize, tail: [usize; 2], one: bool| -> Vec<usize> {
                let mut s: Vec<usize> = batch[2 - r.min(2)..].iter().map(|&d| if one { 1 } else { d }).collect();
                s.extend(tail);
                s
            };
            let a = if ra == 0 { vec![k] } else { mk(ra - 1, [m, k], ones[0]) };
            let b = if rb == 0 { vec![k] } else { mk(rb - 1, [k, n], ones[1]) };
            let (m, n) = (if ra == 0 { 1 } else { m }, if rb == 0 { 1 } else { n });
            (a, b, m, n)
        })
}

fn bytes(n: usize, seed: &[u8], off: usize) -> Vec<u8> {
    (0..n).map(|i| seed[(off + i * 7) % seed.len()]).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shaped_layout_quantizes_like_the_interpreter(
        (s, x) in tensor(shape(1..=3, 4), finite()), ax in 0usize..3, block in 0usize..3,
        per_tensor in any::<bool>(), wrong in any::<bool>(),
    ) {
        let ax = ax % s.len();
        let mut ss = match (per_tensor, block) {
            (true, _) => vec![1],
            (false, 0) => vec![s[ax]],
            (false, b) => s.iter().enumerate().map(|(d, &v)| if d == ax { v.div_ceil(b) } else { v }).collect(),
        };
        if wrong {
            ss[0] += 1;
        }
        let scale: Vec<f32> = (0..numel(&ss)).map(|i| 0.05 + 0.1 * i as f32).collect();
        let at = attrs(vec![("axis", Attr::Int(ax as i64)), ("block_size", Attr::Int(block as i64))]);
        let want = eval_op(Opcode::QuantizeLinear, &[Some(f32t(&s, &x)), Some(f32t(&ss, &scale))], at, 1);
        let got = layout("q", &s, &ss, None, ax as i64, block as i64);
        match (want, got) {
            (Ok(w), Ok(l)) => {
                let mut y = vec![0u8; x.len()];
                quantize(l, &x, &scale, None, &mut y);
                prop_assert_eq!(&w[0].data, &Data::U8(y));
            }
            (Err(_), Err(e)) => prop_assert!(e.0.starts_with("q: ")),
            (w, g) => prop_assert!(false, "interpreter {:?}, kernel {:?}", w.map(|_| ()), g),
        }
        prop_assert!(layout("q", &s, &ss, Some(&[numel(&ss) + 1]), ax as i64, block as i64).is_err());
        if per_tensor && !wrong {
            prop_assert_eq!(layout("q", &s, &ss, Some(&[1]), 5, 0), Ok(QLayout::Tensor));
        }
    }

    #[test]
    fn shaped_matmul_integer_matches((sa, sb, m, n) in mm_case(), zp in 0usize..3, signed in any::<bool>(),
                                      seed in prop::collection::vec(any::<u8>(), 64)) {
        let (a, b) = (bytes(numel(&sa), &seed, 0), bytes(numel(&sb), &seed, 5));
        // Zero points: absent, one value, or per row of A / per column of B.
        let (na, nb) = match zp { 0 => (0, 0), 1 => (1, 1), _ => (m, n) };
        let (za, zb) = (bytes(na, &seed, 11), bytes(nb, &seed, 17));
        let zt = |v: &[u8], sgn: bool| -> Option<Tensor> {
            (!v.is_empty()).then(|| if sgn { i8t(&[v.len()], &v.iter().map(|&x| x as i8).collect::<Vec<_>>()) } else { u8t(&[v.len()], v) })
        };
        let (ta, tb) = if signed {
            (i8t(&sa, &a.iter().map(|&x| x as i8).collect::<Vec<_>>()), i8t(&sb, &b.iter().map(|&x| x as i8).collect::<Vec<_>>()))
        } else {
            (u8t(&sa, &a), u8t(&sb, &b))
        };
        let want = interp(Opcode::MatMulInteger, vec![Some(ta), Some(tb), zt(&za, signed), zt(&zb, signed)], attrs(vec![]), 1);
        let mut y = vec![7i32; want[0].len()];
        if signed {
            let c = |v: &[u8]| v.iter().map(|&x| x as i8).collect::<Vec<_>>();
            let (a, b, za, zb) = (c(&a), c(&b), c(&za), c(&zb));
            let qa = QTensor { shape: &sa, data: &a, zero: &za, scale: &[] };
            let qb = QTensor { shape: &sb, data: &b, zero: &zb, scale: &[] };
            matmul_integer("mm", qa, qb, &mut y).expect("shapes fit");
        } else {
            let qa = QTensor { shape: &sa, data: &a, zero: &za, scale: &[] };
            let qb = QTensor { shape: &sb, data: &b, zero: &zb, scale: &[] };
            matmul_integer("mm", qa, qb, &mut y).expect("shapes fit");
        }
        prop_assert_eq!(&want[0].data, &Data::I32(y.clone()));
        // A B whose inner dim differs, or a zero point of another length, is an error.
        let bad: Vec<usize> = sb.iter().enumerate().map(|(i, &d)| if i + 2 == sb.len().max(2) || sb.len() == 1 { d + 1 } else { d }).collect();
        let b2 = vec![0u8; numel(&bad)];
        let qa = QTensor { shape: &sa, data: &a, zero: &[], scale: &[] };
        let short = QTensor { shape: &bad, data: &b2, zero: &[], scale: &[] };
        prop_assert!(matmul_integer("mm", qa, short, &mut y).is_err());
        let z3 = vec![0u8; n + 2];
        let odd_zero = QTensor { shape: &sb, data: &b, zero: &z3, scale: &[] };
        prop_assert!(matmul_integer("mm", qa, odd_zero, &mut y).is_err());
    }

    #[test]
    fn shaped_qlinear_matmul_matches((sa, sb, m, n) in mm_case(), per in any::<bool>(), seed in prop::collection::vec(any::<u8>(), 64)) {
        let (a, b) = (bytes(numel(&sa), &seed, 0), bytes(numel(&sb), &seed, 5));
        let (na, nb) = if per { (m, n) } else { (1, 1) };
        let (za, zb, zy) = (bytes(na, &seed, 11), bytes(nb, &seed, 17), bytes(1, &seed, 23));
        let sa_: Vec<f32> = (0..na).map(|i| 0.01 + 0.003 * i as f32).collect();
        let sb_: Vec<f32> = (0..nb).map(|i| 0.02 + 0.001 * i as f32).collect();
        let sy = vec![0.05f32];
        let want = interp(Opcode::QLinearMatMul, vec![
            Some(u8t(&sa, &a)), Some(f32t(&[na], &sa_)), Some(u8t(&[na], &za)),
            Some(u8t(&sb, &b)), Some(f32t(&[nb], &sb_)), Some(u8t(&[nb], &zb)),
            Some(f32t(&[1], &sy)), Some(u8t(&[1], &zy))], attrs(vec![]), 1);
        let mut y = vec![0u8; want[0].len()];
        let qa = QTensor { shape: &sa, data: &a, zero: &za, scale: &sa_ };
        let qb = QTensor { shape: &sb, data: &b, zero: &zb, scale: &sb_ };
        qlinear_matmul("qmm", qa, qb, (&sy, &zy), &mut y).expect("shapes fit");
        prop_assert_eq!(&want[0].data, &Data::U8(y.clone()));
        let two = vec![0u8; 2];
        prop_assert_eq!(qlinear_matmul("qmm", qa, qb, (&sy, &two), &mut y).is_err(), n != 2);
    }

    #[test]
    fn checked_reverse_sequence_matches(s in prop::collection::vec(1usize..5, 2..4), swap in any::<bool>(),
                                        lens in prop::collection::vec(0i64..6, 5), x in prop::collection::vec(-5f32..5.0, 64)) {
        let (b, t) = if swap { (0, 1) } else { (1, 0) };
        let lens = &lens[..s[b]];
        let x = &x[..numel(&s)];
        let at = attrs(vec![("batch_axis", Attr::Int(b as i64)), ("time_axis", Attr::Int(t as i64))]);
        let want = eval_op(Opcode::ReverseSequence, &[Some(f32t(&s, x)), Some(i64t(&[s[b]], lens))], at, 1);
        let mut y = vec![0f32; x.len()];
        match (want, reverse_sequence_checked("rs", &s, (b, t), lens, x, &mut y)) {
            (Ok(w), Ok(())) => prop_assert_eq!(as_f32(&w[0]), y.clone()),
            (Err(_), Err(e)) => prop_assert!(e.0.starts_with("rs: ")),
            (w, g) => prop_assert!(false, "interpreter {:?}, kernel {:?}", w.map(|_| ()), g),
        }
        prop_assert!(reverse_sequence_checked("rs", &s, (b, t), &lens[1..], x, &mut y).is_err());
    }

    #[test]
    fn half_matmul_in_f32_order_matches((sa, sb, _, _) in mm_case(), seed in prop::collection::vec(-4f32..4.0, 64), big in 1usize..40) {
        // Longer rows make a different summation order visible in f16.
        let (sa, sb) = (stretch(&sa, big, true), stretch(&sb, big, false));
        let h = |n: usize, off: usize| -> Vec<F16> { (0..n).map(|i| F16::from_f32(seed[(off + i * 5) % 64] * 0.37)).collect() };
        let (a, b) = (h(numel(&sa), 0), h(numel(&sb), 3));
        let ht = |s: &[usize], v: &[F16]| Tensor::new(s.to_vec(), Data::F16(v.iter().map(|x| half::f16::from_bits(x.to_bits())).collect()));
        let want = interp(Opcode::MatMul, vec![Some(ht(&sa, &a)), Some(ht(&sb, &b))], attrs(vec![]), 1);
        let wide = |v: &[F16]| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
        let mut y = vec![0f32; want[0].len()];
        edgec_kernels::linalg::wide::matmul(&sa, &wide(&a), &sb, &wide(&b), &mut y);
        let got: Vec<u16> = y.iter().map(|&v| F16::from_f32(v).to_bits()).collect();
        let Data::F16(w) = &want[0].data else { panic!("f16 result expected") };
        prop_assert_eq!(got, w.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}

/// `s` with its inner (summed) dim multiplied by `f`.
fn stretch(s: &[usize], f: usize, is_a: bool) -> Vec<usize> {
    let mut s = s.to_vec();
    let i = if is_a || s.len() == 1 { s.len() - 1 } else { s.len() - 2 };
    s[i] *= f;
    s
}
