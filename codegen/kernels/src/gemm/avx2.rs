//! AVX2+FMA micro-kernel: 6×16 tiles (12 ymm accumulators; per depth step two
//! B vectors are loaded and each of the 6 A values is broadcast into two
//! FMAs). Partial column tiles go through a register-sized buffer; partial
//! row tiles use a narrower instantiation.
#![allow(unsafe_code)]

use super::kernel::{load_tile, store_tile, MicroKernel, Tile};
use std::arch::x86_64::*;

/// Proof that the CPU supports AVX2 and FMA: only [`Kernel::new`] makes one.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Kernel(());

impl Kernel {
    /// The kernel, if this CPU has AVX2 and FMA.
    pub fn new() -> Option<Kernel> {
        (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")).then_some(Kernel(()))
    }
}

const NR: usize = 16;

impl MicroKernel for Kernel {
    const MR: usize = 6;
    const NR: usize = NR;
    const KC: usize = 256;
    const MC: usize = 72;
    const NC: usize = 512;

    fn tile(self, t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
        t.check(Self::MR, NR, a, b, c);
        // SAFETY: `Kernel` exists only if the CPU has AVX2 and FMA, and
        // `check` asserted the slice lengths every instantiation relies on.
        unsafe {
            match t.rows {
                1 => tile::<1>(t, a, b, c),
                2 => tile::<2>(t, a, b, c),
                3 => tile::<3>(t, a, b, c),
                4 => tile::<4>(t, a, b, c),
                5 => tile::<5>(t, a, b, c),
                _ => tile::<6>(t, a, b, c),
            }
        }
    }
}

/// `R` rows of the kernel. Requires `t.rows == R` and the lengths of
/// [`Tile::check`] (A ≥ `k·R`, B ≥ `k·16`, C ≥ `(R−1)·ldc + cols`).
#[target_feature(enable = "avx2,fma")]
fn tile<const R: usize>(t: Tile, a: &[f32], b: &[f32], c: &mut [f32]) {
    let full = t.cols == NR;
    let mut acc = [[_mm256_setzero_ps(); 2]; R];
    // A partial tile starts from C through a buffer, so every column of C sees
    // the same sequence of fused adds whatever its position in the matrix.
    let mut buf = [[0.0f32; NR]; R];
    if t.accumulate && !full {
        load_tile(t, c, &mut buf);
    }
    let cp = c.as_mut_ptr();
    if t.accumulate {
        for (r, (row, src)) in acc.iter_mut().zip(&buf).enumerate() {
            // SAFETY: a full tile: row r covers r·ldc .. r·ldc + 16 ≤ len;
            // otherwise `src` is 16 f32s.
            unsafe {
                let p = if full { cp.add(r * t.ldc).cast_const() } else { src.as_ptr() };
                row[0] = _mm256_loadu_ps(p);
                row[1] = _mm256_loadu_ps(p.add(8));
            }
        }
    }
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    for p in 0..t.k {
        // SAFETY: p < k, so p·16 + 16 ≤ b.len() and p·R + R ≤ a.len().
        unsafe {
            let b0 = _mm256_loadu_ps(bp.add(p * NR));
            let b1 = _mm256_loadu_ps(bp.add(p * NR + 8));
            for (r, row) in acc.iter_mut().enumerate() {
                let av = _mm256_broadcast_ss(&*ap.add(p * R + r));
                row[0] = _mm256_fmadd_ps(av, b0, row[0]);
                row[1] = _mm256_fmadd_ps(av, b1, row[1]);
            }
        }
    }
    if full {
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: as for the loads above.
            unsafe {
                _mm256_storeu_ps(cp.add(r * t.ldc), row[0]);
                _mm256_storeu_ps(cp.add(r * t.ldc + 8), row[1]);
            }
        }
        return;
    }
    for (dst, row) in buf.iter_mut().zip(&acc) {
        // SAFETY: `dst` is 16 f32s, exactly two unaligned 8-lane stores.
        unsafe {
            _mm256_storeu_ps(dst.as_mut_ptr(), row[0]);
            _mm256_storeu_ps(dst.as_mut_ptr().add(8), row[1]);
        }
    }
    store_tile(Tile { accumulate: false, ..t }, &buf, c);
}
