//! Shape inference of DeformConv.

use crate::common::listed_consts::*;

#[test]
fn deform_conv_shapes() {
    let dc = Opcode::DeformConv;
    let k = [("kernel_shape", Attr::Ints(vec![2, 2]))];
    let out = one(dc, &["f32[N, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[N, 8, ?, 4]", "f32[4]", "f32[N, 4, 4, ?]"], &k);
    assert_eq!(out, "f32[N, 4, 4, 4]");
    assert_eq!(one(dc, &["f32[*]", "f32[*]", "f32[*]", "", ""], &k), "f32[?, ?, ?, ?]");
    assert_eq!(one(dc, &["f32[*]", "f32[*]", "f32[*]", "", ""], &[]), "f32[*]");
    let g = [("group", int(2)), ("offset_group", int(2))];
    assert_eq!(one(dc, &["f64[1, 4, h, w]", "f64[6, 2, 3, 3]", "f64[1, 36, ?, ?]", "", ""], &g), "f64[1, 6, ?, ?]");
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 6, 4, 4]", "", ""], &[]).contains("offset"));
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 3, 4]", "", ""], &[]).contains("offset"));
    assert!(err(dc, &["f32[1, 3, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", ""], &[]).contains("channels"));
    let bad_mask = ["f32[1, 2, 5, 5]", "f32[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", "f32[1, 8, 4, 4]"];
    assert!(err(dc, &bad_mask, &[]).contains("mask"));
    assert!(err(dc, &["f32[1, 2, 5, 5]", "f16[4, 2, 2, 2]", "f32[1, 8, 4, 4]", "", ""], &[]).contains("element type"));
}
