//! Tensor builders, `run`/`run_err` (with an expected error needle) and `check` used by
//! the Quant integer-op and LinearAttention / FlexAttention / CausalConvWithState tests
//! (the helper set of the former `interp_qlinear` test binary, kept verbatim).

pub use half::f16;
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

/// An f16 tensor (values rounded from f32).
pub fn f16t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F16(v.iter().map(|&x| f16::from_f32(x)).collect()))
}

/// An f64 tensor holding the given f32 values exactly.
pub fn f64t_of_f32(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F64(v.iter().map(|&x| x as f64).collect()))
}

/// A u8 tensor.
pub fn u8t(shape: &[usize], v: &[u8]) -> Tensor {
    t(shape, Data::U8(v.to_vec()))
}

/// An i8 tensor.
pub fn i8t(shape: &[usize], v: &[i8]) -> Tensor {
    t(shape, Data::I8(v.to_vec()))
}

/// An i32 tensor.
pub fn i32t(shape: &[usize], v: &[i32]) -> Tensor {
    t(shape, Data::I32(v.to_vec()))
}

/// Attributes from `(name, value)` pairs.
pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (k, v)| a.with(*k, v.clone()))
}

/// Evaluate `op`; panics with the error message on failure.
pub fn run(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)], n: usize) -> Vec<Tensor> {
    eval_op(op, inputs, attrs(list), n).unwrap_or_else(|e| panic!("{}: {e}", op.name()))
}

/// Evaluate `op` expecting an error whose message contains `needle`.
pub fn run_err(op: Opcode, inputs: &[Option<Tensor>], list: &[(&str, Attr)], n: usize, needle: &str) {
    match eval_op(op, inputs, attrs(list), n) {
        Ok(v) => panic!("{} unexpectedly succeeded: {v:?}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}

/// Compare element types, shapes and values: exact for integers, within a relative
/// tolerance for floats (f16 within its precision).
pub fn check(got: &Tensor, want: &Tensor) {
    let tol = match got.dtype() {
        DType::F32 => 2e-6,
        DType::F64 => 1e-9,
        DType::F16 => 1e-3,
        _ => 0.0,
    };
    assert_eq!(got.dtype(), want.dtype(), "element type");
    assert_eq!(got.shape, want.shape, "shape");
    let (g, w) = (got.to_f64s(), want.to_f64s());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!((a - b).abs() <= tol * (1e-3 + b.abs()), "element {i}: got {a}, want {b}\n got: {g:?}\nwant: {w:?}");
    }
}
