//! LinearAttention (every update rule, GQA, per-head/per-dim decay, shared
//! or per-head beta, with and without past state) and CausalConvWithState
//! (bias, past state, SiLU) against the interpreter, bit for bit.

use edgec_kernels::seqmix::{self, LinearAttn};
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

fn t(shape: &[usize], v: Vec<f32>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::F32(v)))
}

/// `n` values in [-1, 1) from `seed` (xorshift).
fn vals(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn f32s(x: &Tensor) -> Vec<f32> {
    match &x.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

#[derive(Debug, Clone)]
struct LaCase {
    b: usize,
    t: usize,
    hkv: usize,
    group: usize,
    dk: usize,
    dv: usize,
    rule: (bool, bool),
    decay_per_dim: bool,
    beta_per_head: bool,
    past: bool,
    scale: f32,
}

fn la_case() -> impl Strategy<Value = LaCase> {
    let sizes = (1usize..3, 1usize..5, 1usize..3, 1usize..3, 1usize..5, 1usize..5);
    let opts =
        (any::<(bool, bool)>(), any::<bool>(), any::<bool>(), any::<bool>(), prop_oneof![Just(0.0f32), Just(0.5)]);
    (sizes, opts).prop_map(|((b, t, hkv, group, dk, dv), (rule, decay_per_dim, beta_per_head, past, scale))| LaCase {
        b,
        t,
        hkv,
        group,
        dk,
        dv,
        rule,
        decay_per_dim,
        beta_per_head,
        past,
        scale,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn linear_attention_matches_the_interpreter(c in la_case(), seed in any::<u64>()) {
        let hq = c.hkv * c.group;
        let (q, k, v) = (vals(c.b * c.t * hq * c.dk, seed), vals(c.b * c.t * c.hkv * c.dk, seed ^ 1), vals(c.b * c.t * c.hkv * c.dv, seed ^ 2));
        let sshape = [c.b, c.hkv, c.dk, c.dv];
        let past = c.past.then(|| vals(sshape.iter().product(), seed ^ 3));
        let dlen = if c.decay_per_dim { c.hkv * c.dk } else { c.hkv };
        let blen = if c.beta_per_head { c.hkv } else { 1 };
        let decay = c.rule.0.then(|| vals(c.b * c.t * dlen, seed ^ 4).iter().map(|x| -x.abs()).collect::<Vec<_>>());
        let beta = c.rule.1.then(|| vals(c.b * c.t * blen, seed ^ 5).iter().map(|x| x.abs()).collect::<Vec<_>>());
        let rule = match c.rule { (false, false) => "linear", (true, false) => "gated", (false, true) => "delta", _ => "gated_delta" };
        let mut attrs = Attrs::default();
        attrs.set("q_num_heads", Attr::Int(hq as i64));
        attrs.set("kv_num_heads", Attr::Int(c.hkv as i64));
        attrs.set("update_rule", Attr::Str(rule.into()));
        attrs.set("scale", Attr::Float(c.scale));
        let inputs = [
            t(&[c.b, c.t, hq * c.dk], q.clone()), t(&[c.b, c.t, c.hkv * c.dk], k.clone()), t(&[c.b, c.t, c.hkv * c.dv], v.clone()),
            past.clone().and_then(|p| t(&sshape, p)),
            decay.clone().and_then(|d| t(&[c.b, c.t, dlen], d)),
            beta.clone().and_then(|be| t(&[c.b, c.t, blen], be)),
        ];
        let want = eval_op(Opcode::LinearAttention, &inputs, attrs, 2).expect("interpreter");
        let p = LinearAttn {
            b: c.b, t: c.t, hq, hkv: c.hkv, dk: c.dk, dv: c.dv,
            decay_per_dim: c.rule.0 && dlen != c.hkv, beta_per_head: c.rule.1 && blen != 1,
            scale: if c.scale == 0.0 { 1.0 / (c.dk as f64).sqrt() } else { c.scale as f64 },
        };
        let mut out = vec![0.0; c.b * c.t * hq * c.dv];
        let (mut st, mut vb) = (vec![0.0; p.state_len()], vec![0.0; c.dv]);
        seqmix::linear_attention(&p, (&q, &k, &v), past.as_deref(), (decay.as_deref(), beta.as_deref()), &mut out, &mut st, &mut vb);
        prop_assert_eq!(out, f32s(&want[0]));
        prop_assert_eq!(st, f32s(&want[1]));
    }

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
        seqmix::causal_conv((b, c, l, k), &x, &w, bv.as_deref(), pv.as_deref(), silu, &mut out);
        prop_assert_eq!(out, f32s(&want[0]));
        let mut st = vec![0.0; b * c * (k - 1)];
        seqmix::causal_conv_state((b, c, l, k), &x, pv.as_deref(), &mut st);
        prop_assert_eq!(st, f32s(&want[1]));
    }
}
