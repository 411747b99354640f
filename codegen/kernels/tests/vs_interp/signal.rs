//! Signal kernels with run-time parameters vs the interpreter: the
//! Hann/Hamming/Blackman windows and MelWeightMatrix (computed in f64 and
//! rounded once, so bit-exact), STFT, and DFT with run-time `axis` and
//! `dft_length` (within tolerance), plus the errors on sizes other than
//! the declared ones.

use super::common::*;
use edgec_kernels::signal::dft::{dft_checked, stft, Stft};
use edgec_kernels::signal::{mel_scratch_len, mel_weight_matrix, window, Mel, Window};
use ir::{Attr, Opcode};
use proptest::prelude::*;

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn windows_match_bitwise(k in 0usize..3, size in 1i64..40, periodic in any::<bool>()) {
        let (op, w) = [(Opcode::HannWindow, Window::Hann), (Opcode::HammingWindow, Window::Hamming), (Opcode::BlackmanWindow, Window::Blackman)][k];
        let at = attrs(vec![("periodic", Attr::Int(periodic as i64))]);
        let want = as_f32(&interp(op, vec![Some(i64t(&[], &[size]))], at, 1)[0]);
        let mut y = vec![0.0f32; size as usize];
        window(w, periodic, size, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&want));
        prop_assert!(window(w, periodic, size + 1, &mut y).is_err());
    }

    #[test]
    fn mel_weight_matrix_matches_bitwise(bins in 1i64..12, len in 4i64..64, rate in prop_oneof![Just(8000i64), Just(16000), 1000i64..48000],
                                         lo in 0.0f32..200.0, span in 100.0f32..4000.0, wide in any::<bool>()) {
        let hi = (lo + span).min(rate as f32 / 2.0);
        let hz = |v: f32| if wide { f64t(&[], &[v]) } else { f32t(&[], &[v]) };
        let ins = vec![Some(i64t(&[], &[bins])), Some(i64t(&[], &[len])), Some(i64t(&[], &[rate])), Some(hz(lo)), Some(hz(hi))];
        let Ok(out) = ir::interp::eval_op(Opcode::MelWeightMatrix, &ins, attrs(vec![]), 1) else {
            // Bands outside the spectrogram: the kernel must fail too.
            let (rows, cols) = ((len / 2 + 1) as usize, bins as usize);
            let p = Mel { bins, dft_length: len, sample_rate: rate, lower: lo as f64, upper: hi as f64, wide };
            let mut edges = vec![0i64; mel_scratch_len(cols)];
            prop_assert!(mel_weight_matrix(&p, rows, cols, &mut edges, &mut vec![0.0f32; rows * cols]).is_err());
            return Ok(());
        };
        let want = as_f32(&out[0]);
        let (rows, cols) = (out[0].shape[0], out[0].shape[1]);
        let p = Mel { bins, dft_length: len, sample_rate: rate, lower: lo as f64, upper: hi as f64, wide };
        let mut edges = vec![0i64; mel_scratch_len(cols)];
        let mut y = vec![0.0f32; rows * cols];
        mel_weight_matrix(&p, rows, cols, &mut edges, &mut y).unwrap();
        prop_assert_eq!(bits(&y), bits(&want));
        prop_assert!(mel_weight_matrix(&p, rows, cols + 1, &mut vec![0i64; cols + 3], &mut vec![0.0f32; rows * (cols + 1)]).is_err());
    }

    #[test]
    fn stft_matches(batch in 1usize..3, len in 4usize..20, parts in 1usize..3, step in 1i64..4, n in 2usize..8,
                    given in 0usize..3, onesided in any::<bool>(), seed in prop::collection::vec(-2.0f32..2.0, 2 * 20 * 2 + 8)) {
        let n = n.min(len);
        let x = &seed[..batch * len * parts];
        let win = &seed[seed.len() - n..];
        // 0: frame_length only, 1: window only, 2: both.
        let mut ins = vec![Some(f32t(&[batch, len, parts], x)), Some(i64t(&[], &[step]))];
        ins.push(if given == 0 { None } else { Some(f32t(&[n], win)) });
        ins.push(if given == 1 { None } else { Some(i64t(&[], &[n as i64])) });
        if onesided && parts == 2 {
            return Ok(());
        }
        let at = attrs(vec![("onesided", Attr::Int(onesided as i64))]);
        let out = interp(Opcode::STFT, ins, at, 1).remove(0);
        let want = as_f32(&out);
        let p = Stft { batch, len, parts, frames: out.shape[1], bins: out.shape[2], onesided };
        let w = if given == 0 { None } else { Some(win) };
        let fl = if given == 1 { None } else { Some(n as i64) };
        let mut y = vec![0.0f32; want.len()];
        stft(&p, step, fl, w, x, &mut y).unwrap();
        check_close(&y, &want, 1e-5, 1e-5)?;
        let wrong = Stft { frames: p.frames + 1, ..p };
        prop_assert!(stft(&wrong, step, fl, w, x, &mut vec![0.0; y.len() + p.bins * 2 * batch]).is_err());
    }

    #[test]
    fn dft_with_runtime_axis_and_length_matches(d0 in 1usize..4, d1 in 1usize..6, parts in 1usize..3, axis in prop_oneof![Just(-3i64), Just(-2), Just(0), Just(1)],
                                                len in prop::option::of(1i64..8), inverse in any::<bool>(), onesided in any::<bool>(),
                                                seed in prop::collection::vec(-2.0f32..2.0, 48)) {
        let parts = if onesided { if inverse { 2 } else { 1 } } else { parts };
        let xs = [d0, d1, parts];
        let x = &seed[..numel(&xs)];
        let mut ins = vec![Some(f32t(&xs, x))];
        ins.push(len.map(|l| i64t(&[], &[l])));
        ins.push(Some(i64t(&[], &[axis])));
        let at = attrs(vec![("inverse", Attr::Int(inverse as i64)), ("onesided", Attr::Int(onesided as i64))]);
        let Ok(out) = ir::interp::eval_op(Opcode::DFT, &ins, at, 1) else { return Ok(()) };
        let want = as_f32(&out[0]);
        let mut y = vec![0.0f32; want.len()];
        dft_checked(&xs, &out[0].shape, inverse, onesided, axis, len, x, &mut y).unwrap();
        check_close(&y, &want, 1e-5, 1e-5)?;
        let mut bad = out[0].shape.clone();
        bad[0] += 1;
        prop_assert!(dft_checked(&xs, &bad, inverse, onesided, axis, len, x, &mut vec![0.0; numel(&bad)]).is_err());
        prop_assert!(dft_checked(&xs, &out[0].shape, inverse, onesided, 2, len, x, &mut y).is_err());
    }
}
