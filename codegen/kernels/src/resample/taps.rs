//! Per-axis interpolation taps of Resize, computed once when a plan is built
//! (in f64, by the numeric core's formulas, which the interpreter shares).

use super::{ResizeAxis, ResizeParams};
use edgec_numeric::resize::{source_coord, Axis, Filter};

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

/// The taps of every output position of one axis of input size `in_w`.
pub(super) fn axis_taps(p: &ResizeParams, ax: &ResizeAxis, in_w: usize) -> AxisTaps {
    assert!(in_w > 0 || ax.out == 0, "resize: cannot resize the empty axis {} to {}", ax.axis, ax.out);
    let filter = Filter {
        mode: p.mode,
        nearest: p.nearest,
        cubic_a: p.cubic_a as f64,
        antialias: p.antialias,
        exclude_outside: p.exclude_outside,
    };
    let axis = Axis { input: in_w, out: ax.out, scale: ax.scale, roi: ax.roi };
    // The reference rounds the roi-only arithmetic to roi's precision.
    let rd = |v: f64| if p.roi_f32 { v as f32 as f64 } else { v };
    let mut t = AxisTaps { axis: ax.axis, out: ax.out, ntaps: 0, idx: vec![], w: vec![], ext: vec![], pick: vec![] };
    for y in 0..ax.out {
        let (x, extrapolated) = source_coord(p.coord, &axis, y as f64, rd);
        let (start, c) = filter.taps(x, ax.scale, in_w);
        let n = c.len() as i64;
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
