//! AVX-512F micro-kernel: 12×32 tiles (24 zmm accumulators; per depth step
//! two B vectors are loaded and each of the 12 A values is broadcast into two
//! FMAs). Partial column tiles use masked loads/stores; partial row tiles
//! use a narrower instantiation, so no work is wasted at the M edge.
#![allow(unsafe_code)]

use super::kernel::{MicroKernel, Tile};
use std::arch::x86_64::*;

/// Proof that the CPU supports AVX-512F: only [`Kernel::new`] makes one.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Kernel(());

impl Kernel {
    /// The kernel, if this CPU has AVX-512F.
    pub fn new() -> Option<Kernel> {
        is_x86_feature_detected!("avx512f").then_some(Kernel(()))
    }
}

const NR: usize = 32;

impl MicroKernel for Kernel {
    const MR: usize = 12;
    const NR: usize = NR;
    const KC: usize = 256;
    const MC: usize = 96;
    const NC: usize = 512;

    fn tile(self, t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
        t.check(Self::MR, NR, a, b, c);
        // SAFETY: `Kernel` exists only if the CPU has AVX-512F, and `check`
        // asserted the slice lengths every instantiation relies on.
        unsafe {
            match t.rows {
                1 => tile::<1>(t, a, b, c),
                2 => tile::<2>(t, a, b, c),
                3 => tile::<3>(t, a, b, c),
                4 => tile::<4>(t, a, b, c),
                5 => tile::<5>(t, a, b, c),
                6 => tile::<6>(t, a, b, c),
                7 => tile::<7>(t, a, b, c),
                8 => tile::<8>(t, a, b, c),
                9 => tile::<9>(t, a, b, c),
                10 => tile::<10>(t, a, b, c),
                11 => tile::<11>(t, a, b, c),
                _ => tile::<12>(t, a, b, c),
            }
        }
    }
}

/// Lane mask of the first `n` (≤ 16) lanes.
#[inline(always)]
fn lanes(n: usize) -> __mmask16 {
    ((1u32 << n.min(16)) - 1) as __mmask16
}

/// `R` rows of the kernel. Requires `t.rows == R` and the lengths of
/// [`Tile::check`] (A ≥ `k·R`, B ≥ `k·32`, C ≥ `(R−1)·ldc + cols`).
#[target_feature(enable = "avx512f")]
fn tile<const R: usize>(t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
    let (m0, m1) = (lanes(t.cols), lanes(t.cols.saturating_sub(16)));
    let cp = c.as_mut_ptr();
    let mut acc = [[_mm512_setzero_ps(); 2]; R];
    if t.accumulate {
        for (r, row) in acc.iter_mut().enumerate() {
            // SAFETY: row r starts at r·ldc < len; the masks cover only the
            // first `cols` lanes, which are inside C (checked), and masked-off
            // lanes are never accessed (so `wrapping_add` past the end is fine).
            unsafe {
                row[0] = _mm512_maskz_loadu_ps(m0, cp.add(r * t.ldc));
                row[1] = _mm512_maskz_loadu_ps(m1, cp.wrapping_add(r * t.ldc + 16));
            }
        }
    }
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    for p in 0..t.k {
        // SAFETY: p < k, so p·32 + 32 ≤ b.len() and p·R + R ≤ a.len().
        unsafe {
            let b0 = _mm512_loadu_ps(bp.add(p * NR));
            let b1 = _mm512_loadu_ps(bp.add(p * NR + 16));
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*ap.add(p * R + r));
                row[0] = _mm512_fmadd_ps(av, b0, row[0]);
                row[1] = _mm512_fmadd_ps(av, b1, row[1]);
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: as for the loads above.
        unsafe {
            _mm512_mask_storeu_ps(cp.add(r * t.ldc), m0, row[0]);
            _mm512_mask_storeu_ps(cp.wrapping_add(r * t.ldc + 16), m1, row[1]);
        }
    }
}
