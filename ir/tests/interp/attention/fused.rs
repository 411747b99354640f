//! `core.attention` against the unfused `onnx.*` chain: fully masked rows and causal alignment.

use crate::common::fused::*;

#[test]
fn attention_rows_with_every_key_masked_are_nan() {
    let q = f32t(&[2, 1], &[1.0, 2.0]);
    let k = f32t(&[2, 1], &[0.5, -1.0]);
    let v = f32t(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let mask = t(&[2, 2], Data::Bool(vec![false, false, true, false]));
    let attrs = Attrs::new().with("scale", Attr::Float(0.5));
    let y = run(Opcode::CoreAttention, &[Some(q), Some(k), Some(v), Some(mask)], attrs);
    let y = y.to_f64s();
    assert!(y[0].is_nan() && y[1].is_nan(), "{y:?}");
    assert_eq!(&y[2..], &[1.0, 2.0]);
}

#[test]
fn causal_attention_is_top_left_aligned() {
    // Sq = 2, Sk = 3: query 0 sees key 0 only, query 1 sees keys 0 and 1.
    let q = f32t(&[2, 1], &[0.0, 0.0]);
    let k = f32t(&[3, 1], &[0.0, 0.0, 0.0]);
    let v = f32t(&[3, 1], &[3.0, 5.0, 100.0]);
    let attrs = Attrs::new().with("scale", Attr::Float(1.0)).with("causal", Attr::Int(1));
    let y = run(Opcode::CoreAttention, &[Some(q), Some(k), Some(v)], attrs);
    assert_eq!(y.to_f64s(), vec![3.0, 4.0]);
}
