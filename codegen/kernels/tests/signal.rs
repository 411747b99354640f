//! DFT against the reference interpreter (complex and real input, inverse,
//! onesided, explicit lengths).

mod common;

use common::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn dft_matches(
        dims in prop::collection::vec(1usize..6, 1..3), parts in 1usize..3, ax in 0usize..2,
        len in prop::option::of(1usize..8), inverse in any::<bool>(), onesided in any::<bool>(), seed in any::<u64>(),
    ) {
        let a = ax % dims.len();
        // RFFT takes a real input, IRFFT a complex one (and a default length of at least 1).
        let parts = match (onesided, inverse) {
            (true, false) => 1,
            (true, true) => 2,
            _ => parts,
        };
        prop_assume!(!(onesided && inverse && len.is_none() && dims[a] < 2));
        let m = dims[a];
        let n = len.unwrap_or(if inverse && onesided { 2 * (m - 1) } else { m });
        let out_len = if onesided && !inverse { n / 2 + 1 } else { n };
        let xs = [dims.clone(), vec![parts]].concat();
        let x = values(numel(&xs), seed);
        let mut dims_nd = dims.clone();
        dims_nd.insert(0, 1);
        let xs_nd = [dims_nd.clone(), vec![parts]].concat();
        let at = attrs(&[("axis", Attr::Int(a as i64 + 1)), ("inverse", Attr::Int(inverse as i64)), ("onesided", Attr::Int(onesided as i64))]);
        let dl = len.map(|l| ti(&[], vec![l as i64]).unwrap());
        let want = run(Opcode::DFT, &[t_(&xs_nd, &x), dl], at, 1);
        let p = edgec_kernels::signal::dft::Dft { dims: &dims_nd, parts, axis: a + 1, n, out_len, inverse, irfft: inverse && onesided };
        let mut y = vec![0f32; numel(&want[0].shape)];
        edgec_kernels::signal::dft::dft(&p, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "dft");
    }
}
