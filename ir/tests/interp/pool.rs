//! MaxPool, AveragePool, LpPool, global pools and MaxUnpool.

use crate::common::nn::*;

/// GlobalLpPool with p = 2 is the Euclidean norm of each plane (by hand: 3-4-5).
#[test]
fn global_lp_pool_by_hand() {
    let x = f32t(&[1, 2, 2], &[3.0, 4.0, -6.0, 8.0]);
    let out = run(Opcode::GlobalLpPool, &[Some(x.clone())], &[], 1);
    check(&out[0], &f32t(&[1, 2, 1], &[5.0, 10.0]));
    let out = run(Opcode::GlobalLpPool, &[Some(x)], &[("p", Attr::Int(1))], 1);
    check(&out[0], &f32t(&[1, 2, 1], &[7.0, 14.0]));
}

/// Global pools over every spatial axis (by hand).
#[test]
fn global_avg_and_max_by_hand() {
    let x = f64t(&[1, 2, 2, 2], &[1.0, 2.0, 3.0, 4.0, -1.0, -5.0, 0.0, 2.0]);
    check(&run(Opcode::GlobalAveragePool, &[Some(x.clone())], &[], 1)[0], &f64t(&[1, 2, 1, 1], &[2.5, -1.0]));
    check(&run(Opcode::GlobalMaxPool, &[Some(x)], &[], 1)[0], &f64t(&[1, 2, 1, 1], &[4.0, 2.0]));
}

/// Mirrors test_maxpool_2d_ceil.
#[test]
fn maxpool_2d_ceil() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"))],
        &[("ceil_mode", Attr::Int(1)), ("kernel_shape", Attr::Ints(vec![3, 3])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "11 12 15 16"));
}

/// Mirrors test_maxpool_2d_ceil_output_size_reduce_by_one.
#[test]
fn maxpool_2d_ceil_output_size_reduce_by_one() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4"))],
        &[("ceil_mode", Attr::Int(1)), ("kernel_shape", Attr::Ints(vec![1, 1])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 1, 1], "1"));
}

/// Mirrors test_maxpool_2d_dilations.
#[test]
fn maxpool_2d_dilations() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"))],
        &[
            ("dilations", Attr::Ints(vec![2, 2])),
            ("kernel_shape", Attr::Ints(vec![2, 2])),
            ("strides", Attr::Ints(vec![1, 1])),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "11 12 15 16"));
}

/// Mirrors test_maxpool_2d_precomputed_pads.
#[test]
fn maxpool_2d_precomputed_pads() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![5, 5])), ("pads", Attr::Ints(vec![2, 2, 2, 2]))],
        1,
    );
    check(
        &out[0],
        &parse(DType::F32, &[1, 1, 5, 5], "13 14 15 15 15 18 19 20 20 20 23 24 25 25 25 23 24 25 25 25 23 24 25 25 25"),
    );
}

/// Mirrors test_maxpool_2d_precomputed_same_upper.
#[test]
fn maxpool_2d_precomputed_same_upper() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[
            ("auto_pad", Attr::Str("SAME_UPPER".into())),
            ("kernel_shape", Attr::Ints(vec![3, 3])),
            ("strides", Attr::Ints(vec![2, 2])),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 3, 3], "7 9 10 17 19 20 22 24 25"));
}

/// Mirrors test_maxpool_2d_precomputed_strides.
#[test]
fn maxpool_2d_precomputed_strides() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "7 9 17 19"));
}

/// Mirrors test_maxpool_with_argmax_2d_precomputed_pads.
#[test]
fn maxpool_with_argmax_2d_precomputed_pads() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![5, 5])), ("pads", Attr::Ints(vec![2, 2, 2, 2]))],
        2,
    );
    check(
        &out[0],
        &parse(DType::F32, &[1, 1, 5, 5], "13 14 15 15 15 18 19 20 20 20 23 24 25 25 25 23 24 25 25 25 23 24 25 25 25"),
    );
    check(
        &out[1],
        &parse(DType::I64, &[1, 1, 5, 5], "12 13 14 14 14 17 18 19 19 19 22 23 24 24 24 22 23 24 24 24 22 23 24 24 24"),
    );
}

/// Mirrors test_maxpool_with_argmax_2d_precomputed_strides.
#[test]
fn maxpool_with_argmax_2d_precomputed_strides() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[
            ("kernel_shape", Attr::Ints(vec![2, 2])),
            ("storage_order", Attr::Int(1)),
            ("strides", Attr::Ints(vec![2, 2])),
        ],
        2,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "7 9 17 19"));
    check(&out[1], &parse(DType::I64, &[1, 1, 2, 2], "6 16 8 18"));
}

