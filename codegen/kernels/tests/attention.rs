//! Attention kernels against the reference interpreter (`core.attention`,
//! `core.attention_blocked`), for every GEMM family this CPU runs, and
//! CausalConvWithState (bias, past state, SiLU, present state), bit for bit.
//! The ONNX-level attention ops (Attention, FlexAttention, LinearAttention,
//! RotaryEmbedding) are tested in the `onnx` submodule.

mod common;

use common::*;
use edgec_kernels::attention::{self, causal_conv, Mask};
use edgec_kernels::gemm;
use ir::interp::{eval_op, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

#[path = "attention/onnx.rs"]
mod onnx;

/// The test's mask: none, bool or float, with its shape.
#[derive(Clone, Debug)]
enum TestMask {
    None,
    Bool(Vec<bool>, Vec<usize>),
    Float(Vec<f32>, Vec<usize>),
}

impl TestMask {
    fn kernel(&self) -> Mask<'_> {
        match self {
            TestMask::None => Mask::None,
            TestMask::Bool(v, s) => Mask::Bool(v, s),
            TestMask::Float(v, s) => Mask::Float(v, s),
        }
    }
    fn tensor(&self) -> Option<Tensor> {
        match self {
            TestMask::None => None,
            TestMask::Bool(v, s) => tb(s, v.clone()),
            TestMask::Float(v, s) => t(s, v.clone()),
        }
    }
}

/// A right-aligned suffix of `full` of rank `r`, the dims whose `mask` bit is set replaced by 1.
fn pick(full: &[usize], r: usize, mask: u8) -> Vec<usize> {
    let r = r.min(full.len());
    full[full.len() - r..].iter().enumerate().map(|(i, &d)| if mask >> i & 1 == 1 { 1 } else { d }).collect()
}

#[derive(Clone, Debug)]
struct Case {
    q: Vec<usize>,
    k: Vec<usize>,
    v: Vec<usize>,
    mask: TestMask,
    scale: f32,
    causal: bool,
    window: Option<usize>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            prop::collection::vec(1usize..=3, 0..=2),
            [0usize..=2, 0usize..=2, 0usize..=2],
            [any::<u8>(), any::<u8>(), any::<u8>()],
        ),
        (1usize..=12, 0usize..=12, 1usize..=8, 1usize..=8),
        (0u8..3, 0usize..=4, any::<u8>(), prop_oneof![Just(0.125f32), Just(0.5), Just(1.0)]),
        (any::<bool>(), prop::option::of(0usize..=4), any::<u64>()),
    )
        .prop_map(|((full, r, bits), (sq, sk, d, dv), (mk, mr, mbits, scale), (causal, window, seed))| {
            let (qb, kb, vb) = (pick(&full, r[0], bits[0]), pick(&full, r[1], bits[1]), pick(&full, r[2], bits[2]));
            let sb: Vec<usize> = full[full.len() - qb.len().max(kb.len())..]
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    let off = full.len() - qb.len().max(kb.len()) + i;
                    let has = |b: &[usize]| off >= full.len() - b.len() && b[off - (full.len() - b.len())] != 1;
                    if has(&qb) || has(&kb) {
                        d
                    } else {
                        1
                    }
                })
                .collect();
            let score: Vec<usize> = sb.into_iter().chain([sq, sk]).collect();
            let ms = pick(&score, mr, mbits);
            let n = ms.iter().product::<usize>();
            let mask = match mk {
                0 => TestMask::None,
                1 => TestMask::Bool(values(n, seed + 9).iter().map(|&x| x > -1.5).collect(), ms),
                _ => TestMask::Float(values(n, seed + 9), ms),
            };
            let cat = |b: Vec<usize>, x: [usize; 2]| b.into_iter().chain(x).collect::<Vec<_>>();
            Case { q: cat(qb, [sq, d]), k: cat(kb, [sk, d]), v: cat(vb, [sk, dv]), mask, scale, causal, window, seed }
        })
}

/// The interpreter's result for `c` (blocked form if `blocks`).
fn attention_oracle(c: &Case, data: &[Vec<f32>; 3], blocks: Option<(usize, usize)>) -> (Vec<usize>, Vec<f32>) {
    let mut attrs = Attrs::new().with("scale", Attr::Float(c.scale)).with("causal", Attr::Int(c.causal as i64));
    if let Some(w) = c.window {
        attrs.set("window", Attr::Int(w as i64));
    }
    let op = match blocks {
        Some((bq, bk)) => {
            attrs.set("block_q", Attr::Int(bq as i64));
            attrs.set("block_k", Attr::Int(bk as i64));
            Opcode::CoreAttentionBlocked
        }
        None => Opcode::CoreAttention,
    };
    let ins = [t(&c.q, data[0].clone()), t(&c.k, data[1].clone()), t(&c.v, data[2].clone()), c.mask.tensor()];
    oracle(op, &ins, attrs)
}

