//! Shape inference of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

use crate::common::listed_consts::*;

#[test]
fn loss_shapes() {
    let nll = Opcode::NegativeLogLikelihoodLoss;
    let none = [("reduction", s("none"))];
    assert_eq!(one(nll, &["f32[N, 5, d]", "i64[N, ?]", "f32[5]"], &none), "f32[N, d]");
    assert_eq!(one(nll, &["f16[N, 5]", "i32[*]", ""], &[]), "f16[]");
    assert_eq!(one(nll, &["f32[*]", "i64[N, 3]", ""], &none), "f32[N, 3]");
    assert_eq!(one(nll, &["f64[2, C, 4]", "i64[*]", ""], &none), "f64[2, 4]");
    assert!(err(nll, &["f32[2, 5, 3]", "i64[2, 4]", ""], &none).contains("disagree"));
    assert!(err(nll, &["f32[2, 5, 3]", "i64[2]", ""], &none).contains("rank"));
    assert!(err(nll, &["f32[2, 5]", "i64[2]", "f32[4]"], &[]).contains("weight"));
    assert!(err(nll, &["f32[2, 5]", "f32[2]", ""], &[]).contains("i32 or i64"));
    assert!(err(nll, &["i64[2, 5]", "i64[2]", ""], &[]).contains("float"));
    let sce = Opcode::SoftmaxCrossEntropyLoss;
    let out = infer(sce, &["bf16[B, 3, s]", "i64[B, s]", ""], &none, 2).unwrap();
    assert_eq!(out, ["bf16[B, s]", "bf16[B, 3, s]"]);
    assert_eq!(infer(sce, &["f32[B, 3]", "i64[B]", ""], &[], 1).unwrap(), ["f32[]"]);
}
