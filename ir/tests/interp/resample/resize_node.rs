//! Resize: mirrors of the ONNX Resize node tests (downsampling and tf_crop_and_resize).

use crate::common::nn::*;

/// Mirrors test_resize_downsample_scales_cubic.
#[test]
fn resize_downsample_scales_cubic() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.80000001 0.80000001")),
        ],
        &[("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "1.4711914 2.78125 4.0825195 6.7114258 8.0214844 9.3227539 11.916504 13.226562 14.527832",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_scales_cubic_A_n0p5_exclude_outside.
#[test]
fn resize_downsample_scales_cubic_a_n0p5_exclude_outside() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.80000001 0.80000001")),
        ],
        &[("cubic_coeff_a", Attr::Float(-0.5)), ("exclude_outside", Attr::Int(1)), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "1.3681267 2.6695013 4.0133367 6.5736251 7.875 9.2188349 11.948966 13.250341 14.594176",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_scales_cubic_align_corners.
#[test]
fn resize_downsample_scales_cubic_align_corners() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.80000001 0.80000001")),
        ],
        &[("coordinate_transformation_mode", Attr::Str("align_corners".into())), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "1 2.3951917 3.7903831 6.5807662 7.9759579 9.3711491 12.161532 13.556724 14.951916",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_scales_cubic_antialias.
#[test]
fn resize_downsample_scales_cubic_antialias() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 0.60000002")),
        ],
        &[("antialias", Attr::Int(1)), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "2.5180721 4.2858863 9.5893288 11.357142"), 1e-4);
}

/// Mirrors test_resize_downsample_scales_linear.
#[test]
fn resize_downsample_scales_linear() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 0.60000002")),
        ],
        &[("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 2], "2.6666665 4.333333"), 1e-4);
}

/// Mirrors test_resize_downsample_scales_linear_align_corners.
#[test]
fn resize_downsample_scales_linear_align_corners() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 0.60000002")),
        ],
        &[("coordinate_transformation_mode", Attr::Str("align_corners".into())), ("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 2], "1 3.1428571"), 1e-4);
}

/// Mirrors test_resize_downsample_scales_linear_antialias.
#[test]
fn resize_downsample_scales_linear_antialias() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 0.60000002")),
        ],
        &[("antialias", Attr::Int(1)), ("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "2.875 4.5 9.375 11"), 1e-4);
}

/// Mirrors test_resize_downsample_scales_linear_half_pixel_symmetric.
#[test]
fn resize_downsample_scales_linear_half_pixel_symmetric() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 1, 4], "1 2 3 4")), None, Some(parse(DType::F32, &[4], "1 1 1 0.60000002"))],
        &[
            ("coordinate_transformation_mode", Attr::Str("half_pixel_symmetric".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 2], "1.6666667 3.3333333"), 1e-4);
}

/// Mirrors test_resize_downsample_scales_nearest.
#[test]
fn resize_downsample_scales_nearest() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 0.60000002")),
        ],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 2], "1 3"), 1e-4);
}

/// Mirrors test_resize_downsample_sizes_cubic.
#[test]
fn resize_downsample_sizes_cubic() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 3 3")),
        ],
        &[("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "1.630787 3.0046296 4.3784723 7.1261573 8.5 9.8738422 12.621528 13.99537 15.369213",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_sizes_cubic_antialias.
#[test]
fn resize_downsample_sizes_cubic_antialias() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 3 3")),
        ],
        &[("antialias", Attr::Int(1)), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "1.7750092 3.1200073 4.4650054 7.1550016 8.5 9.8449984 12.534994 13.879992 15.224991",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_sizes_linear_antialias.
#[test]
fn resize_downsample_sizes_linear_antialias() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 3 3")),
        ],
        &[("antialias", Attr::Int(1)), ("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 3, 3],
            "2.3636363 3.590909 4.818182 7.2727275 8.5 9.727273 12.181818 13.409091 14.636364",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_downsample_sizes_linear_pytorch_half_pixel.
#[test]
fn resize_downsample_sizes_linear_pytorch_half_pixel() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 3 1")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("pytorch_half_pixel".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 3, 1], "1.6666666 7 12.333333"), 1e-4);
}

/// Mirrors test_resize_downsample_sizes_nearest.
#[test]
fn resize_downsample_sizes_nearest() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 1 3")),
        ],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 3], "1 2 4"), 1e-4);
}

