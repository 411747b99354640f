//! The weights file of a generated model (format version 4): the magic, 23
//! little-endian u64 section lengths (elements of each element type, in
//! [`Weights`] field order), then the sections, each padded to a multiple
//! of 64 bytes so that every section starts 64-byte aligned in the file.
//!
//! Invariant: embedded weights ([`Weights::embedded`], from a 64-byte
//! [`Aligned`] static) are used in place wherever the element type's bytes
//! are its in-memory form (the primitive numbers on a little-endian CPU):
//! no decoded heap copy, no page touched at construction. Weights from
//! elsewhere ([`Weights::decode`]) are checked against the hash the model
//! was generated with and decoded.
//!
//! Its one `unsafe` block views aligned little-endian bytes as a slice of
//! primitive numbers (the crate's other `unsafe` is listed in `lib.rs`).

use crate::error::Error;
use crate::lowp::{BF16, F16};
use crate::lowp8::{F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, I2, I4, U2, U4};
use std::borrow::Cow;

/// Magic of a generated model's weights file (format version 4: 23 sections,
/// each padded to 64 bytes; the sub-16-bit types one byte per element).
pub const WEIGHTS_MAGIC: &[u8; 8] = b"EDGEWRS\x04";

/// Number of sections of a weights file.
pub const SECTIONS: usize = 23;

/// Element counts of the sections, in [`Weights`] field order.
pub type Counts = [usize; SECTIONS];

/// Bytes per element of each section.
pub const SECTION_SIZES: Counts = [4, 8, 4, 1, 1, 1, 8, 2, 2, 2, 2, 4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];

/// Sections start at multiples of this many bytes.
pub const SECTION_ALIGN: usize = 64;

/// Bytes of the header: the magic and the section lengths.
pub const HEADER_BYTES: usize = 8 + 8 * SECTIONS;

/// Bytes section `i` takes in the file for `count` elements (padding included).
pub fn padded_len(i: usize, count: usize) -> usize {
    (count * SECTION_SIZES[i]).next_multiple_of(SECTION_ALIGN)
}

/// One section's elements: borrowed from the embedded file or decoded.
pub type Section<T> = Cow<'static, [T]>;

/// Elements `at..at + len` of `s`: borrowed if `s` is, else copied.
pub fn part<T: Clone>(s: &Section<T>, at: usize, len: usize) -> Section<T> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[at..at + len]),
        Cow::Owned(v) => Cow::Owned(v[at..at + len].to_vec()),
    }
}

/// Bytes aligned to 64 (`&Aligned { align: [], bytes: *include_bytes!(..) }`
/// makes an embedded file's sections usable in place).
#[repr(C)]
pub struct Aligned<B: ?Sized> {
    /// Zero-sized: gives the struct its alignment.
    pub align: [Align64; 0],
    /// The bytes.
    pub bytes: B,
}

/// A 64-byte aligned unit (see [`Aligned`]).
#[derive(Copy, Clone, Debug)]
#[repr(C, align(64))]
pub struct Align64(pub [u8; 64]);

/// An element type of a section.
trait Elem: Copy + 'static {
    /// True if the little-endian bytes are the in-memory value and every
    /// bit pattern is a valid value (the primitive numbers).
    const PLAIN: bool;
    fn read(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($plain:expr; $($t:ty),*) => {$(
        impl Elem for $t {
            const PLAIN: bool = $plain;
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap_or_default())
            }
        }
    )*};
}
elem!(true; f32, i64, i32, u8, i8, f64, i16, u16, u32, u64);
elem!(false; F16, BF16, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, F4E2M1, I4, U4, I2, U2);

impl Elem for bool {
    const PLAIN: bool = false;
    fn read(b: &[u8]) -> Self {
        b[0] != 0
    }
}

fn owned<T: Elem>(b: &[u8]) -> Section<T> {
    Cow::Owned(b.chunks_exact(std::mem::size_of::<T>()).map(T::read).collect())
}

