//! Depthwise, shallow (stem) and narrow convolutions over a zero-padded,
//! column-phase-split copy of each input plane, `COLS` output columns at a
//! time accumulated in registers.
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

use super::square::{self, Geom, COLS};
use super::Conv2d;
use crate::act::{Act, ActSlice};
use crate::threads;
use std::ops::Range;

/// Widest kernel whose tap offsets are precomputed (wider kernels take
/// another kernel).
const MAX_KW: usize = 16;

/// Largest column stride (phases precomputed).
const MAX_STRIDE: usize = 4;

/// Units of `COLS` outputs (an output row's column block) computed
/// together: independent accumulators, so the adds of one tap overlap
/// instead of waiting on each other.
const UNITS: usize = 4;

/// True if [`depthwise_padded`] takes `p`: a kernel at most [`MAX_KW`]
/// wide, a column stride at most [`MAX_STRIDE`], and at most a quarter of
/// the computed columns past the output's width (7-wide planes compute 16
/// columns for 7: channel blocks waste less there).
pub(crate) fn takes(p: &Conv2d) -> bool {
    let owp = p.out_w().div_ceil(COLS) * COLS;
    p.kw <= MAX_KW && p.stride_w <= MAX_STRIDE && 4 * (owp - p.out_w()) <= owp
}

/// Scratch elements [`depthwise_padded`] needs: the plane, and zeros past
/// it that the square-kernel steps read in vain (see [`square`]).
pub(crate) fn scratch_len(p: &Conv2d) -> usize {
    let g = Geom::of(p);
    g.rows * g.row_len(p.stride_w) + slack(p, &g)
}

