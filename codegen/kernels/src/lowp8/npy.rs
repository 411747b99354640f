//! `.npy` forms of the sub-16-bit types, as edgec's own `.npy` writer makes
//! them (numpy has none of these types): float8 / float4 as `<f4` holding the
//! decoded values (exact; reading rounds to nearest-even without
//! saturation, so an unrepresentable value is not silently clamped), the
//! 4- and 2-bit integers as `|i1` / `|u1` (reading wraps).

use super::{F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, I2, I4, U2, U4};
use crate::npy::Elem;

macro_rules! as_f32 {
    ($($t:ident),*) => {$(
        impl Elem for $t {
            const DESCR: &'static [&'static str] = &["<f4"];
            const SIZE: usize = 4;
            fn from_le(b: &[u8]) -> Self {
                $t::from_f64(f32::from_le(b) as f64)
            }
            fn put_le(self, out: &mut Vec<u8>) {
                (self.to_f64() as f32).put_le(out)
            }
        }
    )*};
}
as_f32!(F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, F4E2M1);

macro_rules! as_byte {
    ($($t:ident $d:literal),*) => {$(
        impl Elem for $t {
            const DESCR: &'static [&'static str] = &[$d];
            const SIZE: usize = 1;
            fn from_le(b: &[u8]) -> Self {
                $t::from_le_bytes([b[0]])
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.push(self.get() as u8);
            }
        }
    )*};
}
as_byte!(I4 "|i1", I2 "|i1", U4 "|u1", U2 "|u1");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::{read, write};

    #[test]
    fn round_trips_as_edgec_writes_them() {
        let f = [F8E5M2(0x3c), F8E5M2(0xfc), F8E5M2(0x01)];
        let back: Vec<u8> = read::<F8E5M2>(&write(&[3], &f)).unwrap().1.iter().map(|x| x.0).collect();
        assert_eq!(back, vec![0x3c, 0xfc, 0x01]);
        let i = [I4::wrap(-8), I4::wrap(7)];
        let b = write(&[2], &i);
        assert_eq!(read::<i8>(&b).unwrap().1, vec![-8, 7]);
        assert_eq!(read::<I4>(&b).unwrap().1, i.to_vec());
    }
}
