//! Fixed-point requantization of integer accumulators, as integer NPUs and
//! TFLite compute it: a real multiplier `r = s_x · s_w / s_y` is stored as a
//! Q31 integer `m ∈ [2^30, 2^31)` and an exponent `shift` with
//! `r ≈ m · 2^(shift - 31)`, and an i32 accumulator becomes
//! `(acc · m + 2^(s-1)) >> s` with `s = 31 - shift` (one rounding, halves
//! towards +∞: TFLite's "single rounding" variant), then `+ zero_point`,
//! clamped to the activation's integer range.
//!
//! Activations other than relu/clip use [`requantize_act`] instead.
//!
//! Invariant: the interpreter's `quant.*` ops and the kernels call these
//! functions (or reproduce them exactly in SIMD), so the integer model runs
//! bit-for-bit the same everywhere.

use crate::act::Activation;

/// The largest right shift [`requantize`] applies (`shift` ≥ -31).
pub const MIN_SHIFT: i32 = -31;
/// The largest left exponent (`shift` ≤ 30, so `s = 31 - shift ≥ 1`).
pub const MAX_SHIFT: i32 = 30;

/// `(m, shift)` with `r ≈ m · 2^(shift-31)`, `m ∈ [2^30, 2^31)`, for a
/// positive finite `r`. Multipliers below `2^-32` (every accumulator maps to
/// 0) give `(0, 0)`; `None` if `r` is not positive and finite or ≥ `2^30`.
pub fn quantize_multiplier(r: f64) -> Option<(i32, i32)> {
    if !(r > 0.0 && r.is_finite()) {
        return None;
    }
    // r = q · 2^e with q ∈ [0.5, 1).
    let mut e = r.log2().floor() as i32 + 1;
    let mut q = r / 2f64.powi(e);
    while q >= 1.0 {
        q /= 2.0;
        e += 1;
    }
    while q < 0.5 {
        q *= 2.0;
        e -= 1;
    }
    let mut m = (q * 2f64.powi(31)).round() as i64;
    if m == 1 << 31 {
        m >>= 1;
        e += 1;
    }
    match e {
        e if e > MAX_SHIFT => None,
        e if e < MIN_SHIFT => Some((0, 0)),
        e => Some((m as i32, e)),
    }
}

