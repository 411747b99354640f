//! Per-axis interpolation taps of Resize, computed once when a plan is built
//! (in f64, with the exact arithmetic of edgec's interpreter and the ONNX
//! reference `op_resize.py`).

use super::{CoordMode, NearestMode, ResizeAxis, ResizeMode, ResizeParams};

/// What a nearest-mode output coordinate reads along one axis.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Pick {
    /// This input index.
    Index(usize),
    /// `extrapolation_value` (outside a `tf_crop_and_resize` box).
    Extrapolate,
    /// 0 (its only tap was excluded by `exclude_outside`).
    Zero,
}

/// The taps of one resized axis: output position `j` reads input indices
/// `idx[j * ntaps..][..ntaps]` (clamped) with weights `w[..]`, unless
/// `ext[j]`; `pick[j]` is the same for nearest mode.
#[derive(Clone, Debug)]
pub(super) struct AxisTaps {
    pub axis: usize,
    pub out: usize,
    pub ntaps: usize,
    pub idx: Vec<usize>,
    pub w: Vec<f32>,
    pub ext: Vec<bool>,
    pub pick: Vec<Pick>,
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

fn normalized(c: Vec<f64>) -> Vec<f64> {
    let sum: f64 = c.iter().sum();
    c.into_iter().map(|x| x / sum).collect()
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

fn coeffs(p: &ResizeParams, ratio: f64, scale: f64) -> Vec<f64> {
    let a = p.cubic_a as f64;
    match (p.mode, p.antialias) {
        (ResizeMode::Nearest, _) => nearest_coeffs(ratio, p.nearest),
        (ResizeMode::Linear, false) => vec![1.0 - ratio, ratio],
        (ResizeMode::Linear, true) => linear_coeffs_antialias(ratio, scale),
        (ResizeMode::Cubic, false) => cubic_coeffs(ratio, a),
        (ResizeMode::Cubic, true) => cubic_coeffs_antialias(ratio, scale, a),
    }
}

/// Source coordinate of output position `y`, and whether it is extrapolated.
fn source_coord(p: &ResizeParams, ax: &ResizeAxis, in_w: usize, y: f64) -> (f64, bool) {
    let (inw, s, out_w) = (in_w as f64, ax.scale, ax.scale * in_w as f64);
    match p.coord {
        CoordMode::AlignCorners if out_w == 1.0 => (0.0, false),
        CoordMode::AlignCorners => (y * (inw - 1.0) / (out_w - 1.0), false),
        CoordMode::Asymmetric => (y / s, false),
        CoordMode::TfCropAndResize => {
            let (r0, r1) = ax.roi.unwrap_or((0.0, 1.0));
            // The reference rounds the roi-only arithmetic to roi's precision.
            let rd = |v: f64| if p.roi_f32 { v as f32 as f64 } else { v };
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

/// The taps of every output position of one axis of input size `in_w`.
pub(super) fn axis_taps(p: &ResizeParams, ax: &ResizeAxis, in_w: usize) -> AxisTaps {
    assert!(in_w > 0 || ax.out == 0, "resize: cannot resize the empty axis {} to {}", ax.axis, ax.out);
    let mut t = AxisTaps { axis: ax.axis, out: ax.out, ntaps: 0, idx: vec![], w: vec![], ext: vec![], pick: vec![] };
    for y in 0..ax.out {
        let (x, extrapolated) = source_coord(p, ax, in_w, y as f64);
        let ratio = if x == x.floor() { 1.0 } else { x - x.floor() };
        let mut c = coeffs(p, ratio, ax.scale);
        let n = c.len() as i64;
        let start = first_tap(x, n);
        if p.exclude_outside {
            let inside = |k: usize| (0..in_w as i64).contains(&(start + k as i64));
            c.iter_mut().enumerate().filter(|&(k, _)| !inside(k)).for_each(|(_, c)| *c = 0.0);
            let sum: f64 = c.iter().sum();
            let sum = if sum == 0.0 { 1.0 } else { sum };
            c.iter_mut().for_each(|c| *c /= sum);
        }
        assert!(t.ntaps == 0 || t.ntaps == c.len(), "resize: tap count changed along an axis");
        t.ntaps = c.len();
        let idx = (start..start + n).map(|i| i.clamp(0, in_w as i64 - 1) as usize);
        let first = idx.clone().zip(&c).find(|&(_, &w)| w != 0.0).map(|(i, _)| i);
        t.pick.push(match (extrapolated, first) {
            (true, _) => Pick::Extrapolate,
            (false, Some(i)) => Pick::Index(i),
            (false, None) => Pick::Zero,
        });
        t.idx.extend(idx);
        t.w.extend(c.iter().map(|&c| c as f32));
        t.ext.push(extrapolated);
    }
    t
}
