//! `.npy` (NumPy array file, format versions 1.0–3.0) reading and writing for
//! interpreter tensors. C-order arrays of bool, ints, f16/f32/f64 and unicode
//! strings (`<U`) are supported; anything else is a clear error.

use ir::interp::{from_le_bytes, Data, Tensor};
use ir::DType;

const MAGIC: &[u8] = b"\x93NUMPY";

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
    let shape = match t.shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", t.shape[0]),
        _ => format!("({})", t.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Pad so that magic + version + length + header is a multiple of 64, ending in '\n'.
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(header.len() + body.len() + 10);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Parse an `.npy` file.
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, String> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let end = start.checked_add(hlen).filter(|&e| e <= bytes.len()).ok_or(".npy header is truncated")?;
    let header = std::str::from_utf8(&bytes[start..end]).map_err(|_| ".npy header is not text")?;
    let descr = dict_value(header, "descr").ok_or(".npy header lacks 'descr'")?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    if dict_value(header, "fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err("Fortran-order .npy arrays are not supported; save with np.ascontiguousarray".into());
    }
    let shape = parse_shape(dict_value(header, "shape").ok_or(".npy header lacks 'shape'")?)?;
    let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or(".npy shape overflows")?;
    let body = &bytes[end..];
    let data = decode_body(descr, body, n)?;
    if data.len() != n {
        return Err(format!(".npy body holds {} elements, shape {shape:?} needs {n}", data.len()));
    }
    Ok(Tensor { shape, data })
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

/// The raw text of `key`'s value in a Python dict literal header.
fn dict_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let i = header.find(&format!("'{key}'")).or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = header[i + key.len() + 2..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') { rest.find(')')? + 1 } else { rest.find(',').unwrap_or(rest.len()) };
    Some(rest[..end].trim())
}

fn parse_shape(s: &str) -> Result<Vec<usize>, String> {
    let inner = s.trim().strip_prefix('(').and_then(|x| x.strip_suffix(')')).ok_or_else(|| format!("bad shape {s}"))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| x.trim_end_matches('L').parse::<usize>().map_err(|_| format!("bad dimension '{x}' in shape {s}")))
        .collect()
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
