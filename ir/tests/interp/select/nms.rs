//! NonMaxSuppression (the ONNX node tests).

use crate::common::shape::*;

fn nms_boxes() -> Vec<f32> {
    vec![0., 0., 1., 1., 0., 0.1, 1., 1.1, 0., -0.1, 1., 0.9, 0., 10., 1., 11., 0., 10.1, 1., 11.1, 0., 100., 1., 101.]
}

const SCORES: [f32; 6] = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];

fn nms(
    boxes: Tensor,
    scores: Tensor,
    max: Option<i64>,
    iou: Option<f32>,
    score: Option<f32>,
    at: &[(&str, ir::Attr)],
) -> Tensor {
    let args = vec![
        Some(boxes),
        Some(scores),
        max.map(|m| ints(&[m])),
        iou.map(|v| f32t(&[1], &[v])),
        score.map(|v| f32t(&[1], &[v])),
    ];
    run(Opcode::NonMaxSuppression, args, at, 1).unwrap_or_else(|e| panic!("{e}")).remove(0)
}

#[test]
fn non_max_suppression_node_tests() {
    let boxes = || f32t(&[1, 6, 4], &nms_boxes());
    let scores = || f32t(&[1, 1, 6], &SCORES);
    // test_nonmaxsuppression_suppress_by_IOU
    eq_i64(&nms(boxes(), scores(), Some(3), Some(0.5), Some(0.0), &[]), &[3, 3], &[0, 0, 3, 0, 0, 0, 0, 0, 5]);
    // test_nonmaxsuppression_center_point_box_format
    let centers = [
        0.5, 0.5, 1., 1., 0.5, 0.6, 1., 1., 0.5, 0.4, 1., 1., 0.5, 10.5, 1., 1., 0.5, 10.6, 1., 1., 0.5, 100.5, 1., 1.,
    ];
    let r = nms(f32t(&[1, 6, 4], &centers), scores(), Some(3), Some(0.5), Some(0.0), &[("center_point_box", int(1))]);
    eq_i64(&r, &[3, 3], &[0, 0, 3, 0, 0, 0, 0, 0, 5]);
    // test_nonmaxsuppression_flipped_coordinates
    let flipped =
        [1., 1., 0., 0., 0., 0.1, 1., 1.1, 0., 0.9, 1., -0.1, 0., 10., 1., 11., 1., 10.1, 0., 11.1, 1., 101., 0., 100.];
    eq_i64(
        &nms(f32t(&[1, 6, 4], &flipped), scores(), Some(3), Some(0.5), Some(0.0), &[]),
        &[3, 3],
        &[0, 0, 3, 0, 0, 0, 0, 0, 5],
    );
    // test_nonmaxsuppression_identical_boxes / limit_output_size / single_box
    let same: Vec<f32> = [0., 0., 1., 1.].repeat(10);
    eq_i64(
        &nms(f32t(&[1, 10, 4], &same), f32t(&[1, 1, 10], &[0.9; 10]), Some(3), Some(0.5), Some(0.), &[]),
        &[1, 3],
        &[0, 0, 0],
    );
    eq_i64(&nms(boxes(), scores(), Some(2), Some(0.5), Some(0.0), &[]), &[2, 3], &[0, 0, 3, 0, 0, 0]);
    eq_i64(
        &nms(f32t(&[1, 1, 4], &[0., 0., 1., 1.]), f32t(&[1, 1, 1], &[0.9]), Some(3), Some(0.5), Some(0.), &[]),
        &[1, 3],
        &[0, 0, 0],
    );
    // test_nonmaxsuppression_suppress_by_IOU_and_scores
    eq_i64(&nms(boxes(), scores(), Some(3), Some(0.5), Some(0.4), &[]), &[2, 3], &[0, 0, 3, 0, 0, 0]);
    // test_nonmaxsuppression_two_batches / two_classes
    let b2 = f32t(&[2, 6, 4], &nms_boxes().repeat(2));
    let r = nms(b2, f32t(&[2, 1, 6], &SCORES.repeat(2)), Some(2), Some(0.5), Some(0.0), &[]);
    eq_i64(&r, &[4, 3], &[0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0]);
    let r = nms(boxes(), f32t(&[1, 2, 6], &SCORES.repeat(2)), Some(2), Some(0.5), Some(0.0), &[]);
    eq_i64(&r, &[4, 3], &[0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0]);
    // test_nonmaxsuppression_iou_threshold_boundary: IoU equal to the threshold does not suppress.
    let two = f32t(&[1, 2, 4], &[0., 0., 1., 1., 0.5, 0.5, 1.5, 1.5]);
    let r = nms(two, f32t(&[1, 1, 2], &[0.9, 0.8]), Some(3), Some(0.25f32 / 1.75), Some(0.), &[]);
    eq_i64(&r, &[2, 3], &[0, 0, 0, 0, 0, 1]);
    // All optional operands omitted: no output.
    assert_eq!(nms(boxes(), scores(), None, None, None, &[]).shape, vec![0, 3]);
    fails(Opcode::NonMaxSuppression, vec![Some(boxes()), Some(f32t(&[1, 1, 5], &[0.; 5]))], &[], 1);
}
