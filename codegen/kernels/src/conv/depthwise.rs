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

/// Scratch elements of [`depthwise_blocked`]: one lane-interleaved input
/// block (`h·w·LANES`) and one output block (`out_h·out_w·LANES`).
pub(crate) fn blocked_scratch_len(p: &Conv2d) -> usize {
    (p.h * p.w + p.out_h() * p.out_w()) * LANES
}

crate::multiversion! {
    /// Depthwise convolution with channel multiplier 1, `LANES` channels at a
    /// time: the input block is interleaved `[h][w][LANES]`, so every tap of
    /// every output pixel is one full-width multiply-add (no row tails), then
    /// the output block is de-interleaved into NCHW with bias and activation.
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
        let (is, os, ks) = (p.h * p.w, oh * ow, p.kh * p.kw);
        let (xb, rest) = scratch.split_at_mut(is * LANES);
        let yb = &mut rest[..os * LANES];
        for b in 0..p.n {
            for c0 in (0..p.c_in).step_by(LANES) {
                let lanes = LANES.min(p.c_in - c0);
                let xs = &x[(b * p.c_in + c0) * is..(b * p.c_in + c0 + lanes) * is];
                interleave(xs, is, lanes, xb);
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

/// `dst[i][l] = src[l·n + i]` for `lanes` planes of `n` elements (unused lanes 0).
#[inline(always)]
fn interleave(src: &[f32], n: usize, lanes: usize, dst: &mut [f32]) {
    for (i, px) in dst[..n * LANES].chunks_exact_mut(LANES).enumerate() {
        for (l, v) in px.iter_mut().enumerate() {
            *v = if l < lanes { src[l * n + i] } else { 0.0 };
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

/// Output pixels computed together in the interior (independent
/// accumulators, so the multiply-adds of different pixels overlap).
const PIXELS: usize = 4;

/// The interior of one axis: outputs `lo..hi` whose every tap lands inside
/// the input (`n` long, stride `s`, dilation `d`, `k` taps, `pad` before).
fn interior(out: usize, n: usize, s: usize, d: usize, k: usize, pad: usize) -> (usize, usize) {
    let lo = pad.div_ceil(s).min(out);
    // o·s + (k - 1)·d - pad < n  ⇔  o·s < n + pad - (k - 1)·d.
    let lim = (n + pad).saturating_sub((k - 1) * d);
    let hi = if lim == 0 { 0 } else { ((lim - 1) / s + 1).min(out) };
    (lo, hi.max(lo))
}

/// Every output pixel of one lane block: `bias + Σ taps w · x` over the
/// taps that land inside the input (`FMA`: one rounding per tap, as the
/// padded kernels). Interior pixels (all column taps inside) take `PIXELS`
/// at a time without bounds tests.
#[inline(always)]
fn taps_block<const FMA: bool>(p: &Conv2d, xb: &[f32], wb: &[[f32; LANES]], bias: &[f32; LANES], yb: &mut [f32]) {
    let (oh, ow) = (p.out_h(), p.out_w());
    let (xlo, xhi) = interior(ow, p.w, p.stride_w, p.dil_w, p.kw, p.pad_left);
    for oy in 0..oh {
        let (klo, khi) = row_taps(p, oy);
        let mut ox = 0;
        while ox < ow {
            if ox >= xlo && ox + PIXELS <= xhi {
                pixels::<PIXELS, FMA>(p, xb, wb, bias, (oy, ox), (klo, khi), yb);
                ox += PIXELS;
            } else if ox >= xlo && ox < xhi {
                pixels::<1, FMA>(p, xb, wb, bias, (oy, ox), (klo, khi), yb);
                ox += 1;
            } else {
                border_pixel::<FMA>(p, xb, wb, bias, (oy, ox), yb);
                ox += 1;
            }
        }
    }
}

/// The kernel rows `klo..khi` of output row `oy` that land inside the input.
#[inline(always)]
fn row_taps(p: &Conv2d, oy: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (p.kh, 0);
    for ky in 0..p.kh {
        let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
        if iy >= 0 && iy < p.h as isize {
            lo = lo.min(ky);
            hi = ky + 1;
        }
    }
    (lo.min(hi), hi)
}

/// `N` interior pixels `ox..ox + N` of row `oy` (every column tap inside).
#[inline(always)]
fn pixels<const N: usize, const FMA: bool>(
    p: &Conv2d,
    xb: &[f32],
    wb: &[[f32; LANES]],
    bias: &[f32; LANES],
    (oy, ox): (usize, usize),
    (klo, khi): (usize, usize),
    yb: &mut [f32],
) {
    let mut acc = [*bias; N];
    for ky in klo..khi {
        let iy = (oy * p.stride_h + ky * p.dil_h) - p.pad_top;
        for kx in 0..p.kw {
            let wv = &wb[ky * p.kw + kx];
            for (j, a) in acc.iter_mut().enumerate() {
                let ix = (ox + j) * p.stride_w + kx * p.dil_w - p.pad_left;
                let at = (iy * p.w + ix) * LANES;
                let xv: &[f32; LANES] = xb[at..at + LANES].try_into().expect("lane block");
                lanes_madd::<FMA>(a, wv, xv);
            }
        }
    }
    for (j, a) in acc.iter().enumerate() {
        yb[(oy * p.out_w() + ox + j) * LANES..][..LANES].copy_from_slice(a);
    }
}

/// One output pixel with bounds tests on every tap (the borders).
#[inline(always)]
fn border_pixel<const FMA: bool>(
    p: &Conv2d,
    xb: &[f32],
    wb: &[[f32; LANES]],
    bias: &[f32; LANES],
    (oy, ox): (usize, usize),
    yb: &mut [f32],
) {
    let mut acc = *bias;
    for ky in 0..p.kh {
        let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
        if iy < 0 || iy >= p.h as isize {
            continue;
        }
        for kx in 0..p.kw {
            let ix = (ox * p.stride_w + kx * p.dil_w) as isize - p.pad_left as isize;
            if ix < 0 || ix >= p.w as isize {
                continue;
            }
            let at = (iy as usize * p.w + ix as usize) * LANES;
            let xv: &[f32; LANES] = xb[at..at + LANES].try_into().expect("lane block");
            lanes_madd::<FMA>(&mut acc, &wb[ky * p.kw + kx], xv);
        }
    }
    yb[(oy * p.out_w() + ox) * LANES..][..LANES].copy_from_slice(&acc);
}

/// `a += w · x` per lane, one rounding with `FMA`.
#[inline(always)]
fn lanes_madd<const FMA: bool>(a: &mut [f32; LANES], w: &[f32; LANES], x: &[f32; LANES]) {
    for l in 0..LANES {
        a[l] = if FMA { x[l].mul_add(w[l], a[l]) } else { a[l] + w[l] * x[l] };
    }
}
