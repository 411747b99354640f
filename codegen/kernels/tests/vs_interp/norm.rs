//! Softmax family and normalizations vs the interpreter.
//!
//! The reference is the interpreter run on the same values in f64: its f32
//! path accumulates means and variances in f32, whose error, amplified by the
//! cancellation in `x - mean` for low-variance groups, exceeds the kernels'
//! (which accumulate in f64). Against the f64 reference the kernels are
//! within a few f32 ulps: rtol 1e-5 / atol 1e-6.

use super::common::*;
use edgec_kernels::norm::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

/// `(shape, axis, data)` with `axis < rank`.
fn along_axis() -> impl Strategy<Value = (Vec<usize>, usize, Vec<f32>)> {
    shape(1..=4, 6).prop_flat_map(|s| {
        let n = numel(&s);
        (Just(s.clone()), 0..s.len(), data(n, finite()))
    })
}

/// `(shape, data, scale, bias)` of an NC... tensor with per-channel parameters.
fn per_channel(
    ranks: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = (Vec<usize>, Vec<f32>, Vec<f32>, Vec<f32>)> {
    shape(ranks, 5).prop_flat_map(|s| {
        let (n, c) = (numel(&s), s[1]);
        (Just(s), data(n, finite()), data(c, -2f32..2.0), data(c, -2f32..2.0))
    })
}

const NORM_RTOL: f32 = 1e-5;
const NORM_ATOL: f32 = 1e-6;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn softmax_family_matches_interpreter(which in 0..3usize, (s, axis, x) in along_axis()) {
        let code = [Opcode::Softmax, Opcode::LogSoftmax, Opcode::Hardmax][which];
        let want = interp_f64(code, vec![Some((&s, &x))], attrs(vec![("axis", Attr::Int(axis as i64))]));
        let mut y = vec![0.0; x.len()];
        [softmax, log_softmax, hardmax][which](&s, axis, &x, &mut y);
        check_close(&y, &want, 1e-5, 1e-6)?;
    }

    #[test]
    fn hardmax_ties_match_interpreter((s, axis, x) in shape(1..=3, 5).prop_flat_map(|s| {
        let n = numel(&s);
        (Just(s.clone()), 0..s.len(), data(n, prop_oneof![5 => (0i32..3).prop_map(|v| v as f32), 1 => Just(f32::NAN)]))
    })) {
        let want = as_f32(&interp(Opcode::Hardmax, vec![Some(f32t(&s, &x))], attrs(vec![("axis", Attr::Int(axis as i64))]), 1)[0]);
        let mut y = vec![0.0; x.len()];
        hardmax(&s, axis, &x, &mut y);
        check_close(&y, &want, 0.0, 0.0)?;
    }

    #[test]
    fn layer_norm_matches_interpreter(
        with_bias in any::<bool>(),
        eps in prop::sample::select(vec![1e-5f32, 1e-3]),
        (s, axis, x, ss, scale, bias) in shape(1..=4, 6).prop_flat_map(|s| {
            let n = numel(&s);
            (Just(s.clone()), 0..s.len(), data(n, finite()))
        }).prop_flat_map(|(s, axis, x)| {
            // The parameters have a trailing part of the normalized dims.
            let tail = s[axis..].to_vec();
            (Just(s), Just(axis), Just(x), (0..=tail.len()).prop_map(move |k| tail[k..].to_vec()))
        }).prop_flat_map(|(s, axis, x, ss)| {
            let m = numel(&ss);
            (Just(s), Just(axis), Just(x), Just(ss), data(m, -2f32..2.0), data(m, -2f32..2.0))
        }),
    ) {
        let at = attrs(vec![("axis", Attr::Int(axis as i64)), ("epsilon", Attr::Float(eps))]);
        let ins = vec![Some((&s[..], &x[..])), Some((&ss[..], &scale[..])), with_bias.then_some((&ss[..], &bias[..]))];
        let want = interp_f64(Opcode::LayerNormalization, ins, at);
        let mut y = vec![0.0; x.len()];
        layer_norm(&s, axis, &x, &scale, with_bias.then_some(&bias[..]), eps, &mut y);
        check_close(&y, &want, NORM_RTOL, NORM_ATOL)?;
    }

    #[test]
    fn rms_norm_matches_interpreter((s, axis, x, scale) in along_axis().prop_flat_map(|(s, axis, x)| {
        let m = numel(&s[axis..]);
        (Just(s), Just(axis), Just(x), data(m, -2f32..2.0))
    })) {
        let tail = &s[axis..];
        let at = attrs(vec![("axis", Attr::Int(axis as i64)), ("epsilon", Attr::Float(1e-5))]);
        let want = interp_f64(Opcode::RMSNormalization, vec![Some((&s, &x)), Some((tail, &scale))], at);
        let mut y = vec![0.0; x.len()];
        rms_norm(&s, axis, &x, &scale, 1e-5, &mut y);
        check_close(&y, &want, NORM_RTOL, NORM_ATOL)?;
    }

    #[test]
    fn batch_norm_matches_interpreter((s, x, scale, bias) in per_channel(2..=4), mv in data(32, 0.1f32..3.0)) {
        let c = s[1];
        let (mean, var) = (&mv[..c], &mv[16..16 + c]);
        let cs = [c];
        let ins = [&scale[..], &bias, mean, var].map(|p| Some((&cs[..], p)));
        let mut all = vec![Some((&s[..], &x[..]))];
        all.extend(ins);
        let want = interp_f64(Opcode::BatchNormalization, all, attrs(vec![("epsilon", Attr::Float(1e-5))]));
        let mut y = vec![0.0; x.len()];
        batch_norm(&s, &x, &scale, &bias, mean, var, 1e-5, &mut y);
        check_close(&y, &want, 1e-5, 1e-5)?;
    }

    #[test]
    fn instance_and_group_norm_match_interpreter(groups_pick in 0..3usize, (s, x, scale, bias) in per_channel(3..=4)) {
        let c = s[1];
        let cs = [c];
        let ps = || vec![Some((&s[..], &x[..])), Some((&cs[..], &scale[..])), Some((&cs[..], &bias[..]))];
        let want = interp_f64(Opcode::InstanceNormalization, ps(), attrs(vec![("epsilon", Attr::Float(1e-5))]));
        let mut y = vec![0.0; x.len()];
        instance_norm(&s, &x, &scale, &bias, 1e-5, &mut y);
        check_close(&y, &want, NORM_RTOL, NORM_ATOL)?;
        let divisors: Vec<usize> = (1..=c).filter(|g| c % g == 0).collect();
        let g = divisors[groups_pick % divisors.len()];
        let at = attrs(vec![("epsilon", Attr::Float(1e-5)), ("num_groups", Attr::Int(g as i64))]);
        let want = interp_f64(Opcode::GroupNormalization, ps(), at);
        group_norm(&s, g, &x, &scale, &bias, 1e-5, &mut y);
        check_close(&y, &want, NORM_RTOL, NORM_ATOL)?;
    }

    #[test]
    fn lrn_matches_interpreter(
        (s, x) in tensor(shape(3..=4, 6), finite()),
        size in 1..6usize,
        alpha in 1e-4f32..1.0,
        beta in 0.5f32..1.0,
        bias in 0.5f32..2.0,
    ) {
        let at = attrs(vec![("size", Attr::Int(size as i64)), ("alpha", Attr::Float(alpha)), ("beta", Attr::Float(beta)), ("bias", Attr::Float(bias))]);
        let want = interp_f64(Opcode::LRN, vec![Some((&s, &x))], at);
        let mut y = vec![0.0; x.len()];
        lrn(&s, size, alpha, beta, bias, &x, &mut y);
        check_close(&y, &want, 1e-5, 1e-6)?;
    }

    #[test]
    fn mean_variance_normalization_matches_interpreter(
        (s, x) in tensor(shape(4..=4, 5), finite()),
        pick in prop::collection::vec(any::<bool>(), 4),
        default_axes in any::<bool>(),
    ) {
        let axes: Vec<usize> = if default_axes { vec![0, 2, 3] } else { (0..4).filter(|&i| pick[i]).collect() };
        prop_assume!(axes.iter().map(|&a| s[a]).product::<usize>() > 1);
        let at = if default_axes { attrs(vec![]) } else { attrs(vec![("axes", Attr::Ints(axes.iter().map(|&a| a as i64).collect()))]) };
        let want = interp_f64(Opcode::MeanVarianceNormalization, vec![Some((&s, &x))], at);
        let mut y = vec![0.0; x.len()];
        mean_variance_normalization(&s, &axes, &x, &mut y);
        check_close(&y, &want, NORM_RTOL, NORM_ATOL)?;
    }

    #[test]
    fn lp_normalization_matches_interpreter((s, axis, x) in along_axis(), p in 1..=2u32) {
        let at = attrs(vec![("axis", Attr::Int(axis as i64)), ("p", Attr::Int(p as i64))]);
        let want = interp_f64(Opcode::LpNormalization, vec![Some((&s, &x))], at);
        let mut y = vec![0.0; x.len()];
        lp_normalization(&s, axis, p, &x, &mut y);
        check_close(&y, &want, 1e-5, 1e-6)?;
    }
}
