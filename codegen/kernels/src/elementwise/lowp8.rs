//! `Cast` to and from the sub-16-bit types, through one wide value.
//!
//! Every element goes source → [`Wide`] (floats exactly as `f64`, integers
//! as `i128`, bools) → target, with the interpreter's rules: float → integer
//! truncates (NaN gives 0) and saturates, except that the 4- and 2-bit
//! integers wrap; integer → integer wraps; integer → float rounds once
//! (through an odd-rounded `f64` for the narrow floats); float8 / float4
//! targets honour `saturate` and E8M0 its [`RoundMode`]; number → bool is
//! `!= 0` (NaN is true).

use super::cast::int_to_f64_odd;
use crate::lowp::{Real, BF16, F16};
use crate::lowp8::{RoundMode, F4E2M1, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0, I2, I4, U2, U4};

/// An element's value, exactly.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Wide {
    /// A float value.
    F(f64),
    /// An integer value.
    I(i128),
    /// A bool.
    B(bool),
}

/// Cast's attributes that matter for float8 / float4 targets.
#[derive(Copy, Clone, Debug)]
pub struct CastOpts {
    /// Clamp overflow (and ±inf) to ±max finite.
    pub saturate: bool,
    /// E8M0 rounding.
    pub mode: RoundMode,
}

/// An element type `Cast` converts through [`Wide`].
pub trait Scalar: Copy {
    /// The value.
    fn wide(self) -> Wide;
    /// `w` converted to this type.
    fn narrow(w: Wide, o: CastOpts) -> Self;
}

/// `y[i] = Cast(x[i])`.
pub fn cast<S: Scalar, T: Scalar>(x: &[S], y: &mut [T], saturate: bool, mode: RoundMode) {
    assert_eq!(x.len(), y.len(), "Cast: lengths differ");
    let o = CastOpts { saturate, mode };
    for (d, &s) in y.iter_mut().zip(x) {
        *d = T::narrow(s.wide(), o);
    }
}

/// `w` as a float value for a target that rounds once more itself.
fn float_of(w: Wide) -> f64 {
    match w {
        Wide::F(x) => x,
        Wide::I(i) => int_to_f64_odd(i),
        Wide::B(b) => b as u8 as f64,
    }
}

/// `w` as an integer, truncating floats (NaN gives 0), before range handling.
fn int_of(w: Wide) -> i128 {
    match w {
        Wide::F(x) if x.is_nan() => 0,
        Wide::F(x) => x.trunc() as i128,
        Wide::I(i) => i,
        Wide::B(b) => b as i128,
    }
}

macro_rules! std_int {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn wide(self) -> Wide {
                Wide::I(self as i128)
            }
            fn narrow(w: Wide, _: CastOpts) -> $t {
                match w {
                    // Saturating, NaN to 0 (Rust's float `as`).
                    Wide::F(x) => x as $t,
                    other => int_of(other) as $t,
                }
            }
        }
    )*};
}
std_int!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Scalar for f32 {
    fn wide(self) -> Wide {
        Wide::F(self as f64)
    }
    fn narrow(w: Wide, _: CastOpts) -> f32 {
        match w {
            Wide::F(x) => x as f32,
            Wide::I(i) => i as f32,
            Wide::B(b) => b as u8 as f32,
        }
    }
}

impl Scalar for f64 {
    fn wide(self) -> Wide {
        Wide::F(self)
    }
    fn narrow(w: Wide, _: CastOpts) -> f64 {
        match w {
            Wide::F(x) => x,
            Wide::I(i) => i as f64,
            Wide::B(b) => b as u8 as f64,
        }
    }
}

macro_rules! half {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn wide(self) -> Wide {
                Wide::F(Real::to_f64(self))
            }
            fn narrow(w: Wide, _: CastOpts) -> $t {
                <$t as Real>::from_f64(float_of(w))
            }
        }
    )*};
}
half!(F16, BF16);

impl Scalar for bool {
    fn wide(self) -> Wide {
        Wide::B(self)
    }
    fn narrow(w: Wide, _: CastOpts) -> bool {
        match w {
            Wide::F(x) => x != 0.0,
            Wide::I(i) => i != 0,
            Wide::B(b) => b,
        }
    }
}

macro_rules! small_float {
    ($($t:ident),*) => {$(
        impl Scalar for $t {
            fn wide(self) -> Wide {
                Wide::F(self.to_f64())
            }
            fn narrow(w: Wide, o: CastOpts) -> $t {
                $t::encode(float_of(w), o.saturate)
            }
        }
    )*};
}
small_float!(F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F4E2M1);

impl Scalar for F8E8M0 {
    fn wide(self) -> Wide {
        Wide::F(self.to_f64())
    }
    fn narrow(w: Wide, o: CastOpts) -> F8E8M0 {
        F8E8M0::encode(float_of(w), o.saturate, o.mode)
    }
}

macro_rules! small_int {
    ($($t:ident),*) => {$(
        impl Scalar for $t {
            fn wide(self) -> Wide {
                Wide::I(self.get() as i128)
            }
            fn narrow(w: Wide, _: CastOpts) -> $t {
                $t::wrap(int_of(w))
            }
        }
    )*};
}
small_int!(I4, U4, I2, U2);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_through_the_wide_value() {
        let mut f8 = [F8E4M3FN(0); 3];
        cast(&[1.0f32, 1000.0, -0.0], &mut f8, true, RoundMode::Up);
        assert_eq!(f8.map(|x| x.0), [0x38, 0x7e, 0x80]);
        cast(&[1000.0f32, 1.0, 1.0], &mut f8, false, RoundMode::Up);
        assert_eq!(f8[0].0, 0x7f);
        let mut i4 = [I4::default(); 3];
        cast(&[-9.7f32, 7.0, f32::NAN], &mut i4, true, RoundMode::Up);
        assert_eq!(i4.map(|x| x.get()), [7, 7, 0]);
        let mut back = [0i64; 3];
        cast(&i4, &mut back, true, RoundMode::Up);
        assert_eq!(back, [7, 7, 0]);
        let mut u8s = [0u8; 2];
        cast(&[F8E5M2(0x3c), F8E5M2(0x7c)], &mut u8s, true, RoundMode::Up);
        assert_eq!(u8s, [1, 255]);
    }
}
