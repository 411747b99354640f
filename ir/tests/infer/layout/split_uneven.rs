//! Shape inference of Split with an uneven `num_outputs`.

use crate::common::listed_consts::*;

#[test]
fn split_uneven_shapes() {
    let out = infer(Opcode::Split, &["f32[5, s]", ""], &[("num_outputs", int(4))], 4).unwrap();
    assert_eq!(out, ["f32[2, s]", "f32[2, s]", "f32[1, s]", "f32[0, s]"]);
    let out = infer(Opcode::Split, &["f32[7]", ""], &[("num_outputs", int(3))], 3).unwrap();
    assert_eq!(out, ["f32[3]", "f32[3]", "f32[1]"]);
}
