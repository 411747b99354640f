//! Runtime tensors of the reference interpreter: a static shape plus a typed,
//! row-major element buffer.
//!
//! Infrastructure shared by every kernel family: besides [`Tensor`] and
//! [`Data`], the sub-modules hold the numeric views of tensor data that
//! kernels of many families compute in: [`real`] (the f32/f64 `Real` domain of
//! the float kernels: conv, pool, norm, attention, rnn, signal, ...) and
//! [`wide`] (the wide domain for arithmetic on any element type, typed data
//! access, multi-index arithmetic and integer-operand readers used by the
//! layout, index, select, generate and reduce kernels and others).

pub mod real;
pub mod wide;

use crate::interp::lowp;
use crate::module::{ConstData, Constant};
use crate::types::{DType, TensorType};
use half::{bf16, f16};
use std::fmt;

/// Typed element storage, one variant per [`DType`].
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Data {
    F32(Vec<f32>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F64(Vec<f64>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    String(Vec<String>),
    /// Raw float8/float4 bit patterns (one per byte); see [`crate::interp::lowp`].
    F8E4M3FN(Vec<u8>),
    F8E4M3FNUZ(Vec<u8>),
    F8E5M2(Vec<u8>),
    F8E5M2FNUZ(Vec<u8>),
    F8E8M0(Vec<u8>),
    F4E2M1(Vec<u8>),
    /// 4-bit / 2-bit integer values (one per byte).
    U4(Vec<u8>),
    I4(Vec<i8>),
    U2(Vec<u8>),
    I2(Vec<i8>),
}

/// Apply `$body` with `$v` bound to the vector inside any [`Data`] variant.
#[macro_export]
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::interp::Data::F32($v) => $body,
            $crate::interp::Data::F16($v) => $body,
            $crate::interp::Data::BF16($v) => $body,
            $crate::interp::Data::F64($v) => $body,
            $crate::interp::Data::I8($v) => $body,
            $crate::interp::Data::U8($v) => $body,
            $crate::interp::Data::I16($v) => $body,
            $crate::interp::Data::U16($v) => $body,
            $crate::interp::Data::I32($v) => $body,
            $crate::interp::Data::U32($v) => $body,
            $crate::interp::Data::I64($v) => $body,
            $crate::interp::Data::U64($v) => $body,
            $crate::interp::Data::Bool($v) => $body,
            $crate::interp::Data::String($v) => $body,
            $crate::interp::Data::F8E4M3FN($v) => $body,
            $crate::interp::Data::F8E4M3FNUZ($v) => $body,
            $crate::interp::Data::F8E5M2($v) => $body,
            $crate::interp::Data::F8E5M2FNUZ($v) => $body,
            $crate::interp::Data::F8E8M0($v) => $body,
            $crate::interp::Data::F4E2M1($v) => $body,
            $crate::interp::Data::U4($v) => $body,
            $crate::interp::Data::I4($v) => $body,
            $crate::interp::Data::U2($v) => $body,
            $crate::interp::Data::I2($v) => $body,
        }
    };
}

/// Like [`with_data!`] but also rebuilds a `Data` of the same variant from
/// `$body`, which must evaluate to a `Vec` of the same element type.
#[macro_export]
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::interp::Data::F32($v) => $crate::interp::Data::F32($body),
            $crate::interp::Data::F16($v) => $crate::interp::Data::F16($body),
            $crate::interp::Data::BF16($v) => $crate::interp::Data::BF16($body),
            $crate::interp::Data::F64($v) => $crate::interp::Data::F64($body),
            $crate::interp::Data::I8($v) => $crate::interp::Data::I8($body),
            $crate::interp::Data::U8($v) => $crate::interp::Data::U8($body),
            $crate::interp::Data::I16($v) => $crate::interp::Data::I16($body),
            $crate::interp::Data::U16($v) => $crate::interp::Data::U16($body),
            $crate::interp::Data::I32($v) => $crate::interp::Data::I32($body),
            $crate::interp::Data::U32($v) => $crate::interp::Data::U32($body),
            $crate::interp::Data::I64($v) => $crate::interp::Data::I64($body),
            $crate::interp::Data::U64($v) => $crate::interp::Data::U64($body),
            $crate::interp::Data::Bool($v) => $crate::interp::Data::Bool($body),
            $crate::interp::Data::String($v) => $crate::interp::Data::String($body),
            $crate::interp::Data::F8E4M3FN($v) => $crate::interp::Data::F8E4M3FN($body),
            $crate::interp::Data::F8E4M3FNUZ($v) => $crate::interp::Data::F8E4M3FNUZ($body),
            $crate::interp::Data::F8E5M2($v) => $crate::interp::Data::F8E5M2($body),
            $crate::interp::Data::F8E5M2FNUZ($v) => $crate::interp::Data::F8E5M2FNUZ($body),
            $crate::interp::Data::F8E8M0($v) => $crate::interp::Data::F8E8M0($body),
            $crate::interp::Data::F4E2M1($v) => $crate::interp::Data::F4E2M1($body),
            $crate::interp::Data::U4($v) => $crate::interp::Data::U4($body),
            $crate::interp::Data::I4($v) => $crate::interp::Data::I4($body),
            $crate::interp::Data::U2($v) => $crate::interp::Data::U2($body),
            $crate::interp::Data::I2($v) => $crate::interp::Data::I2($body),
        }
    };
}

