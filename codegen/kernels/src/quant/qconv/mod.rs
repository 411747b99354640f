//! `quant.conv`: 2-D grouped integer convolution (u8 or i8 activations, i8
//! weights, i32 accumulation) with the fixed-point requantize epilogue of
//! `edgec_numeric::quant`, bit-exact with the reference interpreter.
//!
//! Paths: depthwise (one input and one output channel per group) runs a
//! direct loop over i16-centered planes, multiversioned; everything else is
//! an integer GEMM per group, `acc[m × N] = W[m × K] · col[K × N]`, with the
//! im2col matrix `col` stored as *biased* bytes (u8 values as is, i8 values
//! `x ^ 0x80`, i.e. `x + 128`) packed in panels of [`NR`] columns × 4 taps,
//! and the weights packed at model construction in blocks of [`MR`] rows × 4
//! taps. The micro-kernels ([`Isa`]: AVX-512 VNNI `vpdpbusd`, AVX2
//! `vpmaddubsw` where no weight pair can saturate it and `vpmaddwd` on
//! widened bytes where one can, NEON `sdot` through `asm!`, portable) each
//! compute `Σ w · (b − offset)` for their [`Isa::offset`]; the epilogue adds
//! `(offset − zb) · Σw + bias` (zb: the biased input zero point), which makes
//! the sum `Σ w · (x − x_zero_point) + bias` for every path: padding taps hold
//! zb and padded depth holds weight 0, so neither contributes. All sums wrap
//! in i32, so the order does not matter and every path gives the same bits.

mod depthwise;
mod gemm;
mod isa;
mod micro;
mod pack;
mod requant;
#[cfg(test)]
mod tests;

pub use crate::conv::Conv2d;
pub use isa::{detected, with_isa, Isa};

use crate::act::Act;
use edgec_numeric::quant::{high_word_exact, requantize, requantize_act, requantize_high};
use std::cell::RefCell;

/// Rows of a packed weight block.
pub const MR: usize = 8;
/// Columns of a packed im2col panel.
pub const NR: usize = 16;

/// An 8-bit activation type.
pub trait QAct: Copy + Default + Send + Sync + 'static {
    /// The value plus 128 if signed (so every type maps into u8 monotonically).
    fn biased(self) -> u8;
    /// The value as i32.
    fn value(self) -> i32;
    /// `v`, which the caller has clamped into this type's range.
    fn from_i32(v: i32) -> Self;
    /// 128 for i8, 0 for u8.
    const BIAS: i32;
    /// The type's smallest value.
    const MIN: i32;
    /// The type's largest value.
    const MAX: i32;
    /// The values as their biased bytes when that is their own memory (u8).
    fn as_biased(xs: &[Self]) -> Option<&[u8]>;
}

impl QAct for u8 {
    #[inline]
    fn biased(self) -> u8 {
        self
    }
    #[inline]
    fn value(self) -> i32 {
        self as i32
    }
    #[inline]
    fn from_i32(v: i32) -> u8 {
        v as u8
    }
    const BIAS: i32 = 0;
    const MIN: i32 = 0;
    const MAX: i32 = 255;
    fn as_biased(xs: &[u8]) -> Option<&[u8]> {
        Some(xs)
    }
}

impl QAct for i8 {
    #[inline]
    fn biased(self) -> u8 {
        (self as u8) ^ 0x80
    }
    #[inline]
    fn value(self) -> i32 {
        self as i32
    }
    #[inline]
    fn from_i32(v: i32) -> i8 {
        v as i8
    }
    const BIAS: i32 = 128;
    const MIN: i32 = -128;
    const MAX: i32 = 127;
    fn as_biased(_: &[i8]) -> Option<&[u8]> {
        None
    }
}

/// The scalar parameters of a `quant.conv`: zero points and clamp range.
#[derive(Copy, Clone, Debug)]
pub struct QReq {
    /// The input's zero point.
    pub x_zero: i32,
    /// The result's zero point.
    pub y_zero: i32,
    /// Smallest result (the type's minimum, or the fused relu/clip bound).
    pub qmin: i32,
    /// Largest result.
    pub qmax: i32,
}

