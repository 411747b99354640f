//! The f64 kernels (`k::linalg::wide`, `k::norm::wide`, `k::attention::flex`) vs the interpreter's f64 paths: MatMul with
//! 1-D promotion and batch broadcasting, Softmax/LogSoftmax along any axis
//! and FlexAttention (same summation order: equal within an f64 rounding).

use super::common::*;
use edgec_kernels::attention::flex::{flex_attention, Flex};
use edgec_kernels::linalg::wide::matmul;
use edgec_kernels::norm::wide::softmax;
use ir::interp::{Data, Tensor};
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn t64(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::F64(v.to_vec()))
}

fn f64s(t: &Tensor) -> Vec<f64> {
    match &t.data {
        Data::F64(v) => v.clone(),
        d => panic!("expected f64 data, got {:?}", d.dtype()),
    }
}

fn close(got: &[f64], want: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        prop_assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "got {} want {}", g, w);
    }
    Ok(())
}

/// MatMul operand shapes: 1-D or batched with broadcastable batch dims.
fn mm_shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (
        1usize..4,
        1usize..4,
        1usize..4,
        0usize..3,
        0usize..3,
        prop::collection::vec(1usize..3, 2),
        prop::collection::vec(any::<bool>(), 2),
    )
        .prop_map(|(m, k, n, ra, rb, batch, ones)| {
            let mk = |r: usize, tail: [usize; 2], one: bool| -> Vec<usize> {
                if r == 0 {
                    return vec![tail[if one { 1 } else { 0 }]];
                }
                let mut s: Vec<usize> = batch[2 - r.min(2)..].iter().map(|&d| if one { 1 } else { d }).collect();
                s.extend(tail);
                s
            };
            let a = if ra == 0 { vec![k] } else { mk(ra, [m, k], ones[0]) };
            let b = if rb == 0 { vec![k] } else { mk(rb, [k, n], ones[1]) };
            (a, b)
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn f64_matmul_matches((sa, sb) in mm_shapes(), seed in prop::collection::vec(-3.0f64..3.0, 200)) {
        let (a, b) = (&seed[..numel(&sa)], &seed[100..100 + numel(&sb)]);
        let out = interp(Opcode::MatMul, vec![Some(t64(&sa, a)), Some(t64(&sb, b))], attrs(vec![]), 1).remove(0);
        let want = f64s(&out);
        let mut y = vec![0.0; want.len()];
        matmul(&sa, a, &sb, b, &mut y);
        close(&y, &want)?;
    }

    #[test]
    fn f64_softmax_matches((s, x) in tensor(shape(1..=3, 4), special()), ax in 0usize..3, log in any::<bool>()) {
        let ax = ax % s.len();
        let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let op = if log { Opcode::LogSoftmax } else { Opcode::Softmax };
        let want = f64s(&interp(op, vec![Some(t64(&s, &x))], attrs(vec![("axis", Attr::Int(ax as i64))]), 1)[0]);
        let mut y = vec![0.0; x.len()];
        softmax(numel(&s[..ax]), s[ax], numel(&s[ax + 1..]), log, &x, &mut y);
        for (g, w) in y.iter().zip(&want) {
            prop_assert!((g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-12 * (1.0 + w.abs()), "got {} want {}", g, w);
        }
    }

    #[test]
    fn f64_flex_attention_matches(b in 1usize..3, hkv in 1usize..3, group in 1usize..3, l in 1usize..4, s in 1usize..5, e in 1usize..5, ev in 1usize..4,
                                  scale in prop::option::of(0.1f32..2.0), seed in prop::collection::vec(-2.0f64..2.0, 3 * 2 * 4 * 4 * 5)) {
        let hq = hkv * group;
        let (qs, ks, vs) = ([b, hq, l, e], [b, hkv, s, e], [b, hkv, s, ev]);
        let (q, k, v) = (&seed[..numel(&qs)], &seed[200..200 + numel(&ks)], &seed[400..400 + numel(&vs)]);
        let at = attrs(scale.map(|s| vec![("scale", Attr::Float(s))]).unwrap_or_default());
        let want = f64s(&interp(Opcode::FlexAttention, vec![Some(t64(&qs, q)), Some(t64(&ks, k)), Some(t64(&vs, v))], at, 1)[0]);
        let p = Flex { b, hq, l, e, hkv, s, ev, scale: scale.unwrap_or((1.0 / (e as f64).sqrt()) as f32) };
        let mut row = vec![0.0; s];
        let mut y = vec![0.0; want.len()];
        flex_attention(&p, q, k, v, &mut row, &mut y);
        close(&y, &want)?;
    }
}
