//! Property tests: each fused op equals its unfused `onnx.*` chain bit for bit
//! in f32, over random shapes, attributes, activations and values.

use crate::common::fused::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Mostly ordinary values, sometimes signed zeros, large values, infinities or NaN.
fn val() -> impl Strategy<Value = f32> {
    let special = prop::sample::select(vec![0.0f32, -0.0, 1e20, -1e20, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    prop_oneof![40 => -4.0f32..4.0, 1 => special]
}

/// A pool of values that tensors take their data from (cycling).
fn pool() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(val(), 32..96)
}

/// An f32 tensor of `shape` filled from `pool` starting at `*at`.
fn fill(pool: &[f32], at: &mut usize, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let v = (0..n).map(|i| pool[(*at + i) % pool.len()]).collect::<Vec<_>>();
    *at += n;
    f32t(shape, &v)
}

fn activation() -> impl Strategy<Value = Activation> {
    prop_oneof![
        Just(Activation::None),
        Just(Activation::Relu),
        (-3.0f32..1.0, -1.0f32..3.0).prop_map(|(min, max)| Activation::Clip { min, max }),
        Just(Activation::Sigmoid),
        (0.01f32..1.0, -1.0f32..1.0).prop_map(|(alpha, beta)| Activation::HardSigmoid { alpha, beta }),
        Just(Activation::HardSwish),
        (0.0f32..0.5).prop_map(|alpha| Activation::LeakyRelu { alpha }),
        Just(Activation::Silu),
        Just(Activation::Gelu),
        Just(Activation::GeluTanh),
        Just(Activation::Tanh),
    ]
}

/// `full`'s last `full.len() - drop` dims, with the dims flagged in `ones` set to 1.
fn sub_shape(full: &[usize], drop: usize, ones: &[bool]) -> Vec<usize> {
    let drop = drop.min(full.len());
    full[drop..]
        .iter()
        .zip(ones.iter().chain(std::iter::repeat(&false)))
        .map(|(&d, &o)| if o { 1 } else { d })
        .collect()
}

/// Numpy broadcast of two shapes known to be compatible.
fn bcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    let at = |s: &[usize], i: usize| if i + s.len() >= r { s[i + s.len() - r] } else { 1 };
    (0..r).map(|i| at(a, i).max(at(b, i))).collect()
}

/// Shape flags: how many leading dims to drop and which to set to 1.
fn shape_flags() -> impl Strategy<Value = (usize, Vec<bool>)> {
    (0usize..3, prop::collection::vec(prop::bool::weighted(0.25), 4))
}

/// Conv geometry: `(n, group, c/group, m/group, [h, w], [kh, kw], stride, [pads], dilation, bias)`.
type ConvCase = (usize, usize, usize, usize, [usize; 2], [usize; 2], usize, [usize; 4], usize, bool);

fn conv_case() -> impl Strategy<Value = ConvCase> {
    (
        (1usize..3, 1usize..3, 1usize..3, 1usize..3),
        ([1usize..6, 1usize..6], [1usize..4, 1usize..4]),
        (1usize..3, [0usize..2, 0usize..2, 0usize..2, 0usize..2], 1usize..3, any::<bool>()),
    )
        .prop_map(|((n, g, cg, mg), (hw, mut k), (s, p, mut d, bias))| {
            // Keep every dilated kernel inside its padded input.
            for i in 0..2 {
                let room = hw[i] + p[i] + p[i + 2];
                if d * (k[i] - 1) + 1 > room {
                    d = 1;
                }
            }
            for i in 0..2 {
                k[i] = k[i].min(hw[i] + p[i] + p[i + 2]);
            }
            (n, g, cg, mg, hw, k, s, p, d, bias)
        })
}

fn conv_attrs(g: usize, s: usize, p: [usize; 4], d: usize) -> Attrs {
    let ints = |v: &[usize]| Attr::Ints(v.iter().map(|&x| x as i64).collect());
    Attrs::new()
        .with("group", Attr::Int(g as i64))
        .with("strides", ints(&[s, s]))
        .with("pads", ints(&p))
        .with("dilations", ints(&[d, d]))
}

/// `core.attention` shapes: batch dims, `(sq, sk, d, dv)`, shape flags of Q, K, V and mask.
type AttnCase = (Vec<usize>, (usize, usize, usize, usize), [(usize, Vec<bool>); 4]);

fn attention_case() -> impl Strategy<Value = AttnCase> {
    (
        prop::collection::vec(1usize..3, 0..3),
        (1usize..4, 1usize..5, 1usize..4, 1usize..4),
        [shape_flags(), shape_flags(), shape_flags(), shape_flags()],
    )
}

