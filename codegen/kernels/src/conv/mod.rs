//! Convolutions (NCHW, weights `[c_out, c_in / groups, kh, kw]`) with a
//! fused per-channel bias and activation.
//!
//! 2-D fast paths. Packing ([`PackedConv`]) picks a family from the weight
//! geometry alone (a model with symbolic dims packs at a placeholder input
//! size); where a family has two kernels, [`conv2d`] and
//! [`conv2d_scratch_len`] pick one by the same rule at the input's size:
//! - 1×1, stride 1, unpadded: a plain GEMM per (image, group), the input
//!   planes read directly as the B operand (no im2col); on a 1×1 map a
//!   matrix-vector product;
//! - depthwise (`groups == c_in`, any channel multiplier): direct loops
//!   over zero-padded planes (wide outputs) or over channel blocks;
//! - one group, shallow (`c_in · kh · kw` ≤ 32: stems) or narrow (≤ 16
//!   output channels): direct loops over zero-padded planes, or im2col
//!   where too many of their columns would be computed in vain;
//! - everything else (strides, dilations, asymmetric pads, groups): GEMM with
//!   the weights as a pre-packed A and the im2col matrix packed on the fly,
//!   panel by panel, straight from the input (never materialized).
//!
//! General N-D forms ([`conv_nd`], [`conv_transpose_nd`]) are direct loops;
//! [`conv_transpose2d`] is a GEMM followed by a col2im scatter.
//!
//! DeformConv ([`deform`]) is a direct N-D loop over the [`window`]
//! geometry, which ConvInteger/QLinearConv ([`crate::quant::conv`]) and the
//! integer max pool ([`crate::pool::max_pool_ord`]) share. Col2Im is in
//! [`col2im`].

pub mod col2im;
pub mod deform;
mod depthwise;
mod im2col;
mod nd;
mod padded;
mod square;
mod transpose;
pub mod window;

pub use nd::{conv_nd, conv_transpose_nd, ConvNd, ConvTransposeNd};
pub use transpose::{conv_transpose2d, conv_transpose2d_scratch_len, ConvTranspose2d};

use crate::act::Act;
use crate::gemm::{self, Epilogue, PackedA, Raw};
use crate::rt::Error;
use crate::threads;
use crate::weights::Section;
use im2col::Im2col;
use std::borrow::Cow;

/// A 2-D convolution's geometry. Invariants (asserted by the kernels):
/// all sizes ≥ 1 except `n`, `c_in` and `c_out` divisible by `groups`, the
/// dilated kernel fits the padded input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Conv2d {
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
    /// Rows of zero padding above.
    pub pad_top: usize,
    /// Columns of zero padding on the left.
    pub pad_left: usize,
    /// Rows of zero padding below.
    pub pad_bottom: usize,
    /// Columns of zero padding on the right.
    pub pad_right: usize,
    /// Vertical dilation.
    pub dil_h: usize,
    /// Horizontal dilation.
    pub dil_w: usize,
    /// Channel groups.
    pub groups: usize,
}

/// `dst = src` for the short runs the conv kernels copy (a plane row, a
/// panel row): 16-element blocks and a short tail inline, since a copy of
/// a run-time length is a library call that costs more than these copies.
#[inline(always)]
pub(crate) fn copy_inline(dst: &mut [f32], src: &[f32]) {
    assert_eq!(dst.len(), src.len(), "copy lengths");
    let mut d = dst.chunks_exact_mut(16);
    let mut s = src.chunks_exact(16);
    for (a, b) in (&mut d).zip(&mut s) {
        let a: &mut [f32; 16] = a.try_into().expect("16");
        *a = *<&[f32; 16]>::try_from(b).expect("16");
    }
    for (a, b) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *a = *b;
    }
}

/// Output size of a sliding window: `(in + pads − dilated kernel) / stride + 1`
/// (0 if the dilated kernel does not fit).
pub(crate) fn out_size(input: usize, pads: usize, k: usize, stride: usize, dil: usize) -> usize {
    let ek = dil * (k - 1) + 1;
    (input + pads).checked_sub(ek).map_or(0, |d| d / stride + 1)
}

