//! `onnx.Attention` (and `onnx.FlexAttention` through it), `onnx.LinearAttention`
//! and `onnx.RotaryEmbedding` against the reference interpreter.

use super::common::*;
use edgec_kernels::attention::rotary::{rotary_embedding, Rotary};
use edgec_kernels::attention::{
    linear_attention, linear_attention_scratch_len, onnx_attention, onnx_attention_scratch_len, LinearAttention,
    LinearAttentionExtras, Mask, OnnxAttention, OnnxAttentionInputs,
};
use edgec_kernels::gemm;
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// One Attention case: the kernel parameters plus the test-only choices.
#[derive(Clone, Debug)]
struct Case {
    p: OnnxAttention,
    /// Mask kind (0 none, 1 bool, 2 float), rank, which broadcast dims are 1, last dim.
    mask: (u8, usize, u8, usize),
    /// An explicit `scale` attribute (else the default `1 / sqrt(D)`).
    scale: Option<f32>,
    qk_mode: i64,
    with_past: bool,
    nonpad: Option<Vec<i64>>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..=2, 1usize..=3, 1usize..=3, 1usize..=4, 0usize..=4, 0usize..=3, 1usize..=6, 1usize..=6),
        (any::<bool>(), any::<bool>(), prop_oneof![Just(0.0f32), Just(1.5)], prop::option::of(Just(0.3f32))),
        (0u8..3, 1usize..=4, any::<u8>(), any::<u8>(), 0i64..=3, any::<bool>()),
        (prop::option::of(prop::collection::vec(0i64..=7, 2)), 1usize..=5, any::<u64>()),
    )
        .prop_map(
            |((b, hkv, g, sq, skv, past, d, dv), (three_d, causal, softcap, scale), m, (np, block_q, seed))| {
                let (kind, rank, ones, last, mode, want_qk) = m;
                let with_past = past > 0 || seed % 3 == 0;
                let t = past + skv;
                let p = OnnxAttention {
                    batch: b,
                    q_heads: hkv * g,
                    kv_heads: hkv,
                    q_seq: sq,
                    kv_seq: skv,
                    past: if with_past { past } else { 0 },
                    head: d,
                    v_head: dv,
                    three_d,
                    scale: scale.unwrap_or(1.0 / (d as f32).sqrt()),
                    softcap,
                    causal,
                    qk_mode: want_qk.then_some(mode as u8),
                    block_q,
                };
                let t = if with_past { t } else { skv };
                let mask_last = if t == 0 { 0 } else { last as usize % t + 1 };
                let nonpad = np.map(|v| v[..b].to_vec());
                Case { p, mask: (kind, rank, ones, mask_last), scale, qk_mode: mode, with_past, nonpad, seed }
            },
        )
}

/// The mask of the case as a tensor and its shape: `[B, Hq, Sq, last]`'s
/// trailing `rank` dims, those whose bit is set in `ones` replaced by 1.
fn mask_of(c: &Case) -> Option<(Vec<usize>, Data)> {
    let (kind, rank, ones, last) = c.mask;
    if kind == 0 {
        return None;
    }
    let full = [c.p.batch, c.p.q_heads, c.p.q_seq, last];
    let shape: Vec<usize> = (4 - rank..4).map(|a| if a < 3 && ones >> a & 1 == 1 { 1 } else { full[a] }).collect();
    let vals = values(shape.iter().product(), c.seed + 7);
    let data = if kind == 1 { Data::Bool(vals.iter().map(|&x| x > -1.5).collect()) } else { Data::F32(vals) };
    Some((shape, data))
}

/// Operand shapes of Q, K, V, past_key, past_value.
fn shapes(p: &OnnxAttention) -> [Vec<usize>; 5] {
    let (b, hq, hk, sq, s) = (p.batch, p.q_heads, p.kv_heads, p.q_seq, p.kv_seq);
    let (q, k, v) = if p.three_d {
        (vec![b, sq, hq * p.head], vec![b, s, hk * p.head], vec![b, s, hk * p.v_head])
    } else {
        (vec![b, hq, sq, p.head], vec![b, hk, s, p.head], vec![b, hk, s, p.v_head])
    };
    [q, k, v, vec![b, hk, p.past, p.head], vec![b, hk, p.past, p.v_head]]
}