fn operands(c: &Case) -> [Vec<f32>; 3] {
    let n = |s: &[usize]| s.iter().product::<usize>();
    [values(n(&c.q), c.seed), values(n(&c.k), c.seed + 1), values(n(&c.v), c.seed + 2)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn attention_matches_core_attention(c in case()) {
        prop_assume!(c.k[c.k.len() - 2] > 0, "the unfused chain is not defined for Sk = 0");
        let data = operands(&c);
        let (shape, want) = attention_oracle(&c, &data, None);
        for isa in isas() {
            let got = gemm::with_isa(isa, || {
                let mut out = vec![f32::NAN; want.len()];
                let mut scratch = vec![f32::NAN; attention::attention_scratch_len(&c.q, &c.k, &c.v)];
                attention::attention(&c.q, &data[0], &c.k, &data[1], &c.v, &data[2], c.mask.kernel(), c.scale,
                    c.causal, c.window, &mut out, &mut scratch);
                out
            });
            assert_close(&got, &want, &format!("{c:?} -> {shape:?} [{isa:?}]"));
        }
    }

    #[test]
    fn attention_blocked_matches_core_attention_blocked(c in case(), bq in 1usize..=5, bk in 1usize..=5) {
        let data = operands(&c);
        let (shape, want) = attention_oracle(&c, &data, Some((bq, bk)));
        for isa in isas() {
            let got = gemm::with_isa(isa, || {
                let mut out = vec![f32::NAN; want.len()];
                let len = attention::attention_blocked_scratch_len(&c.q, &c.k, &c.v, bq, bk);
                let mut scratch = vec![f32::NAN; len];
                attention::attention_blocked(&c.q, &data[0], &c.k, &data[1], &c.v, &data[2], c.mask.kernel(), c.scale,
                    c.causal, c.window, bq, bk, &mut out, &mut scratch);
                out
            });
            assert_close(&got, &want, &format!("{c:?} blocks {bq}x{bk} -> {shape:?} [{isa:?}]"));
        }
    }
}

/// Longer sequences with blocks that do not divide them, against the unblocked kernel.
#[test]
fn blocked_equals_unblocked_on_long_sequences() {
    let (q, k, v) = ([2, 70, 16], [2, 90, 16], [2, 90, 24]);
    let c = Case {
        q: q.to_vec(),
        k: k.to_vec(),
        v: v.to_vec(),
        mask: TestMask::None,
        scale: 0.25,
        causal: true,
        window: Some(20),
        seed: 5,
    };
    let data = operands(&c);
    let (_, want) = attention_oracle(&c, &data, None);
    let mut out = vec![0.0; want.len()];
    let mut scratch = vec![0.0; attention::attention_blocked_scratch_len(&q, &k, &v, 16, 12)];
    attention::attention_blocked(
        &q,
        &data[0],
        &k,
        &data[1],
        &v,
        &data[2],
        Mask::None,
        0.25,
        true,
        Some(20),
        16,
        12,
        &mut out,
        &mut scratch,
    );
    assert_close(&out, &want, "blocked vs core.attention");
}

/// `n` deterministic values from `seed` (the shared dyadic generator).
fn vals(n: usize, seed: u64) -> Vec<f32> {
    common::values(n, seed)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn causal_conv_matches_the_interpreter(
        (b, c, l, k) in (1usize..3, 1usize..4, 1usize..7, 1usize..5),
        bias in any::<bool>(), past in any::<bool>(), silu in any::<bool>(), seed in any::<u64>()
    ) {
        let (x, w) = (vals(b * c * l, seed), vals(c * k, seed ^ 1));
        let bv = bias.then(|| vals(c, seed ^ 2));
        let pv = past.then(|| vals(b * c * (k - 1), seed ^ 3));
        let mut attrs = Attrs::default();
        attrs.set("activation", Attr::Str(if silu { "silu" } else { "none" }.into()));
        let inputs = [t(&[b, c, l], x.clone()), t(&[c, 1, k], w.clone()), bv.clone().and_then(|v| t(&[c], v)), pv.clone().and_then(|v| t(&[b, c, k - 1], v))];
        let want = eval_op(Opcode::CausalConvWithState, &inputs, attrs, 2).expect("interpreter");
        let mut out = vec![0.0; b * c * l];
        causal_conv::causal_conv((b, c, l, k), &x, &w, bv.as_deref(), pv.as_deref(), silu, &mut out);
        prop_assert_eq!(out, f32s(&want[0]));
        let mut st = vec![0.0; b * c * (k - 1)];
        causal_conv::causal_conv_state((b, c, l, k), &x, pv.as_deref(), &mut st);
        prop_assert_eq!(st, f32s(&want[1]));
    }
}