/// Mirrors test_maxpool_2d_uint8.
#[test]
fn maxpool_2d_uint8() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::U8, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![5, 5])), ("pads", Attr::Ints(vec![2, 2, 2, 2]))],
        1,
    );
    check(
        &out[0],
        &parse(DType::U8, &[1, 1, 5, 5], "13 14 15 15 15 18 19 20 20 20 23 24 25 25 25 23 24 25 25 25 23 24 25 25 25"),
    );
}

/// Mirrors test_averagepool_2d_ceil.
#[test]
fn averagepool_2d_ceil() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"))],
        &[("ceil_mode", Attr::Int(1)), ("kernel_shape", Attr::Ints(vec![3, 3])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "6 7.5 12 13.5"));
}

/// Mirrors test_averagepool_2d_precomputed_pads.
#[test]
fn averagepool_2d_precomputed_pads() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![5, 5])), ("pads", Attr::Ints(vec![2, 2, 2, 2]))],
        1,
    );
    check(
        &out[0],
        &parse(
            DType::F32,
            &[1, 1, 5, 5],
            "7 7.5 8 8.5 9 9.5 10 10.5 11 11.5 12 12.5 13 13.5 14 14.5 15 15.5 16 16.5 17 17.5 18 18.5 19",
        ),
    );
}

/// Mirrors test_averagepool_2d_precomputed_pads_count_include_pad.
#[test]
fn averagepool_2d_precomputed_pads_count_include_pad() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[
            ("count_include_pad", Attr::Int(1)),
            ("kernel_shape", Attr::Ints(vec![5, 5])),
            ("pads", Attr::Ints(vec![2, 2, 2, 2])),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 5, 5], "2.52 3.5999999 4.8000002 4.0799999 3.24 4.5599999 6.4000001 8.3999996 7.04 5.52 7.1999998 10 13 10.8 8.3999996 6.96 9.6000004 12.4 10.24 7.9200001 6.1199999 8.3999996 10.8 8.8800001 6.8400002"));
}

/// Mirrors test_averagepool_2d_precomputed_same_upper.
#[test]
fn averagepool_2d_precomputed_same_upper() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[
            ("auto_pad", Attr::Str("SAME_UPPER".into())),
            ("kernel_shape", Attr::Ints(vec![3, 3])),
            ("strides", Attr::Ints(vec![2, 2])),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 3, 3], "4 5.5 7 11.5 13 14.5 19 20.5 22"));
}

/// Mirrors test_averagepool_2d_precomputed_strides.
#[test]
fn averagepool_2d_precomputed_strides() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 5, 5], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25"))],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "4 6 14 16"));
}

/// Mirrors test_averagepool_2d_dilations.
#[test]
fn averagepool_2d_dilations() {
    let out = run(
        Opcode::AveragePool,
        &[Some(parse(DType::F32, &[1, 1, 4, 4], "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"))],
        &[
            ("ceil_mode", Attr::Int(1)),
            ("dilations", Attr::Ints(vec![2, 2])),
            ("kernel_shape", Attr::Ints(vec![2, 2])),
            ("strides", Attr::Ints(vec![1, 1])),
        ],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 2], "6 7 10 11"));
}

/// Mirrors test_globalaveragepool_precomputed.
#[test]
fn globalaveragepool_precomputed() {
    let out = run(Opcode::GlobalAveragePool, &[Some(parse(DType::F32, &[1, 1, 3, 3], "1 2 3 4 5 6 7 8 9"))], &[], 1);
    check(&out[0], &parse(DType::F32, &[1, 1, 1, 1], "5"));
}

/// Mirrors test_globalmaxpool_precomputed.
#[test]
fn globalmaxpool_precomputed() {
    let out = run(Opcode::GlobalMaxPool, &[Some(parse(DType::F32, &[1, 1, 3, 3], "1 2 3 4 5 6 7 8 9"))], &[], 1);
    check(&out[0], &parse(DType::F32, &[1, 1, 1, 1], "9"));
}

/// Mirrors test_maxunpool_export_with_output_shape.
#[test]
fn maxunpool_export_with_output_shape() {
    let out = run(
        Opcode::MaxUnpool,
        &[
            Some(parse(DType::F32, &[1, 1, 2, 2], "5 6 7 8")),
            Some(parse(DType::I64, &[1, 1, 2, 2], "5 7 13 15")),
            Some(parse(DType::I64, &[4], "1 1 5 5")),
        ],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 5, 5], "0 0 0 0 0 0 5 0 6 0 0 0 0 0 0 0 7 0 8 0 0 0 0 0 0"));
}

