//! 2×2 windows at stride 2 without padding or dilation (the downsampling
//! pool of most CNNs): each output reads its four inputs directly, 16 or 8
//! outputs at a time from two row segments twice as wide, folded in the
//! general kernel's tap order (row by row, left to right), so maxima and
//! sums are the same as its and the interpreter's.

use super::{Pool2d, Reduce};

/// True if [`pool`] takes `p` (ceil-mode outputs past the input do not:
/// their windows are partial).
pub(super) fn takes(p: &Pool2d) -> bool {
    (p.kh, p.kw, p.stride_h, p.stride_w, p.dil_h, p.dil_w) == (2, 2, 2, 2, 1, 1)
        && p.pad_top + p.pad_left + p.pad_bottom + p.pad_right == 0
        && 2 * p.out_h <= p.h
        && 2 * p.out_w <= p.w
}

crate::multiversion! {
    /// The planes of a pool [`takes`] holds for (lengths checked by the caller).
    pub(super) fn pool(p: &Pool2d, r: Reduce, x: &[f32], y: &mut [f32]) {
        let (is, os) = (p.h * p.w, p.out_h * p.out_w);
        for (plane, out) in x.chunks_exact(is).zip(y.chunks_exact_mut(os)) {
            for (oy, orow) in out.chunks_exact_mut(p.out_w).enumerate() {
                let top = &plane[2 * oy * p.w..][..2 * p.out_w];
                let bottom = &plane[(2 * oy + 1) * p.w..][..2 * p.out_w];
                row(r, top, bottom, orow);
            }
        }
    }
}

/// One output row from its two input rows: blocks of 16 outputs, then of
/// 8 (late layers' narrow maps), then one at a time.
#[inline(always)]
fn row(r: Reduce, top: &[f32], bottom: &[f32], out: &mut [f32]) {
    let mut done = blocks::<16>(r, top, bottom, out);
    done += blocks::<8>(r, &top[2 * done..], &bottom[2 * done..], &mut out[done..]);
    blocks::<1>(r, &top[2 * done..], &bottom[2 * done..], &mut out[done..]);
}

/// The first `B`-multiple of outputs of [`row`], `B` at a time; returns how many.
#[inline(always)]
fn blocks<const B: usize>(r: Reduce, top: &[f32], bottom: &[f32], out: &mut [f32]) -> usize {
    let n = out.len() / B * B;
    for ((o, t), b) in out[..n].chunks_exact_mut(B).zip(top.chunks_exact(2 * B)).zip(bottom.chunks_exact(2 * B)) {
        let o: &mut [f32; B] = o.try_into().expect("B");
        for k in 0..B {
            o[k] = window(r, [t[2 * k], t[2 * k + 1], b[2 * k], b[2 * k + 1]]);
        }
    }
    n
}

/// One window's four taps, in tap order: the first, then `v > o` for a
/// maximum (as the interpreter compares) or a running sum, over 4.
#[inline(always)]
fn window(r: Reduce, v: [f32; 4]) -> f32 {
    match r {
        Reduce::Max => v[1..].iter().fold(v[0], |o, &x| if x > o { x } else { o }),
        Reduce::Avg { .. } => (v[0] + v[1] + v[2] + v[3]) / 4.0,
    }
}