/// `acc · m · 2^(shift-31)`, rounded once (halves towards +∞). Exact in i64:
/// `|acc · m| < 2^62`.
#[inline]
pub fn scale(acc: i32, m: i32, shift: i32) -> i32 {
    let s = (31 - shift) as u32;
    let p = acc as i64 * m as i64 + (1i64 << (s - 1));
    (p >> s).clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// A requantized output: `scale(acc, m, shift) + zp` clamped to `[lo, hi]`
/// (computed in i64 without the intermediate i32 clamp, which cannot change
/// a result inside `[lo, hi]`; the form vectorizes).
#[inline]
pub fn requantize(acc: i32, m: i32, shift: i32, zp: i32, lo: i32, hi: i32) -> i32 {
    let s = (31 - shift) as u32;
    let p = (acc as i64 * m as i64 + (1i64 << (s - 1))) >> s;
    (p + zp as i64).clamp(lo as i64, hi as i64) as i32
}

/// True if [`requantize_high`] computes [`requantize`] for `(m, shift, zp)`:
/// `m ≥ 0`, `shift ≤ −2` (a multiplier below 1/2, so `s = 31 − shift ≥ 33`)
/// and `|zp| < 2^30` (every 8- and 16-bit grid's).
#[inline]
pub fn high_word_exact(m: i32, shift: i32, zp: i32) -> bool {
    m >= 0 && (MIN_SHIFT..=-2).contains(&shift) && zp.unsigned_abs() < 1 << 30
}

/// [`requantize`] from the product's high word, in i32 lanes (the form
/// that vectorizes on CPUs without 64-bit lane shifts: AVX2, NEON): with
/// `acc · m = h · 2^32 + l` (`0 ≤ l < 2^32`) and `s ≥ 33`,
/// `⌊(acc · m + 2^(s−1)) / 2^s⌋ = ⌊(h + 2^(s−33)) / 2^(s−32)⌋`, since `l` and
/// the rounding term's part below `2^32` (none) only move the quotient by
/// less than one step of `2^(s−32)` from an integer multiple. No overflow:
/// `|h| ≤ 2^30` (`|acc|, m ≤ 2^31`), `2^(s−33) ≤ 2^29`, the quotient's
/// magnitude is below `2^30` and `zp`'s too. Callers check [`high_word_exact`].
#[inline(always)]
pub fn requantize_high(acc: i32, m: i32, shift: i32, zp: i32, lo: i32, hi: i32) -> i32 {
    let s = (31 - shift) as u32;
    let h = ((acc as i64 * m as i64) >> 32) as i32;
    (((h + (1 << (s - 33))) >> (s - 32)) + zp).max(lo).min(hi)
}

/// The float-activation epilogue (activations with no integer clamp form:
/// hard_swish, silu, ...): the accumulator at its real scale,
/// `v = f32(acc) · acc_scale` (one f32 product), the activation by the
/// kernels' all-f32 formula ([`Activation::apply`]: this op defines its own
/// rounding, and f32 vectorizes twice as wide as the interpreter's f64
/// form), then [`quantize_by_inverse`] with `1 / y_scale` (a product where
/// QuantizeLinear divides: the rounding may differ from the division's by
/// 1 LSB at the halves, within this approximate op's bound). NaN gives `lo`.
// Always inlined: kernels call it per element inside a loop compiled for
// their instruction set, with the activation known (see the crate docs); the
// reciprocal is loop-invariant and computed once there.
#[inline(always)]
pub fn requantize_act(acc: i32, acc_scale: f32, act: Activation, y_scale: f32, zp: i32, lo: i32, hi: i32) -> i32 {
    quantize_by_inverse(act.apply(acc as f32 * acc_scale), 1.0 / y_scale, zp, lo, hi)
}

/// `round_half_even(s · inv) + zy` saturated to `[lo, hi]`; NaN gives `lo`.
/// Needs `|lo − zy|, |hi − zy| < 2^22`. Clamping before rounding changes
/// nothing (the bounds are integers); the clamped value is rounded by adding
/// `1.5·2^23` (its sum's unit is 1, and f32 addition rounds halves to even),
/// so the whole step is six vector instructions.
#[inline(always)]
pub fn quantize_by_inverse(s: f32, inv: f32, zy: i32, lo: i32, hi: i32) -> i32 {
    let (l, h) = ((lo - zy) as f32, (hi - zy) as f32);
    let t = s * inv;
    let t = if t > l { t } else { l };
    let t = if t < h { t } else { h };
    ((t + 12_582_912.0).to_bits() as i32) - 0x4B40_0000 + zy
}

/// `quant.add`: QDQ's own steps on two quantized values, fused:
/// `a' = f32((a − za)·sa)`, `b' = f32((b − zb)·sb)` (each one f32 product,
/// DequantizeLinear), `s = a' + b'` (one f32 sum, Add), then QuantizeLinear
/// ([`quantize_f32`]). Bit-exact with the unfused ops, so the fold is exact.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn qadd(a: i32, za: i32, sa: f32, b: i32, zb: i32, sb: f32, sy: f32, zy: i32, lo: i32, hi: i32) -> i32 {
    quantize_f32((a - za) as f32 * sa + (b - zb) as f32 * sb, sy, zy, lo, hi)
}

/// `quant.sub`: as [`qadd`] with the difference `a' − b'` (one f32
/// subtraction, Sub). Bit-exact with the unfused ops.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn qsub(a: i32, za: i32, sa: f32, b: i32, zb: i32, sb: f32, sy: f32, zy: i32, lo: i32, hi: i32) -> i32 {
    quantize_f32((a - za) as f32 * sa - (b - zb) as f32 * sb, sy, zy, lo, hi)
}

/// `quant.mul`: as [`qadd`] with the product `a' · b'` (one f32 product,
/// Mul) in place of the sum. Bit-exact with the unfused ops.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn qmul(a: i32, za: i32, sa: f32, b: i32, zb: i32, sb: f32, sy: f32, zy: i32, lo: i32, hi: i32) -> i32 {
    quantize_f32(((a - za) as f32 * sa) * ((b - zb) as f32 * sb), sy, zy, lo, hi)
}

/// QuantizeLinear of one f32: `round_half_even(s / sy) + zy` saturated to
/// `[lo, hi]`; NaN gives `lo`.
#[inline(always)]
pub fn quantize_f32(s: f32, sy: f32, zy: i32, lo: i32, hi: i32) -> i32 {
    let q = (s / sy).round_ties_even() + zy as f32;
    // `max` maps NaN to `lo`; the clamped value is an integer of magnitude
    // < 2^22, read from the mantissa of `q + 1.5·2^23` (a cast that vectorizes).
    let c = q.max(lo as f32).min(hi as f32);
    ((c + 12_582_912.0).to_bits() as i32) - 0x4B40_0000
}

