//! TFLite's fixed-point requantization, as LiteRT's integer kernels compute
//! it: with the multiplier `(m, shift)` of
//! [`crate::quant::quantize_multiplier`], an accumulator `acc` is shifted
//! left by `max(shift, 0)`, multiplied by `m` keeping the rounded high word
//! (`acc·m / 2^31`), then divided by `2^max(-shift, 0)` rounding again —
//! halves away from zero in gemmlowp's `MultiplyByQuantizedMultiplier`
//! (TFLite's elementwise kernels), towards +∞ in ruy's (its convolutions and
//! fully connected layers; Arm's SQRDMULH and SRSHL).
//!
//! The first rounding is on a grid of `2^shift` output units, so a result
//! whose exact value lies within `2^(shift-1)` of a half can round the other
//! way than [`crate::quant::requantize`]'s single rounding: for a multiplier
//! near `2^-9` that is one element in a few hundred, and a chain of layers
//! turns those 1 LSB flips into larger differences. A target that computes
//! TFLite's arithmetic says so ([`Arithmetic::Tflite`]), and edgec's integer
//! ops then compute it bit for bit, so its quantized interpreter answers
//! what LiteRT does.

/// How a fixed-point requantization rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// One rounding of the exact product, halves towards +∞ (edgec's CPU
    /// kernels: [`crate::quant::requantize`]).
    #[default]
    Single,
    /// gemmlowp's `MultiplyByQuantizedMultiplier`: the high word rounded
    /// (halves towards +∞), then the shift rounded halves away from zero.
    /// TFLite's reference kernels and its elementwise ops compute this.
    Gemmlowp,
    /// ruy's kernels: the high word as Arm's SQRDMULH rounds it (halves
    /// towards +∞), then a rounding shift as SRSHL (halves towards +∞).
    /// LiteRT's CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED compute this.
    Ruy,
}

impl Rounding {
    /// The name used in attributes (`single`, `gemmlowp`, `ruy`).
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Single => "single",
            Rounding::Gemmlowp => "gemmlowp",
            Rounding::Ruy => "ruy",
        }
    }

    /// The rounding named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Rounding> {
        [Rounding::Single, Rounding::Gemmlowp, Rounding::Ruy].into_iter().find(|r| r.name() == name)
    }
}

/// Whose integer arithmetic a target computes: edgec's own (one rounding
/// everywhere) or LiteRT's kernels', whose rounding depends on the op.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Arithmetic {
    /// [`Rounding::Single`] everywhere.
    #[default]
    Single,
    /// LiteRT's: convolutions (CONV_2D, DEPTHWISE_CONV_2D) and fully
    /// connected layers round as ruy, elementwise ops as gemmlowp (measured
    /// layer by layer against LiteRT 2.3's builtin kernels: 0 elements
    /// differ).
    Tflite,
}

impl Arithmetic {
    /// The name used in target profiles (`single`, `tflite`).
    pub fn name(self) -> &'static str {
        match self {
            Arithmetic::Single => "single",
            Arithmetic::Tflite => "tflite",
        }
    }

    /// The arithmetic named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Arithmetic> {
        [Arithmetic::Single, Arithmetic::Tflite].into_iter().find(|r| r.name() == name)
    }

    /// The rounding of a convolution's or matrix product's requantization.
    pub fn conv(self) -> Rounding {
        match self {
            Arithmetic::Single => Rounding::Single,
            Arithmetic::Tflite => Rounding::Ruy,
        }
    }

    /// The rounding of an elementwise op's fixed-point steps.
    pub fn elementwise(self) -> Rounding {
        match self {
            Arithmetic::Single => Rounding::Single,
            Arithmetic::Tflite => Rounding::Gemmlowp,
        }
    }
}

