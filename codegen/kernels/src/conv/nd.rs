//! General N-D convolution and transposed convolution (any spatial rank,
//! including 1-D and 3-D), computed directly: simple, allocation-free, and
//! slower than the 2-D paths. Multi-indices are decoded from flat indices
//! on the fly (no index vectors).

use super::out_size;
use crate::act::{Act, ActSlice};

/// An N-D convolution's geometry (`r` spatial axes). Invariants (asserted):
/// `spatial`, `kernel`, `stride`, `dilation` have length `r` ≥ 1 and `pads`
/// `2r` (`[begin.., end..]`); kernel, stride, dilation ≥ 1; `groups` divides
/// `c_in` and `c_out`. Weights are `[c_out, c_in / groups, kernel..]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvNd {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub c_in: usize,
    /// Output channels.
    pub c_out: usize,
    /// Input spatial sizes.
    pub spatial: Vec<usize>,
    /// Kernel sizes.
    pub kernel: Vec<usize>,
    /// Strides.
    pub stride: Vec<usize>,
    /// Zero padding: `r` begin values, then `r` end values.
    pub pads: Vec<usize>,
    /// Dilations.
    pub dilation: Vec<usize>,
    /// Channel groups.
    pub groups: usize,
}

impl ConvNd {
    /// Output size on spatial axis `i`.
    pub fn out_dim(&self, i: usize) -> usize {
        let r = self.spatial.len();
        out_size(self.spatial[i], self.pads[i] + self.pads[r + i], self.kernel[i], self.stride[i], self.dilation[i])
    }
    /// Output elements per channel.
    pub fn out_numel(&self) -> usize {
        (0..self.spatial.len()).map(|i| self.out_dim(i)).product()
    }
    fn check(&self) {
        let r = self.spatial.len();
        assert!(r >= 1 && self.kernel.len() == r && self.stride.len() == r && self.dilation.len() == r, "bad {self:?}");
        assert!(self.pads.len() == 2 * r, "pads of {self:?} must have 2·rank values");
        let pos = |v: &[usize]| v.iter().all(|&x| x >= 1);
        assert!(pos(&self.kernel) && pos(&self.stride) && pos(&self.dilation), "bad {self:?}");
        assert!(
            self.groups >= 1 && self.c_in.is_multiple_of(self.groups) && self.c_out.is_multiple_of(self.groups),
            "bad {self:?}"
        );
    }
    /// Offset within an input plane of kernel tap `kf` at output position
    /// `o` (both flat), or `None` in the padding.
    fn tap(&self, mut o: usize, mut kf: usize) -> Option<usize> {
        let (mut off, mut stride) = (0, 1);
        for i in (0..self.spatial.len()).rev() {
            let od = self.out_dim(i);
            let (oi, ki) = (o % od, kf % self.kernel[i]);
            (o, kf) = (o / od, kf / self.kernel[i]);
            let pos = (oi * self.stride[i] + ki * self.dilation[i]).checked_sub(self.pads[i])?;
            if pos >= self.spatial[i] {
                return None;
            }
            off += pos * stride;
            stride *= self.spatial[i];
        }
        Some(off)
    }
}

/// `y = act(conv(x, w) + bias)`: `x` is `[n, c_in, spatial..]`, `w`
/// `[c_out, c_in / groups, kernel..]`, `y` `[n, c_out, out..]`, `bias` `c_out`
/// values. Asserts the slice lengths.
pub fn conv_nd(p: &ConvNd, x: &[f32], w: &[f32], bias: Option<&[f32]>, act: Act, y: &mut [f32]) {
    p.check();
    let (is, os, ks) = (p.spatial.iter().product::<usize>(), p.out_numel(), p.kernel.iter().product::<usize>());
    let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
    assert_eq!(x.len(), p.n * p.c_in * is, "conv input length");
    assert_eq!(w.len(), p.c_out * cg * ks, "conv weight length");
    assert_eq!(y.len(), p.n * p.c_out * os, "conv output length");
    assert!(bias.is_none_or(|b| b.len() == p.c_out), "conv bias length");
    for b in 0..p.n {
        for oc in 0..p.c_out {
            let c0 = oc / mg * cg;
            let yp = &mut y[(b * p.c_out + oc) * os..][..os];
            for (o, out) in yp.iter_mut().enumerate() {
                let mut acc = bias.map_or(0.0, |b| b[oc]);
                for ci in 0..cg {
                    let xp = &x[(b * p.c_in + c0 + ci) * is..][..is];
                    let wk = &w[(oc * cg + ci) * ks..][..ks];
                    for (kf, &wv) in wk.iter().enumerate() {
                        if let Some(off) = p.tap(o, kf) {
                            acc += xp[off] * wv;
                        }
                    }
                }
                *out = act.apply(acc);
            }
        }
    }
}