/// Mirrors test_resize_downsample_sizes_nearest_not_larger.
#[test]
fn resize_downsample_sizes_nearest_not_larger() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")), None, None, Some(parse(DType::I64, &[2], "1 3"))],
        &[
            ("axes", Attr::Ints(vec![2, 3])),
            ("keep_aspect_ratio_policy", Attr::Str("not_larger".into())),
            ("mode", Attr::Str("nearest".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 1, 2], "1 3"), 1e-4);
}

/// Mirrors test_resize_downsample_sizes_nearest_not_smaller.
#[test]
fn resize_downsample_sizes_nearest_not_smaller() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 4], "1 2 3 4 5 6 7 8")), None, None, Some(parse(DType::I64, &[2], "1 3"))],
        &[
            ("axes", Attr::Ints(vec![2, 3])),
            ("keep_aspect_ratio_policy", Attr::Str("not_smaller".into())),
            ("mode", Attr::Str("nearest".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 2, 3], "1 2 4 5 6 8"), 1e-4);
}

/// Mirrors test_resize_tf_crop_and_resize.
#[test]
fn resize_tf_crop_and_resize() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            Some(parse(DType::F32, &[8], "0 0 0.40000001 0.60000002 1 1 0.60000002 0.80000001")),
            None,
            Some(parse(DType::I64, &[4], "1 1 3 3")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("tf_crop_and_resize".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(
        &out[0],
        &parse(DType::F32, &[1, 1, 3, 3], "7.6000004 7.9000001 8.1999998 8.8000002 9.1000004 9.4000006 10 10.3 10.6"),
        1e-4,
    );
}

/// Mirrors test_resize_tf_crop_and_resize_axes_2_3.
#[test]
fn resize_tf_crop_and_resize_axes_2_3() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            Some(parse(DType::F32, &[4], "0.40000001 0.60000002 0.60000002 0.80000001")),
            None,
            Some(parse(DType::I64, &[2], "3 3")),
        ],
        &[
            ("axes", Attr::Ints(vec![2, 3])),
            ("coordinate_transformation_mode", Attr::Str("tf_crop_and_resize".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(
        &out[0],
        &parse(DType::F32, &[1, 1, 3, 3], "7.6000004 7.9000001 8.1999998 8.8000002 9.1000004 9.4000006 10 10.3 10.6"),
        1e-4,
    );
}

/// Mirrors test_resize_tf_crop_and_resize_axes_3_2.
#[test]
fn resize_tf_crop_and_resize_axes_3_2() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            Some(parse(DType::F32, &[4], "0.60000002 0.40000001 0.80000001 0.60000002")),
            None,
            Some(parse(DType::I64, &[2], "3 3")),
        ],
        &[
            ("axes", Attr::Ints(vec![3, 2])),
            ("coordinate_transformation_mode", Attr::Str("tf_crop_and_resize".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(
        &out[0],
        &parse(DType::F32, &[1, 1, 3, 3], "7.6000004 7.9000001 8.1999998 8.8000002 9.1000004 9.4000006 10 10.3 10.6"),
        1e-4,
    );
}

/// Mirrors test_resize_tf_crop_and_resize_extrapolation_value.
#[test]
fn resize_tf_crop_and_resize_extrapolation_value() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            Some(parse(DType::F32, &[8], "0 0 0.40000001 0.60000002 1 1 1.2 1.7")),
            None,
            Some(parse(DType::I64, &[4], "1 1 3 3")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("tf_crop_and_resize".into())),
            ("extrapolation_value", Attr::Float(10.0)),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 3, 3], "7.6000004 10 10 12.400001 10 10 10 10 10"), 1e-4);
}
