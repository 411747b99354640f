//! The canonical `core.*` shape and reduction ops against their `onnx.*`
//! counterparts, both run through `ir::interp::eval_op`: over random shapes,
//! parameters (negative, unsorted and out-of-range where ONNX allows them)
//! and values (signed zeros, infinities, NaN), the canonical op with the
//! normalized static attributes must give the onnx op's result bit for bit.
//! Invalid attributes must be rejected with a message.

use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Mostly ordinary values, sometimes signed zeros, infinities or NaN.
fn val() -> impl Strategy<Value = f32> {
    let special = prop::sample::select(vec![0.0f32, -0.0, 1e30, -1e30, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    prop_oneof![12 => -8.0f32..8.0, 1 => special]
}

/// A shape of rank `1..=max_rank` with dims in `1..=3`.
fn shape(max_rank: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=3, 1..=max_rank)
}

/// An f32 tensor of `shape` filled (cycling) from `pool`.
fn fill(shape: &[usize], pool: &[f32]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(shape.to_vec(), Data::F32((0..n).map(|i| pool[i % pool.len()]).collect()))
}

fn pool() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(val(), 1..40)
}

fn i64s(v: &[i64]) -> Option<Tensor> {
    Some(Tensor::from_i64s(v.to_vec()))
}

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

/// Evaluate one op; panics with the error message on failure.
fn run(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs) -> Tensor {
    let mut out = eval_op(op, inputs, attrs, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
    out.remove(0)
}

/// Bit-for-bit equality (NaN payloads and signed zeros included).
fn assert_same(got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape, want.shape);
    assert_eq!(got.dtype(), want.dtype());
    assert_eq!(got.to_le_bytes(), want.to_le_bytes(), "values differ: {got:?} vs {want:?}");
}

/// `axes` (normalized, `0..rank`) written the way an exporter might: each
/// axis negative if its flag says so, in the order given by `rot`.
fn onnx_axes(axes: &[usize], rank: usize, neg: &[bool], rot: usize) -> Vec<i64> {
    let mut v: Vec<i64> =
        axes.iter().zip(neg.iter().cycle()).map(|(&a, &n)| if n { a as i64 - rank as i64 } else { a as i64 }).collect();
    if !v.is_empty() {
        let k = rot % v.len();
        v.rotate_left(k);
    }
    v
}

/// The axes flagged in `pick` (at least one: axis 0 if none is flagged).
fn picked(rank: usize, pick: &[bool]) -> Vec<usize> {
    let v: Vec<usize> = (0..rank).filter(|&i| pick.get(i).copied().unwrap_or(false)).collect();
    if v.is_empty() {
        vec![0]
    } else {
        v
    }
}

fn flags() -> impl Strategy<Value = Vec<bool>> {
    prop::collection::vec(any::<bool>(), 6)
}