/// An N-D transposed convolution's geometry. Input position `i` and tap `k`
/// contribute to output position `i·stride + k·dilation − pads_begin` when
/// that lies in `0..out`. The caller resolves `output_padding`,
/// `output_shape` and `auto_pad` into `out` and `pads_begin`. Weights are
/// `[c_in, c_out / groups, kernel..]`. Invariants as for [`ConvNd`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvTransposeNd {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub c_in: usize,
    /// Output channels.
    pub c_out: usize,
    /// Input spatial sizes.
    pub spatial: Vec<usize>,
    /// Kernel sizes.
    pub kernel: Vec<usize>,
    /// Strides.
    pub stride: Vec<usize>,
    /// Cropping at the start of each output axis.
    pub pads_begin: Vec<usize>,
    /// Dilations.
    pub dilation: Vec<usize>,
    /// Channel groups.
    pub groups: usize,
    /// Output spatial sizes.
    pub out: Vec<usize>,
}

impl ConvTransposeNd {
    fn check(&self) {
        let r = self.spatial.len();
        let lens = [self.kernel.len(), self.stride.len(), self.dilation.len(), self.pads_begin.len(), self.out.len()];
        assert!(r >= 1 && lens.iter().all(|&l| l == r), "bad {self:?}");
        let pos = |v: &[usize]| v.iter().all(|&x| x >= 1);
        assert!(pos(&self.kernel) && pos(&self.stride) && pos(&self.dilation), "bad {self:?}");
        assert!(
            self.groups >= 1 && self.c_in.is_multiple_of(self.groups) && self.c_out.is_multiple_of(self.groups),
            "bad {self:?}"
        );
    }
    /// Offset within an output plane reached from input position `i` by tap `kf`.
    fn target(&self, mut i: usize, mut kf: usize) -> Option<usize> {
        let (mut off, mut stride) = (0, 1);
        for a in (0..self.spatial.len()).rev() {
            let (ii, ki) = (i % self.spatial[a], kf % self.kernel[a]);
            (i, kf) = (i / self.spatial[a], kf / self.kernel[a]);
            let pos = (ii * self.stride[a] + ki * self.dilation[a]).checked_sub(self.pads_begin[a])?;
            if pos >= self.out[a] {
                return None;
            }
            off += pos * stride;
            stride *= self.out[a];
        }
        Some(off)
    }
}

/// `y = act(conv_transpose(x, w) + bias)`: `x` is `[n, c_in, spatial..]`, `w`
/// `[c_in, c_out / groups, kernel..]`, `y` `[n, c_out, out..]`. Asserts lengths.
pub fn conv_transpose_nd(p: &ConvTransposeNd, x: &[f32], w: &[f32], bias: Option<&[f32]>, act: Act, y: &mut [f32]) {
    p.check();
    let (is, os, ks) =
        (p.spatial.iter().product::<usize>(), p.out.iter().product::<usize>(), p.kernel.iter().product::<usize>());
    let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
    assert_eq!(x.len(), p.n * p.c_in * is, "conv_transpose input length");
    assert_eq!(w.len(), p.c_in * mg * ks, "conv_transpose weight length");
    assert_eq!(y.len(), p.n * p.c_out * os, "conv_transpose output length");
    assert!(bias.is_none_or(|b| b.len() == p.c_out), "conv_transpose bias length");
    for b in 0..p.n {
        for oc in 0..p.c_out {
            y[(b * p.c_out + oc) * os..][..os].fill(bias.map_or(0.0, |b| b[oc]));
        }
        for ci in 0..p.c_in {
            let m0 = ci / cg * mg;
            let xp = &x[(b * p.c_in + ci) * is..][..is];
            for (i, &xv) in xp.iter().enumerate() {
                for kf in 0..ks {
                    let Some(o) = p.target(i, kf) else { continue };
                    for mj in 0..mg {
                        y[(b * p.c_out + m0 + mj) * os + o] += xv * w[(ci * mg + mj) * ks + kf];
                    }
                }
            }
        }
    }
    act.apply_slice(y);
}
