//! DFT along one axis of a real `[..., 1]` or complex `[..., 2]` input:
//! forward, inverse (`1/n`-scaled), one-sided forward (RFFT) and IRFFT.
//!
//! A direct `O(n·out)` transform in f64 with the interpreter's twiddles
//! `e^{-2πi j/n}` (`j = k·t mod n`) and summation order, rounded once.
//!
//! STFT ([`stft`]) is the same transform over windowed frames; its frame
//! step, length and window are read when the model runs; [`stft_dims`] and
//! [`dft_dims`] give the result shape they imply, and the kernels check the
//! shape they write against it (an [`Error`] on mismatch).

use crate::rt::{check_count, Error};
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

/// The declared geometry of an STFT: signal `[batch, len, parts]`, output
/// `[batch, frames, bins, 2]`.
#[derive(Copy, Clone, Debug)]
pub struct Stft {
    /// Signals.
    pub batch: usize,
    /// Samples per signal.
    pub len: usize,
    /// 1 (real) or 2 (complex) components per sample.
    pub parts: usize,
    /// Declared frames.
    pub frames: usize,
    /// Declared bins per frame (`n / 2 + 1` when one-sided, else `n`).
    pub bins: usize,
    /// One-sided output.
    pub onesided: bool,
}

/// STFT's `[frames, bins]` for a signal of `len` samples: the frame length
/// `n` is `frame_length` if given (then equal to the window's length, if
/// there is a window), else the window's length, else `len`; `frames = 1 +
/// (len − n) / step` and `bins = n / 2 + 1` one-sided, else `n`. Errors
/// (naming the op): `n` or `step` below 1, a signal shorter than `n`.
pub fn stft_dims(
    len: usize,
    step: i64,
    frame_length: Option<i64>,
    window: Option<usize>,
    onesided: bool,
) -> Result<[usize; 2], Error> {
    let err = |m: String| Err(Error(format!("STFT: {m}")));
    if let (Some(f), Some(w)) = (frame_length, window) {
        if f != w as i64 {
            return err(format!("frame_length {f} does not match the window length {w}"));
        }
    }
    let n = frame_length.unwrap_or(window.unwrap_or(len) as i64);
    if n < 1 || step < 1 {
        return err(format!("frame length {n} and frame_step {step} must be at least 1"));
    }
    let n = n as usize;
    if len < n {
        return err(format!("the signal length {len} is shorter than the frame length {n}"));
    }
    Ok([1 + (len - n) / step as usize, if onesided { n / 2 + 1 } else { n }])
}

/// `STFT`: DFTs of `n`-sample frames every `step` samples, each multiplied
/// by `window` (all ones without one). `n` is `frame_length` if given, else
/// the window's length, else the signal length; the frames and bins these
/// give ([`stft_dims`]) must be the ones `p` sizes the output for.
pub fn stft(
    p: &Stft,
    step: i64,
    frame_length: Option<i64>,
    window: Option<&[f32]>,
    x: &[f32],
    y: &mut [f32],
) -> Result<(), Error> {
    assert_eq!(x.len(), p.batch * p.len * p.parts, "stft: x holds {} elements", x.len());
    assert_eq!(y.len(), p.batch * p.frames * p.bins * 2, "stft: y holds {} elements", y.len());
    let [frames, bins] = stft_dims(p.len, step, frame_length, window.map(<[f32]>::len), p.onesided)?;
    check_count("STFT", "frames", frames, p.frames)?;
    check_count("STFT", "bins", bins, p.bins)?;
    let n = frame_length.unwrap_or(window.map_or(p.len, <[f32]>::len) as i64) as usize;
    let w = |t: usize| window.map_or(1.0, |w| w[t] as f64);
    for b in 0..p.batch {
        for f in 0..frames {
            let start = b * p.len + f * step as usize;
            for k in 0..bins {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..n {
                    let at = (start + t) * p.parts;
                    let (xr, xi) = (x[at] as f64 * w(t), if p.parts == 2 { x[at + 1] as f64 * w(t) } else { 0.0 });
                    let (c, s) = twiddle(((k as u128 * t as u128) % n as u128) as usize, n);
                    re += xr * c - xi * s;
                    im += xr * s + xi * c;
                }
                let o = ((b * frames + f) * bins + k) * 2;
                y[o] = re as f32;
                y[o + 1] = im as f32;
            }
        }
    }
    Ok(())
}

