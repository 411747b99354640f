//! Generated tensors whose parameters are read when the model runs: Range,
//! the cosine-sum windows (Hann, Hamming, Blackman) and MelWeightMatrix.
//!
//! Each result has a size the model declares; the kernel computes the size
//! the run-time parameters give and returns an [`Error`] naming the op when
//! they differ. Values follow the reference interpreter: Range exactly for
//! integers, in f64 rounded once for f32/f64, and in f32 (`stash_type` 1,
//! the default) or f64 for f16/bf16; windows and the mel matrix in f64,
//! rounded once to the output type.

use crate::lowp::{Real, BF16, F16};
use crate::rt::Error;
use edgec_numeric::signal::{mel_band, mel_bounds, mel_edge};

/// An element type of Range.
pub trait RangeElem: Copy {
    /// Number of elements `max(ceil((limit - start) / delta), 0)`.
    fn count(start: Self, limit: Self, delta: Self) -> Result<usize, Error>;
    /// Element `i`: `start + i * delta` (`stash_f64`: f16/bf16 computed in f64).
    fn at(start: Self, delta: Self, i: usize, stash_f64: bool) -> Self;
}

macro_rules! range_int {
    ($($t:ty),*) => {$(
        impl RangeElem for $t {
            fn count(start: $t, limit: $t, delta: $t) -> Result<usize, Error> {
                let (s, l, d) = (start as i128, limit as i128, delta as i128);
                if d == 0 {
                    return Err(Error("Range: `delta` must not be zero".into()));
                }
                let (q, r) = ((l - s) / d, (l - s) % d);
                Ok((q + i128::from(r != 0 && (r < 0) == (d < 0))).max(0) as usize)
            }
            #[inline]
            fn at(start: $t, delta: $t, i: usize, _: bool) -> $t {
                (start as i128 + i as i128 * delta as i128) as $t
            }
        }
    )*};
}
range_int!(i16, i32, i64);

/// Float count in f64.
fn float_count(s: f64, l: f64, d: f64) -> Result<usize, Error> {
    if d == 0.0 {
        return Err(Error("Range: `delta` must not be zero".into()));
    }
    let n = ((l - s) / d).ceil().max(0.0);
    if !n.is_finite() || n > u32::MAX as f64 {
        return Err(Error(format!("Range({s}, {l}, {d}) has too many elements")));
    }
    Ok(n as usize)
}

macro_rules! range_float {
    ($($t:ty, $low:expr);*) => {$(
        impl RangeElem for $t {
            fn count(start: $t, limit: $t, delta: $t) -> Result<usize, Error> {
                float_count(Real::to_f64(start), Real::to_f64(limit), Real::to_f64(delta))
            }
            #[inline]
            fn at(start: $t, delta: $t, i: usize, stash_f64: bool) -> $t {
                let (s, d) = (Real::to_f64(start), Real::to_f64(delta));
                if $low && !stash_f64 {
                    <$t as Real>::from_f64((s as f32 + i as f32 * d as f32) as f64)
                } else {
                    <$t as Real>::from_f64(s + i as f64 * d)
                }
            }
        }
    )*};
}
range_float!(f32, false; f64, false; F16, true; BF16, true);

/// Elements of an integer `Range(start, limit, delta)`.
pub fn range_len_int(start: i64, limit: i64, delta: i64) -> Result<usize, Error> {
    <i64 as RangeElem>::count(start, limit, delta)
}

/// Elements of a float `Range(start, limit, delta)` (the exact values of
/// any float type, as f64).
pub fn range_len_float(start: f64, limit: f64, delta: f64) -> Result<usize, Error> {
    float_count(start, limit, delta)
}

/// `Range(start, limit, delta)` into `y`, whose length is the declared size.
pub fn range<T: RangeElem>(start: T, limit: T, delta: T, stash_f64: bool, y: &mut [T]) -> Result<(), Error> {
    let n = T::count(start, limit, delta)?;
    super::dynamic::check_count("Range", "elements", n, y.len())?;
    for (i, v) in y.iter_mut().enumerate() {
        *v = T::at(start, delta, i, stash_f64);
    }
    Ok(())
}

pub use edgec_numeric::signal::Window;

