//! LayerNormalization's `Mean`/`InvStdDev` kernels against the reference
//! interpreter.

mod common;

use common::*;
use edgec_kernels::norm::{layer_norm_stat, Stat};
use ir::interp::eval_op;
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]
    #[test]
    fn layer_norm_stats_match_interpreter(
        shape in prop::collection::vec(1usize..=5, 1..=4),
        axis_pick in any::<usize>(),
        eps in prop_oneof![Just(1e-5f32), Just(0.1)],
        seed in any::<u64>(),
    ) {
        let axis = axis_pick % shape.len();
        let x = values(shape.iter().product(), seed);
        let scale = vec![1.0; shape[axis..].iter().product()];
        let attrs = Attrs::new().with("axis", Attr::Int(axis as i64)).with("epsilon", Attr::Float(eps));
        let ins = [t(&shape, x.clone()), t(&shape[axis..], scale), None];
        let out = eval_op(Opcode::LayerNormalization, &ins, attrs, 3).expect("interpreter runs LayerNormalization");
        let rows: usize = shape[..axis].iter().product();
        for (stat, want) in [(Stat::Mean, &out[1]), (Stat::InvStdDev, &out[2])] {
            let mut got = vec![f32::NAN; rows];
            layer_norm_stat(&shape, axis, &x, eps, stat, &mut got);
            assert_close(&got, &f32s(want), &format!("{stat:?} of {shape:?} axis {axis}"));
        }
    }
}