/// Mirrors test_maxunpool_export_without_output_shape.
#[test]
fn maxunpool_export_without_output_shape() {
    let out = run(
        Opcode::MaxUnpool,
        &[Some(parse(DType::F32, &[1, 1, 2, 2], "1 2 3 4")), Some(parse(DType::I64, &[1, 1, 2, 2], "5 7 13 15"))],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 4, 4], "0 0 0 0 0 1 0 2 0 0 0 0 0 3 0 4"));
}

/// Mirrors test_averagepool_2d_ceil_last_window_starts_on_pad (expected values stored to 4 decimals).
#[test]
fn averagepool_2d_ceil_last_window_starts_on_pad() {
    let out = run(
        Opcode::AveragePool,
        &[
            Some(parse(DType::F32, &[1, 3, 2, 2], "0.85799998 0.078599997 0.2692 0.15369999 0.88160002 0.43529999 0.5772 0.66229999 0.90670002 0.9483 0.597 0.76300001")),
        ],
        &[("ceil_mode", Attr::Int(1)), ("count_include_pad", Attr::Int(1)), ("kernel_shape", Attr::Ints(vec![3, 3])), ("pads", Attr::Ints(vec![1, 1, 1, 1])), ("strides", Attr::Ints(vec![3, 3]))],
        1,
    );
    check_tol(&out[0], &parse(DType::F32, &[1, 3, 1, 1], "0.15109999 0.2841 0.3572"), 1e-3);
}

#[test]
fn maxpool_same_lower_indices() {
    let out = run(
        Opcode::MaxPool,
        &[
            Some(parse(DType::F32, &[1, 2, 5, 6], "0.30471709 -1.0399841 0.75045121 0.94056469 -1.9510351 -1.3021795 0.1278404 -0.31624261 -0.016801158 -0.85304391 0.87939799 0.77779192 0.066030696 1.1272413 0.46750933 -0.85929245 0.36875078 -0.95888263 0.87845027 -0.049925912 -0.18486236 -0.68092954 1.2225413 -0.15452948 -0.42832783 -0.35213354 0.53230917 0.36544406 0.4127326 0.430821 2.1416476 -0.40641502 -0.51224273 -0.81377274 0.61597943 1.1289723 -0.11394746 -0.8401565 -0.82448119 0.6505928 0.74325418 0.54315424 -0.6655097 0.23216133 0.11668581 0.21868859 0.87142879 0.22359554 0.67891353 0.067579068 0.28911939 0.63128823 -1.4571558 -0.31967121 -0.47037265 -0.63887787 -0.27514225 1.4949414 -0.86583114 0.96827835")),
        ],
        &[("kernel_shape", Attr::Ints(vec![3, 3])), ("auto_pad", Attr::Str("SAME_LOWER".into())), ("strides", Attr::Ints(vec![2, 2]))],
        2,
    );
    check(&out[0], &parse(DType::F32, &[1, 2, 3, 3], "0.30471709 0.94056469 0.94056469 1.1272413 1.1272413 1.2225413 0.87845027 0.53230917 1.2225413 2.1416476 0.6505928 1.1289723 0.67891353 0.6505928 0.87142879 0.67891353 1.4949414 1.4949414"));
    check(&out[1], &parse(DType::I64, &[1, 2, 3, 3], "0 3 3 13 13 22 18 26 22 30 39 35 48 39 46 48 57 57"));
}

#[test]
fn maxpool_3d_pads_indices() {
    let out = run(
        Opcode::MaxPool,
        &[
            Some(parse(DType::F32, &[1, 1, 3, 4, 4], "-1.6828698 -0.33488503 0.16275306 0.58622235 0.71122658 0.79334724 -0.34872508 -0.4623518 0.8579759 -0.19130433 -1.2756863 -1.1332872 -0.91945231 0.49716073 0.14242573 0.69048536 -0.42725265 0.1585397 0.62559038 -0.30934653 0.45677525 -0.66192591 -0.36305386 -0.38173789 -1.1958396 0.48697248 -0.46940234 0.012494119 0.48074666 0.44653118 0.66538513 -0.098485485 -0.4232983 -0.07971821 -1.6873344 -1.4471124 -1.3226997 -0.9972468 0.39977422 -0.90547907 -0.37816256 1.2992283 -0.35626397 0.73751557 -0.93361765 -0.20543756 -0.95002204 -0.33903307")),
        ],
        &[("kernel_shape", Attr::Ints(vec![2, 2, 2])), ("strides", Attr::Ints(vec![2, 1, 2])), ("pads", Attr::Ints(vec![1, 0, 1, 1, 1, 0]))],
        2,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 2, 4, 2], "0.71122658 0.79334724 0.8579759 0.79334724 0.8579759 0.49716073 -0.91945231 0.49716073 0.45677525 0.62559038 0.45677525 1.2992283 0.48074666 1.2992283 0.48074666 0.66538513"));
    check(&out[1], &parse(DType::I64, &[1, 1, 2, 4, 2], "4 5 8 5 8 13 12 13 20 18 20 41 28 41 28 30"));
}

