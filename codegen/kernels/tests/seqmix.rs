//! CausalConvWithState (bias, past state, SiLU, present state) against the
//! interpreter, bit for bit.

mod common;

use edgec_kernels::attention::causal_conv;
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

fn t(shape: &[usize], v: Vec<f32>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::F32(v)))
}

/// `n` deterministic values from `seed` (the shared dyadic generator).
fn vals(n: usize, seed: u64) -> Vec<f32> {
    common::values(n, seed)
}

fn f32s(x: &Tensor) -> Vec<f32> {
    match &x.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
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
