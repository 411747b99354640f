//! `TensorProto` ⇄ interpreter tensors and IR constants; ONNX element types.

use super::proto::TensorProto;
use super::ImportError;
use ir::interp::{from_le_bytes, lowp, Data, Tensor};
use ir::DType;
use std::path::Path;

/// ONNX `TensorProto.DataType` code of an edgec element type.
pub fn onnx_code(dt: DType) -> i32 {
    match dt {
        DType::F32 => 1,
        DType::U8 => 2,
        DType::I8 => 3,
        DType::U16 => 4,
        DType::I16 => 5,
        DType::I32 => 6,
        DType::I64 => 7,
        DType::String => 8,
        DType::Bool => 9,
        DType::F16 => 10,
        DType::F64 => 11,
        DType::U32 => 12,
        DType::U64 => 13,
        DType::BF16 => 16,
        DType::F8E4M3FN => 17,
        DType::F8E4M3FNUZ => 18,
        DType::F8E5M2 => 19,
        DType::F8E5M2FNUZ => 20,
        DType::U4 => 21,
        DType::I4 => 22,
        DType::F4E2M1 => 23,
        DType::F8E8M0 => 24,
        DType::U2 => 25,
        DType::I2 => 26,
    }
}

/// The edgec element type of an ONNX data-type code, or its ONNX name if unsupported.
pub fn dtype_of(code: i32) -> Result<DType, String> {
    Ok(match code {
        1 => DType::F32,
        2 => DType::U8,
        3 => DType::I8,
        4 => DType::U16,
        5 => DType::I16,
        6 => DType::I32,
        7 => DType::I64,
        8 => DType::String,
        9 => DType::Bool,
        10 => DType::F16,
        11 => DType::F64,
        12 => DType::U32,
        13 => DType::U64,
        16 => DType::BF16,
        17 => DType::F8E4M3FN,
        18 => DType::F8E4M3FNUZ,
        19 => DType::F8E5M2,
        20 => DType::F8E5M2FNUZ,
        21 => DType::U4,
        22 => DType::I4,
        23 => DType::F4E2M1,
        24 => DType::F8E8M0,
        25 => DType::U2,
        26 => DType::I2,
        other => {
            let name = super::proto::tensor_proto::DataType::try_from(other)
                .map(|d| d.as_str_name().to_string())
                .unwrap_or_else(|_| format!("#{other}"));
            return Err(format!("element type {name} is not supported"));
        }
    })
}

/// Decode a tensor. `base_dir` resolves external data (`None`: external data is an error).
pub fn tensor_from_proto(t: &TensorProto, base_dir: Option<&Path>) -> Result<Tensor, ImportError> {
    let what = if t.name.is_empty() { "tensor".to_string() } else { format!("tensor \"{}\"", t.name) };
    let err = |m: String| ImportError::Tensor(format!("{what}: {m}"));
    let dt = dtype_of(t.data_type).map_err(err)?;
    let mut shape = Vec::with_capacity(t.dims.len());
    let mut n: usize = 1;
    for &d in &t.dims {
        let d = usize::try_from(d).map_err(|_| err(format!("negative dimension {d}")))?;
        n = n.checked_mul(d).ok_or_else(|| err("element count overflows".into()))?;
        shape.push(d);
    }
    let data = if t.data_location == 1 {
        let bytes = read_external(t, base_dir).map_err(err)?;
        decode_raw(dt, &bytes, n).map_err(err)?
    } else if !t.raw_data.is_empty() {
        decode_raw(dt, &t.raw_data, n).map_err(err)?
    } else if lowp::per_byte(dt) > 1 {
        let bytes: Vec<u8> = t.int32_data.iter().map(|&x| x as u8).collect();
        decode_raw(dt, &bytes, n).map_err(err)?
    } else {
        typed_fields(t, dt).map_err(err)?
    };
    if data.len() != n {
        return Err(err(format!("has {} elements but dims {:?} need {n}", data.len(), t.dims)));
    }
    Ok(Tensor { shape, data })
}

/// Decode raw little-endian bytes; 4-bit types are packed two per byte and
/// 2-bit types four per byte (low bits first), so `n` (the element count) is needed.
fn decode_raw(dt: DType, b: &[u8], n: usize) -> Result<Data, String> {
    if lowp::per_byte(dt) == 1 {
        return from_le_bytes(dt, b);
    }
    let need = n.div_ceil(lowp::per_byte(dt));
    if b.len() != need {
        return Err(format!("{} packed bytes for {n} {dt} elements (expected {need})", b.len()));
    }
    lowp::from_raw(dt, lowp::unpack(dt, b, n)?).ok_or_else(|| format!("internal: {dt} is not packed"))
}