/// `round(a·b / 2^31)` on the high word, halves towards +∞ (the nudge
/// `±2^30` and a division truncating towards zero), saturating
/// the one overflowing case (`a = b = i32::MIN`); gemmlowp's
/// `SaturatingRoundingDoublingHighMul`.
#[inline]
pub fn rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = a as i64 * b as i64;
    let nudge = if ab >= 0 { 1i64 << 30 } else { 1 - (1i64 << 30) };
    // Division truncating towards zero, as C++'s.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// `x / 2^e` rounded to nearest, halves away from zero (`0 ≤ e ≤ 31`);
/// gemmlowp's `RoundingDivideByPOT`.
#[inline]
pub fn rounding_divide_by_pot(x: i32, e: u32) -> i32 {
    if e == 0 {
        return x;
    }
    let mask = ((1i64 << e) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> e) + i32::from(remainder > threshold)
}

/// `acc · m · 2^(shift-31)` rounded twice, as gemmlowp's
/// `MultiplyByQuantizedMultiplier` (the left shift wraps like its int32
/// arithmetic; 8- and 16-bit accumulators never reach it).
#[inline]
pub fn scale_gemmlowp(acc: i32, m: i32, shift: i32) -> i32 {
    let left = shift.max(0) as u32;
    let right = (-shift).max(0) as u32;
    rounding_divide_by_pot(rounding_doubling_high_mul(acc.wrapping_shl(left), m), right)
}

