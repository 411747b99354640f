//! Tensor builders, `run`/`run_err` (with an expected error needle) and `check` used by
//! the Quant integer-op and LinearAttention / FlexAttention / CausalConvWithState tests
//! (the helper set of the former `interp_qlinear` test binary; builders from `tensors`).

pub use super::tensors::*;

/// An f64 tensor holding the given f32 values exactly.
pub fn f64t_of_f32(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F64(v.iter().map(|&x| x as f64).collect()))
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