/// Most dims of a DFT input [`dft_checked`] takes.
pub const DFT_MAX_RANK: usize = 8;

/// DFT's output dims for input `x_dims` (last dim 1 real or 2 complex)
/// into `out` (as many): the axis resized to the transform's output length
/// and the last dim 2 (1 for IRFFT). The axis must be in `[-r, -2]` or
/// `[0, r − 2]`, the length at least 1 (default: the axis size, `2 (m − 1)`
/// for IRFFT); returns the axis (non-negative) and the length. Errors name
/// the op.
pub fn dft_dims(
    x_dims: &[usize],
    inverse: bool,
    onesided: bool,
    axis: i64,
    dft_length: Option<i64>,
    out: &mut [usize],
) -> Result<(usize, usize), Error> {
    let err = |m: String| Err(Error(format!("DFT: {m}")));
    let r = x_dims.len();
    if !(2..=DFT_MAX_RANK).contains(&r) || out.len() != r {
        return err(format!("input {x_dims:?} of rank {r} is not supported"));
    }
    let parts = x_dims[r - 1];
    if !(parts == 1 || parts == 2) || (onesided && parts != if inverse { 2 } else { 1 }) {
        return err(format!("the input's last dim {parts} does not fit inverse = {inverse}, onesided = {onesided}"));
    }
    let ri = r as i64;
    if axis < -ri || axis == -1 || axis >= ri - 1 {
        return err(format!("axis {axis} is invalid for rank {r}"));
    }
    let a = (if axis < 0 { axis + ri } else { axis }) as usize;
    let m = x_dims[a] as i64;
    let n = match dft_length {
        Some(n) => n,
        None if inverse && onesided => 2 * (m - 1),
        None => m,
    };
    if n < 1 {
        return err(format!("the length is {n}; it must be at least 1"));
    }
    let n = n as usize;
    out.copy_from_slice(x_dims);
    out[a] = if onesided && !inverse { n / 2 + 1 } else { n };
    out[r - 1] = if inverse && onesided { 1 } else { 2 };
    Ok((a, n))
}

/// `DFT` with `axis` and `dft_length` read when the model runs: `x_dims`
/// is the input shape (last dim 1 or 2), `out_dims` the declared output
/// shape. The axis must be in `[-r, -2]` or `[0, r − 2]`, the length at
/// least 1 (default: the axis size, `2 (m − 1)` for IRFFT), and the output
/// they give the declared one; otherwise an [`Error`].
#[allow(clippy::too_many_arguments)]
pub fn dft_checked(
    x_dims: &[usize],
    out_dims: &[usize],
    inverse: bool,
    onesided: bool,
    axis: i64,
    dft_length: Option<i64>,
    x: &[f32],
    y: &mut [f32],
) -> Result<(), Error> {
    let r = x_dims.len();
    let mut want = [0usize; DFT_MAX_RANK];
    let (a, n) = dft_dims(x_dims, inverse, onesided, axis, dft_length, want.get_mut(..r).unwrap_or(&mut []))?;
    if out_dims.len() != r || want[..r] != *out_dims {
        return Err(Error(format!("DFT: the output is {:?}, the model declares {out_dims:?}", &want[..r])));
    }
    let out_len = want[a];
    let p =
        Dft { dims: &x_dims[..r - 1], parts: x_dims[r - 1], axis: a, n, out_len, inverse, irfft: inverse && onesided };
    dft(&p, x, y);
    Ok(())
}