/// The interpreter's four results (Y, present_key, present_value, qk_matmul_output).
fn attention_oracle(c: &Case, data: &[Vec<f32>; 5]) -> Vec<Vec<f32>> {
    let p = &c.p;
    let sh = shapes(p);
    let mut attrs = Attrs::new()
        .with("is_causal", Attr::Int(p.causal as i64))
        .with("softcap", Attr::Float(p.softcap))
        .with("qk_matmul_output_mode", Attr::Int(c.qk_mode));
    if p.three_d {
        attrs.set("q_num_heads", Attr::Int(p.q_heads as i64));
        attrs.set("kv_num_heads", Attr::Int(p.kv_heads as i64));
    }
    if let Some(s) = c.scale {
        attrs.set("scale", Attr::Float(s));
    }
    let tensor = |i: usize| Some(Tensor::new(sh[i].clone(), Data::F32(data[i].clone())));
    let mask = mask_of(c).map(|(s, d)| Tensor::new(s, d));
    let past = |i: usize| if c.with_past { tensor(i) } else { None };
    let nonpad = c.nonpad.as_ref().map(|v| Tensor::new(vec![v.len()], Data::I64(v.clone())));
    let ins = [tensor(0), tensor(1), tensor(2), mask, past(3), past(4), nonpad];
    let out = eval_op(Opcode::Attention, &ins, attrs, 4).unwrap_or_else(|e| panic!("interpreter rejected {c:?}: {e}"));
    out.iter().map(f32s).collect()
}

/// The kernel's four results (the last empty unless requested).
fn attention_kernel(c: &Case, data: &[Vec<f32>; 5]) -> Vec<Vec<f32>> {
    let p = &c.p;
    let m = mask_of(c);
    let mask = match &m {
        None => Mask::None,
        Some((s, Data::Bool(v))) => Mask::Bool(v, s),
        Some((s, Data::F32(v))) => Mask::Float(v, s),
        Some(_) => unreachable!("masks are bool or f32"),
    };
    let past = |i: usize| c.with_past.then_some(&data[i][..]);
    let ins = OnnxAttentionInputs {
        q: &data[0],
        k: &data[1],
        v: &data[2],
        mask,
        past_key: past(3),
        past_value: past(4),
        nonpad: c.nonpad.as_deref(),
    };
    let mut y = vec![f32::NAN; p.batch * p.q_heads * p.q_seq * p.v_head];
    let mut scratch = vec![f32::NAN; onnx_attention_scratch_len(p)];
    onnx_attention(p, ins, &mut y, &mut scratch);
    let mut out = vec![y];
    let mut lo = 0;
    for len in p.head_lens() {
        out.push(scratch[lo..lo + len].to_vec());
        lo += len;
    }
    out
}

