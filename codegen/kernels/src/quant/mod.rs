//! Linear quantization: QuantizeLinear (f32 → 16-, 8-, 4- and 2-bit
//! integers), DequantizeLinear (those and i32 → f32), DynamicQuantizeLinear,
//! and the integer matmul that MatMulInteger and QLinearMatMul are built on.
//! The float8 / float4 forms and other scale or output types are in
//! [`lowp8`]; run-time shapes in [`shaped`]; ConvInteger and QLinearConv in
//! [`conv`].
//!
//! Rounding matches the reference interpreter bit for bit: `x / scale` is one
//! correctly rounded f32 division, halves round to even, and
//! `(q - zero_point) * scale` is one correctly rounded f32 product (exact
//! integer difference, so computing it in f64 and rounding once gives the
//! same value).

use crate::lowp::Real;

pub mod conv;
pub mod fused;
pub mod lowp8;
pub mod qconv;
pub mod shaped;

/// Which scale / zero point each element of the quantized tensor uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QLayout {
    /// One scale for the whole tensor.
    Tensor,
    /// One scale per index of an axis of size `dim`, elements `inner` apart.
    Axis {
        /// The axis' size (the scale's length).
        dim: usize,
        /// Product of the dims after the axis.
        inner: usize,
    },
    /// One scale per `block` consecutive indices of an axis of size `dim`;
    /// the scale has the input's shape with that axis `dim.div_ceil(block)`.
    Block {
        /// The axis' size.
        dim: usize,
        /// Product of the dims after the axis.
        inner: usize,
        /// Block length along the axis (≥ 1).
        block: usize,
    },
}

impl QLayout {
    /// The scale index of flat element `i`.
    #[inline]
    pub fn index(self, i: usize) -> usize {
        match self {
            QLayout::Tensor => 0,
            QLayout::Axis { dim, inner } => (i / inner) % dim,
            QLayout::Block { dim, inner, block } => {
                let (outer, c, r) = (i / (dim * inner), (i / inner) % dim, i % inner);
                (outer * dim.div_ceil(block) + c / block) * inner + r
            }
        }
    }
}

/// A quantized integer element type.
pub trait QInt: Copy {
    /// Smallest value.
    const MIN: f32;
    /// Largest value.
    const MAX: f32;
    /// The value as f32 (exact).
    fn to_f32(self) -> f32;
    /// From an integral f32 in `MIN..=MAX`.
    fn from_f32(x: f32) -> Self;
    /// From an integer in `MIN..=MAX`.
    #[inline]
    fn from_i32(x: i32) -> Self {
        Self::from_f32(x as f32)
    }
}

macro_rules! qint {
    ($($t:ty),*) => {$(
        impl QInt for $t {
            const MIN: f32 = <$t>::MIN as f32;
            const MAX: f32 = <$t>::MAX as f32;
            #[inline]
            fn to_f32(self) -> f32 {
                self as f32
            }
            #[inline]
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            #[inline]
            fn from_i32(x: i32) -> Self {
                x as $t
            }
        }
    )*};
}
qint!(u8, i8, i16, u16);
// The 4- and 2-bit integers implement `QInt` and `DeqInt` in [`lowp8`].

/// `y = saturate(round_half_even(x / scale) + zero_point)`; NaN gives the
/// type's minimum. `zp` has the scale's length (or is absent: zero).
pub fn quantize<T: QInt>(layout: QLayout, x: &[f32], scale: &[f32], zp: Option<&[T]>, y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "quantize: x has {} elements, y {}", x.len(), y.len());
    assert!(zp.is_none_or(|z| z.len() == scale.len()), "quantize: zero point and scale lengths differ");
    if layout == QLayout::Tensor && !scale.is_empty() {
        // One scale: the same formula, vectorized (f32 rounding needs SSE4.1+).
        // `quantize_f32` is this formula in a form that vectorizes (all
        // these types' values are integers of magnitude < 2^22).
        let (s, z) = (scale[0], zp.map_or(0, |z| z[0].to_f32() as i32));
        let (lo, hi) = (T::MIN as i32, T::MAX as i32);
        return crate::simd::vectorized(|| {
            for (&v, out) in x.iter().zip(y.iter_mut()) {
                *out = T::from_i32(edgec_numeric::quant::quantize_f32(v, s, z, lo, hi));
            }
        });
    }
    for (i, (&v, out)) in x.iter().zip(y.iter_mut()).enumerate() {
        let p = layout.index(i);
        let q = v / scale[p];
        *out = if q.is_nan() {
            T::from_f32(T::MIN)
        } else {
            let z = zp.map_or(0.0, |z| z[p].to_f32());
            T::from_f32((q.round_ties_even() + z).clamp(T::MIN, T::MAX))
        };
    }
}

