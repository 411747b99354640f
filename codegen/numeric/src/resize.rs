//! Resize taps: the source coordinate and the filter weights of one output
//! position along one axis, in f64 with the exact arithmetic of the ONNX
//! reference `op_resize.py`. The interpreter, the kernel plan and the rule
//! that lowers integer-scale resizes to convolutions all call these, so a
//! lowered resize reads the same taps as the interpreter.

/// Interpolation mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResizeMode {
    /// Nearest neighbour (see [`NearestMode`]).
    Nearest,
    /// Linear (bilinear, trilinear...).
    Linear,
    /// Cubic convolution with coefficient `cubic_a`.
    Cubic,
}

/// Rounding of the source coordinate in nearest mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NearestMode {
    /// Round, halves down (ONNX default).
    RoundPreferFloor,
    /// Round, halves up.
    RoundPreferCeil,
    /// Round down.
    Floor,
    /// Round up.
    Ceil,
}

/// ONNX `coordinate_transformation_mode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CoordMode {
    /// `(y + 0.5) / scale - 0.5` (ONNX default).
    HalfPixel,
    /// Half pixel, centred for non-integer output sizes.
    HalfPixelSymmetric,
    /// Half pixel, except that an output of size 1 samples coordinate -0.5.
    PytorchHalfPixel,
    /// `y * (in - 1) / (out - 1)`.
    AlignCorners,
    /// `y / scale`.
    Asymmetric,
    /// Sample the region of interest; outside the input gives `extrapolation`.
    TfCropAndResize,
}

/// The filter of a resize: everything that shapes the weights of a tap.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Filter {
    /// Interpolation mode.
    pub mode: ResizeMode,
    /// Rounding in nearest mode.
    pub nearest: NearestMode,
    /// Cubic coefficient `A`.
    pub cubic_a: f64,
    /// Widen linear/cubic filters by `1 / scale` when downsampling.
    pub antialias: bool,
    /// Zero the weights of taps outside the input and renormalize.
    pub exclude_outside: bool,
}

/// One axis as the coordinate transformation sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Axis {
    /// Input size.
    pub input: usize,
    /// Output size.
    pub out: usize,
    /// Scale factor.
    pub scale: f64,
    /// `(start, end)` of the region of interest (`tf_crop_and_resize`; the
    /// whole axis if none).
    pub roi: Option<(f64, f64)>,
}

fn normalized(c: Vec<f64>) -> Vec<f64> {
    let sum: f64 = c.iter().sum();
    c.into_iter().map(|x| x / sum).collect()
}

fn nearest_coeffs(ratio: f64, mode: NearestMode) -> Vec<f64> {
    let b = |c: bool| c as u8 as f64;
    match mode {
        _ if ratio.fract() == 0.0 => vec![0.0, 1.0],
        NearestMode::RoundPreferFloor => vec![b(ratio <= 0.5), b(ratio > 0.5)],
        NearestMode::RoundPreferCeil => vec![b(ratio < 0.5), b(ratio >= 0.5)],
        NearestMode::Floor => vec![1.0, 0.0],
        NearestMode::Ceil => vec![0.0, 1.0],
    }
}

fn cubic_coeffs(r: f64, a: f64) -> Vec<f64> {
    let (r1, s) = (r + 1.0, 1.0 - r);
    let s1 = s + 1.0;
    vec![
        ((a * r1 - 5.0 * a) * r1 + 8.0 * a) * r1 - 4.0 * a,
        ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a * s1 - 5.0 * a) * s1 + 8.0 * a) * s1 - 4.0 * a,
    ]
}

/// Cubic weights widened by `1 / scale` when downsampling (antialias).
fn cubic_coeffs_antialias(r: f64, scale: f64, a: f64) -> Vec<f64> {
    let scale = scale.min(1.0);
    let k = |x: f64| {
        let x = x.abs();
        let (x2, x3) = (x * x, x * x * x);
        if x <= 1.0 {
            (a + 2.0) * x3 - (a + 3.0) * x2 + 1.0
        } else if x < 2.0 {
            a * x3 - 5.0 * a * x2 + 8.0 * a * x - 4.0 * a
        } else {
            0.0
        }
    };
    let start = ((-2.0 / scale).floor() + 1.0) as i64;
    normalized((start..2 - start).map(|i| k(scale * (i as f64 - r))).collect())
}

/// Triangle weights widened by `1 / scale` when downsampling (antialias).
fn linear_coeffs_antialias(r: f64, scale: f64) -> Vec<f64> {
    let scale = scale.min(1.0);
    let start = ((-1.0 / scale).floor() + 1.0) as i64;
    let footprint = 2 - 2 * start;
    normalized((start..start + footprint).map(|i| (1.0 - ((i as f64 - r) * scale).abs()).clamp(0.0, 1.0)).collect())
}

