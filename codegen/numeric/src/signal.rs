//! Signal generators: the cosine-sum windows and MelWeightMatrix band edges,
//! in f64 with the ONNX reference's formulas.

use std::f64::consts::PI;

/// The cosine-sum windows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Window {
    /// `sin²(π i / N)`.
    Hann,
    /// `α − (1 − α) cos(2π i / N)`, `α = 25/46`.
    Hamming,
    /// `0.42 − 0.5 cos(2π i / N) + 0.08 cos(4π i / N)`.
    Blackman,
}

impl Window {
    /// Value `i` of a window with denominator `n` (`size` if periodic, else
    /// `size − 1`: a symmetric window of size 1 is NaN, as in ONNX).
    pub fn value(self, i: f64, n: f64) -> f64 {
        match self {
            Window::Hann => {
                let s = (i * PI / n).sin();
                s * s
            }
            Window::Hamming => {
                const ALPHA: f64 = 25.0 / 46.0;
                ALPHA - (i * PI * 2.0 / n).cos() * (1.0 - ALPHA)
            }
            Window::Blackman => (i * (PI * 2.0) / n).cos() * -0.5 + (i * (PI * 4.0) / n).cos() * 0.08 + 0.42,
        }
    }

    /// The op's name.
    pub fn name(self) -> &'static str {
        match self {
            Window::Hann => "HannWindow",
            Window::Hamming => "HammingWindow",
            Window::Blackman => "BlackmanWindow",
        }
    }
}

/// numpy's float `//`: the floor of `a / b` computed from `fmod` (exact at
/// bin edges).
pub fn floor_div(a: f64, b: f64) -> f64 {
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0_f64.copysign(a / b);
    }
    let fl = div.floor();
    if div - fl > 0.5 {
        fl + 1.0
    } else {
        fl
    }
}

/// The mel scale's `(low, step)` for `count` band edges between hertz bounds
/// `lo` and `hi`: computed in f64 if `wide` (f64 operands), else in f32 as
/// numpy does for f32 operands.
pub fn mel_bounds(lo: f64, hi: f64, count: usize, wide: bool) -> (f64, f64) {
    if wide {
        let mel = |f: f64| 2595.0 * (1.0 + f / 700.0).log10();
        (mel(lo), (mel(hi) - mel(lo)) / count as f64)
    } else {
        let mel = |f: f32| 2595.0 * (1.0 + f / 700.0).log10();
        let (l, h) = (mel(lo as f32), mel(hi as f32));
        (l as f64, ((h - l) / count as f32) as f64)
    }
}

/// Band edge `i` as a (possibly non-finite) spectrogram bin, from
/// [`mel_bounds`]' `(low, step)`.
pub fn mel_edge(i: usize, (low, step): (f64, f64), dft_length: i64, sample_rate: i64) -> f64 {
    let hz = 700.0 * (10f64.powf((i as f64 * step + low) / 2595.0) - 1.0);
    floor_div((dft_length + 1) as f64 * hz, sample_rate as f64)
}

/// The triangular filter of mel band `i` (edges `l ≤ c ≤ h`): calls
/// `set(bin, weight)` for every bin the band touches, in order.
pub fn mel_band<E>((l, c, h): (i64, i64, i64), mut set: impl FnMut(i64, f64) -> Result<(), E>) -> Result<(), E> {
    if c == l {
        set(c, 1.0)?;
    } else {
        for j in l..=c {
            set(j, (j as f64 - l as f64) / (c as f64 - l as f64))?;
        }
    }
    for j in c..h {
        set(j, (h as f64 - j as f64) / (h as f64 - c as f64))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_floor_division() {
        assert_eq!(floor_div(7.0, 2.0), 3.0);
        assert_eq!(floor_div(-7.0, 2.0), -4.0);
        assert!(floor_div(0.0, -2.0).is_sign_negative());
        assert!(Window::Hann.value(0.0, 4.0).abs() < 1e-12);
    }
}
