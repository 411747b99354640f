//! Square depthwise kernels (K×K with K = 3 or 5, stride 1, undilated) over
//! the zero-padded plane of [`super::padded`], register-blocked with
//! explicit SIMD (AVX-512, AVX2+FMA, NEON): a step holds `ROWS × U` blocks
//! of `COLS` output columns in registers and walks the input rows once,
//! each input vector loaded feeding every output row it reaches (the
//! auto-vectorized form of this loop spilled its accumulators).
//!
//! Invariants: every output sums its taps in the order of the general
//! padded kernel (bias, then `ky` ascending, `kx` ascending) with one
//! rounding per tap (a fused multiply-add), so both kernels give the same
//! bits; the padded rows a step reads are current when it reads them (with
//! a source plane, each band of rows is copied just before its first step,
//! so the copy overlaps the arithmetic instead of preceding it); the
//! activation is applied once: to each finished block in registers (ReLU)
//! or to each band of rows just stored (the others).
#![allow(unsafe_code)]

use super::padded::{fill_rows, Geom, COLS};
use super::Conv2d;
use crate::act::{apply_slice_inline, Act};

/// Most output rows one step computes.
pub(super) const MAX_ROWS: usize = 4;

/// Column blocks one step computes (the square kernels take planes more
/// than one block wide).
const U: usize = 2;

/// The side of a square kernel [`plane`] takes: stride 1, no dilation,
/// 3×3 or 5×5.
pub(super) fn side(p: &Conv2d) -> Option<usize> {
    let unit = p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 && p.dil_w == 1;
    (unit && p.kh == p.kw && matches!(p.kh, 3 | 5)).then_some(p.kh)
}

/// True if [`plane`] has a kernel for the code running now (AVX2+FMA or
/// AVX-512 on x86-64, NEON on aarch64).
pub(super) fn available() -> bool {
    cfg!(target_arch = "aarch64") || (cfg!(target_arch = "x86_64") && crate::simd::level() >= 2)
}

/// An input plane with its phase starts, as [`fill_rows`] takes them.
pub(super) type Input<'a> = (&'a [(usize, usize)], &'a [f32]);

/// One plane's operands: the padded plane (with its zero slack) and the
/// input plane to copy rows from as they are reached (`None`: `plane` is
/// filled already).
pub(super) struct Src<'a> {
    pub(super) plane: &'a mut [f32],
    pub(super) input: Option<Input<'a>>,
}

/// One output plane `yp = act(bias + Σ taps)` of a `k`×`k` kernel
/// ([`side`]) with weights `wk` `[k][k]`, where [`available`] holds and the
/// plane is more than one column block wide.
pub(super) fn plane(k: usize, p: &Conv2d, g: &Geom, src: Src, wk: &[f32], (bias, act): (f32, Act), yp: &mut [f32]) {
    let w: [f32; 25] = std::array::from_fn(|i| wk.get(i).copied().unwrap_or(0.0));
    let (oh, ow, blocks) = (p.out_h(), p.out_w(), g.owp / COLS);
    let cx = Cx { p, g, w: &w, bias, act, oh, ow, blocks };
    #[cfg(target_arch = "x86_64")]
    {
        match crate::simd::level() {
            // SAFETY: level 3 means the CPU reported AVX-512F.
            3 => unsafe { x86::avx512(k, &cx, src, yp) },
            // SAFETY: level 2 means the CPU reported AVX2 and FMA.
            2 => unsafe { x86::avx2(k, &cx, src, yp) },
            _ => unreachable!("square::plane without AVX2 (see `available`)"),
        }
    }
    #[cfg(target_arch = "aarch64")]
    neon::plane(k, &cx, src, yp);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    unreachable!("square::plane on an architecture without a kernel ({k}, {})", cx.bias);
}

