//! Helpers comparing a fused `core.*` op with the unfused `onnx.*` chain it replaces:
//! `ALL_ACTS`, `SPECIAL` values, `unfused_act`, bit-exact `same_bits`/`check` (the helper set of
//! the former `interp_fused` test binary; builders from `tensors`). Used by the fused-op tests of the
//! Elementwise, Linalg, Conv and Attention families and by `props::fused`.

pub use super::tensors::*;
pub use ir::ops::elementwise::Activation;

/// Every activation, with non-default parameters where it takes some.
pub const ALL_ACTS: &[Activation] = &[
    Activation::None,
    Activation::Relu,
    Activation::Clip { min: -0.75, max: 1.5 },
    Activation::Sigmoid,
    Activation::HardSigmoid { alpha: 0.3, beta: 0.4 },
    Activation::HardSwish,
    Activation::LeakyRelu { alpha: 0.1 },
    Activation::Silu,
    Activation::Gelu,
    Activation::GeluTanh,
    Activation::Tanh,
];

/// `x` converted elementwise to float type `dt` (f32, f16 or f64).
pub fn as_dtype(x: &Tensor, dt: DType) -> Tensor {
    let v = x.to_f64s();
    let data = match dt {
        DType::F32 => Data::F32(v.iter().map(|&e| e as f32).collect()),
        DType::F16 => Data::F16(v.iter().map(|&e| f16::from_f64(e)).collect()),
        DType::F64 => Data::F64(v),
        _ => panic!("as_dtype: {dt} is not used by these tests"),
    };
    t(&x.shape, data)
}

/// A rank-0 tensor of float type `dt`.
pub fn scalar(dt: DType, x: f64) -> Tensor {
    as_dtype(&t(&[], Data::F64(vec![x])), dt)
}

/// Evaluate one op; panics with the error message on failure.
pub fn run(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs) -> Tensor {
    let mut out = eval_op(op, inputs, attrs, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
    out.remove(0)
}

/// Evaluate one op expecting an error; returns the message.
pub fn run_err(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs) -> String {
    match eval_op(op, inputs, attrs, 1) {
        Ok(v) => panic!("{} unexpectedly succeeded: {v:?}", op.name()),
        Err(e) => e,
    }
}

/// `attrs` with the activation's attributes added.
pub fn with_act(mut attrs: Attrs, act: Activation) -> Attrs {
    act.to_attrs(&mut attrs);
    attrs
}

/// The unfused `onnx.*` form of `act` applied to `y`.
pub fn unfused_act(act: Activation, y: Tensor) -> Tensor {
    let dt = y.dtype();
    let un = |op: Opcode, attrs: Attrs| run(op, &[Some(y.clone())], attrs);
    match act {
        Activation::None => y,
        Activation::Relu => un(Opcode::Relu, Attrs::new()),
        Activation::Clip { min, max } => run(
            Opcode::Clip,
            &[Some(y.clone()), Some(scalar(dt, min as f64)), Some(scalar(dt, max as f64))],
            Attrs::new(),
        ),
        Activation::Sigmoid => un(Opcode::Sigmoid, Attrs::new()),
        Activation::HardSigmoid { alpha, beta } => {
            un(Opcode::HardSigmoid, Attrs::new().with("alpha", Attr::Float(alpha)).with("beta", Attr::Float(beta)))
        }
        Activation::HardSwish => un(Opcode::HardSwish, Attrs::new()),
        Activation::LeakyRelu { alpha } => un(Opcode::LeakyRelu, Attrs::new().with("alpha", Attr::Float(alpha))),
        Activation::Silu => {
            let s = un(Opcode::Sigmoid, Attrs::new());
            run(Opcode::Mul, &[Some(y.clone()), Some(s)], Attrs::new())
        }
        Activation::Gelu => un(Opcode::Gelu, Attrs::new()),
        Activation::GeluTanh => un(Opcode::Gelu, Attrs::new().with("approximate", Attr::Str("tanh".into()))),
        Activation::Tanh => un(Opcode::Tanh, Attrs::new()),
    }
}

/// Bit-exact equality of two tensors (any NaN matches any NaN).
pub fn same_bits(a: &Tensor, b: &Tensor) -> Result<(), String> {
    if a.shape != b.shape || a.dtype() != b.dtype() {
        return Err(format!("shape/type differ: {a:?} vs {b:?}"));
    }
    let (x, y) = (a.to_f64s(), b.to_f64s());
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        let same = (p.is_nan() && q.is_nan()) || (p.to_bits() == q.to_bits());
        if !same {
            return Err(format!("element {i}: {p:e} vs {q:e}\n{a:?}\nvs\n{b:?}"));
        }
    }
    Ok(())
}

/// Assert bit-exact equality.
#[track_caller]
pub fn check(a: &Tensor, b: &Tensor) {
    if let Err(e) = same_bits(a, b) {
        panic!("{e}");
    }
}

/// Interesting f32 inputs: signed zeros, infinities, NaN, activation kinks and tails.
pub const SPECIAL: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    3.0,
    -3.0,
    2.5,
    -2.5,
    0.5,
    -0.5,
    6.0,
    -6.0,
    1e-8,
    -1e-8,
    20.0,
    -20.0,
    100.0,
    -100.0,
    1e30,
    -1e30,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    0.75,
    -0.75,
    1.5,
    1.25,
    -1.25,
];