/// Zeros past the plane: a [`square`] step computes up to
/// [`square::MAX_ROWS`] rows (reading twice as many at stride 2) of up to
/// [`UNITS`] column blocks even where the plane ends sooner (it stores only
/// the outputs that exist), and its plane starts on a 64-byte boundary
/// ([`COLS`] more); the other loops read no further than two rows.
fn slack(p: &Conv2d, g: &Geom) -> usize {
    let rl = g.row_len(p.stride_w);
    match square::side(p) {
        Some(_) => 2 * square::MAX_ROWS * rl + UNITS * COLS + COLS,
        None => 2 * rl + UNITS * COLS,
    }
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
        let len = g.rows * g.row_len(s);
        // Rows of the square kernels start on 64-byte boundaries (the
        // slack's last COLS elements leave room to shift the plane).
        let (at, room) = match square::side(p) {
            Some(_) => (scratch.as_ptr().align_offset(64).min(COLS), COLS),
            None => (0, 0),
        };
        let plane = &mut scratch[at..at + len + slack(p, &g) - room];
        plane.fill(0.0);
        let (o, fma) = (Offsets::of(p, &g), fused());
        let side = square::side(p).filter(|_| fma && square::available() && square::fits(p, g.owp));
        // One output plane per input plane: the square kernel copies the
        // rows as it reaches them.
        let lazy = side.is_some() && mult == 1;
        for b in 0..p.n {
            for ic in 0..p.c_in {
                let xp = &x[(b * p.c_in + ic) * is..][..is];
                let phases = &o.phases[..s];
                if !lazy {
                    fill_rows(p, &g, phases, xp, plane, 0..g.rows);
                }
                for oc in ic * mult..(ic + 1) * mult {
                    let yp = &mut y[(b * p.c_out + oc) * os..][..os];
                    let b0 = bias.map_or(0.0, |b| b[oc]);
                    let wk = &w[oc * ks..(oc + 1) * ks];
                    if let Some(ks) = side {
                        let src = square::Src { plane: &mut *plane, input: lazy.then_some((phases, xp)) };
                        square::plane(ks, p, &g, src, wk, (b0, act), yp);
                    } else {
                        let planes = (&plane[..len], len);
                        channel(fma, p, &g, planes, &o.taps[..p.kw], wk, b0, (0, p.out_h()), yp);
                        act.apply_slice(yp);
                    }
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

/// Output rows [`conv_direct`] computes for every output channel before
/// moving on (their input rows, over all input planes, stay in L1).
const BAND: usize = 4;

/// True if [`conv_direct`] may take convs with `p`'s weights (what packing
/// decides, on the weight geometry alone: the input size of a model with
/// symbolic dims is known only at run time): one group, a kernel at most
/// [`MAX_KW`] wide, a column stride at most [`MAX_STRIDE`], at most
/// [`DIRECT_IN`] input channels, and either at most [`DIRECT_DEPTH`] deep
/// or at most [`DIRECT_OUT`] output channels.
pub(crate) fn direct_weights(p: &Conv2d) -> bool {
    let shallow = p.c_in * p.kh * p.kw <= DIRECT_DEPTH;
    p.groups == 1
        && p.kw <= MAX_KW
        && p.stride_w <= MAX_STRIDE
        && p.c_in <= DIRECT_IN
        && (shallow || p.c_out <= DIRECT_OUT)
}

/// True if [`conv_direct`] takes `p` (at its input size): [`direct_weights`],
/// and a deep conv's output channels scaled by the columns computed in vain
/// stay within [`DIRECT_OUT`].
pub(crate) fn takes_direct(p: &Conv2d) -> bool {
    let (ow, owp) = (p.out_w(), p.out_w().div_ceil(COLS) * COLS);
    let shallow = p.c_in * p.kh * p.kw <= DIRECT_DEPTH;
    direct_weights(p) && (shallow || p.c_out * owp <= DIRECT_OUT * ow)
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
        let (o, fma) = (Offsets::of(p, &g), fused());
        for b in 0..p.n {
            for (ic, plane) in planes.chunks_exact_mut(pl).enumerate() {
                fill_rows(p, &g, &o.phases[..s], &x[(b * p.c_in + ic) * is..][..is], plane, 0..g.rows);
            }
            let yb = &mut y[b * p.c_out * os..(b + 1) * p.c_out * os];
            // Output channels split across threads in whole quads (the
            // channels after the last quad go with the last part).
            let parts = threads::part_len(p.c_out, 4, p.c_out * os * depth);
            let (planes, taps) = ((&planes[..], pl), &o.taps[..p.kw]);
            threads::for_each_chunk(yb, parts * os, 0, &|i, yc, _| {
                let (w, bias) = (&w[i * parts * depth..], bias.map(|b| &b[i * parts..]));
                channels(fma, p, &g, planes, taps, w, bias, yc);
                act.apply_slice(yc);
            });
        }
    }
}

crate::multiversion! {
    /// The output channels in `yc` (whole planes; `w` and `bias` start at
    /// its first channel) of a direct conv over padded `planes` (`pl`
    /// elements each): every channel of a band of rows while its input rows
    /// are in L1, four at a time.
    #[allow(clippy::too_many_arguments)]
    fn channels(fma: bool, p: &Conv2d, g: &Geom, planes: (&[f32], usize), taps: &[usize], w: &[f32], bias: Option<&[f32]>, yc: &mut [f32]) {
        let (os, depth) = (p.out_h() * p.out_w(), p.c_in * p.kh * p.kw);
        let quads = yc.len() / os / 4 * 4;
        for oy0 in (0..p.out_h()).step_by(BAND) {
            let rows = (oy0, (oy0 + BAND).min(p.out_h()));
            for (q, y4) in yc[..quads * os].chunks_exact_mut(4 * os).enumerate() {
                let oc = 4 * q;
                let b4 = [0, 1, 2, 3].map(|i| bias.map_or(0.0, |b| b[oc + i]));
                let w4 = &w[oc * depth..(oc + 4) * depth];
                if fma {
                    quad_with::<true>(p, g, planes, taps, w4, b4, rows, y4);
                } else {
                    quad_with::<false>(p, g, planes, taps, w4, b4, rows, y4);
                }
            }
            for (oc, yp) in yc.chunks_exact_mut(os).enumerate().skip(quads) {
                let b0 = bias.map_or(0.0, |b| b[oc]);
                let wk = &w[oc * depth..(oc + 1) * depth];
                channel(fma, p, g, planes, taps, wk, b0, rows, yp);
            }
        }
    }
}

/// Copy padded rows `rows` of one input plane into the padded, phase-split
/// `plane` (only the input's elements: the padding stays zero).
/// `phases[q]`: the first input column of phase `q` and where it lands in
/// the phase.
#[inline(always)]
pub(super) fn fill_rows(
    p: &Conv2d,
    g: &Geom,
    phases: &[(usize, usize)],
    xp: &[f32],
    plane: &mut [f32],
    rows: Range<usize>,
) {
    let s = p.stride_w;
    let rl = g.row_len(s);
    let dsts = plane[rows.start * rl..rows.end * rl].chunks_exact_mut(rl);
    for (r, dst) in (rows.start..).zip(dsts) {
        let Some(iy) = r.checked_sub(p.pad_top).filter(|&iy| iy < p.h) else { continue };
        let row = &xp[iy * p.w..(iy + 1) * p.w];
        for (q, &(ix0, j0)) in phases.iter().enumerate() {
            let ph = &mut dst[q * g.phase + j0.min(g.phase)..(q + 1) * g.phase];
            let src = &row[ix0.min(p.w)..];
            match s {
                1 => {
                    let n = ph.len().min(src.len());
                    if n < COLS && src.len() >= COLS && ph.len() >= COLS {
                        // A narrow row: one whole block, the lanes past the
                        // row kept zero (a copy of n < 16 runs scalar).
                        let blk: [f32; COLS] = std::array::from_fn(|i| if i < n { src[i] } else { 0.0 });
                        <&mut [f32; COLS]>::try_from(&mut ph[..COLS]).expect("COLS").copy_from_slice(&blk);
                    } else {
                        super::copy_inline(&mut ph[..n], &src[..n]);
                    }
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

/// Output rows `oy0..oy1` of one plane: `bias + Σ taps` over the padded planes (`planes`:
/// consecutive planes of `pl` elements, one per input channel read; `wk`:
/// the weights `[plane][kh][kw]`), `COLS` columns at a time, `UNITS`
/// column blocks (of one or several rows) together.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn channel(
    fma: bool,
    p: &Conv2d,
    g: &Geom,
    planes: (&[f32], usize),
    taps: &[usize],
    wk: &[f32],
    bias: f32,
    rows: (usize, usize),
    yp: &mut [f32],
) {
    if fma {
        channel_with::<true>(p, g, planes, taps, wk, bias, rows, yp);
    } else {
        channel_with::<false>(p, g, planes, taps, wk, bias, rows, yp);
    }
}

/// [`channel`] with or without fused multiply-adds.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn channel_with<const FMA: bool>(
    p: &Conv2d,
    g: &Geom,
    (planes, pl): (&[f32], usize),
    taps: &[usize],
    wk: &[f32],
    bias: f32,
    (oy0, oy1): (usize, usize),
    yp: &mut [f32],
) {
    let (ow, rl, blocks) = (p.out_w(), g.row_len(p.stride_w), g.owp / COLS);
    let units = oy1 * blocks;
    // Unit u: output row u / blocks, columns (u % blocks)·COLS ...; its
    // first tap reads a plane at `base(u)`.
    let base = |u: usize| (u / blocks) * p.stride_h * rl + (u % blocks) * COLS;
    let ks = p.kh * p.kw;
    let shallow = (wk.len() <= DIRECT_DEPTH).then(|| tap_offsets(p, rl, (taps, pl), wk.len()));
    let mut u = oy0 * blocks;
    while u < units {
        let n = UNITS.min(units - u);
        // Four named accumulators (an array of them was kept in memory).
        let [b0, b1, b2, b3] = [0, 1, 2, 3].map(|j| base(u + j.min(n - 1)));
        let (d1, d2, d3) = (b1 - b0, b2 - b0, b3 - b0);
        let [mut a0, mut a1, mut a2, mut a3] = [[bias; COLS]; UNITS];
        // One slice for the four units (bases ascending), so the checks
        // within it are the same for every tap.
        macro_rules! tap {
            ($r:expr, $wv:expr) => {{
                let (r, wv): (&[f32], f32) = ($r, $wv);
                madd::<FMA>(&mut a0, wv, r);
                madd::<FMA>(&mut a1, wv, &r[d1..]);
                madd::<FMA>(&mut a2, wv, &r[d2..]);
                madd::<FMA>(&mut a3, wv, &r[d3..]);
            }};
        }
        if let Some(offs) = &shallow {
            for (&o, &wv) in offs[..wk.len()].iter().zip(wk) {
                tap!(&planes[b0 + o..b3 + o + COLS], wv);
            }
        } else {
            for (plane, wp) in planes.chunks_exact(pl).zip(wk.chunks_exact(ks)) {
                for ky in 0..p.kh {
                    let row = ky * p.dil_h * rl;
                    for (&t, &wv) in taps.iter().zip(&wp[ky * p.kw..(ky + 1) * p.kw]) {
                        tap!(&plane[b0 + row + t..b3 + row + t + COLS], wv);
                    }
                }
            }
        }
        for (j, a) in [a0, a1, a2, a3].iter().enumerate().take(n) {
            let (oy, bx) = ((u + j) / blocks, (u + j) % blocks * COLS);
            let m = COLS.min(ow - bx);
            store(&mut yp[oy * ow + bx..], a, m);
        }
        u += n;
    }
}

/// Output rows `oy0..oy1` of four consecutive output planes (`y4`, weights
/// `w4` `[4][planes][kh][kw]`): each tap's inputs are loaded once for the
/// four (a shallow conv reads few inputs per output; unaligned loads, not
/// multiply-adds, bound the one-plane loop), two column blocks at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn quad_with<const FMA: bool>(
    p: &Conv2d,
    g: &Geom,
    (planes, pl): (&[f32], usize),
    taps: &[usize],
    w4: &[f32],
    bias: [f32; 4],
    (oy0, oy1): (usize, usize),
    y4: &mut [f32],
) {
    let (ow, rl, blocks) = (p.out_w(), g.row_len(p.stride_w), g.owp / COLS);
    let (os, depth) = (p.out_h() * ow, w4.len() / 4);
    let base = |u: usize| (u / blocks) * p.stride_h * rl + (u % blocks) * COLS;
    let (units, mut u) = (oy1 * blocks, oy0 * blocks);
    while u < units {
        let n = 2.min(units - u);
        let [b0, b1] = [0, 1].map(|j| base(u + j.min(n - 1)));
        let d1 = b1 - b0;
        // Named accumulators `a{plane}{unit}` (arrays of them went through memory).
        let [mut a00, mut a01, mut a10, mut a11, mut a20, mut a21, mut a30, mut a31] =
            [0, 0, 1, 1, 2, 2, 3, 3].map(|i| [bias[i]; COLS]);
        let mut tap = 0;
        for plane in planes.chunks_exact(pl) {
            for ky in 0..p.kh {
                let row = ky * p.dil_h * rl;
                for &t in taps {
                    let r = &plane[b0 + row + t..b1 + row + t + COLS];
                    let (x0, x1) = (&r[..COLS], &r[d1..d1 + COLS]);
                    let [w0, w1, w2, w3] = [0, 1, 2, 3].map(|i| w4[i * depth + tap]);
                    madd::<FMA>(&mut a00, w0, x0);
                    madd::<FMA>(&mut a01, w0, x1);
                    madd::<FMA>(&mut a10, w1, x0);
                    madd::<FMA>(&mut a11, w1, x1);
                    madd::<FMA>(&mut a20, w2, x0);
                    madd::<FMA>(&mut a21, w2, x1);
                    madd::<FMA>(&mut a30, w3, x0);
                    madd::<FMA>(&mut a31, w3, x1);
                    tap += 1;
                }
            }
        }
        for (i, pair) in [[a00, a01], [a10, a11], [a20, a21], [a30, a31]].iter().enumerate() {
            for (j, aj) in pair.iter().enumerate().take(n) {
                let (oy, bx) = ((u + j) / blocks, (u + j) % blocks * COLS);
                let m = COLS.min(ow - bx);
                store(&mut y4[i * os + oy * ow + bx..(i + 1) * os], aj, m);
            }
        }
        u += n;
    }
}

/// The offset of each of the first `depth` (at most [`DIRECT_DEPTH`]) taps
/// in consecutive padded planes of `pl` elements, in weight order (plane,
/// `ky`, `kx`): a shallow conv's loop then takes one slice per tap.
#[inline(always)]
fn tap_offsets(p: &Conv2d, rl: usize, (taps, pl): (&[usize], usize), depth: usize) -> [usize; DIRECT_DEPTH] {
    let mut offs = [0usize; DIRECT_DEPTH];
    let (mut k, mut plane) = (0, 0);
    while k < depth.min(DIRECT_DEPTH) && p.kh > 0 && !taps.is_empty() {
        for ky in 0..p.kh {
            for &t in taps {
                if k < depth.min(DIRECT_DEPTH) {
                    offs[k] = plane + ky * p.dil_h * rl + t;
                    k += 1;
                }
            }
        }
        plane += pl;
    }
    offs
}

/// `dst[..m] = a[..m]` where `dst` runs to the end of the output plane: a
/// whole block as one fixed-size copy wherever the plane has room (a copy
/// of a run-time length is a library call per block). Units are stored in
/// increasing order, so the columns a block writes past its row's end
/// belong to a later unit of the same plane, which overwrites them.
#[inline(always)]
pub(super) fn store(dst: &mut [f32], a: &[f32; COLS], m: usize) {
    if dst.len() >= COLS {
        let d: &mut [f32; COLS] = (&mut dst[..COLS]).try_into().expect("COLS");
        *d = *a;
    } else {
        dst[..m].copy_from_slice(&a[..m]);
    }
}

/// `a += w · x[..COLS]`, one rounding per element with `FMA`.
#[inline(always)]
pub(super) fn madd<const FMA: bool>(a: &mut [f32; COLS], w: f32, x: &[f32]) {
    let x: &[f32; COLS] = x[..COLS].try_into().expect("COLS");
    for l in 0..COLS {
        a[l] = if FMA { x[l].mul_add(w, a[l]) } else { a[l] + w * x[l] };
    }
}

/// True where a fused multiply-add is one instruction in the code
/// running now: AVX2+FMA or AVX-512 levels of [`crate::multiversion!`]
/// on x86-64, always on aarch64. (Elsewhere `mul_add` is a library call.)
#[inline(always)]
pub(super) fn fused() -> bool {
    cfg!(target_arch = "aarch64") || crate::simd::level() >= 2
}
