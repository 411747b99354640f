//! Sampling formulas of GridSample, RoiAlign and AffineGrid, in f64 like the ONNX
//! reference implementations (`op_grid_sample.py`, `op_roi_align.py`).

/// How GridSample interpolates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GridMode {
    /// The nearest pixel (ties to even).
    Nearest,
    /// (Bi/tri)linear over 2 taps per axis.
    Linear,
    /// Cubic (a = -0.75) over 4 taps per axis.
    Cubic,
}

/// What GridSample reads outside the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GridPadding {
    /// Zeros.
    Zeros,
    /// The nearest border pixel.
    Border,
    /// The input mirrored at the borders.
    Reflection,
}

/// Reflect `x` into `[lo, hi]` by the nearer border until it lies inside
/// (`lo` for an empty range).
#[inline]
pub fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let span = hi - lo;
    if span <= 0.0 {
        return lo;
    }
    let (dx, from_lo) = if x < lo {
        (lo - x, true)
    } else if x > hi {
        (x - hi, false)
    } else {
        return x;
    };
    let n = (dx / span).trunc();
    let rest = dx - n * span;
    if (n as i64 % 2 == 0) == from_lo {
        lo + rest
    } else {
        hi - rest
    }
}

/// The valid coordinate range of an axis of size `d`.
#[inline]
pub fn grid_border(d: usize, align_corners: bool) -> (f64, f64) {
    let d = d as f64;
    if align_corners {
        (0.0, d - 1.0)
    } else {
        (-0.5, d - 0.5)
    }
}

/// The unnormalized, padded coordinate of normalized grid value `v` on an
/// axis of size `d`, rounded to f32 precision like the reference (again
/// after padding moved it), and to the nearest integer in nearest mode.
#[inline]
pub fn grid_coord(v: f64, d: usize, align_corners: bool, mode: GridMode, padding: GridPadding) -> f64 {
    let df = d as f64;
    let v = if align_corners { (v + 1.0) / 2.0 * (df - 1.0) } else { ((v + 1.0) * df - 1.0) / 2.0 };
    let mut x = v as f32 as f64;
    if mode == GridMode::Nearest {
        x = x.round_ties_even();
    }
    let (lo, hi) = grid_border(d, align_corners);
    if x < lo || x > hi {
        x = match padding {
            GridPadding::Border => x.clamp(0.0, df - 1.0),
            GridPadding::Reflection => reflect(x, lo, hi),
            GridPadding::Zeros => x,
        } as f32 as f64;
    }
    x
}

/// The input index integer position `p` reads on an axis of size `d`
/// (`None`: a zero of zero padding).
#[inline]
pub fn grid_index(p: i64, d: usize, align_corners: bool, padding: GridPadding) -> Option<usize> {
    let di = d as i64;
    match padding {
        GridPadding::Zeros => (0..di).contains(&p).then_some(p as usize),
        GridPadding::Border => Some(p.clamp(0, di - 1) as usize),
        GridPadding::Reflection => {
            let (lo, hi) = grid_border(d, align_corners);
            Some((reflect(p as f64, lo, hi) as i64).clamp(0, di - 1) as usize)
        }
    }
}

/// The tap weights of fraction `t` (the first 2 for linear, 4 for cubic).
#[inline]
pub fn grid_weights(mode: GridMode, t: f64) -> [f64; 4] {
    if mode != GridMode::Cubic {
        return [1.0 - t, t, 0.0, 0.0];
    }
    let a = -0.75;
    let (t1, s, s1) = (t + 1.0, 1.0 - t, 2.0 - t);
    [
        ((a * t1 - 5.0 * a) * t1 + 8.0 * a) * t1 - 4.0 * a,
        ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a * s1 - 5.0 * a) * s1 + 8.0 * a) * s1 - 4.0 * a,
    ]
}

/// The four bilinear corners `(flat index, weight)` of `(y, x)` on an
/// `h × w` map, or none if the point lies more than one pixel outside it.
#[inline]
pub fn roi_corners(y: f64, x: f64, h: usize, w: usize) -> Option<[(usize, f64); 4]> {
    if y < -1.0 || y > h as f64 || x < -1.0 || x > w as f64 {
        return None;
    }
    let (mut y, mut x) = (y.max(0.0), x.max(0.0));
    let (mut yl, mut xl) = (y as usize, x as usize);
    let (yh, xh);
    if yl >= h - 1 {
        (yl, yh, y) = (h - 1, h - 1, (h - 1) as f64);
    } else {
        yh = yl + 1;
    }
    if xl >= w - 1 {
        (xl, xh, x) = (w - 1, w - 1, (w - 1) as f64);
    } else {
        xh = xl + 1;
    }
    let (ly, lx) = (y - yl as f64, x - xl as f64);
    let (hy, hx) = (1.0 - ly, 1.0 - lx);
    Some([(yl * w + xl, hy * hx), (yl * w + xh, hy * lx), (yh * w + xl, ly * hx), (yh * w + xh, ly * lx)])
}

