//! Bad inputs are errors naming the problem, never panics.

use crate::common::nn::*;

fn f(shape: &[usize]) -> Option<Tensor> {
    Some(f32t(shape, &vec![1.0; shape.iter().product()]))
}

#[test]
fn matmul_and_gemm_shape_errors() {
    assert!(run_err(Opcode::MatMul, &[f(&[2, 3]), f(&[4, 2])], &[], 1).contains("3"));
    assert!(!run_err(Opcode::MatMul, &[f(&[2, 2, 3]), f(&[3, 3, 2])], &[], 1).is_empty());
    assert!(!run_err(Opcode::Gemm, &[f(&[2, 3]), f(&[2, 3])], &[], 1).is_empty());
    assert!(!run_err(Opcode::Gemm, &[f(&[2, 3]), f(&[3, 2]), f(&[3])], &[], 1).is_empty());
}

#[test]
fn conv_and_pool_errors() {
    // Channel mismatch, group not dividing, kernel larger than the padded input.
    assert!(!run_err(Opcode::Conv, &[f(&[1, 3, 5, 5]), f(&[2, 2, 3, 3])], &[], 1).is_empty());
    assert!(!run_err(Opcode::Conv, &[f(&[1, 4, 5, 5]), f(&[3, 2, 3, 3])], &[("group", Attr::Int(2))], 1).is_empty());
    assert!(!run_err(Opcode::Conv, &[f(&[1, 1, 2, 2]), f(&[1, 1, 3, 3])], &[], 1).is_empty());
    let ks = [("kernel_shape", Attr::Ints(vec![2, 2]))];
    assert!(!run_err(Opcode::MaxPool, &[f(&[1, 1, 4])], &ks, 1).is_empty());
    assert!(!run_err(Opcode::AveragePool, &[f(&[1, 1, 4, 4])], &[], 1).is_empty());
}

#[test]
fn batch_norm_training_mode_is_rejected() {
    let c = || f(&[2]);
    let e = run_err(
        Opcode::BatchNormalization,
        &[f(&[1, 2, 2]), c(), c(), c(), c()],
        &[("training_mode", Attr::Int(1))],
        1,
    );
    assert!(e.contains("training_mode"), "{e}");
}

#[test]
fn axis_and_attribute_errors() {
    assert!(run_err(Opcode::Softmax, &[f(&[2, 3])], &[("axis", Attr::Int(2))], 1).contains("axis"));
    assert!(!run_err(Opcode::LpNormalization, &[f(&[2, 3])], &[("p", Attr::Int(3))], 1).is_empty());
    assert!(!run_err(
        Opcode::GroupNormalization,
        &[f(&[1, 4, 2]), f(&[4]), f(&[4])],
        &[("num_groups", Attr::Int(3))],
        1
    )
    .is_empty());
    assert!(!run_err(Opcode::DepthToSpace, &[f(&[1, 3, 2, 2])], &[("blocksize", Attr::Int(2))], 1).is_empty());
    assert!(!run_err(Opcode::SpaceToDepth, &[f(&[1, 1, 3, 2])], &[("blocksize", Attr::Int(2))], 1).is_empty());
}

#[test]
fn index_out_of_range_errors() {
    let ks = [("kernel_shape", Attr::Ints(vec![2])), ("strides", Attr::Ints(vec![2]))];
    let e = run_err(Opcode::MaxUnpool, &[f(&[1, 1, 2]), Some(i64t(&[1, 1, 2], &[0, 9]))], &ks, 1);
    assert!(e.contains("out of range"), "{e}");
    let rois = f32t(&[1, 4], &[0.0, 0.0, 1.0, 1.0]);
    let e = run_err(Opcode::RoiAlign, &[f(&[1, 1, 2, 2]), Some(rois), Some(ints(&[3]))], &[], 1);
    assert!(e.contains("out of range"), "{e}");
    let cache = f32t(&[2, 1], &[1.0, 1.0]);
    let e = run_err(
        Opcode::RotaryEmbedding,
        &[f(&[1, 1, 1, 2]), Some(cache.clone()), Some(cache), Some(i64t(&[1, 1], &[5]))],
        &[],
        1,
    );
    assert!(e.contains("out of range"), "{e}");
    let lens = i32t(&[1], &[5]);
    let e = run_err(Opcode::RNN, &[f(&[2, 1, 1]), f(&[1, 1, 1]), f(&[1, 1, 1]), None, Some(lens)], &[], 2);
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn resize_and_einsum_errors() {
    let x = f(&[1, 1, 2, 2]);
    let both =
        run_err(Opcode::Resize, &[x.clone(), None, Some(f32t(&[4], &[1.0; 4])), Some(ints(&[1, 1, 4, 4]))], &[], 1);
    assert!(both.contains("only one"), "{both}");
    assert!(!run_err(Opcode::Resize, &[x.clone(), None, Some(f32t(&[4], &[1.0, 1.0, 0.0, 2.0]))], &[], 1).is_empty());
    let lin = [("mode", Attr::Str("linear".into()))];
    let s = Some(t(&[1, 1], Data::String(vec!["a".into()])));
    assert!(!run_err(Opcode::Resize, &[s, None, Some(f32t(&[2], &[1.0, 2.0]))], &lin, 1).is_empty());
    let eq = |e: &str| [("equation", Attr::Str(e.into()))];
    assert!(!run_err(Opcode::Einsum, &[f(&[2, 3]), f(&[2, 3])], &eq("ij,jk->ik"), 1).is_empty());
    assert!(!run_err(Opcode::Einsum, &[f(&[2, 3])], &eq("ij,jk"), 1).is_empty());
    assert!(!run_err(Opcode::Einsum, &[f(&[2, 3])], &eq("i1"), 1).is_empty());
    assert!(!run_err(Opcode::Einsum, &[f(&[2, 3])], &eq("ijk"), 1).is_empty());
}

#[test]
fn sampling_and_attention_errors() {
    assert!(!run_err(Opcode::GridSample, &[f(&[1, 1, 3, 3]), f(&[1, 2, 2, 3])], &[], 1).is_empty());
    assert!(!run_err(Opcode::Attention, &[f(&[1, 3, 2, 4]), f(&[1, 2, 2, 4]), f(&[1, 2, 2, 4])], &[], 1).is_empty());
    assert!(!run_err(Opcode::Attention, &[f(&[1, 2, 6]), f(&[1, 2, 6]), f(&[1, 2, 6])], &[], 1).is_empty());
    let e = run_err(Opcode::Col2Im, &[f(&[1, 4, 5]), Some(ints(&[3, 3])), Some(ints(&[2, 2]))], &[], 1);
    assert!(!e.is_empty());
}