/// How a `quant.conv` turns its i32 sums into outputs (per-channel slices
/// hold one value or one per output channel).
#[derive(Copy, Clone, Debug)]
pub enum QEpilogue<'a> {
    /// Fixed point: `edgec_numeric::quant::requantize`.
    Fixed {
        /// Q31 multipliers.
        mult: &'a [i32],
        /// Their exponents.
        shift: &'a [i32],
    },
    /// Float activation: `edgec_numeric::quant::requantize_act`.
    Float {
        /// The accumulator's real scale.
        acc_scale: &'a [f32],
        /// The activation.
        act: Act,
        /// The result's scale.
        y_scale: f32,
    },
}

/// A [`QEpilogue`] expanded to one value per channel.
#[derive(Clone, Debug)]
enum Epi {
    Fixed { mult: Vec<i32>, shift: Vec<i32> },
    Float { acc_scale: Vec<f32>, act: Act, y_scale: f32 },
}

impl Epi {
    fn new(e: QEpilogue<'_>, m: usize) -> Epi {
        match e {
            QEpilogue::Fixed { mult, shift } => {
                Epi::Fixed { mult: per_channel(mult, m, "multiplier"), shift: per_channel(shift, m, "shift") }
            }
            QEpilogue::Float { acc_scale, act, y_scale } => {
                let acc_scale = match acc_scale.len() {
                    1 => vec![acc_scale[0]; m],
                    n => {
                        assert_eq!(n, m, "quant.conv: acc_scale holds {n} values, expected {m} or 1");
                        acc_scale.to_vec()
                    }
                };
                Epi::Float { acc_scale, act, y_scale }
            }
        }
    }
    /// The outputs of channel `m` for the sums `acc` plus `corr`, into `out`.
    fn finish_row<X: QAct>(&self, m: usize, acc: &[i32], corr: i32, q: &QReq, out: &mut [X]) {
        match self {
            Epi::Fixed { mult, shift } => fixed_row(acc, corr, mult[m], shift[m], q, out),
            Epi::Float { acc_scale, act, y_scale } => float_row(acc, corr, acc_scale[m], *act, *y_scale, q, out),
        }
    }
    /// The outputs of channels `m0..m0 + corr.len()` for a micro-kernel
    /// tile's first `n` sums per row plus `corr[r]`: row `r` into
    /// `out[r · os..][..n]`.
    #[allow(clippy::too_many_arguments)]
    fn finish_tile<X: QAct>(&self, m0: usize, tile: &Tile, n: usize, corr: &[i32], q: &QReq, out: &mut [X], os: usize) {
        match self {
            Epi::Fixed { mult, shift } => {
                let (mult, shift) = (&mult[m0..m0 + corr.len()], &shift[m0..m0 + corr.len()]);
                let shared = requant::RowReq { corr: 0, mult: 0, shift: 0, zp: q.y_zero, lo: q.qmin, hi: q.qmax };
                let rows = requant::TileReq { corr, mult, shift, shared };
                if requant::tile(tile, 2 * NR, n, rows, out, os).is_none() {
                    fixed_tile_loop(tile, n, rows, out, os);
                }
            }
            Epi::Float { acc_scale, act, y_scale } => {
                for (r, &c) in corr.iter().enumerate() {
                    let acc = &tile[r * 2 * NR..r * 2 * NR + n];
                    float_row(acc, c, acc_scale[m0 + r], *act, *y_scale, q, &mut out[r * os..r * os + n]);
                }
            }
        }
    }
}

/// A micro-kernel's result: [`MR`] rows of 2·[`NR`] sums.
type Tile = [i32; MR * 2 * NR];

/// One loop per activation kind, so the formula inlines with its activation
/// known and no per-element match.
macro_rules! float_rows {
    ($act:expr, |$a:ident| $body:expr, $($pat:pat),*) => {
        match $act {
            $($pat => {
                let $a = $act;
                $body
            })*
        }
    };
}

crate::multiversion! {
    /// The float-activation epilogue over one row (one channel), vectorized.
    fn float_row<X: QAct>(acc: &[i32], corr: i32, scale: f32, act: Act, ys: f32, q: &QReq, out: &mut [X]) {
        float_rows!(
            act,
            |a| crate::map16!(acc, &mut *out, |v| X::from_i32(requantize_act(
                v.wrapping_add(corr),
                scale,
                a,
                ys,
                q.y_zero,
                q.qmin,
                q.qmax
            ))),
            Act::None,
            Act::Relu,
            Act::Clip { .. },
            Act::Sigmoid,
            Act::HardSigmoid { .. },
            Act::HardSwish,
            Act::LeakyRelu { .. },
            Act::Silu,
            Act::Gelu,
            Act::GeluTanh,
            Act::Tanh
        )
    }
}

