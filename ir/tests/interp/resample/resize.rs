//! Resize (every ONNX node test) and the opset-9 Upsample.

use crate::common::nn::*;

/// Nearest upsampling by 2 repeats every element (by hand).
#[test]
fn resize_nearest_by_hand() {
    let x = f32t(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let scales = f32t(&[4], &[1.0, 1.0, 2.0, 2.0]);
    let out = run(Opcode::Resize, &[Some(x), None, Some(scales)], &[], 1);
    let want = [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0, 4.0, 4.0];
    check(&out[0], &f32t(&[1, 1, 4, 4], &want));
}

/// Nearest mode is a gather: exact for strings and large i64 values.
#[test]
fn resize_nearest_exact_for_any_type() {
    let x = t(&[1, 2], Data::String(vec!["a".into(), "b".into()]));
    let out = run(Opcode::Resize, &[Some(x), None, Some(f32t(&[2], &[1.0, 2.0]))], &[], 1);
    assert_eq!(out[0].data, Data::String(vec!["a".into(), "a".into(), "b".into(), "b".into()]));
    let big = i64t(&[1, 2], &[i64::MAX, -(1 << 60) - 1]);
    let out = run(Opcode::Resize, &[Some(big), None, Some(f32t(&[2], &[1.0, 1.5]))], &[], 1);
    check(&out[0], &i64t(&[1, 3], &[i64::MAX, i64::MAX, -(1 << 60) - 1]));
}

/// Mirrors test_upsample_nearest.
#[test]
fn upsample_nearest() {
    let out = run(
        Opcode::Upsample,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), Some(parse(DType::F32, &[4], "1 1 2 3"))],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 4, 6], "1 1 1 2 2 2 1 1 1 2 2 2 3 3 3 4 4 4 3 3 3 4 4 4"));
}

/// Integer results round half to even and saturate.
#[test]
fn resize_u8_linear_rounds() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::U8, &[1, 1, 3, 3], "23 141 226 16 218 211 70 161 42")),
            None,
            Some(parse(DType::F32, &[4], "1 1 1.5 1.5")),
        ],
        &[("mode", Attr::Str("linear".into()))],
        1,
    );
    check(&out[0], &parse(DType::U8, &[1, 1, 4, 4], "23 82 155 212 20 100 186 212 25 117 204 187 61 116 154 87"));
}

#[test]
fn resize_i32_cubic() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::I32, &[1, 1, 3, 3], "51 40 -30 -87 94 -11 78 35 55")),
            None,
            Some(parse(DType::F32, &[4], "1 1 1.5 1.5")),
        ],
        &[("mode", Attr::Str("cubic".into()))],
        1,
    );
    check(&out[0], &parse(DType::I32, &[1, 1, 4, 4], "65 55 23 -23 -43 29 67 -11 -90 16 92 16 53 48 44 46"));
}

#[test]
fn resize_f16_cubic_antialias() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F16, &[1, 1, 4, 4], "-0.35205078 0.53222656 0.36547852 0.4128418 0.4309082 2.1425781 -0.40649414 -0.51220703 -0.81396484 0.61621094 1.1289062 -0.11395264 -0.84033203 -0.82470703 0.65039062 0.74316406")),
            None,
            Some(parse(DType::F32, &[4], "1 1 1.5 0.5")),
        ],
        &[("mode", Attr::Str("cubic".into())), ("antialias", Attr::Int(1))],
        1,
    );
    check(&out[0], &parse(DType::F16, &[1, 1, 6, 2], "-0.015625 0.51757812 0.71337891 0.066955566 1.0849609 -0.13195801 0.265625 0.45361328 -0.47021484 0.6640625 -0.81640625 0.61132812"));
}

/// A nearest tap outside the input is zeroed by exclude_outside, as in the reference.
#[test]
fn resize_nearest_exclude_outside() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 3, 4], "0.54315424 -0.6655097 0.23216133 0.11668581 0.21868859 0.87142879 0.22359554 0.67891353 0.067579068 0.28911939 0.63128823 -1.4571558")),
            None,
            Some(parse(DType::F32, &[4], "1 1 0.60000002 1.3")),
        ],
        &[("mode", Attr::Str("nearest".into())), ("exclude_outside", Attr::Int(1)), ("nearest_mode", Attr::Str("floor".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 1, 5], "0 0.54315424 -0.6655097 0.23216133 0.23216133"));
}

#[test]
fn resize_nearest_tf_crop_extrapolation() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 1, 3, 3], "-0.31967121 -0.47037265 -0.63887787 -0.27514225 1.4949414 -0.86583114 0.96827835 -1.6828698 -0.33488503")),
            Some(parse(DType::F32, &[8], "0 0 -0.5 0.2 1 1 1.2 0.89999998")),
            None,
            Some(parse(DType::I64, &[4], "1 1 4 3")),
        ],
        &[("mode", Attr::Str("nearest".into())), ("coordinate_transformation_mode", Attr::Str("tf_crop_and_resize".into())), ("extrapolation_value", Attr::Float(7.5))],
        1,
    );
    check(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 4, 3],
            "7.5 7.5 7.5 -0.31967121 -0.47037265 -0.63887787 -0.27514225 1.4949414 -0.86583114 7.5 7.5 7.5",
        ),
    );
}

