//! Depthwise convolution (`groups == c_in`, `c_out = c_in · multiplier`),
//! computed directly: output channel `oc` reads input channel
//! `oc / multiplier` only. Each output row accumulates, tap by tap, a
//! contiguous range of output columns (the columns whose tap lands inside
//! the input, found analytically), so the inner loop has no bounds tests.

use super::Conv2d;
use crate::act::{Act, ActSlice};

/// Output columns `ox` whose tap reads phase index `ox + base` inside `0..len`.
fn valid_cols(ow: usize, len: usize, base: isize) -> std::ops::Range<usize> {
    let lo = if base >= 0 { 0 } else { (-base) as usize };
    let hi = (len as isize - base).clamp(0, ow as isize) as usize;
    lo.min(hi)..hi
}

/// Scratch elements [`depthwise2d`] needs: one input plane split into its
/// `stride_w` column phases (none for stride 1).
pub(crate) fn scratch_len(p: &Conv2d) -> usize {
    if p.stride_w > 1 {
        p.h * p.w
    } else {
        0
    }
}

/// Split every row of `plane` (`h × w`) into its `s` column phases: phase
/// `q` holds columns `q, q + s, ...`; phases are stored one after another
/// per row.
#[inline(always)]
fn split_phases(plane: &[f32], w: usize, s: usize, out: &mut [f32]) {
    for (row, dst) in plane.chunks_exact(w).zip(out.chunks_exact_mut(w)) {
        let mut at = 0;
        for q in 0..s {
            for &v in row.iter().skip(q).step_by(s) {
                dst[at] = v;
                at += 1;
            }
        }
    }
}

crate::multiversion! {
/// `y = act(depthwise_conv(x, w) + bias)` (lengths checked by the caller;
/// compiled per instruction set by [`crate::multiversion!`]).
///
/// Column `ox·s + off` of an input row is element `ox + off.div_euclid(s)`
/// of phase `off.rem_euclid(s)`, so with the row split into phases every tap
/// is one contiguous multiply-add loop over the output columns (for stride 1
/// the row itself is the only phase).
pub(crate) fn depthwise2d(
    p: &Conv2d,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    act: Act,
    y: &mut [f32],
    scratch: &mut [f32],
) {
    let (oh, ow) = (p.out_h(), p.out_w());
    let (is, os, ks, s) = (p.h * p.w, oh * ow, p.kh * p.kw, p.stride_w);
    let mult = p.c_out / p.c_in;
    for b in 0..p.n {
        for ic in 0..p.c_in {
            let xp = &x[(b * p.c_in + ic) * is..][..is];
            let plane: &[f32] = if s > 1 {
                split_phases(xp, p.w, s, &mut scratch[..is]);
                &scratch[..is]
            } else {
                xp
            };
            for oc in ic * mult..(ic + 1) * mult {
                let yp = &mut y[(b * p.c_out + oc) * os..][..os];
                yp.fill(bias.map_or(0.0, |b| b[oc]));
                channel(p, plane, &w[oc * ks..(oc + 1) * ks], yp, ow);
                act.apply_slice(yp);
            }
        }
    }
}
}

/// Where tap column `kx` reads in a phase-split input row: the phase's start
/// in the row, the phase length and the index shift (`ox + base`).
#[derive(Copy, Clone, Default)]
struct TapCols {
    start: usize,
    len: usize,
    base: isize,
}

/// The column geometry of tap `kx` (`None` if it reads no input column).
#[inline(always)]
fn tap_cols(p: &Conv2d, kx: usize) -> Option<TapCols> {
    let s = p.stride_w as isize;
    let off = (kx * p.dil_w) as isize - p.pad_left as isize;
    let (q, base) = (off.rem_euclid(s) as usize, off.div_euclid(s));
    if q >= p.w {
        return None;
    }
    // Phase q starts after the phases 0..q of the row.
    let start: usize = (0..q).map(|t| (p.w - t).div_ceil(p.stride_w)).sum();
    Some(TapCols { start, len: (p.w - q).div_ceil(p.stride_w), base })
}

/// Most tap columns precomputed per channel (wider kernels recompute per row).
const MAX_KW: usize = 16;

