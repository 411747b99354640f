//! DepthToSpace and SpaceToDepth (both modes, several element types).

use crate::common::nn::*;

/// DepthToSpace and SpaceToDepth (DCR) are inverses, for any element type.
#[test]
fn depth_space_roundtrip_strings() {
    let v: Vec<String> = (0..16).map(|i| i.to_string()).collect();
    let x = t(&[1, 4, 2, 2], Data::String(v));
    let b = [("blocksize", Attr::Int(2))];
    let y = run(Opcode::DepthToSpace, &[Some(x.clone())], &b, 1).remove(0);
    assert_eq!(y.shape, vec![1, 1, 4, 4]);
    let back = run(Opcode::SpaceToDepth, &[Some(y)], &b, 1).remove(0);
    assert_eq!(back, x);
}

/// Mirrors test_depthtospace_example.
#[test]
fn depthtospace_example() {
    let out = run(
        Opcode::DepthToSpace,
        &[
            Some(parse(DType::F32, &[1, 8, 2, 3], "0 1 2 3 4 5 9 10 11 12 13 14 18 19 20 21 22 23 27 28 29 30 31 32 36 37 38 39 40 41 45 46 47 48 49 50 54 55 56 57 58 59 63 64 65 66 67 68")),
        ],
        &[("blocksize", Attr::Int(2)), ("mode", Attr::Str("DCR".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 2, 4, 6], "0 18 1 19 2 20 36 54 37 55 38 56 3 21 4 22 5 23 39 57 40 58 41 59 9 27 10 28 11 29 45 63 46 64 47 65 12 30 13 31 14 32 48 66 49 67 50 68"));
}

/// Mirrors test_depthtospace_crd_mode_example.
#[test]
fn depthtospace_crd_mode_example() {
    let out = run(
        Opcode::DepthToSpace,
        &[
            Some(parse(DType::F32, &[1, 8, 2, 3], "0 1 2 3 4 5 9 10 11 12 13 14 18 19 20 21 22 23 27 28 29 30 31 32 36 37 38 39 40 41 45 46 47 48 49 50 54 55 56 57 58 59 63 64 65 66 67 68")),
        ],
        &[("blocksize", Attr::Int(2)), ("mode", Attr::Str("CRD".into()))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 2, 4, 6], "0 9 1 10 2 11 18 27 19 28 20 29 3 12 4 13 5 14 21 30 22 31 23 32 36 45 37 46 38 47 54 63 55 64 56 65 39 48 40 49 41 50 57 66 58 67 59 68"));
}

/// Mirrors test_spacetodepth_example.
#[test]
fn spacetodepth_example() {
    let out = run(
        Opcode::SpaceToDepth,
        &[Some(parse(DType::F32, &[1, 1, 4, 6], "0 6 1 7 2 8 12 18 13 19 14 20 3 9 4 10 5 11 15 21 16 22 17 23"))],
        &[("blocksize", Attr::Int(2))],
        1,
    );
    check(&out[0], &parse(DType::F32, &[1, 4, 2, 3], "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"));
}

#[test]
fn depth_to_space_crd_i64() {
    let out = run(
        Opcode::DepthToSpace,
        &[Some(parse(DType::I64, &[1, 8, 1, 2], "53 76 60 93 86 75 60 28 41 11 37 92 42 11 65 96"))],
        &[("blocksize", Attr::Int(2)), ("mode", Attr::Str("CRD".into()))],
        1,
    );
    check(&out[0], &parse(DType::I64, &[1, 2, 2, 4], "53 60 76 93 86 60 75 28 41 37 11 92 42 65 11 96"));
}

#[test]
fn space_to_depth_b3_f16() {
    let out = run(
        Opcode::SpaceToDepth,
        &[
            Some(parse(DType::F16, &[1, 1, 3, 6], "-1.4667969 2.1289062 -1.2871094 -1.0966797 1.8369141 2.9042969 -1.171875 -0.36816406 0.34155273 1.7285156 -0.98681641 -0.24523926 0.77734375 0.43481445 -0.3762207 -0.13378906 -1.375 -0.23815918")),
        ],
        &[("blocksize", Attr::Int(3))],
        1,
    );
    check(&out[0], &parse(DType::F16, &[1, 9, 1, 2], "-1.4667969 -1.0966797 2.1289062 1.8369141 -1.2871094 2.9042969 -1.171875 1.7285156 -0.36816406 -0.98681641 0.34155273 -0.24523926 0.77734375 -0.13378906 0.43481445 -1.375 -0.3762207 -0.23815918"));
}
