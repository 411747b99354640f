//! NonMaxSuppression: greedy per-(batch, class) box selection by score with
//! IoU suppression, in f32 like the reference interpreter.
//!
//! Invariants: boxes of one (batch, class) are visited by decreasing score,
//! equal scores by increasing box index (a strict total order for NaN-free
//! scores, so the result does not depend on the sort algorithm); with a
//! score threshold only boxes scoring strictly above it are candidates; a
//! candidate is kept unless its IoU with an already kept box of the class
//! exceeds the IoU threshold, until `max_output_boxes_per_class` are kept.
//! The number of selected rows depends on the data: [`nms`] writes them
//! into a caller-provided `i64` scratch of [`nms_rows_len`] entries and
//! returns their count, which sizes the result the caller copies them to.
//! Candidate and kept lists live in a caller-provided `usize` scratch;
//! nothing is allocated.

use edgec_numeric::boxes::suppresses;
use std::cmp::Ordering;

/// The static parameters of a NonMaxSuppression.
#[derive(Copy, Clone, Debug)]
pub struct Nms {
    /// Batches.
    pub batches: usize,
    /// Score classes.
    pub classes: usize,
    /// Boxes per batch.
    pub boxes: usize,
    /// Boxes are `[x_center, y_center, width, height]` (else two corners `[y1, x1, y2, x2]`).
    pub center_point_box: bool,
}

/// The run-time thresholds (from the optional operands).
#[derive(Copy, Clone, Debug)]
pub struct NmsLimits {
    /// Boxes kept per (batch, class) at most (negative: none).
    pub max_per_class: i64,
    /// Suppress when the IoU exceeds this.
    pub iou: f32,
    /// Candidates must score strictly above this.
    pub score: Option<f32>,
}

/// `usize`s of scratch [`nms`] needs.
pub fn nms_scratch_len(p: &Nms) -> usize {
    2 * p.boxes
}

/// `i64`s of row scratch [`nms`] needs: 3 per row it can select (at most
/// `max_per_class` boxes of each batch and class).
pub fn nms_rows_len(p: &Nms, lim: &NmsLimits) -> usize {
    let per_class = p.boxes.min(lim.max_per_class.max(0) as usize);
    3 * p.batches * p.classes * per_class
}

/// `NonMaxSuppression`: `boxes [batches, boxes, 4]`, `scores [batches,
/// classes, boxes]`; writes the selected rows `(batch, class, box)` to the
/// start of `y` (at least [`nms_rows_len`] entries) and returns how many
/// there are (the result is `[selected, 3]`).
pub fn nms(p: &Nms, lim: &NmsLimits, boxes: &[f32], scores: &[f32], scratch: &mut [usize], y: &mut [i64]) -> usize {
    let n = p.boxes;
    assert_eq!(boxes.len(), p.batches * n * 4, "NonMaxSuppression: boxes hold {} values", boxes.len());
    assert_eq!(scores.len(), p.batches * p.classes * n, "NonMaxSuppression: scores hold {} values", scores.len());
    assert!(y.len() >= nms_rows_len(p, lim), "NonMaxSuppression: row scratch too small");
    assert!(scratch.len() >= nms_scratch_len(p), "NonMaxSuppression: scratch too small");
    let max_out = lim.max_per_class.max(0) as usize;
    let (cand, kept) = scratch.split_at_mut(n);
    let mut selected = 0usize;
    for b in 0..p.batches {
        let bx = |i: usize| &boxes[(b * n + i) * 4..(b * n + i) * 4 + 4];
        for c in 0..p.classes {
            let sc = &scores[(b * p.classes + c) * n..(b * p.classes + c + 1) * n];
            let mut m = 0;
            for i in (0..n).filter(|&i| lim.score.is_none_or(|t| sc[i] > t)) {
                cand[m] = i;
                m += 1;
            }
            cand[..m].sort_unstable_by(|&x, &y| sc[y].partial_cmp(&sc[x]).unwrap_or(Ordering::Equal).then(x.cmp(&y)));
            let mut k = 0;
            for &i in &cand[..m] {
                if k >= max_out {
                    break;
                }
                if !kept[..k].iter().any(|&j| suppresses(bx(i), bx(j), p.center_point_box, lim.iou)) {
                    kept[k] = i;
                    k += 1;
                    y[selected * 3..selected * 3 + 3].copy_from_slice(&[b as i64, c as i64, i as i64]);
                    selected += 1;
                }
            }
        }
    }
    selected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suppresses_overlapping_boxes() {
        let p = Nms { batches: 1, classes: 1, boxes: 3, center_point_box: false };
        let boxes = [0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, 10.0, 1.0, 11.0];
        let scores = [0.9, 0.95, 0.5];
        let lim = NmsLimits { max_per_class: 3, iou: 0.5, score: None };
        let mut s = [0usize; 6];
        let mut y = [0i64; 9];
        assert_eq!(nms_rows_len(&p, &lim), 9);
        assert_eq!(nms(&p, &lim, &boxes, &scores, &mut s, &mut y), 2);
        assert_eq!(y[..6], [0, 0, 1, 0, 0, 2]);
    }
}
