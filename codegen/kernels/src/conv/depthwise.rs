//! Depthwise convolution (`groups == c_in`, `c_out = c_in · multiplier`),
//! computed directly: output channel `oc` reads input channel
//! `oc / multiplier` only. Each output row accumulates, tap by tap, a
//! contiguous range of output columns (the columns whose tap lands inside
//! the input, found analytically), so the inner loop has no bounds tests.

use super::Conv2d;
use crate::act::Act;

/// Output columns `ox` whose input column `ox·s + off` lies in `0..w`.
fn valid_cols(ow: usize, w: usize, s: usize, off: isize) -> std::ops::Range<usize> {
    // ox·s + off ≥ 0  ⇔  ox ≥ ceil(−off / s);  ox·s + off ≤ w − 1.
    let lo = if off >= 0 { 0 } else { (-off) as usize }.div_ceil(s);
    let top = w as isize - 1 - off;
    let hi = if top < 0 { 0 } else { (top as usize / s + 1).min(ow) };
    lo.min(hi)..hi
}

/// `y = act(depthwise_conv(x, w) + bias)` (lengths checked by the caller).
pub(crate) fn depthwise2d(p: &Conv2d, x: &[f32], w: &[f32], bias: Option<&[f32]>, act: Act, y: &mut [f32]) {
    let (oh, ow) = (p.out_h(), p.out_w());
    let (is, os, ks) = (p.h * p.w, oh * ow, p.kh * p.kw);
    let mult = p.c_out / p.c_in;
    for b in 0..p.n {
        for oc in 0..p.c_out {
            let xp = &x[(b * p.c_in + oc / mult) * is..][..is];
            let wk = &w[oc * ks..(oc + 1) * ks];
            let yp = &mut y[(b * p.c_out + oc) * os..][..os];
            yp.fill(bias.map_or(0.0, |b| b[oc]));
            for (oy, yrow) in yp.chunks_exact_mut(ow).enumerate() {
                for ky in 0..p.kh {
                    let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
                    if iy < 0 || iy >= p.h as isize {
                        continue;
                    }
                    let xrow = &xp[iy as usize * p.w..(iy as usize + 1) * p.w];
                    for kx in 0..p.kw {
                        let off = (kx * p.dil_w) as isize - p.pad_left as isize;
                        let wv = wk[ky * p.kw + kx];
                        let r = valid_cols(ow, p.w, p.stride_w, off);
                        if r.is_empty() {
                            continue;
                        }
                        let x0 = (r.start * p.stride_w) as isize + off;
                        let xs = xrow[x0 as usize..].iter().step_by(p.stride_w);
                        yrow[r].iter_mut().zip(xs).for_each(|(o, &v)| *o += wv * v);
                    }
                }
            }
            act.apply_slice(yp);
        }
    }
}