/// Accumulate the taps of one channel into its output plane `yp`.
#[inline(always)]
fn channel(p: &Conv2d, plane: &[f32], wk: &[f32], yp: &mut [f32], ow: usize) {
    let mut cols = [None::<TapCols>; MAX_KW];
    for (kx, c) in cols.iter_mut().enumerate().take(p.kw.min(MAX_KW)) {
        *c = tap_cols(p, kx);
    }
    for (oy, yrow) in yp.chunks_exact_mut(ow).enumerate() {
        for ky in 0..p.kh {
            let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
            if iy < 0 || iy >= p.h as isize {
                continue;
            }
            let xrow = &plane[iy as usize * p.w..(iy as usize + 1) * p.w];
            for kx in 0..p.kw {
                let Some(t) = (if kx < MAX_KW { cols[kx] } else { tap_cols(p, kx) }) else { continue };
                let r = valid_cols(ow, t.len, t.base);
                if r.is_empty() {
                    continue;
                }
                let wv = wk[ky * p.kw + kx];
                let xs = &xrow[t.start + (r.start as isize + t.base) as usize..][..r.len()];
                yrow[r].iter_mut().zip(xs).for_each(|(o, &v)| *o += wv * v);
            }
        }
    }
}

/// Channels processed together by [`depthwise_blocked`].
pub(crate) const LANES: usize = 16;

/// The zero-padded input block of [`depthwise_blocked`]: rows and columns
/// with the conv's padding on both sides.
fn padded_dims(p: &Conv2d) -> (usize, usize) {
    (p.h + p.pad_top + p.pad_bottom, p.w + p.pad_left + p.pad_right)
}

/// Scratch elements of [`depthwise_blocked`]: one lane-interleaved,
/// zero-padded input block (`hp·wp·LANES`) and one output block
/// (`out_h·out_w·LANES`).
pub(crate) fn blocked_scratch_len(p: &Conv2d) -> usize {
    let (hp, wp) = padded_dims(p);
    (hp * wp + p.out_h() * p.out_w()) * LANES
}

crate::multiversion! {
    /// Depthwise convolution with channel multiplier 1, `LANES` channels at a
    /// time: the input block is interleaved `[hp][wp][LANES]` inside its
    /// zero padding, so every tap of every output pixel is one full-width
    /// multiply-add with no bounds tests, then the output block is
    /// de-interleaved into NCHW with bias and activation. Each output sums
    /// its taps in the padded kernels' order (bias, then `ky`, `kx`
    /// ascending, padding zeros included) with the same rounding.
    /// Invariant: the padding of the input block is zero for every block
    /// (zeroed once per call; blocks write only the interior).
    pub(crate) fn depthwise_blocked(
        p: &Conv2d,
        x: &[f32],
        w: &[f32],
        bias: Option<&[f32]>,
        act: Act,
        y: &mut [f32],
        scratch: &mut [f32],
    ) {
        let (oh, ow) = (p.out_h(), p.out_w());
        let (hp, wp) = padded_dims(p);
        let (is, os, ks) = (p.h * p.w, oh * ow, p.kh * p.kw);
        let (xb, rest) = scratch.split_at_mut(hp * wp * LANES);
        let yb = &mut rest[..os * LANES];
        xb.fill(0.0);
        for b in 0..p.n {
            for c0 in (0..p.c_in).step_by(LANES) {
                let lanes = LANES.min(p.c_in - c0);
                let xs = &x[(b * p.c_in + c0) * is..(b * p.c_in + c0 + lanes) * is];
                interleave(p, xs, lanes, xb);
                let mut wb = [[0f32; LANES]; 64];
                let taps = &mut wb[..ks.min(64)];
                for (t, lane_w) in taps.iter_mut().enumerate() {
                    for l in 0..lanes {
                        lane_w[l] = w[(c0 + l) * ks + t];
                    }
                }
                let mut b0 = [0f32; LANES];
                for (l, v) in b0.iter_mut().enumerate().take(lanes) {
                    *v = bias.map_or(0.0, |bv| bv[c0 + l]);
                }
                if super::padded::fused() {
                    taps_block::<true>(p, xb, taps, &b0, yb);
                } else {
                    taps_block::<false>(p, xb, taps, &b0, yb);
                }
                let ys = &mut y[(b * p.c_out + c0) * os..(b * p.c_out + c0 + lanes) * os];
                deinterleave(yb, os, lanes, ys);
                act.apply_slice(ys);
            }
        }
    }
}

