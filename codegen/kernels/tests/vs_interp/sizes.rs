//! Run-time size functions vs the interpreter: for operands the
//! interpreter accepts, the size is the shape of its result (and the
//! kernel run at it matches); for operands it rejects, an error. STFT's
//! frames and bins, DFT's output dims, Col2Im's channels, MaxUnpool's
//! unpooled sizes and checked scatter, AffineGrid's batch, TopK's K.

use super::common::*;
use edgec_kernels::pool::unpool::max_unpool_checked;
use edgec_kernels::select::top_k::{top_k_check, TopK};
use edgec_kernels::signal::dft::{dft_dims, stft_dims};
use ir::interp::eval_op;
use ir::{Attr, Opcode};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn stft_dims_match(len in 1usize..12, step in -1i64..4, n in prop::option::of(-1i64..8), win in prop::option::of(1usize..8),
                       onesided in any::<bool>()) {
        let x = vec![0.5f32; len];
        let mut ins = vec![Some(f32t(&[1, len, 1], &x)), Some(i64t(&[], &[step]))];
        ins.push(win.map(|w| f32t(&[w], &vec![1.0; w])));
        ins.push(n.map(|n| i64t(&[], &[n])));
        let at = attrs(vec![("onesided", Attr::Int(onesided as i64))]);
        let got = stft_dims(len, step, n, win, onesided);
        match eval_op(Opcode::STFT, &ins, at, 1) {
            Ok(out) => prop_assert_eq!(got, Ok([out[0].shape[1], out[0].shape[2]])),
            Err(_) => prop_assert!(got.is_err()),
        }
    }

    #[test]
    fn dft_dims_match(xs in shape(2..=4, 4), parts in 1usize..3, axis in -4i64..4, len in prop::option::of(-1i64..7),
                      inverse in any::<bool>(), onesided in any::<bool>()) {
        let mut xs = xs;
        *xs.last_mut().unwrap() = parts;
        let x = vec![0.25f32; numel(&xs)];
        let ins = vec![Some(f32t(&xs, &x)), len.map(|l| i64t(&[], &[l])), Some(i64t(&[], &[axis]))];
        let at = attrs(vec![("inverse", Attr::Int(inverse as i64)), ("onesided", Attr::Int(onesided as i64))]);
        let mut out = vec![0usize; xs.len()];
        let got = dft_dims(&xs, inverse, onesided, axis, len, &mut out);
        match eval_op(Opcode::DFT, &ins, at, 1) {
            Ok(want) => {
                prop_assert!(got.is_ok(), "dft_dims failed: {:?}", got);
                prop_assert_eq!(&out, &want[0].shape);
            }
            Err(_) => prop_assert!(got.is_err(), "dft_dims gave {:?} where the interpreter fails", out),
        }
    }

    #[test]
    fn col2im_channels_match(c in 1usize..4, block in prop::collection::vec(1usize..4, 1..3), extra in 0usize..3, zero in any::<bool>()) {
        use edgec_kernels::conv::col2im::col2im_channels;
        let r = block.len();
        let image = vec![3usize; r];
        let blocks: Vec<usize> = (0..r).map(|a| image[a] - block[a] + 1).collect();
        let rows = c * numel(&block) + extra;
        let mut bl: Vec<i64> = block.iter().map(|&b| b as i64).collect();
        if zero {
            bl[0] = 0;
        }
        let xs = [1, rows, numel(&blocks)];
        let ins = vec![Some(f32t(&xs, &vec![1.0; numel(&xs)])), Some(ints(&vec![3; r])), Some(ints(&bl))];
        let got = col2im_channels(rows, &bl);
        match eval_op(Opcode::Col2Im, &ins, attrs(vec![]), 1) {
            Ok(want) => prop_assert_eq!(got, Ok(want[0].shape[1])),
            Err(_) => prop_assert!(got.is_err()),
        }
    }

    #[test]
    fn max_unpool_checked_matches(h in 1usize..4, w in 1usize..4, k in 1i64..3, s in 1i64..3, pad in 0i64..2, grow in -1i64..2,
                                  picks in prop::collection::vec(0i64..40, 9), given in any::<bool>(),
                                  x in prop::collection::vec(-5.0f32..5.0, 9)) {
        let xs = [1usize, 1, h, w];
        let (x, idx) = (&x[..h * w], &picks[..h * w]);
        let (ks, st, pads) = (vec![k, k], vec![s, s], vec![pad, pad, 0, 0]);
        let unpooled = |d: usize| (d as i64 - 1) * s - pad + k;
        let shape: Vec<i64> = vec![1, 1, unpooled(h) + grow, unpooled(w) + grow];
        let at = attrs(vec![("kernel_shape", Attr::Ints(ks.clone())), ("strides", Attr::Ints(st.clone())), ("pads", Attr::Ints(pads.clone()))]);
        let mut ins = vec![Some(f32t(&xs, x)), Some(i64t(&xs, idx))];
        if given {
            ins.push(Some(ints(&shape)));
        }
        let res = eval_op(Opcode::MaxUnpool, &ins, at, 1);
        let out: Vec<usize> = if given { shape.iter().map(|&d| d.max(0) as usize).collect() } else { vec![1, 1, unpooled(h).max(0) as usize, unpooled(w).max(0) as usize] };
        let mut y = vec![7.0f32; numel(&out)];
        let got = max_unpool_checked(&xs, &ks, &st, &pads, &out, x, idx, &mut y);
        match res {
            Ok(want) => {
                prop_assert!(got.is_ok(), "max_unpool_checked failed: {:?}", got);
                prop_assert_eq!(&out, &want[0].shape);
                prop_assert_eq!(y, as_f32(&want[0]));
            }
            Err(_) => prop_assert!(got.is_err()),
        }
    }

    #[test]
    fn top_k_check_matches(s in shape(1..=3, 4), axis in 0usize..3, k in 0usize..6) {
        let axis = axis % s.len();
        let x = vec![1.0f32; numel(&s)];
        let at = attrs(vec![("axis", Attr::Int(axis as i64))]);
        let ok = eval_op(Opcode::TopK, &[Some(f32t(&s, &x)), Some(ints(&[k as i64]))], at, 2).is_ok();
        prop_assert_eq!(top_k_check(&TopK { shape: &s, axis, k, largest: true }).is_ok(), ok);
    }

    #[test]
    fn affine_grid_batch_matches(n in 1usize..4, size_n in 0i64..5) {
        let theta = vec![0.5f32; n * 6];
        let ins = vec![Some(f32t(&[n, 2, 3], &theta)), Some(ints(&[size_n, 1, 2, 2]))];
        let ok = eval_op(Opcode::AffineGrid, &ins, attrs(vec![]), 1).is_ok();
        prop_assert_eq!(edgec_kernels::resample::affine::batch(size_n, n).is_ok(), ok);
    }
}