impl Conv2d {
    /// Output height.
    #[inline]
    pub fn out_h(&self) -> usize {
        out_size(self.h, self.pad_top + self.pad_bottom, self.kh, self.stride_h, self.dil_h)
    }
    /// Output width.
    #[inline]
    pub fn out_w(&self) -> usize {
        out_size(self.w, self.pad_left + self.pad_right, self.kw, self.stride_w, self.dil_w)
    }
    /// Input channels per group.
    fn cg(&self) -> usize {
        self.c_in / self.groups
    }
    /// Output channels per group.
    fn mg(&self) -> usize {
        self.c_out / self.groups
    }
    /// GEMM depth: weights per output channel.
    fn depth(&self) -> usize {
        self.cg() * self.kh * self.kw
    }
    fn is_1x1(&self) -> bool {
        let pads = self.pad_top + self.pad_left + self.pad_bottom + self.pad_right;
        self.kh == 1 && self.kw == 1 && self.stride_h == 1 && self.stride_w == 1 && pads == 0
    }
    /// One group per input channel, taken by the depthwise kernels. A conv
    /// of one input channel qualifies only with a window of at most 64 taps:
    /// a wider one (a 1×256 STFT frame, 258 outputs) is a GEMM of depth
    /// `kh·kw`, which the per-tap depthwise loops run 1000× slower.
    fn is_depthwise(&self) -> bool {
        self.groups == self.c_in && self.c_out.is_multiple_of(self.c_in) && (self.groups > 1 || self.kh * self.kw <= 64)
    }
    fn check(&self) {
        let sizes = [self.c_in, self.c_out, self.kh, self.kw, self.stride_h, self.stride_w, self.dil_h, self.dil_w];
        assert!(sizes.iter().all(|&s| s >= 1) && self.groups >= 1, "bad conv {self:?}");
        assert!(
            self.c_in.is_multiple_of(self.groups) && self.c_out.is_multiple_of(self.groups),
            "groups do not divide channels: {self:?}"
        );
    }
    /// The same weights (channels, kernel, groups, strides, dilations) as `o`
    /// (so the path chosen at packing holds); batch, input size,
    /// and with them `auto_pad` padding, may differ.
    fn same_weights_geometry(&self, o: &Conv2d) -> bool {
        let geometry = |p: &Conv2d| (p.c_in, p.c_out, p.kh, p.kw, p.groups, p.stride_h, p.stride_w, p.dil_h, p.dil_w);
        geometry(self) == geometry(o)
    }
}

/// How a [`PackedConv`] computes.
#[derive(Clone, Debug)]
enum Path {
    /// 1×1 GEMM: one packed A (`mg × cg`) per group.
    Pointwise(Vec<PackedA>),
    /// im2col GEMM: one packed A (`mg × cg·kh·kw`) per group.
    Im2col(Vec<PackedA>),
    /// Depthwise direct: the weights as given.
    Depthwise(Section<f32>),
    /// Shallow or narrow convolution: the weights as given, for the direct
    /// loops over padded planes, and packed for im2col, for input sizes
    /// where the direct loops would compute too many columns in vain.
    Direct(Section<f32>, Vec<PackedA>),
}

/// The kind of [`Path`] `p`'s weight geometry takes.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Pointwise,
    Im2col,
    Depthwise,
    Direct,
}

impl Kind {
    fn of(p: &Conv2d) -> Kind {
        if p.is_depthwise() {
            Kind::Depthwise
        } else if p.is_1x1() {
            Kind::Pointwise
        } else if padded::direct_weights(p) {
            Kind::Direct
        } else {
            Kind::Im2col
        }
    }
    /// The lengths of the pieces of a compiled blob: the weights as given
    /// (depthwise, direct), then one packed A per group (the GEMM paths).
    fn pieces(self, p: &Conv2d) -> Vec<usize> {
        let raw = (self == Kind::Depthwise || self == Kind::Direct).then_some(p.c_out * p.depth());
        let packed = (self != Kind::Depthwise).then_some(vec![p.mg() * p.depth(); p.groups]);
        raw.into_iter().chain(packed.into_iter().flatten()).collect()
    }
}

/// Convolution weights arranged for their path, at model construction.
/// Valid for every [`Conv2d`] that differs from the one given only in `n`,
/// `h` and `w`.
#[derive(Clone, Debug)]
pub struct PackedConv {
    p: Conv2d,
    path: Path,
}

