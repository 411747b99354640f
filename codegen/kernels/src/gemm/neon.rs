//! aarch64 NEON micro-kernel: 8×8 tiles (16 q-register accumulators; per
//! depth step two B vectors are loaded and each of the 8 A values feeds two
//! FMAs). NEON is part of the aarch64 baseline, so no detection is needed.
//! Partial tiles go through a register-sized buffer.
#![allow(unsafe_code)]

use super::kernel::{store_tile, MicroKernel, Tile};
use std::arch::aarch64::*;

/// The NEON kernel (always available on aarch64).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Kernel;

const NR: usize = 8;

impl MicroKernel for Kernel {
    const MR: usize = 8;
    const NR: usize = NR;
    const KC: usize = 256;
    const MC: usize = 64;
    const NC: usize = 512;

    fn tile(self, t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
        t.check(Self::MR, NR, a, b, c);
        // SAFETY: NEON is mandatory on aarch64, and `check` asserted the
        // slice lengths every instantiation relies on.
        unsafe {
            match t.rows {
                1 => tile::<1>(t, a, b, c),
                2 => tile::<2>(t, a, b, c),
                3 => tile::<3>(t, a, b, c),
                4 => tile::<4>(t, a, b, c),
                5 => tile::<5>(t, a, b, c),
                6 => tile::<6>(t, a, b, c),
                7 => tile::<7>(t, a, b, c),
                _ => tile::<8>(t, a, b, c),
            }
        }
    }
}

/// `R` rows of the kernel. Requires `t.rows == R` and the lengths of
/// [`Tile::check`] (A ≥ `k·R`, B ≥ `k·8`).
#[target_feature(enable = "neon")]
unsafe fn tile<const R: usize>(t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    let mut acc = [[vdupq_n_f32(0.0); 2]; R];
    for p in 0..t.k {
        // SAFETY: p < k, so p·8 + 8 ≤ b.len() and p·R + R ≤ a.len().
        unsafe {
            let b0 = vld1q_f32(bp.add(p * NR));
            let b1 = vld1q_f32(bp.add(p * NR + 4));
            for (r, row) in acc.iter_mut().enumerate() {
                let av = *ap.add(p * R + r);
                row[0] = vfmaq_n_f32(row[0], b0, av);
                row[1] = vfmaq_n_f32(row[1], b1, av);
            }
        }
    }
    let mut buf = [[0.0f32; NR]; R];
    for (dst, row) in buf.iter_mut().zip(&acc) {
        // SAFETY: `dst` is 8 f32s, exactly two 4-lane stores.
        unsafe {
            vst1q_f32(dst.as_mut_ptr(), row[0]);
            vst1q_f32(dst.as_mut_ptr().add(4), row[1]);
        }
    }
    store_tile(t, &buf, c);
}
