//! Element-type coverage: bf16/f16 paths, stash types, mixed operand types.

use crate::common::nn::*;

/// bf16 tensors compute in f32 and round once.
#[test]
fn bf16_softmax_and_conv() {
    let x = bf16t(&[1, 4], &[2.0, 2.0, 2.0, 2.0]);
    check(&run(Opcode::Softmax, &[Some(x)], &[], 1)[0], &bf16t(&[1, 4], &[0.25; 4]));
    let x = bf16t(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let w = bf16t(&[1, 1, 1, 1], &[0.5]);
    check(&run(Opcode::Conv, &[Some(x), Some(w)], &[], 1)[0], &bf16t(&[1, 1, 2, 2], &[0.5, 1.0, 1.5, 2.0]));
}

/// `stash_type = 11` gives f64 Mean/InvStdDev for an f32 X (by hand: mean 2, var 1).
#[test]
fn layer_norm_stash_type_f64() {
    let x = f32t(&[1, 2], &[1.0, 3.0]);
    let out = run(
        Opcode::LayerNormalization,
        &[Some(x), Some(f32t(&[2], &[1.0, 1.0]))],
        &[("stash_type", Attr::Int(11)), ("epsilon", Attr::Float(0.0))],
        3,
    );
    check(&out[0], &f32t(&[1, 2], &[-1.0, 1.0]));
    check(&out[1], &f64t(&[1, 1], &[2.0]));
    check(&out[2], &f64t(&[1, 1], &[1.0]));
}

/// RMSNormalization's result has the scale's element type (by hand: rms of [3, 4] over
/// the last axis is sqrt(12.5)).
#[test]
fn rms_norm_result_has_scale_type() {
    let x = f16t(&[1, 2], &[3.0, 4.0]);
    let out =
        run(Opcode::RMSNormalization, &[Some(x), Some(f32t(&[2], &[1.0, 2.0]))], &[("epsilon", Attr::Float(0.0))], 1);
    let r = 12.5f32.sqrt();
    check(&out[0], &f32t(&[1, 2], &[3.0 / r, 8.0 / r]));
}

/// MaxPool on u8 and i8 (by hand), and nearest Resize of bool.
#[test]
fn integer_and_bool_paths() {
    let ks = [("kernel_shape", Attr::Ints(vec![2])), ("strides", Attr::Ints(vec![2]))];
    let x = u8t(&[1, 1, 4], &[7, 255, 0, 3]);
    check(&run(Opcode::MaxPool, &[Some(x)], &ks, 1)[0], &u8t(&[1, 1, 2], &[255, 3]));
    let x = i8t(&[1, 1, 4], &[-7, -128, 0, -3]);
    let out = run(Opcode::MaxPool, &[Some(x)], &ks, 2);
    check(&out[0], &i8t(&[1, 1, 2], &[-7, 0]));
    check(&out[1], &i64t(&[1, 1, 2], &[0, 2]));
    let b = boolt(&[2], &[true, false]);
    let out = run(Opcode::Resize, &[Some(b), None, Some(f32t(&[1], &[2.0]))], &[], 1);
    check(&out[0], &boolt(&[4], &[true, true, false, false]));
}

/// Gemm on u32 wraps the product, then scales in f64 and truncates.
#[test]
fn gemm_u32() {
    let a = u32t(&[1, 1], &[3]);
    let b = u32t(&[1, 1], &[5]);
    let c = u32t(&[1], &[1]);
    let out = run(Opcode::Gemm, &[Some(a), Some(b), Some(c)], &[("alpha", Attr::Float(0.5))], 1);
    check(&out[0], &u32t(&[1, 1], &[8]));
}