/// `dst[(iy + pad_top)·wp + ix + pad_left][l] = src[l·h·w + iy·w + ix]` for
/// `lanes` planes (unused lanes 0); the padding is not written.
#[inline(always)]
fn interleave(p: &Conv2d, src: &[f32], lanes: usize, dst: &mut [f32]) {
    let (n, wp) = (p.h * p.w, padded_dims(p).1);
    for iy in 0..p.h {
        let row = &mut dst[((iy + p.pad_top) * wp + p.pad_left) * LANES..][..p.w * LANES];
        for (ix, px) in row.chunks_exact_mut(LANES).enumerate() {
            let i = iy * p.w + ix;
            for (l, v) in px.iter_mut().enumerate() {
                *v = if l < lanes { src[l * n + i] } else { 0.0 };
            }
        }
    }
}

/// `dst[l·n + i] = src[i][l]` for the first `lanes` lanes.
#[inline(always)]
fn deinterleave(src: &[f32], n: usize, lanes: usize, dst: &mut [f32]) {
    for (l, plane) in dst.chunks_exact_mut(n).enumerate().take(lanes) {
        for (i, v) in plane.iter_mut().enumerate() {
            *v = src[i * LANES + l];
        }
    }
}

/// Output pixels computed together (independent accumulators, so the
/// multiply-adds of different pixels overlap).
const PIXELS: usize = 8;

/// Every output pixel of one lane block: `bias + Σ taps w · x` over all
/// taps of the padded block (`FMA`: one rounding per tap), `PIXELS` at a
/// time, a row's remainder in one step of its own width (a 7-wide plane:
/// seven independent accumulators, not one chain per pixel).
#[inline(always)]
fn taps_block<const FMA: bool>(p: &Conv2d, xb: &[f32], wb: &[[f32; LANES]], bias: &[f32; LANES], yb: &mut [f32]) {
    let (oh, ow) = (p.out_h(), p.out_w());
    for oy in 0..oh {
        let mut ox = 0;
        while ox + PIXELS <= ow {
            pixels::<PIXELS, FMA>(p, xb, wb, bias, (oy, ox), yb);
            ox += PIXELS;
        }
        let at = (oy, ox);
        match ow - ox {
            0 => {}
            1 => pixels::<1, FMA>(p, xb, wb, bias, at, yb),
            2 => pixels::<2, FMA>(p, xb, wb, bias, at, yb),
            3 => pixels::<3, FMA>(p, xb, wb, bias, at, yb),
            4 => pixels::<4, FMA>(p, xb, wb, bias, at, yb),
            5 => pixels::<5, FMA>(p, xb, wb, bias, at, yb),
            6 => pixels::<6, FMA>(p, xb, wb, bias, at, yb),
            _ => pixels::<7, FMA>(p, xb, wb, bias, at, yb),
        }
    }
}

/// `N` pixels `ox..ox + N` of output row `oy`.
#[inline(always)]
fn pixels<const N: usize, const FMA: bool>(
    p: &Conv2d,
    xb: &[f32],
    wb: &[[f32; LANES]],
    bias: &[f32; LANES],
    (oy, ox): (usize, usize),
    yb: &mut [f32],
) {
    let wp = padded_dims(p).1;
    let mut acc = [*bias; N];
    for ky in 0..p.kh {
        let iy = oy * p.stride_h + ky * p.dil_h;
        for kx in 0..p.kw {
            let wv = &wb[ky * p.kw + kx];
            for (j, a) in acc.iter_mut().enumerate() {
                let ix = (ox + j) * p.stride_w + kx * p.dil_w;
                let at = (iy * wp + ix) * LANES;
                let xv: &[f32; LANES] = xb[at..at + LANES].try_into().expect("lane block");
                lanes_madd::<FMA>(a, wv, xv);
            }
        }
    }
    for (j, a) in acc.iter().enumerate() {
        yb[(oy * p.out_w() + ox + j) * LANES..][..LANES].copy_from_slice(a);
    }
}

/// `a += w · x` per lane, one rounding with `FMA`.
#[inline(always)]
fn lanes_madd<const FMA: bool>(a: &mut [f32; LANES], w: &[f32; LANES], x: &[f32; LANES]) {
    for l in 0..LANES {
        a[l] = if FMA { x[l].mul_add(w[l], a[l]) } else { a[l] + w[l] * x[l] };
    }
}
