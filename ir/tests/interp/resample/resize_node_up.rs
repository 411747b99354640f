//! Resize: mirrors of the ONNX Resize node tests (upsampling).

use crate::common::nn::*;

/// Mirrors test_resize_upsample_scales_cubic.
#[test]
fn resize_upsample_scales_cubic() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 2 2")),
        ],
        &[("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "0.47265625 0.76953125 1.2460938 1.875 2.28125 2.9101562 3.3867188 3.6835938 1.6601562 1.9570312 2.4335938 3.0625 3.46875 4.0976562 4.5742188 4.8710938 3.5664062 3.8632812 4.3398438 4.96875 5.375 6.0039062 6.4804688 6.7773438 6.0820312 6.3789062 6.8554688 7.484375 7.890625 8.5195312 8.9960938 9.2929688 7.7070312 8.0039062 8.4804688 9.109375 9.515625 10.144531 10.621094 10.917969 10.222656 10.519531 10.996094 11.625 12.03125 12.660156 13.136719 13.433594 12.128906 12.425781 12.902344 13.53125 13.9375 14.566406 15.042969 15.339844 13.316406 13.613281 14.089844 14.71875 15.125 15.753906 16.230469 16.527344"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_cubic_A_n0p5_exclude_outside.
#[test]
fn resize_upsample_scales_cubic_a_n0p5_exclude_outside() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 2 2")),
        ],
        &[("cubic_coeff_a", Attr::Float(-0.5)), ("exclude_outside", Attr::Int(1)), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "0.55882353 0.81494206 1.3569825 1.8970588 2.3970587 2.9371352 3.4791756 3.7352941 1.5832976 1.839416 2.3814566 2.9215329 3.4215329 3.9616091 4.5036497 4.759768 3.7514594 4.0075779 4.5496182 5.0896945 5.5896945 6.1297708 6.6718116 6.9279299 5.9117646 6.1678834 6.7099237 7.25 7.75 8.2900763 8.8321171 9.0882349 7.9117646 8.1678829 8.7099237 9.25 9.75 10.290076 10.832117 11.088235 10.07207 10.328189 10.870229 11.410305 11.910305 12.450381 12.992422 13.248541 12.240232 12.49635 13.038391 13.578467 14.078467 14.618544 15.160583 15.416702 13.264706 13.520824 14.062865 14.602942 15.102942 15.643018 16.185059 16.441177"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_cubic_align_corners.
#[test]
fn resize_upsample_scales_cubic_align_corners() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 2 2")),
        ],
        &[("coordinate_transformation_mode", Attr::Str("align_corners".into())), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 1.3411078 1.8002915 2.3294461 2.6705539 3.1997085 3.6588922 4 2.3644314 2.7055395 3.1647229 3.6938775 4.0349855 4.5641398 5.0233235 5.3644314 4.2011662 4.542274 5.0014577 5.5306125 5.8717203 6.4008746 6.8600583 7.2011662 6.3177843 6.6588922 7.1180758 7.6472301 7.988338 8.5174923 8.976676 9.3177843 7.6822157 8.023324 8.4825077 9.0116615 9.3527699 9.8819246 10.341108 10.682216 9.7988338 10.139941 10.599125 11.12828 11.469388 11.998542 12.457726 12.798834 11.635569 11.976676 12.43586 12.965014 13.306123 13.835277 14.29446 14.635569 13 13.341108 13.800292 14.329446 14.670554 15.199708 15.658892 16"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_cubic_asymmetric.
#[test]
fn resize_upsample_scales_cubic_asymmetric() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            Some(parse(DType::F32, &[4], "1 1 2 2")),
        ],
        &[("coordinate_transformation_mode", Attr::Str("asymmetric".into())), ("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 1.40625 2 2.5 3 3.59375 4 4.09375 2.625 3.03125 3.625 4.125 4.625 5.21875 5.625 5.71875 5 5.40625 6 6.5 7 7.59375 8 8.09375 7 7.40625 8 8.5 9 9.59375 10 10.09375 9 9.40625 10 10.5 11 11.59375 12 12.09375 11.375 11.78125 12.375 12.875 13.375 13.96875 14.375 14.46875 13 13.40625 14 14.5 15 15.59375 16 16.09375 13.375 13.78125 14.375 14.875 15.375 15.96875 16.375 16.46875"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_linear.
#[test]
fn resize_upsample_scales_linear() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[4], "1 1 2 2"))],
        &[("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(
        &out[0],
        &parse(DType::F32, &[1, 1, 4, 4], "1 1.25 1.75 2 1.5 1.75 2.25 2.5 2.5 2.75 3.25 3.5 3 3.25 3.75 4"),
        1e-4,
    );
}

