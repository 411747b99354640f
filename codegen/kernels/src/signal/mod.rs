//! Signal processing: DFT and STFT ([`dft`]), the cosine-sum windows (Hann,
//! Hamming, Blackman) and MelWeightMatrix, whose parameters are read when
//! the model runs.
//!
//! Each window or mel matrix has a size the model declares; the kernel
//! computes the size the run-time parameters give and returns an [`Error`]
//! naming the op when they differ. Values follow the reference interpreter:
//! in f64, rounded once to the output type.

pub mod dft;

use crate::lowp::Real;
use crate::rt::{check_count, Error};
use edgec_numeric::signal::{mel_band, mel_bounds, mel_edge};

pub use edgec_numeric::signal::Window;

/// A window of `size` values (the run-time operand) into `y` (the declared
/// size); `N = size` if `periodic`, else `size − 1` (a symmetric window of
/// size 1 is NaN, as in ONNX).
pub fn window<T: Real>(w: Window, periodic: bool, size: i64, y: &mut [T]) -> Result<(), Error> {
    if size < 1 {
        return Err(Error(format!("{}: size is {size}; it must be at least 1", w.name())));
    }
    check_count(w.name(), "values", size as usize, y.len())?;
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
    check_count("MelWeightMatrix", "mel bins", p.bins as usize, cols)?;
    check_count("MelWeightMatrix", "spectrogram bins", (p.dft_length / 2 + 1) as usize, rows)?;
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
    fn hann_is_zero_at_the_ends_when_symmetric() {
        let mut y = [0.0f32; 5];
        window(Window::Hann, false, 5, &mut y).unwrap();
        assert!(y[0].abs() < 1e-7 && y[4].abs() < 1e-7 && (y[2] - 1.0).abs() < 1e-7);
    }
}
