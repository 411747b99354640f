//! `.npy` (NumPy array file, format versions 1.0–3.0) reading and writing for
//! interpreter tensors. C-order arrays of bool, ints, f16/f32/f64 and unicode
//! strings (`<U`) are supported; anything else is a clear error. The file
//! framing is the kernel runtime's ([`edgec_kernels::npy`]), which generated
//! models use too.

use ir::interp::{from_le_bytes, Data, Tensor};
use ir::DType;

fn descr(dt: DType) -> Option<&'static str> {
    Some(match dt {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::F16 => "<f2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::U16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::Bool => "|b1",
        DType::I4 | DType::I2 => "|i1",
        DType::U4 | DType::U2 => "|u1",
        _ => return None,
    })
}

/// Serialize a tensor as `.npy` (version 1.0). bf16 is written as f32 and
/// strings as fixed-width `<U` unicode.
pub fn write_npy(t: &Tensor) -> Vec<u8> {
    let (descr, body) = match &t.data {
        Data::BF16(v) => ("<f4".to_string(), v.iter().flat_map(|x| x.to_f32().to_le_bytes()).collect()),
        // float8 / float4: their decoded values as f32 (exact).
        _ if t.dtype().is_low_float() => {
            ("<f4".to_string(), t.to_f64s().into_iter().flat_map(|x| (x as f32).to_le_bytes()).collect())
        }
        Data::String(v) => {
            let width = v.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(1);
            let mut b = Vec::with_capacity(v.len() * width * 4);
            for s in v {
                let mut chars: Vec<u32> = s.chars().map(|c| c as u32).collect();
                chars.resize(width, 0);
                chars.iter().for_each(|c| b.extend(c.to_le_bytes()));
            }
            (format!("<U{width}"), b)
        }
        _ => (descr(t.dtype()).unwrap_or("<f4").to_string(), t.to_le_bytes().unwrap_or_default()),
    };
    edgec_kernels::npy::encode(&descr, &t.shape, &body)
}

/// Parse an `.npy` file.
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, String> {
    let f = edgec_kernels::npy::decode(bytes)?;
    let n = f.len();
    let data = decode_body(f.descr, f.body, n)?;
    if data.len() != n {
        return Err(format!(".npy body holds {} elements, shape {:?} needs {n}", data.len(), f.shape));
    }
    Ok(Tensor { shape: f.shape, data })
}

fn decode_body(descr: &str, body: &[u8], n: usize) -> Result<Data, String> {
    if let Some(w) = descr.strip_prefix("<U") {
        let width: usize = w.parse().map_err(|_| format!("bad descr {descr}"))?;
        let need = n.checked_mul(width).and_then(|x| x.checked_mul(4)).ok_or("string array too large")?;
        if body.len() < need {
            return Err(format!(".npy body is truncated ({} bytes, need {need})", body.len()));
        }
        let strings = (0..n)
            .map(|i| {
                let chunk = &body[i * width * 4..(i + 1) * width * 4];
                chunk
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .take_while(|&c| c != 0)
                    .filter_map(char::from_u32)
                    .collect()
            })
            .collect();
        return Ok(Data::String(strings));
    }
    let dt = match descr {
        "<f4" => DType::F32,
        "<f8" => DType::F64,
        "<f2" => DType::F16,
        "|i1" | "<i1" => DType::I8,
        "|u1" | "<u1" => DType::U8,
        "<i2" => DType::I16,
        "<u2" => DType::U16,
        "<i4" => DType::I32,
        "<u4" => DType::U32,
        "<i8" => DType::I64,
        "<u8" => DType::U64,
        "|b1" => DType::Bool,
        other => return Err(format!("unsupported .npy element type '{other}' (big-endian or non-numeric)")),
    };
    let need = n.checked_mul(dt.size_bytes().unwrap_or(1)).ok_or("array too large")?;
    if body.len() < need {
        return Err(format!(".npy body is truncated ({} bytes, need {need})", body.len()));
    }
    from_le_bytes(dt, &body[..need])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_supported_dtype_and_rank() {
        let cases = vec![
            Tensor::new(vec![2, 3], Data::F32(vec![1.0, -2.5, 0.0, 3.25, f32::INFINITY, -0.0])),
            Tensor::new(vec![], Data::I64(vec![-7])),
            Tensor::new(vec![4], Data::Bool(vec![true, false, false, true])),
            Tensor::new(vec![1, 2, 1], Data::U8(vec![0, 255])),
            Tensor::new(vec![0, 3], Data::F64(vec![])),
            Tensor::new(vec![2], Data::String(vec!["héllo".into(), "".into()])),
        ];
        for t in cases {
            let bytes = write_npy(&t);
            assert_eq!(read_npy(&bytes).unwrap(), t);
        }
    }

    #[test]
    fn header_is_64_byte_aligned() {
        let b = write_npy(&Tensor::new(vec![3], Data::F32(vec![1.0, 2.0, 3.0])));
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert_eq!(b[10 + hlen - 1], b'\n');
    }

    #[test]
    fn malformed_files_are_errors() {
        let good = write_npy(&Tensor::new(vec![4], Data::F32(vec![1.0; 4])));
        for cut in 0..good.len() {
            assert!(read_npy(&good[..cut]).is_err(), "truncated at {cut} accepted");
        }
        assert!(read_npy(b"not numpy at all").is_err());
        let at = good.windows(5).position(|w| w == b"False").expect("header has fortran_order");
        let mut fortran = good.clone();
        fortran[at..at + 5].copy_from_slice(b"True ");
        assert!(read_npy(&fortran).unwrap_err().contains("Fortran"));
    }
}
