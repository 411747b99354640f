//! NonMaxSuppression: greedy per-(batch, class) box selection by score with
//! IoU suppression, computed in f32 like the ONNX reference.

use crate::interp::{Data, EvalCtx, Tensor};
use edgec_numeric::boxes::suppresses;

type Out = Result<Vec<Tensor>, String>;

/// The f32 contents of a float operand.
fn floats(t: &Tensor, name: &str) -> Result<Vec<f32>, String> {
    match &t.data {
        Data::F32(v) => Ok(v.clone()),
        _ => Err(format!("`{name}` has element type {}, expected f32", t.dtype())),
    }
}

/// `onnx.NonMaxSuppression`: `[num_selected, 3]` i64 rows of (batch, class, box).
/// Boxes are visited by decreasing score (ties: lower index first); a box is kept
/// unless its IoU with an already kept box of the class exceeds `iou_threshold`;
/// with `score_threshold`, only boxes scoring strictly above it are considered.
pub fn non_max_suppression(ctx: &EvalCtx<'_>) -> Out {
    let (boxes_t, scores_t) = (ctx.input(0)?, ctx.input(1)?);
    let (boxes, scores) = (floats(boxes_t, "boxes")?, floats(scores_t, "scores")?);
    let [batches, n, 4] = boxes_t.shape[..] else {
        return Err(format!("`boxes` must be [batches, boxes, 4], found {:?}", boxes_t.shape));
    };
    let [sb, classes, sn] = scores_t.shape[..] else {
        return Err(format!("`scores` must be [batches, classes, boxes], found {:?}", scores_t.shape));
    };
    if (sb, sn) != (batches, n) {
        return Err(format!("`scores` {:?} does not match `boxes` {:?}", scores_t.shape, boxes_t.shape));
    }
    let scalar = |i: usize, name: &str| -> Result<Option<f64>, String> {
        match ctx.opt(i) {
            Some(t) if t.len() == 1 => Ok(Some(t.data.get_f64(0))),
            Some(t) if t.is_empty() => Ok(None),
            Some(t) => Err(format!("`{name}` must hold one value, found shape {:?}", t.shape)),
            None => Ok(None),
        }
    };
    let max_out = scalar(2, "max_output_boxes_per_class")?.unwrap_or(0.0).max(0.0) as usize;
    let iou = scalar(3, "iou_threshold")?.unwrap_or(0.0) as f32;
    let score_threshold = scalar(4, "score_threshold")?.map(|s| s as f32);
    let center = ctx.int("center_point_box", 0) != 0;
    let mut rows = Vec::new();
    for b in 0..batches {
        let bx = |i: usize| &boxes[(b * n + i) * 4..(b * n + i) * 4 + 4];
        for c in 0..classes {
            let sc = &scores[(b * classes + c) * n..(b * classes + c + 1) * n];
            let mut cand: Vec<usize> = (0..n).filter(|&i| score_threshold.is_none_or(|t| sc[i] > t)).collect();
            cand.sort_by(|&x, &y| sc[y].partial_cmp(&sc[x]).unwrap_or(std::cmp::Ordering::Equal).then(x.cmp(&y)));
            let mut kept: Vec<usize> = Vec::new();
            for i in cand {
                if kept.len() >= max_out {
                    break;
                }
                if !kept.iter().any(|&k| suppresses(bx(i), bx(k), center, iou)) {
                    kept.push(i);
                    rows.extend([b as i64, c as i64, i as i64]);
                }
            }
        }
    }
    Ok(vec![Tensor::new(vec![rows.len() / 3, 3], Data::I64(rows))])
}