/// Deterministic values for a Rotary case: X, cos, sin, position ids.
fn rotary_data(p: &Rotary, rows: Option<usize>, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>, Option<Vec<i64>>) {
    let x = values(p.batch * p.seq * p.heads * p.head, seed);
    let n = rows.unwrap_or(p.batch * p.seq) * (p.rot / 2);
    let pos = rows.map(|r| (0..p.batch * p.seq).map(|i| ((i as u64 * 7 + seed) % r as u64) as i64).collect());
    (x, values(n, seed + 1), values(n, seed + 2), pos)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn onnx_attention_matches_interpreter(c in case()) {
        let sh = shapes(&c.p);
        let data: [Vec<f32>; 5] = std::array::from_fn(|i| values(sh[i].iter().product(), c.seed + i as u64));
        let want = attention_oracle(&c, &data);
        for isa in isas() {
            let got = gemm::with_isa(isa, || attention_kernel(&c, &data));
            let names = ["Y", "present_key", "present_value", "qk_matmul_output"];
            for (j, name) in names.iter().enumerate() {
                if j == 3 && c.p.qk_mode.is_none() {
                    continue;
                }
                assert_close(&got[j], &want[j], &format!("{name} of {c:?} [{isa:?}]"));
            }
        }
    }

    #[test]
    fn flex_attention_matches_interpreter(
        (b, hkv, g, l, s, e, ev) in (1usize..=2, 1usize..=3, 1usize..=3, 1usize..=5, 1usize..=5, 1usize..=6, 1usize..=6),
        scale in prop::option::of(Just(0.3f32)),
        block_q in 1usize..=4,
        seed in any::<u64>(),
    ) {
        let hq = hkv * g;
        let p = OnnxAttention {
            batch: b, q_heads: hq, kv_heads: hkv, q_seq: l, kv_seq: s, past: 0, head: e, v_head: ev, three_d: false,
            scale: scale.unwrap_or(1.0 / (e as f32).sqrt()), softcap: 0.0, causal: false, qk_mode: None, block_q,
        };
        let sh = [vec![b, hq, l, e], vec![b, hkv, s, e], vec![b, hkv, s, ev]];
        let data: [Vec<f32>; 3] = std::array::from_fn(|i| values(sh[i].iter().product(), seed + i as u64));
        let attrs = scale.map_or_else(Attrs::new, |s| Attrs::new().with("scale", Attr::Float(s)));
        let ins: Vec<_> = (0..3).map(|i| t(&sh[i], data[i].clone())).collect();
        let (_, want) = oracle(Opcode::FlexAttention, &ins, attrs);
        for isa in isas() {
            let got = gemm::with_isa(isa, || {
                let ins = OnnxAttentionInputs {
                    q: &data[0], k: &data[1], v: &data[2], mask: Mask::None, past_key: None, past_value: None, nonpad: None,
                };
                let mut y = vec![f32::NAN; want.len()];
                let mut scratch = vec![f32::NAN; onnx_attention_scratch_len(&p)];
                onnx_attention(&p, ins, &mut y, &mut scratch);
                y
            });
            assert_close(&got, &want, &format!("{p:?} [{isa:?}]"));
        }
    }

    #[test]
    fn linear_attention_matches_interpreter(
        (b, tt, hkv, g, dk, dv) in (1usize..=2, 1usize..=4, 1usize..=3, 1usize..=2, 1usize..=4, 1usize..=4),
        (rule, per_dim, beta_one, with_past, scale) in (0usize..4, any::<bool>(), any::<bool>(), any::<bool>(), prop::option::of(Just(0.5f32))),
        seed in any::<u64>(),
    ) {
        let hq = hkv * g;
        let (gating, delta) = (rule & 1 == 1, rule & 2 == 2);
        let beta_last = if beta_one { 1 } else { hkv };
        let p = LinearAttention {
            batch: b, seq: tt, q_heads: hq, kv_heads: hkv, dk, dv,
            scale: scale.unwrap_or(1.0 / (dk as f32).sqrt()), decay_per_dim: per_dim, beta_last,
        };
        let sh = [
            vec![b, tt, hq * dk], vec![b, tt, hkv * dk], vec![b, tt, hkv * dv], vec![b, hkv, dk, dv],
            vec![b, tt, if per_dim { hkv * dk } else { hkv }], vec![b, tt, beta_last],
        ];
        // Small values keep the recurrence well conditioned; decays are ≤ 0.
        let data: Vec<Vec<f32>> = (0..6).map(|i| {
            values(sh[i].iter().product(), seed + i as u64).iter().map(|&x| if i == 4 { -x.abs() / 4.0 } else { x / 4.0 }).collect()
        }).collect();
        let names = ["linear", "gated", "delta", "gated_delta"];
        let mut attrs = Attrs::new().with("q_num_heads", Attr::Int(hq as i64)).with("kv_num_heads", Attr::Int(hkv as i64))
            .with("update_rule", Attr::Str(names[rule].into()));
        if let Some(s) = scale {
            attrs.set("scale", Attr::Float(s));
        }
        let used = [true, true, true, with_past, gating, delta];
        let ins: Vec<_> = (0..6).map(|i| if used[i] { t(&sh[i], data[i].clone()) } else { None }).collect();
        let want = eval_op(Opcode::LinearAttention, &ins, attrs, 2).expect("interpreter runs LinearAttention");
        let ex = LinearAttentionExtras {
            past: with_past.then_some(&data[3][..]),
            decay: gating.then_some(&data[4][..]),
            beta: delta.then_some(&data[5][..]),
        };
        let mut y = vec![f32::NAN; b * tt * hq * dv];
        let mut scratch = vec![f32::NAN; linear_attention_scratch_len(&p)];
        linear_attention(&p, (&data[0], &data[1], &data[2]), ex, &mut y, &mut scratch);
        assert_close(&y, &f32s(&want[0]), &format!("Y of {p:?} rule {rule}"));
        assert_close(&scratch[..b * hkv * dk * dv], &f32s(&want[1]), &format!("state of {p:?} rule {rule}"));
    }

    #[test]
    fn rotary_embedding_matches_interpreter(
        (b, s, h, half) in (1usize..=2, 1usize..=4, 1usize..=3, 1usize..=4),
        (extra, rot_pick, interleaved, four_d) in (0usize..=2, any::<bool>(), any::<bool>(), any::<bool>()),
        rows in prop::option::of(1usize..=6),
        seed in any::<u64>(),
    ) {
        // Head size 2·half + 2·extra; rotate all of it (attribute 0) or 2·half.
        let d = 2 * (half + extra);
        let rot = if rot_pick { 2 * half } else { d };
        let p = Rotary { batch: b, seq: s, heads: h, head: d, rot, interleaved, four_d };
        let (x, cos, sin, pos) = rotary_data(&p, rows, seed);
        let xs = if four_d { vec![b, h, s, d] } else { vec![b, s, h * d] };
        let cs = match rows { Some(r) => vec![r, rot / 2], None => vec![b, s, rot / 2] };
        let mut attrs = Attrs::new().with("interleaved", Attr::Int(interleaved as i64));
        if rot_pick {
            attrs.set("rotary_embedding_dim", Attr::Int(rot as i64));
        }
        if !four_d {
            attrs.set("num_heads", Attr::Int(h as i64));
        }
        let pos_t = pos.as_ref().map(|v| Tensor::new(vec![b, s], Data::I64(v.clone())));
        let ins = [t(&xs, x.clone()), t(&cs, cos.clone()), t(&cs, sin.clone()), pos_t];
        let (_, want) = oracle(Opcode::RotaryEmbedding, &ins, attrs);
        let mut y = vec![f32::NAN; x.len()];
        rotary_embedding(&p, &x, &cos, &sin, pos.as_deref(), &mut y);
        assert_close(&y, &want, &format!("{p:?} rows {rows:?}"));
    }
}
