//! Reductions vs the interpreter.

use super::common::*;
use edgec_kernels::reduce::*;
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn kind() -> impl Strategy<Value = Reduce> {
    use Reduce::*;
    prop::sample::select(vec![Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp])
}

fn opcode(k: Reduce) -> Opcode {
    match k {
        Reduce::Sum => Opcode::ReduceSum,
        Reduce::Mean => Opcode::ReduceMean,
        Reduce::Max => Opcode::ReduceMax,
        Reduce::Min => Opcode::ReduceMin,
        Reduce::Prod => Opcode::ReduceProd,
        Reduce::L1 => Opcode::ReduceL1,
        Reduce::L2 => Opcode::ReduceL2,
        Reduce::SumSquare => Opcode::ReduceSumSquare,
        Reduce::LogSum => Opcode::ReduceLogSum,
        Reduce::LogSumExp => Opcode::ReduceLogSumExp,
    }
}

/// The interpreter's `Reduce*` over `axes` (an empty list reduces nothing).
fn interp_reduce(k: Reduce, shape: &[usize], x: &[f32], axes: &[usize], keepdims: bool) -> (Vec<usize>, Vec<f32>) {
    let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let at = attrs(vec![("keepdims", Attr::Int(keepdims as i64)), ("noop_with_empty_axes", Attr::Int(1))]);
    let out = interp(opcode(k), vec![Some(f32t(shape, x)), Some(ints(&ax))], at, 1);
    (out[0].shape.clone(), as_f32(&out[0]))
}

