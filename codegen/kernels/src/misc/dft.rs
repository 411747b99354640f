//! DFT along one axis of a real `[..., 1]` or complex `[..., 2]` input:
//! forward, inverse (`1/n`-scaled), one-sided forward (RFFT) and IRFFT.
//!
//! A direct `O(n·out)` transform in f64 with the interpreter's twiddles
//! `e^{-2πi j/n}` (`j = k·t mod n`) and summation order, rounded once.

use crate::strided::numel;
use std::f64::consts::PI;

/// The geometry of a DFT.
#[derive(Copy, Clone, Debug)]
pub struct Dft<'a> {
    /// Input dims without the last (real/imaginary) dim.
    pub dims: &'a [usize],
    /// 1 (real) or 2 (complex) input components.
    pub parts: usize,
    /// The transform axis (into `dims`).
    pub axis: usize,
    /// The transform length (the lane is zero-padded or truncated to it).
    pub n: usize,
    /// Output bins along `axis`.
    pub out_len: usize,
    /// Inverse transform.
    pub inverse: bool,
    /// IRFFT: the lane is the first half of a Hermitian spectrum; the output
    /// is real (`[..., 1]`).
    pub irfft: bool,
}

/// `e^{-2πi j/n}` as `(cos, sin)`.
#[inline]
fn twiddle(j: usize, n: usize) -> (f64, f64) {
    let a = -2.0 * PI * j as f64 / n as f64;
    (a.cos(), a.sin())
}

/// `DFT`: `y` has `dims` with `dims[axis] = out_len`, then 2 components (1
/// for IRFFT).
pub fn dft(p: &Dft<'_>, x: &[f32], y: &mut [f32]) {
    let (dims, a, n) = (p.dims, p.axis, p.n);
    assert!(a < dims.len() && (p.parts == 1 || p.parts == 2) && n > 0, "dft: axis {a} of {dims:?}, n {n}");
    let (outer, m, inner) = (numel(&dims[..a]), dims[a], numel(&dims[a + 1..]));
    let out_parts = if p.irfft { 1 } else { 2 };
    assert_eq!(x.len(), outer * m * inner * p.parts, "dft: x holds {} elements", x.len());
    assert_eq!(y.len(), outer * p.out_len * inner * out_parts, "dft: y holds {} elements", y.len());
    let (sign, scale) = if p.inverse { (-1.0, 1.0 / n as f64) } else { (1.0, 1.0) };
    for o in 0..outer {
        for i in 0..inner {
            // Element `t` of the input lane (0 past its end).
            let lane = |t: usize| -> (f64, f64) {
                if t >= m {
                    return (0.0, 0.0);
                }
                let at = ((o * m + t) * inner + i) * p.parts;
                (x[at] as f64, if p.parts == 2 { x[at + 1] as f64 } else { 0.0 })
            };
            // Element `t` of the transformed signal (the Hermitian extension for IRFFT).
            let signal = |t: usize| -> (f64, f64) {
                if !p.irfft || t <= n / 2 {
                    lane(t)
                } else {
                    let (r, im) = lane(n - t);
                    (r, -im)
                }
            };
            let used = if p.irfft { n } else { m.min(n) };
            for k in 0..p.out_len {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..used {
                    let (xr, xi) = signal(t);
                    let (c, s) = twiddle(((k as u128 * t as u128) % n as u128) as usize, n);
                    let s = sign * s;
                    re += xr * c - xi * s;
                    im += xr * s + xi * c;
                }
                let at = ((o * p.out_len + k) * inner + i) * out_parts;
                y[at] = (re * scale) as f32;
                if !p.irfft {
                    y[at + 1] = (im * scale) as f32;
                }
            }
        }
    }
}