/// The fixed-point epilogue over one row (one channel): in vector
/// registers from the product's high word where that is exact (every
/// multiplier below 1/2: [`requant`]), else the compiler-vectorized loop.
fn fixed_row<X: QAct>(acc: &[i32], corr: i32, mult: i32, shift: i32, q: &QReq, out: &mut [X]) {
    let r = requant::RowReq { corr, mult, shift, zp: q.y_zero, lo: q.qmin, hi: q.qmax };
    if requant::row(acc, r, out).is_none() {
        fixed_loop(acc, r, out);
    }
}

/// [`fixed_row`] as a plain loop, vectorized by the compiler: in i32 lanes
/// from the product's high word where that is exact.
#[inline(always)]
fn fixed_inline<X: QAct>(acc: &[i32], r: requant::RowReq, out: &mut [X]) {
    let requant::RowReq { corr, mult, shift, zp, lo, hi } = r;
    if high_word_exact(mult, shift, zp) {
        crate::map16!(acc, out, |a| X::from_i32(requantize_high(a.wrapping_add(corr), mult, shift, zp, lo, hi)));
    } else {
        crate::map16!(acc, out, |a| X::from_i32(requantize(a.wrapping_add(corr), mult, shift, zp, lo, hi)));
    }
}

crate::multiversion! {
    /// [`fixed_inline`] compiled for each instruction-set level.
    fn fixed_loop<X: QAct>(acc: &[i32], r: requant::RowReq, out: &mut [X]) {
        fixed_inline(acc, r, out)
    }
}

crate::multiversion! {
    /// [`fixed_inline`] over each row of a tile (row `r` into `out[r · os..][..n]`):
    /// one dispatch per tile.
    fn fixed_tile_loop<X: QAct>(tile: &Tile, n: usize, rows: requant::TileReq<'_>, out: &mut [X], os: usize) {
        for (r, &corr) in rows.corr.iter().enumerate() {
            let rr = requant::RowReq { corr, mult: rows.mult[r], shift: rows.shift[r], ..rows.shared };
            fixed_inline(&tile[r * 2 * NR..r * 2 * NR + n], rr, &mut out[r * os..r * os + n]);
        }
    }
}

/// Weights arranged at model construction, with the per-channel bias, row
/// sums and epilogue. Valid for every [`Conv2d`] that differs
/// from the one given only in `n`, `h`, `w` and padding.
#[derive(Clone, Debug)]
pub struct PackedQConv {
    p: Conv2d,
    /// GEMM depth per group, rounded up to a multiple of 4.
    k4: usize,
    /// Per group: `ceil(mg / MR)` blocks of `k4 / 4` steps × MR rows × 4 taps.
    a: Vec<i8>,
    /// True if the AVX2 kernel can multiply `a`'s bytes as they are
    /// ([`micro::bytes_fit`]: no tap pair saturates `vpmaddubsw`).
    bytes_fit: bool,
    /// Otherwise `a` as the AVX2 kernel reads it ([`micro::split_pairs`];
    /// half as many words as `a` has bytes), made the first time that kernel
    /// runs: the late layers' many weights meet few output positions, so
    /// splitting per call costs as much as their GEMM.
    pairs: std::sync::OnceLock<Vec<u32>>,
    /// The weights as given (the depthwise path reads them directly).
    w: Vec<i8>,
    bias: Vec<i32>,
    rowsum: Vec<i32>,
    epi: Epi,
}

/// `v` (one value or one per channel) as one per channel.
fn per_channel(v: &[i32], m: usize, what: &str) -> Vec<i32> {
    match v.len() {
        1 => vec![v[0]; m],
        n => {
            assert_eq!(n, m, "quant.conv: {what} holds {n} values, expected {m} or 1");
            v.to_vec()
        }
    }
}

