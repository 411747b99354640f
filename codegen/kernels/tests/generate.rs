//! Trilu and EyeLike against the reference interpreter.

mod common;

use common::*;
use edgec_kernels::generate;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn trilu_matches(s in prop::collection::vec(1usize..5, 2..4), upper in any::<bool>(), k in -4i64..5, seed in any::<u64>()) {
        let x = values(numel(&s), seed);
        let a = attrs(&[("upper", Attr::Int(upper as i64))]);
        let want = run(Opcode::Trilu, &[t_(&s, &x), ti(&[], vec![k])], a, 1);
        let mut y = vec![9f32; x.len()];
        generate::trilu(&s, upper, k, 0.0, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "trilu");
    }

    #[test]
    fn eye_like_matches(rows in 1usize..6, cols in 1usize..6, k in -6i64..7) {
        let want = run(Opcode::EyeLike, &[t_(&[rows, cols], &vec![0.0; rows * cols])], attrs(&[("k", Attr::Int(k))]), 1);
        let mut y = vec![9f32; rows * cols];
        generate::eye_like(rows, cols, k, 1.0, 0.0, &mut y);
        assert_close(&y, &f32s(&want[0]), "eye_like");
    }
}
