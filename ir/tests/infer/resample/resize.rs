//! Shape inference of Resize (constant scales / sizes, axes, keep_aspect_ratio).

use crate::common::text::*;

// ---------------------------------------------------------------- Resize

fn resize(x: &str, scales: Option<&Constant>, sizes: Option<&Constant>, attrs: &Attrs) -> Result<String, String> {
    let sc = scales.map_or(String::new(), |c| c.ty.to_string());
    let sz = sizes.map_or(String::new(), |c| c.ty.to_string());
    infer_full(Opcode::Resize, &[x, "", &sc, &sz], &[None, None, scales, sizes], attrs, 1).map(|mut v| v.remove(0))
}

#[test]
fn resize_constant_scales() {
    let s = Constant::from_f32s("s", &[4], &[1.0, 1.0, 2.0, 0.5]);
    assert_eq!(resize("f32[N, 3, 10, 20]", Some(&s), None, &none()).unwrap(), "f32[N, 3, 20, 10]");
    assert_eq!(resize("f32[N, 3, h, 20]", Some(&s), None, &none()).unwrap(), "f32[N, 3, ?, 10]");
    let s = Constant::from_f32s("s", &[4], &[1.0, 1.0, 1.5, 1.5]);
    assert_eq!(resize("u8[1, 1, 5, 4]", Some(&s), None, &none()).unwrap(), "u8[1, 1, 7, 6]");
    let bad = Constant::from_f32s("s", &[4], &[1.0, 1.0, 0.0, 2.0]);
    assert!(resize("f32[1, 1, 5, 4]", Some(&bad), None, &none()).unwrap_err().contains("positive"));
    let short = Constant::from_f32s("s", &[3], &[1.0, 2.0, 2.0]);
    assert!(resize("f32[1, 1, 5, 4]", Some(&short), None, &none()).unwrap_err().contains("expected 4"));
}

#[test]
fn resize_constant_sizes() {
    let sz = Constant::from_i64s("sz", &[4], &[1, 3, 64, 48]);
    assert_eq!(resize("f32[1, 3, h, w]", None, Some(&sz), &none()).unwrap(), "f32[1, 3, 64, 48]");
    // Opset-11 style: an empty `scales` next to `sizes` counts as absent.
    let empty = Constant::from_f32s("e", &[0], &[]);
    assert_eq!(resize("f32[1, 3, h, w]", Some(&empty), Some(&sz), &none()).unwrap(), "f32[1, 3, 64, 48]");
    let s = Constant::from_f32s("s", &[4], &[1.0, 1.0, 2.0, 2.0]);
    assert!(resize("f32[1, 3, 4, 4]", Some(&s), Some(&sz), &none()).unwrap_err().contains("only one"));
    assert!(resize("f32[1, 3, 4, 4]", Some(&empty), None, &none()).unwrap_err().contains("must be given"));
}

#[test]
fn resize_non_constant_gives_unknown_dims_of_same_rank() {
    let r = |ops: &[&str], a: &Attrs| infer(Opcode::Resize, ops, a);
    assert_eq!(r(&["f32[N, 3, 8, 8]", "", "", "i64[4]"], &none()).unwrap(), "f32[?, ?, ?, ?]");
    assert_eq!(r(&["f32[N, 3, 8, 8]", "", "f32[4]"], &none()).unwrap(), "f32[?, ?, ?, ?]");
    assert_eq!(r(&["f32[N, 3, 8, 8]", "", "f32[?]"], &none()).unwrap(), "f32[?, ?, ?, ?]");
    let axes = ints(&[("axes", &[2, 3])]);
    assert_eq!(r(&["f32[N, 3, 8, 8]", "", "", "i64[2]"], &axes).unwrap(), "f32[N, 3, ?, ?]");
    assert_eq!(r(&["f32[*]", "", "", "i64[4]"], &none()).unwrap(), "f32[*]");
    assert!(r(&["f32[N, 3, 8, 8]", "", "", "i64[3]"], &none()).unwrap_err().contains("expected 4"));
    assert!(r(&["f32[N, 3, 8, 8]", "", "", "i32[4]"], &none()).unwrap_err().contains("i64"));
    assert!(r(&["f32[N, 3, 8, 8]", "", "f32[4]", "i64[4]"], &none()).unwrap_err().contains("only one"));
}

#[test]
fn resize_axes_attr() {
    let sz = Constant::from_i64s("sz", &[2], &[64, 48]);
    let axes = ints(&[("axes", &[2, 3])]);
    assert_eq!(resize("f32[N, 3, 32, 32]", None, Some(&sz), &axes).unwrap(), "f32[N, 3, 64, 48]");
    let s = Constant::from_f32s("s", &[1], &[2.0]);
    assert_eq!(resize("f32[N, 3, h, 32]", Some(&s), None, &ints(&[("axes", &[-1])])).unwrap(), "f32[N, 3, h, 64]");
    assert!(resize("f32[N, 3, 32, 32]", None, Some(&sz), &ints(&[("axes", &[2, -2])]))
        .unwrap_err()
        .contains("repeats"));
    assert!(resize("f32[N, 3, 32, 32]", None, Some(&sz), &ints(&[("axes", &[2, 4])])).unwrap_err().contains("axes"));
}

#[test]
fn resize_keep_aspect_ratio() {
    let sz = Constant::from_i64s("sz", &[2], &[50, 50]);
    let axes = ints(&[("axes", &[2, 3])]);
    let larger = string(axes.clone(), "keep_aspect_ratio_policy", "not_larger");
    let smaller = string(axes.clone(), "keep_aspect_ratio_policy", "not_smaller");
    assert_eq!(resize("f32[1, 3, 100, 200]", None, Some(&sz), &larger).unwrap(), "f32[1, 3, 25, 50]");
    assert_eq!(resize("f32[1, 3, 100, 200]", None, Some(&sz), &smaller).unwrap(), "f32[1, 3, 50, 100]");
    // round(0.3 * 15) = round(≈4.5) = 5 (half away from zero, as ONNX's roundf).
    let sz3 = Constant::from_i64s("sz", &[2], &[3, 10]);
    assert_eq!(resize("f32[1, 3, 10, 15]", None, Some(&sz3), &larger).unwrap(), "f32[1, 3, 3, 5]");
    assert_eq!(resize("f32[1, 3, h, 200]", None, Some(&sz), &larger).unwrap(), "f32[1, 3, ?, ?]");
    let stretch = string(axes, "keep_aspect_ratio_policy", "stretch");
    assert_eq!(resize("f32[1, 3, h, 200]", None, Some(&sz), &stretch).unwrap(), "f32[1, 3, 50, 50]");
}
