//! NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

use crate::common::loss::*;

const NLL: Opcode = Opcode::NegativeLogLikelihoodLoss;

const SCE: Opcode = Opcode::SoftmaxCrossEntropyLoss;

/// Mirrors test_nllloss_NC: reduction none picks `-input[n, target[n]]`.
#[test]
fn nll_nc_none() {
    let x = parse(&[3, 5], "0.54881352 0.71518934 0.60276335 0.54488319 0.42365479 0.64589411 0.4375872 0.89177299 0.96366274 0.38344151 0.79172504 0.52889490 0.56804454 0.92559665 0.07103606");
    let out = run(NLL, &[Some(x), Some(ints(&[1, 4, 3])), None], &[("reduction", s("none"))], 1);
    check(&out[0], &f32t(&[3], &[-0.71518934, -0.3834415, -0.92559665]));
}

/// Mirrors test_nllloss_NCd1_weight_ii: weighted mean with an ignored class.
#[test]
fn nll_ncd1_weight_ignore_index() {
    let x = parse(&[3, 5, 2], "0.54881352 0.71518934 0.60276335 0.54488319 0.42365479 0.64589411 0.4375872 0.89177299 0.96366274 0.38344151 0.79172504 0.5288949 0.56804454 0.92559665 0.07103606 0.0871293 0.0202184 0.83261985 0.77815676 0.87001216 0.97861832 0.79915857 0.46147937 0.7805292 0.11827443 0.63992101 0.14335328 0.94466889 0.52184832 0.41466194");
    let target = i64t(&[3, 2], &[1, 3, 2, 4, 2, 0]);
    let w = f32t(&[5], &[0.0187898, 0.6176355, 0.6120957, 0.616934, 0.94374806]);
    let out = run(NLL, &[Some(x), Some(target), Some(w)], &[("ignore_index", int(1))], 1);
    check(&out[0], &f32t(&[], &[-0.5357739]));
}

fn nll_f64_inputs() -> [Option<Tensor>; 3] {
    let x = f64t(&[2, 3, 2], &[0.1, -1.2, 2.0, 0.3, -0.5, 0.7, 1.5, 0.0, -2.2, 0.4, 0.9, -0.8]);
    [Some(x), Some(i64t(&[2, 2], &[0, 2, 1, -100])), Some(f64t(&[3], &[0.5, 2.0, 1.5]))]
}

/// f64 with weights and an out-of-range ignored target, every reduction (reference values).
#[test]
fn nll_f64_reductions() {
    let ii = ("ignore_index", int(-100));
    let none = run(NLL, &nll_f64_inputs(), &[ii.clone(), ("reduction", s("none"))], 1);
    check(&none[0], &f64t(&[2, 2], &[-0.05, -1.05, 4.4, 0.0]));
    let sum = run(NLL, &nll_f64_inputs(), &[ii.clone(), ("reduction", s("sum"))], 1);
    check(&sum[0], &f64t(&[], &[3.3]));
    // mean = sum / sum of applied weights (0.5 + 1.5 + 2.0).
    check(&run(NLL, &nll_f64_inputs(), &[ii], 1)[0], &f64t(&[], &[0.825]));
}

/// Unweighted mean over every element; i32 targets.
#[test]
fn nll_plain_mean_i32_target() {
    let [x, ..] = nll_f64_inputs();
    let out = run(NLL, &[x, Some(i32t(&[2, 2], &[0, 2, 1, 1])), None], &[], 1);
    check(&out[0], &f64t(&[], &[0.25]));
}

/// f16 and bf16 inputs compute in f32 and round once.
#[test]
fn nll_half_types() {
    let target = Some(ints(&[1, 0]));
    let out =
        run(NLL, &[Some(f16t(&[2, 2], &[0.5, -1.5, 2.0, 0.25])), target.clone(), None], &[("reduction", s("sum"))], 1);
    check(&out[0], &f16t(&[], &[-0.5]));
    let out = run(NLL, &[Some(bf16t(&[2, 2], &[0.5, -1.5, 2.0, 0.25])), target, None], &[("reduction", s("none"))], 1);
    check(&out[0], &bf16t(&[2], &[1.5, -2.0]));
}

