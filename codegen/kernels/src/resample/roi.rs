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
use edgec_numeric::sample::{roi_bin, RoiBin};

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
    let shape = RoiBin {
        hw: (p.h, p.w),
        out_h: p.out_h,
        out_w: p.out_w,
        sampling: p.sampling,
        scale: p.scale as f64,
        half_pixel: p.half_pixel,
        max: p.max,
    };
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
                    out[py * p.out_w + px] = roi_bin(&shape, roi, (py, px), |i| plane[i] as f64) as f32;
                }
            }
        }
    }
    Ok(())
}