/// A window of `size` values (the run-time operand) into `y` (the declared
/// size); `N = size` if `periodic`, else `size − 1` (a symmetric window of
/// size 1 is NaN, as in ONNX).
pub fn window<T: Real>(w: Window, periodic: bool, size: i64, y: &mut [T]) -> Result<(), Error> {
    if size < 1 {
        return Err(Error(format!("{}: size is {size}; it must be at least 1", w.name())));
    }
    super::dynamic::check_count(w.name(), "values", size as usize, y.len())?;
    let n = if periodic { size } else { size - 1 } as f64;
    for (i, v) in y.iter_mut().enumerate() {
        *v = T::from_f64(w.value(i as f64, n));
    }
    Ok(())
}

/// The run-time operands of a MelWeightMatrix.
#[derive(Copy, Clone, Debug)]
pub struct Mel {
    /// `num_mel_bins`.
    pub bins: i64,
    /// `dft_length`.
    pub dft_length: i64,
    /// `sample_rate`.
    pub sample_rate: i64,
    /// `lower_edge_hertz`.
    pub lower: f64,
    /// `upper_edge_hertz`.
    pub upper: f64,
    /// The hertz operands are f64 (else f32: mel bounds computed in f32).
    pub wide: bool,
}

/// Scratch (`i64`s) [`mel_weight_matrix`] needs for `bins` mel bins.
pub fn mel_scratch_len(bins: usize) -> usize {
    bins + 2
}

/// `MelWeightMatrix` into `y`, declared `[rows, cols]`; the run-time
/// operands must give `rows = dft_length / 2 + 1` and `cols = num_mel_bins`.
/// `edges` is scratch for the band edges (`bins + 2` entries).
pub fn mel_weight_matrix<T: Real>(
    p: &Mel,
    rows: usize,
    cols: usize,
    edges: &mut [i64],
    y: &mut [T],
) -> Result<(), Error> {
    let err = |m: String| Err(Error(format!("MelWeightMatrix: {m}")));
    if p.bins < 1 || p.dft_length < 1 || p.sample_rate < 1 {
        return err(format!(
            "num_mel_bins {}, dft_length {}, sample_rate {} must be positive",
            p.bins, p.dft_length, p.sample_rate
        ));
    }
    super::dynamic::check_count("MelWeightMatrix", "mel bins", p.bins as usize, cols)?;
    super::dynamic::check_count("MelWeightMatrix", "spectrogram bins", (p.dft_length / 2 + 1) as usize, rows)?;
    assert_eq!(y.len(), rows * cols, "MelWeightMatrix: y holds {} values", y.len());
    let count = cols + 2;
    if edges.len() < count {
        return err(format!("scratch of {} for {count} band edges", edges.len()));
    }
    let bounds = mel_bounds(p.lower, p.upper, count, p.wide);
    for (i, e) in edges[..count].iter_mut().enumerate() {
        let b = mel_edge(i, bounds, p.dft_length, p.sample_rate);
        if !b.is_finite() {
            return err(format!("band edge #{i} is not finite (hertz bounds {} and {})", p.lower, p.upper));
        }
        *e = b as i64;
    }
    y.fill(T::from_f64(0.0));
    for i in 0..cols {
        let (l, c, h) = (edges[i], edges[i + 1], edges[i + 2]);
        let mut set = |j: i64, v: f64| match usize::try_from(j).ok().filter(|&j| j < rows) {
            Some(j) => {
                y[j * cols + i] = T::from_f64(v);
                Ok(())
            }
            None => Err(Error(format!("MelWeightMatrix: band {i} touches spectrogram bin {j}, outside [0, {rows})"))),
        };
        mel_band((l, c, h), &mut set)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_like_numpy() {
        let mut y = [0i32; 2];
        range(10, 4, -3, false, &mut y).unwrap();
        assert_eq!(y, [10, 7]);
        assert!(range(10, 4, -3, false, &mut [0i32; 3]).is_err());
        assert!(range(1, 4, 0, false, &mut [0i32; 3]).is_err());
        let mut f = [0.0f32; 3];
        range(1.0, 2.0, 0.4, false, &mut f).unwrap();
        assert_eq!(f, [1.0, 1.4, 1.8]);
    }

    #[test]
    fn hann_is_zero_at_the_ends_when_symmetric() {
        let mut y = [0.0f32; 5];
        window(Window::Hann, false, 5, &mut y).unwrap();
        assert!(y[0].abs() < 1e-7 && y[4].abs() < 1e-7 && (y[2] - 1.0).abs() < 1e-7);
    }
}
