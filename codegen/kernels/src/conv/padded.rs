//! Depthwise and shallow (stem) convolutions over a zero-padded, column-phase-split copy of each
//! input plane, `COLS` output columns at a time accumulated in registers.
//!
//! Padded row `r` is input row `r − pad_top`; its padded column `c` (input
//! column `c − pad_left`) is element `c / s` of phase `c % s` (`s` the
//! column stride). Output column `ox` of tap `kx` then reads padded column
//! `ox·s + kx·dil`, which is element `ox + kx·dil / s` of phase
//! `kx·dil % s`: for every tap, `COLS` consecutive outputs read `COLS`
//! consecutive elements, with no bounds tests and no border cases (the
//! zeros are in the copy). Invariant: every element of the copy the taps
//! read is either written for every channel (an input element) or zero
//! for every channel, so the copy is zeroed once per call.

use super::Conv2d;
use crate::act::{Act, ActSlice};

/// Output columns computed together (one AVX-512 vector, two AVX2 or four
/// SSE/NEON vectors).
const COLS: usize = 16;

/// Widest kernel whose tap offsets are precomputed (wider kernels take
/// another kernel).
const MAX_KW: usize = 16;

/// Largest column stride (phases precomputed).
const MAX_STRIDE: usize = 4;

/// Units of `COLS` outputs (an output row's column block) computed
/// together: independent accumulators, so the adds of one tap overlap
/// instead of waiting on each other.
const UNITS: usize = 4;

/// The padded, phase-split plane: `rows` rows of `s` phases of `phase`
/// elements each; outputs are computed for `owp` columns (`out_w` rounded
/// up to `COLS`), of which `out_w` are stored.
struct Geom {
    rows: usize,
    phase: usize,
    owp: usize,
}

impl Geom {
    fn of(p: &Conv2d) -> Geom {
        let owp = p.out_w().div_ceil(COLS) * COLS;
        Geom {
            rows: (p.out_h().max(1) - 1) * p.stride_h + (p.kh - 1) * p.dil_h + 1,
            phase: owp + (p.kw - 1) * p.dil_w / p.stride_w + 1,
            owp,
        }
    }
    fn row_len(&self, s: usize) -> usize {
        s * self.phase
    }
}

/// True if [`depthwise_padded`] takes `p`: a kernel at most [`MAX_KW`]
/// wide, a column stride at most [`MAX_STRIDE`], and at most a quarter of
/// the computed columns past the output's width (7-wide planes compute 16
/// columns for 7: channel blocks waste less there).
pub(crate) fn takes(p: &Conv2d) -> bool {
    let owp = p.out_w().div_ceil(COLS) * COLS;
    p.kw <= MAX_KW && p.stride_w <= MAX_STRIDE && 4 * (owp - p.out_w()) <= owp
}

/// Scratch elements [`depthwise_padded`] needs.
pub(crate) fn scratch_len(p: &Conv2d) -> usize {
    let g = Geom::of(p);
    g.rows * g.row_len(p.stride_w)
}

/// Where each tap column starts in a padded row, and each phase's first
/// input column with where it lands in the phase.
struct Offsets {
    taps: [usize; MAX_KW],
    phases: [(usize, usize); MAX_STRIDE],
}

impl Offsets {
    fn of(p: &Conv2d, g: &Geom) -> Offsets {
        let s = p.stride_w;
        let mut taps = [0usize; MAX_KW];
        for (kx, t) in taps.iter_mut().enumerate().take(p.kw) {
            let off = kx * p.dil_w;
            *t = off % s * g.phase + off / s;
        }
        let mut phases = [(0usize, 0usize); MAX_STRIDE];
        for (q, ph) in phases.iter_mut().enumerate().take(s) {
            let ix0 = (q + s - p.pad_left % s) % s;
            *ph = (ix0, (ix0 + p.pad_left) / s);
        }
        Offsets { taps, phases }
    }
}