/// A shape, a sorted subset of its axes and data.
fn case(
    max_rank: usize,
    elem: impl Strategy<Value = f32> + Clone,
) -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<f32>)> {
    shape(1..=max_rank, 5).prop_flat_map(move |s| {
        let r = s.len();
        let n = numel(&s);
        (Just(s), prop::collection::vec(any::<bool>(), r), data(n, elem.clone()))
            .prop_map(|(s, pick, x)| (s, (0..pick.len()).filter(|&i| pick[i]).collect(), x))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn reduce_matches_interpreter(k in kind(), keep in any::<bool>(), (s, axes, x) in case(5, finite())) {
        let (want_shape, want) = interp_reduce(k, &s, &x, &axes, keep);
        let mut y = vec![0.0; numel(&want_shape)];
        reduce(k, &s, &axes, &x, &mut y);
        check_close(&y, &want, 1e-6, 1e-6)?;
    }

    #[test]
    fn reduce_special_values_match_interpreter(k in kind(), (s, axes, x) in case(4, special())) {
        let (want_shape, want) = interp_reduce(k, &s, &x, &axes, false);
        let mut y = vec![0.0; numel(&want_shape)];
        reduce(k, &s, &axes, &x, &mut y);
        check_close(&y, &want, 1e-6, 1e-6)?;
    }

    #[test]
    fn arg_max_min_match_interpreter(
        max in any::<bool>(),
        last in any::<bool>(),
        keep in any::<bool>(),
        (s, axis, x) in shape(1..=4, 5).prop_flat_map(|s| {
            let n = numel(&s);
            let e = prop_oneof![6 => (-3i32..3).prop_map(|v| v as f32), 1 => Just(f32::NAN)];
            (Just(s.clone()), 0..s.len(), data(n, e))
        }),
    ) {
        let code = if max { Opcode::ArgMax } else { Opcode::ArgMin };
        let at = || attrs(vec![("axis", Attr::Int(axis as i64)), ("keepdims", Attr::Int(keep as i64)),
            ("select_last_index", Attr::Int(last as i64))]);
        let want = as_i64(&interp(code, vec![Some(f32t(&s, &x))], at(), 1)[0]);
        let mut y = vec![0i64; want.len()];
        if max { arg_max(&s, axis, last, &x, &mut y) } else { arg_min(&s, axis, last, &x, &mut y) }
        prop_assert_eq!(&y, &want);
        let xi: Vec<i64> = x.iter().map(|&v| if v.is_nan() { 7 } else { v as i64 }).collect();
        let want = as_i64(&interp(code, vec![Some(i64t(&s, &xi))], at(), 1)[0]);
        if max { arg_max(&s, axis, last, &xi, &mut y) } else { arg_min(&s, axis, last, &xi, &mut y) }
        prop_assert_eq!(&y, &want);
    }
}

/// Rank 18 with alternating reduced axes does not coalesce: the slow path.
#[test]
fn reduce_high_rank_slow_path() {
    let s: Vec<usize> = (0..18).map(|i| if i % 3 == 0 { 2 } else { 1 + i % 2 }).collect();
    let axes: Vec<usize> = (0..18).filter(|i| i % 2 == 0).collect();
    let x: Vec<f32> = (0..numel(&s)).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
    for k in [Reduce::Sum, Reduce::LogSumExp, Reduce::Max, Reduce::L2] {
        let (ws, want) = interp_reduce(k, &s, &x, &axes, true);
        let mut y = vec![0.0; numel(&ws)];
        reduce(k, &s, &axes, &x, &mut y);
        check_close(&y, &want, 1e-6, 1e-6).unwrap();
    }
}

/// Reductions over an empty axis give the identities.
#[test]
fn reduce_empty_groups() {
    for k in [Reduce::Sum, Reduce::Prod, Reduce::Max, Reduce::Min, Reduce::Mean, Reduce::LogSumExp, Reduce::L2] {
        let (ws, want) = interp_reduce(k, &[3, 0], &[], &[1], false);
        let mut y = vec![0.0; numel(&ws)];
        reduce(k, &[3, 0], &[1], &[], &mut y);
        check_close(&y, &want, 0.0, 0.0).unwrap();
    }
}

/// The interpreter's integer / bool `Reduce*` over `axes` (keepdims).
fn interp_exact(op: Opcode, x: ir::interp::Tensor, axes: &[usize]) -> ir::interp::Tensor {
    let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let at = attrs(vec![("keepdims", Attr::Int(1)), ("noop_with_empty_axes", Attr::Int(1))]);
    interp(op, vec![Some(x), Some(ints(&ax))], at, 1).remove(0)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn integer_and_bool_reductions_match_interpreter((s, axes, x) in case(4, -100.0f32..100.0), big in any::<bool>()) {
        use edgec_kernels::reduce::exact::{reduce_exact, ExactReduce};
        use ir::interp::Data;
        let kept = numel(&s) / axes.iter().map(|&a| s[a]).product::<usize>().max(1);
        // Large values make sums and products wrap.
        let xi: Vec<i32> = x.iter().map(|&v| if big { (v * 2e7) as i32 } else { v as i32 }).collect();
        for (k, op) in [(ExactReduce::Max, Opcode::ReduceMax), (ExactReduce::Min, Opcode::ReduceMin),
                        (ExactReduce::Sum, Opcode::ReduceSum), (ExactReduce::Prod, Opcode::ReduceProd)] {
            let Data::I32(want) = interp_exact(op, i32t(&s, &xi), &axes).data else { panic!("not i32") };
            let mut y = vec![0i32; kept];
            reduce_exact(k, &s, &axes, &xi, &mut y);
            prop_assert_eq!(&y, &want, "{:?}", k);
        }
        let xb: Vec<bool> = x.iter().map(|&v| v > 0.0).collect();
        for (k, op) in [(ExactReduce::Max, Opcode::ReduceMax), (ExactReduce::Min, Opcode::ReduceMin)] {
            let want = as_bool(&interp_exact(op, boolt(&s, &xb), &axes));
            let mut y = vec![false; kept];
            reduce_exact(k, &s, &axes, &xb, &mut y);
            prop_assert_eq!(&y, &want, "{:?}", k);
        }
    }
}