impl PackedConv {
    /// Arrange `w` (`[c_out, c_in / groups, kh, kw]`) for `p`, for the GEMM
    /// family current on this thread.
    pub fn new(p: &Conv2d, w: &[f32]) -> PackedConv {
        PackedConv::new_for(gemm::current(), p, w)
    }
    /// Arrange `w` for `p` and `isa`'s GEMM kernel (which need not run here).
    pub fn new_for(isa: gemm::Isa, p: &Conv2d, w: &[f32]) -> PackedConv {
        p.check();
        let (mg, k) = (p.mg(), p.depth());
        assert_eq!(w.len(), p.c_out * k, "conv weights have {} elements, {p:?} needs {}", w.len(), p.c_out * k);
        let packed =
            || (0..p.groups).map(|g| PackedA::new_for(isa, &w[g * mg * k..(g + 1) * mg * k], mg, k, k)).collect();
        let path = match Kind::of(p) {
            Kind::Depthwise => Path::Depthwise(Cow::Owned(w.to_vec())),
            Kind::Pointwise => Path::Pointwise(packed()),
            Kind::Direct => Path::Direct(Cow::Owned(w.to_vec()), packed()),
            Kind::Im2col => Path::Im2col(packed()),
        };
        PackedConv { p: *p, path }
    }
    /// The arranged weights as the compiler stores them (see [`PackedConv::prepacked`]).
    pub fn blob(&self) -> Vec<f32> {
        let (raw, packed): (Option<&[f32]>, &[PackedA]) = match &self.path {
            Path::Depthwise(w) => (Some(w), &[]),
            Path::Direct(w, a) => (Some(w), a),
            Path::Pointwise(a) | Path::Im2col(a) => (None, a),
        };
        let pieces: Vec<&[f32]> = raw.into_iter().chain(packed.iter().map(PackedA::packed)).collect();
        gemm::join_pieces(&pieces)
    }
    /// Weights arranged for `p` and `isa` when the model was compiled
    /// ([`PackedConv::blob`]): used in place if `isa`'s GEMM kernel runs
    /// here, else recovered and arranged again for the family current here.
    /// Errs if `blob` does not fit `p`.
    pub fn prepacked(p: &Conv2d, isa: gemm::Isa, blob: Section<f32>) -> Result<PackedConv, Error> {
        p.check();
        let kind = Kind::of(p);
        let lens = kind.pieces(p);
        let bad = || Error(format!("packed conv: {} values do not fit {p:?} for {}", blob.len(), isa.name()));
        let mut pieces = gemm::pieces(&blob, &lens).ok_or_else(bad)?.into_iter();
        let raw = if kind == Kind::Depthwise || kind == Kind::Direct { pieces.next() } else { None };
        let packed: Vec<PackedA> = pieces.map(|d| PackedA::from_packed(isa, d, p.mg(), p.depth())).collect();
        let path = match (kind, raw) {
            (Kind::Depthwise, Some(w)) => Path::Depthwise(w),
            (Kind::Direct, Some(w)) if isa.available() => Path::Direct(w, packed),
            (Kind::Direct, Some(w)) => return Ok(PackedConv::new(p, &w)),
            _ if isa.available() => {
                if kind == Kind::Pointwise {
                    Path::Pointwise(packed)
                } else {
                    Path::Im2col(packed)
                }
            }
            _ => return Ok(PackedConv::new(p, &packed.iter().flat_map(PackedA::unpack).collect::<Vec<f32>>())),
        };
        Ok(PackedConv { p: *p, path })
    }
}

/// Scratch elements [`conv2d`] needs for `p` (at `p`'s input size: packing
/// chose the path from the weight geometry alone, and where it allows two
/// kernels, both functions choose between them by the same run-time rule).
pub fn conv2d_scratch_len(p: &Conv2d) -> usize {
    let n = p.out_h() * p.out_w();
    if p.is_depthwise() {
        depthwise::scratch_len(p).max(depthwise::blocked_scratch_len(p)).max(padded::scratch_len(p))
    } else if padded::takes_direct(p) && !p.is_1x1() {
        padded::direct_scratch_len(p)
    } else {
        // (`depth` for a narrow output's gathered column.)
        gemm::packed_a_scratch_len(p.mg(), n, p.depth()).max(p.depth())
    }
}

/// A depthwise conv split across the installed thread pool by channels:
/// each part is the same conv over `LANES`-aligned channel blocks (the
/// kernels' own channel blocks), so every output is computed as unsplit.
fn depthwise_split(
    p: &Conv2d,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    act: Act,
    y: &mut [f32],
    scratch: &mut [f32],
) {
    let (is, os, ks, mult) = (p.h * p.w, p.out_h() * p.out_w(), p.kh * p.kw, p.c_out / p.c_in);
    let per = threads::part_len(p.c_in, depthwise::LANES, p.n * p.c_out * os * ks);
    if per == p.c_in {
        return depthwise(p, x, w, bias, act, y, scratch);
    }
    let need = conv2d_scratch_len(p);
    for (b, yb) in y.chunks_mut(p.c_out * os).enumerate() {
        threads::for_each_chunk(yb, per * mult * os, need, &|i, yc, s| {
            let (c0, cc) = (i * per, yc.len() / (mult * os));
            let q = Conv2d { n: 1, c_in: cc, c_out: cc * mult, groups: cc, ..*p };
            let xs = &x[(b * p.c_in + c0) * is..][..cc * is];
            let ws = &w[c0 * mult * ks..][..cc * mult * ks];
            let bs = bias.map(|v| &v[c0 * mult..][..cc * mult]);
            depthwise(&q, xs, ws, bs, act, yc, s);
        });
    }
}