/// An element of a dequantizable tensor (quantized ints and i32 accumulators).
pub trait DeqInt: Copy {
    /// Does every difference of two values fit f32's 24-bit mantissa (so
    /// `f32(x - z) · scale` is the once-rounded product)?
    const NARROW: bool = false;
    /// The value as i64 (exact).
    fn to_i64(self) -> i64;
}
macro_rules! deq_int {
    ($narrow:expr; $($t:ty),*) => {$(
        impl DeqInt for $t {
            const NARROW: bool = $narrow;
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
        }
    )*};
}
deq_int!(true; u8, i8, i16, u16);
deq_int!(false; i32);

/// `y = (x - zero_point) * scale`, rounded once to f32.
pub fn dequantize<T: DeqInt>(layout: QLayout, x: &[T], scale: &[f32], zp: Option<&[T]>, y: &mut [f32]) {
    assert_eq!(x.len(), y.len(), "dequantize: x has {} elements, y {}", x.len(), y.len());
    assert!(zp.is_none_or(|z| z.len() == scale.len()), "dequantize: zero point and scale lengths differ");
    if layout == QLayout::Tensor && !scale.is_empty() {
        if T::NARROW {
            // The difference is exact in f32 and the product of two 24-bit
            // mantissas exact in f64: one f32 product rounds the same.
            let (s, z) = (scale[0], zp.map_or(0, |z| z[0].to_i64() as i32));
            return crate::simd::vectorized(|| {
                for (&v, out) in x.iter().zip(y.iter_mut()) {
                    *out = (v.to_i64() as i32 - z) as f32 * s;
                }
            });
        }
        let (s, z) = (scale[0] as f64, zp.map_or(0, |z| z[0].to_i64()));
        return crate::simd::vectorized(|| {
            for (&v, out) in x.iter().zip(y.iter_mut()) {
                *out = ((v.to_i64() - z) as f64 * s) as f32;
            }
        });
    }
    for (i, (&v, out)) in x.iter().zip(y.iter_mut()).enumerate() {
        let p = layout.index(i);
        let d = v.to_i64() - zp.map_or(0, |z| z[p].to_i64());
        *out = (d as f64 * scale[p] as f64) as f32;
    }
}

/// DynamicQuantizeLinear's scale and zero point for `x`: the range
/// `[min(0, min x), max(0, max x)]` mapped onto 0..=255 (`scale = range /
/// 255`, 1/255 for an empty range), `zero_point = round(clamp(-min / scale,
/// 0, 255))`. NaNs are skipped (the interpreter rejects them). The
/// quantized tensor is then `quantize(QLayout::Tensor, x, &[scale], Some(&[zero_point]), y)`.
pub fn dynamic_params(x: &[f32]) -> (f32, u8) {
    let hi = x.iter().fold(0f32, |a, &b| a.max(b));
    let lo = x.iter().fold(0f32, |a, &b| a.min(b));
    let s = (if hi == lo { 1.0 } else { hi - lo }) / 255.0;
    let zp = (0.0 - lo / s).clamp(0.0, 255.0).round_ties_even();
    (s, zp as u8)
}

/// A quantized matmul operand: matrices at `offsets` in `data` (one per
/// output batch, broadcast by the caller), zero points and scales of one
/// value or one per row (A, length m) / per column (B, length n).
#[derive(Copy, Clone, Debug)]
pub struct QMat<'a, T, S = f32> {
    /// Row-major matrices.
    pub data: &'a [T],
    /// Element offset of each batch's matrix.
    pub offsets: &'a [usize],
    /// Zero points (empty: zero).
    pub zero: &'a [T],
    /// Scales (empty for MatMulInteger): f32, f16 or bf16.
    pub scale: &'a [S],
}

fn at<T: Copy>(v: &[T], i: usize) -> Option<T> {
    v.get(if v.len() == 1 { 0 } else { i }).copied()
}

/// The i32 product `(a - za) · (b - zb)` of batch `bi` at `(i, j)`, with the
/// wrapping accumulation of the ONNX ops (exact i64 sum truncated: the same
/// value modulo 2^32).
fn dot<A: DeqInt, B: DeqInt, S>(
    (k, n): (usize, usize),
    a: &QMat<'_, A, S>,
    b: &QMat<'_, B, S>,
    bi: usize,
    i: usize,
    j: usize,
) -> i32 {
    let za = at(a.zero, i).map_or(0, |z| z.to_i64());
    let zb = at(b.zero, j).map_or(0, |z| z.to_i64());
    let (ar, bc) = (&a.data[a.offsets[bi] + i * k..][..k], &b.data[b.offsets[bi] + j..]);
    let acc: i64 = (0..k).map(|p| (ar[p].to_i64() - za) * (bc[p * n].to_i64() - zb)).sum();
    acc as i32
}