/// The unfused attention chain, op by op.
fn unfused_attention(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: f32, causal: bool) -> Tensor {
    let none = Attrs::new;
    let r = k.rank() as i64;
    let mut perm: Vec<i64> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    let kt = run(Opcode::Transpose, &[Some(k.clone())], none().with("perm", Attr::Ints(perm)));
    let s = run(Opcode::MatMul, &[Some(q.clone()), Some(kt)], none());
    let mut s = run(Opcode::Mul, &[Some(s), Some(scalar(DType::F32, scale as f64))], none());
    let neg_inf = || Some(scalar(DType::F32, f64::NEG_INFINITY));
    match mask {
        Some(m) if m.dtype() == DType::Bool => s = run(Opcode::Where, &[Some(m.clone()), Some(s), neg_inf()], none()),
        Some(m) => s = run(Opcode::Add, &[Some(s), Some(m.clone())], none()),
        None => {}
    }
    if causal {
        let (sq, sk) = (s.shape[s.rank() - 2], s.shape[s.rank() - 1]);
        let tri = (0..sq).flat_map(|i| (0..sk).map(move |j| j <= i)).collect();
        s = run(Opcode::Where, &[Some(t(&[sq, sk], Data::Bool(tri))), Some(s), neg_inf()], none());
    }
    let p = run(Opcode::Softmax, &[Some(s)], none().with("axis", Attr::Int(-1)));
    run(Opcode::MatMul, &[Some(p), Some(v.clone())], none())
}