#[test]
fn resize_3d_linear_half_pixel_symmetric() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[1, 2, 2, 3, 2], "0.16275306 0.58622235 0.71122658 0.79334724 -0.34872508 -0.4623518 0.8579759 -0.19130433 -1.2756863 -1.1332872 -0.91945231 0.49716073 0.14242573 0.69048536 -0.42725265 0.1585397 0.62559038 -0.30934653 0.45677525 -0.66192591 -0.36305386 -0.38173789 -1.1958396 0.48697248")),
            None,
            Some(parse(DType::F32, &[5], "1 1 2 0.5 1.5")),
        ],
        &[("mode", Attr::Str("linear".into())), ("coordinate_transformation_mode", Attr::Str("half_pixel_symmetric".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 2, 4, 1, 3], "0.71122658 0.75228691 0.79334724 0.21449837 0.2630935 0.31168863 -0.77895808 -0.71529329 -0.65162861 -1.2756863 -1.2044867 -1.1332872 -0.42725265 -0.13435647 0.1585397 -0.41120297 -0.19386633 0.023470301 -0.37910354 -0.31288603 -0.24666849 -0.36305386 -0.37239587 -0.38173789"));
}

/// pytorch_half_pixel maps an output size of 1 to -0.5.
#[test]
fn resize_pytorch_half_pixel_to_one() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(
                DType::F32,
                &[1, 1, 4, 2],
                "-0.46940234 0.012494119 0.48074666 0.44653118 0.66538513 -0.098485485 -0.4232983 -0.07971821",
            )),
            None,
            None,
            Some(parse(DType::I64, &[4], "1 1 1 3")),
        ],
        &[
            ("mode", Attr::Str("linear".into())),
            ("coordinate_transformation_mode", Attr::Str("pytorch_half_pixel".into())),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 1, 3], "-0.46940234 -0.22845411 0.012494119"));
}

#[test]
fn resize_axes_not_smaller_linear() {
    let out = run(
        Opcode::Resize,
        &[
            Some(parse(DType::F32, &[2, 3, 4], "-1.6873344 -1.4471124 -1.3226997 -0.9972468 0.39977422 -0.90547907 -0.37816256 1.2992283 -0.35626397 0.73751557 -0.93361765 -0.20543756 -0.95002204 -0.33903307 0.84030813 -1.7273204 0.43442366 0.2377356 -0.59414995 -1.4460578 0.07212951 -0.52949274 0.23267621 0.021852145")),
            None,
            None,
            Some(parse(DType::I64, &[2], "5 4")),
        ],
        &[("axes", Attr::Ints(vec![2, 1])), ("keep_aspect_ratio_policy", Attr::Str("not_smaller".into())), ("mode", Attr::Str("linear".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[2, 4, 5], "-1.6873344 -1.5371957 -1.4004576 -1.2820181 -1.0379285 -0.38289151 -0.83645403 -0.96750623 -0.58606219 0.29174837 0.1162599 -0.1372501 -0.40076938 -0.42127863 0.56979901 -0.35626397 0.32734823 0.11084061 -0.84259516 -0.29646006 -0.95002204 -0.56815392 0.10321988 0.51935458 -1.4063668 -0.084743485 -0.018374212 -0.0076809698 -0.24314106 -1.3646184 0.29856336 0.080726862 -0.13776819 -0.36052781 -0.8191539 0.07212951 -0.30388439 -0.24367937 0.20632321 0.048205152"));
}

/// Non-integer scales round source coordinates down (onnxruntime).
#[test]
fn upsample_nearest_fractional() {
    let out = run(
        Opcode::Upsample,
        &[
            Some(parse(DType::F32, &[1, 1, 3, 2], "1.6017789 -0.23935562 -1.0234975 0.17927563 0.21999669 1.3591876")),
            Some(parse(DType::F32, &[4], "1 1 1.5 2.5")),
        ],
        &[("mode", Attr::Str("nearest".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 4, 5], "1.6017789 1.6017789 1.6017789 -0.23935562 -0.23935562 1.6017789 1.6017789 1.6017789 -0.23935562 -0.23935562 -1.0234975 -1.0234975 -1.0234975 0.17927563 0.17927563 0.21999669 0.21999669 0.21999669 1.3591876 1.3591876"));
}

#[test]
fn upsample_linear() {
    let out = run(
        Opcode::Upsample,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 3], "0.83511126 0.35687107 1.4633029 -1.188763 -0.63975155 -0.92657596")),
            Some(parse(DType::F32, &[4], "1 1 2 1.5")),
        ],
        &[("mode", Attr::Str("linear".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 4, 4], "0.83511126 0.51628447 0.72568166 1.4633029 -0.17682588 -0.15323545 -0.004839018 0.26836348 -1.188763 -0.82275534 -0.73535967 -0.92657596 -1.188763 -0.82275534 -0.73535967 -0.92657596"));
}