/// What every step of one plane shares.
struct Cx<'a> {
    p: &'a Conv2d,
    g: &'a Geom,
    w: &'a [f32; 25],
    bias: f32,
    act: Act,
    /// Output rows, columns and column blocks.
    oh: usize,
    ow: usize,
    blocks: usize,
}

/// `COLS` consecutive f32 lanes in registers.
trait Block: Copy {
    /// Every lane `v`.
    unsafe fn splat(v: f32) -> Self;
    /// `COLS` values from `p` (unaligned; `p` valid for `COLS` reads).
    unsafe fn load(p: *const f32) -> Self;
    /// `self + w · x` per lane, one rounding.
    unsafe fn fmadd(self, w: Self, x: Self) -> Self;
    /// The lanes to `p` (unaligned; `p` valid for `COLS` writes).
    unsafe fn store(self, p: *mut f32);
    /// The `COLS` values at `p + k` (`k < COLS`), given `lo` and `hi`, the
    /// blocks at `p` and `p + COLS`.
    #[inline(always)]
    unsafe fn shifted(p: *const f32, _lo: Self, _hi: Self, k: usize) -> Self {
        Self::load(p.add(k))
    }
    /// `x < 0 ? 0 : x` per lane (NaN and −0 kept, as [`Act::Relu`]).
    unsafe fn relu(self) -> Self;
}

/// The plane in steps of `ROWS` output rows × [`U`] column blocks, every
/// loop of a step over constants (fully unrolled: the accumulators and the
/// broadcast weights stay in registers). Each input row is read as the
/// `U + 1` blocks at the step's columns (aligned: rows are whole blocks),
/// from which [`Block::shifted`] forms each tap's columns. A step past the
/// plane's last row or block computes from the zeros of the slack and
/// stores nothing.
///
/// # Safety
/// `B`'s instructions must be available (the callers' target features).
#[inline(always)]
unsafe fn steps<B: Block, const K: usize, const ROWS: usize, const RELU: bool>(cx: &Cx, src: Src, yp: &mut [f32]) {
    const { assert!(ROWS <= MAX_ROWS) };
    let (p, g) = (cx.p, cx.g);
    let (oh, rl, blocks) = (cx.oh, g.row_len(1), cx.blocks);
    // The rows one step reads, from its first element.
    let window = (ROWS + K - 2) * rl + (U + 1) * COLS;
    let wv: [[B; K]; K] = std::array::from_fn(|ky| std::array::from_fn(|kx| B::splat(cx.w[ky * K + kx])));
    let Src { plane, input } = src;
    let mut filled = 0;
    for oy in (0..oh).step_by(ROWS) {
        let need = (oy + ROWS + K - 1).min(g.rows);
        if let Some((phases, xp)) = input.filter(|_| need > filled) {
            fill_rows(p, g, phases, xp, plane, filled..need);
            filled = need;
        }
        // Right to left: see `put`.
        for bx in (0..blocks).step_by(U).rev() {
            let rows = &plane[oy * rl + bx * COLS..][..window];
            let mut acc = [[B::splat(cx.bias); U]; ROWS];
            for (r, row) in acc.iter_mut().enumerate() {
                for (ky, wrow) in wv.iter().enumerate() {
                    // SAFETY: every block read ends within `window`.
                    let at = rows.as_ptr().add((r + ky) * rl);
                    let blk: [B; U + 1] = std::array::from_fn(|u| B::load(at.add(u * COLS)));
                    for (kx, &w) in wrow.iter().enumerate() {
                        for (u, a) in row.iter_mut().enumerate() {
                            let x = B::shifted(at.add(u * COLS), blk[u], blk[u + 1], kx);
                            *a = a.fmadd(w, x);
                        }
                    }
                }
            }
            // Every block of the step exists and none is on the plane's
            // last row (whose last block may not store past the plane).
            let inner = oy + ROWS < oh && bx + U <= blocks;
            for (r, row) in acc.iter().enumerate() {
                for (u, &a) in row.iter().enumerate() {
                    let a = if RELU { a.relu() } else { a };
                    if inner {
                        // A row before the last holds `COLS` elements from
                        // any of its blocks' starts (rows are > COLS wide).
                        let at = (oy + r) * cx.ow + (bx + u) * COLS;
                        a.store(yp[at..at + COLS].as_mut_ptr());
                    } else {
                        put(cx, (oy + r, bx + u), a, yp);
                    }
                }
            }
        }
        if !matches!(cx.act, Act::None | Act::Relu) {
            // The band's rows, still in L1.
            let band = &mut yp[oy * cx.ow..(oy + ROWS).min(oh) * cx.ow];
            apply_slice_inline(cx.act, band);
        }
    }
}

