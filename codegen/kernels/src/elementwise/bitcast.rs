//! `BitCast`: each element's little-endian bytes read as another element
//! type of the same width (so the shape is unchanged). `bool` is one byte,
//! `0` or `1`; reading a byte as `bool` gives `true` for any nonzero byte,
//! like edgec's interpreter.

use crate::lowp::{BF16, F16};

/// An element type with a fixed little-endian byte form of at most 8 bytes.
pub trait RawBytes: Copy {
    /// Bytes per element.
    const WIDTH: usize;
    /// The element's bytes in `out[..WIDTH]`.
    fn put(self, out: &mut [u8; 8]);
    /// The element whose bytes are `b[..WIDTH]`.
    fn take(b: &[u8; 8]) -> Self;
}

macro_rules! impl_raw {
    ($($t:ty),*) => {$(
        impl RawBytes for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut [u8; 8]) {
                out[..Self::WIDTH].copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn take(b: &[u8; 8]) -> $t {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::WIDTH]);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
impl_raw!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, F16, BF16);

impl RawBytes for bool {
    const WIDTH: usize = 1;
    #[inline]
    fn put(self, out: &mut [u8; 8]) {
        out[0] = u8::from(self);
    }
    #[inline]
    fn take(b: &[u8; 8]) -> bool {
        b[0] != 0
    }
}

/// `y[i]` = the bytes of `x[i]` read as `T`. Panics if the widths differ
/// (the compiler only emits equal widths) or the lengths do.
pub fn bitcast<S: RawBytes, T: RawBytes>(x: &[S], y: &mut [T]) {
    assert!(S::WIDTH == T::WIDTH && x.len() == y.len(), "BitCast: element widths or lengths differ");
    let mut buf = [0u8; 8];
    for (o, &v) in y.iter_mut().zip(x) {
        v.put(&mut buf);
        *o = T::take(&buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reinterprets_bytes() {
        let mut y = [0i32; 2];
        bitcast(&[1.0f32, -0.0], &mut y);
        assert_eq!(y, [0x3f80_0000, i32::MIN]);
        let mut b = [0u8; 2];
        bitcast(&[true, false], &mut b);
        assert_eq!(b, [1, 0]);
        let mut h = [F16::from_bits(0); 1];
        bitcast(&[0x3c00u16], &mut h);
        assert_eq!(h[0].to_f32(), 1.0);
    }
}
