//! Shared helpers of the kernel tests: the interpreter oracle, tolerant
//! comparison, deterministic operand values and activation strategies.
//!
//! Operand values are small dyadic rationals (multiples of 1/4 in [-2, 2]),
//! so every product and every partial sum of a dot product is exact in f32:
//! GEMM/conv results then agree with the interpreter whatever the summation
//! order or FMA use, and the tolerance (rtol 1e-4, atol 1e-5) only absorbs
//! the rounding of epilogues, activations and softmax.
#![allow(dead_code)]

use edgec_kernels::act::Act;
use edgec_kernels::gemm::Isa;
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// Relative tolerance.
pub const RTOL: f32 = 1e-4;
/// Absolute tolerance.
pub const ATOL: f32 = 1e-5;

/// `n` deterministic dyadic values in [-2, 2] from `seed`.
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 33) % 17) as f32 / 4.0 - 2.0
        })
        .collect()
}

/// Values in [-2, 2) with full 24-bit mantissas (so products round and a
/// different tap order or rounding shows in the bits; [`values`] are exact
/// quarters).
pub fn full_values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 22) as f32 - 2.0
        })
        .collect()
}

/// An f32 tensor.
pub fn t(shape: &[usize], v: Vec<f32>) -> Option<Tensor> {
    assert_eq!(shape.iter().product::<usize>(), v.len());
    Some(Tensor::new(shape.to_vec(), Data::F32(v)))
}

/// A bool tensor.
pub fn tb(shape: &[usize], v: Vec<bool>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::Bool(v)))
}

/// The interpreter's single f32 result of `op`, with its shape.
pub fn oracle(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs) -> (Vec<usize>, Vec<f32>) {
    let out = eval_op(op, inputs, attrs, 1).unwrap_or_else(|e| panic!("interpreter rejected {op:?}: {e}"));
    let y = out.into_iter().next().expect("one result");
    match y.data {
        Data::F32(v) => (y.shape, v),
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

/// Assert `got ≈ want` elementwise (NaN matches NaN, infinities must be equal).
pub fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= ATOL + RTOL * w.abs()
        };
        assert!(ok, "{what}: element {i}: got {g}, want {w}");
    }
}

/// The GEMM families this CPU runs.
pub fn isas() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.available()).collect()
}

/// Every activation, with parameters.
pub fn act_strategy() -> impl Strategy<Value = Act> {
    prop_oneof![
        Just(Act::None),
        Just(Act::Relu),
        (-3i32..=0, 0i32..=3).prop_map(|(a, b)| Act::Clip { min: a as f32 * 0.5, max: b as f32 * 0.5 }),
        Just(Act::Sigmoid),
        (1i32..=4, -2i32..=2).prop_map(|(a, b)| Act::HardSigmoid { alpha: a as f32 * 0.125, beta: b as f32 * 0.25 }),
        Just(Act::HardSwish),
        (1i32..=4).prop_map(|a| Act::LeakyRelu { alpha: a as f32 * 0.0625 }),
        Just(Act::Silu),
        Just(Act::Gelu),
        Just(Act::GeluTanh),
        Just(Act::Tanh),
    ]
}

/// The `act`, `act_alpha`, `act_beta` attributes of `act`.
pub fn act_attrs(act: Act, mut attrs: Attrs) -> Attrs {
    let (name, alpha, beta) = match act {
        Act::None => return attrs,
        Act::Relu => ("relu", None, None),
        Act::Clip { min, max } => ("clip", Some(min), Some(max)),
        Act::Sigmoid => ("sigmoid", None, None),
        Act::HardSigmoid { alpha, beta } => ("hard_sigmoid", Some(alpha), Some(beta)),
        Act::HardSwish => ("hard_swish", None, None),
        Act::LeakyRelu { alpha } => ("leaky_relu", Some(alpha), None),
        Act::Silu => ("silu", None, None),
        Act::Gelu => ("gelu", None, None),
        Act::GeluTanh => ("gelu_tanh", None, None),
        Act::Tanh => ("tanh", None, None),
    };
    attrs.set("act", Attr::Str(name.into()));
    if let Some(a) = alpha {
        attrs.set("act_alpha", Attr::Float(a));
    }
    if let Some(b) = beta {
        attrs.set("act_beta", Attr::Float(b));
    }
    attrs
}

/// An ints attribute from usizes.
pub fn ints(v: &[usize]) -> Attr {
    Attr::Ints(v.iter().map(|&x| x as i64).collect())
}

/// The interpreter's results of `op` (panics if it rejects the case).
pub fn run(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs, n: usize) -> Vec<Tensor> {
    eval_op(op, inputs, attrs, n).unwrap_or_else(|e| panic!("interpreter rejected {op:?}: {e}"))
}

/// The data of an f32 tensor.
pub fn f32s(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

/// The data of an i64 tensor.
pub fn i64s(t: &Tensor) -> Vec<i64> {
    match &t.data {
        Data::I64(v) => v.clone(),
        d => panic!("expected i64, got {:?}", d.dtype()),
    }
}

/// An i64 tensor.
pub fn ti(shape: &[usize], v: Vec<i64>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::I64(v)))
}

/// `n` deterministic xorshift words from `seed`.
fn words(n: usize, seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
    (0..n).map(move |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    })
}

/// `n` deterministic integers in `lo..hi` from `seed`.
pub fn rand_ints(n: usize, seed: u64, lo: i64, hi: i64) -> Vec<i64> {
    words(n, seed).map(|s| lo + ((s >> 11) % (hi - lo).max(1) as u64) as i64).collect()
}

/// `n` deterministic floats in [-1, 1) with full mantissas (sums of these
/// depend on their order, unlike [`values`]).
pub fn floats(n: usize, seed: u64) -> Vec<f32> {
    words(n, seed).map(|s| (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0).collect()
}

/// Number of elements of a shape.
pub fn numel(s: &[usize]) -> usize {
    s.iter().product()
}

/// Attributes from (name, value) pairs.
pub fn attrs(items: &[(&str, Attr)]) -> Attrs {
    let mut a = Attrs::new();
    for (k, v) in items {
        a.set(*k, v.clone());
    }
    a
}

/// An f32 tensor from a slice.
pub fn t_(shape: &[usize], v: &[f32]) -> Option<Tensor> {
    t(shape, v.to_vec())
}

/// A shape of rank 1..=3 with dims 1..=4.
pub fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..5, 1..4)
}
