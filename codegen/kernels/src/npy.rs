//! `.npy` (NumPy array file, versions 1.0–3.0) framing, and typed reading and
//! writing for the element types generated models use. edgec's own `.npy`
//! support (for the interpreter's tensors) is built on the same framing.
//! Shared infrastructure: the tensor file format of every generated model's
//! command line, not about one op family.

use crate::lowp::{BF16, F16};

const MAGIC: &[u8] = b"\x93NUMPY";

/// A parsed `.npy` file: element type descriptor, shape and raw body.
#[derive(Debug, PartialEq)]
pub struct Npy<'a> {
    /// The `descr` entry, e.g. `<f4`.
    pub descr: &'a str,
    /// The dims.
    pub shape: Vec<usize>,
    /// Elements, C order (not length-checked: that depends on `descr`).
    pub body: &'a [u8],
}

impl Npy<'_> {
    /// Number of elements the shape holds.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    /// True if the shape holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Parse the framing of an `.npy` file (magic, version, header dict).
pub fn decode(bytes: &[u8]) -> Result<Npy<'_>, String> {
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
    shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or(".npy shape overflows")?;
    Ok(Npy { descr, shape, body: &bytes[end..] })
}

/// A `.npy` file (version 1.0, header padded to 64 bytes) around `body`.
pub fn encode(descr: &str, shape: &[usize], body: &[u8]) -> Vec<u8> {
    let shape = match shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", shape[0]),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
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
    out.extend_from_slice(body);
    out
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

/// An element type a generated model reads and writes as `.npy`.
pub trait Elem: Copy {
    /// Descriptors accepted when reading; the first is written.
    const DESCR: &'static [&'static str];
    /// Bytes per element.
    const SIZE: usize;
    /// Decode one little-endian element.
    fn from_le(b: &[u8]) -> Self;
    /// Append one little-endian element.
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! elem {
    ($t:ty, $size:expr, [$($d:literal),+]) => {
        impl Elem for $t {
            const DESCR: &'static [&'static str] = &[$($d),+];
            const SIZE: usize = $size;
            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; $size];
                a.copy_from_slice(&b[..$size]);
                <$t>::from_le_bytes(a)
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}

elem!(f32, 4, ["<f4"]);
elem!(f64, 8, ["<f8"]);
elem!(i64, 8, ["<i8"]);
elem!(i32, 4, ["<i4"]);
elem!(u8, 1, ["|u1", "<u1"]);
elem!(i8, 1, ["|i1", "<i1"]);
elem!(i16, 2, ["<i2"]);
elem!(u16, 2, ["<u2"]);
elem!(u32, 4, ["<u4"]);
elem!(u64, 8, ["<u8"]);
elem!(F16, 2, ["<f2"]);

/// numpy has no bfloat16: like edgec's own `.npy` writer, bf16 tensors are
/// `<f4` files (exact); reading rounds each `f32` to nearest-even.
impl Elem for BF16 {
    const DESCR: &'static [&'static str] = &["<f4"];
    const SIZE: usize = 4;
    fn from_le(b: &[u8]) -> Self {
        BF16::from_f32(f32::from_le(b))
    }
    fn put_le(self, out: &mut Vec<u8>) {
        self.to_f32().put_le(out)
    }
}

impl Elem for bool {
    const DESCR: &'static [&'static str] = &["|b1"];
    const SIZE: usize = 1;
    fn from_le(b: &[u8]) -> Self {
        b[0] != 0
    }
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
}

/// Read an `.npy` file of element type `T`: its shape and elements.
pub fn read<T: Elem>(bytes: &[u8]) -> Result<(Vec<usize>, Vec<T>), String> {
    let f = decode(bytes)?;
    if !T::DESCR.contains(&f.descr) {
        return Err(format!(".npy element type '{}' where the model takes '{}'", f.descr, T::DESCR[0]));
    }
    let need = f.len() * T::SIZE;
    if f.body.len() < need {
        return Err(format!(".npy body is truncated ({} bytes, need {need})", f.body.len()));
    }
    Ok((f.shape.clone(), f.body[..need].chunks_exact(T::SIZE).map(T::from_le).collect()))
}

/// An `.npy` file holding `data` with `shape`.
pub fn write<T: Elem>(shape: &[usize], data: &[T]) -> Vec<u8> {
    let mut body = Vec::with_capacity(data.len() * T::SIZE);
    data.iter().for_each(|&x| x.put_le(&mut body));
    encode(T::DESCR[0], shape, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_round_trip() {
        let b = write(&[2, 2], &[1.5f32, -2.0, 0.0, 7.0]);
        assert_eq!(read::<f32>(&b).unwrap(), (vec![2, 2], vec![1.5, -2.0, 0.0, 7.0]));
        assert!(read::<i64>(&b).unwrap_err().contains("'<f4' where the model takes '<i8'"));
        let b = write(&[3], &[true, false, true]);
        assert_eq!(read::<bool>(&b).unwrap().1, vec![true, false, true]);
        for cut in 0..b.len() {
            assert!(read::<bool>(&b[..cut]).is_err(), "truncated at {cut} accepted");
        }
        let h = [F16::from_f32(1.5), F16::from_f32(-0.25)];
        let b = write(&[2], &h);
        assert_eq!(decode(&b).unwrap().descr, "<f2");
        let back: Vec<u16> = read::<F16>(&b).unwrap().1.iter().map(|x| x.to_bits()).collect();
        assert_eq!(back, h.map(|x| x.to_bits()).to_vec());
        let g = [BF16::from_f32(3.0)];
        let b = write(&[1], &g);
        assert_eq!(read::<f32>(&b).unwrap().1, vec![3.0]);
        assert_eq!(read::<BF16>(&b).unwrap().1[0].to_bits(), g[0].to_bits());
        assert_eq!(read::<u64>(&write(&[1], &[u64::MAX])).unwrap().1, vec![u64::MAX]);
    }
}
