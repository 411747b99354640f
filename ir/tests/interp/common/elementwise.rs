//! Tensor builders, `eval`/`ok`/`run`/`run_dt`, `f32s`/`f16s` readers and the ulp
//! comparison used by the Elementwise and QuantizeLinear tests (the helper set of the
//! former `interp_elementwise` test binary; builders from `tensors`).

pub use super::tensors::*;

/// Run `op` on optional inputs with `n` results.
pub fn evaln(op: Opcode, inputs: &[Option<Tensor>], a: Attrs, n: usize) -> Result<Vec<Tensor>, String> {
    eval_op(op, inputs, a, n)
}

/// Run a one-result op on present inputs.
pub fn eval(op: Opcode, inputs: &[Tensor], a: Attrs) -> Result<Tensor, String> {
    let ins: Vec<Option<Tensor>> = inputs.iter().cloned().map(Some).collect();
    evaln(op, &ins, a, 1).map(|mut v| v.remove(0))
}

pub fn ok(op: Opcode, inputs: &[Tensor], a: Attrs) -> Tensor {
    eval(op, inputs, a).unwrap_or_else(|e| panic!("{op:?} failed: {e}"))
}

pub fn run(op: Opcode, inputs: &[Tensor]) -> Tensor {
    ok(op, inputs, Attrs::new())
}

pub fn f32s(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32 data, got {:?}", d.dtype()),
    }
}

pub fn f16s(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F16(v) => v.iter().map(|x| x.to_f32()).collect(),
        d => panic!("expected f16 data, got {:?}", d.dtype()),
    }
}

/// Equal up to `ulps` units in the last place of f32 (NaN matches NaN).
pub fn assert_f32s(got: &[f32], want: &[f32], ulps: u32) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        let close = (g.is_nan() && w.is_nan())
            || g == w
            || (g.signum() == w.signum() && g.to_bits().abs_diff(w.to_bits()) <= ulps);
        assert!(close, "got {got:?}\nwant {want:?}");
    }
}

/// Convenience for the submodules: an attribute-free result of `op` with its dtype checked.
pub fn run_dt(op: Opcode, inputs: &[Tensor], dt: DType) -> Tensor {
    let r = run(op, inputs);
    assert_eq!(r.dtype(), dt);
    r
}
