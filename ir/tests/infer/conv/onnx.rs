//! Shape inference of Conv and ConvTranspose: strides, pads, dilations, groups, auto_pad,
//! symbolic dims and errors.

use crate::common::text::*;

// ---------------------------------------------------------------- Conv

#[test]
fn conv_strides_and_pads() {
    let a = ints(&[("strides", &[2, 2]), ("pads", &[3, 3, 3, 3])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 224, 224]", "f32[64, 3, 7, 7]", "f32[64]"], &a), "f32[1, 64, 112, 112]");
    // Asymmetric pads: [h_begin, w_begin, h_end, w_end].
    let a = ints(&[("pads", &[1, 0, 0, 2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 5, 6]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 4, 6]");
}

#[test]
fn conv_dilations() {
    let a = ints(&[("dilations", &[2, 2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 10, 10]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 6, 6]");
    let a = ints(&[("dilations", &[2, 1]), ("strides", &[3, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 10, 10]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 2, 8]");
}

#[test]
fn conv_groups() {
    let dw = int(ints(&[("pads", &[1, 1, 1, 1])]), "group", 32);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 32, 56, 56]", "f32[32, 1, 3, 3]"], &dw), "f32[1, 32, 56, 56]");
    let g2 = int(none(), "group", 2);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[16, 4, 3, 3]"], &g2), "f32[1, 16, 8, 8]");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[16, 8, 3, 3]"], &g2, "channels");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[6, 2, 3, 3]"], &int(none(), "group", 4), "divisible");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[8, 8, 3, 3]"], &int(none(), "group", 0), "group");
}

#[test]
fn conv_auto_pad_same() {
    let w = "f32[8, 3, 3, 3]";
    for mode in ["SAME_UPPER", "SAME_LOWER"] {
        let a = string(ints(&[("strides", &[2, 2])]), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 7, 8]", w], &a), "f32[1, 8, 4, 4]", "{mode}");
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 9, 1]", w], &a), "f32[1, 8, 5, 1]", "{mode}");
        let a = string(ints(&[("strides", &[3, 3])]), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 10, 11]", "f32[8, 3, 1, 1]"], &a), "f32[1, 8, 4, 4]");
        // Stride 1 keeps every input size, symbolic ones included.
        let a = string(none(), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[n, 3, h, 5]", "f32[8, 3, 4, 4]"], &a), "f32[n, 8, h, 5]");
    }
    let bad = string(ints(&[("pads", &[1, 1, 1, 1])]), "auto_pad", "SAME_UPPER");
    err(Opcode::Conv, &["f32[1, 3, 7, 7]", w], &bad, "auto_pad");
}

#[test]
fn conv_auto_pad_valid() {
    let a = string(ints(&[("strides", &[2, 2])]), "auto_pad", "VALID");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 7, 8]", "f32[8, 3, 3, 3]"], &a), "f32[1, 8, 3, 3]");
    let a = string(none(), "auto_pad", "VALID");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, h, 8]", "f32[8, 3, 3, 3]"], &a), "f32[1, 8, ?, 6]");
}

#[test]
fn conv_symbolic_dims() {
    let w = "f32[8, 3, 3, 3]";
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, 32, 32]", w], &none()), "f32[N, 8, 30, 30]");
    // Arithmetic on a symbol is unknown...
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", w], &ints(&[("strides", &[2, 2])])), "f32[N, 8, ?, ?]");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, h, ?]", w], &none()), "f32[1, 8, ?, ?]");
    // ...unless the formula is the identity.
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", "f32[8, 3, 1, 1]"], &none()), "f32[N, 8, h, w]");
    let same = ints(&[("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", w], &same), "f32[N, 8, h, w]");
    // Channel count against a symbol is not an error.
    assert_eq!(ok(Opcode::Conv, &["f32[1, c, 4, 4]", w], &none()), "f32[1, 8, 2, 2]");
    // Unranked X: rank from W.
    assert_eq!(ok(Opcode::Conv, &["f32[*]", w], &none()), "f32[?, 8, ?, ?]");
    assert_eq!(ok(Opcode::Conv, &["f32[*]", "f32[*]"], &none()), "f32[*]");
}

