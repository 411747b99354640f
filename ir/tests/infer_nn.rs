//! Shape/type inference of the NN ops (`ir::ops::{linalg, conv, pool, norm, resample}`), called
//! through the op table so the table wiring is tested too.

use ir::ops::InferCtx;
use ir::{Attr, Attrs, Constant, DType, Dim, Opcode, Shape, Symbol, TensorType};

/// Parse a type like `f32[1, 3, seq, ?]` (`?` unknown, names symbolic, `[*]` unranked).
fn ty(s: &str) -> TensorType {
    let (dt, rest) = s.split_once('[').expect("missing `[`");
    let dtype = DType::from_name(dt).expect("bad dtype");
    let inner = rest.strip_suffix(']').expect("missing `]`");
    if inner == "*" {
        return TensorType::unranked(dtype);
    }
    let dims = inner.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| match d {
        "?" => Dim::Unknown,
        _ => d.parse().map(Dim::Static).unwrap_or_else(|_| Dim::Sym(Symbol::new(d))),
    });
    TensorType::new(dtype, Shape::from_dims(dims))
}

/// Run `op`'s inference. Operands are type strings, `""` for an omitted one.
fn infer_full(
    op: Opcode,
    operands: &[&str],
    consts: &[Option<&Constant>],
    attrs: &Attrs,
    num_results: usize,
) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let ctx = InferCtx { operands: &refs, consts, attrs, num_results, attr_const: None };
    let out = (op.def().infer)(&ctx)?;
    assert_eq!(out.len(), num_results, "{} returned {} results", op.name(), out.len());
    Ok(out.iter().map(ToString::to_string).collect())
}

/// Single-result inference without constants, as a string.
fn infer(op: Opcode, operands: &[&str], attrs: &Attrs) -> Result<String, String> {
    infer_full(op, operands, &[], attrs, 1).map(|mut v| v.remove(0))
}

fn ok(op: Opcode, operands: &[&str], attrs: &Attrs) -> String {
    infer(op, operands, attrs).unwrap_or_else(|e| panic!("{}: unexpected error: {e}", op.name()))
}