crate::multiversion! {
    /// `y = act(depthwise_conv(x, w) + bias)` where [`takes`] holds
    /// (lengths checked by the caller).
    pub(crate) fn depthwise_padded(
        p: &Conv2d,
        x: &[f32],
        w: &[f32],
        bias: Option<&[f32]>,
        act: Act,
        y: &mut [f32],
        scratch: &mut [f32],
    ) {
        let (g, s) = (Geom::of(p), p.stride_w);
        let (is, os, ks) = (p.h * p.w, p.out_h() * p.out_w(), p.kh * p.kw);
        let mult = p.c_out / p.c_in;
        let plane = &mut scratch[..g.rows * g.row_len(s)];
        plane.fill(0.0);
        let o = Offsets::of(p, &g);
        for b in 0..p.n {
            for ic in 0..p.c_in {
                fill(p, &g, &o.phases[..s], &x[(b * p.c_in + ic) * is..][..is], plane);
                for oc in ic * mult..(ic + 1) * mult {
                    let yp = &mut y[(b * p.c_out + oc) * os..][..os];
                    let b0 = bias.map_or(0.0, |b| b[oc]);
                    channel(p, &g, (plane, plane.len()), &o.taps[..p.kw], &w[oc * ks..(oc + 1) * ks], b0, yp);
                    act.apply_slice(yp);
                }
            }
        }
    }
}

/// Deepest convolution (`c_in · kh · kw`) [`conv_direct`] always takes:
/// stems over a few input channels, where im2col would copy every input
/// element `kh · kw` times for a GEMM too shallow to pay for it.
const DIRECT_DEPTH: usize = 32;

/// Most output channels [`conv_direct`] takes on a plane whose width is a
/// multiple of `COLS` (fewer on other widths, in proportion to the columns
/// computed in vain): im2col copies each input `kh · kw` times to be read by
/// `c_out` rows of the GEMM, which pays only for many of them, while the
/// direct loops read each input from L1 once per output channel. Measured
/// on PP-OCR's detector: 3×3 convs to 8 and 16 channels gain 1.5–2×, to 24
/// and 32 channels on 8- and 4-wide planes lose 1.4–1.9×.
const DIRECT_OUT: usize = 16;

/// Most input channels [`conv_direct`] takes (its scratch holds every
/// input plane, padded).
const DIRECT_IN: usize = 64;

/// True if [`conv_direct`] takes `p`: one group, a kernel at most
/// [`MAX_KW`] wide, a column stride at most [`MAX_STRIDE`], at most
/// [`DIRECT_IN`] input channels, and either at most [`DIRECT_DEPTH`] deep
/// or at most [`DIRECT_OUT`] output channels (scaled by the columns
/// computed in vain).
pub(crate) fn takes_direct(p: &Conv2d) -> bool {
    let (ow, owp) = (p.out_w(), p.out_w().div_ceil(COLS) * COLS);
    let shallow = p.c_in * p.kh * p.kw <= DIRECT_DEPTH;
    let narrow = p.c_out * owp <= DIRECT_OUT * ow;
    p.groups == 1 && p.kw <= MAX_KW && p.stride_w <= MAX_STRIDE && p.c_in <= DIRECT_IN && (shallow || narrow)
}

/// Scratch elements [`conv_direct`] needs: every input plane padded.
pub(crate) fn direct_scratch_len(p: &Conv2d) -> usize {
    p.c_in * scratch_len(p)
}

crate::multiversion! {
    /// `y = act(conv(x, w) + bias)` for one group where [`takes_direct`]
    /// holds: every input plane is padded once, then each output plane
    /// sums its taps over all of them.
    pub(crate) fn conv_direct(
        p: &Conv2d,
        x: &[f32],
        w: &[f32],
        bias: Option<&[f32]>,
        act: Act,
        y: &mut [f32],
        scratch: &mut [f32],
    ) {
        let (g, s) = (Geom::of(p), p.stride_w);
        let (is, os, depth) = (p.h * p.w, p.out_h() * p.out_w(), p.c_in * p.kh * p.kw);
        let pl = scratch_len(p);
        let planes = &mut scratch[..p.c_in * pl];
        planes.fill(0.0);
        let o = Offsets::of(p, &g);
        for b in 0..p.n {
            for (ic, plane) in planes.chunks_exact_mut(pl).enumerate() {
                fill(p, &g, &o.phases[..s], &x[(b * p.c_in + ic) * is..][..is], plane);
            }
            for oc in 0..p.c_out {
                let yp = &mut y[(b * p.c_out + oc) * os..][..os];
                let b0 = bias.map_or(0.0, |b| b[oc]);
                channel(p, &g, (planes, pl), &o.taps[..p.kw], &w[oc * depth..(oc + 1) * depth], b0, yp);
                act.apply_slice(yp);
            }
        }
    }
}