/// `quant.global_avg_pool`'s accumulator scale: the mean of `n` values on the
/// grid `x_scale` is `Σ(x − zx) · mean_scale(x_scale, n)`, the scale rounded
/// once to f32. The pooled value is then
/// `requantize_act(Σ(x − zx), mean_scale, Activation::None, y_scale, zy, lo, hi)`.
#[inline]
pub fn mean_scale(x_scale: f32, n: usize) -> f32 {
    (f64::from(x_scale) / n.max(1) as f64) as f32
}

/// The broadcast `quant.add` / `quant.mul` accept: B, right-aligned to A's
/// rank, equals A on one run of consecutive dims and is 1 on the dims before
/// and after it (same shape, a per-channel `[N, C, 1, 1]` against
/// `[N, C, H, W]`, a bias `[C]` against `[N, S, C]`, a scalar). Returns the
/// block: element `i` of A meets element `(i / block) % len(B)` of B (the
/// product of A's dims after the run); `None` for any other pair of shapes.
pub fn broadcast_block(a: &[usize], b: &[usize]) -> Option<usize> {
    let pad = a.len().checked_sub(b.len())?;
    let b_at = |i: usize| if i < pad { 1 } else { b[i - pad] };
    // The run is [j, k): B is all ones from k on and before j.
    let k = (0..a.len()).rev().take_while(|&i| b_at(i) == 1).last().unwrap_or(a.len());
    let j = (0..k).take_while(|&i| b_at(i) == 1).count();
    (j..k).all(|i| b_at(i) == a[i]).then(|| a[k..].iter().product())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_blocks() {
        assert_eq!(broadcast_block(&[1, 8, 4, 5], &[1, 8, 4, 5]), Some(1));
        assert_eq!(broadcast_block(&[2, 8, 4, 5], &[2, 8, 1, 1]), Some(20));
        assert_eq!(broadcast_block(&[1, 8, 4, 5], &[8, 1, 1]), Some(20));
        assert_eq!(broadcast_block(&[3, 4], &[]), Some(12));
        assert_eq!(broadcast_block(&[3, 4], &[1, 1]), Some(12));
        assert_eq!(broadcast_block(&[3, 1], &[3, 1]), Some(1));
        assert_eq!(broadcast_block(&[2, 8, 4, 5], &[1, 8, 1, 1]), Some(20));
        assert_eq!(broadcast_block(&[8, 4, 5], &[4, 5]), Some(1));
        assert_eq!(broadcast_block(&[8, 4, 5], &[4, 1]), Some(5));
        assert_eq!(broadcast_block(&[8, 5], &[8, 5, 1]), None);
        assert_eq!(broadcast_block(&[8, 4, 5], &[8, 1, 5]), None);
        assert_eq!(broadcast_block(&[8, 5], &[2, 5]), None);
    }

    #[test]
    fn multipliers_reproduce_the_real_value() {
        for r in [1e-9, 0.000123, 0.25, 0.5, 0.75, 0.999_999_9, 1.0, 3.5, 1000.0] {
            let (m, s) = quantize_multiplier(r).unwrap();
            assert!((1 << 30..=i32::MAX).contains(&m), "{r}: m {m}");
            let back = m as f64 * 2f64.powi(s - 31);
            assert!((back - r).abs() <= r * 2f64.powi(-30), "{r} -> {back}");
        }
        assert_eq!(quantize_multiplier(1e-12), Some((0, 0)));
        assert_eq!(quantize_multiplier(0.0), None);
        assert_eq!(quantize_multiplier(f64::NAN), None);
        assert_eq!(quantize_multiplier(2f64.powi(31)), None);
    }

    #[test]
    fn the_float_epilogue_rounds_clamps_and_maps_nan_to_lo() {
        let q = |acc, act| requantize_act(acc, 0.5, act, 0.25, 3, -128, 127);
        assert_eq!(q(5, Activation::None), 13); // 2.5 / 0.25 = 10, + 3
        assert_eq!(q(-5, Activation::Relu), 3);
        assert_eq!(q(1000, Activation::None), 127);
        assert_eq!(q(-1000, Activation::None), -128);
        assert_eq!(requantize_act(1, f32::NAN, Activation::None, 1.0, 0, -7, 7), -7);
        // Halves to even: 0.125 / 0.25 = 0.5 → 0; 0.375 / 0.25 = 1.5 → 2.
        assert_eq!(requantize_act(1, 0.125, Activation::None, 0.25, 0, -9, 9), 0);
        assert_eq!(requantize_act(3, 0.125, Activation::None, 0.25, 0, -9, 9), 2);
    }

    /// Against the plain formula (round half to even, add, clamp) on halves,
    /// values near the bounds, huge values and infinities, for u8, i8, i16.
    #[test]
    fn quantizing_by_the_inverse_rounds_halves_to_even_then_saturates() {
        for (zy, lo, hi) in [(0, 0, 255), (128, 0, 255), (-3, -128, 127), (255, 0, 255), (7, -32768, 32767)] {
            for k in -80_000..80_000 {
                let s = k as f32 * 0.5 + if k % 7 == 0 { 0.25 } else { 0.0 };
                for v in [s, s * 1e30, f32::INFINITY * s.signum()] {
                    let want = ((v.round_ties_even() as f64 + zy as f64).clamp(lo as f64, hi as f64)) as i32;
                    assert_eq!(quantize_by_inverse(v, 1.0, zy, lo, hi), want, "{v} zp {zy}");
                }
            }
        }
    }

    /// Against [`requantize`] on every multiplier exponent of the fast path,
    /// the extreme accumulators and multipliers, and rounding ties.
    #[test]
    fn the_high_word_form_equals_the_64_bit_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let zps = [0, 128, -3, 255, 7, (1 << 30) - 1, -(1 << 30) + 1];
        let bounds = [(0, 255), (-128, 127), (-32768, 32767), (i32::MIN, i32::MAX)];
        for shift in MIN_SHIFT..=-2 {
            assert!(high_word_exact(1 << 30, shift, 128) && high_word_exact(0, shift, -32768));
            let s = (31 - shift) as u32;
            for m in [0, 1 << 30, i32::MAX, 1_500_000_000, (1 << 30) + 1] {
                let ties = [1i32 << (s - 31).min(30), -(1i32 << (s - 31).min(30)), 3 << (s - 33).min(29)];
                let fixed = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, i32::MAX - 1];
                let mut rand: Vec<i32> = (0..2000).map(|_| next() as i32).collect();
                rand.extend((0..2000).map(|_| (next() % 200_001) as i32 - 100_000));
                for acc in fixed.into_iter().chain(ties).chain(rand) {
                    for (&zp, &(lo, hi)) in zps.iter().zip(bounds.iter().cycle()) {
                        let want = requantize(acc, m, shift, zp, lo, hi);
                        assert_eq!(requantize_high(acc, m, shift, zp, lo, hi), want, "{acc} {m} {shift} {zp}");
                    }
                }
            }
        }
        assert!(!high_word_exact(1 << 30, -1, 0) && !high_word_exact(1 << 30, 0, 0) && !high_word_exact(-5, -9, 0));
        assert!(!high_word_exact(1 << 30, -9, 1 << 30) && !high_word_exact(1 << 30, -9, i32::MIN));
    }

    #[test]
    fn scaling_rounds_half_up_once() {
        let (m, s) = quantize_multiplier(0.5).unwrap();
        assert_eq!([3, -3, 4, -5].map(|a| scale(a, m, s)), [2, -1, 2, -2]);
        let (m, s) = quantize_multiplier(0.1).unwrap();
        for acc in [-1000, -15, -5, 0, 5, 14, 15, 1000, i32::MAX, i32::MIN] {
            let want = (acc as f64 * m as f64 * 2f64.powi(s - 31) + 0.5).floor();
            assert_eq!(scale(acc, m, s) as f64, want, "{acc}");
        }
        assert_eq!(requantize(1000, m, s, 128, 0, 255), 228);
        assert_eq!(requantize(-5000, m, s, 128, 0, 255), 0);
        assert_eq!(requantize(-5000, m, s, 128, 100, 255), 100);
        // Equal to the two-step form (scale, then + zp, then clamp) everywhere.
        for acc in [i32::MIN, -70000, -1, 0, 1, 99999, i32::MAX] {
            for (m, s) in [(1 << 30, 30), (i32::MAX, -31), (1 << 30, 0), (1_500_000_000, -5)] {
                let two_step = scale(acc, m, s).saturating_add(-3).clamp(-128, 127);
                assert_eq!(requantize(acc, m, s, -3, -128, 127), two_step, "{acc} {m} {s}");
            }
        }
    }
}