/// Mirrors test_resize_upsample_scales_linear_align_corners.
#[test]
fn resize_upsample_scales_linear_align_corners() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[4], "1 1 2 2"))],
        &[("coordinate_transformation_mode", Attr::Str("align_corners".into())), ("mode", Attr::Str("linear".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 4, 4], "1 1.3333334 1.6666666 2 1.6666666 2 2.3333333 2.6666667 2.3333333 2.6666667 3 3.3333333 3 3.3333333 3.6666667 4"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_linear_half_pixel_symmetric.
#[test]
fn resize_upsample_scales_linear_half_pixel_symmetric() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[4], "1 1 2.3 2.9400001"))],
        &[
            ("coordinate_transformation_mode", Attr::Str("half_pixel_symmetric".into())),
            ("mode", Attr::Str("linear".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 4, 5], "1 1.1598639 1.5 1.8401361 2 1.5652174 1.7250813 2.0652175 2.4053535 2.5652175 2.4347825 2.5946465 2.9347825 3.2749186 3.4347825 3 3.1598639 3.5 3.8401361 4"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_nearest.
#[test]
fn resize_upsample_scales_nearest() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[4], "1 1 2 3"))],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 4, 6], "1 1 1 2 2 2 1 1 1 2 2 2 3 3 3 4 4 4 3 3 3 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_nearest_axes_2_3.
#[test]
fn resize_upsample_scales_nearest_axes_2_3() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[2], "2 3"))],
        &[("axes", Attr::Ints(vec![2, 3])), ("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 4, 6], "1 1 1 2 2 2 1 1 1 2 2 2 3 3 3 4 4 4 3 3 3 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_scales_nearest_axes_3_2.
#[test]
fn resize_upsample_scales_nearest_axes_3_2() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, Some(parse(DType::F32, &[2], "3 2"))],
        &[("axes", Attr::Ints(vec![3, 2])), ("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 4, 6], "1 1 1 2 2 2 1 1 1 2 2 2 3 3 3 4 4 4 3 3 3 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_cubic.
#[test]
fn resize_upsample_sizes_cubic() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 9 10")),
        ],
        &[("mode", Attr::Str("cubic".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 9, 10], "0.45507923 0.64057922 0.97157919 1.4225792 1.9073292 2.2233293 2.7080791 3.1590793 3.4900792 3.6755793 1.3943796 1.5798796 1.9108796 2.3618796 2.8466296 3.1626296 3.6473796 4.0983796 4.4293795 4.6148796 2.9513068 3.136807 3.4678068 3.918807 4.4035568 4.7195568 5.2043071 5.6553068 5.9863071 6.1718068 5.2052507 5.3907509 5.7217507 6.1727505 6.6575007 6.9735007 7.4582505 7.9092507 8.2402506 8.4257507 6.88975 7.0752501 7.40625 7.8572502 8.342 8.658 9.1427498 9.59375 9.9247503 10.11025 8.5742493 8.7597494 9.0907497 9.541749 10.0265 10.3425 10.82725 11.27825 11.609249 11.794749 10.828193 11.013693 11.344693 11.795693 12.280443 12.596443 13.081193 13.532193 13.863194 14.048693 12.38512 12.570621 12.90162 13.35262 13.83737 14.15337 14.638121 15.08912 15.42012 15.60562 13.324421 13.509921 13.84092 14.291921 14.77667 15.09267 15.577421 16.028421 16.359421 16.54492"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest.
#[test]
fn resize_upsample_sizes_nearest() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, None, Some(parse(DType::I64, &[4], "1 1 7 8"))],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 7, 8], "1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_axes_2_3.
#[test]
fn resize_upsample_sizes_nearest_axes_2_3() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, None, Some(parse(DType::I64, &[2], "7 8"))],
        &[("axes", Attr::Ints(vec![2, 3])), ("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 7, 8], "1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_axes_3_2.
#[test]
fn resize_upsample_sizes_nearest_axes_3_2() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, None, Some(parse(DType::I64, &[2], "8 7"))],
        &[("axes", Attr::Ints(vec![3, 2])), ("mode", Attr::Str("nearest".into()))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 7, 8], "1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_ceil_half_pixel.
#[test]
fn resize_upsample_sizes_nearest_ceil_half_pixel() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 8 8")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("half_pixel".into())),
            ("mode", Attr::Str("nearest".into())),
            ("nearest_mode", Attr::Str("ceil".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 2 2 3 3 4 4 4 5 6 6 7 7 8 8 8 5 6 6 7 7 8 8 8 9 10 10 11 11 12 12 12 9 10 10 11 11 12 12 12 13 14 14 15 15 16 16 16 13 14 14 15 15 16 16 16 13 14 14 15 15 16 16 16"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_floor_align_corners.
#[test]
fn resize_upsample_sizes_nearest_floor_align_corners() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 8 8")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("align_corners".into())),
            ("mode", Attr::Str("nearest".into())),
            ("nearest_mode", Attr::Str("floor".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 1 1 2 2 3 3 4 1 1 1 2 2 3 3 4 1 1 1 2 2 3 3 4 5 5 5 6 6 7 7 8 5 5 5 6 6 7 7 8 9 9 9 10 10 11 11 12 9 9 9 10 10 11 11 12 13 13 13 14 14 15 15 16"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_not_larger.
#[test]
fn resize_upsample_sizes_nearest_not_larger() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, None, Some(parse(DType::I64, &[2], "7 8"))],
        &[
            ("axes", Attr::Ints(vec![2, 3])),
            ("keep_aspect_ratio_policy", Attr::Str("not_larger".into())),
            ("mode", Attr::Str("nearest".into())),
        ],
        1,
    );
    check_tol(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 7, 7],
            "1 1 1 1 2 2 2 1 1 1 1 2 2 2 1 1 1 1 2 2 2 1 1 1 1 2 2 2 3 3 3 3 4 4 4 3 3 3 3 4 4 4 3 3 3 3 4 4 4",
        ),
        1e-4,
    );
}

/// Mirrors test_resize_upsample_sizes_nearest_not_smaller.
#[test]
fn resize_upsample_sizes_nearest_not_smaller() {
    let out = run(
        Opcode::Resize,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), None, None, Some(parse(DType::I64, &[2], "7 8"))],
        &[
            ("axes", Attr::Ints(vec![2, 3])),
            ("keep_aspect_ratio_policy", Attr::Str("not_smaller".into())),
            ("mode", Attr::Str("nearest".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4 3 3 3 3 4 4 4 4"), 1e-4);
}

/// Mirrors test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric.
#[test]
fn resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16")),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 8 8")),
        ],
        &[
            ("coordinate_transformation_mode", Attr::Str("asymmetric".into())),
            ("mode", Attr::Str("nearest".into())),
            ("nearest_mode", Attr::Str("round_prefer_ceil".into())),
        ],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 1, 8, 8], "1 2 2 3 3 4 4 4 5 6 6 7 7 8 8 8 5 6 6 7 7 8 8 8 9 10 10 11 11 12 12 12 9 10 10 11 11 12 12 12 13 14 14 15 15 16 16 16 13 14 14 15 15 16 16 16 13 14 14 15 15 16 16 16"), 1e-4);
}
