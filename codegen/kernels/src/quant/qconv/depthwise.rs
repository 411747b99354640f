//! The depthwise path of `quant.conv` (one input and one output channel per
//! group): per channel, the plane centered to i16 (`x − x_zero`; padding is
//! then 0 and skipped), accumulated tap by tap over output rows in i32 by a
//! multiversioned loop, then requantized. Integer sums: the same bits as the
//! GEMM path and the interpreter.

use super::{Conv2d, PackedQConv, QAct, QReq};
use std::cell::RefCell;

std::thread_local! {
    /// (centered plane, accumulators) of the running channel.
    static BUFS: RefCell<(Vec<i16>, Vec<i32>, Vec<i32>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// Run every channel of `x` (see [`super::quant_conv2d`]).
pub fn run<X: QAct>(p: &Conv2d, q: &QReq, w: &PackedQConv, x: &[X], y: &mut [X]) {
    let (is, os, taps) = (p.h * p.w, p.out_h() * p.out_w(), p.kh * p.kw);
    BUFS.with(|cell| {
        let (plane, acc, res) = &mut *cell.borrow_mut();
        plane.resize(is, 0);
        acc.resize(os, 0);
        res.resize(os, 0);
        for b in 0..p.n {
            for c in 0..p.c_in {
                let src = &x[(b * p.c_in + c) * is..(b * p.c_in + c + 1) * is];
                for (d, s) in plane.iter_mut().zip(src) {
                    *d = (s.value() - q.x_zero) as i16;
                }
                channel(p, plane, &w.w[c * taps..(c + 1) * taps], acc);
                let out = &mut y[(b * p.c_out + c) * os..(b * p.c_out + c + 1) * os];
                w.epi.finish_row(c, acc, w.bias[c], q, res);
                for (o, &v) in out.iter_mut().zip(res.iter()) {
                    *o = X::from_i32(v);
                }
            }
        }
    });
}

/// The output columns `[lo, hi)` whose input column `ox·stride + off` lies in `[0, w)`.
pub(super) fn columns(ow: usize, stride: usize, off: isize, w: usize) -> (usize, usize) {
    let lo = if off < 0 { ((-off) as usize).div_ceil(stride) } else { 0 };
    let hi = if (w as isize) <= off { 0 } else { ((w as isize - off) as usize).div_ceil(stride).min(ow) };
    (lo, hi.max(lo))
}

crate::multiversion! {
    /// `acc[o] = Σ_taps w · plane[tap(o)]` over one channel (padding taps skipped).
    fn channel(p: &Conv2d, plane: &[i16], w: &[i8], acc: &mut [i32]) {
        let (oh, ow) = (p.out_h(), p.out_w());
        acc.fill(0);
        for oy in 0..oh {
            let row = &mut acc[oy * ow..(oy + 1) * ow];
            for ky in 0..p.kh {
                let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
                if iy < 0 || iy as usize >= p.h {
                    continue;
                }
                let src = &plane[iy as usize * p.w..(iy as usize + 1) * p.w];
                for kx in 0..p.kw {
                    let wv = w[ky * p.kw + kx] as i32;
                    let off = (kx * p.dil_w) as isize - p.pad_left as isize;
                    let (lo, hi) = columns(ow, p.stride_w, off, p.w);
                    if p.stride_w == 1 {
                        let base = (lo as isize + off) as usize;
                        for (a, &s) in row[lo..hi].iter_mut().zip(&src[base..base + (hi - lo)]) {
                            *a = a.wrapping_add(wv * s as i32);
                        }
                    } else {
                        for (ox, a) in row.iter_mut().enumerate().take(hi).skip(lo) {
                            let s = src[(ox as isize * p.stride_w as isize + off) as usize];
                            *a = a.wrapping_add(wv * s as i32);
                        }
                    }
                }
            }
        }
    }
}
