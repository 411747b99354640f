//! Helpers: running one op in the interpreter, tensors, tolerant comparison
//! and shape/data strategies.

#![allow(dead_code)]

use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// Cases per property.
pub const CASES: u32 = 64;

/// A proptest config with [`CASES`] cases.
pub fn config() -> ProptestConfig {
    ProptestConfig { cases: CASES, max_shrink_iters: 200, ..ProptestConfig::default() }
}

/// Number of elements.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

pub fn f32t(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::F32(v.to_vec()))
}

pub fn i64t(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::I64(v.to_vec()))
}

pub fn i32t(shape: &[usize], v: &[i32]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::I32(v.to_vec()))
}

pub fn boolt(shape: &[usize], v: &[bool]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::Bool(v.to_vec()))
}

/// A 1-D i64 tensor.
pub fn ints(v: &[i64]) -> Tensor {
    i64t(&[v.len()], v)
}

/// Attributes from `(name, value)` pairs.
pub fn attrs(list: Vec<(&str, Attr)>) -> Attrs {
    list.into_iter().fold(Attrs::new(), |a, (k, v)| a.with(k, v))
}

/// Run one op in the interpreter; panics with the op and inputs on error.
pub fn interp(op: Opcode, inputs: Vec<Option<Tensor>>, attrs: Attrs, results: usize) -> Vec<Tensor> {
    match eval_op(op, &inputs, attrs.clone(), results) {
        Ok(out) => out,
        Err(e) => panic!("interpreter failed on {op:?} {attrs:?} {inputs:?}: {e}"),
    }
}

/// An f64 tensor holding f32 values exactly.
pub fn f64t(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::new(shape.to_vec(), Data::F64(v.iter().map(|&x| x as f64).collect()))
}

/// Run `op` in the interpreter on f64 copies of the f32 inputs (its f64
/// path is the most accurate reference) and round the first result to f32.
pub fn interp_f64(op: Opcode, inputs: Vec<Option<(&[usize], &[f32])>>, attrs: Attrs) -> Vec<f32> {
    let ins = inputs.into_iter().map(|t| t.map(|(s, v)| f64t(s, v))).collect();
    match &interp(op, ins, attrs, 1)[0].data {
        Data::F64(v) => v.iter().map(|&x| x as f32).collect(),
        d => panic!("expected f64 data, got {:?}", d.dtype()),
    }
}

/// The f32 data of a tensor.
pub fn as_f32(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32 data, got {:?}", d.dtype()),
    }
}

pub fn as_i64(t: &Tensor) -> Vec<i64> {
    match &t.data {
        Data::I64(v) => v.clone(),
        d => panic!("expected i64 data, got {:?}", d.dtype()),
    }
}

pub fn as_bool(t: &Tensor) -> Vec<bool> {
    match &t.data {
        Data::Bool(v) => v.clone(),
        d => panic!("expected bool data, got {:?}", d.dtype()),
    }
}

/// `got` equals `want` within `atol + rtol |want|` (NaN matches NaN,
/// infinities must be equal).
pub fn check_close(got: &[f32], want: &[f32], rtol: f32, atol: f32) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len(), "lengths differ");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        prop_assert!(ok, "element {}: got {} want {} (diff {})", i, g, w, (g - w).abs());
    }
    Ok(())
}

/// Finite values in `[-10, 10]`.
pub fn finite() -> impl Strategy<Value = f32> + Clone {
    -10f32..10f32
}

/// Mostly finite values, with zeros, halves, infinities and NaN.
pub fn special() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        24 => -10f32..10f32,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        2 => (-20i32..20).prop_map(|k| k as f32 * 0.5),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::NAN),
    ]
}

/// A shape of rank `ranks` with dims in `1..=max_dim`, size-1 dims frequent.
pub fn shape(ranks: std::ops::RangeInclusive<usize>, max_dim: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1 => Just(1usize), 3 => 1..=max_dim], ranks)
}

/// `(shape, data)` with data from `elem`.
pub fn tensor<S: Strategy<Value = f32> + Clone>(
    shape: impl Strategy<Value = Vec<usize>>,
    elem: S,
) -> impl Strategy<Value = (Vec<usize>, Vec<f32>)> {
    shape.prop_flat_map(move |s| {
        let n = numel(&s);
        (Just(s), prop::collection::vec(elem.clone(), n))
    })
}

/// An operand shape that broadcasts to `out`: some leading dims dropped and
/// some dims set to 1.
pub fn operand_of(out: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let r = out.len();
    (0..=r, prop::collection::vec(prop::bool::weighted(0.3), r))
        .prop_map(move |(drop, ones)| (drop..r).map(|d| if ones[d] { 1 } else { out[d] }).collect())
}

/// Two shapes that broadcast together, and their broadcast.
pub fn bcast2(max_rank: usize) -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    shape(0..=max_rank, 4).prop_flat_map(|out| (operand_of(out.clone()), operand_of(out))).prop_map(|(a, b)| {
        let out = edgec_kernels::elementwise::broadcast_shape(&a, &b).expect("operands of one shape broadcast");
        (a, b, out)
    })
}

/// `n` values from `elem`.
pub fn data<S: Strategy<Value = f32>>(n: usize, elem: S) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(elem, n)
}
