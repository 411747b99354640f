//! Shape inference of MaxPool, AveragePool and the global pools.

use crate::common::text::*;

// ---------------------------------------------------------------- Pooling

#[test]
fn maxpool_pads_and_strides() {
    let a = ints(&[("kernel_shape", &[3, 3]), ("strides", &[2, 2]), ("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::MaxPool, &["f32[N, 64, 112, 112]"], &a), "f32[N, 64, 56, 56]");
    let a = ints(&[("kernel_shape", &[3, 3]), ("dilations", &[2, 2])]);
    assert_eq!(ok(Opcode::MaxPool, &["u8[1, 1, 10, 10]"], &a), "u8[1, 1, 6, 6]");
}

#[test]
fn pool_ceil_mode() {
    let a = ints(&[("kernel_shape", &[2, 2]), ("strides", &[2, 2])]);
    assert_eq!(ok(Opcode::MaxPool, &["f32[1, 1, 5, 6]"], &a), "f32[1, 1, 2, 3]");
    assert_eq!(ok(Opcode::MaxPool, &["f32[1, 1, 5, 6]"], &int(a, "ceil_mode", 1)), "f32[1, 1, 3, 3]");
    // The 4th window would start in the end padding, so ceil_mode drops it.
    let a = int(ints(&[("kernel_shape", &[2]), ("strides", &[2]), ("pads", &[1, 1])]), "ceil_mode", 1);
    assert_eq!(ok(Opcode::AveragePool, &["f32[1, 1, 5]"], &a), "f32[1, 1, 3]");
    let a = int(ints(&[("kernel_shape", &[3]), ("strides", &[2]), ("pads", &[1, 1])]), "ceil_mode", 1);
    assert_eq!(ok(Opcode::AveragePool, &["f32[1, 1, 6]"], &a), "f32[1, 1, 4]");
}

#[test]
fn averagepool_pads_and_symbols() {
    let a = ints(&[("kernel_shape", &[3, 3]), ("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::AveragePool, &["f32[N, 3, h, 32]"], &a), "f32[N, 3, h, 32]");
    let a = ints(&[("kernel_shape", &[3, 3]), ("strides", &[2, 2])]);
    assert_eq!(ok(Opcode::AveragePool, &["f32[N, 3, h, 32]"], &a), "f32[N, 3, ?, 15]");
    let a = string(ints(&[("kernel_shape", &[3, 3]), ("strides", &[2, 2])]), "auto_pad", "SAME_LOWER");
    assert_eq!(ok(Opcode::AveragePool, &["f32[N, 3, 9, 32]"], &a), "f32[N, 3, 5, 16]");
    assert_eq!(ok(Opcode::AveragePool, &["f32[*]"], &a), "f32[?, ?, ?, ?]");
}

#[test]
fn maxpool_indices_result() {
    let a = ints(&[("kernel_shape", &[2, 2]), ("strides", &[2, 2])]);
    let out = infer_full(Opcode::MaxPool, &["f16[b, 8, 4, 4]"], &[], &a, 2).unwrap();
    assert_eq!(out, ["f16[b, 8, 2, 2]", "i64[b, 8, 2, 2]"]);
}

#[test]
fn pool_errors() {
    err(Opcode::MaxPool, &["f32[1, 1, 5, 5]"], &none(), "kernel_shape");
    err(Opcode::MaxPool, &["f32[1, 1, 5, 5]"], &ints(&[("kernel_shape", &[2])]), "rank 3");
    err(Opcode::MaxPool, &["f32[1, 1, 5, 5]"], &ints(&[("kernel_shape", &[2, 0])]), "kernel_shape");
    let a = ints(&[("kernel_shape", &[2, 2]), ("pads", &[0, 0])]);
    err(Opcode::AveragePool, &["f32[1, 1, 5, 5]"], &a, "pads");
    err(Opcode::AveragePool, &["i64[1, 1, 5, 5]"], &ints(&[("kernel_shape", &[2, 2])]), "float");
    err(Opcode::MaxPool, &["f32[1, 1, 1, 5]"], &ints(&[("kernel_shape", &[2, 2])]), "smaller");
}

#[test]
fn global_pool() {
    assert_eq!(ok(Opcode::GlobalAveragePool, &["f32[N, 64, 7, h]"], &none()), "f32[N, 64, 1, 1]");
    assert_eq!(ok(Opcode::GlobalMaxPool, &["f16[2, c, 9]"], &none()), "f16[2, c, 1]");
    assert_eq!(ok(Opcode::GlobalAveragePool, &["f32[*]"], &none()), "f32[*]");
    err(Opcode::GlobalAveragePool, &["f32[4]"], &none(), "rank");
    err(Opcode::GlobalAveragePool, &["i32[1, 2, 3]"], &none(), "float");
}