/// A depthwise conv on this thread, by the kernel its geometry takes.
fn depthwise(p: &Conv2d, x: &[f32], w: &[f32], bias: Option<&[f32]>, act: Act, y: &mut [f32], scratch: &mut [f32]) {
    if padded::takes(p) {
        return padded::depthwise_padded(p, x, w, bias, act, y, scratch);
    }
    // Channel blocks need no row tails: used for multiplier 1 and up to 8x8 kernels.
    if p.c_out == p.c_in && p.kh * p.kw <= 64 {
        return depthwise::depthwise_blocked(p, x, w, bias, act, y, scratch);
    }
    depthwise::depthwise2d(p, x, w, bias, act, y, scratch)
}

/// Most output positions a conv through im2col computes one gathered
/// column at a time (each a product with the packed weights) rather than
/// as a GEMM whose tiles are `NR` ≥ 8 columns wide.
const NARROW: usize = 4;

/// `y = act(conv(x, w) + bias)`: `x` is `[n, c_in, h, w]`, `y` is
/// `[n, c_out, out_h, out_w]`, `bias` has `c_out` values. Asserts the slice
/// lengths and that `w` was packed for this geometry.
pub fn conv2d(
    p: &Conv2d,
    x: &[f32],
    w: &PackedConv,
    bias: Option<&[f32]>,
    act: Act,
    y: &mut [f32],
    scratch: &mut [f32],
) {
    p.check();
    assert!(p.same_weights_geometry(&w.p), "weights packed for {:?}, used for {p:?}", w.p);
    // The 1x1 path reads the input as the GEMM operand: it needs no padding or stride.
    assert!(!matches!(w.path, Path::Pointwise(_)) || p.is_1x1(), "1x1 weights used for {p:?}");
    let (is, os) = (p.h * p.w, p.out_h() * p.out_w());
    assert_eq!(x.len(), p.n * p.c_in * is, "conv input has {} elements, {p:?} needs more", x.len());
    assert_eq!(y.len(), p.n * p.c_out * os, "conv output has {} elements, {p:?} needs more", y.len());
    if let Some(b) = bias {
        assert_eq!(b.len(), p.c_out, "conv bias has {} elements, expected {}", b.len(), p.c_out);
    }
    if p.n == 0 || os == 0 {
        return;
    }
    let (a, pointwise) = match &w.path {
        Path::Depthwise(wv) => return depthwise_split(p, x, wv, bias, act, y, scratch),
        Path::Direct(wv, _) if padded::takes_direct(p) => {
            return padded::conv_direct(p, x, wv, bias, act, y, scratch);
        }
        Path::Direct(_, a) => (a, false),
        Path::Pointwise(a) => (a, true),
        Path::Im2col(a) => (a, false),
    };
    let (cg, mg) = (p.cg(), p.mg());
    for b in 0..p.n {
        for (g, ag) in a.iter().enumerate() {
            let xg = &x[(b * p.c_in + g * cg) * is..(b * p.c_in + (g + 1) * cg) * is];
            let yg = &mut y[(b * p.c_out + g * mg) * os..(b * p.c_out + (g + 1) * mg) * os];
            let ep = Epilogue::per_row(bias.map(|b| &b[g * mg..(g + 1) * mg]), act);
            if pointwise && os == 1 {
                // A 1×1 map (squeeze-excite): a matrix-vector product.
                gemm::packed_a_times_col(ag, xg, yg, 1, &ep);
            } else if !pointwise && os <= NARROW {
                // A few outputs (STFT frames): a matrix-vector product per
                // gathered column instead of padding the GEMM to a whole tile.
                let im = Im2col { x: xg, p };
                let col = &mut scratch[..p.depth()];
                for o in 0..os {
                    im.column(o, col);
                    gemm::packed_a_times_col(ag, col, &mut yg[o..], os, &ep);
                }
            } else if pointwise {
                let src = Raw { data: xg, ld: is, trans: false };
                gemm::gemm_packed_a(ag, os, &src, yg, os, &ep, scratch);
            } else {
                gemm::gemm_packed_a(ag, os, &Im2col { x: xg, p }, yg, os, &ep, scratch);
            }
        }
    }
}
