//! Tensor builders, `run`/`run_err` and `check` used by the Loss, DeformConv, AffineGrid,
//! TensorScatter, CumProd, Swish and uneven-Split tests (the helper set of the former
//! `interp_loss` test binary; builders from `tensors`).

pub use super::tensors::*;

/// An f32 tensor from whitespace-separated values.
pub fn parse(shape: &[usize], vals: &str) -> Tensor {
    let v: Vec<f32> = vals.split_whitespace().map(|x| x.parse().unwrap_or_else(|_| panic!("bad value {x}"))).collect();
    f32t(shape, &v)
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
