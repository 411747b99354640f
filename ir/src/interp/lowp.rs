//! Interpreter data of ONNX's low-precision element types (one byte per
//! element); the element codec is [`crate::lowp`]. Infrastructure: the
//! tensor code and the kernels of several families (elementwise casts, quant,
//! the numeric views in `tensor`) read and write such data through it.

use crate::interp::Data;
pub use crate::lowp::*;
use crate::types::DType;

/// Data of low-precision float type `dt` from `f64`s (E8M0 rounds `up`);
/// `None` if `dt` is not a low-precision float type.
pub fn float_data(dt: DType, v: impl IntoIterator<Item = f64>, saturate: bool) -> Option<Data> {
    let enc = |v: &mut dyn Iterator<Item = f64>| -> Vec<u8> { v.map(|x| encode(dt, x, saturate)).collect() };
    let mut it = v.into_iter();
    Some(match dt {
        DType::F8E4M3FN => Data::F8E4M3FN(enc(&mut it)),
        DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(enc(&mut it)),
        DType::F8E5M2 => Data::F8E5M2(enc(&mut it)),
        DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(enc(&mut it)),
        DType::F8E8M0 => Data::F8E8M0(enc(&mut it)),
        DType::F4E2M1 => Data::F4E2M1(enc(&mut it)),
        _ => return None,
    })
}

/// Data of 4-bit / 2-bit integer type `dt` from `i128`s, wrapping; `None` if
/// `dt` is not one of those types.
pub fn int_data(dt: DType, v: impl IntoIterator<Item = i128>) -> Option<Data> {
    let it = v.into_iter().map(|x| wrap_small_int(dt, x));
    Some(match dt {
        DType::U4 => Data::U4(it.map(|x| x as u8).collect()),
        DType::I4 => Data::I4(it.map(|x| x as i8).collect()),
        DType::U2 => Data::U2(it.map(|x| x as u8).collect()),
        DType::I2 => Data::I2(it.map(|x| x as i8).collect()),
        _ => return None,
    })
}

/// Raw bytes (bit patterns / values) of low-precision data, one per element;
/// `None` for other element types.
pub fn raw_bytes(d: &Data) -> Option<Vec<u8>> {
    Some(match d {
        Data::F8E4M3FN(v) | Data::F8E4M3FNUZ(v) | Data::F8E5M2(v) | Data::F8E5M2FNUZ(v) => v.clone(),
        Data::F8E8M0(v) | Data::F4E2M1(v) | Data::U4(v) | Data::U2(v) => v.clone(),
        Data::I4(v) | Data::I2(v) => v.iter().map(|&x| x as u8).collect(),
        _ => return None,
    })
}

/// Low-precision data of type `dt` from raw one-per-byte bytes (bit patterns
/// for floats; two's-complement values for integers, which are wrapped).
pub fn from_raw(dt: DType, b: Vec<u8>) -> Option<Data> {
    Some(match dt {
        DType::F8E4M3FN => Data::F8E4M3FN(b),
        DType::F8E4M3FNUZ => Data::F8E4M3FNUZ(b),
        DType::F8E5M2 => Data::F8E5M2(b),
        DType::F8E5M2FNUZ => Data::F8E5M2FNUZ(b),
        DType::F8E8M0 => Data::F8E8M0(b),
        DType::F4E2M1 => Data::F4E2M1(b),
        _ => return int_data(dt, b.into_iter().map(|x| x as i8 as i128)),
    })
}
