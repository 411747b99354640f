//! ReverseSequence against the reference interpreter; a sequence length past
//! the time axis must be reported.

mod common;

use common::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn reverse_sequence_matches(s in prop::collection::vec(1usize..5, 2..4), swap in any::<bool>(), seed in any::<u64>()) {
        let (b, t) = if swap { (0, 1) } else { (1, 0) };
        let lens = rand_ints(s[b], seed, 0, s[t] as i64 + 1);
        let x = values(numel(&s), seed ^ 1);
        let a = attrs(&[("batch_axis", Attr::Int(b as i64)), ("time_axis", Attr::Int(t as i64))]);
        let want = run(Opcode::ReverseSequence, &[t_(&s, &x), ti(&[s[b]], lens.clone())], a, 1);
        let mut y = vec![0f32; x.len()];
        edgec_kernels::layout::reverse_sequence(&s, b, t, &lens, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "reverse_sequence");
    }
}

#[test]
#[should_panic(expected = "ReverseSequence: sequence length 4 is out of range")]
fn reverse_sequence_rejects_long_sequences() {
    let mut y = [0f32; 6];
    edgec_kernels::layout::reverse_sequence(&[3, 2], 1, 0, &[1i64, 4], &[0.0; 6], &mut y);
}