#[test]
fn conv_1d_and_3d() {
    let a = ints(&[("strides", &[2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 4, 10]", "f32[8, 4, 3]"], &a), "f32[1, 8, 4]");
    let a = ints(&[("strides", &[1, 2, 2]), ("pads", &[1, 1, 1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[2, 3, 8, 16, 16]", "f32[4, 3, 3, 3, 3]"], &a), "f32[2, 4, 8, 8, 8]");
}

#[test]
fn conv_errors() {
    let (x, w) = ("f32[1, 3, 8, 8]", "f32[8, 3, 3, 3]");
    err(Opcode::Conv, &["f32[1, 3, 8, 8]", "f32[8, 4, 3, 3]"], &none(), "channels");
    err(Opcode::Conv, &[x, "f32[8, 3, 3]"], &none(), "same rank");
    err(Opcode::Conv, &["f32[1, 8]", "f32[8, 3]"], &none(), "rank ≥ 3");
    err(Opcode::Conv, &[x, w], &ints(&[("kernel_shape", &[5, 5])]), "kernel_shape");
    assert_eq!(ok(Opcode::Conv, &[x, "f32[8, 3, ?, ?]"], &ints(&[("kernel_shape", &[5, 5])])), "f32[1, 8, 4, 4]");
    err(Opcode::Conv, &[x, w], &ints(&[("pads", &[1, 1])]), "pads");
    err(Opcode::Conv, &[x, w], &ints(&[("pads", &[-1, 0, 0, 0])]), "pads");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[0, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[-2, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[1, 1, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("dilations", &[0, 1])]), "dilations");
    err(Opcode::Conv, &[x, w, "f32[4]"], &none(), "B f32[4]");
    err(Opcode::Conv, &["i32[1, 3, 8, 8]", "i32[8, 3, 3, 3]"], &none(), "float");
    err(Opcode::Conv, &[x, "f16[8, 3, 3, 3]"], &none(), "element type");
    err(Opcode::Conv, &["f32[1, 3, 2, 8]", w], &none(), "smaller than the dilated kernel");
    // Absurd attribute values give an error, never a panic or a wrapped number.
    err(Opcode::Conv, &[x, w], &ints(&[("dilations", &[i64::MAX, 1])]), "smaller");
    let huge = ints(&[("strides", &[i64::MAX, 1])]);
    err(Opcode::ConvTranspose, &["f32[1, 8, 8, 8]", "f32[8, 3, 3, 3]"], &huge, "overflows");
}

// ---------------------------------------------------------------- ConvTranspose

#[test]
fn conv_transpose_output_padding() {
    let a = ints(&[("strides", &[2, 2]), ("pads", &[1, 1, 1, 1]), ("output_padding", &[1, 1])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]", "f32[8]"], &a), "f32[1, 8, 16, 16]");
    let a = ints(&[("strides", &[2, 2])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]"], &a), "f32[1, 8, 17, 17]");
    let a = ints(&[("strides", &[2, 2]), ("output_padding", &[2, 0])]);
    err(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]"], &a, "output_padding");
}

#[test]
fn conv_transpose_output_shape() {
    let (x, w) = ("f32[N, 16, 8, 8]", "f32[16, 8, 3, 3]");
    let a = ints(&[("strides", &[2, 2]), ("output_shape", &[16, 17])]);
    assert_eq!(ok(Opcode::ConvTranspose, &[x, w], &a), "f32[N, 8, 16, 17]");
    let a = ints(&[("strides", &[2, 2]), ("output_shape", &[1, 8, 16, 16])]);
    assert_eq!(ok(Opcode::ConvTranspose, &[x, w], &a), "f32[N, 8, 16, 16]");
    err(Opcode::ConvTranspose, &[x, w], &ints(&[("output_shape", &[16, 16, 16])]), "output_shape");
}

#[test]
fn conv_transpose_groups_and_auto_pad() {
    let a = int(none(), "group", 4);
    assert_eq!(
        ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 4, 3, 3]", "f32[16]"], &a),
        "f32[1, 16, 10, 10]"
    );
    err(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 4, 3, 3]", "f32[4]"], &a, "B f32[4]");
    err(Opcode::ConvTranspose, &["f32[1, 8, 8, 8]", "f32[16, 4, 3, 3]"], &a, "channels");
    let same = string(ints(&[("strides", &[2, 2])]), "auto_pad", "SAME_UPPER");
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 7, h]", "f32[16, 8, 3, 3]"], &same), "f32[1, 8, 14, ?]");
    // Identity on symbols: stride 1, kernel 3, pads 1.
    let id = ints(&[("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[n, 16, h, w]", "f32[16, 8, 3, 3]"], &id), "f32[n, 8, h, w]");
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 4, 5]", "f32[4, 2, 3]"], &int(none(), "group", 2)), "f32[1, 4, 7]");
}
