//! Tensor and attribute builders every helper set of this binary re-exports.

pub use half::{bf16, f16};
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

/// An f64 tensor.
pub fn f64t(shape: &[usize], v: &[f64]) -> Tensor {
    t(shape, Data::F64(v.to_vec()))
}

/// An f16 tensor (values rounded from f32).
pub fn f16t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::F16(v.iter().map(|&x| f16::from_f32(x)).collect()))
}

/// A bf16 tensor (values rounded from f32).
pub fn bf16t(shape: &[usize], v: &[f32]) -> Tensor {
    t(shape, Data::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()))
}

/// An i64 tensor.
pub fn i64t(shape: &[usize], v: &[i64]) -> Tensor {
    t(shape, Data::I64(v.to_vec()))
}

/// An i32 tensor.
pub fn i32t(shape: &[usize], v: &[i32]) -> Tensor {
    t(shape, Data::I32(v.to_vec()))
}

/// An i8 tensor.
pub fn i8t(shape: &[usize], v: &[i8]) -> Tensor {
    t(shape, Data::I8(v.to_vec()))
}

/// A u8 tensor.
pub fn u8t(shape: &[usize], v: &[u8]) -> Tensor {
    t(shape, Data::U8(v.to_vec()))
}

/// A bool tensor.
pub fn boolt(shape: &[usize], v: &[bool]) -> Tensor {
    t(shape, Data::Bool(v.to_vec()))
}

/// A 1-D i64 tensor.
pub fn ints(v: &[i64]) -> Tensor {
    i64t(&[v.len()], v)
}

/// An integer attribute.
pub fn int(v: i64) -> Attr {
    Attr::Int(v)
}

/// A string attribute.
pub fn s(v: &str) -> Attr {
    Attr::Str(v.into())
}

/// An attribute map from (name, value) pairs.
pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (n, v)| a.with(*n, v.clone()))
}