/// MatMulInteger: `y = (a - za) · (b - zb)` in i32, `a` m×k, `b` k×n per batch.
pub fn matmul_integer<A: DeqInt, B: DeqInt>(
    (m, k, n): (usize, usize, usize),
    a: QMat<'_, A>,
    b: QMat<'_, B>,
    y: &mut [i32],
) {
    assert_eq!(a.offsets.len(), b.offsets.len(), "matmul_integer: batch offsets differ in count");
    assert_eq!(y.len(), a.offsets.len() * m * n, "matmul_integer: y holds {} elements", y.len());
    for (idx, out) in y.iter_mut().enumerate() {
        let (bi, i, j) = (idx / (m * n), (idx / n) % m, idx % n);
        *out = dot((k, n), &a, &b, bi, i, j);
    }
}

/// QLinearMatMul: the integer product requantized with
/// `round_s(round_s(sa · sb) / sy)` (`round_s` rounds to the scales' type
/// `S`) and `zy` (per tensor or per column), rounded half to even and
/// saturated.
pub fn qlinear_matmul<T: QInt + DeqInt, S: Real>(
    (m, k, n): (usize, usize, usize),
    a: QMat<'_, T, S>,
    b: QMat<'_, T, S>,
    (y_scale, y_zero): (&[S], &[T]),
    y: &mut [T],
) {
    assert_eq!(a.offsets.len(), b.offsets.len(), "qlinear_matmul: batch offsets differ in count");
    assert_eq!(y.len(), a.offsets.len() * m * n, "qlinear_matmul: y holds {} elements", y.len());
    let f = |s: Option<S>| s.map_or(1.0, Real::to_f64);
    for (idx, out) in y.iter_mut().enumerate() {
        let (bi, i, j) = (idx / (m * n), (idx / n) % m, idx % n);
        let c = dot((k, n), &a, &b, bi, i, j);
        let ab = S::from_f64(f(at(a.scale, i)) * f(at(b.scale, j))).to_f64();
        let mult = S::from_f64(ab / f(at(y_scale, j))).to_f64();
        let zy = at(y_zero, j).map_or(0.0, |z| z.to_i64() as f64);
        let v = (c as f64 * mult + zy).round_ties_even();
        *out = T::from_f32((v as f32).clamp(T::MIN, T::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_layout_indexes_the_scale_grid() {
        // x [2, 5, 3], blocks of 2 along axis 1: scale [2, 3, 3].
        let l = QLayout::Block { dim: 5, inner: 3, block: 2 };
        let idx = |o: usize, c: usize, r: usize| l.index((o * 5 + c) * 3 + r);
        assert_eq!(idx(0, 0, 0), 0);
        assert_eq!(idx(0, 1, 2), 2);
        assert_eq!(idx(0, 2, 0), 3);
        assert_eq!(idx(0, 4, 1), 7);
        assert_eq!(idx(1, 4, 2), 9 + 8);
    }

    #[test]
    fn quantize_rounds_half_to_even_and_saturates() {
        let mut y = [0u8; 5];
        quantize(QLayout::Tensor, &[0.5, 1.5, 2.5, 1000.0, f32::NAN], &[1.0], Some(&[0u8]), &mut y);
        assert_eq!(y, [0, 2, 2, 255, 0]);
        let mut z = [0i8; 2];
        quantize(QLayout::Tensor, &[-1000.0, 3.0], &[2.0], Some(&[1i8]), &mut z);
        assert_eq!(z, [-128, 3]);
    }

    /// The one-scale fast paths equal the per-element formula (an axis of
    /// size 1 takes the general loop) on ties, extremes, NaN and infinities.
    #[test]
    fn one_scale_paths_equal_the_general_loop() {
        let axis = QLayout::Axis { dim: 1, inner: 1 << 20 };
        let mut xs: Vec<f32> = (-600..600).map(|i| i as f32 * 0.25 + 0.125 * (i % 3) as f32).collect();
        xs.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, 0.0, -0.0]);
        for (s, zu, zi) in [(1.0f32, 0u8, 0i8), (0.5, 128, -3), (0.037, 7, 100)] {
            let (mut a, mut b) = (vec![0u8; xs.len()], vec![0u8; xs.len()]);
            quantize(QLayout::Tensor, &xs, &[s], Some(&[zu]), &mut a);
            quantize(axis, &xs, &[s], Some(&[zu]), &mut b);
            assert_eq!(a, b, "u8, scale {s}");
            let (mut a, mut b) = (vec![0i8; xs.len()], vec![0i8; xs.len()]);
            quantize(QLayout::Tensor, &xs, &[s], Some(&[zi]), &mut a);
            quantize(axis, &xs, &[s], Some(&[zi]), &mut b);
            assert_eq!(a, b, "i8, scale {s}");
        }
        let qs: Vec<i16> = (i16::MIN..=i16::MAX).step_by(7).collect();
        for s in [1.0f32, 0.1, 3.3e-5, 7.1e-39] {
            let (mut a, mut b) = (vec![0f32; qs.len()], vec![0f32; qs.len()]);
            dequantize(QLayout::Tensor, &qs, &[s], Some(&[-5i16]), &mut a);
            dequantize(axis, &qs, &[s], Some(&[-5i16]), &mut b);
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}
