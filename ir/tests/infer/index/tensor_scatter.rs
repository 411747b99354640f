//! Shape inference of TensorScatter.

use crate::common::listed_consts::*;

#[test]
fn tensor_scatter_shapes() {
    let ts = Opcode::TensorScatter;
    assert_eq!(one(ts, &["f32[B, 2, 8, ?]", "f32[?, 2, s, 4]", "i64[B]"], &[]), "f32[B, 2, 8, 4]");
    assert_eq!(one(ts, &["string[B, 8]", "string[B, 1]", ""], &[("axis", int(1))]), "string[B, 8]");
    assert!(err(ts, &["f32[B, 8]", "f32[B, 1]", ""], &[]).contains("batch axis"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 5, 3]", ""], &[("axis", int(1))]).contains("does not fit"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 2]", ""], &[("axis", int(1))]).contains("does not fit"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 3]", "i32[2]"], &[("axis", int(1))]).contains("i64"));
    assert!(err(ts, &["f32[2, 4, 3]", "f32[2, 1, 3]", "i64[3]"], &[("axis", int(1))]).contains("batch"));
}
