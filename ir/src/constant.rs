//! Module constants: weights and small literal tensors, stored once per
//! module and referred to by symbol.

use crate::types::{DType, TensorType};
use std::sync::Arc;

/// Raw constant contents.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstData {
    /// Little-endian packed elements of the constant's dtype (bool = one byte 0/1).
    Bytes(Arc<[u8]>),
    /// String elements.
    Strings(Arc<[String]>),
}

/// A named constant (weights or small literal tensors) stored once per module.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// Symbol name (without `@`), unique within the module.
    pub name: String,
    /// Type; constants always have a fully static shape.
    pub ty: TensorType,
    /// Contents; the byte length equals element count × element size.
    pub data: ConstData,
}

impl Constant {
    /// Number of elements (from the type).
    pub fn num_elements(&self) -> usize {
        self.ty.shape.num_elements().unwrap_or(0) as usize
    }
    /// Raw bytes, if not a string constant.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            ConstData::Bytes(b) => Some(b),
            ConstData::Strings(_) => None,
        }
    }
    /// Elements converted to `i64` (integers and bools; floats only if integral).
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        // 64-bit integers are decoded directly: going through f64 would lose
        // precision above 2^53.
        let b = self.bytes()?;
        match self.ty.dtype {
            DType::I64 => Some(b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()),
            DType::U64 => {
                Some(b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as i64).collect())
            }
            dt => {
                let f = self.to_f64s()?;
                if dt.is_float() && f.iter().any(|x| x.fract() != 0.0) {
                    return None;
                }
                Some(f.iter().map(|&x| x as i64).collect())
            }
        }
    }
    /// Elements converted to `f64` (any numeric or bool dtype).
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        let b = self.bytes()?;
        let dt = self.ty.dtype;
        let sz = dt.size_bytes()?;
        let conv = |c: &[u8]| -> f64 {
            match dt {
                DType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                DType::F64 => f64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
                DType::F16 => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
                DType::BF16 => half::bf16::from_le_bytes([c[0], c[1]]).to_f64(),
                DType::I8 => c[0] as i8 as f64,
                DType::U8 | DType::Bool => c[0] as f64,
                DType::I16 => i16::from_le_bytes([c[0], c[1]]) as f64,
                DType::U16 => u16::from_le_bytes([c[0], c[1]]) as f64,
                DType::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                DType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                DType::I64 => i64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64,
                DType::U64 => u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64,
                DType::String => f64::NAN,
                DType::I4 | DType::I2 | DType::U4 | DType::U2 => {
                    crate::lowp::wrap_small_int(dt, c[0] as i8 as i128) as f64
                }
                _ => crate::lowp::decode(dt, c[0]),
            }
        };
        Some(b.chunks_exact(sz).map(conv).collect())
    }
    /// Build an `i64` constant.
    pub fn from_i64s(name: impl Into<String>, dims: &[u64], vals: &[i64]) -> Constant {
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        Constant { name: name.into(), ty: TensorType::fixed(DType::I64, dims), data: ConstData::Bytes(bytes.into()) }
    }
    /// Build an `f32` constant.
    pub fn from_f32s(name: impl Into<String>, dims: &[u64], vals: &[f32]) -> Constant {
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        Constant { name: name.into(), ty: TensorType::fixed(DType::F32, dims), data: ConstData::Bytes(bytes.into()) }
    }
    /// Expected byte length for the type, if not a string constant.
    pub fn expected_bytes(&self) -> Option<usize> {
        Some(self.num_elements() * self.ty.dtype.size_bytes()?)
    }
}
