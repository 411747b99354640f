//! RoiAlign: average or max of bilinear samples per output bin of each
//! region of interest, in f64 like the reference interpreter (rounded once
//! to f32).
//!
//! Invariants: ROIs are `[x1, y1, x2, y2]` scaled by `spatial_scale` (and
//! shifted by half a pixel in `half_pixel` mode, where sizes are not
//! clamped to 1); each bin takes `sampling_ratio²` samples (or
//! `ceil(roi size / output size)` per axis when it is 0); a sample more than
//! one pixel outside the map contributes 0; max mode takes the maximum of
//! the weighted corner values, as the ONNX reference does. A batch index
//! outside `[0, N)` is an [`Error`].

use crate::rt::Error;

/// The static parameters of a RoiAlign.
#[derive(Copy, Clone, Debug)]
pub struct RoiAlign {
    /// Batch of the feature map.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Feature map height.
    pub h: usize,
    /// Feature map width.
    pub w: usize,
    /// ROIs.
    pub rois: usize,
    /// Output bins per ROI, vertically.
    pub out_h: usize,
    /// Output bins per ROI, horizontally.
    pub out_w: usize,
    /// Samples per bin and axis (0: adaptive).
    pub sampling: usize,
    /// `spatial_scale`.
    pub scale: f32,
    /// `coordinate_transformation_mode` is `half_pixel`.
    pub half_pixel: bool,
    /// `mode` is `max`.
    pub max: bool,
}

/// The four bilinear corners `(flat index, weight)` of `(y, x)`, or none if
/// the point lies more than one pixel outside the `h × w` map.
fn corners(y: f64, x: f64, h: usize, w: usize) -> Option<[(usize, f64); 4]> {
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

/// One output bin `(py, px)` of one ROI over channel plane `plane`.
fn bin(p: &RoiAlign, plane: &[f32], roi: [f64; 4], py: usize, px: usize) -> f64 {
    let off = if p.half_pixel { 0.5 } else { 0.0 };
    let scale = p.scale as f64;
    let [x1, y1, x2, y2] = roi.map(|v| v * scale - off);
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
            let c = corners(y, x, p.h, p.w).unwrap_or([(0, 0.0); 4]);
            if p.max {
                let v = c.iter().map(|&(i, w)| w * plane[i] as f64).fold(f64::NEG_INFINITY, max_plus_zero);
                acc = if first { v } else { max_plus_zero(acc, v) };
                first = false;
            } else {
                acc += c.iter().map(|&(i, w)| w * plane[i] as f64).sum::<f64>();
            }
        }
    }
    if p.max {
        acc
    } else {
        acc / count
    }
}

/// `RoiAlign`: `x [n, c, h, w]`, `rois [rois, 4]`, `batch [rois]` (i64 or
/// i32) into `y [rois, c, out_h, out_w]`.
pub fn roi_align<I: Copy + Into<i64>>(
    p: &RoiAlign,
    x: &[f32],
    rois: &[f32],
    batch: &[I],
    y: &mut [f32],
) -> Result<(), Error> {
    let (hw, bins) = (p.h * p.w, p.out_h * p.out_w);
    assert!(p.h > 0 && p.w > 0, "RoiAlign: empty feature map");
    assert_eq!(x.len(), p.n * p.c * hw, "RoiAlign: x holds {} values", x.len());
    assert!(rois.len() == p.rois * 4 && batch.len() == p.rois, "RoiAlign: rois/batch_indices do not match");
    assert_eq!(y.len(), p.rois * p.c * bins, "RoiAlign: y holds {} values", y.len());
    for r in 0..p.rois {
        let b: i64 = batch[r].into();
        let b = usize::try_from(b)
            .ok()
            .filter(|&b| b < p.n)
            .ok_or_else(|| Error(format!("RoiAlign: batch index {b} is out of range [0, {})", p.n)))?;
        let roi = [0, 1, 2, 3].map(|k| rois[r * 4 + k] as f64);
        for ch in 0..p.c {
            let plane = &x[(b * p.c + ch) * hw..(b * p.c + ch + 1) * hw];
            let out = &mut y[(r * p.c + ch) * bins..(r * p.c + ch + 1) * bins];
            for py in 0..p.out_h {
                for px in 0..p.out_w {
                    out[py * p.out_w + px] = bin(p, plane, roi, py, px) as f32;
                }
            }
        }
    }
    Ok(())
}

/// `max(a, b)` with +0.0 above -0.0 (`f64::max` may return either zero, so
/// the interpreter and the kernels could differ in the sign of a zero bin).
/// Keep in step with its twin in the interpreter (`ir/src/interp/nn/sample.rs`).
fn max_plus_zero(a: f64, b: f64) -> f64 {
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