impl Data {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Data::F32(_) => DType::F32,
            Data::F16(_) => DType::F16,
            Data::BF16(_) => DType::BF16,
            Data::F64(_) => DType::F64,
            Data::I8(_) => DType::I8,
            Data::U8(_) => DType::U8,
            Data::I16(_) => DType::I16,
            Data::U16(_) => DType::U16,
            Data::I32(_) => DType::I32,
            Data::U32(_) => DType::U32,
            Data::I64(_) => DType::I64,
            Data::U64(_) => DType::U64,
            Data::Bool(_) => DType::Bool,
            Data::String(_) => DType::String,
            Data::F8E4M3FN(_) => DType::F8E4M3FN,
            Data::F8E4M3FNUZ(_) => DType::F8E4M3FNUZ,
            Data::F8E5M2(_) => DType::F8E5M2,
            Data::F8E5M2FNUZ(_) => DType::F8E5M2FNUZ,
            Data::F8E8M0(_) => DType::F8E8M0,
            Data::F4E2M1(_) => DType::F4E2M1,
            Data::U4(_) => DType::U4,
            Data::I4(_) => DType::I4,
            Data::U2(_) => DType::U2,
            Data::I2(_) => DType::I2,
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }
    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `n` default (zero / false / empty) elements of `dt`.
    pub fn zeros(dt: DType, n: usize) -> Data {
        match dt {
            DType::F32 => Data::F32(vec![0.0; n]),
            DType::F16 => Data::F16(vec![f16::ZERO; n]),
            DType::BF16 => Data::BF16(vec![bf16::ZERO; n]),
            DType::F64 => Data::F64(vec![0.0; n]),
            DType::I8 => Data::I8(vec![0; n]),
            DType::U8 => Data::U8(vec![0; n]),
            DType::I16 => Data::I16(vec![0; n]),
            DType::U16 => Data::U16(vec![0; n]),
            DType::I32 => Data::I32(vec![0; n]),
            DType::U32 => Data::U32(vec![0; n]),
            DType::I64 => Data::I64(vec![0; n]),
            DType::U64 => Data::U64(vec![0; n]),
            DType::Bool => Data::Bool(vec![false; n]),
            DType::String => Data::String(vec![String::new(); n]),
            // Bit pattern 0 is +0 (or 2^-127 for E8M0, which has no zero).
            DType::F8E4M3FN => Data::F8E4M3FN(vec![0; n]),
            DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(vec![0; n]),
            DType::F8E5M2 => Data::F8E5M2(vec![0; n]),
            DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(vec![0; n]),
            DType::F8E8M0 => Data::F8E8M0(vec![0; n]),
            DType::F4E2M1 => Data::F4E2M1(vec![0; n]),
            DType::U4 => Data::U4(vec![0; n]),
            DType::I4 => Data::I4(vec![0; n]),
            DType::U2 => Data::U2(vec![0; n]),
            DType::I2 => Data::I2(vec![0; n]),
        }
    }
    /// Concatenate buffers of one element type.
    pub fn concat(parts: &[&Data]) -> Result<Data, String> {
        let Some(first) = parts.first() else { return Err("nothing to concatenate".into()) };
        if let Some(p) = parts.iter().find(|p| p.dtype() != first.dtype()) {
            return Err(format!("cannot concatenate {} with {}", first.dtype(), p.dtype()));
        }
        macro_rules! cat {
            ($($var:ident),*) => {
                match first {
                    $(Data::$var(_) => Data::$var(parts.iter().flat_map(|p| match p {
                        Data::$var(v) => v.iter().cloned(),
                        _ => unreachable!("dtypes checked above"),
                    }).collect()),)*
                }
            };
        }
        Ok(cat!(
            F32, F16, BF16, F64, I8, U8, I16, U16, I32, U32, I64, U64, Bool, String, F8E4M3FN, F8E4M3FNUZ, F8E5M2,
            F8E5M2FNUZ, F8E8M0, F4E2M1, U4, I4, U2, I2
        ))
    }
    /// Gather elements by flat index (`out[i] = self[idx[i]]`).
    pub fn gather(&self, idx: &[usize]) -> Data {
        fn pick<T: Clone>(v: &[T], idx: &[usize]) -> Vec<T> {
            idx.iter().map(|&i| v[i].clone()).collect()
        }
        map_data!(self, v => pick(v, idx))
    }
    /// Element `i` as f64 (bool as 0/1; strings as NaN).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Data::F32(v) => v[i] as f64,
            Data::F16(v) => v[i].to_f64(),
            Data::BF16(v) => v[i].to_f64(),
            Data::F64(v) => v[i],
            Data::I8(v) => v[i] as f64,
            Data::U8(v) => v[i] as f64,
            Data::I16(v) => v[i] as f64,
            Data::U16(v) => v[i] as f64,
            Data::I32(v) => v[i] as f64,
            Data::U32(v) => v[i] as f64,
            Data::I64(v) => v[i] as f64,
            Data::U64(v) => v[i] as f64,
            Data::Bool(v) => v[i] as u8 as f64,
            Data::String(_) => f64::NAN,
            Data::F8E4M3FN(v) => lowp::decode(DType::F8E4M3FN, v[i]),
            Data::F8E4M3FNUZ(v) => lowp::decode(DType::F8E4M3FNUZ, v[i]),
            Data::F8E5M2(v) => lowp::decode(DType::F8E5M2, v[i]),
            Data::F8E5M2FNUZ(v) => lowp::decode(DType::F8E5M2FNUZ, v[i]),
            Data::F8E8M0(v) => lowp::decode(DType::F8E8M0, v[i]),
            Data::F4E2M1(v) => lowp::decode(DType::F4E2M1, v[i]),
            Data::U4(v) | Data::U2(v) => v[i] as f64,
            Data::I4(v) | Data::I2(v) => v[i] as f64,
        }
    }
    /// Element `i` as i64 (floats truncated toward zero; bool as 0/1).
    pub fn get_i64(&self, i: usize) -> i64 {
        match self {
            Data::I64(v) => v[i],
            Data::U64(v) => v[i] as i64,
            Data::I32(v) => v[i] as i64,
            Data::U32(v) => v[i] as i64,
            Data::I16(v) => v[i] as i64,
            Data::U16(v) => v[i] as i64,
            Data::I8(v) => v[i] as i64,
            Data::U8(v) => v[i] as i64,
            Data::Bool(v) => v[i] as i64,
            Data::U4(v) | Data::U2(v) => v[i] as i64,
            Data::I4(v) | Data::I2(v) => v[i] as i64,
            _ => self.get_f64(i) as i64,
        }
    }
}

