//! DeformConv: grouped N-D convolution whose kernel taps are moved by a
//! per-position offset and scaled by an optional mask, in f32 with the
//! reference interpreter's operation order (bit-exact with it).
//!
//! Invariants: `x [n, c, in..]`, `w [m, c / group, k..]`, `offset [n,
//! offset_group · taps · r, out..]`, `mask [n, offset_group · taps, out..]`,
//! `bias [m]`, `y [n, m, out..]`. A moved tap samples the input by
//! multilinear interpolation; corners outside the input contribute 0, a NaN
//! position gives NaN and an infinite one 0. The deformed columns of one
//! image (`c · taps · out` values) are built in the caller's scratch.

use super::window::{Window, MAX_RANK};

/// The geometry of a DeformConv.
#[derive(Copy, Clone, Debug)]
pub struct DeformConv<'a> {
    /// Batch.
    pub n: usize,
    /// Input channels.
    pub c: usize,
    /// Output channels.
    pub m: usize,
    /// Groups (`c` and `m` divisible by it).
    pub group: usize,
    /// Offset groups (`c` divisible by it).
    pub offset_group: usize,
    /// The spatial window (kernel taps before the offsets move them).
    pub win: Window<'a>,
}

/// Scratch (f32) [`deform_conv`] needs.
pub fn deform_conv_scratch_len(p: &DeformConv<'_>) -> usize {
    p.c * p.win.taps() * p.win.out_size()
}

/// Multilinear interpolation of `plane` (spatial `shape`) at `pos`.
fn sample(plane: &[f32], shape: &[usize], pos: &[f32]) -> f32 {
    if let Some(p) = pos.iter().find(|p| !p.is_finite()) {
        return if p.is_nan() { *p } else { 0.0 };
    }
    let n = shape.len();
    let mut lo = [0.0f32; MAX_RANK];
    for (l, p) in lo.iter_mut().zip(pos) {
        *l = p.floor();
    }
    let mut acc = 0.0f32;
    'corners: for corner in 0..1usize << n {
        let (mut weight, mut flat) = (1.0f32, 0usize);
        for a in 0..n {
            let up = (corner >> (n - 1 - a)) & 1 == 1;
            let frac = pos[a] - lo[a];
            weight *= if up { frac } else { 1.0 - frac };
            let idx = lo[a] as f64 as i64 + up as i64;
            if idx < 0 || idx >= shape[a] as i64 {
                continue 'corners;
            }
            flat = flat * shape[a] + idx as usize;
        }
        acc += weight * plane[flat];
    }
    acc
}

/// `DeformConv` into `y`.
#[allow(clippy::too_many_arguments)]
pub fn deform_conv(
    p: &DeformConv<'_>,
    x: &[f32],
    w: &[f32],
    offset: &[f32],
    bias: Option<&[f32]>,
    mask: Option<&[f32]>,
    scratch: &mut [f32],
    y: &mut [f32],
) {
    let win = &p.win;
    win.check();
    let (r, is, ks, os) = (win.rank(), win.in_size(), win.taps(), win.out_size());
    let (n, c, m, og) = (p.n, p.c, p.m, p.offset_group);
    assert!(
        p.group >= 1 && c.is_multiple_of(p.group) && m.is_multiple_of(p.group),
        "DeformConv: channels do not match groups"
    );
    assert!(og >= 1 && c.is_multiple_of(og), "DeformConv: channels do not match offset groups");
    let (cg, mg) = (c / p.group, m / p.group);
    assert_eq!(x.len(), n * c * is, "DeformConv: x holds {} values", x.len());
    assert_eq!(w.len(), m * cg * ks, "DeformConv: w holds {} values", w.len());
    assert_eq!(offset.len(), n * og * ks * r * os, "DeformConv: offset holds {} values", offset.len());
    assert!(mask.is_none_or(|v| v.len() == n * og * ks * os), "DeformConv: the mask does not match");
    assert!(bias.is_none_or(|b| b.len() == m), "DeformConv: the bias does not match");
    assert_eq!(y.len(), n * m * os, "DeformConv: y holds {} values", y.len());
    let cols = &mut scratch[..c * ks * os];
    let mut pos = [0i64; MAX_RANK];
    let mut at = [0.0f32; MAX_RANK];
    for b in 0..n {
        for ic in 0..c {
            let plane = &x[(b * c + ic) * is..(b * c + ic + 1) * is];
            let tap0 = (b * og + ic / (c / og)) * ks;
            for k in 0..ks {
                for o in 0..os {
                    win.position(o, k, &mut pos);
                    for a in 0..r {
                        at[a] = (pos[a] as f64) as f32 + offset[((tap0 + k) * r + a) * os + o];
                    }
                    let mk = mask.map_or(1.0, |v| v[(tap0 + k) * os + o]);
                    cols[(ic * ks + k) * os + o] = sample(plane, win.input, &at[..r]) * mk;
                }
            }
        }
        for mi in 0..m {
            let c0 = (mi / mg) * cg;
            for o in 0..os {
                let mut acc = bias.map_or(0.0, |v| v[mi]);
                for ci in 0..cg {
                    for k in 0..ks {
                        acc += w[(mi * cg + ci) * ks + k] * cols[((c0 + ci) * ks + k) * os + o];
                    }
                }
                y[(b * m + mi) * os + o] = acc;
            }
        }
    }
}
