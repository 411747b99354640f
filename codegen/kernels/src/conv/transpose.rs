//! 2-D transposed convolution as a GEMM plus a col2im scatter: for each
//! (image, group) and chunk of input positions, `col = W_gᵀ · X_g` (`W_g`
//! the group's `[c_in / g, c_out / g · kh · kw]` weights, read transposed in
//! place), then every `col[(mj, ky, kx)][i]` is added to output position
//! `(iy·sh + ky·dh − pad_top, ix·sw + kx·dw − pad_left)` of channel `mj`
//! when that lies inside the output.

use crate::act::{Act, ActSlice};
use crate::gemm::{self, Epilogue, Raw};

/// A 2-D transposed convolution's geometry; weights are
/// `[c_in, c_out / groups, kh, kw]`. The caller resolves `output_padding`,
/// `output_shape` and `auto_pad` into `out_h`, `out_w` and the begin pads
/// (the end pads are implied by the output size). Invariants (asserted):
/// sizes ≥ 1, `groups` divides both channel counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConvTranspose2d {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub c_in: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output channels.
    pub c_out: usize,
    /// Kernel height.
    pub kh: usize,
    /// Kernel width.
    pub kw: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cropped at the top.
    pub pad_top: usize,
    /// Output columns cropped on the left.
    pub pad_left: usize,
    /// Vertical dilation.
    pub dil_h: usize,
    /// Horizontal dilation.
    pub dil_w: usize,
    /// Channel groups.
    pub groups: usize,
    /// Output height.
    pub out_h: usize,
    /// Output width.
    pub out_w: usize,
}

/// Input positions handled per GEMM (bounds the column buffer).
const CHUNK: usize = 256;

impl ConvTranspose2d {
    fn check(&self) {
        let sizes = [self.c_in, self.c_out, self.kh, self.kw, self.stride_h, self.stride_w, self.dil_h, self.dil_w];
        assert!(sizes.iter().all(|&s| s >= 1) && self.groups >= 1, "bad {self:?}");
        assert!(
            self.c_in.is_multiple_of(self.groups) && self.c_out.is_multiple_of(self.groups),
            "groups do not divide channels: {self:?}"
        );
    }
    /// GEMM shape per chunk: rows `mg·kh·kw`, depth `cg`, columns ≤ CHUNK.
    fn gemm_dims(&self) -> (usize, usize, usize) {
        let cols = CHUNK.min(self.h * self.w);
        (self.c_out / self.groups * self.kh * self.kw, self.c_in / self.groups, cols)
    }
}

/// Scratch elements [`conv_transpose2d`] needs.
pub fn conv_transpose2d_scratch_len(p: &ConvTranspose2d) -> usize {
    let (m, k, n) = p.gemm_dims();
    m * n + gemm::scratch_len(&gemm::Gemm { m, n, k, trans_a: true, trans_b: false })
}

/// `y = act(conv_transpose(x, w) + bias)`: `x` is `[n, c_in, h, w]`, `w`
/// `[c_in, c_out / groups, kh, kw]`, `y` `[n, c_out, out_h, out_w]`, `bias`
/// `c_out` values. Asserts the slice lengths.
pub fn conv_transpose2d(
    p: &ConvTranspose2d,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    act: Act,
    y: &mut [f32],
    scratch: &mut [f32],
) {
    p.check();
    let (is, os) = (p.h * p.w, p.out_h * p.out_w);
    let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
    let (rows, _, chunk) = p.gemm_dims();
    assert_eq!(x.len(), p.n * p.c_in * is, "conv_transpose input length");
    assert_eq!(w.len(), p.c_in * rows, "conv_transpose weight length");
    assert_eq!(y.len(), p.n * p.c_out * os, "conv_transpose output length");
    assert!(bias.is_none_or(|b| b.len() == p.c_out), "conv_transpose bias length");
    assert!(scratch.len() >= conv_transpose2d_scratch_len(p), "conv_transpose scratch too short");
    let (col, gs) = scratch.split_at_mut(rows * chunk);
    for b in 0..p.n {
        for oc in 0..p.c_out {
            y[(b * p.c_out + oc) * os..][..os].fill(bias.map_or(0.0, |b| b[oc]));
        }
        for g in 0..p.groups {
            let wg = Raw { data: &w[g * cg * rows..(g + 1) * cg * rows], ld: rows, trans: true };
            let xg = &x[(b * p.c_in + g * cg) * is..(b * p.c_in + (g + 1) * cg) * is];
            let yg = &mut y[(b * p.c_out + g * mg) * os..(b * p.c_out + (g + 1) * mg) * os];
            for i0 in (0..is).step_by(chunk.max(1)) {
                let n = chunk.min(is - i0);
                let xs = Raw { data: &xg[i0..], ld: is, trans: false };
                let d = gemm::Dims { m: rows, n, k: cg, ldc: n };
                gemm::run_isa(gemm::current(), d, &wg, &xs, col, &Epilogue::default(), gs);
                scatter_split(p, &col[..rows * n], (i0, n), yg);
            }
        }
    }
    act.apply_slice(y);
}

/// [`scatter`] split across threads by output channel (each channel's
/// planes take their contributions in the same order as on one thread).
fn scatter_split(p: &ConvTranspose2d, col: &[f32], (i0, n): (usize, usize), yg: &mut [f32]) {
    let (ks, os) = (p.kh * p.kw, p.out_h * p.out_w);
    let mg = p.c_out / p.groups;
    let per = crate::threads::part_len(mg, 1, mg * ks * n);
    crate::threads::for_each_chunk(yg, per * os, 0, &|i, yc, _| {
        scatter(p, &col[i * per * ks * n..][..yc.len() / os * ks * n], (i0, n), yc);
    });
}

/// Add the column block (rows `(mj, ky, kx)`, input positions `i0..i0+n`)
/// into the group's output planes `yg` (`mg × out_h × out_w`).
fn scatter(p: &ConvTranspose2d, col: &[f32], (i0, n): (usize, usize), yg: &mut [f32]) {
    let (ks, os) = (p.kh * p.kw, p.out_h * p.out_w);
    for (r, crow) in col.chunks_exact(n).enumerate() {
        let (mj, ky, kx) = (r / ks, (r / p.kw) % p.kh, r % p.kw);
        let plane = &mut yg[mj * os..(mj + 1) * os];
        for (j, &v) in crow.iter().enumerate() {
            let (iy, ix) = ((i0 + j) / p.w, (i0 + j) % p.w);
            let oy = (iy * p.stride_h + ky * p.dil_h).checked_sub(p.pad_top);
            let ox = (ix * p.stride_w + kx * p.dil_w).checked_sub(p.pad_left);
            if let (Some(oy), Some(ox)) = (oy, ox) {
                if oy < p.out_h && ox < p.out_w {
                    plane[oy * p.out_w + ox] += v;
                }
            }
        }
    }
}