/// A tensor value: static shape and row-major data with `product(shape)` elements.
#[derive(Clone, PartialEq)]
pub struct Tensor {
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Elements.
    pub data: Data,
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor<{}{:?}>", self.dtype(), self.shape)?;
        if self.len() <= 16 {
            with_data!(&self.data, v => write!(f, "{v:?}"))?;
        }
        Ok(())
    }
}

impl Tensor {
    /// A tensor; panics if the element count does not match the shape (a kernel bug).
    pub fn new(shape: Vec<usize>, data: Data) -> Tensor {
        assert_eq!(shape.iter().product::<usize>(), data.len(), "tensor data does not match shape {shape:?}");
        Tensor { shape, data }
    }
    /// A tensor of zeros.
    pub fn zeros(dt: DType, shape: Vec<usize>) -> Tensor {
        let n = shape.iter().product();
        Tensor { shape, data: Data::zeros(dt, n) }
    }
    /// A rank-0 f32 tensor.
    pub fn scalar_f32(x: f32) -> Tensor {
        Tensor { shape: vec![], data: Data::F32(vec![x]) }
    }
    /// A 1-D i64 tensor.
    pub fn from_i64s(v: Vec<i64>) -> Tensor {
        Tensor { shape: vec![v.len()], data: Data::I64(v) }
    }
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// Element count.
    pub fn len(&self) -> usize {
        self.data.len()
    }
    /// True if the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// The static type of this tensor.
    pub fn ty(&self) -> TensorType {
        TensorType::fixed(self.dtype(), &self.shape.iter().map(|&d| d as u64).collect::<Vec<_>>())
    }
    /// All elements as i64 (for shape-like operands).
    pub fn to_i64s(&self) -> Vec<i64> {
        (0..self.len()).map(|i| self.data.get_i64(i)).collect()
    }
    /// All elements as f64.
    pub fn to_f64s(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.data.get_f64(i)).collect()
    }
    /// Row-major strides of the shape.
    pub fn strides(&self) -> Vec<usize> {
        strides(&self.shape)
    }

    /// Decode a module constant.
    pub fn from_constant(c: &Constant) -> Result<Tensor, String> {
        let shape: Vec<usize> =
            c.ty.shape.static_dims().ok_or("constant has a non-static shape")?.iter().map(|&d| d as usize).collect();
        let data = match &c.data {
            ConstData::Strings(s) => Data::String(s.to_vec()),
            ConstData::Bytes(b) => from_le_bytes(c.ty.dtype, b)?,
        };
        if data.len() != shape.iter().product::<usize>() {
            return Err(format!("constant @{} has {} elements, type {} needs more or fewer", c.name, data.len(), c.ty));
        }
        Ok(Tensor { shape, data })
    }

    /// Encode as little-endian bytes (not for strings).
    pub fn to_le_bytes(&self) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(self.len() * self.dtype().size_bytes()?);
        match &self.data {
            Data::String(_) => return None,
            Data::Bool(v) => out.extend(v.iter().map(|&b| b as u8)),
            Data::F32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::F16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::BF16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::F64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I8(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U8(v) => out.extend_from_slice(v),
            Data::F8E4M3FN(v) | Data::F8E4M3FNUZ(v) | Data::F8E5M2(v) | Data::F8E5M2FNUZ(v) => out.extend_from_slice(v),
            Data::F8E8M0(v) | Data::F4E2M1(v) | Data::U4(v) | Data::U2(v) => out.extend_from_slice(v),
            Data::I4(v) | Data::I2(v) => out.extend(v.iter().map(|&x| x as u8)),
            Data::I16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
        }
        Some(out)
    }
}