#[test]
fn maxpool_1d_ceil_i8() {
    let out = run(
        Opcode::MaxPool,
        &[Some(parse(DType::I8, &[1, 2, 9], "-96 -12 51 -77 56 -50 78 19 11 -83 -10 90 -124 65 -3 55 41 -18"))],
        &[
            ("kernel_shape", Attr::Ints(vec![4])),
            ("strides", Attr::Ints(vec![3])),
            ("pads", Attr::Ints(vec![2, 2])),
            ("ceil_mode", Attr::Int(1)),
        ],
        1,
    );
    check(&out[0], &parse(DType::I8, &[1, 2, 4], "-12 56 78 19 -10 90 65 41"));
}

#[test]
fn maxpool_f16_dilated() {
    let out = run(
        Opcode::MaxPool,
        &[
            Some(parse(DType::F16, &[1, 1, 6, 6], "0.021850586 1.6015625 -0.23937988 -1.0234375 0.17932129 0.2199707 1.359375 0.83496094 0.35693359 1.4628906 -1.1884766 -0.63964844 -0.92675781 -0.38989258 -1.3769531 0.63525391 -0.22216797 -1.4707031 -1.015625 0.31347656 0.83789062 1.9970703 2.9140625 0.41430664 -0.98974609 -2.1328125 0.26782227 -0.81298828 -0.4152832 -0.61230469 -0.14074707 1.0664062 0.15710449 -0.15869141 -1.0361328 -1.6748047")),
        ],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("dilations", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(&out[0], &parse(DType::F16, &[1, 1, 4, 4], "0.021850586 1.6015625 0.17932129 0.63525391 1.359375 1.9970703 2.9140625 1.9970703 0.26782227 0.63525391 0.26782227 0.63525391 0.83789062 1.9970703 2.9140625 1.9970703"));
}

/// ceil_mode with pads: partial windows divide by the clipped count.
#[test]
fn averagepool_ceil_pads_cip0() {
    let out = run(
        Opcode::AveragePool,
        &[
            Some(parse(DType::F32, &[1, 1, 7, 6], "-0.48630792 -0.053782552 1.7679299 0.13027452 0.98273951 -0.49929559 -1.1849438 -0.96511674 -0.72522604 2.1284697 -0.82138669 0.83848917 -0.90292716 0.93157303 0.38495097 -0.15663789 -0.040762525 -0.65478772 0.44607219 -0.45498347 -1.2256057 -1.2779375 0.17258792 1.5790913 0.15999161 -0.11863833 0.28582615 1.3060018 0.21938249 -0.41092724 1.1062887 0.42875645 1.535756 0.18323444 -1.2244691 -1.3681592 1.6509279 1.7236657 -0.17951921 -0.38318732 1.4614443 -1.1070457")),
        ],
        &[("kernel_shape", Attr::Ints(vec![3, 2])), ("strides", Attr::Ints(vec![3, 2])), ("pads", Attr::Ints(vec![1, 1, 1, 0])), ("ceil_mode", Attr::Int(1)), ("count_include_pad", Attr::Int(0))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 3, 4], "-0.83562589 0.0059511364 0.60502422 0.16959679 -0.098954462 -0.032812893 0.037105694 0.17112546 1.3786082 0.87716472 0.0092555881 -1.2376025"));
}

/// ceil_mode with pads: partial windows divide by the clipped count.
#[test]
fn averagepool_ceil_pads_cip1() {
    let out = run(
        Opcode::AveragePool,
        &[
            Some(parse(DType::F32, &[1, 1, 7, 6], "-0.89472699 0.64332682 -0.39460513 -0.0051218667 -0.16344289 0.33757454 1.4074819 0.090584904 0.64393878 -2.0501721 -0.0487184 -0.84323025 -1.2188131 -0.87815237 -0.33412343 0.91590255 -1.3263928 0.030631492 -0.48416942 -0.32767311 1.0027578 0.53811544 1.3373981 -0.15450568 -0.69594264 -0.22385882 0.24249679 0.17657335 -1.084388 0.090489782 0.22822833 2.5174739 1.8768446 -0.85324335 -0.28738335 -1.463442 -0.590707 0.31560501 1.2058536 -0.72908384 -0.65414643 -2.147289")),
        ],
        &[("kernel_shape", Attr::Ints(vec![3, 2])), ("strides", Attr::Ints(vec![3, 2])), ("pads", Attr::Ints(vec![1, 1, 1, 0])), ("ceil_mode", Attr::Int(1)), ("count_include_pad", Attr::Int(1))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 3, 4], "0.08545915 0.16387422 -0.37790921 -0.16855191 -0.39982083 -0.086425513 0.092868112 -0.011128138 -0.060413111 0.98596287 -0.42064282 -1.203577"));
}

