//! Square depthwise kernels (K×K with K = 3 or 5, stride 1 or 2, undilated) over
//! the zero-padded plane of the sibling `padded` module, register-blocked with
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

use super::Conv2d;
use crate::act::{apply_slice_inline, Act};

/// Output columns computed together (one AVX-512 vector, two AVX2 or four
/// SSE/NEON vectors).
pub(super) const COLS: usize = 16;

/// The padded, phase-split plane: `rows` rows of `s` phases of `phase`
/// elements each; outputs are computed for `owp` columns (`out_w` rounded
/// up to `COLS`), of which `out_w` are stored.
pub(super) struct Geom {
    pub(super) rows: usize,
    pub(super) phase: usize,
    pub(super) owp: usize,
}

impl Geom {
    pub(super) fn of(p: &Conv2d) -> Geom {
        let owp = p.out_w().div_ceil(COLS) * COLS;
        let phase = owp + (p.kw - 1) * p.dil_w / p.stride_w + 1;
        Geom {
            rows: (p.out_h().max(1) - 1) * p.stride_h + (p.kh - 1) * p.dil_h + 1,
            // The square kernels read whole aligned blocks of each row.
            phase: if side(p).is_some() && fits(p, owp) { phase.next_multiple_of(COLS) } else { phase },
            owp,
        }
    }
    pub(super) fn row_len(&self, s: usize) -> usize {
        s * self.phase
    }
}

/// Most output rows one step computes.
pub(super) const MAX_ROWS: usize = 4;

/// Column blocks one step computes (the square kernels take planes more
/// than one block wide).
const U: usize = 2;

/// The side and stride `(k, s)` of a square kernel [`plane`] takes: a
/// depthwise conv, 3×3 or 5×5, the same stride 1 or 2 on both axes, no
/// dilation. (Other convs keep the padded planes' unrounded rows: direct
/// convs pad every input plane, and rounding each row up to whole blocks
/// cost PP-OCR's 8- and 16-channel 3×3 convs up to 40%.)
pub(super) fn side(p: &Conv2d) -> Option<(usize, usize)> {
    let stride = p.stride_h == p.stride_w && matches!(p.stride_h, 1 | 2);
    let square = p.kh == p.kw && matches!(p.kh, 3 | 5);
    let depthwise = p.groups == p.c_in && p.groups > 0;
    (depthwise && stride && square && p.dil_h == 1 && p.dil_w == 1).then_some((p.kh, p.stride_h))
}

/// True if the square kernel pays on `p`'s output plane (`owp` columns
/// computed): more than one column block (on one block per-plane costs
/// dominate; the general loops measured no slower), and steps of
/// [`MAX_ROWS`] or of two rows that compute at most a quarter of their rows
/// in vain (see [`tall`]).
pub(super) fn fits(p: &Conv2d, owp: usize) -> bool {
    let oh = p.out_h();
    owp > COLS && (tall(oh) || oh.next_multiple_of(2) - oh <= oh / 4)
}

/// True if an `oh`-row plane takes steps of [`MAX_ROWS`] rows (at most a
/// quarter of the rows in vain), else steps of two (PP-LCNet's 2×96
/// planes: four-row steps ran 1.5× slower than the general loops).
fn tall(oh: usize) -> bool {
    oh.next_multiple_of(MAX_ROWS) - oh <= oh / 4
}

/// True if [`plane`] has a kernel for the code running now (AVX2+FMA or
/// AVX-512 on x86-64, NEON on aarch64).
pub(super) fn available() -> bool {
    cfg!(target_arch = "aarch64") || (cfg!(target_arch = "x86_64") && crate::simd::level() >= 2)
}

/// An input plane with its phase starts, as the `padded` module's row fill
/// takes them.
pub(super) type Input<'a> = (&'a [(usize, usize)], &'a [f32]);

/// One plane's operands: the padded plane (with its zero slack) and the
/// input plane to copy rows from as they are reached (`None`: `plane` is
/// filled already).
pub(super) struct Src<'a> {
    pub(super) plane: &'a mut [f32],
    pub(super) input: Option<Input<'a>>,
}

/// One output plane `yp = act(bias + Σ taps)` of a `k`×`k` kernel of
/// stride `s` (`ks` from [`side`]) with weights `wk` `[k][k]`, where
/// [`available`] holds and the plane is more than one column block wide.
pub(super) fn plane(
    ks: (usize, usize),
    p: &Conv2d,
    g: &Geom,
    src: Src,
    wk: &[f32],
    (bias, act): (f32, Act),
    yp: &mut [f32],
) {
    let w: [f32; 25] = std::array::from_fn(|i| wk.get(i).copied().unwrap_or(0.0));
    let (oh, ow, blocks) = (p.out_h(), p.out_w(), g.owp / COLS);
    let cx = Cx { p, g, w: &w, bias, act, oh, ow, blocks };
    #[cfg(target_arch = "x86_64")]
    {
        match crate::simd::level() {
            // SAFETY: level 3 means the CPU reported AVX-512F.
            3 => unsafe { x86::avx512(ks, &cx, src, yp) },
            // SAFETY: level 2 means the CPU reported AVX2 and FMA.
            2 => unsafe { x86::avx2(ks, &cx, src, yp) },
            _ => unreachable!("square::plane without AVX2 (see `available`)"),
        }
    }
    #[cfg(target_arch = "aarch64")]
    neon::plane(ks, &cx, src, yp);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    unreachable!("square::plane on an architecture without a kernel ({ks:?}, {})", cx.bias);
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
    /// Lanes `p[0], p[2], …, p[2·COLS − 2]` (`p` valid for `2·COLS` reads).
    unsafe fn evens(p: *const f32) -> Self;
    /// The first `m` lanes kept (bit for bit), the others zero.
    unsafe fn keep_first(self, m: usize) -> Self;
}

