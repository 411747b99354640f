//! The fused `core.*` ops against the unfused `onnx.*` chains they replace,
//! both run through `ir::interp::eval_op`: results must agree bit for bit
//! (NaN matching NaN). Property tests live in `interp_fused/props.rs`.

#[path = "interp_fused/props.rs"]
mod props;

use half::f16;
use ir::interp::{eval_op, Data, Tensor};
use ir::ops::elementwise::Activation;
use ir::{Attr, Attrs, DType, Opcode};

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

/// A tensor from a shape and data.
pub fn t(shape: &[usize], data: Data) -> Tensor {
    Tensor::new(shape.to_vec(), data)
}

/// An f32 tensor.
pub fn f32t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F32(v.to_vec()))
}

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
const SPECIAL: &[f32] = &[
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

#[test]
fn every_activation_matches_the_unfused_op_on_special_values() {
    for dt in [DType::F32, DType::F16, DType::F64] {
        let x = as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), dt);
        for &act in ALL_ACTS {
            let fused = ir::interp::elementwise::apply_activation(act, x.clone()).unwrap();
            check(&fused, &unfused_act(act, x.clone()));
        }
    }
}

#[test]
fn apply_f32_and_f64_agree_with_the_tensor_form() {
    for &act in ALL_ACTS {
        let y32 = unfused_act(act, f32t(&[SPECIAL.len()], SPECIAL));
        let y64 = unfused_act(act, as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), DType::F64));
        for (i, &x) in SPECIAL.iter().enumerate() {
            let (a, b) = (act.apply_f32(x), y32.to_f64s()[i] as f32);
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{act:?}({x}): {a} vs {b}");
            let (a, b) = (act.apply_f64(x as f64), y64.to_f64s()[i]);
            assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{act:?}({x}) f64: {a} vs {b}");
        }
    }
}

#[test]
fn activation_attributes_round_trip() {
    for &act in ALL_ACTS {
        let mut attrs = Attrs::new().with("act_alpha", Attr::Float(9.0)).with("group", Attr::Int(1));
        act.to_attrs(&mut attrs);
        assert_eq!(Activation::from_attrs(&attrs), Ok(act), "{attrs:?}");
        assert_eq!(attrs.int("group"), Some(1));
        if act == Activation::None {
            assert!(attrs.get("act").is_none() && attrs.get("act_alpha").is_none());
        }
    }
    let defaults = |name: &str| Activation::from_attrs(&Attrs::new().with("act", Attr::Str(name.into())));
    assert_eq!(defaults("clip"), Ok(Activation::Clip { min: f32::NEG_INFINITY, max: f32::INFINITY }));
    assert_eq!(defaults("hard_sigmoid"), Ok(Activation::HardSigmoid { alpha: 0.2, beta: 0.5 }));
    assert_eq!(defaults("leaky_relu"), Ok(Activation::LeakyRelu { alpha: 0.01 }));
    assert_eq!(Activation::from_attrs(&Attrs::new()), Ok(Activation::None));
    assert!(defaults("swish").unwrap_err().contains("is not one of"));
    let stray = Attrs::new().with("act", Attr::Str("relu".into())).with("act_alpha", Attr::Float(1.0));
    assert_eq!(Activation::from_attrs(&stray).unwrap_err(), "attribute `act_alpha` is not used by act = \"relu\"");
    let stray = Attrs::new().with("act", Attr::Str("leaky_relu".into())).with("act_beta", Attr::Float(1.0));
    assert!(Activation::from_attrs(&stray).is_err());
}

#[test]
fn silu_matches_mul_sigmoid_in_every_float_type() {
    for dt in [DType::F32, DType::F16, DType::F64] {
        let x = as_dtype(&f32t(&[SPECIAL.len()], SPECIAL), dt);
        let fused = run(Opcode::CoreSilu, &[Some(x.clone())], Attrs::new());
        check(&fused, &unfused_act(Activation::Silu, x));
    }
}

#[test]
fn linear_in_f16_and_f64_matches_matmul_add_act() {
    let a: Vec<f32> = (0..24).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let b: Vec<f32> = (0..20).map(|i| (i as f32 * 0.71).cos() * 2.0).collect();
    let bias = [0.25f32, -1.5, 0.125, 2.0, -0.5];
    for dt in [DType::F16, DType::F64, DType::F32] {
        let (a, bt) = (as_dtype(&f32t(&[2, 3, 4], &a), dt), as_dtype(&f32t(&[5, 4], &b), dt));
        let bias = as_dtype(&f32t(&[5], &bias), dt);
        for &act in ALL_ACTS {
            let attrs = with_act(Attrs::new().with("trans_b", Attr::Int(1)), act);
            let fused = run(Opcode::CoreLinear, &[Some(a.clone()), Some(bt.clone()), Some(bias.clone())], attrs);
            let b = run(Opcode::Transpose, &[Some(bt.clone())], Attrs::new());
            let y = run(Opcode::MatMul, &[Some(a.clone()), Some(b)], Attrs::new());
            let y = run(Opcode::Add, &[Some(y), Some(bias.clone())], Attrs::new());
            check(&fused, &unfused_act(act, y));
        }
    }
}

