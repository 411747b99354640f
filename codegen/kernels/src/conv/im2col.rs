//! The im2col matrix of one (image, group) as a GEMM B operand, packed panel
//! by panel straight from the input planes.
//!
//! Row `r = (ci · kh + ky) · kw + kx` and column `o = oy · out_w + ox` hold
//! `x[ci][oy·sh + ky·dh − pad_top][ox·sw + kx·dw − pad_left]`, or 0 where that
//! falls in the padding.

use super::Conv2d;
use crate::gemm::{BSource, Panels};

/// The im2col view of `x` (`cg` planes of `h × w`) under `p`'s geometry.
pub(crate) struct Im2col<'a> {
    pub x: &'a [f32],
    pub p: &'a Conv2d,
}

impl BSource for Im2col<'_> {
    const PREPACKED: bool = false;

    fn panels<'s>(
        &'s self,
        nr: usize,
        (jc, nc): (usize, usize),
        (pc, kc): (usize, usize),
        s: &'s mut [f32],
    ) -> Panels<'s> {
        pack(self, nr, (jc, nc), (pc, kc), s);
        Panels { data: s, stride: nr * kc, k0: 0 }
    }
}

crate::multiversion! {
    /// The panels of [`BSource::panels`] into `s`.
    fn pack(im: &Im2col<'_>, nr: usize, cols_at: (usize, usize), depth_at: (usize, usize), s: &mut [f32]) {
        let (p, (jc, nc), (pc, kc)) = (im.p, cols_at, depth_at);
        let ow = p.out_w();
        for (pj, c0) in (0..nc).step_by(nr).enumerate() {
            let cols = nr.min(nc - c0);
            let panel = &mut s[pj * nr * kc..(pj + 1) * nr * kc];
            // The row's tap advances by increments: no division per panel row.
            let o0 = jc + c0;
            let mut tap = (pc / (p.kh * p.kw), (pc / p.kw) % p.kh, pc % p.kw);
            for out in panel.chunks_exact_mut(nr) {
                im.row(tap, (o0 / ow, o0 % ow), &mut out[..cols]);
                if cols < nr {
                    out[cols..].fill(0.0);
                }
                tap.2 += 1;
                if tap.2 == p.kw {
                    tap.2 = 0;
                    tap.1 += 1;
                    if tap.1 == p.kh {
                        (tap.0, tap.1) = (tap.0 + 1, 0);
                    }
                }
            }
        }
    }
}

impl Im2col<'_> {
    /// Column `o` of the im2col matrix (one output position's `cg·kh·kw`
    /// inputs, 0 in the padding) into `out`.
    pub(crate) fn column(&self, o: usize, out: &mut [f32]) {
        let p = self.p;
        let (oy, ox) = (o / p.out_w(), o % p.out_w());
        let (y0, x0) =
            ((oy * p.stride_h) as isize - p.pad_top as isize, (ox * p.stride_w) as isize - p.pad_left as isize);
        let taps = p.kh * p.kw;
        for (r, v) in out.iter_mut().enumerate() {
            let (ci, ky, kx) = (r / taps, r % taps / p.kw, r % p.kw);
            let (iy, ix) = (y0 + (ky * p.dil_h) as isize, x0 + (kx * p.dil_w) as isize);
            let inside = (0..p.h as isize).contains(&iy) && (0..p.w as isize).contains(&ix);
            *v = if inside { self.x[(ci * p.h + iy as usize) * p.w + ix as usize] } else { 0.0 };
        }
    }

    /// The columns from output `(oy, ox)` on of the im2col row of tap
    /// `(ci, ky, kx)`.
    #[inline(always)]
    fn row(&self, (ci, ky, kx): (usize, usize, usize), (mut oy, mut ox): (usize, usize), out: &mut [f32]) {
        let p = self.p;
        let plane = &self.x[ci * p.h * p.w..(ci + 1) * p.h * p.w];
        let ow = p.out_w();
        let (dy, dx) = ((ky * p.dil_h) as isize - p.pad_top as isize, (kx * p.dil_w) as isize - p.pad_left as isize);
        let mut rest = out;
        while !rest.is_empty() {
            // One output row segment: ox .. ox + len.
            let len = (ow - ox).min(rest.len());
            let (seg, tail) = rest.split_at_mut(len);
            let iy = (oy * p.stride_h) as isize + dy;
            if iy < 0 || iy >= p.h as isize {
                seg.fill(0.0);
            } else {
                let src = &plane[iy as usize * p.w..(iy as usize + 1) * p.w];
                copy_taps(src, ox, p.stride_w, dx, seg);
            }
            rest = tail;
            (oy, ox) = (oy + 1, 0);
        }
    }
}

/// `seg[i] = src[(ox + i)·s + dx]`, 0 where that index is outside `src`: the
/// valid `i` form one range (found analytically), filled by a copy (stride
/// 1) or a strided gather, with the padding zeroed around it.
#[inline(always)]
fn copy_taps(src: &[f32], ox: usize, s: usize, dx: isize, seg: &mut [f32]) {
    let w = src.len() as isize;
    let first = (ox * s) as isize + dx; // index read by i = 0
    let st = s as isize;
    // i >= lo: first + i·s >= 0;  i < hi: first + i·s < w (no division at stride 1).
    let lo = match (first >= 0, s) {
        (true, _) => 0,
        (false, 1) => -first,
        (false, _) => (-first + st - 1) / st,
    };
    let hi = match (first >= w, s) {
        (true, _) => 0,
        (false, 1) => w - first,
        (false, _) => (w - first + st - 1) / st,
    };
    let (lo, hi) = ((lo as usize).min(seg.len()), (hi.max(0) as usize).min(seg.len()));
    let hi = hi.max(lo);
    // (Most runs are inside the input: no call for an empty fill.)
    if lo > 0 {
        seg[..lo].fill(0.0);
    }
    if hi < seg.len() {
        seg[hi..].fill(0.0);
    }
    if hi > lo {
        let start = (first + lo as isize * st) as usize;
        if s == 1 {
            super::copy_inline(&mut seg[lo..hi], &src[start..start + (hi - lo)]);
        } else {
            for (v, x) in seg[lo..hi].iter_mut().zip(src[start..].iter().step_by(s)) {
                *v = *x;
            }
        }
    }
}