#[test]
fn averagepool_same_lower() {
    let out = run(
        Opcode::AveragePool,
        &[
            Some(parse(DType::F32, &[1, 1, 5, 4], "-0.16266592 -1.0624144 -0.52943945 -0.8768608 -0.094262555 -1.7577283 -1.4670452 2.1292472 -1.2874225 -1.0967855 1.8369136 2.9050672 -1.1715666 -0.36824897 0.34155557 1.7286977 -0.98685706 -0.24527785 0.77733755 0.43476608")),
        ],
        &[("kernel_shape", Attr::Ints(vec![3, 3])), ("auto_pad", Attr::Str("SAME_LOWER".into())), ("strides", Attr::Ints(vec![2, 1]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 3, 4], "-0.7692678 -0.84559268 -0.59404022 -0.18602455 -0.96266907 -0.56273228 0.47240815 1.2457393 -0.69298762 -0.27550957 0.444805 0.82058918"));
}

#[test]
fn averagepool_f16() {
    let out = run(
        Opcode::AveragePool,
        &[
            Some(parse(DType::F16, &[1, 2, 4, 4], "-0.3762207 -0.13378906 -1.375 -0.23815918 -0.26635742 0.23217773 -0.55517578 0.47143555 1.0126953 0.15539551 0.35180664 0.053161621 8.4400177e-05 -0.72167969 0.31640625 -0.097290039 2.09375 1.5732422 0.38574219 -0.76318359 -1.1123047 1.1914062 0.26269531 0.48022461 -1.7441406 0.92724609 0.4543457 -1.1103516 -0.47143555 0.26367188 0.052459717 -0.29223633")),
        ],
        &[("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))],
        1,
    );
    check(
        &out[0],
        &parse(
            DType::F16,
            &[1, 2, 2, 2],
            "-0.13598633 -0.42431641 0.1116333 0.15600586 0.93652344 0.091369629 -0.25610352 -0.22399902",
        ),
    );
}

#[test]
fn lppool_p3_pads() {
    let out = run(
        Opcode::LpPool,
        &[
            Some(parse(DType::F32, &[1, 2, 4, 5], "-0.10348827 -0.25197738 0.15256251 1.4714919 -2.5666585 -0.23685026 0.17651242 0.29599398 -0.3719146 -1.7567217 0.32799548 1.7273502 -1.5338614 0.863828 -0.32852522 -0.061324347 -1.0528985 -0.33445618 1.3000445 0.58265525 1.7323116 1.1774119 0.43908668 1.7439345 0.43899316 0.82798815 -0.29657096 0.066545814 -0.69742382 0.98958391 -1.1783036 0.78235036 -0.19065106 1.1712471 0.75086898 1.8206462 0.7307747 -1.5720402 -0.066953175 -1.1720072")),
        ],
        &[("kernel_shape", Attr::Ints(vec![3, 2])), ("pads", Attr::Ints(vec![1, 0, 1, 1])), ("strides", Attr::Ints(vec![2, 2])), ("p", Attr::Int(3))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 2, 2, 3], "0.32986653 1.4838462 2.8159733 1.8542638 1.8724905 1.7815639 1.9508407 1.789238 1.0175813 2.0903399 1.8006675 1.4426163"));
}

#[test]
fn lppool_1d_default_p() {
    let out = run(
        Opcode::LpPool,
        &[Some(parse(DType::F32, &[1, 1, 6], "-0.51827985 1.5112284 0.63753378 -0.69893044 -1.0137174 0.032782093"))],
        &[("kernel_shape", Attr::Ints(vec![2]))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 1, 5], "1.5976312 1.6402014 0.94601959 1.231311 1.0142473"));
}