/// First input index of the taps of a source coordinate `x` with `n` taps.
fn first_tap(x: f64, n: i64) -> i64 {
    let pad = (n + 1) / 2;
    let xp = x + pad as f64;
    let (pp, frac) = (xp.floor(), xp - xp.floor());
    let offset = if n % 2 == 0 {
        if frac == 0.0 {
            -(n / 2)
        } else {
            -(n / 2) + 1
        }
    } else if frac <= 0.5 {
        -((n - 1) / 2)
    } else {
        -((n - 1) / 2) + 1
    };
    pp as i64 + offset - pad
}

impl Filter {
    /// The filter coefficients at fractional position `ratio` for `scale`.
    pub fn coeffs(&self, ratio: f64, scale: f64) -> Vec<f64> {
        match (self.mode, self.antialias) {
            (ResizeMode::Nearest, _) => nearest_coeffs(ratio, self.nearest),
            (ResizeMode::Linear, false) => vec![1.0 - ratio, ratio],
            (ResizeMode::Linear, true) => linear_coeffs_antialias(ratio, scale),
            (ResizeMode::Cubic, false) => cubic_coeffs(ratio, self.cubic_a),
            (ResizeMode::Cubic, true) => cubic_coeffs_antialias(ratio, scale, self.cubic_a),
        }
    }

    /// The taps of source coordinate `x` on an axis of `in_w` inputs scaled by
    /// `scale`: the first (unclamped) input index and one weight per tap
    /// (taps outside the input zeroed and the rest renormalized with
    /// `exclude_outside`). Clamp indices into `[0, in_w)` to read.
    pub fn taps(&self, x: f64, scale: f64, in_w: usize) -> (i64, Vec<f64>) {
        let ratio = if x == x.floor() { 1.0 } else { x - x.floor() };
        let mut c = self.coeffs(ratio, scale);
        let n = c.len() as i64;
        let start = first_tap(x, n);
        if self.exclude_outside {
            let inside = |i: i64| (0..in_w as i64).contains(&i);
            (start..start + n).zip(c.iter_mut()).filter(|(i, _)| !inside(*i)).for_each(|(_, w)| *w = 0.0);
            let sum: f64 = c.iter().sum();
            let sum = if sum == 0.0 { 1.0 } else { sum };
            c.iter_mut().for_each(|w| *w /= sum);
        }
        (start, c)
    }
}

/// Source coordinate of output position `y` and whether it is extrapolated
/// (outside the input in `tf_crop_and_resize`). `rd` rounds the roi-only
/// arithmetic to the roi's precision, as the reference does.
pub fn source_coord(coord: CoordMode, ax: &Axis, y: f64, rd: impl Fn(f64) -> f64) -> (f64, bool) {
    let (inw, s, out_w) = (ax.input as f64, ax.scale, ax.scale * ax.input as f64);
    match coord {
        CoordMode::AlignCorners if out_w == 1.0 => (0.0, false),
        CoordMode::AlignCorners => (y * (inw - 1.0) / (out_w - 1.0), false),
        CoordMode::Asymmetric => (y / s, false),
        CoordMode::TfCropAndResize => {
            let (r0, r1) = ax.roi.unwrap_or((0.0, 1.0));
            let diff = rd(r1 - r0);
            let x =
                if out_w == 1.0 { rd(rd(diff * (inw - 1.0)) / 2.0) } else { y * diff * (inw - 1.0) / (out_w - 1.0) };
            let x = x + rd(r0 * (inw - 1.0));
            (x, x < 0.0 || x > inw - 1.0)
        }
        CoordMode::PytorchHalfPixel if out_w == 1.0 => (-0.5, false),
        CoordMode::PytorchHalfPixel | CoordMode::HalfPixel => ((y + 0.5) / s - 0.5, false),
        CoordMode::HalfPixelSymmetric => {
            let adjustment = ax.out as f64 / out_w;
            let offset = inw / 2.0 * (1.0 - adjustment);
            (offset + (y + 0.5) / s - 0.5, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_half_pixel_upsample_by_two() {
        let f = Filter {
            mode: ResizeMode::Linear,
            nearest: NearestMode::Floor,
            cubic_a: -0.75,
            antialias: false,
            exclude_outside: false,
        };
        let ax = Axis { input: 4, out: 8, scale: 2.0, roi: None };
        let (x, ext) = source_coord(CoordMode::HalfPixel, &ax, 1.0, |v| v);
        assert_eq!((x, ext), (0.25, false));
        assert_eq!(f.taps(x, 2.0, 4), (0, vec![0.75, 0.25]));
    }
}
