//! Data-movement kernels vs the interpreter (all exact).

use super::common::*;
use edgec_kernels::generate::{range_f32, range_i64, range_len_f32, range_len_i64};
use edgec_kernels::index::{gather, gather_elements, one_hot};
use edgec_kernels::layout::*;
use edgec_kernels::select::top_k;
use ir::{Attr, Opcode};
use proptest::prelude::*;

/// Distinct values, so any misplaced element shows.
fn iota(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 + 0.25).collect()
}

fn f32_of(t: &ir::interp::Tensor) -> (Vec<usize>, Vec<f32>) {
    (t.shape.clone(), as_f32(t))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn transpose_matches_interpreter((s, perm) in shape(0..=6, 5).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), Just((0..r).collect::<Vec<usize>>()).prop_shuffle())
    })) {
        let x = iota(numel(&s));
        let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        let (ws, want) = f32_of(&interp(Opcode::Transpose, vec![Some(f32t(&s, &x))], attrs(vec![("perm", Attr::Ints(p))]), 1)[0]);
        let mut y = vec![0.0; x.len()];
        transpose(&s, &perm, &x, &mut y);
        prop_assert_eq!(&y, &want);
        // Generic: the same on i64.
        let xi: Vec<i64> = (0..x.len() as i64).collect();
        let mut yi = vec![0i64; x.len()];
        transpose(&s, &perm, &xi, &mut yi);
        prop_assert_eq!(yi.iter().map(|&v| v as f32 + 0.25).collect::<Vec<_>>(), want);
        prop_assert_eq!(ws.len(), s.len());
    }

    #[test]
    fn big_tiled_transposes_match_interpreter(a in 1..40usize, b in 1..40usize, n in 1..3usize, nhwc in any::<bool>()) {
        let (s, perm) = if nhwc { (vec![n, a, b, 3], vec![0, 3, 1, 2]) } else { (vec![n, a, b], vec![0, 2, 1]) };
        let x = iota(numel(&s));
        let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        let want = as_f32(&interp(Opcode::Transpose, vec![Some(f32t(&s, &x))], attrs(vec![("perm", Attr::Ints(p))]), 1)[0]);
        let mut y = vec![0.0; x.len()];
        transpose(&s, &perm, &x, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn concat_and_split_match_interpreter((s, axis, sizes) in shape(1..=4, 4).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r, prop::collection::vec(0..4usize, 1..=4))
    })) {
        let parts: Vec<(Vec<usize>, Vec<f32>)> = sizes.iter().enumerate().map(|(i, &k)| {
            let mut ps = s.clone();
            ps[axis] = k;
            let v = iota(numel(&ps)).iter().map(|v| v + 1000.0 * i as f32).collect();
            (ps, v)
        }).collect();
        prop_assume!(parts.iter().any(|(ps, _)| ps[axis] > 0));
        let ins = parts.iter().map(|(ps, v)| Some(f32t(ps, v))).collect();
        let (ws, want) = f32_of(&interp(Opcode::Concat, ins, attrs(vec![("axis", Attr::Int(axis as i64))]), 1)[0]);
        let views: Vec<(&[usize], &[f32])> = parts.iter().map(|(ps, v)| (ps.as_slice(), v.as_slice())).collect();
        let mut y = vec![0.0; want.len()];
        concat(axis, &views, &ws, &mut y);
        prop_assert_eq!(&y, &want);
        // Split the concatenation back.
        let split_sizes: Vec<i64> = sizes.iter().map(|&k| k as i64).collect();
        let outs = interp(Opcode::Split, vec![Some(f32t(&ws, &want)), Some(ints(&split_sizes))],
            attrs(vec![("axis", Attr::Int(axis as i64))]), sizes.len());
        let mut bufs: Vec<Vec<f32>> = outs.iter().map(|t| vec![0.0; t.len()]).collect();
        let mut refs: Vec<&mut [f32]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
        split(axis, &ws, &y, &sizes, &mut refs);
        for (b, t) in bufs.iter().zip(&outs) {
            prop_assert_eq!(b, &as_f32(t));
        }
    }

    #[test]
    fn slice_matches_interpreter((s, ranges) in shape(1..=4, 6).prop_flat_map(|s| {
        let r = s.len();
        let axis = prop_oneof![
            3 => (-8i64..8, -8i64..8, prop_oneof![3 => 1i64..=3, 2 => -3i64..=-1]),
            1 => (Just(0i64), Just(i64::MAX), Just(1i64)),
            1 => (Just(-1i64), Just(i64::MIN), Just(-1i64)),
        ];
        (Just(s), prop::collection::vec(axis, r))
    })) {
        let x = iota(numel(&s));
        let (st, en, sp): (Vec<i64>, Vec<i64>, Vec<i64>) =
            (ranges.iter().map(|r| r.0).collect(), ranges.iter().map(|r| r.1).collect(), ranges.iter().map(|r| r.2).collect());
        let axes: Vec<i64> = (0..s.len() as i64).collect();
        let ins = vec![Some(f32t(&s, &x)), Some(ints(&st)), Some(ints(&en)), Some(ints(&axes)), Some(ints(&sp))];
        let (ws, want) = f32_of(&interp(Opcode::Slice, ins, attrs(vec![]), 1)[0]);
        let sa: Vec<SliceAxis> = (0..s.len()).map(|d| slice_axis(s[d], st[d], en[d], sp[d])).collect();
        prop_assert_eq!(sa.iter().map(|a| a.len).collect::<Vec<_>>(), ws);
        let mut y = vec![0.0; want.len()];
        slice(&s, &sa, &x, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn gather_matches_interpreter((s, axis, is, idx) in shape(1..=3, 5).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r, shape(0..=2, 3))
    }).prop_flat_map(|(s, axis, is)| {
        let n = s[axis] as i64;
        let m = numel(&is);
        (Just(s), Just(axis), Just(is), prop::collection::vec(-n..n, m))
    })) {
        let x = iota(numel(&s));
        let want = as_f32(&interp(Opcode::Gather, vec![Some(f32t(&s, &x)), Some(i64t(&is, &idx))],
            attrs(vec![("axis", Attr::Int(axis as i64))]), 1)[0]);
        let mut y = vec![0.0; want.len()];
        gather(&s, axis, &x, &idx, &mut y);
        prop_assert_eq!(&y, &want);
        let idx32: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
        gather(&s, axis, &x, &idx32, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn gather_elements_matches_interpreter((s, axis, is, idx) in shape(1..=4, 4).prop_flat_map(|s| {
        let r = s.len();
        (Just(s.clone()), 0..r, s.iter().map(|&d| 1..=d).collect::<Vec<_>>())
    }).prop_flat_map(|(s, axis, mut is)| {
        is[axis] = (s[axis] + 1).min(4);
        let n = s[axis] as i64;
        let m = numel(&is);
        (Just(s), Just(axis), Just(is), prop::collection::vec(-n..n, m))
    })) {
        let x = iota(numel(&s));
        let want = as_f32(&interp(Opcode::GatherElements, vec![Some(f32t(&s, &x)), Some(i64t(&is, &idx))],
            attrs(vec![("axis", Attr::Int(axis as i64))]), 1)[0]);
        let mut y = vec![0.0; want.len()];
        gather_elements(&s, axis, &x, &is, &idx, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn pad_matches_interpreter(
        mode in 0..4usize,
        value in -5f32..5.0,
        (s, pads) in shape(1..=4, 4).prop_flat_map(|s| {
            let r = s.len();
            (Just(s), prop::collection::vec((-2isize..=3, -2isize..=3), r))
        }),
    ) {
        // Keep at least one element per axis (reflect/edge/wrap need it).
        let pads: Vec<(isize, isize)> = pads.iter().zip(&s).map(|(&(b, e), &n)| {
            if n as isize - (-b).max(0) - (-e).max(0) < 1 { (b.max(0), e.max(0)) } else { (b, e) }
        }).collect();
        let x = iota(numel(&s));
        let mut flat: Vec<i64> = pads.iter().map(|p| p.0 as i64).collect();
        flat.extend(pads.iter().map(|p| p.1 as i64));
        let name = ["constant", "reflect", "edge", "wrap"][mode];
        let ins = vec![Some(f32t(&s, &x)), Some(ints(&flat)), Some(f32t(&[], &[value]))];
        let want = as_f32(&interp(Opcode::Pad, ins, attrs(vec![("mode", Attr::Str(name.into()))]), 1)[0]);
        let m = [PadMode::Constant(value), PadMode::Reflect, PadMode::Edge, PadMode::Wrap][mode];
        let (b, e): (Vec<isize>, Vec<isize>) = pads.iter().copied().unzip();
        let mut y = vec![0.0; want.len()];
        pad(&s, &b, &e, m, &x, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn expand_and_tile_match_interpreter(
        (s, target) in shape(0..=4, 4).prop_flat_map(|out| (operand_of(out.clone()), Just(out))),
        reps in prop::collection::vec(0..=3usize, 4),
    ) {
        let x = iota(numel(&s));
        let t: Vec<i64> = target.iter().map(|&d| d as i64).collect();
        let (ws, want) = f32_of(&interp(Opcode::Expand, vec![Some(f32t(&s, &x)), Some(ints(&t))], attrs(vec![]), 1)[0]);
        let mut y = vec![0.0; want.len()];
        expand(&s, &x, &ws, &mut y);
        prop_assert_eq!(&y, &want);
        let reps = &reps[..s.len()];
        let r: Vec<i64> = reps.iter().map(|&k| k as i64).collect();
        let want = as_f32(&interp(Opcode::Tile, vec![Some(f32t(&s, &x)), Some(ints(&r))], attrs(vec![]), 1)[0]);
        let mut y = vec![0.0; want.len()];
        tile(&s, reps, &x, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn depth_space_match_interpreter(n in 1..3usize, c in 1..4usize, h in 1..4usize, w in 1..4usize, b in 1..4usize, crd in any::<bool>()) {
        let s = [n, c * b * b, h, w];
        let x = iota(numel(&s));
        let at = attrs(vec![("blocksize", Attr::Int(b as i64)), ("mode", Attr::Str(if crd { "CRD" } else { "DCR" }.into()))]);
        let want = as_f32(&interp(Opcode::DepthToSpace, vec![Some(f32t(&s, &x))], at, 1)[0]);
        let mut y = vec![0.0; x.len()];
        depth_to_space(&s, b, if crd { DepthToSpace::Crd } else { DepthToSpace::Dcr }, &x, &mut y);
        prop_assert_eq!(&y, &want);
        let s2 = [n, c, h * b, w * b];
        let want = as_f32(&interp(Opcode::SpaceToDepth, vec![Some(f32t(&s2, &x))], attrs(vec![("blocksize", Attr::Int(b as i64))]), 1)[0]);
        space_to_depth(&s2, b, &x, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn range_matches_interpreter(start in -50f32..50.0, limit in -50f32..50.0, delta in prop_oneof![-7f32..-0.1, 0.1f32..7.0],
        si in -50i64..50, li in -50i64..50, di in prop_oneof![-7i64..=-1, 1i64..=7]) {
        let want = as_f32(&interp(Opcode::Range, vec![Some(f32t(&[], &[start])), Some(f32t(&[], &[limit])), Some(f32t(&[], &[delta]))], attrs(vec![]), 1)[0]);
        prop_assert_eq!(range_len_f32(start, limit, delta), want.len());
        let mut y = vec![0.0; want.len()];
        range_f32(start, delta, &mut y);
        prop_assert_eq!(&y, &want);
        let want = as_i64(&interp(Opcode::Range, vec![Some(i64t(&[], &[si])), Some(i64t(&[], &[li])), Some(i64t(&[], &[di]))], attrs(vec![]), 1)[0]);
        prop_assert_eq!(range_len_i64(si, li, di), want.len());
        let mut y = vec![0i64; want.len()];
        range_i64(si, di, &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn one_hot_matches_interpreter((is, axis, depth, idx) in shape(0..=3, 4).prop_flat_map(|is| {
        let r = is.len();
        (Just(is), 0..=r, 1..5usize)
    }).prop_flat_map(|(is, axis, depth)| {
        let m = numel(&is);
        (Just(is), Just(axis), Just(depth), prop::collection::vec(-7i64..7, m))
    })) {
        let ins = vec![Some(i64t(&is, &idx)), Some(i64t(&[], &[depth as i64])), Some(f32t(&[2], &[-1.5, 2.5]))];
        let want = as_f32(&interp(Opcode::OneHot, ins, attrs(vec![("axis", Attr::Int(axis as i64))]), 1)[0]);
        let mut y = vec![0.0; want.len()];
        one_hot(&is, axis, depth, &idx, (-1.5, 2.5), &mut y);
        prop_assert_eq!(&y, &want);
    }

    #[test]
    fn top_k_matches_interpreter(largest in any::<bool>(), (s, axis, k, x) in shape(1..=3, 6).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r)
    }).prop_flat_map(|(s, axis)| {
        let n = numel(&s);
        let e = prop_oneof![6 => (-4i32..4).prop_map(|v| v as f32), 1 => Just(f32::NAN)];
        (Just(s.clone()), Just(axis), 0..=s[axis], data(n, e))
    })) {
        let at = attrs(vec![("axis", Attr::Int(axis as i64)), ("largest", Attr::Int(largest as i64))]);
        let out = interp(Opcode::TopK, vec![Some(f32t(&s, &x)), Some(ints(&[k as i64]))], at, 2);
        let mut v = vec![0.0; out[0].len()];
        let mut i = vec![0i64; out[0].len()];
        top_k(&s, axis, k, largest, &x, &mut v, &mut i);
        check_close(&v, &as_f32(&out[0]), 0.0, 0.0)?;
        prop_assert_eq!(&i, &as_i64(&out[1]));
    }
}

#[test]
fn high_rank_transpose_slow_path() {
    // 18 axes of size 2, reversed: no two stay adjacent.
    let s = vec![2usize; 18];
    let perm: Vec<usize> = (0..18).rev().collect();
    let x = iota(numel(&s));
    let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    let want = as_f32(&interp(Opcode::Transpose, vec![Some(f32t(&s, &x))], attrs(vec![("perm", Attr::Ints(p))]), 1)[0]);
    let mut y = vec![0.0; x.len()];
    transpose(&s, &perm, &x, &mut y);
    assert_eq!(y, want);
}