proptest! {
    #![proptest_config(Config { cases: 96, ..Config::default() })]

    /// `Activation::apply_f32` equals the unfused onnx op on any f32.
    #[test]
    fn apply_f32_matches_unfused(act in activation(), xs in prop::collection::vec(any::<f32>(), 1..16)) {
        let y = unfused_act(act, f32t(&[xs.len()], &xs)).to_f64s();
        for (x, want) in xs.iter().zip(y) {
            let got = act.apply_f32(*x);
            prop_assert!(got.to_bits() == (want as f32).to_bits() || (got.is_nan() && want.is_nan()),
                "{:?}({}) = {} but unfused gives {}", act, x, got, want);
        }
    }

    /// `core.conv` equals `Conv` followed by the unfused activation.
    #[test]
    fn conv_matches_unfused(case in conv_case(), act in activation(), pool in pool()) {
        let (n, g, cg, mg, hw, k, s, p, d, bias) = case;
        let mut at = 0;
        let x = fill(&pool, &mut at, &[n, g * cg, hw[0], hw[1]]);
        let w = fill(&pool, &mut at, &[g * mg, cg, k[0], k[1]]);
        let b = bias.then(|| fill(&pool, &mut at, &[g * mg]));
        let ops = [Some(x), Some(w), b];
        let fused = run(Opcode::CoreConv, &ops, with_act(conv_attrs(g, s, p, d), act));
        let want = unfused_act(act, run(Opcode::Conv, &ops, conv_attrs(g, s, p, d)));
        prop_assert!(same_bits(&fused, &want).is_ok(), "{}", same_bits(&fused, &want).unwrap_err());
    }

    /// `core.conv_transpose` equals `ConvTranspose` followed by the unfused activation.
    #[test]
    fn conv_transpose_matches_unfused(case in conv_case(), act in activation(), pool in pool(), op in 0usize..2) {
        let (n, g, cg, mg, hw, k, s, mut p, d, bias) = case;
        for i in 0..2 {
            if s * (hw[i] - 1) + d * (k[i] - 1) < p[i] + p[i + 2] {
                (p[i], p[i + 2]) = (0, 0);
            }
        }
        let mut at = 0;
        let x = fill(&pool, &mut at, &[n, g * cg, hw[0], hw[1]]);
        let w = fill(&pool, &mut at, &[g * cg, mg, k[0], k[1]]);
        let b = bias.then(|| fill(&pool, &mut at, &[g * mg]));
        let ops = [Some(x), Some(w), b];
        let op = op.min(s.max(d) - 1) as i64;
        let attrs = || conv_attrs(g, s, p, d).with("output_padding", Attr::Ints(vec![op, 0]));
        let fused = run(Opcode::CoreConvTranspose, &ops, with_act(attrs(), act));
        let want = unfused_act(act, run(Opcode::ConvTranspose, &ops, attrs()));
        prop_assert!(same_bits(&fused, &want).is_ok(), "{}", same_bits(&fused, &want).unwrap_err());
    }

    /// `core.linear` equals `MatMul(A, B or Transpose(B))`, `Add(bias)` and the unfused activation.
    #[test]
    fn linear_matches_unfused(
        batch in prop::collection::vec(1usize..3, 0..3),
        (m, kk, nn) in (1usize..4, 1usize..5, 1usize..4),
        (fa, fb, fbias) in (shape_flags(), shape_flags(), shape_flags()),
        (a1, b1, trans_b, bias) in (prop::bool::weighted(0.15), prop::bool::weighted(0.15), any::<bool>(), any::<bool>()),
        act in activation(),
        pool in pool(),
    ) {
        let b1 = b1 && !trans_b;
        let a_shape = if a1 { vec![kk] } else { [sub_shape(&batch, fa.0, &fa.1), vec![m, kk]].concat() };
        let b_shape = match (b1, trans_b) {
            (true, _) => vec![kk],
            (false, false) => [sub_shape(&batch, fb.0, &fb.1), vec![kk, nn]].concat(),
            (false, true) => [sub_shape(&batch, fb.0, &fb.1), vec![nn, kk]].concat(),
        };
        let bat = |s: &[usize], one: bool| if one { vec![] } else { s[..s.len() - 2].to_vec() };
        let mut out = bcast(&bat(&a_shape, a1), &bat(&b_shape, b1));
        out.extend((!a1).then_some(m).into_iter().chain((!b1).then_some(nn)));
        let mut at = 0;
        let a = fill(&pool, &mut at, &a_shape);
        let b = fill(&pool, &mut at, &b_shape);
        let bias_shape = sub_shape(&out, fbias.0, &fbias.1);
        let bias = bias.then(|| fill(&pool, &mut at, &bias_shape));
        let attrs = with_act(Attrs::new().with("trans_b", Attr::Int(trans_b as i64)), act);
        let fused = run(Opcode::CoreLinear, &[Some(a.clone()), Some(b.clone()), bias.clone()], attrs);
        let b = if trans_b {
            let r = b.rank();
            let mut perm: Vec<i64> = (0..r as i64).collect();
            perm.swap(r - 2, r - 1);
            run(Opcode::Transpose, &[Some(b)], Attrs::new().with("perm", Attr::Ints(perm)))
        } else {
            b
        };
        let mut y = run(Opcode::MatMul, &[Some(a), Some(b)], Attrs::new());
        if let Some(bias) = bias {
            y = run(Opcode::Add, &[Some(y), Some(bias)], Attrs::new());
        }
        let want = unfused_act(act, y);
        prop_assert_eq!(&fused.shape, &out);
        prop_assert!(same_bits(&fused, &want).is_ok(), "{}", same_bits(&fused, &want).unwrap_err());
    }

    /// `core.attention` equals the unfused MatMul/Mul/mask/Softmax/MatMul chain.
    #[test]
    fn attention_matches_unfused(
        (batch, (sq, sk, d, dv), flags) in attention_case(),
        mask_kind in 0usize..3,
        causal in any::<bool>(),
        scale in prop::sample::select(vec![0.125f32, 0.5, 1.0, 0.353_553_4, 1.7]),
        pool in pool(),
    ) {
        let [fq, fk, fv, fm] = flags;
        let qs = [sub_shape(&batch, fq.0, &fq.1), vec![sq, d]].concat();
        let ks = [sub_shape(&batch, fk.0, &fk.1), vec![sk, d]].concat();
        let vs = [sub_shape(&batch, fv.0, &fv.1), vec![sk, dv]].concat();
        let scores = [bcast(&qs[..qs.len() - 2], &ks[..ks.len() - 2]), vec![sq, sk]].concat();
        let mut at = 0;
        let (q, k, v) = (fill(&pool, &mut at, &qs), fill(&pool, &mut at, &ks), fill(&pool, &mut at, &vs));
        let ms = sub_shape(&scores, fm.0, &fm.1);
        let mask = match mask_kind {
            0 => None,
            1 => Some(t(&ms, Data::Bool(fill(&pool, &mut at, &ms).to_f64s().iter().map(|&x| x > -2.5).collect()))),
            _ => Some(fill(&pool, &mut at, &ms)),
        };
        let attrs = Attrs::new().with("scale", Attr::Float(scale)).with("causal", Attr::Int(causal as i64));
        let fused = run(Opcode::CoreAttention, &[Some(q.clone()), Some(k.clone()), Some(v.clone()), mask.clone()], attrs);
        let want = unfused_attention(&q, &k, &v, mask.as_ref(), scale, causal);
        prop_assert!(same_bits(&fused, &want).is_ok(), "{}", same_bits(&fused, &want).unwrap_err());
    }

    /// `core.silu` equals `Mul(X, Sigmoid(X))`.
    #[test]
    fn silu_matches_unfused(xs in prop::collection::vec(val(), 1..24)) {
        let x = f32t(&[xs.len()], &xs);
        let fused = run(Opcode::CoreSilu, &[Some(x.clone())], Attrs::new());
        let want = unfused_act(Activation::Silu, x);
        prop_assert!(same_bits(&fused, &want).is_ok(), "{}", same_bits(&fused, &want).unwrap_err());
    }
}