/// The plane in steps of `ROWS` output rows × [`U`] column blocks, every
/// loop of a step over constants (fully unrolled: the accumulators and the
/// broadcast weights stay in registers). With stride `S` the padded rows
/// are split into `S` column phases (tap `kx` of output column `ox` reads
/// element `ox + kx / S` of phase `kx % S`); each input row is read as the
/// `U + 1` blocks of each phase at the step's columns (aligned: phases are
/// whole blocks), from which [`Block::shifted`] forms each tap's columns.
/// A step past the plane's last row or block computes from the zeros of
/// the slack and stores nothing.
///
/// # Safety
/// `B`'s instructions must be available (the callers' target features).
#[inline(always)]
unsafe fn steps<B: Block, const K: usize, const S: usize, const ROWS: usize, const RELU: bool>(
    cx: &Cx,
    src: Src,
    yp: &mut [f32],
) {
    const { assert!(ROWS <= MAX_ROWS && S <= 2) };
    let (p, g) = (cx.p, cx.g);
    let (oh, rl, ph, blocks) = (cx.oh, g.row_len(S), g.phase, cx.blocks);
    // The elements one step reads, from its first.
    let window = ((ROWS - 1) * S + K - 1) * rl + (S - 1) * ph + (U + 1) * COLS;
    let wv: [[B; K]; K] = std::array::from_fn(|ky| std::array::from_fn(|kx| B::splat(cx.w[ky * K + kx])));
    let Src { plane, input } = src;
    let mut filled = 0;
    for oy in (0..oh).step_by(ROWS) {
        let need = ((oy + ROWS - 1) * S + K).min(g.rows);
        if let Some((phases, xp)) = input.filter(|_| need > filled) {
            fill_band::<B, S>(p, g, (phases, xp), plane, filled..need);
            filled = need;
        }
        // Right to left: see `put`.
        for bx in (0..blocks).step_by(U).rev() {
            let rows = &plane[oy * S * rl + bx * COLS..][..window];
            let mut acc = [[B::splat(cx.bias); U]; ROWS];
            for (r, row) in acc.iter_mut().enumerate() {
                for (ky, wrow) in wv.iter().enumerate() {
                    // SAFETY: every block read ends within `window`.
                    let at = rows.as_ptr().add((r * S + ky) * rl);
                    let blk: [[B; U + 1]; S] =
                        std::array::from_fn(|q| std::array::from_fn(|u| B::load(at.add(q * ph + u * COLS))));
                    for (kx, &w) in wrow.iter().enumerate() {
                        let (q, o) = (kx % S, kx / S);
                        for (u, a) in row.iter_mut().enumerate() {
                            let x = B::shifted(at.add(q * ph + u * COLS), blk[q][u], blk[q][u + 1], o);
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

/// [`fill_rows`] in [`Block`]s: each phase row [`COLS`] elements at a
/// time (stride 2: the even lanes of `2·COLS` inputs), the lanes past the
/// input zeroed so the padding stays zero. Reads may run past a row into
/// the next (discarded); the plane's last inputs go scalar. (The generic
/// copy was a library call per row, its stride-2 split ran scalar.)
#[inline(always)]
unsafe fn fill_band<B: Block, const S: usize>(
    p: &Conv2d,
    g: &Geom,
    (phases, xp): Input,
    plane: &mut [f32],
    rows: std::ops::Range<usize>,
) {
    let rl = g.row_len(S);
    for r in rows {
        let Some(iy) = r.checked_sub(p.pad_top).filter(|&iy| iy < p.h) else { continue };
        let dst = &mut plane[r * rl..(r + 1) * rl];
        for (q, &(ix0, j0)) in phases.iter().enumerate() {
            let ix0 = ix0.min(p.w);
            let ph = &mut dst[q * g.phase + j0.min(g.phase)..(q + 1) * g.phase];
            // This phase's inputs: every S-th element of `src`.
            let src = &xp[iy * p.w + ix0..];
            let n = (p.w - ix0).div_ceil(S).min(ph.len());
            let mut i = 0;
            while i < n && S * (i + COLS) <= src.len() && i + COLS <= ph.len() {
                let at = src[S * i..S * (i + COLS)].as_ptr();
                let v = if S == 1 { B::load(at) } else { B::evens(at) };
                v.keep_first(n - i).store(ph[i..i + COLS].as_mut_ptr());
                i += COLS;
            }
            for k in i..n {
                ph[k] = src[S * k];
            }
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
/// per instantiation, with `$tall` rows of two blocks per step on planes
/// [`tall`] holds for, `$short` rows on the others).
macro_rules! dispatch {
    ($run:ident, ($tall:literal, $short:literal), $ks:expr, $cx:expr, $src:expr, $yp:expr) => {{
        let relu = $cx.act == $crate::act::Act::Relu;
        match ($ks.0, $ks.1, tall($cx.oh)) {
            (3, 1, true) => $run::<3, 1, $tall>(relu, $cx, $src, $yp),
            (3, 1, false) => $run::<3, 1, $short>(relu, $cx, $src, $yp),
            (3, _, true) => $run::<3, 2, $tall>(relu, $cx, $src, $yp),
            (3, _, false) => $run::<3, 2, $short>(relu, $cx, $src, $yp),
            (_, 1, true) => $run::<5, 1, $tall>(relu, $cx, $src, $yp),
            (_, 1, false) => $run::<5, 1, $short>(relu, $cx, $src, $yp),
            (_, _, true) => $run::<5, 2, $tall>(relu, $cx, $src, $yp),
            (_, _, false) => $run::<5, 2, $short>(relu, $cx, $src, $yp),
        }
    }};
}

/// One instantiation per function (inlined into one function, they
/// compiled to slower code), ReLU or not.
macro_rules! runner {
    ($(#[$m:meta])* $name:ident, $b:ty) => {
        $(#[$m])*
        #[inline(never)]
        unsafe fn $name<const K: usize, const S: usize, const ROWS: usize>(relu: bool, cx: &Cx, src: Src, yp: &mut [f32]) {
            if relu {
                steps::<$b, K, S, ROWS, true>(cx, src, yp)
            } else {
                steps::<$b, K, S, ROWS, false>(cx, src, yp)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{steps, tall, Block, Cx, Src};
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
        #[inline(always)]
        unsafe fn evens(p: *const f32) -> Self {
            let idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            Zmm(_mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps(p.add(16))))
        }
        #[inline(always)]
        unsafe fn keep_first(self, m: usize) -> Self {
            Zmm(_mm512_maskz_mov_ps(((1u32 << m.min(16)) - 1) as u16, self.0))
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
        #[inline(always)]
        unsafe fn evens(p: *const f32) -> Self {
            // Evens of 16 inputs: in-lane shuffle, then the 64-bit pairs in order.
            let half = |p: *const f32| {
                let e = _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)));
                _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(e)))
            };
            Ymm2([half(p), half(p.add(16))])
        }
        #[inline(always)]
        unsafe fn keep_first(self, m: usize) -> Self {
            let m = _mm256_set1_epi32(m.min(16) as i32);
            let keep = |v: __m256, first: i32| {
                let idx = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(first));
                _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_cmpgt_epi32(m, idx)))
            };
            Ymm2([keep(self.0[0], 0), keep(self.0[1], 8)])
        }
    }

    /// # Safety
    /// The CPU must support AVX-512F.
    pub(super) unsafe fn avx512(ks: (usize, usize), cx: &Cx, src: Src, yp: &mut [f32]) {
        // Up to 8 accumulators, K·K broadcast weights and the shifted
        // inputs within 32 registers.
        dispatch!(run512, (4, 2), ks, cx, src, yp)
    }

    runner!(
        #[target_feature(enable = "avx512f,avx2,fma")]
        run512,
        Zmm
    );

    /// # Safety
    /// The CPU must support AVX2 and FMA.
    pub(super) unsafe fn avx2(ks: (usize, usize), cx: &Cx, src: Src, yp: &mut [f32]) {
        // 4 blocks = 8 of the 16 registers accumulate.
        dispatch!(run256, (2, 2), ks, cx, src, yp)
    }

    runner!(
        #[target_feature(enable = "avx2,fma")]
        run256,
        Ymm2
    );
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{steps, tall, Block, Cx, Src};
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
        #[inline(always)]
        unsafe fn evens(p: *const f32) -> Self {
            Q4(std::array::from_fn(|i| vld2q_f32(p.add(8 * i)).0))
        }
        #[inline(always)]
        unsafe fn keep_first(self, m: usize) -> Self {
            let (m, lane) = (vdupq_n_u32(m.min(16) as u32), [0u32, 1, 2, 3]);
            Q4(std::array::from_fn(|i| {
                let idx = vaddq_u32(vld1q_u32(lane.as_ptr()), vdupq_n_u32(4 * i as u32));
                vbslq_f32(vcltq_u32(idx, m), self.0[i], vdupq_n_f32(0.0))
            }))
        }
    }

    /// NEON is part of the aarch64 baseline.
    pub(super) fn plane(ks: (usize, usize), cx: &Cx, src: Src, yp: &mut [f32]) {
        // SAFETY: NEON is mandatory on aarch64. 4 blocks = 16 of the 32
        // registers accumulate.
        unsafe { dispatch!(run, (2, 2), ks, cx, src, yp) }
    }

    runner!(run, Q4);
}