impl PackedQConv {
    /// Arrange `w` (`[c_out, c_in / groups, kh, kw]`) for `p`; `bias` has
    /// `c_out` values.
    pub fn new(p: &Conv2d, w: &[i8], bias: Option<&[i32]>, epilogue: QEpilogue<'_>) -> PackedQConv {
        let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
        let k = cg * p.kh * p.kw;
        assert_eq!(w.len(), p.c_out * k, "quant.conv weights have {} elements, {p:?} needs {}", w.len(), p.c_out * k);
        let k4 = k.next_multiple_of(4);
        let blocks = mg.div_ceil(MR);
        let mut a = vec![0i8; p.groups * blocks * MR * k4];
        for g in 0..p.groups {
            for r in 0..mg {
                let (blk, row) = (r / MR, r % MR);
                let base = (g * blocks + blk) * MR * k4;
                for kk in 0..k {
                    a[base + (kk / 4) * MR * 4 + row * 4 + kk % 4] = w[(g * mg + r) * k + kk];
                }
            }
        }
        let rowsum = (0..p.c_out).map(|m| w[m * k..(m + 1) * k].iter().fold(0i32, |s, &v| s.wrapping_add(v as i32)));
        PackedQConv {
            p: *p,
            k4,
            bytes_fit: micro::bytes_fit(&a),
            a,
            pairs: std::sync::OnceLock::new(),
            w: w.to_vec(),
            bias: bias.map_or(vec![0; p.c_out], |b| per_channel(b, p.c_out, "B")),
            rowsum: rowsum.collect(),
            epi: Epi::new(epilogue, p.c_out),
        }
    }
}

std::thread_local! {
    /// The packed im2col panels of the running conv (grown, never shrunk).
    static PANELS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `y = requantize(conv(x − x_zero, w) + bias)`: `x` is `[n, c_in, h, w]`,
/// `y` is `[n, c_out, out_h, out_w]`, both of type `X`. Asserts the slice
/// lengths and that `w` was packed for these channels and kernel.
pub fn quant_conv2d<X: QAct>(p: &Conv2d, q: &QReq, w: &PackedQConv, x: &[X], y: &mut [X]) {
    let wp = &w.p;
    assert!(
        (p.c_in, p.c_out, p.kh, p.kw, p.groups) == (wp.c_in, wp.c_out, wp.kh, wp.kw, wp.groups),
        "quant.conv weights packed for {wp:?}, used for {p:?}"
    );
    let (is, os) = (p.h * p.w, p.out_h() * p.out_w());
    assert_eq!(x.len(), p.n * p.c_in * is, "quant.conv input has {} elements, {p:?}", x.len());
    assert_eq!(y.len(), p.n * p.c_out * os, "quant.conv output has {} elements, {p:?}", y.len());
    if p.n == 0 || os == 0 {
        return;
    }
    if p.groups == p.c_in && p.c_out == p.c_in {
        return depthwise::run(p, q, w, x, y);
    }
    let isa = isa::current();
    PANELS.with(|cell| {
        let mut panels = cell.borrow_mut();
        let need = os.div_ceil(NR) * pack::panel_steps(w.k4) * NR * 4;
        if panels.len() < need {
            panels.resize(need, 0);
        }
        let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
        for b in 0..p.n {
            for g in 0..p.groups {
                let xg = &x[(b * p.c_in + g * cg) * is..(b * p.c_in + (g + 1) * cg) * is];
                pack::pack_panels(p, q, xg, w.k4, &mut panels[..need]);
                let yg = &mut y[(b * p.c_out + g * mg) * os..(b * p.c_out + (g + 1) * mg) * os];
                gemm::run(isa, p, q, w, g, &panels[..need], os, yg);
            }
        }
    });
}

/// `quant.conv` over any window rank with weights and parameters read when
/// the model runs: the direct integer loop of ConvInteger
/// ([`crate::quant::conv`]) with this op's epilogue.
#[allow(clippy::too_many_arguments)]
pub fn quant_conv_nd<X: QAct + crate::quant::conv::Q8>(
    p: &crate::quant::conv::ConvInt<'_>,
    q: &QReq,
    x: &[X],
    w: &[i8],
    bias: Option<&[i32]>,
    epilogue: QEpilogue<'_>,
    y: &mut [X],
) {
    let bias = bias.map_or(vec![0; p.m], |b| per_channel(b, p.m, "B"));
    let epi = Epi::new(epilogue, p.m);
    crate::quant::conv::conv_i32(p, x, q.x_zero, w, &[] as &[i8], |i, m, acc| {
        epi.finish_row(m, &[acc], bias[m], q, &mut y[i..i + 1]);
    });
}
