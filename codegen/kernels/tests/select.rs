//! TopK against the reference interpreter (ties, NaN, both directions).

mod common;

use common::*;
use edgec_kernels::select::top_k;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn top_k_matches(s in shape(), ax in 0usize..3, k in 0usize..5, largest in any::<bool>(), nan in any::<bool>(), seed in any::<u64>()) {
        let ax = ax % s.len();
        let k = k.min(s[ax]);
        // Few distinct values: many ties.
        let mut x: Vec<f32> = values(numel(&s), seed).iter().map(|v| (v * 0.5).round()).collect();
        if nan {
            x.iter_mut().step_by(4).for_each(|v| *v = f32::NAN);
        }
        let a = attrs(&[("axis", Attr::Int(ax as i64)), ("largest", Attr::Int(largest as i64))]);
        let want = run(Opcode::TopK, &[t_(&s, &x), ti(&[1], vec![k as i64])], a, 2);
        let p = top_k::TopK { shape: &s, axis: ax, k, largest };
        let n = numel(&want[0].shape);
        let (mut v, mut i) = (vec![0f32; n], vec![0i64; n]);
        top_k::top_k_values(&p, &x, &mut v);
        top_k::top_k_indices(&p, &x, &mut i);
        assert_close(&v, &f32s(&want[0]), "top_k values");
        prop_assert_eq!(i, i64s(&want[1]));
    }
}
