//! Tensor builders, `run`/`run_err` and `check` used by the Loss, DeformConv, AffineGrid,
//! TensorScatter, CumProd, Swish and uneven-Split tests (the helper set of the former
//! `interp_loss` test binary, kept verbatim).

pub use half::{bf16, f16};
pub use ir::interp::{eval_op, Data, Tensor};
pub use ir::{Attr, Attrs, DType, Opcode};

/// A tensor from a shape and data.
pub fn t(shape: &[usize], data: Data) -> Tensor {
    Tensor::new(shape.to_vec(), data)
}

/// An f32 tensor.
pub fn f32t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F32(v.to_vec()))
}

/// An f64 tensor.
pub fn f64t(shape: &[usize], v: &[f64]) -> Tensor {
    t(shape, Data::F64(v.to_vec()))
}

/// An f16 tensor (values rounded from f32).
pub fn f16t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F16(v.iter().map(|&x| f16::from_f32(x)).collect()))
}

/// A bf16 tensor (values rounded from f32).
pub fn bf16t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()))
}

/// An i64 tensor.
pub fn i64t(shape: &[usize], v: &[i64]) -> Tensor {
    t(shape, Data::I64(v.to_vec()))
}

/// An i32 tensor.
pub fn i32t(shape: &[usize], v: &[i32]) -> Tensor {
    t(shape, Data::I32(v.to_vec()))
}

/// A 1-D i64 tensor.
pub fn ints(v: &[i64]) -> Tensor {
    i64t(&[v.len()], v)
}

/// An f32 tensor from whitespace-separated values.
pub fn parse(shape: &[usize], vals: &str) -> Tensor {
    let v: Vec<f32> = vals.split_whitespace().map(|x| x.parse().unwrap_or_else(|_| panic!("bad value {x}"))).collect();
    f32t(shape, &v)
}

/// Attributes from `(name, value)` pairs.
pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (k, v)| a.with(*k, v.clone()))
}

/// An integer attribute.
pub fn int(v: i64) -> Attr {
    Attr::Int(v)
}

/// A string attribute.
pub fn s(v: &str) -> Attr {
    Attr::Str(v.into())
}

/// Evaluate `op`; panics with the error message on failure.
pub fn run(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)], n: usize) -> Vec<Tensor> {
    eval_op(op, inputs, attrs(list), n).unwrap_or_else(|e| panic!("{}: {e}", op.name()))
}

/// Evaluate `op` expecting an error; returns the message.
pub fn run_err(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)], n: usize) -> String {
    match eval_op(op, inputs, attrs(list), n) {
        Ok(v) => panic!("{} unexpectedly succeeded: {v:?}", op.name()),
        Err(e) => e,
    }
}

/// Compare element types, shapes and values: exact for integers, within a relative
/// tolerance for floats (f16/bf16 within their precision). NaNs match NaNs.
pub fn check(got: &Tensor, want: &Tensor) {
    let tol = match got.dtype() {
        DType::F32 => 2e-5,
        DType::F64 => 1e-9,
        DType::F16 => 2e-3,
        DType::BF16 => 1e-2,
        _ => 0.0,
    };
    assert_eq!(got.dtype(), want.dtype(), "element type");
    assert_eq!(got.shape, want.shape, "shape");
    let (g, w) = (got.to_f64s(), want.to_f64s());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * (1.0 + b.abs());
        assert!(ok, "element {i}: got {a}, want {b}\n got: {g:?}\nwant: {w:?}");
    }
}