/// `acc · m · 2^(shift-31)` rounded twice, as ruy's kernels: SQRDMULH's
/// high word `⌊(acc·m + 2^30) / 2^31⌋`, then a right shift adding half its
/// step first (both halves towards +∞).
#[inline]
pub fn scale_ruy(acc: i32, m: i32, shift: i32) -> i32 {
    let left = shift.max(0) as u32;
    let right = (-shift).max(0) as u32;
    let high = (acc.wrapping_shl(left) as i64 * m as i64 + (1i64 << 30)) >> 31;
    let half = if right > 0 { 1i64 << (right - 1) } else { 0 };
    ((high + half) >> right).clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// A requantized output rounded as `rounding` says: `scale + zp` clamped to
/// `[lo, hi]`.
#[inline]
pub fn requantize_with(rounding: Rounding, acc: i32, m: i32, shift: i32, zp: i32, lo: i32, hi: i32) -> i32 {
    let scaled = match rounding {
        Rounding::Single => return crate::quant::requantize(acc, m, shift, zp, lo, hi),
        Rounding::Gemmlowp => scale_gemmlowp(acc, m, shift),
        Rounding::Ruy => scale_ruy(acc, m, shift),
    };
    (scaled as i64 + zp as i64).clamp(lo as i64, hi as i64) as i32
}

/// TFLite's int8/uint8 LEAKY_RELU of one input value `q`: `q − zx` scaled
/// by the identity multiplier `sx/sy` (non-negative) or `alpha·sx/sy`
/// (negative), each rounded twice, `+ zy`, clamped to `[lo, hi]`. The
/// multipliers are computed in f64 from the f32 grids and `alpha`, as
/// TFLite does; `None` if one is out of range.
pub fn leaky_relu_gemmlowp(q: i32, zx: i32, sx: f32, alpha: f32, sy: f32, zy: i32, lo: i32, hi: i32) -> Option<i32> {
    use crate::quant::quantize_multiplier;
    let v = q - zx;
    let r = if v >= 0 { f64::from(sx) / f64::from(sy) } else { f64::from(sx) * f64::from(alpha) / f64::from(sy) };
    // A zero alpha: every negative input maps to zy.
    let (m, shift) = if r == 0.0 { (0, 0) } else { quantize_multiplier(r.abs())? };
    let m = if r < 0.0 { -m } else { m };
    Some(requantize_with(Rounding::Gemmlowp, v, m, shift, zy, lo, hi))
}

/// TFLite's int8/uint8 PRELU of one input value `q` with the quantized
/// slope `a` (grid `sa`, zero point `za`): `q − zx` scaled by `sx/sy`
/// (non-negative), or `(q − zx)·(a − za)` scaled by `sx·sa/sy` (negative),
/// rounded as gemmlowp, `+ zy`, clamped to `[lo, hi]`; `None` if a
/// multiplier is out of range.
#[allow(clippy::too_many_arguments)]
pub fn prelu_gemmlowp(
    q: i32,
    zx: i32,
    sx: f32,
    a: i32,
    za: i32,
    sa: f32,
    sy: f32,
    zy: i32,
    lo: i32,
    hi: i32,
) -> Option<i32> {
    use crate::quant::quantize_multiplier;
    let v = q - zx;
    let (acc, r) = if v >= 0 {
        (v, f64::from(sx) / f64::from(sy))
    } else {
        (v * (a - za), f64::from(sx) * f64::from(sa) / f64::from(sy))
    };
    let (m, shift) = quantize_multiplier(r)?;
    Some(requantize_with(Rounding::Gemmlowp, acc, m, shift, zy, lo, hi))
}

/// TFLite's int8/uint8 MUL multiplier: `sa·sb/sy` in f64 from the f32
/// grids, as `(m, shift)`; `None` if out of range.
pub fn mul_multiplier(sa: f32, sb: f32, sy: f32) -> Option<(i32, i32)> {
    crate::quant::quantize_multiplier(f64::from(sa) * f64::from(sb) / f64::from(sy))
}

/// TFLite's int8/uint8 MUL of one pair: `(a − za)·(b − zb)` scaled by the
/// multiplier of [`mul_multiplier`], rounded as gemmlowp, `+ zy`, clamped
/// to `[lo, hi]`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mul_gemmlowp(a: i32, za: i32, b: i32, zb: i32, (m, shift): (i32, i32), zy: i32, lo: i32, hi: i32) -> i32 {
    requantize_with(Rounding::Gemmlowp, (a - za) * (b - zb), m, shift, zy, lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::{quantize_multiplier, requantize};

    #[test]
    fn high_mul_rounds_halves_up() {
        // 3·2^30 / 2^31 = 1.5 → 2; −1.5 → −1; 0.5 → 1, −0.5 → 0; −0.75 → −1.
        assert_eq!(rounding_doubling_high_mul(3, 1 << 30), 2);
        assert_eq!(rounding_doubling_high_mul(-3, 1 << 30), -1);
        assert_eq!(rounding_doubling_high_mul(1, 1 << 30), 1);
        assert_eq!(rounding_doubling_high_mul(-1, 1 << 30), 0);
        assert_eq!(rounding_doubling_high_mul(-3, 1 << 29), -1);
        assert_eq!(rounding_doubling_high_mul(i32::MIN, i32::MIN), i32::MAX);
    }

    #[test]
    fn divide_by_pot_rounds_halves_away_from_zero() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(6, 2), 2); // 1.5
        assert_eq!(rounding_divide_by_pot(-6, 2), -2);
        assert_eq!(rounding_divide_by_pot(5, 2), 1); // 1.25
        assert_eq!(rounding_divide_by_pot(-7, 2), -2); // -1.75
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
    }

    /// The first rounding moves a value just below a half onto it: with a
    /// multiplier of about 2^-10 (the high word keeps nine fraction bits),
    /// some accumulator's exact value lies just under 9.5, which one
    /// rounding takes to 9 and two take to 10 (LiteRT's CONV_2D on mtcnn's
    /// first layer does exactly this).
    #[test]
    fn double_rounding_differs_below_a_half() {
        let r = 0.000_977_6;
        let (m, shift) = quantize_multiplier(r).unwrap();
        let acc = (9_600..9_800)
            .find(|&a| {
                requantize_with(Rounding::Gemmlowp, a, m, shift, 0, -128, 127) == 10
                    && requantize(a, m, shift, 0, -128, 127) == 9
            })
            .expect("an accumulator the roundings disagree on");
        let exact = acc as f64 * m as f64 * 2f64.powi(shift - 31);
        assert!(exact < 9.5 && exact > 9.5 - 2f64.powi(shift), "{exact}");
    }

    /// Both roundings agree whenever the exact value is not within the first
    /// rounding's step of a half, and never differ by more than 1.
    #[test]
    fn double_rounding_is_within_one_of_single() {
        for &r in &[0.000_31, 0.0021, 0.043, 0.37, 0.99, 1.7, 13.0] {
            let (m, shift) = quantize_multiplier(r).unwrap();
            let step = 2f64.powi(shift.min(0));
            for acc in (-40_000..40_000).step_by(7) {
                let s = requantize(acc, m, shift, 0, i32::MIN, i32::MAX);
                for d in [scale_gemmlowp(acc, m, shift), scale_ruy(acc, m, shift)] {
                    assert!((s - d).abs() <= 1, "r {r} acc {acc}: {s} vs {d}");
                    let frac = (acc as f64 * m as f64 * 2f64.powi(shift - 31)).abs().fract();
                    if (frac - 0.5).abs() > step {
                        assert_eq!(s, d, "r {r} acc {acc}");
                    }
                }
            }
        }
    }

    /// The two double roundings differ only at a half of the shift: gemmlowp
    /// takes −17.5 away from zero, ruy towards +∞; both take 9.5 to 10.
    #[test]
    fn gemmlowp_and_ruy_differ_at_negative_halves() {
        // m = 2^30 (0.5), shift −3: acc · 2^-4.
        let (m, shift) = (1 << 30, -3);
        assert_eq!(scale_gemmlowp(-280, m, shift), -18);
        assert_eq!(scale_ruy(-280, m, shift), -17);
        assert_eq!(scale_gemmlowp(152, m, shift), 10);
        assert_eq!(scale_ruy(152, m, shift), 10);
        for acc in (-5_000..5_000).step_by(3) {
            let (g, r) = (scale_gemmlowp(acc, 1_518_500_250, -5), scale_ruy(acc, 1_518_500_250, -5));
            assert!((g - r).abs() <= 1 && (g == r || g < 0), "{acc}: {g} vs {r}");
        }
    }

    #[test]
    fn prelu_multiplies_negative_inputs_by_the_slope() {
        // sx = sy = 0.02, slope grid 0.01: a = 50 is 0.5, a = -30 is -0.3.
        assert_eq!(prelu_gemmlowp(60, 10, 0.02, 50, 0, 0.01, 0.02, 3, -128, 127), Some(53));
        assert_eq!(prelu_gemmlowp(-40, 10, 0.02, 50, 0, 0.01, 0.02, 3, -128, 127), Some(-22));
        assert_eq!(prelu_gemmlowp(-40, 10, 0.02, -30, 0, 0.01, 0.02, 0, -128, 127), Some(15));
    }

    #[test]
    fn mul_scales_the_integer_product() {
        // 0.1 · 0.2 / 0.05 = 0.4: (30 − 10)·(−5 − 0)·0.4 = −40.
        let mm = mul_multiplier(0.1, 0.2, 0.05).unwrap();
        assert_eq!(mul_gemmlowp(30, 10, -5, 0, mm, 2, -128, 127), -38);
        assert_eq!(mul_gemmlowp(127, -128, 127, -128, mm, 0, -128, 127), 127);
    }

    #[test]
    fn leaky_relu_scales_each_side() {
        // sx = sy: the identity side is exact; alpha 0.1 on -50 gives -5.
        assert_eq!(leaky_relu_gemmlowp(60, 10, 0.02, 0.1, 0.02, 3, -128, 127), Some(53));
        assert_eq!(leaky_relu_gemmlowp(-40, 10, 0.02, 0.1, 0.02, 3, -128, 127), Some(-2));
        assert_eq!(leaky_relu_gemmlowp(-40, 10, 0.02, 0.0, 0.02, 3, -128, 127), Some(3));
        // A negative alpha flips the sign: -0.5 · -50 = 25.
        assert_eq!(leaky_relu_gemmlowp(-40, 10, 0.02, -0.5, 0.02, 0, -128, 127), Some(25));
    }
}