/// Copy one input plane into the padded, phase-split `plane` (only the
/// input's elements: the padding stays zero). `phases[q]`: the first input
/// column of phase `q` and where it lands in the phase.
#[inline(always)]
fn fill(p: &Conv2d, g: &Geom, phases: &[(usize, usize)], xp: &[f32], plane: &mut [f32]) {
    let s = p.stride_w;
    let rl = g.row_len(s);
    for (r, dst) in plane.chunks_exact_mut(rl).enumerate() {
        let Some(iy) = r.checked_sub(p.pad_top).filter(|&iy| iy < p.h) else { continue };
        let row = &xp[iy * p.w..(iy + 1) * p.w];
        for (q, &(ix0, j0)) in phases.iter().enumerate() {
            let ph = &mut dst[q * g.phase + j0.min(g.phase)..(q + 1) * g.phase];
            let src = &row[ix0.min(p.w)..];
            match s {
                1 => {
                    let n = ph.len().min(src.len());
                    ph[..n].copy_from_slice(&src[..n]);
                }
                // 32 inputs to 16 outputs at a time, so the even/odd split
                // vectorizes as shuffles.
                2 => {
                    let n = ph.len().min(src.len().div_ceil(2));
                    let mut i = 0;
                    while i + 16 <= n && 2 * i + 32 <= src.len() {
                        let a: &[f32; 32] = src[2 * i..2 * i + 32].try_into().expect("32");
                        let d: &mut [f32; 16] = (&mut ph[i..i + 16]).try_into().expect("16");
                        for k in 0..16 {
                            d[k] = a[2 * k];
                        }
                        i += 16;
                    }
                    for k in i..n {
                        ph[k] = src[2 * k];
                    }
                }
                _ => {
                    for (d, &v) in ph.iter_mut().zip(src.iter().step_by(s)) {
                        *d = v;
                    }
                }
            }
        }
    }
}

/// One output plane: `bias + Σ taps` over the padded planes (`planes`:
/// consecutive planes of `pl` elements, one per input channel read; `wk`:
/// the weights `[plane][kh][kw]`), `COLS` columns at a time, `UNITS`
/// column blocks (of one or several rows) together.
#[inline(always)]
fn channel(p: &Conv2d, g: &Geom, (planes, pl): (&[f32], usize), taps: &[usize], wk: &[f32], bias: f32, yp: &mut [f32]) {
    let (ow, rl, blocks) = (p.out_w(), g.row_len(p.stride_w), g.owp / COLS);
    let units = p.out_h() * blocks;
    // Unit u: output row u / blocks, columns (u % blocks)·COLS ...; its
    // first tap reads a plane at `base(u)`.
    let base = |u: usize| (u / blocks) * p.stride_h * rl + (u % blocks) * COLS;
    let ks = p.kh * p.kw;
    let mut u = 0;
    while u < units {
        let n = UNITS.min(units - u);
        // Four named accumulators (an array of them was kept in memory).
        let [b0, b1, b2, b3] = [0, 1, 2, 3].map(|j| base(u + j.min(n - 1)));
        let [mut a0, mut a1, mut a2, mut a3] = [[bias; COLS]; UNITS];
        for (plane, wp) in planes.chunks_exact(pl).zip(wk.chunks_exact(ks)) {
            for ky in 0..p.kh {
                let row = ky * p.dil_h * rl;
                for (&t, &wv) in taps.iter().zip(&wp[ky * p.kw..(ky + 1) * p.kw]) {
                    let o = row + t;
                    madd(&mut a0, wv, &plane[b0 + o..]);
                    madd(&mut a1, wv, &plane[b1 + o..]);
                    madd(&mut a2, wv, &plane[b2 + o..]);
                    madd(&mut a3, wv, &plane[b3 + o..]);
                }
            }
        }
        for (j, a) in [a0, a1, a2, a3].iter().enumerate().take(n) {
            let (oy, bx) = ((u + j) / blocks, (u + j) % blocks * COLS);
            let m = COLS.min(ow - bx);
            yp[oy * ow + bx..oy * ow + bx + m].copy_from_slice(&a[..m]);
        }
        u += n;
    }
}

/// `a += w · x[..COLS]`.
#[inline(always)]
fn madd(a: &mut [f32; COLS], w: f32, x: &[f32]) {
    let x: &[f32; COLS] = x[..COLS].try_into().expect("COLS");
    for l in 0..COLS {
        a[l] += w * x[l];
    }
}
