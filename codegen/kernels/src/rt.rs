//! Runtime support of generated models: errors, tensor views, the weights
//! file, and the pad/slice steps of bucket dispatch.
//! Shared infrastructure, not about one op family: also the run-time
//! checks kernels of several families share ([`check_count`]: select,
//! generate and signal).

use crate::lowp::{BF16, F16};
use crate::lowp8::{F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, I2, I4, U2, U4};

pub use crate::error::Error;

/// A borrowed tensor: row-major data and its shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct View<'a, T> {
    /// The dims.
    pub shape: &'a [usize],
    /// `shape.iter().product()` elements.
    pub data: &'a [T],
}

/// `Err` unless input `name` has `len` elements.
pub fn check_len(name: &str, got: usize, want: usize) -> Result<(), Error> {
    if got == want {
        Ok(())
    } else {
        Err(Error(format!("input `{name}` has {got} elements, the model takes {want}")))
    }
}

/// `Err` naming `op` unless the computed size `got` is the declared `want`.
pub fn check_count(op: &str, what: &str, got: usize, want: usize) -> Result<(), Error> {
    if got == want {
        Ok(())
    } else {
        Err(Error(format!("{op}: the data gives {got} {what}, the model declares {want}")))
    }
}

/// `Err` unless the view's shape matches `want` (`None` = any size) and its
/// data holds the shape's element count.
pub fn check_shape<T>(name: &str, v: &View<'_, T>, want: &[Option<usize>]) -> Result<(), Error> {
    let ok = v.shape.len() == want.len() && v.shape.iter().zip(want).all(|(&d, w)| w.is_none_or(|w| w == d));
    let fmt = |s: &[Option<usize>]| {
        s.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect::<Vec<_>>().join(", ")
    };
    if !ok {
        return Err(Error(format!("input `{name}` has shape {:?}, the model takes [{}]", v.shape, fmt(want))));
    }
    check_len(name, v.data.len(), v.shape.iter().product())
}

/// Grow `v` to at least `n` elements (a model with symbolic dims sizes its
/// arenas and scratch for the largest inputs seen so far; a run at sizes
/// seen before allocates nothing).
pub fn grow<T: Clone + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// `v` resized to exactly `n` elements (new ones default), as a slice: an
/// own buffer of a value whose size is known only when its op runs. The
/// capacity stays, so a run at sizes seen before allocates nothing.
pub fn fit<T: Clone + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    v.resize(n, T::default());
    v.as_mut_slice()
}

/// Reverse the order of the `chunk`-element blocks of `v`, each block kept
/// as it is (a scan output stacked in reverse). `chunk` 0 leaves `v` alone.
pub fn reverse_chunks<T>(v: &mut [T], chunk: usize) {
    if chunk > 0 {
        v.reverse();
        v.chunks_mut(chunk).for_each(<[T]>::reverse);
    }
}

/// FNV-1a 64-bit hash (the numeric core's, shared with the compiler).
pub use edgec_numeric::hash::fnv1a64;

/// Magic of a generated model's weights file (format version 3: 23 sections,
/// the sub-16-bit types one byte per element).
pub const WEIGHTS_MAGIC: &[u8; 8] = b"EDGEWRS\x03";

/// The typed sections of a weights file, in file order.
#[derive(Debug, Default)]
pub struct Weights {
    /// `f32` section.
    pub f32: Vec<f32>,
    /// `i64` section.
    pub i64: Vec<i64>,
    /// `i32` section.
    pub i32: Vec<i32>,
    /// `bool` section (one byte each).
    pub bool: Vec<bool>,
    /// `u8` section.
    pub u8: Vec<u8>,
    /// `i8` section.
    pub i8: Vec<i8>,
    /// `f64` section.
    pub f64: Vec<f64>,
    /// `F16` section (bit patterns).
    pub f16: Vec<F16>,
    /// `BF16` section (bit patterns).
    pub bf16: Vec<BF16>,
    /// `i16` section.
    pub i16: Vec<i16>,
    /// `u16` section.
    pub u16: Vec<u16>,
    /// `u32` section.
    pub u32: Vec<u32>,
    /// `u64` section.
    pub u64: Vec<u64>,
    /// `F8E4M3FN` section (one byte each).
    pub f8e4m3fn: Vec<F8E4M3FN>,
    /// `F8E4M3FNUZ` section (one byte each).
    pub f8e4m3fnuz: Vec<F8E4M3FNUZ>,
    /// `F8E5M2` section (one byte each).
    pub f8e5m2: Vec<F8E5M2>,
    /// `F8E5M2FNUZ` section (one byte each).
    pub f8e5m2fnuz: Vec<F8E5M2FNUZ>,
    /// `F8E8M0` section (one byte each).
    pub f8e8m0: Vec<F8E8M0>,
    /// `F4E2M1` section (one byte each).
    pub f4e2m1: Vec<F4E2M1>,
    /// `I4` section (one byte each).
    pub i4: Vec<I4>,
    /// `U4` section (one byte each).
    pub u4: Vec<U4>,
    /// `I2` section (one byte each).
    pub i2: Vec<I2>,
    /// `U2` section (one byte each).
    pub u2: Vec<U2>,
}