proptest! {
    #![proptest_config(Config { cases: 96, ..Config::default() })]

    /// Reshape with 0 (copy) entries and a -1: the canonical shape resolves the copies.
    #[test]
    fn reshape_matches_onnx(s in shape(4), pool in pool(), copy in flags(), infer_at in 0usize..6, split in any::<bool>()) {
        let x = fill(&s, &pool);
        // Target: the input dims, optionally with the last dim split off into a new size-1 dim.
        let mut target: Vec<usize> = s.clone();
        if split {
            target.push(1);
        }
        let mut spec: Vec<i64> = target.iter().map(|&d| d as i64).collect();
        for (i, v) in spec.iter_mut().enumerate().take(s.len()) {
            if copy[i] {
                *v = 0;
            }
        }
        let mut canon: Vec<i64> = target.iter().map(|&d| d as i64).collect();
        if infer_at < spec.len() {
            spec[infer_at] = -1;
            canon[infer_at] = -1;
        }
        let want = run(Opcode::Reshape, &[Some(x.clone()), i64s(&spec)], Attrs::new());
        let got = run(Opcode::CoreReshape, &[Some(x)], Attrs::new().with("shape", ints(&canon)));
        assert_same(&got, &want);
    }

    /// Squeeze of some (or all, axes omitted) size-1 dims.
    #[test]
    fn squeeze_matches_onnx(s in shape(5), ones in flags(), pick in flags(), neg in flags(), rot in 0usize..5, omit in any::<bool>(), pool in pool()) {
        let mut s = s;
        for (i, d) in s.iter_mut().enumerate() {
            if ones[i] { *d = 1; }
        }
        let one_axes: Vec<usize> = (0..s.len()).filter(|&i| s[i] == 1).collect();
        prop_assume!(!one_axes.is_empty());
        let x = fill(&s, &pool);
        let chosen: Vec<usize> = if omit {
            one_axes.clone()
        } else {
            let v: Vec<usize> = one_axes.iter().copied().filter(|&a| pick[a]).collect();
            if v.is_empty() { vec![one_axes[0]] } else { v }
        };
        let axes_op = if omit { None } else { i64s(&onnx_axes(&chosen, s.len(), &neg, rot)) };
        let want = run(Opcode::Squeeze, &[Some(x.clone()), axes_op], Attrs::new());
        let canon: Vec<i64> = chosen.iter().map(|&a| a as i64).collect();
        let got = run(Opcode::CoreSqueeze, &[Some(x)], Attrs::new().with("axes", ints(&canon)));
        assert_same(&got, &want);
    }

    /// Unsqueeze at output positions given negative and out of order.
    #[test]
    fn unsqueeze_matches_onnx(s in shape(3), pick in flags(), neg in flags(), rot in 0usize..5, extra in 1usize..3, pool in pool()) {
        let x = fill(&s, &pool);
        let out_rank = s.len() + extra;
        let mut chosen = picked(out_rank, &pick);
        chosen.truncate(extra);
        while chosen.len() < extra {
            let next = (0..out_rank).find(|a| !chosen.contains(a)).unwrap_or(0);
            chosen.push(next);
        }
        chosen.sort_unstable();
        let want = run(Opcode::Unsqueeze, &[Some(x.clone()), i64s(&onnx_axes(&chosen, out_rank, &neg, rot))], Attrs::new());
        let canon: Vec<i64> = chosen.iter().map(|&a| a as i64).collect();
        let got = run(Opcode::CoreUnsqueeze, &[Some(x)], Attrs::new().with("axes", ints(&canon)));
        assert_same(&got, &want);
    }

    /// Every reduction kind, on f32 and i32 data, with or without keepdims.
    #[test]
    fn reduce_matches_onnx(s in shape(4), k in 0usize..10, pick in flags(), neg in flags(), rot in 0usize..5, keep in 0i64..2, all in any::<bool>(), int in prop::bool::weighted(0.2), pool in pool()) {
        let ops = [Opcode::ReduceMean, Opcode::ReduceSum, Opcode::ReduceMax, Opcode::ReduceMin, Opcode::ReduceProd,
            Opcode::ReduceL1, Opcode::ReduceL2, Opcode::ReduceSumSquare, Opcode::ReduceLogSum, Opcode::ReduceLogSumExp];
        let kind = ir::ops::reduce::REDUCE_KINDS[k];
        let mut x = fill(&s, &pool);
        if int {
            let v = x.to_f64s().iter().map(|&f| if f.is_finite() { f.clamp(-50.0, 50.0) as i32 } else { 3 }).collect();
            x = Tensor::new(s.clone(), Data::I32(v));
        }
        let chosen: Vec<usize> = if all { (0..s.len()).collect() } else { picked(s.len(), &pick) };
        let axes_op = if all { None } else { i64s(&onnx_axes(&chosen, s.len(), &neg, rot)) };
        let keepdims = Attrs::new().with("keepdims", Attr::Int(keep));
        let want = run(ops[k], &[Some(x.clone()), axes_op], keepdims.clone());
        let canon: Vec<i64> = chosen.iter().map(|&a| a as i64).collect();
        let attrs = keepdims.with("axes", ints(&canon)).with("kind", Attr::Str(kind.into()));
        let got = run(Opcode::CoreReduce, &[Some(x)], attrs);
        assert_same(&got, &want);
    }

    /// Slice with negative/out-of-range starts and ends, negative steps, axes
    /// negative and out of order (or omitted, with steps omitted).
    #[test]
    fn slice_matches_onnx(s in shape(4), pick in flags(), neg in flags(), rot in 0usize..5,
                          bounds in prop::collection::vec((-6i64..7, -6i64..7, prop::sample::select(vec![-3i64, -2, -1, 1, 1, 2, 3])), 6),
                          huge in flags(), omit in prop::bool::weighted(0.2), pool in pool()) {
        let x = fill(&s, &pool);
        let chosen: Vec<usize> = if omit { (0..s.len()).collect() } else { picked(s.len(), &pick) };
        let big = |i: usize, v: i64| if huge[i] { if v < 0 { i64::MIN } else { i64::MAX } } else { v };
        let (mut starts, mut ends, mut steps) = (vec![], vec![], vec![]);
        for (i, _) in chosen.iter().enumerate() {
            let (b, e, st) = bounds[i];
            starts.push(b);
            ends.push(big(i, e));
            steps.push(if omit { 1 } else { st });
        }
        let want = if omit {
            run(Opcode::Slice, &[Some(x.clone()), i64s(&starts), i64s(&ends)], Attrs::new())
        } else {
            // The onnx form lists the axes rotated (and some negative): rotate the other lists alike.
            let axes = onnx_axes(&chosen, s.len(), &neg, rot);
            let r = rot % chosen.len();
            let rotl = |v: &[i64]| { let mut v = v.to_vec(); v.rotate_left(r); v };
            run(Opcode::Slice, &[Some(x.clone()), i64s(&rotl(&starts)), i64s(&rotl(&ends)), i64s(&axes), i64s(&rotl(&steps))], Attrs::new())
        };
        let canon_axes: Vec<i64> = chosen.iter().map(|&a| a as i64).collect();
        let attrs = Attrs::new().with("starts", ints(&starts)).with("ends", ints(&ends))
            .with("axes", ints(&canon_axes)).with("steps", ints(&steps));
        let got = run(Opcode::CoreSlice, &[Some(x)], attrs);
        assert_same(&got, &want);
    }

    /// Expand by a shape that broadcasts with the input (shorter, longer, with 1s).
    #[test]
    fn expand_matches_onnx(s in shape(3), ones in flags(), lead in prop::collection::vec(1usize..3, 0..2), shrink in flags(), pool in pool()) {
        let mut s = s;
        for (i, d) in s.iter_mut().enumerate() {
            if ones[i] { *d = 1; }
        }
        let x = fill(&s, &pool);
        // Target: leading new dims, then per input dim either 1 (keep) or, for size-1 input dims, a bigger size.
        let mut target: Vec<i64> = lead.iter().map(|&d| d as i64).collect();
        for (i, &d) in s.iter().enumerate() {
            target.push(if shrink[i] { 1 } else if d == 1 { 2 + i as i64 % 2 } else { d as i64 });
        }
        let want = run(Opcode::Expand, &[Some(x.clone()), i64s(&target)], Attrs::new());
        let got = run(Opcode::CoreExpand, &[Some(x)], Attrs::new().with("shape", ints(&target)));
        assert_same(&got, &want);
    }
}

