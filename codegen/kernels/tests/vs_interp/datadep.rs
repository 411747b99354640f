//! Ops whose result size depends on the data (NonZero, Compress, Unique,
//! NonMaxSuppression) and Range with run-time operands vs the interpreter:
//! the count functions must give the size the interpreter computed; the
//! kernel, given that size, must produce the same integers exactly (and the
//! same floats bit for bit), and must report an error when given another.

use super::common::*;
use edgec_kernels::generate::range;
use edgec_kernels::select::dynamic::{
    compress, compress_count, nonzero, nonzero_count, unique_counts, unique_groups, unique_indices, unique_inverse,
    unique_scratch_len, unique_values, Compress, Unique,
};
use edgec_kernels::select::nms::{nms, nms_rows_len, nms_scratch_len, Nms, NmsLimits};
use ir::interp::{Data, Tensor};
use ir::{Attr, Opcode};
use proptest::prelude::*;

/// Values with many repeats, zeros (both signs) and NaN.
fn repeats() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        6 => (-3i32..4).prop_map(|k| k as f32),
        1 => Just(-0.0f32),
        1 => Just(f32::NAN),
        1 => -2f32..2f32,
    ]
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn nonzero_matches((s, x) in tensor(shape(0..=4, 4), repeats())) {
        let want = interp(Opcode::NonZero, vec![Some(f32t(&s, &x))], attrs(vec![]), 1).remove(0);
        let count = want.shape[1];
        prop_assert_eq!(nonzero_count(&x), count);
        let mut y = vec![0i64; s.len() * count];
        nonzero(&s, &x, count, &mut y).unwrap();
        prop_assert_eq!(&y, &as_i64(&want));
        let mut wrong = vec![0i64; s.len() * (count + 1)];
        prop_assert!(nonzero(&s, &x, count + 1, &mut wrong).is_err());
    }

    #[test]
    fn compress_matches((s, x) in tensor(shape(1..=3, 4), finite()), ax in 0usize..4, flat in any::<bool>(),
                        cond in prop::collection::vec(any::<bool>(), 0..6)) {
        let ax = ax % s.len();
        let n = if flat { numel(&s) } else { s[ax] };
        let cond: Vec<bool> = cond.into_iter().take(n).collect();
        let at = if flat { attrs(vec![]) } else { attrs(vec![("axis", Attr::Int(ax as i64))]) };
        let want = interp(Opcode::Compress, vec![Some(f32t(&s, &x)), Some(boolt(&[cond.len()], &cond))], at, 1).remove(0);
        let kept = cond.iter().filter(|&&c| c).count();
        let p = if flat { Compress { outer: 1, n, inner: 1 } } else { Compress { outer: numel(&s[..ax]), n, inner: numel(&s[ax + 1..]) } };
        prop_assert_eq!(compress_count(&p, &cond), Ok(kept));
        let mut y = vec![0.0f32; want.len()];
        compress(&p, &cond, &x, kept, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&as_f32(&want)));
        prop_assert!(compress(&p, &cond, &x, kept + 1, &mut vec![0.0; y.len() + p.outer * p.inner]).is_err());
    }

    #[test]
    fn compress_rejects_a_condition_past_the_axis(n in 1usize..5, extra in 1usize..3) {
        let mut cond = vec![false; n + extra];
        cond[n + extra - 1] = true;
        let x = vec![1.0f32; n];
        let p = Compress { outer: 1, n, inner: 1 };
        prop_assert!(compress_count(&p, &cond).is_err());
        prop_assert!(compress(&p, &cond, &x, 1, &mut [0.0]).is_err());
    }

    #[test]
    fn unique_matches((s, x) in tensor(shape(1..=3, 4), repeats()), ax in prop::option::of(0usize..3), sorted in any::<bool>()) {
        let ax = ax.map(|a| a % s.len());
        let mut list = vec![("sorted", Attr::Int(sorted as i64))];
        if let Some(a) = ax {
            list.push(("axis", Attr::Int(a as i64)));
        }
        let want = interp(Opcode::Unique, vec![Some(f32t(&s, &x))], attrs(list), 4);
        let p = match ax {
            Some(a) => Unique { outer: numel(&s[..a]), n: s[a], inner: numel(&s[a + 1..]), sorted },
            None => Unique { outer: 1, n: x.len(), inner: 1, sorted },
        };
        let mut scratch = vec![0usize; unique_scratch_len(p.n)];
        let u = unique_groups(&p, &x, &mut scratch);
        prop_assert_eq!(u, want[1].len());
        let mut y = vec![0.0f32; p.outer * u * p.inner];
        unique_values(&p, &x, &scratch, u, &mut y);
        prop_assert_eq!(bits(&y), bits(&as_f32(&want[0])));
        let (mut first, mut inverse, mut counts) = (vec![0i64; u], vec![0i64; p.n], vec![0i64; u]);
        unique_indices(p.n, &scratch, &mut first);
        unique_inverse(p.n, &scratch, &mut inverse);
        unique_counts(p.n, &scratch, &mut counts);
        prop_assert_eq!(first, as_i64(&want[1]));
        prop_assert_eq!(inverse, as_i64(&want[2]));
        prop_assert_eq!(counts, as_i64(&want[3]));
    }

    #[test]
    fn nms_matches(batches in 1usize..3, classes in 1usize..3, n in 1usize..7, center in any::<bool>(),
                   max in -1i64..5, iou in 0.0f32..1.0, score in prop::option::of(0.0f32..1.0),
                   seed in prop::collection::vec(0.0f32..4.0, 2 * 6 * 4), sc in prop::collection::vec(0.0f32..1.0, 2 * 2 * 6)) {
        let boxes = &seed[..batches * n * 4];
        let scores = &sc[..batches * classes * n];
        let mut ins = vec![
            Some(f32t(&[batches, n, 4], boxes)),
            Some(f32t(&[batches, classes, n], scores)),
            Some(i64t(&[1], &[max])),
            Some(f32t(&[1], &[iou])),
        ];
        if let Some(t) = score {
            ins.push(Some(f32t(&[1], &[t])));
        }
        let want = interp(Opcode::NonMaxSuppression, ins, attrs(vec![("center_point_box", Attr::Int(center as i64))]), 1).remove(0);
        let selected = want.shape[0];
        let p = Nms { batches, classes, boxes: n, center_point_box: center };
        let lim = NmsLimits { max_per_class: max, iou, score };
        let mut scratch = vec![0usize; nms_scratch_len(&p)];
        let mut rows = vec![-1i64; nms_rows_len(&p, &lim)];
        prop_assert_eq!(nms(&p, &lim, boxes, scores, &mut scratch, &mut rows), selected);
        prop_assert_eq!(&rows[..selected * 3], &as_i64(&want)[..]);
    }

    #[test]
    fn int_ranges_match(start in -20i32..20, limit in -20i32..20, delta in prop_oneof![-5i32..0, 1i32..6]) {
        let ins = [start, limit, delta].map(|v| Some(i32t(&[], &[v]))).to_vec();
        let Data::I32(want) = interp(Opcode::Range, ins, attrs(vec![]), 1).remove(0).data else { panic!("not i32") };
        let mut y = vec![0i32; want.len()];
        range(start, limit, delta, false, &mut y).unwrap();
        prop_assert_eq!(&y, &want);
        prop_assert!(range(start, limit, delta, false, &mut vec![0i32; want.len() + 1]).is_err());
    }

    #[test]
    fn float_ranges_match_bitwise(start in -5.0f32..5.0, limit in -5.0f32..5.0, delta in prop_oneof![-1.5f32..-0.1, 0.1f32..1.5]) {
        let ins = [start, limit, delta].map(|v| Some(f32t(&[], &[v]))).to_vec();
        let want = as_f32(&interp(Opcode::Range, ins, attrs(vec![]), 1).remove(0));
        let mut y = vec![0.0f32; want.len()];
        range(start, limit, delta, false, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&want));
    }

    #[test]
    fn half_ranges_match_bitwise(start in -5.0f32..5.0, limit in -5.0f32..5.0, delta in prop_oneof![-1.5f32..-0.1, 0.1f32..1.5], wide in any::<bool>()) {
        use edgec_kernels::F16;
        let h = |v: f32| half::f16::from_f32(v);
        let ins = [start, limit, delta].map(|v| Some(Tensor::new(vec![], Data::F16(vec![h(v)])))).to_vec();
        let at = attrs(vec![("stash_type", Attr::Int(if wide { 11 } else { 1 }))]);
        let Data::F16(want) = interp(Opcode::Range, ins, at, 1).remove(0).data else { panic!("not f16") };
        let k = |v: f32| F16::from_f64(h(v).to_f64());
        let mut y = vec![F16::from_f64(0.0); want.len()];
        range(k(start), k(limit), k(delta), wide, &mut y).unwrap();
        prop_assert_eq!(y.iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>());
    }
}
