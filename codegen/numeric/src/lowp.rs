//! The sub-16-bit float formats of ONNX (float8 E4M3FN, E4M3FNUZ, E5M2,
//! E5M2FNUZ, E8M0 and float4 E2M1): exact decoding and encoding with one
//! round-to-nearest-even, for the interpreter, the text form and the kernels.
//!
//! Encoding follows ONNX `Cast` (and `ml_dtypes`): with `saturate`, ±inf and
//! values beyond the largest finite value become ±max finite (NaN stays NaN);
//! without it overflow gives ±inf for E5M2 and NaN for the formats without
//! infinity. FNUZ formats have no -0 (it and negative underflow encode as
//! +0). E2M1 has no inf or NaN: it always saturates and NaN encodes as `0x8`.
//! E8M0 is `2^(bits-127)` (`0xFF` is NaN); encoding first rounds to `f32`,
//! ignores the sign and rounds the exponent per [`RoundMode`].

/// How a small float format encodes its special values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Specials {
    /// inf = exponent all ones and mantissa 0; NaN = exponent all ones otherwise.
    Ieee,
    /// No inf; NaN = every magnitude bit set.
    Fn,
    /// No inf and no -0; NaN = the sign bit alone.
    Fnuz,
    /// Neither inf nor NaN.
    None,
}

/// A sign-exponent-mantissa format of at most 8 bits.
#[derive(Copy, Clone, Debug)]
pub struct Spec {
    /// Mantissa bits.
    man: u32,
    /// Total bits (sign included).
    width: u32,
    /// Exponent bias.
    bias: i32,
    /// Magnitude code (bits without sign) of the largest finite value.
    max: u8,
    /// Special values.
    specials: Specials,
}

impl Spec {
    #[inline]
    const fn sign(self) -> u8 {
        1 << (self.width - 1)
    }
    /// The NaN this format encodes NaN inputs as.
    #[inline]
    const fn nan(self) -> u8 {
        match self.specials {
            Specials::Ieee => ieee_nan(self),
            Specials::Fn => self.sign() - 1,
            Specials::Fnuz | Specials::None => self.sign(),
        }
    }

    /// The exact value of bit pattern `bits` (extra high bits ignored).
    #[inline]
    pub fn decode(self, bits: u8) -> f64 {
        let bits = (bits as u32 & ((1 << self.width) - 1)) as u8;
        let neg = bits & self.sign() != 0;
        let mag = bits & !self.sign();
        let exp_field = (mag >> self.man) as i32;
        let all_ones = (1i32 << (self.width - 1 - self.man)) - 1;
        let nan = match self.specials {
            Specials::Fn => mag == self.sign() - 1,
            Specials::Fnuz => bits == self.sign(),
            Specials::Ieee => exp_field == all_ones && mag & ((1 << self.man) - 1) != 0,
            Specials::None => false,
        };
        if nan {
            return f64::NAN;
        }
        let v = if self.specials == Specials::Ieee && exp_field == all_ones {
            f64::INFINITY
        } else {
            // code = ((E - emin) << man) + q with q the value in units of 2^(E - man).
            let frac = (mag & ((1 << self.man) - 1)) as f64;
            let (q, e) = if exp_field == 0 {
                (frac, 1 - self.bias)
            } else {
                (frac + (1u32 << self.man) as f64, exp_field - self.bias)
            };
            q * 2f64.powi(e - self.man as i32)
        };
        if neg {
            -v
        } else {
            v
        }
    }

    /// `x` rounded to nearest-even, with ONNX `saturate` semantics.
    #[inline]
    pub fn encode(self, x: f64, saturate: bool) -> u8 {
        if x.is_nan() {
            return self.nan();
        }
        let sign = if x.is_sign_negative() { self.sign() } else { 0 };
        let code = if x.is_infinite() { u32::MAX } else { self.magnitude(x.abs()) };
        let mag = if code <= self.max as u32 {
            code as u8
        } else if saturate || self.specials == Specials::None {
            self.max
        } else {
            return match self.specials {
                Specials::Ieee => sign | (self.max + 1),
                Specials::Fnuz => self.nan(),
                _ => sign | self.nan(),
            };
        };
        if mag == 0 && self.specials == Specials::Fnuz {
            return 0;
        }
        sign | mag
    }