#[allow(unsafe_code)]
fn borrowed<T: Elem>(b: &'static [u8]) -> Section<T> {
    let size = std::mem::size_of::<T>();
    if T::PLAIN && cfg!(target_endian = "little") && b.as_ptr().align_offset(std::mem::align_of::<T>()) == 0 {
        // SAFETY: `T` is a primitive number (PLAIN): every bit pattern is a
        // value and, on this little-endian target, its little-endian bytes are
        // its in-memory form; `b` is aligned for `T`, lives for 'static and
        // holds `b.len() / size` whole elements.
        Cow::Borrowed(unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<T>(), b.len() / size) })
    } else {
        owned(b)
    }
}

macro_rules! weights {
    ($($(#[$doc:meta])* $field:ident: $t:ty,)*) => {
        /// The typed sections of a weights file, in file order.
        #[derive(Debug, Default)]
        pub struct Weights {
            $($(#[$doc])* pub $field: Section<$t>,)*
        }

        impl Weights {
            fn borrowed(secs: [&'static [u8]; SECTIONS]) -> Weights {
                let mut it = secs.into_iter();
                Weights { $($field: borrowed::<$t>(it.next().unwrap_or(&[])),)* }
            }
            fn owned(secs: [&[u8]; SECTIONS]) -> Weights {
                let mut it = secs.into_iter();
                Weights { $($field: owned::<$t>(it.next().unwrap_or(&[])),)* }
            }
        }
    };
}

weights! {
    /// `f32` section.
    f32: f32,
    /// `i64` section.
    i64: i64,
    /// `i32` section.
    i32: i32,
    /// `bool` section (one byte each).
    bool: bool,
    /// `u8` section.
    u8: u8,
    /// `i8` section.
    i8: i8,
    /// `f64` section.
    f64: f64,
    /// `F16` section (bit patterns).
    f16: F16,
    /// `BF16` section (bit patterns).
    bf16: BF16,
    /// `i16` section.
    i16: i16,
    /// `u16` section.
    u16: u16,
    /// `u32` section.
    u32: u32,
    /// `u64` section.
    u64: u64,
    /// `F8E4M3FN` section (one byte each).
    f8e4m3fn: F8E4M3FN,
    /// `F8E4M3FNUZ` section (one byte each).
    f8e4m3fnuz: F8E4M3FNUZ,
    /// `F8E5M2` section (one byte each).
    f8e5m2: F8E5M2,
    /// `F8E5M2FNUZ` section (one byte each).
    f8e5m2fnuz: F8E5M2FNUZ,
    /// `F8E8M0` section (one byte each).
    f8e8m0: F8E8M0,
    /// `F4E2M1` section (one byte each).
    f4e2m1: F4E2M1,
    /// `I4` section (one byte each).
    i4: I4,
    /// `U4` section (one byte each).
    u4: U4,
    /// `I2` section (one byte each).
    i2: I2,
    /// `U2` section (one byte each).
    u2: U2,
}

/// Check the file's framing (magic, version, length, section lengths);
/// returns each section's byte range (padding excluded).
fn frame(bytes: &[u8], counts: Counts) -> Result<[(usize, usize); SECTIONS], Error> {
    let want = HEADER_BYTES + (0..SECTIONS).map(|i| padded_len(i, counts[i])).sum::<usize>();
    if bytes.len() >= 8 && bytes[..7] == WEIGHTS_MAGIC[..7] && bytes[7] != WEIGHTS_MAGIC[7] {
        return Err(Error(format!(
            "weights: format version {}, this model reads version {} (regenerate the crate)",
            bytes[7], WEIGHTS_MAGIC[7]
        )));
    }
    if bytes.len() != want || &bytes[..8] != WEIGHTS_MAGIC {
        return Err(Error(format!("weights: {} bytes, expected {want} starting with the edgec magic", bytes.len())));
    }
    let mut ranges = [(0, 0); SECTIONS];
    let mut at = HEADER_BYTES;
    for (i, &c) in counts.iter().enumerate() {
        let got = u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().unwrap_or_default());
        if got != c as u64 {
            return Err(Error(format!("weights: section {i} holds {got} elements, expected {c}")));
        }
        ranges[i] = (at, at + c * SECTION_SIZES[i]);
        at += padded_len(i, c);
    }
    Ok(ranges)
}

impl Weights {
    /// The weights embedded in the model's binary, used in place where the
    /// element type allows (see the module docs). Not hashed: the bytes are
    /// the ones the crate was generated with, and hashing would read every
    /// page at construction.
    pub fn embedded(bytes: &'static Aligned<[u8]>, counts: Counts) -> Result<Weights, Error> {
        let bytes = &bytes.bytes;
        let ranges = frame(bytes, counts)?;
        Ok(Weights::borrowed(ranges.map(|(a, b)| &bytes[a..b])))
    }

    /// Decode a weights file read at run time: its length, section lengths
    /// and FNV-1a hash must match what the model was generated with.
    pub fn decode(bytes: &[u8], hash: u64, counts: Counts) -> Result<Weights, Error> {
        let ranges = frame(bytes, counts)?;
        if edgec_numeric::hash::fnv1a64(bytes) != hash {
            return Err(Error("weights: checksum mismatch (the file does not belong to this model)".into()));
        }
        Ok(Weights::owned(ranges.map(|(a, b)| &bytes[a..b])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with one f32, one bool, one f16, one u64 and one each of two
    /// 8-bit float types.
    fn file() -> (Vec<u8>, Counts) {
        let counts = [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        let mut b = WEIGHTS_MAGIC.to_vec();
        for c in counts {
            b.extend((c as u64).to_le_bytes());
        }
        let mut section = |bytes: &[u8]| {
            b.extend_from_slice(bytes);
            b.resize(b.len().next_multiple_of(SECTION_ALIGN), 0);
        };
        section(&2.5f32.to_le_bytes());
        section(&[1]);
        section(&0x3c00u16.to_le_bytes());
        section(&u64::MAX.to_le_bytes());
        section(&[0x38]);
        section(&[0xf9]);
        (b, counts)
    }

    #[test]
    fn weights_are_checked() {
        let (mut b, counts) = file();
        let w = Weights::decode(&b, edgec_numeric::hash::fnv1a64(&b), counts).unwrap();
        assert_eq!((w.f8e4m3fn[0].to_f64(), w.i4[0].get()), (1.0, -7));
        assert_eq!((&w.f32[..], &w.bool[..]), (&[2.5][..], &[true][..]));
        assert_eq!((w.f16[0].to_f32(), &w.u64[..]), (1.0, &[u64::MAX][..]));
        assert!(Weights::decode(&b, 0, counts).unwrap_err().0.contains("checksum"));
        assert!(Weights::decode(&b[..20], edgec_numeric::hash::fnv1a64(&b[..20]), counts).is_err());
        let short = &b[..b.len() - 64];
        assert!(Weights::decode(short, edgec_numeric::hash::fnv1a64(short), counts)
            .unwrap_err()
            .0
            .contains("expected"));
        b[7] = 3;
        assert!(Weights::decode(&b, edgec_numeric::hash::fnv1a64(&b), counts)
            .unwrap_err()
            .0
            .contains("format version 3"));
    }

    #[test]
    fn embedded_sections_are_used_in_place() {
        let (b, counts) = file();
        let boxed: Box<Aligned<[u8; HEADER_BYTES + 6 * SECTION_ALIGN]>> =
            Box::new(Aligned { align: [], bytes: b.try_into().unwrap() });
        let stat: &'static Aligned<[u8]> = Box::leak(boxed);
        let w = Weights::embedded(stat, counts).unwrap();
        assert!(matches!(w.f32, Cow::Borrowed(_)) && matches!(w.u64, Cow::Borrowed(_)));
        assert_eq!(w.f32.as_ptr().cast::<u8>(), stat.bytes[HEADER_BYTES..].as_ptr());
        assert_eq!((&w.f32[..], &w.u64[..], &w.bool[..]), (&[2.5][..], &[u64::MAX][..], &[true][..]));
        assert_eq!((w.f16[0].to_f32(), w.f8e4m3fn[0].to_f64()), (1.0, 1.0));
        assert!(matches!(w.bool, Cow::Owned(_)));
    }
}
