//! Tensor builders, `run` (owned inputs, `Result`), `run1`, `fails` and `close`/`eq_*`
//! assertions used by the Layout, Index, Select, Reduce, Generate and Strings kernel tests
//! (the helper set of the former `interp_shape` test binary; builders from `tensors`).

pub use super::tensors::*;

/// A rank-0 i64 tensor.
pub fn scalar_i64(v: i64) -> Tensor {
    i64t(&[], &[v])
}

/// A string tensor.
pub fn strt(shape: &[usize], v: &[&str]) -> Tensor {
    t(shape, Data::String(v.iter().map(|s| s.to_string()).collect()))
}

/// `0, 1, 2, ...` as f32 in `shape`.
pub fn iota(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    f32t(shape, &(0..n).map(|i| i as f32).collect::<Vec<_>>())
}

/// Run an op; `inputs` may contain `None` for omitted optional operands.
pub fn run(op: Opcode, inputs: Vec<Option<Tensor>>, at: &[(&str, Attr)], n: usize) -> Result<Vec<Tensor>, String> {
    eval_op(op, &inputs, attrs(at), n)
}

/// Run a one-result op on present operands, panicking on error.
pub fn run1(op: Opcode, inputs: Vec<Tensor>, at: &[(&str, Attr)]) -> Tensor {
    let r = run(op, inputs.into_iter().map(Some).collect(), at, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
    r.into_iter().next().expect("one result")
}

/// Expect an error (not a panic).
pub fn fails(op: Opcode, inputs: Vec<Option<Tensor>>, at: &[(&str, Attr)], n: usize) {
    let r = run(op, inputs, at, n);
    assert!(r.is_err(), "{} should fail, got {r:?}", op.name());
}

/// Assert a tensor's shape and (as f64, within `tol` relative) values.
pub fn close(got: &Tensor, shape: &[usize], want: &[f64], tol: f64) {
    assert_eq!(got.shape, shape, "shape of {got:?}");
    let vals = got.to_f64s();
    assert_eq!(vals.len(), want.len(), "{got:?}");
    for (i, (&g, &w)) in vals.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "element {i}: got {g}, want {w} (tensor {got:?})");
    }
}

/// Assert exact f32 contents.
pub fn eq_f32(got: &Tensor, shape: &[usize], want: &[f32]) {
    assert_eq!(got, &f32t(shape, want));
}

/// Assert exact i64 contents.
pub fn eq_i64(got: &Tensor, shape: &[usize], want: &[i64]) {
    assert_eq!(got, &i64t(shape, want));
}