    /// Magnitude code of finite `a >= 0`, rounded to nearest-even; above
    /// `max` on overflow.
    #[inline]
    fn magnitude(self, a: f64) -> u32 {
        let emin = 1 - self.bias;
        // The f64 exponent of `a` (f64 subnormals are far below emin).
        let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(emin);
        let q = (a * 2f64.powi(self.man as i32 - e)).round_ties_even() as u32;
        (((e - emin) as u32) << self.man) + q
    }
}

/// The quiet NaN of an IEEE-like format: exponent all ones, top mantissa bit.
const fn ieee_nan(s: Spec) -> u8 {
    let exp_ones = ((1u8 << (s.width - 1 - s.man)) - 1) << s.man;
    exp_ones | 1 << (s.man - 1)
}

/// float8 E4M3FN.
pub const E4M3FN: Spec = Spec { man: 3, width: 8, bias: 7, max: 0x7e, specials: Specials::Fn };
/// float8 E4M3FNUZ.
pub const E4M3FNUZ: Spec = Spec { man: 3, width: 8, bias: 8, max: 0x7f, specials: Specials::Fnuz };
/// float8 E5M2.
pub const E5M2: Spec = Spec { man: 2, width: 8, bias: 15, max: 0x7b, specials: Specials::Ieee };
/// float8 E5M2FNUZ.
pub const E5M2FNUZ: Spec = Spec { man: 2, width: 8, bias: 16, max: 0x7f, specials: Specials::Fnuz };
/// float4 E2M1.
pub const E2M1: Spec = Spec { man: 1, width: 4, bias: 1, max: 0x7, specials: Specials::None };

/// Rounding of float8 E8M0 encodings (Cast's `round_mode`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RoundMode {
    /// Up to the next power of two (the ONNX default).
    Up,
    /// Down (the f32 mantissa is dropped).
    Down,
    /// To nearest, as the ONNX reference does it.
    Nearest,
}

impl RoundMode {
    /// Parse the attribute spelling (`up`, `down`, `nearest`).
    pub fn parse(s: &str) -> Result<RoundMode, String> {
        match s {
            "up" => Ok(RoundMode::Up),
            "down" => Ok(RoundMode::Down),
            "nearest" => Ok(RoundMode::Nearest),
            _ => Err(format!("unknown round_mode {s:?} (expected up, down or nearest)")),
        }
    }
}

/// `x` as float8 E8M0 bits: `x` is rounded to `f32` first, its sign is
/// ignored, NaN and ±inf give `0xFF`; rounding up past the largest exponent
/// gives `0xFF` unless `saturate`.
#[inline]
pub fn encode_e8m0(x: f64, saturate: bool, mode: RoundMode) -> u8 {
    let b = (x as f32).to_bits();
    let exp = (b >> 23) & 0xff;
    if exp == 0xff {
        return 0xff;
    }
    let man = b & 0x7f_ffff;
    let round_up = match mode {
        RoundMode::Down => false,
        RoundMode::Up => man != 0,
        // Guard bit set, and round, sticky or a nonzero exponent.
        RoundMode::Nearest => man & 0x40_0000 != 0 && (man & 0x3f_ffff != 0 || exp > 0),
    };
    let round_up = round_up && !(saturate && exp == 0xfe);
    (exp + round_up as u32) as u8
}

/// The value of float8 E8M0 bits.
#[inline]
pub fn decode_e8m0(bits: u8) -> f64 {
    if bits == 0xff {
        f64::NAN
    } else {
        2f64.powi(bits as i32 - 127)
    }
}
