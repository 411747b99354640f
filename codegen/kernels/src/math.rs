//! Scalar math written so that loops over slices auto-vectorize: no libm
//! calls, no data-dependent branches.
//! Shared infrastructure: used by the activations, the GEMM epilogue, the
//! elementwise and the norm kernels.

/// `e^x` within 2 ulp over the whole f32 range (overflow gives `+inf`,
/// underflow rounds through the subnormals to 0, NaN stays NaN).
///
/// `x = n ln 2 + r` with `n = round(x / ln 2)` and `|r| <= ln 2 / 2`
/// (Cody–Waite: `ln 2` split in a 9-bit head, so `n * head` is exact, and
/// a tail); `e^r` is its degree-7 Taylor polynomial (truncation error below
/// `0.35^8 / 8! < 6e-9`); `2^n` is applied as two exact power-of-two factors
/// so that subnormal results are rounded only once.
#[inline]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4; // 355 / 512
    const LN2_LO: f32 = -2.121_944_4e-4; // ln 2 - LN2_HI
    const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    let x = x.clamp(-104.0, 89.0);
    let t = x * LOG2E + ROUND;
    let n = t - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0 / 5040.0;
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
        p = p * r + c;
    }
    // `t = ROUND + n` exactly (|n| < 2^22), so its low bits are `n`: no
    // (scalarized) saturating float-to-int conversion. NaN gives garbage
    // here but `p` is NaN.
    let n = t.to_bits() as i32 - ROUND.to_bits() as i32;
    let (n1, n2) = (n >> 1, n - (n >> 1));
    let pow2 = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
    p * pow2(n1) * pow2(n2)
}

/// `1 / (1 + e^-x)` with [`exp`] (no overflow: `e^-x` saturates to `inf`,
/// giving 0).
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// `Σ v` in f64 with eight independent partial sums (vectorizes; at least
/// as accurate as one sequential f64 sum).
pub fn sum_f64(v: &[f32]) -> f64 {
    sum_map_f64(v, |x| x)
}

/// `Σ f(v)` in f64 with eight independent partial sums.
#[inline]
pub fn sum_map_f64(v: &[f32], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0f64; 8];
    let mut chunks = v.chunks_exact(8);
    for c in chunks.by_ref() {
        acc.iter_mut().zip(c).for_each(|(a, &x)| *a += f(x as f64));
    }
    let tail: f64 = chunks.remainder().iter().map(|&x| f(x as f64)).sum();
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// NaN-propagating maximum of `v` (`-inf` if empty), eight lanes at a time.
pub fn max_nan(v: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 8];
    let mut nan = false;
    let mut chunks = v.chunks_exact(8);
    for c in chunks.by_ref() {
        acc.iter_mut().zip(c).for_each(|(a, &x)| *a = if x > *a { x } else { *a });
        nan |= c.iter().fold(false, |n, x| n | x.is_nan());
    }
    let rest = chunks.remainder();
    nan |= rest.iter().any(|x| x.is_nan());
    let m = rest.iter().chain(&acc).fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
    if nan {
        f32::NAN
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn exp_within_two_ulp() {
        let mut worst = 0;
        let mut x = -104.0f32;
        while x < 89.0 {
            let want = (x as f64).exp() as f32;
            let got = exp(x);
            if want.is_finite() && want > f32::MIN_POSITIVE {
                worst = worst.max(ulps(got, want));
            } else {
                assert!((got - want).abs() <= f32::MIN_POSITIVE * 1e-6 || got == want, "exp({x}) = {got}, want {want}");
            }
            x += 0.003_17;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(f32::NAN).is_nan());
        assert_eq!(exp(88.8), f32::INFINITY);
    }

    #[test]
    fn sums() {
        let v: Vec<f32> = (0..1001).map(|i| i as f32 * 0.5).collect();
        assert_eq!(sum_f64(&v), 250_250.0);
        assert_eq!(sigmoid(-200.0), 0.0);
        assert_eq!(sigmoid(200.0), 1.0);
    }
}