/// Assert an error whose message contains `needle`.
fn err(op: Opcode, operands: &[&str], attrs: &Attrs, needle: &str) {
    match infer(op, operands, attrs) {
        Ok(t) => panic!("{}: expected an error containing {needle:?}, got {t}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}

fn none() -> Attrs {
    Attrs::new()
}

fn ints(pairs: &[(&str, &[i64])]) -> Attrs {
    pairs.iter().fold(Attrs::new(), |a, (n, v)| a.with(*n, Attr::Ints(v.to_vec())))
}

fn int(a: Attrs, name: &str, v: i64) -> Attrs {
    a.with(name, Attr::Int(v))
}

fn string(a: Attrs, name: &str, v: &str) -> Attrs {
    a.with(name, Attr::Str(v.into()))
}

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

// ---------------------------------------------------------------- Conv

#[test]
fn conv_strides_and_pads() {
    let a = ints(&[("strides", &[2, 2]), ("pads", &[3, 3, 3, 3])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 224, 224]", "f32[64, 3, 7, 7]", "f32[64]"], &a), "f32[1, 64, 112, 112]");
    // Asymmetric pads: [h_begin, w_begin, h_end, w_end].
    let a = ints(&[("pads", &[1, 0, 0, 2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 5, 6]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 4, 6]");
}

#[test]
fn conv_dilations() {
    let a = ints(&[("dilations", &[2, 2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 10, 10]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 6, 6]");
    let a = ints(&[("dilations", &[2, 1]), ("strides", &[3, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 1, 10, 10]", "f32[1, 1, 3, 3]"], &a), "f32[1, 1, 2, 8]");
}

#[test]
fn conv_groups() {
    let dw = int(ints(&[("pads", &[1, 1, 1, 1])]), "group", 32);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 32, 56, 56]", "f32[32, 1, 3, 3]"], &dw), "f32[1, 32, 56, 56]");
    let g2 = int(none(), "group", 2);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[16, 4, 3, 3]"], &g2), "f32[1, 16, 8, 8]");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[16, 8, 3, 3]"], &g2, "channels");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[6, 2, 3, 3]"], &int(none(), "group", 4), "divisible");
    err(Opcode::Conv, &["f32[1, 8, 10, 10]", "f32[8, 8, 3, 3]"], &int(none(), "group", 0), "group");
}

#[test]
fn conv_auto_pad_same() {
    let w = "f32[8, 3, 3, 3]";
    for mode in ["SAME_UPPER", "SAME_LOWER"] {
        let a = string(ints(&[("strides", &[2, 2])]), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 7, 8]", w], &a), "f32[1, 8, 4, 4]", "{mode}");
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 9, 1]", w], &a), "f32[1, 8, 5, 1]", "{mode}");
        let a = string(ints(&[("strides", &[3, 3])]), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 10, 11]", "f32[8, 3, 1, 1]"], &a), "f32[1, 8, 4, 4]");
        // Stride 1 keeps every input size, symbolic ones included.
        let a = string(none(), "auto_pad", mode);
        assert_eq!(ok(Opcode::Conv, &["f32[n, 3, h, 5]", "f32[8, 3, 4, 4]"], &a), "f32[n, 8, h, 5]");
    }
    let bad = string(ints(&[("pads", &[1, 1, 1, 1])]), "auto_pad", "SAME_UPPER");
    err(Opcode::Conv, &["f32[1, 3, 7, 7]", w], &bad, "auto_pad");
}

#[test]
fn conv_auto_pad_valid() {
    let a = string(ints(&[("strides", &[2, 2])]), "auto_pad", "VALID");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, 7, 8]", "f32[8, 3, 3, 3]"], &a), "f32[1, 8, 3, 3]");
    let a = string(none(), "auto_pad", "VALID");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, h, 8]", "f32[8, 3, 3, 3]"], &a), "f32[1, 8, ?, 6]");
}

#[test]
fn conv_symbolic_dims() {
    let w = "f32[8, 3, 3, 3]";
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, 32, 32]", w], &none()), "f32[N, 8, 30, 30]");
    // Arithmetic on a symbol is unknown...
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", w], &ints(&[("strides", &[2, 2])])), "f32[N, 8, ?, ?]");
    assert_eq!(ok(Opcode::Conv, &["f32[1, 3, h, ?]", w], &none()), "f32[1, 8, ?, ?]");
    // ...unless the formula is the identity.
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", "f32[8, 3, 1, 1]"], &none()), "f32[N, 8, h, w]");
    let same = ints(&[("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[N, 3, h, w]", w], &same), "f32[N, 8, h, w]");
    // Channel count against a symbol is not an error.
    assert_eq!(ok(Opcode::Conv, &["f32[1, c, 4, 4]", w], &none()), "f32[1, 8, 2, 2]");
    // Unranked X: rank from W.
    assert_eq!(ok(Opcode::Conv, &["f32[*]", w], &none()), "f32[?, 8, ?, ?]");
    assert_eq!(ok(Opcode::Conv, &["f32[*]", "f32[*]"], &none()), "f32[*]");
}

#[test]
fn conv_1d_and_3d() {
    let a = ints(&[("strides", &[2])]);
    assert_eq!(ok(Opcode::Conv, &["f32[1, 4, 10]", "f32[8, 4, 3]"], &a), "f32[1, 8, 4]");
    let a = ints(&[("strides", &[1, 2, 2]), ("pads", &[1, 1, 1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::Conv, &["f32[2, 3, 8, 16, 16]", "f32[4, 3, 3, 3, 3]"], &a), "f32[2, 4, 8, 8, 8]");
}

#[test]
fn conv_errors() {
    let (x, w) = ("f32[1, 3, 8, 8]", "f32[8, 3, 3, 3]");
    err(Opcode::Conv, &["f32[1, 3, 8, 8]", "f32[8, 4, 3, 3]"], &none(), "channels");
    err(Opcode::Conv, &[x, "f32[8, 3, 3]"], &none(), "same rank");
    err(Opcode::Conv, &["f32[1, 8]", "f32[8, 3]"], &none(), "rank ≥ 3");
    err(Opcode::Conv, &[x, w], &ints(&[("kernel_shape", &[5, 5])]), "kernel_shape");
    assert_eq!(ok(Opcode::Conv, &[x, "f32[8, 3, ?, ?]"], &ints(&[("kernel_shape", &[5, 5])])), "f32[1, 8, 4, 4]");
    err(Opcode::Conv, &[x, w], &ints(&[("pads", &[1, 1])]), "pads");
    err(Opcode::Conv, &[x, w], &ints(&[("pads", &[-1, 0, 0, 0])]), "pads");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[0, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[-2, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("strides", &[1, 1, 1])]), "strides");
    err(Opcode::Conv, &[x, w], &ints(&[("dilations", &[0, 1])]), "dilations");
    err(Opcode::Conv, &[x, w, "f32[4]"], &none(), "B f32[4]");
    err(Opcode::Conv, &["i32[1, 3, 8, 8]", "i32[8, 3, 3, 3]"], &none(), "float");
    err(Opcode::Conv, &[x, "f16[8, 3, 3, 3]"], &none(), "element type");
    err(Opcode::Conv, &["f32[1, 3, 2, 8]", w], &none(), "smaller than the dilated kernel");
    // Absurd attribute values give an error, never a panic or a wrapped number.
    err(Opcode::Conv, &[x, w], &ints(&[("dilations", &[i64::MAX, 1])]), "smaller");
    let huge = ints(&[("strides", &[i64::MAX, 1])]);
    err(Opcode::ConvTranspose, &["f32[1, 8, 8, 8]", "f32[8, 3, 3, 3]"], &huge, "overflows");
}

// ---------------------------------------------------------------- ConvTranspose

#[test]
fn conv_transpose_output_padding() {
    let a = ints(&[("strides", &[2, 2]), ("pads", &[1, 1, 1, 1]), ("output_padding", &[1, 1])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]", "f32[8]"], &a), "f32[1, 8, 16, 16]");
    let a = ints(&[("strides", &[2, 2])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]"], &a), "f32[1, 8, 17, 17]");
    let a = ints(&[("strides", &[2, 2]), ("output_padding", &[2, 0])]);
    err(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 8, 3, 3]"], &a, "output_padding");
}

#[test]
fn conv_transpose_output_shape() {
    let (x, w) = ("f32[N, 16, 8, 8]", "f32[16, 8, 3, 3]");
    let a = ints(&[("strides", &[2, 2]), ("output_shape", &[16, 17])]);
    assert_eq!(ok(Opcode::ConvTranspose, &[x, w], &a), "f32[N, 8, 16, 17]");
    let a = ints(&[("strides", &[2, 2]), ("output_shape", &[1, 8, 16, 16])]);
    assert_eq!(ok(Opcode::ConvTranspose, &[x, w], &a), "f32[N, 8, 16, 16]");
    err(Opcode::ConvTranspose, &[x, w], &ints(&[("output_shape", &[16, 16, 16])]), "output_shape");
}

#[test]
fn conv_transpose_groups_and_auto_pad() {
    let a = int(none(), "group", 4);
    assert_eq!(
        ok(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 4, 3, 3]", "f32[16]"], &a),
        "f32[1, 16, 10, 10]"
    );
    err(Opcode::ConvTranspose, &["f32[1, 16, 8, 8]", "f32[16, 4, 3, 3]", "f32[4]"], &a, "B f32[4]");
    err(Opcode::ConvTranspose, &["f32[1, 8, 8, 8]", "f32[16, 4, 3, 3]"], &a, "channels");
    let same = string(ints(&[("strides", &[2, 2])]), "auto_pad", "SAME_UPPER");
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 16, 7, h]", "f32[16, 8, 3, 3]"], &same), "f32[1, 8, 14, ?]");
    // Identity on symbols: stride 1, kernel 3, pads 1.
    let id = ints(&[("pads", &[1, 1, 1, 1])]);
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[n, 16, h, w]", "f32[16, 8, 3, 3]"], &id), "f32[n, 8, h, w]");
    assert_eq!(ok(Opcode::ConvTranspose, &["f32[1, 4, 5]", "f32[4, 2, 3]"], &int(none(), "group", 2)), "f32[1, 4, 7]");
}

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

// ---------------------------------------------------------------- Normalization

#[test]
fn batch_norm() {
    let ops = ["f32[N, 64, h, w]", "f32[64]", "f32[64]", "f32[64]", "f32[64]"];
    assert_eq!(ok(Opcode::BatchNormalization, &ops, &none()), "f32[N, 64, h, w]");
    let out = infer_full(Opcode::BatchNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f32[N, 64, h, w]", "f32[64]", "f32[64]"]);
    // Stats take the most precise channel count and the mean's element type.
    let ops = ["f16[N, c, 4]", "f16[?]", "f16[64]", "f32[?]", "f32[?]"];
    let out = infer_full(Opcode::BatchNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f16[N, c, 4]", "f32[64]", "f32[64]"]);
    let bad = ["f32[N, 64, h, w]", "f32[32]", "f32[64]", "f32[64]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "scale f32[32]");
    let bad = ["f32[N, 64, h, w]", "f32[64]", "f32[64]", "f32[64, 1]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "1-D");
    let bad = ["f32[N, 64, h, w]", "f32[64]", "f16[64]", "f32[64]", "f32[64]"];
    err(Opcode::BatchNormalization, &bad, &none(), "element type");
}

#[test]
fn layer_norm() {
    let ops = ["f32[b, s, 768]", "f32[768]", "f32[768]"];
    assert_eq!(ok(Opcode::LayerNormalization, &ops, &none()), "f32[b, s, 768]");
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &none(), 3).unwrap();
    assert_eq!(out, ["f32[b, s, 768]", "f32[b, s, 1]", "f32[b, s, 1]"]);
    let ops = ["f16[b, s, 12, 64]", "f16[12, 64]", ""];
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &int(none(), "axis", -2), 2).unwrap();
    assert_eq!(out, ["f16[b, s, 12, 64]", "f32[b, s, 1, 1]"]);
    let stash = int(int(none(), "axis", 1), "stash_type", 10);
    let out = infer_full(Opcode::LayerNormalization, &ops, &[], &stash, 3).unwrap();
    assert_eq!(out, ["f16[b, s, 12, 64]", "f16[b, 1, 1, 1]", "f16[b, 1, 1, 1]"]);
}

#[test]
fn layer_norm_errors() {
    let ops = ["f32[b, s, 768]", "f32[768]", ""];
    err(Opcode::LayerNormalization, &ops, &int(none(), "axis", 3), "out of range");
    err(Opcode::LayerNormalization, &ops, &int(none(), "axis", -4), "out of range");
    err(Opcode::LayerNormalization, &["f32[b, s, 768]", "f32[512]"], &none(), "Scale f32[512] does not broadcast");
    err(Opcode::LayerNormalization, &["f32[b, s, 768]", "f16[768]"], &none(), "element type");
    err(Opcode::LayerNormalization, &ops, &int(none(), "stash_type", 7), "stash_type");
}

// ---------------------------------------------------------------- Softmax

#[test]
fn softmax_axes() {
    for axis in [-3, -1, 0, 2] {
        let a = int(none(), "axis", axis);
        assert_eq!(ok(Opcode::Softmax, &["f32[b, s, 10]"], &a), "f32[b, s, 10]");
        assert_eq!(ok(Opcode::LogSoftmax, &["f32[b, s, 10]"], &a), "f32[b, s, 10]");
    }
    assert_eq!(ok(Opcode::Softmax, &["f16[4]"], &none()), "f16[4]");
    assert_eq!(ok(Opcode::Softmax, &["f32[*]"], &int(none(), "axis", 7)), "f32[*]");
}

#[test]
fn softmax_errors() {
    err(Opcode::Softmax, &["f32[b, s, 10]"], &int(none(), "axis", 3), "axis");
    err(Opcode::Softmax, &["f32[b, s, 10]"], &int(none(), "axis", -4), "out of range [-3, 2]");
    err(Opcode::Softmax, &["f32[]"], &none(), "out of range");
    err(Opcode::LogSoftmax, &["i64[3]"], &none(), "float");
}

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