/// The settings of one RoiAlign bin computation.
#[derive(Copy, Clone, Debug)]
pub struct RoiBin {
    /// Feature map `(height, width)`, both positive.
    pub hw: (usize, usize),
    /// Output bins per ROI, vertically.
    pub out_h: usize,
    /// Output bins per ROI, horizontally.
    pub out_w: usize,
    /// Samples per bin and axis (0: `ceil(roi extent / bins)`).
    pub sampling: usize,
    /// `spatial_scale`.
    pub scale: f64,
    /// `coordinate_transformation_mode` is `half_pixel` (else sizes are
    /// clamped to at least 1).
    pub half_pixel: bool,
    /// `mode` is `max` (the maximum of the weighted corner values, as the
    /// reference and onnxruntime), else the average.
    pub max: bool,
}

/// Output bin `(py, px)` of the ROI `[x1, y1, x2, y2]` over the plane whose
/// flat element `i` is `at(i)`.
pub fn roi_bin(p: &RoiBin, roi: [f64; 4], (py, px): (usize, usize), at: impl Fn(usize) -> f64) -> f64 {
    let off = if p.half_pixel { 0.5 } else { 0.0 };
    let [x1, y1, x2, y2] = roi.map(|v| v * p.scale - off);
    let (mut rw, mut rh) = (x2 - x1, y2 - y1);
    if !p.half_pixel {
        (rw, rh) = (rw.max(1.0), rh.max(1.0));
    }
    let (bh, bw) = (rh / p.out_h as f64, rw / p.out_w as f64);
    let grid = |extent: f64, n: usize| if p.sampling > 0 { p.sampling } else { (extent / n as f64).ceil() as usize };
    let (gh, gw) = (grid(rh, p.out_h), grid(rw, p.out_w));
    let count = (gh * gw).max(1) as f64;
    let (mut acc, mut first) = (0.0, true);
    for iy in 0..gh {
        let y = y1 + py as f64 * bh + (iy as f64 + 0.5) * bh / gh as f64;
        for ix in 0..gw {
            let x = x1 + px as f64 * bw + (ix as f64 + 0.5) * bw / gw as f64;
            let c = roi_corners(y, x, p.hw.0, p.hw.1).unwrap_or([(0, 0.0); 4]);
            if p.max {
                let v = c.iter().map(|&(i, w)| w * at(i)).fold(f64::NEG_INFINITY, max_plus_zero);
                acc = if first { v } else { max_plus_zero(acc, v) };
                first = false;
            } else {
                acc += c.iter().map(|&(i, w)| w * at(i)).sum::<f64>();
            }
        }
    }
    if p.max {
        acc
    } else {
        acc / count
    }
}

/// `max(a, b)` with +0.0 above -0.0 (`f64::max` may return either zero).
#[inline]
pub fn max_plus_zero(a: f64, b: f64) -> f64 {
    if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a.max(b)
    }
}

/// AffineGrid's normalized coordinate of index `i` of an axis of `n`: pixel
/// centers spaced evenly in `[-1, 1]` (`align_corners`: the first and last
/// are ±1; a single position is -1) or in `(-1, 1)` (the outer pixel edges
/// are ±1).
pub fn affine_base(i: usize, n: usize, align_corners: bool) -> f64 {
    if align_corners {
        let step = if n > 1 { 2.0 / (n - 1) as f64 } else { 0.0 };
        -1.0 + i as f64 * step
    } else {
        let step = 2.0 / n as f64;
        -1.0 + step / 2.0 + i as f64 * step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflection_and_zero_signs() {
        assert_eq!(reflect(-1.5, -0.5, 2.5), 0.5);
        assert_eq!(reflect(3.0, -0.5, 2.5), 2.0);
        assert!(max_plus_zero(-0.0, 0.0).is_sign_positive());
        assert!(max_plus_zero(0.0, -0.0).is_sign_positive());
        assert_eq!(grid_index(-1, 3, true, GridPadding::Zeros), None);
        assert_eq!(grid_index(-1, 3, true, GridPadding::Reflection), Some(1));
    }
}