/// Row-major strides of `shape`.
pub use edgec_numeric::axis::strides;

/// Decode little-endian packed elements of `dt`.
pub fn from_le_bytes(dt: DType, b: &[u8]) -> Result<Data, String> {
    let size = dt.size_bytes().ok_or("string tensors have no byte encoding")?;
    if !b.len().is_multiple_of(size) {
        return Err(format!("{} bytes is not a whole number of {dt} elements", b.len()));
    }
    macro_rules! dec {
        ($t:ty, $n:literal) => {
            b.chunks_exact($n).map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk size"))).collect()
        };
    }
    Ok(match dt {
        DType::F32 => Data::F32(dec!(f32, 4)),
        DType::F16 => Data::F16(dec!(f16, 2)),
        DType::BF16 => Data::BF16(dec!(bf16, 2)),
        DType::F64 => Data::F64(dec!(f64, 8)),
        DType::I8 => Data::I8(dec!(i8, 1)),
        DType::U8 => Data::U8(b.to_vec()),
        DType::I16 => Data::I16(dec!(i16, 2)),
        DType::U16 => Data::U16(dec!(u16, 2)),
        DType::I32 => Data::I32(dec!(i32, 4)),
        DType::U32 => Data::U32(dec!(u32, 4)),
        DType::I64 => Data::I64(dec!(i64, 8)),
        DType::U64 => Data::U64(dec!(u64, 8)),
        DType::Bool => Data::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::String => unreachable!("checked above"),
        DType::F8E4M3FN => Data::F8E4M3FN(b.to_vec()),
        DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(b.to_vec()),
        DType::F8E5M2 => Data::F8E5M2(b.to_vec()),
        DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(b.to_vec()),
        DType::F8E8M0 => Data::F8E8M0(b.to_vec()),
        DType::F4E2M1 => Data::F4E2M1(b.to_vec()),
        DType::U4 => Data::U4(b.iter().map(|&x| x & 0xF).collect()),
        DType::U2 => Data::U2(b.iter().map(|&x| x & 0x3).collect()),
        DType::I4 => Data::I4(b.iter().map(|&x| lowp::wrap_small_int(dt, x as i128) as i8).collect()),
        DType::I2 => Data::I2(b.iter().map(|&x| lowp::wrap_small_int(dt, x as i128) as i8).collect()),
    })
}