/// Evaluate expecting an error; returns the message.
fn run_err(op: Opcode, attrs: Attrs) -> String {
    let x = Tensor::new(vec![2, 3, 1], Data::F32(vec![0.0; 6]));
    match eval_op(op, &[Some(x)], attrs, 1) {
        Ok(v) => panic!("{} unexpectedly succeeded: {v:?}", op.name()),
        Err(e) => e,
    }
}

#[test]
fn invalid_attributes_are_rejected() {
    let a = |k: &str, v: &[i64]| Attrs::new().with(k, ints(v));
    let cases: Vec<(Opcode, Attrs, &str)> = vec![
        (Opcode::CoreReshape, a("shape", &[-1, -1]), "more than one -1"),
        (Opcode::CoreReshape, a("shape", &[0, -1]), "both a 0 dim and -1"),
        (Opcode::CoreReshape, a("shape", &[-2, 3]), "invalid entry -2"),
        (Opcode::CoreSqueeze, a("axes", &[]), "must not be empty"),
        (Opcode::CoreSqueeze, a("axes", &[-1]), "strictly increasing"),
        (Opcode::CoreUnsqueeze, a("axes", &[2, 0]), "strictly increasing"),
        (Opcode::CoreUnsqueeze, a("axes", &[1, 1]), "strictly increasing"),
        (Opcode::CoreExpand, a("shape", &[2, -1]), "negative dim"),
        (
            Opcode::CoreReduce,
            a("axes", &[0]).with("kind", Attr::Str("mean".into())).with("keepdims", Attr::Int(2)),
            "must be 0 or 1",
        ),
        (
            Opcode::CoreSlice,
            a("axes", &[0, 1]).with("starts", ints(&[0])).with("ends", ints(&[1])).with("steps", ints(&[1])),
            "equal lengths",
        ),
        (
            Opcode::CoreSlice,
            a("axes", &[0]).with("starts", ints(&[0])).with("ends", ints(&[1])).with("steps", ints(&[0])),
            "must not contain 0",
        ),
    ];
    for (op, attrs, want) in cases {
        let e = run_err(op, attrs.clone());
        assert!(e.contains(want), "{} {attrs:?}: error {e:?} does not mention {want:?}", op.name());
    }
}

#[test]
fn reshape_zero_is_a_zero_size_dim() {
    let x = Tensor::new(vec![0, 3], Data::F32(vec![]));
    let got = run(Opcode::CoreReshape, &[Some(x.clone())], Attrs::new().with("shape", ints(&[3, 0])));
    let want = run(Opcode::Reshape, &[Some(x), i64s(&[3, 0])], Attrs::new().with("allowzero", Attr::Int(1)));
    assert_same(&got, &want);
    assert_eq!(got.shape, vec![3, 0]);
}