/// Store block `(row, block)` of the output plane, if it exists. A block
/// at a row's end writes all `COLS` lanes where the plane has room: the
/// lanes past the row land in the next row's first block, which [`steps`]
/// stores later (blocks right to left, rows top to bottom).
#[inline(always)]
unsafe fn put<B: Block>(cx: &Cx, (r, u): (usize, usize), a: B, yp: &mut [f32]) {
    if r >= cx.oh || u >= cx.blocks {
        return;
    }
    let dst = &mut yp[r * cx.ow + u * COLS..];
    if dst.len() >= COLS {
        // SAFETY: `dst` holds at least COLS elements.
        a.store(dst.as_mut_ptr());
    } else {
        let mut v = [0f32; COLS];
        a.store(v.as_mut_ptr());
        dst.copy_from_slice(&v[..dst.len()]);
    }
}

/// The kernel instantiations of one instruction set (`$run`: one function
/// per instantiation, with `ROWS` rows of two blocks per step).
macro_rules! dispatch {
    ($run:ident, $rows:literal, $k:expr, $cx:expr, $src:expr, $yp:expr) => {
        match ($k, $cx.act == $crate::act::Act::Relu) {
            (3, true) => $run::<3, $rows, true>($cx, $src, $yp),
            (3, false) => $run::<3, $rows, false>($cx, $src, $yp),
            (_, true) => $run::<5, $rows, true>($cx, $src, $yp),
            (_, false) => $run::<5, $rows, false>($cx, $src, $yp),
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{steps, Block, Cx, Src};
    use std::arch::x86_64::*;

    /// One AVX-512 register.
    #[derive(Copy, Clone)]
    struct Zmm(__m512);

    impl Block for Zmm {
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Zmm(_mm512_set1_ps(v))
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            Zmm(_mm512_loadu_ps(p))
        }
        #[inline(always)]
        unsafe fn fmadd(self, w: Self, x: Self) -> Self {
            Zmm(_mm512_fmadd_ps(x.0, w.0, self.0))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            _mm512_storeu_ps(p, self.0)
        }
        #[inline(always)]
        unsafe fn shifted(_: *const f32, lo: Self, hi: Self, k: usize) -> Self {
            // VALIGND on the aligned blocks: no load split across lines.
            let (l, h) = (_mm512_castps_si512(lo.0), _mm512_castps_si512(hi.0));
            Zmm(_mm512_castsi512_ps(match k {
                0 => l,
                1 => _mm512_alignr_epi32::<1>(h, l),
                2 => _mm512_alignr_epi32::<2>(h, l),
                3 => _mm512_alignr_epi32::<3>(h, l),
                _ => _mm512_alignr_epi32::<4>(h, l),
            }))
        }
        #[inline(always)]
        unsafe fn relu(self) -> Self {
            // MAXPS returns its second operand when either is NaN or both
            // are zeros: x for NaN and −0.
            Zmm(_mm512_max_ps(_mm512_setzero_ps(), self.0))
        }
    }

    /// Two AVX registers.
    #[derive(Copy, Clone)]
    struct Ymm2([__m256; 2]);

    impl Block for Ymm2 {
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Ymm2([_mm256_set1_ps(v); 2])
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            Ymm2([_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8))])
        }
        #[inline(always)]
        unsafe fn fmadd(self, w: Self, x: Self) -> Self {
            Ymm2([_mm256_fmadd_ps(x.0[0], w.0[0], self.0[0]), _mm256_fmadd_ps(x.0[1], w.0[1], self.0[1])])
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            _mm256_storeu_ps(p, self.0[0]);
            _mm256_storeu_ps(p.add(8), self.0[1]);
        }
        #[inline(always)]
        unsafe fn relu(self) -> Self {
            // As for `Zmm`: MAXPS keeps its second operand on NaN and zeros.
            let z = _mm256_setzero_ps();
            Ymm2([_mm256_max_ps(z, self.0[0]), _mm256_max_ps(z, self.0[1])])
        }
    }

    /// # Safety
    /// The CPU must support AVX-512F.
    pub(super) unsafe fn avx512(k: usize, cx: &Cx, src: Src, yp: &mut [f32]) {
        // Up to 8 accumulators, K·K broadcast weights and the shifted
        // inputs within 32 registers.
        dispatch!(run512, 4, k, cx, src, yp)
    }

    /// One instantiation per function (inlined into one function, they
    /// compiled to slower code).
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn run512<const K: usize, const ROWS: usize, const RELU: bool>(cx: &Cx, src: Src, yp: &mut [f32]) {
        steps::<Zmm, K, ROWS, RELU>(cx, src, yp)
    }

    /// # Safety
    /// The CPU must support AVX2 and FMA.
    pub(super) unsafe fn avx2(k: usize, cx: &Cx, src: Src, yp: &mut [f32]) {
        // 4 blocks = 8 of the 16 registers accumulate.
        dispatch!(run256, 2, k, cx, src, yp)
    }

    /// As [`run512`].
    #[inline(never)]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run256<const K: usize, const ROWS: usize, const RELU: bool>(cx: &Cx, src: Src, yp: &mut [f32]) {
        steps::<Ymm2, K, ROWS, RELU>(cx, src, yp)
    }
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{steps, Block, Cx, Src};
    use std::arch::aarch64::*;

    /// Four NEON registers.
    #[derive(Copy, Clone)]
    struct Q4([float32x4_t; 4]);

    impl Block for Q4 {
        #[inline(always)]
        unsafe fn splat(v: f32) -> Self {
            Q4([vdupq_n_f32(v); 4])
        }
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Self {
            Q4(std::array::from_fn(|i| vld1q_f32(p.add(4 * i))))
        }
        #[inline(always)]
        unsafe fn fmadd(self, w: Self, x: Self) -> Self {
            Q4(std::array::from_fn(|i| vfmaq_f32(self.0[i], x.0[i], w.0[i])))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            for (i, v) in self.0.iter().enumerate() {
                vst1q_f32(p.add(4 * i), *v);
            }
        }
        #[inline(always)]
        unsafe fn relu(self) -> Self {
            // A select, not FMAX (which turns −0 into +0).
            let z = vdupq_n_f32(0.0);
            Q4(self.0.map(|x| vbslq_f32(vcltq_f32(x, z), z, x)))
        }
    }

    /// NEON is part of the aarch64 baseline.
    pub(super) fn plane(k: usize, cx: &Cx, src: Src, yp: &mut [f32]) {
        // SAFETY: NEON is mandatory on aarch64. 4 blocks = 16 of the 32
        // registers accumulate.
        unsafe { dispatch!(run, 2, k, cx, src, yp) }
    }

    /// One instantiation per function (as on x86-64).
    #[inline(never)]
    unsafe fn run<const K: usize, const ROWS: usize, const RELU: bool>(cx: &Cx, src: Src, yp: &mut [f32]) {
        steps::<Q4, K, ROWS, RELU>(cx, src, yp)
    }
}
