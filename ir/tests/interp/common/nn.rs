//! Tensor builders, `run`/`run_err` (attribute lists, `n` results) and `check`/`check_tol`
//! comparisons used by the Conv, Pool, Norm, Linalg, RNN, Resample and Attention kernel tests
//! (the helper set of the former `interp_nn` test binary; builders from `tensors`).

pub use super::tensors::*;

/// A u32 tensor.
pub fn u32t(shape: &[usize], v: &[u32]) -> Tensor {
    t(shape, Data::U32(v.to_vec()))
}

/// A tensor of element type `dt` from whitespace-separated values (`nan`, `inf`,
/// `-inf` allowed; bool as 0/1), the form the generated expected values use.
pub fn parse(dt: DType, shape: &[usize], vals: &str) -> Tensor {
    let words = || vals.split_whitespace();
    let f: Vec<f64> = words().map(|v| v.parse().unwrap_or_else(|_| panic!("bad value {v}"))).collect();
    let i: Vec<i128> = words().map(|v| v.parse().unwrap_or(0)).collect();
    let data = match dt {
        DType::F32 => Data::F32(f.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(f),
        DType::F16 => Data::F16(f.iter().map(|&x| f16::from_f64(x)).collect()),
        DType::BF16 => Data::BF16(f.iter().map(|&x| bf16::from_f64(x)).collect()),
        DType::Bool => Data::Bool(f.iter().map(|&x| x != 0.0).collect()),
        DType::I8 => Data::I8(i.iter().map(|&x| x as i8).collect()),
        DType::U8 => Data::U8(i.iter().map(|&x| x as u8).collect()),
        DType::I16 => Data::I16(i.iter().map(|&x| x as i16).collect()),
        DType::U16 => Data::U16(i.iter().map(|&x| x as u16).collect()),
        DType::I32 => Data::I32(i.iter().map(|&x| x as i32).collect()),
        DType::U32 => Data::U32(i.iter().map(|&x| x as u32).collect()),
        DType::I64 => Data::I64(i.iter().map(|&x| x as i64).collect()),
        DType::U64 => Data::U64(i.iter().map(|&x| x as u64).collect()),
        DType::String => Data::String(vals.split_whitespace().map(String::from).collect()),
        _ => panic!("parse: element type {dt} is not used by these tests"),
    };
    t(shape, data)
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

/// Compare element types, shapes and values: exact for integers and bool, within a
/// relative tolerance for floats (f16/bf16 within their precision). NaNs match NaNs.
pub fn check(got: &Tensor, want: &Tensor) {
    let tol = match got.dtype() {
        DType::F32 => 2e-5,
        DType::F64 => 1e-9,
        DType::F16 => 2e-3,
        DType::BF16 => 1e-2,
        _ => 0.0,
    };
    check_tol(got, want, tol);
}

/// [`check`] with an explicit relative tolerance.
pub fn check_tol(got: &Tensor, want: &Tensor, tol: f64) {
    assert_eq!(got.dtype(), want.dtype(), "element type");
    assert_eq!(got.shape, want.shape, "shape");
    let (g, w) = (got.to_f64s(), want.to_f64s());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * (1.0 + b.abs());
        assert!(ok, "element {i}: got {a}, want {b}\n got: {g:?}\nwant: {w:?}");
    }
}
