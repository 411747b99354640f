//! Box geometry of NonMaxSuppression, in f32 like the ONNX reference.

/// A box as `(x_min, y_min, x_max, y_max)`: `[x_center, y_center, width,
/// height]` if `center`, else `[y1, x1, y2, x2]` with either corner order.
#[inline]
pub fn corners(b: &[f32], center: bool) -> (f32, f32, f32, f32) {
    if center {
        let (hw, hh) = (b[2] / 2.0, b[3] / 2.0);
        (b[0] - hw, b[1] - hh, b[0] + hw, b[1] + hh)
    } else {
        (b[1].min(b[3]), b[0].min(b[2]), b[1].max(b[3]), b[0].max(b[2]))
    }
}

/// True if the IoU of boxes `a` and `b` exceeds `threshold` (false for
/// disjoint or degenerate boxes).
#[inline]
pub fn suppresses(a: &[f32], b: &[f32], center: bool, threshold: f32) -> bool {
    let (ax0, ay0, ax1, ay1) = corners(a, center);
    let (bx0, by0, bx1, by1) = corners(b, center);
    let (ix0, ix1) = (ax0.max(bx0), ax1.min(bx1));
    let (iy0, iy1) = (ay0.max(by0), ay1.min(by1));
    if ix1 <= ix0 || iy1 <= iy0 {
        return false;
    }
    let inter = (ix1 - ix0) * (iy1 - iy0);
    let area_a = (ax1 - ax0) * (ay1 - ay0);
    let area_b = (bx1 - bx0) * (by1 - by0);
    let union = area_a + area_b - inter;
    if inter <= 0.0 || area_a <= 0.0 || area_b <= 0.0 || union <= 0.0 {
        return false;
    }
    inter / union > threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iou_of_half_overlapping_boxes() {
        let (a, b) = ([0.0, 0.0, 1.0, 2.0], [0.0, 1.0, 1.0, 3.0]);
        assert!(suppresses(&a, &b, false, 0.3));
        assert!(!suppresses(&a, &b, false, 0.34));
        assert_eq!(corners(&[1.0, 1.0, 2.0, 4.0], true), (0.0, -1.0, 2.0, 3.0));
    }
}