/// Number of sections of a weights file.
pub const SECTIONS: usize = 23;

/// Element counts of the sections, in [`Weights`] field order.
pub type Counts = [usize; SECTIONS];

/// Bytes per element of each section.
pub const SECTION_SIZES: Counts = [4, 8, 4, 1, 1, 1, 8, 2, 2, 2, 2, 4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];

/// `bytes` split into `N`-byte little-endian elements decoded by `f`.
fn elems<T, const N: usize>(bytes: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
    bytes.chunks_exact(N).map(|c| f(c.try_into().unwrap_or([0; N]))).collect()
}

impl Weights {
    /// Decode a weights file: the magic, the section lengths (u64 LE),
    /// then the sections (little-endian). The length and the FNV-1a hash
    /// must match what the model was generated with.
    pub fn decode(bytes: &[u8], hash: u64, counts: Counts) -> Result<Weights, Error> {
        let head = 8 + 8 * SECTIONS;
        let want: usize = head + counts.iter().zip(SECTION_SIZES).map(|(c, s)| c * s).sum::<usize>();
        if bytes.len() >= 8 && bytes[..7] == WEIGHTS_MAGIC[..7] && bytes[7] != WEIGHTS_MAGIC[7] {
            return Err(Error(format!(
                "weights: format version {}, this model reads version {} (regenerate the crate)",
                bytes[7], WEIGHTS_MAGIC[7]
            )));
        }
        if bytes.len() != want || &bytes[..8] != WEIGHTS_MAGIC {
            return Err(Error(format!(
                "weights: {} bytes, expected {want} starting with the edgec magic",
                bytes.len()
            )));
        }
        if fnv1a64(bytes) != hash {
            return Err(Error("weights: checksum mismatch (the file does not belong to this model)".into()));
        }
        for (i, &c) in counts.iter().enumerate() {
            let got = u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().unwrap_or_default());
            if got != c as u64 {
                return Err(Error(format!("weights: section {i} holds {got} elements, expected {c}")));
            }
        }
        let mut rest = &bytes[head..];
        let mut sec = (0..SECTIONS).map(|i| {
            let (a, b) = rest.split_at(counts[i] * SECTION_SIZES[i]);
            rest = b;
            a
        });
        let mut next = || sec.next().unwrap_or(&[]);
        Ok(Weights {
            f32: elems(next(), f32::from_le_bytes),
            i64: elems(next(), i64::from_le_bytes),
            i32: elems(next(), i32::from_le_bytes),
            bool: next().iter().map(|&b| b != 0).collect(),
            u8: next().to_vec(),
            i8: elems(next(), i8::from_le_bytes),
            f64: elems(next(), f64::from_le_bytes),
            f16: elems(next(), F16::from_le_bytes),
            bf16: elems(next(), BF16::from_le_bytes),
            i16: elems(next(), i16::from_le_bytes),
            u16: elems(next(), u16::from_le_bytes),
            u32: elems(next(), u32::from_le_bytes),
            u64: elems(next(), u64::from_le_bytes),
            f8e4m3fn: elems(next(), F8E4M3FN::from_le_bytes),
            f8e4m3fnuz: elems(next(), F8E4M3FNUZ::from_le_bytes),
            f8e5m2: elems(next(), F8E5M2::from_le_bytes),
            f8e5m2fnuz: elems(next(), F8E5M2FNUZ::from_le_bytes),
            f8e8m0: elems(next(), F8E8M0::from_le_bytes),
            f4e2m1: elems(next(), F4E2M1::from_le_bytes),
            i4: elems(next(), I4::from_le_bytes),
            u4: elems(next(), U4::from_le_bytes),
            i2: elems(next(), I2::from_le_bytes),
            u2: elems(next(), U2::from_le_bytes),
        })
    }
}

/// The runtime size of a bucketed dim: every `(shape, axis)` carrying it must agree.
pub fn dim_size(dim: &str, carriers: &[(&[usize], usize)]) -> Result<usize, Error> {
    let mut size = None;
    for &(shape, axis) in carriers {
        let n = *shape.get(axis).ok_or_else(|| Error(format!("dim `{dim}`: input has no axis {axis}")))?;
        match size {
            Some(m) if m != n => return Err(Error(format!("dim `{dim}` is {m} on one input but {n} on another"))),
            _ => size = Some(n),
        }
    }
    size.ok_or_else(|| Error(format!("dim `{dim}` is on no input")))
}

/// Index of the smallest bucket `>= n`, or an error naming the dim and the buckets.
pub fn select_bucket(dim: &str, n: usize, buckets: &[usize]) -> Result<usize, Error> {
    buckets.iter().position(|&b| b >= n).ok_or_else(|| {
        let list: Vec<String> = buckets.iter().map(|b| b.to_string()).collect();
        Error(format!(
            "dim `{dim}` is {n}, larger than the largest bucket {} (buckets: {})",
            buckets.last().copied().unwrap_or(0),
            list.join(", ")
        ))
    })
}