/// Bad targets, shapes and weights are errors, not panics.
#[test]
fn nll_errors() {
    let x = || Some(f32t(&[2, 3], &[0.0; 6]));
    let e = run_err(NLL, &[x(), Some(ints(&[0, 3])), None], &[], 1);
    assert!(e.contains("out of range"), "{e}");
    let e = run_err(NLL, &[x(), Some(ints(&[-1, 0])), None], &[("ignore_index", int(2))], 1);
    assert!(e.contains("out of range"), "{e}");
    let e = run_err(NLL, &[x(), Some(ints(&[0, 1, 2])), None], &[], 1);
    assert!(e.contains("disagree") || e.contains("shape"), "{e}");
    let e = run_err(NLL, &[x(), Some(ints(&[0, 1])), Some(f32t(&[2], &[1.0, 1.0]))], &[], 1);
    assert!(e.contains("weight"), "{e}");
    let e = run_err(NLL, &[Some(f32t(&[3], &[0.0; 3])), Some(i64t(&[], &[0])), None], &[], 1);
    assert!(e.contains("rank"), "{e}");
    let e = run_err(NLL, &[Some(i32t(&[1, 2], &[0, 0])), Some(ints(&[0])), None], &[], 1);
    assert!(e.contains("float"), "{e}");
}

/// Mirrors test_sce_mean_weight_ii_log_prob: weighted mean, ignored label, log_prob output.
#[test]
fn sce_mean_weight_ii_log_prob() {
    let x = parse(&[3, 5], "0.54881352 0.71518934 0.60276335 0.54488319 0.42365479 0.64589411 0.4375872 0.89177299 0.96366274 0.38344151 0.79172504 0.5288949 0.56804454 0.92559665 0.07103606");
    let w = f32t(&[5], &[0.9, 0.7, 0.8, 0.9, 0.9]);
    let out = run(SCE, &[Some(x), Some(ints(&[0, 4, 3])), Some(w)], &[("ignore_index", int(0))], 2);
    check(&out[0], &f32t(&[], &[1.609188]));
    check(&out[1], &parse(&[3, 5], "-1.6321545 -1.4657786 -1.5782048 -1.6360848 -1.7573133 -1.6551613 -1.8634681 -1.4092823 -1.3373927 -1.9176139 -1.4346335 -1.6974638 -1.658314 -1.300762 -2.1553226"));
}

/// Unweighted mean, weighted sum and an ignored out-of-range label (reference values).
#[test]
fn sce_reductions() {
    let x = || Some(f32t(&[2, 3], &[1.0, 2.0, 3.0, -1.0, 0.5, 4.0]));
    let out = run(SCE, &[x(), Some(ints(&[2, 0])), None], &[], 2);
    check(&out[0], &f32t(&[], &[2.721938]));
    check(&out[1], &f32t(&[2, 3], &[-2.407606, -1.407606, -0.40760598, -5.0362697, -3.5362697, -0.036269538]));
    let w = || Some(f32t(&[3], &[1.0, 0.5, 2.0]));
    let out = run(SCE, &[x(), Some(ints(&[2, 0])), w()], &[("reduction", s("sum"))], 1);
    check(&out[0], &f32t(&[], &[5.8514814]));
    let out = run(SCE, &[x(), Some(ints(&[2, 5])), w()], &[("ignore_index", int(5))], 1);
    check(&out[0], &f32t(&[], &[0.40760598]));
    // Every label ignored: the weighted mean is 0 / 0.
    let out = run(SCE, &[x(), Some(ints(&[5, 5])), None], &[("ignore_index", int(5))], 1);
    assert!(out[0].to_f64s()[0].is_nan());
}

/// N-D scores with reduction none keep the label shape; log_prob keeps the scores' shape.
#[test]
fn sce_nd_none() {
    let x = f64t(&[1, 2, 2], &[0.0, 1.0, 0.0, -1.0]);
    let out = run(SCE, &[Some(x), Some(i64t(&[1, 2], &[1, 0])), None], &[("reduction", s("none"))], 2);
    let l2 = std::f64::consts::LN_2;
    let e = (1.0f64 + (-2.0f64).exp()).ln(); // -log softmax of 1 among (1, -1)
    check(&out[0], &f64t(&[1, 2], &[l2, e]));
    check(&out[1], &f64t(&[1, 2, 2], &[-l2, -e, -l2, -2.0 - e]));
}
