//! Shape inference of AffineGrid.

use crate::common::listed_consts::*;

#[test]
fn affine_grid_shapes() {
    let ag = Opcode::AffineGrid;
    let out = infer_c(ag, &["f32[N, 2, 3]", "i64[4]"], &[(1, &[2, 3, 5, 6])], &[], 1).unwrap();
    assert_eq!(out, ["f32[2, 5, 6, 2]"]);
    let out = infer_c(ag, &["f64[N, 3, 4]", "i64[5]"], &[], &[], 1).unwrap();
    assert_eq!(out, ["f64[N, ?, ?, ?, 3]"]);
    let out = infer_c(ag, &["f32[N, 2, 3]", "i64[?]"], &[], &[], 1).unwrap();
    assert_eq!(out, ["f32[N, ?, ?, 2]"]);
    let e = infer_c(ag, &["f32[N, 2, 3]", "i64[5]"], &[], &[], 1).unwrap_err();
    assert!(e.contains("theta"), "{e}");
    let e = infer_c(ag, &["f32[3, 2, 3]", "i64[4]"], &[(1, &[2, 3, 5, 6])], &[], 1).unwrap_err();
    assert!(e.contains("disagree"), "{e}");
    assert!(infer_c(ag, &["f32[N, 2, 3]", "i64[6]"], &[], &[], 1).is_err());
}
