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
        for (pj, c0) in (0..nc).step_by(nr).enumerate() {
            let cols = nr.min(nc - c0);
            let panel = &mut s[pj * nr * kc..(pj + 1) * nr * kc];
            for (l, out) in panel.chunks_exact_mut(nr).enumerate() {
                self.row(pc + l, jc + c0, &mut out[..cols]);
                out[cols..].fill(0.0);
            }
        }
        Panels { data: s, stride: nr * kc, k0: 0 }
    }
}

impl Im2col<'_> {
    /// Columns `o0 .. o0 + out.len()` of im2col row `r`.
    fn row(&self, r: usize, o0: usize, out: &mut [f32]) {
        let p = self.p;
        let (ci, ky, kx) = (r / (p.kh * p.kw), (r / p.kw) % p.kh, r % p.kw);
        let plane = &self.x[ci * p.h * p.w..(ci + 1) * p.h * p.w];
        let ow = p.out_w();
        let (mut oy, mut ox) = (o0 / ow, o0 % ow);
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
#[inline]
fn copy_taps(src: &[f32], ox: usize, s: usize, dx: isize, seg: &mut [f32]) {
    let w = src.len() as isize;
    let first = (ox * s) as isize + dx; // index read by i = 0
    let st = s as isize;
    // i >= lo: first + i·s >= 0;  i < hi: first + i·s < w.
    let lo = if first >= 0 { 0 } else { (-first + st - 1) / st };
    let hi = if first >= w { 0 } else { (w - first + st - 1) / st };
    let (lo, hi) = ((lo as usize).min(seg.len()), (hi.max(0) as usize).min(seg.len()));
    let hi = hi.max(lo);
    seg[..lo].fill(0.0);
    seg[hi..].fill(0.0);
    if hi > lo {
        let start = (first + lo as isize * st) as usize;
        if s == 1 {
            seg[lo..hi].copy_from_slice(&src[start..start + (hi - lo)]);
        } else {
            for (v, x) in seg[lo..hi].iter_mut().zip(src[start..].iter().step_by(s)) {
                *v = *x;
            }
        }
    }
}
