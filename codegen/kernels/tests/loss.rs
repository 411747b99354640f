//! The losses against the reference interpreter: NegativeLogLikelihoodLoss and
//! SoftmaxCrossEntropyLoss (with its log_prob) over random shapes, weights,
//! ignored targets and reductions; out-of-range targets must be reported.

mod common;

use common::*;
use edgec_kernels::loss;
use ir::{Attr, Opcode};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct LossCase {
    shape: Vec<usize>,
    weight: bool,
    ignore: Option<i64>,
    reduction: &'static str,
    seed: u64,
}

fn loss_case() -> impl Strategy<Value = LossCase> {
    (
        1usize..4,
        1usize..5,
        prop::collection::vec(1usize..4, 0..3),
        any::<bool>(),
        prop::option::of(-1i64..4),
        prop_oneof![Just("none"), Just("sum"), Just("mean")],
        any::<u64>(),
    )
        .prop_map(|(n, c, d, weight, ignore, reduction, seed)| {
            let shape = [vec![n, c], d].concat();
            LossCase { shape, weight, ignore, reduction, seed }
        })
}

impl LossCase {
    /// Targets in range, plus the ignored value where there is one.
    fn targets(&self) -> Vec<i64> {
        let c = self.shape[1] as i64;
        let tlen = numel(&self.shape) / self.shape[1];
        let mut t = rand_ints(tlen, self.seed ^ 7, 0, c);
        if let Some(ig) = self.ignore {
            t.iter_mut().step_by(3).for_each(|v| *v = ig);
        }
        t
    }
    fn check(&self, sce: bool) {
        let s = &self.shape;
        let x = values(numel(s), self.seed);
        let w: Vec<f32> = values(s[1], self.seed ^ 3).iter().map(|v| v.abs() + 0.25).collect();
        let tg = self.targets();
        let tshape: Vec<usize> = s.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &d)| d).collect();
        let mut a = vec![("reduction", Attr::Str(self.reduction.into()))];
        if let Some(ig) = self.ignore {
            a.push(("ignore_index", Attr::Int(ig)));
        }
        let op = if sce { Opcode::SoftmaxCrossEntropyLoss } else { Opcode::NegativeLogLikelihoodLoss };
        let inputs = [t_(s, &x), ti(&tshape, tg.clone()), self.weight.then(|| t(&[s[1]], w.clone()).unwrap())];
        let want = run(op, &inputs, attrs(&a), if sce { 2 } else { 1 });
        let p = loss::Loss {
            shape: s,
            weight: self.weight.then_some(&w[..]),
            ignore_index: self.ignore,
            reduction: match self.reduction {
                "none" => loss::Reduction::None,
                "sum" => loss::Reduction::Sum,
                _ => loss::Reduction::Mean,
            },
        };
        let mut got = vec![0f32; p.out_len()];
        if sce {
            let mut scratch = vec![0f32; loss::softmax_cross_entropy_scratch_len(s)];
            loss::softmax_cross_entropy(&p, &x, &tg, &mut got, &mut scratch);
            let mut logp = vec![0f32; x.len()];
            loss::log_softmax_classes(s, &x, &mut logp);
            assert_close(&logp, &f32s(&want[1]), "log_prob");
        } else {
            loss::nll_loss(&p, &x, &tg, &mut got);
        }
        assert_eq!(want[0].shape.iter().product::<usize>(), got.len(), "loss shape");
        assert_close(&got, &f32s(&want[0]), "loss");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn nll_loss_matches(c in loss_case()) {
        c.check(false);
    }

    #[test]
    fn softmax_cross_entropy_matches(c in loss_case()) {
        c.check(true);
    }
}

#[test]
#[should_panic(expected = "target value 5 is out of range")]
fn nll_loss_rejects_out_of_range_targets() {
    let p = loss::Loss { shape: &[1, 3], weight: None, ignore_index: None, reduction: loss::Reduction::Sum };
    loss::nll_loss(&p, &[0.0; 3], &[5i64], &mut [0.0]);
}