#[test]
fn conv_in_f16_and_f64_matches_conv_act() {
    let x: Vec<f32> = (0..32).map(|i| (i as f32 * 0.53).sin() * 2.0).collect();
    let w: Vec<f32> = (0..18).map(|i| (i as f32 * 0.29).cos()).collect();
    for dt in [DType::F16, DType::F64] {
        let (x, w) = (as_dtype(&f32t(&[1, 2, 4, 4], &x), dt), as_dtype(&f32t(&[1, 2, 3, 3], &w), dt));
        let b = as_dtype(&f32t(&[1], &[0.5]), dt);
        let conv_attrs = || Attrs::new().with("pads", Attr::Ints(vec![1, 1, 1, 1]));
        for &act in ALL_ACTS {
            let ops = [Some(x.clone()), Some(w.clone()), Some(b.clone())];
            let fused = run(Opcode::CoreConv, &ops, with_act(conv_attrs(), act));
            check(&fused, &unfused_act(act, run(Opcode::Conv, &ops, conv_attrs())));
            let wt = as_dtype(&f32t(&[2, 1, 3, 3], &(0..18).map(|i| i as f32 * 0.1).collect::<Vec<_>>()), dt);
            let ops = [Some(x.clone()), Some(wt), Some(b.clone())];
            let fused = run(Opcode::CoreConvTranspose, &ops, with_act(Attrs::new(), act));
            check(&fused, &unfused_act(act, run(Opcode::ConvTranspose, &ops, Attrs::new())));
        }
    }
}

#[test]
fn attention_rows_with_every_key_masked_are_nan() {
    let q = f32t(&[2, 1], &[1.0, 2.0]);
    let k = f32t(&[2, 1], &[0.5, -1.0]);
    let v = f32t(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let mask = t(&[2, 2], Data::Bool(vec![false, false, true, false]));
    let attrs = Attrs::new().with("scale", Attr::Float(0.5));
    let y = run(Opcode::CoreAttention, &[Some(q), Some(k), Some(v), Some(mask)], attrs);
    let y = y.to_f64s();
    assert!(y[0].is_nan() && y[1].is_nan(), "{y:?}");
    assert_eq!(&y[2..], &[1.0, 2.0]);
}

#[test]
fn causal_attention_is_top_left_aligned() {
    // Sq = 2, Sk = 3: query 0 sees key 0 only, query 1 sees keys 0 and 1.
    let q = f32t(&[2, 1], &[0.0, 0.0]);
    let k = f32t(&[3, 1], &[0.0, 0.0, 0.0]);
    let v = f32t(&[3, 1], &[3.0, 5.0, 100.0]);
    let attrs = Attrs::new().with("scale", Attr::Float(1.0)).with("causal", Attr::Int(1));
    let y = run(Opcode::CoreAttention, &[Some(q), Some(k), Some(v)], attrs);
    assert_eq!(y.to_f64s(), vec![3.0, 4.0]);
}

#[test]
fn inference_errors_are_precise() {
    let z = |shape: &[usize]| Some(f32t(shape, &vec![0.0; shape.iter().product()]));
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[4, 5])], Attrs::new());
    assert!(e.contains("inner dimensions differ"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[5, 4])], Attrs::new().with("trans_b", Attr::Int(1)));
    assert!(e.contains("has K = 3 but B f32[5, 4] has K = 4 (trans_b = 1"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5]), z(&[4, 5])], Attrs::new());
    assert!(e.contains("bias f32[4, 5] does not broadcast to f32[2, 5] without changing it"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5]), z(&[7])], Attrs::new());
    assert!(e.contains("(dims 7 and 5)"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3])], Attrs::new().with("trans_b", Attr::Int(1)));
    assert!(e.contains("must have rank ≥ 2 when trans_b = 1"), "{e}");
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5])], Attrs::new().with("trans_b", Attr::Int(2)));
    assert!(e.contains("`trans_b` = 2 must be 0 or 1"), "{e}");
    let relu_alpha = with_act(Attrs::new(), Activation::Relu).with("act_alpha", Attr::Float(1.0));
    let e = run_err(Opcode::CoreLinear, &[z(&[2, 3]), z(&[3, 5])], relu_alpha);
    assert!(e.contains("not used by act"), "{e}");

    let sc = || Attrs::new().with("scale", Attr::Float(1.0));
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[2, 5, 6]), z(&[2, 5, 8])], sc());
    assert!(e.contains("must have the same head size D"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[2, 5, 8]), z(&[2, 6, 8])], sc());
    assert!(e.contains("must have the same key count Sk"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[8]), z(&[2, 5, 8]), z(&[2, 5, 8])], sc());
    assert!(e.contains("Q f32[8] must have rank ≥ 2"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[2, 4, 8]), z(&[3, 5, 8]), z(&[2, 5, 8])], sc());
    assert!(e.contains("Q @ Kᵀ"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[4, 8]), z(&[5, 8]), z(&[5, 8]), z(&[2, 4, 5])], sc());
    assert!(e.contains("mask f32[2, 4, 5] does not broadcast to f32[4, 5]"), "{e}");
    let e = run_err(Opcode::CoreAttention, &[z(&[4, 8]), z(&[5, 8]), z(&[5, 8])], Attrs::new());
    assert!(e.contains("scale"), "{e}");

    let e = run_err(Opcode::CoreConv, &[z(&[1, 3, 8, 8]), z(&[16, 4, 3, 3])], Attrs::new());
    assert!(e.contains("has 3 channels but W"), "{e}");
    let bad_act = Attrs::new().with("act", Attr::Str("swish".into()));
    let e = run_err(Opcode::CoreConvTranspose, &[z(&[1, 3, 4, 4]), z(&[3, 2, 3, 3])], bad_act);
    assert!(e.contains("swish"), "{e}");
}