fn typed_fields(t: &TensorProto, dt: DType) -> Result<Data, String> {
    use half::{bf16, f16};
    let i32s = &t.int32_data;
    Ok(match dt {
        DType::F32 => Data::F32(t.float_data.clone()),
        DType::F64 => Data::F64(t.double_data.clone()),
        DType::I64 => Data::I64(t.int64_data.clone()),
        DType::U64 => Data::U64(t.uint64_data.clone()),
        DType::U32 => Data::U32(t.uint64_data.iter().map(|&x| x as u32).collect()),
        DType::I32 => Data::I32(i32s.clone()),
        DType::I16 => Data::I16(i32s.iter().map(|&x| x as i16).collect()),
        DType::U16 => Data::U16(i32s.iter().map(|&x| x as u16).collect()),
        DType::I8 => Data::I8(i32s.iter().map(|&x| x as i8).collect()),
        DType::U8 => Data::U8(i32s.iter().map(|&x| x as u8).collect()),
        DType::Bool => Data::Bool(i32s.iter().map(|&x| x != 0).collect()),
        DType::F16 => Data::F16(i32s.iter().map(|&x| f16::from_bits(x as u16)).collect()),
        DType::BF16 => Data::BF16(i32s.iter().map(|&x| bf16::from_bits(x as u16)).collect()),
        DType::String => Data::String(t.string_data.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect()),
        // float8: one bit pattern per int32 (packed types are handled by the caller).
        _ => {
            lowp::from_raw(dt, i32s.iter().map(|&x| x as u8).collect()).ok_or_else(|| format!("cannot decode {dt}"))?
        }
    })
}

/// Read external data, refusing paths that leave the model's directory.
fn read_external(t: &TensorProto, base_dir: Option<&Path>) -> Result<Vec<u8>, String> {
    let base = base_dir.ok_or("external data, but the model was not loaded from a file")?;
    let get = |k: &str| t.external_data.iter().find(|e| e.key == k).map(|e| e.value.as_str());
    let loc = get("location").ok_or("external data without `location`")?;
    let rel = Path::new(loc);
    if rel.is_absolute() || rel.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
        return Err(format!("external data location \"{loc}\" must be a relative path inside the model's directory"));
    }
    let parse = |k: &str| -> Result<Option<u64>, String> {
        get(k)
            .map(|v| v.parse::<u64>().map_err(|_| format!("external data `{k}` = \"{v}\" is not a number")))
            .transpose()
    };
    let (offset, length) = (parse("offset")?.unwrap_or(0), parse("length")?);
    let path = base.join(rel);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read external data {}: {e}", path.display()))?;
    let start = usize::try_from(offset).map_err(|_| "offset too large")?;
    let end = match length {
        Some(l) => start.checked_add(l as usize).ok_or("offset + length overflows")?,
        None => bytes.len(),
    };
    if start > end || end > bytes.len() {
        return Err(format!(
            "external data range {start}..{end} is outside {} ({} bytes)",
            path.display(),
            bytes.len()
        ));
    }
    Ok(bytes[start..end].to_vec())
}

/// Encode an interpreter tensor as a `TensorProto` (raw data, or string_data).
pub fn tensor_to_proto(t: &Tensor, name: &str) -> TensorProto {
    let mut p = TensorProto {
        dims: t.shape.iter().map(|&d| d as i64).collect(),
        data_type: onnx_code(t.dtype()),
        name: name.to_string(),
        ..Default::default()
    };
    match &t.data {
        Data::String(v) => p.string_data = v.iter().map(|s| s.as_bytes().to_vec()).collect(),
        _ if lowp::per_byte(t.dtype()) > 1 => {
            p.raw_data = lowp::pack(t.dtype(), &lowp::raw_bytes(&t.data).unwrap_or_default())
        }
        _ => p.raw_data = t.to_le_bytes().unwrap_or_default(),
    }
    p
}

/// Convert a decoded tensor into a module constant named `name`.
pub fn constant_of(t: &Tensor, name: String) -> ir::Constant {
    let data = match &t.data {
        Data::String(v) => ir::ConstData::Strings(v.clone().into()),
        _ => ir::ConstData::Bytes(t.to_le_bytes().unwrap_or_default().into()),
    };
    ir::Constant { name, ty: t.ty(), data }
}
