//! Shape inference of BatchNormalization, LayerNormalization and Softmax.

use crate::common::text::*;

// ---------------------------------------------------------------- Normalization

#[test]
fn batch_norm() {
    let ops = ["f32[N, 64, h, w]", "f32[64]", "f32[64]", "f32[64]", "f32[64]"];
    assert_eq!(ok(Opcode::BatchNormalization, &ops, &none()), "f32[N, 64, h, w]");
    let out = infer_full(Opcode::BatchNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f32[N, 64, h, w]", "f32[64]", "f32[64]"]);
    // Stats take the most precise channel count and the mean's element type.
    let ops = ["f16[N, c, 4]", "f16[?]", "f16[64]", "f32[?]", "f32[?]"];
    let out = infer_full(Opcode::BatchNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f16[N, c, 4]", "f32[64]", "f32[64]"]);
    let bad = ["f32[N, 64, h, w]", "f32[32]", "f32[64]", "f32[64]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "scale f32[32]");
    let bad = ["f32[N, 64, h, w]", "f32[64]", "f32[64]", "f32[64, 1]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "1-D");
    let bad = ["f32[N, 64, h, w]", "f32[64]", "f16[64]", "f32[64]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "element type");
}

#[test]
fn layer_norm() {
    let ops = ["f32[b, s, 768]", "f32[768]", "f32[768]"];
    assert_eq!(ok(Opcode::LayerNormalization, &ops, &none()), "f32[b, s, 768]");
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f32[b, s, 768]", "f32[b, s, 1]", "f32[b, s, 1]"]);
    let ops = ["f16[b, s, 12, 64]", "f16[12, 64]", ""];
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &int(none(), "axis", -2), 2).unwrap();
    assert_eq!(out, ["f16[b, s, 12, 64]", "f32[b, s, 1, 1]"]);
    let stash = int(int(none(), "axis", 1), "stash_type", 10);
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &stash, 3).unwrap();
    assert_eq!(out, ["f16[b, s, 12, 64]", "f16[b, 1, 1, 1]", "f16[b, 1, 1, 1]"]);
}

#[test]
fn layer_norm_errors() {
    let ops = ["f32[b, s, 768]", "f32[768]", ""];
    err(Opcode::LayerNormalization, &ops, &int(none(), "axis", 3), "out of range");
    err(Opcode::LayerNormalization, &ops, &int(none(), "axis", -4), "out of range");
    err(Opcode::LayerNormalization, &["f32[b, s, 768]", "f32[512]"], &none(), "Scale f32[512] does not broadcast");
    err(Opcode::LayerNormalization, &["f32[b, s, 768]", "f16[768]"], &none(), "element type");
    err(Opcode::LayerNormalization, &ops, &int(none(), "stash_type", 7), "stash_type");
}

// ---------------------------------------------------------------- Softmax

#[test]
fn softmax_axes() {
    for axis in [-3, -1, 0, 2] {
        let a = int(none(), "axis", axis);
        assert_eq!(ok(Opcode::Softmax, &["f32[b, s, 10]"], &a), "f32[b, s, 10]");
        assert_eq!(ok(Opcode::LogSoftmax, &["f32[b, s, 10]"], &a), "f32[b, s, 10]");
    }
    assert_eq!(ok(Opcode::Softmax, &["f16[4]"], &none()), "f16[4]");
    assert_eq!(ok(Opcode::Softmax, &["f32[*]"], &int(none(), "axis", 7)), "f32[*]");
}

#[test]
fn softmax_errors() {
    err(Opcode::Softmax, &["f32[b, s, 10]"], &int(none(), "axis", 3), "axis");
    err(Opcode::Softmax, &["f32[b, s, 10]"], &int(none(), "axis", -4), "out of range [-3, 2]");
    err(Opcode::Softmax, &["f32[]"], &none(), "out of range");
    err(Opcode::LogSoftmax, &["i64[3]"], &none(), "float");
}
