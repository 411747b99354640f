//! Slice, Pad, CenterCropPad and ReverseSequence.

use crate::common::shape::*;
use proptest::prelude::*;

fn slice(x: &Tensor, starts: &[i64], ends: &[i64], axes: Option<&[i64]>, steps: Option<&[i64]>) -> Tensor {
    let args = vec![Some(x.clone()), Some(ints(starts)), Some(ints(ends)), axes.map(ints), steps.map(ints)];
    run(Opcode::Slice, args, &[], 1).unwrap_or_else(|e| panic!("{e}")).remove(0)
}

fn vals(v: &[i32]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

#[test]
fn slice_node_test_cases() {
    let x = iota(&[5, 4, 3]);
    let r = slice(&x, &[0, 0], &[3, 10], Some(&[0, 1]), Some(&[1, 1]));
    eq_f32(&r, &[3, 4, 3], &(0..36).map(|i| i as f32).collect::<Vec<_>>());
    let r = slice(&x, &[0], &[-1], Some(&[1]), Some(&[1]));
    assert_eq!(r.shape, vec![5, 3, 3]);
    assert_eq!(r.to_f64s()[6..12], [6., 7., 8., 12., 13., 14.]);
    // test_slice_neg_steps
    let r = slice(&x, &[20, 10, 4], &[0, 0, 1], Some(&[0, 1, 2]), Some(&[-1, -3, -2]));
    eq_f32(&r, &[4, 1, 1], &[59., 47., 35., 23.]);
    // test_slice_default_axes / default_steps
    let r = slice(&x, &[0, 0, 1], &[20, 10, 2], None, None);
    eq_f32(&r, &[5, 4, 1], &vals(&[1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58]));
    // test_slice_end_out_of_bounds / start_out_of_bounds
    let r = slice(&x, &[1], &[1000], Some(&[1]), Some(&[1]));
    assert_eq!((r.shape.clone(), r.to_f64s()[0]), (vec![5, 3, 3], 3.));
    assert_eq!(slice(&x, &[1000], &[1000], Some(&[1]), Some(&[1])).shape, vec![5, 0, 3]);
    // test_slice_negative_axes
    let r = slice(&x, &[0, 0, 1], &[5, 4, 2], Some(&[0, -2, -1]), None);
    assert_eq!(r.shape, vec![5, 4, 1]);
    // Reverse everything with a huge negative end.
    let r = slice(&x, &[-1], &[i64::MIN], Some(&[0]), Some(&[-1]));
    assert_eq!(r.to_f64s()[..3], [48., 49., 50.]);
    let s = slice(&strt(&[4], &["a", "b", "c", "d"]), &[3], &[0], None, Some(&[-2]));
    assert_eq!(s, strt(&[2], &["d", "b"]));
    let i = slice(&i32t(&[4], &[1, 2, 3, 4]), &[1], &[3], None, None);
    assert_eq!(i, i32t(&[2], &[2, 3]));
    fails(Opcode::Slice, vec![Some(x.clone()), Some(ints(&[0])), Some(ints(&[1])), None, Some(ints(&[0]))], &[], 1);
    fails(Opcode::Slice, vec![Some(x.clone()), Some(ints(&[0])), Some(ints(&[1, 2]))], &[], 1);
    fails(Opcode::Slice, vec![Some(x), Some(ints(&[0])), Some(ints(&[1])), Some(ints(&[3]))], &[], 1);
}

proptest! {
    #[test]
    fn slice_matches_naive(n in 0usize..8, start in -10i64..10, end in -10i64..10, step in prop_oneof![-3i64..0, 1i64..4]) {
        let x = iota(&[n]);
        let got = slice(&x, &[start], &[end], None, Some(&[step]));
        // Naive: walk from the clamped start and keep in-range positions.
        let ni = n as i64;
        let adj = |v: i64| if v < 0 { v + ni } else { v };
        let mut want = Vec::new();
        if n > 0 {
            let (mut i, e) = if step > 0 { (adj(start).clamp(0, ni), adj(end).clamp(0, ni)) } else { (adj(start).clamp(0, ni - 1), adj(end).clamp(-1, ni - 1)) };
            while (step > 0 && i < e) || (step < 0 && i > e) {
                want.push(i as f32);
                i += step;
            }
        }
        prop_assert_eq!(got, f32t(&[want.len()], &want));
    }
}

#[test]
fn pad_modes() {
    let a = iota(&[3, 4]);
    let pads = ints(&[0, 1, 0, 2]);
    let pad = |mode: &str, c: Option<Tensor>| {
        run(Opcode::Pad, vec![Some(a.clone()), Some(pads.clone()), c], &[("mode", s(mode))], 1).unwrap().remove(0)
    };
    let c = 1.5;
    let want = [c, 0., 1., 2., 3., c, c, c, 4., 5., 6., 7., c, c, c, 8., 9., 10., 11., c, c];
    eq_f32(&pad("constant", Some(f32t(&[], &[c]))), &[3, 7], &want);
    let zeros = pad("constant", None);
    assert_eq!(zeros.to_f64s()[..2], [0., 0.]);
    eq_f32(&pad("reflect", None), &[3, 7], &vals(&[1, 0, 1, 2, 3, 2, 1, 5, 4, 5, 6, 7, 6, 5, 9, 8, 9, 10, 11, 10, 9]));
    eq_f32(&pad("edge", None), &[3, 7], &vals(&[0, 0, 1, 2, 3, 3, 3, 4, 4, 5, 6, 7, 7, 7, 8, 8, 9, 10, 11, 11, 11]));
    eq_f32(&pad("wrap", None), &[3, 7], &vals(&[3, 0, 1, 2, 3, 0, 1, 7, 4, 5, 6, 7, 4, 5, 11, 8, 9, 10, 11, 8, 9]));
    // Reflecting further than the axis is long (numpy's repeated reflection).
    let r = run1(Opcode::Pad, vec![a.clone(), ints(&[2, 0, 2, 0])], &[("mode", s("reflect"))]);
    let want = [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3];
    eq_f32(&r, &[7, 4], &vals(&want));
    // Negative pads crop, then edge mode reads the kept region.
    let r = run1(Opcode::Pad, vec![a.clone(), ints(&[-1, 0, 0, 1])], &[("mode", s("edge"))]);
    eq_f32(&r, &[2, 5], &vals(&[4, 5, 6, 7, 7, 8, 9, 10, 11, 11]));
    // test_constant_pad_axes / negative axes
    let args = |axes: &[i64]| vec![Some(a.clone()), Some(ints(&[1, 0])), Some(f32t(&[], &[9.])), Some(ints(axes))];
    let r = run(Opcode::Pad, args(&[-1]), &[], 1).unwrap().remove(0);
    eq_f32(&r, &[3, 5], &vals(&[9, 0, 1, 2, 3, 9, 4, 5, 6, 7, 9, 8, 9, 10, 11]));
    let r = run(Opcode::Pad, args(&[0]), &[], 1).unwrap().remove(0);
    assert_eq!((r.shape.clone(), r.to_f64s()[..5].to_vec()), (vec![4, 4], vec![9., 9., 9., 9., 0.]));
    let st = run(Opcode::Pad, vec![Some(strt(&[1], &["x"])), Some(ints(&[1, 1])), Some(strt(&[], &["_"]))], &[], 1);
    assert_eq!(st.unwrap()[0], strt(&[3], &["_", "x", "_"]));
    fails(Opcode::Pad, vec![Some(a.clone()), Some(ints(&[1, 1]))], &[], 1);
    fails(Opcode::Pad, vec![Some(a.clone()), Some(ints(&[0, -5, 0, 0]))], &[], 1);
    fails(Opcode::Pad, vec![Some(f32t(&[0], &[])), Some(ints(&[1, 0]))], &[("mode", s("reflect"))], 1);
    fails(Opcode::Pad, vec![Some(a), Some(pads), Some(i32t(&[], &[1]))], &[], 1);
}

#[test]
fn center_crop_pad() {
    let x = iota(&[5, 4]);
    // Crop rows 5 -> 3 (start 1), pad columns 4 -> 6 (one zero before).
    let r = run1(Opcode::CenterCropPad, vec![x.clone(), ints(&[3, 6])], &[]);
    eq_f32(&r, &[3, 6], &vals(&[0, 4, 5, 6, 7, 0, 0, 8, 9, 10, 11, 0, 0, 12, 13, 14, 15, 0]));
    // Odd differences: crop 4 -> 1 keeps index 1; pad 2 -> 5 puts one zero before.
    let r = run1(Opcode::CenterCropPad, vec![iota(&[4]), ints(&[1])], &[]);
    eq_f32(&r, &[1], &[1.]);
    let r = run1(Opcode::CenterCropPad, vec![iota(&[2]), ints(&[5])], &[]);
    eq_f32(&r, &[5], &[0., 0., 1., 0., 0.]);
    // test_center_crop_pad_crop_axes_hwc / negative axes
    let hwc = iota(&[4, 2, 3]);
    let r = run1(Opcode::CenterCropPad, vec![hwc.clone(), ints(&[2, 2])], &[("axes", ir::Attr::Ints(vec![-3, -2]))]);
    eq_f32(&r, &[2, 2, 3], &vals(&[6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]));
    let r = run1(Opcode::CenterCropPad, vec![strt(&[1], &["a"]), i32t(&[1], &[3])], &[]);
    assert_eq!(r, strt(&[3], &["", "a", ""]));
    fails(Opcode::CenterCropPad, vec![Some(x), Some(ints(&[3]))], &[], 1);
}

#[test]
fn reverse_sequence_batch_and_time() {
    let x = iota(&[4, 4]);
    let at = [("batch_axis", int(0)), ("time_axis", int(1))];
    let r = run1(Opcode::ReverseSequence, vec![x.clone(), ints(&[1, 2, 3, 4])], &at);
    eq_f32(&r, &[4, 4], &vals(&[0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12]));
    let xt = f32t(&[4, 4], &vals(&[0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]));
    let r = run1(Opcode::ReverseSequence, vec![xt, ints(&[4, 3, 2, 1])], &[]);
    eq_f32(&r, &[4, 4], &vals(&[3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15]));
    let s = run1(Opcode::ReverseSequence, vec![strt(&[2, 1], &["a", "b"]), ints(&[2])], &[]);
    assert_eq!(s, strt(&[2, 1], &["b", "a"]));
    fails(Opcode::ReverseSequence, vec![Some(x.clone()), Some(ints(&[5, 1, 1, 1]))], &at, 1);
    fails(Opcode::ReverseSequence, vec![Some(x), Some(ints(&[1, 1]))], &at, 1);
}

#[test]
fn huge_or_overflowing_operands_are_errors() {
    let x = iota(&[2, 2]);
    fails(Opcode::Tile, vec![Some(x.clone()), Some(ints(&[i64::MAX, 2]))], &[], 1);
    fails(Opcode::Pad, vec![Some(x.clone()), Some(ints(&[i64::MAX, 0, 1, 0]))], &[], 1);
    fails(Opcode::Pad, vec![Some(x.clone()), Some(ints(&[i64::MIN, 0, 0, 0]))], &[], 1);
    fails(Opcode::Expand, vec![Some(x.clone()), Some(ints(&[1 << 40, 2]))], &[], 1);
    fails(Opcode::Reshape, vec![Some(x.clone()), Some(ints(&[i64::MAX, i64::MAX]))], &[], 1);
    fails(Opcode::CenterCropPad, vec![Some(x.clone()), Some(ints(&[1 << 40, 2]))], &[], 1);
    let big = [Some(f32t(&[], &[0.])), Some(f32t(&[], &[1e9])), Some(f32t(&[], &[1.]))];
    fails(Opcode::Range, big.to_vec(), &[], 1);
    fails(Opcode::OneHot, vec![Some(ints(&[1])), Some(scalar_i64(1 << 40)), Some(ints(&[0, 1]))], &[], 1);
    let extreme = vec![Some(x), Some(ints(&[i64::MIN])), Some(ints(&[i64::MAX])), None, Some(ints(&[i64::MIN]))];
    assert_eq!(run(Opcode::Slice, extreme, &[], 1).unwrap()[0].shape, vec![0, 2]);
}

proptest! {
    #[test]
    fn constant_pad_matches_naive(n in 0usize..5, b in -3i64..4, e in -3i64..4) {
        prop_assume!(n as i64 + b.min(0) + e.min(0) >= 0);
        let x = iota(&[n]);
        let r = run(Opcode::Pad, vec![Some(x), Some(ints(&[b, e])), Some(f32t(&[], &[-1.]))], &[], 1);
        let r = r.unwrap().remove(0);
        let len = (n as i64 + b + e) as usize;
        // Output position o reads input o - b when that is in range.
        let want: Vec<f32> = (0..len as i64).map(|o| { let i = o - b; if (0..n as i64).contains(&i) { i as f32 } else { -1. } }).collect();
        prop_assert_eq!(r, f32t(&[len], &want));
    }
}
