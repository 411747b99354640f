//! Shape inference of MatMul and Gemm.

use crate::common::text::*;

// ---------------------------------------------------------------- MatMul

#[test]
fn matmul_2d() {
    assert_eq!(ok(Opcode::MatMul, &["f32[3, 4]", "f32[4, 5]"], &none()), "f32[3, 5]");
}

#[test]
fn matmul_batched_broadcast() {
    assert_eq!(ok(Opcode::MatMul, &["f32[2, 1, 3, 4]", "f32[5, 4, 6]"], &none()), "f32[2, 5, 3, 6]");
    assert_eq!(ok(Opcode::MatMul, &["f32[7, 3, 4]", "f32[4, 6]"], &none()), "f32[7, 3, 6]");
    err(Opcode::MatMul, &["f32[2, 3, 4]", "f32[3, 4, 5]"], &none(), "batch dims");
}

#[test]
fn matmul_1d_operands() {
    assert_eq!(ok(Opcode::MatMul, &["f32[4]", "f32[4, 5]"], &none()), "f32[5]");
    assert_eq!(ok(Opcode::MatMul, &["f32[3, 4]", "f32[4]"], &none()), "f32[3]");
    assert_eq!(ok(Opcode::MatMul, &["f32[4]", "f32[2, 4, 5]"], &none()), "f32[2, 5]");
    assert_eq!(ok(Opcode::MatMul, &["f32[4]", "f32[4]"], &none()), "f32[]");
}

#[test]
fn matmul_k_mismatch_is_an_error_only_when_static() {
    err(Opcode::MatMul, &["f32[3, 4]", "f32[5, 6]"], &none(), "K = 4");
    err(Opcode::MatMul, &["f32[3, 4]", "f32[5]"], &none(), "K = 5");
    assert_eq!(ok(Opcode::MatMul, &["f32[3, k]", "f32[4, 5]"], &none()), "f32[3, 5]");
    assert_eq!(ok(Opcode::MatMul, &["f32[3, ?]", "f32[4, 5]"], &none()), "f32[3, 5]");
}

#[test]
fn matmul_symbolic_dims_pass_through() {
    assert_eq!(ok(Opcode::MatMul, &["f32[batch, seq, 64]", "f32[64, 128]"], &none()), "f32[batch, seq, 128]");
    assert_eq!(ok(Opcode::MatMul, &["f32[b, 1, 3, 4]", "f32[h, 4, n]"], &none()), "f32[b, h, 3, n]");
}

#[test]
fn matmul_types() {
    assert_eq!(ok(Opcode::MatMul, &["f32[*]", "f32[4, 5]"], &none()), "f32[*]");
    err(Opcode::MatMul, &["f32[3, 4]", "f16[4, 5]"], &none(), "element type");
    err(Opcode::MatMul, &["bool[3, 4]", "bool[4, 5]"], &none(), "numeric");
    err(Opcode::MatMul, &["f32[]", "f32[4, 5]"], &none(), "rank");
}

// ---------------------------------------------------------------- Gemm

#[test]
fn gemm_transpose_flags() {
    assert_eq!(ok(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]"], &none()), "f32[3, 5]");
    assert_eq!(ok(Opcode::Gemm, &["f32[4, 3]", "f32[4, 5]"], &int(none(), "transA", 1)), "f32[3, 5]");
    assert_eq!(ok(Opcode::Gemm, &["f32[3, 4]", "f32[5, 4]"], &int(none(), "transB", 1)), "f32[3, 5]");
    let both = int(int(none(), "transA", 1), "transB", 1);
    assert_eq!(ok(Opcode::Gemm, &["f32[4, n]", "f32[5, 4]", "f32[5]"], &both), "f32[n, 5]");
    err(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]"], &int(none(), "transA", 1), "transA");
}

#[test]
fn gemm_c_broadcast() {
    for c in ["f32[5]", "f32[1]", "f32[3, 1]", "f32[1, 5]", "f32[3, 5]", "f32[]"] {
        assert_eq!(ok(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]", c], &none()), "f32[3, 5]", "C = {c}");
    }
    assert_eq!(ok(Opcode::Gemm, &["f32[?, 4]", "f32[4, 5]", "f32[3, 5]"], &none()), "f32[3, 5]");
    err(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]", "f32[4]"], &none(), "C f32[4] does not broadcast");
    err(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]", "f32[2, 3, 5]"], &none(), "does not broadcast");
    err(Opcode::Gemm, &["f32[3, 4]", "f32[4, 5]", "f64[5]"], &none(), "element type");
    err(Opcode::Gemm, &["f32[2, 3, 4]", "f32[4, 5]"], &none(), "2-D");
}