/// Copy `x` (shape `from`) into the leading corner of `y` (shape `to`, each
/// dim at least `from`'s) and fill the rest with `fill`.
pub fn pad_into<T: Copy>(from: &[usize], x: &[T], to: &[usize], y: &mut [T], fill: T) {
    assert_eq!(x.len(), from.iter().product::<usize>());
    assert_eq!(y.len(), to.iter().product::<usize>());
    y.fill(fill);
    for_corner_rows(from, to, |small, large, n| y[large..large + n].copy_from_slice(&x[small..small + n]));
}

/// Copy the leading corner of shape `to` out of `x` (shape `from`) into `y`.
pub fn slice_into<T: Copy>(from: &[usize], x: &[T], to: &[usize], y: &mut [T]) {
    assert_eq!(x.len(), from.iter().product::<usize>());
    assert_eq!(y.len(), to.iter().product::<usize>());
    for_corner_rows(to, from, |small, large, n| y[small..small + n].copy_from_slice(&x[large..large + n]));
}

/// Highest rank a bucketed input or output may have.
pub const MAX_PAD_RANK: usize = 16;

/// Call `row(small_offset, large_offset, len)` for every innermost row of a
/// tensor of shape `small` placed in the leading corner of one of shape
/// `large` (same rank, every dim at least as large).
fn for_corner_rows(small: &[usize], large: &[usize], mut row: impl FnMut(usize, usize, usize)) {
    assert_eq!(small.len(), large.len(), "pad/slice between ranks {} and {}", small.len(), large.len());
    assert!(small.iter().zip(large).all(|(s, l)| s <= l), "shape {small:?} does not fit in {large:?}");
    let Some((&n, outer)) = small.split_last() else {
        row(0, 0, 1);
        return;
    };
    if n == 0 || outer.contains(&0) {
        return;
    }
    // Fixed arrays: a bucketed run allocates nothing.
    let rank = small.len();
    assert!(rank <= MAX_PAD_RANK, "pad/slice of rank {rank} (at most {MAX_PAD_RANK})");
    let mut stride = [1usize; MAX_PAD_RANK];
    for a in (0..rank - 1).rev() {
        stride[a] = stride[a + 1] * large[a + 1];
    }
    let mut idx = [0usize; MAX_PAD_RANK];
    let (stride, idx) = (&stride[..rank], &mut idx[..rank - 1]);
    let mut s_off = 0;
    loop {
        let l_off: usize = idx.iter().zip(stride).map(|(i, s)| i * s).sum();
        row(s_off, l_off, n);
        s_off += n;
        let mut a = rank - 1;
        loop {
            if a == 0 {
                return;
            }
            a -= 1;
            idx[a] += 1;
            if idx[a] < outer[a] {
                break;
            }
            idx[a] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_then_slice_round_trips() {
        let x: Vec<i64> = (0..6).collect();
        let mut y = vec![0i64; 12];
        pad_into(&[2, 3], &x, &[3, 4], &mut y, -1);
        assert_eq!(y, [0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1, -1]);
        let mut back = vec![0i64; 6];
        slice_into(&[3, 4], &y, &[2, 3], &mut back);
        assert_eq!(back, x);
    }

    #[test]
    fn buckets_and_dims() {
        assert_eq!(select_bucket("s", 7, &[8, 16]), Ok(0));
        assert_eq!(select_bucket("s", 16, &[8, 16]), Ok(1));
        let e = select_bucket("seq", 17, &[8, 16]).unwrap_err();
        assert_eq!(e.0, "dim `seq` is 17, larger than the largest bucket 16 (buckets: 8, 16)");
        assert_eq!(dim_size("s", &[(&[1, 5], 1), (&[5], 0)]), Ok(5));
        assert!(dim_size("s", &[(&[1, 5], 1), (&[4], 0)]).is_err());
    }

    #[test]
    fn weights_are_checked() {
        let counts = [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        let mut b = WEIGHTS_MAGIC.to_vec();
        for c in counts {
            b.extend((c as u64).to_le_bytes());
        }
        b.extend(2.5f32.to_le_bytes());
        b.push(1);
        b.extend(0x3c00u16.to_le_bytes());
        b.extend(u64::MAX.to_le_bytes());
        b.extend([0x38, 0xf9]);
        let w = Weights::decode(&b, fnv1a64(&b), counts).unwrap();
        assert_eq!((w.f8e4m3fn[0].to_f64(), w.i4[0].get()), (1.0, -7));
        assert_eq!((w.f32, w.bool), (vec![2.5], vec![true]));
        assert_eq!((w.f16[0].to_f32(), w.u64), (1.0, vec![u64::MAX]));
        assert!(Weights::decode(&b, 0, counts).unwrap_err().0.contains("checksum"));
        assert!(Weights::decode(&b[..20], fnv1a64(&b[..20]), counts).is_err());
        b[7] = 2;
        assert!(Weights::decode(&b, fnv1a64(&b), counts).unwrap_err().0.contains("format version 2"));
    }
}
