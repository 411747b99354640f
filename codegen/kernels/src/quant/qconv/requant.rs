//! The fixed-point epilogue of a row or a micro-kernel tile in vector
//! registers where the product's high word is exact ([`high_word_exact`]): AVX-512F (`vpmuldq`
//! on even and odd lanes, one blend, masked tail) and NEON (`sqdmulh`, then
//! one rounding shift). Both equal [`requantize_high`] per element; other
//! CPUs, and multipliers outside its domain, take the compiler-vectorized
//! loop of the caller (`None`).

use super::QAct;
#[allow(unused_imports)] // the vector paths' doc links and the tail
use edgec_numeric::quant::{high_word_exact, requantize_high};

/// One row's requantization parameters (see [`requantize_high`]).
#[derive(Copy, Clone, Debug)]
pub(super) struct RowReq {
    pub corr: i32,
    pub mult: i32,
    pub shift: i32,
    pub zp: i32,
    pub lo: i32,
    pub hi: i32,
}

/// True if the vector paths compute `r` for outputs of type `X` (they
/// store each clamped value's low byte: exact for a one-byte X and bounds
/// within its range).
#[inline]
fn accepts<X: QAct>(r: &RowReq) -> bool {
    let in_range = std::mem::size_of::<X>() == 1 && X::MIN <= r.lo && r.lo <= r.hi && r.hi <= X::MAX;
    in_range && high_word_exact(r.mult, r.shift, r.zp)
}

/// True if this CPU has a vector path: AVX-512F (level 3) or NEON.
#[inline]
fn has_simd() -> bool {
    cfg!(target_arch = "aarch64") || (cfg!(target_arch = "x86_64") && crate::simd::level() >= 3)
}

/// `out[i] = requantize_high(acc[i] + corr, ...)` for `i < out.len()` (and
/// `acc.len() ≥ out.len()`) in vector registers, or `None` (nothing
/// written) where this CPU has no such path or the parameters are outside
/// [`high_word_exact`]'s domain.
pub(super) fn row<X: QAct>(acc: &[i32], r: RowReq, out: &mut [X]) -> Option<()> {
    let rows = TileReq { corr: &[r.corr], mult: &[r.mult], shift: &[r.shift], shared: r };
    tile(acc, acc.len(), out.len(), rows, out, 1)
}

/// Rows `r < rows.corr.len()` of a micro-kernel tile, each row's first `n`
/// sums (`acc[r · stride..][..n]`) into `out[r · os..][..n]`, as [`row`]
/// with each row's `corr`, `mult` and `shift` and the shared `zp`, `lo`,
/// `hi`: one dispatch and one check per tile. `None` (nothing written) where
/// [`row`] would refuse any of the rows.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_variables))]
pub(super) fn tile<X: QAct>(
    acc: &[i32],
    stride: usize,
    n: usize,
    rows: TileReq<'_>,
    out: &mut [X],
    os: usize,
) -> Option<()> {
    let m = rows.corr.len();
    assert!(m == rows.mult.len() && m == rows.shift.len() && n <= stride);
    if m == 0 || n == 0 {
        return Some(());
    }
    assert!(acc.len() >= (m - 1) * stride + n && out.len() >= (m - 1) * os + n, "requantize: tile out of bounds");
    let all = (0..m)
        .all(|r| accepts::<X>(&RowReq { corr: rows.corr[r], mult: rows.mult[r], shift: rows.shift[r], ..rows.shared }));
    if !(has_simd() && all) {
        return None;
    }
    let dst = out.as_mut_ptr().cast::<u8>();
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `has_simd` saw AVX-512F (level 3); bounds checked above; X is
    // one byte wide and the clamp keeps every value in its range (`accepts`).
    #[allow(unsafe_code)]
    unsafe {
        x86::tile(acc, stride, n, &rows, dst, os)
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: NEON is baseline on aarch64; as above.
    #[allow(unsafe_code)]
    unsafe {
        arm::tile(acc, stride, n, &rows, dst, os)
    };
    Some(())
}

/// A tile's per-row parameters; `shared` gives `zp`, `lo` and `hi` (its
/// own `corr`, `mult` and `shift` are unused).
#[derive(Copy, Clone, Debug)]
pub(super) struct TileReq<'a> {
    pub corr: &'a [i32],
    pub mult: &'a [i32],
    pub shift: &'a [i32],
    pub shared: RowReq,
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{RowReq, TileReq};
    use std::arch::x86_64::*;

    /// Each row as [`row`]; the shared bounds set up once.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn tile(acc: &[i32], stride: usize, n: usize, rows: &TileReq<'_>, out: *mut u8, os: usize) {
        let RowReq { zp, lo, hi, .. } = rows.shared;
        let b = [_mm512_set1_epi32(zp), _mm512_set1_epi32(lo), _mm512_set1_epi32(hi)];
        for r in 0..rows.corr.len() {
            let p = Row::new(rows.corr[r], rows.mult[r], rows.shift[r]);
            let (a, o) = (acc.as_ptr().add(r * stride), out.add(r * os));
            if n == 32 {
                // A whole tile row: two independent unmasked vectors.
                let (v0, v1) =
                    (p.apply(_mm512_loadu_si512(a.cast()), b), p.apply(_mm512_loadu_si512(a.add(16).cast()), b));
                _mm_storeu_si128(o.cast(), _mm512_cvtepi32_epi8(v0));
                _mm_storeu_si128(o.add(16).cast(), _mm512_cvtepi32_epi8(v1));
                continue;
            }
            let mut i = 0;
            while i < n {
                let mask: __mmask16 = if n - i >= 16 { 0xffff } else { (1u16 << (n - i)) - 1 };
                let v = p.apply(_mm512_maskz_loadu_epi32(mask, a.add(i)), b);
                _mm512_mask_cvtepi32_storeu_epi8(o.add(i).cast(), mask, v);
                i += 16;
            }
        }
    }

    /// One row's multiplier, rounding term and shift in registers.
    struct Row {
        corr: __m512i,
        mult: __m512i,
        rnd: __m512i,
        count: __m128i,
    }

    impl Row {
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn new(corr: i32, mult: i32, shift: i32) -> Row {
            let k = -1 - shift; // the right shift after the high word (s − 32)
            Row {
                corr: _mm512_set1_epi32(corr),
                mult: _mm512_set1_epi32(mult),
                rnd: _mm512_set1_epi32(1 << (k - 1)),
                count: _mm_cvtsi32_si128(k),
            }
        }

        /// 16 lanes: signed 64-bit products of the even lanes and of the
        /// odd ones, their high words `h` blended, then
        /// `⌊(h + 2^(k−1)) / 2^k⌋ + zp` clamped to `[lo, hi]` (`b`).
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn apply(&self, acc: __m512i, b: [__m512i; 3]) -> __m512i {
            let a = _mm512_add_epi32(acc, self.corr);
            let even = _mm512_mul_epi32(a, self.mult);
            let odd = _mm512_mul_epi32(_mm512_srli_epi64::<32>(a), self.mult);
            let h = _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64::<32>(even), odd);
            let v = _mm512_add_epi32(_mm512_sra_epi32(_mm512_add_epi32(h, self.rnd), self.count), b[0]);
            _mm512_min_epi32(_mm512_max_epi32(v, b[1]), b[2])
        }
    }
}

#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)]
mod arm {
    use super::{RowReq, TileReq};
    use std::arch::aarch64::*;

    /// Each row as [`row`]: 16 lanes per step, the rest one by one.
    /// `sqdmulh` gives `H = ⌊acc · m / 2^31⌋` (no saturation: `m ≥ 0`), and
    /// `⌊(⌊H / 2⌋ + 2^(k−1)) / 2^k⌋ = ⌊(H + 2^k) / 2^(k+1)⌋`: one rounding
    /// shift right by `k + 1 = −shift`, computed without overflow.
    #[target_feature(enable = "neon")]
    pub unsafe fn tile(acc: &[i32], stride: usize, n: usize, rows: &TileReq<'_>, out: *mut u8, os: usize) {
        let RowReq { zp, lo, hi, .. } = rows.shared;
        let (zpv, lov, hiv) = (vdupq_n_s32(zp), vdupq_n_s32(lo), vdupq_n_s32(hi));
        for r in 0..rows.corr.len() {
            let (corr, mult, shift) = (rows.corr[r], rows.mult[r], rows.shift[r]);
            let (a, o) = (acc.as_ptr().add(r * stride), out.add(r * os));
            let (cv, mv, sv) = (vdupq_n_s32(corr), vdupq_n_s32(mult), vdupq_n_s32(shift));
            let lane = |j: usize| {
                let x = vaddq_s32(vld1q_s32(a.add(j)), cv);
                let v = vaddq_s32(vrshlq_s32(vqdmulhq_s32(x, mv), sv), zpv);
                vminq_s32(vmaxq_s32(v, lov), hiv)
            };
            let mut i = 0;
            while i + 16 <= n {
                let h0 = vcombine_s16(vmovn_s32(lane(i)), vmovn_s32(lane(i + 4)));
                let h1 = vcombine_s16(vmovn_s32(lane(i + 8)), vmovn_s32(lane(i + 12)));
                vst1q_s8(o.add(i).cast(), vcombine_s8(vmovn_s16(h0), vmovn_s16(h1)));
                i += 16;
            }
            for j in i..n {
                *o.add(j) = super::requantize_high((*a.add(j)).wrapping_add(corr), mult, shift, zp, lo, hi) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgec_numeric::quant::MIN_SHIFT;

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }
    }

    /// One row through [`row`] against [`requantize_high`] per element.
    fn check_row<X: QAct + PartialEq + std::fmt::Debug>(rng: &mut Lcg, shift: i32, n: usize) {
        let acc: Vec<i32> =
            (0..n).map(|i| if i % 7 == 3 { i32::MIN + i as i32 } else { rng.next() as i32 >> (i % 20) }).collect();
        let zp = X::MIN + (rng.next() % 256) as i32;
        let (lo, hi) = if rng.next().is_multiple_of(2) { (X::MIN, X::MAX) } else { (zp.min(X::MAX - 3), X::MAX - 3) };
        let mult = if n.is_multiple_of(2) { (1 << 30) + (rng.next() >> 1) as i32 } else { (rng.next() >> 3) as i32 };
        let r = RowReq { corr: rng.next() as i32, mult, shift, zp, lo, hi };
        let want: Vec<X> = acc
            .iter()
            .map(|&a| X::from_i32(requantize_high(a.wrapping_add(r.corr), mult, shift, zp, lo, hi)))
            .collect();
        let mut got = vec![X::default(); n];
        let ran = row(&acc, r, &mut got);
        assert_eq!(ran.is_some(), has_simd() || n == 0, "shift {shift}");
        if ran.is_some() {
            assert_eq!(got, want, "shift {shift}, n {n}, {r:?}");
        }
    }

    #[test]
    fn vector_rows_equal_the_high_word_form() {
        let mut rng = Lcg(11);
        for shift in MIN_SHIFT..=-2 {
            for n in [0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 64] {
                check_row::<u8>(&mut rng, shift, n);
                check_row::<i8>(&mut rng, shift, n);
            }
        }
    }

    #[test]
    fn tiles_take_each_rows_parameters_and_refuse_the_slow_form() {
        let mut rng = Lcg(5);
        let (stride, os) = (32, 45);
        let acc: Vec<i32> = (0..8 * stride).map(|_| rng.next() as i32 >> 9).collect();
        let corr: Vec<i32> = (0..8).map(|r| r * 1000 - 3000).collect();
        let mult: Vec<i32> = (0..8).map(|r| (1 << 30) + r * 12345).collect();
        let shift: Vec<i32> = (0..8).map(|r| -4 - r).collect();
        let shared = RowReq { corr: 0, mult: 0, shift: 0, zp: 10, lo: 0, hi: 250 };
        for n in [32, 20, 5] {
            let mut out = vec![7u8; 7 * os + n + 3];
            let rows = TileReq { corr: &corr, mult: &mult, shift: &shift, shared };
            assert_eq!(tile(&acc, stride, n, rows, &mut out, os).is_some(), has_simd());
            if !has_simd() {
                continue;
            }
            for (i, &v) in out.iter().enumerate() {
                let (r, j) = (i / os, i % os);
                let want = if j < n && r < 8 {
                    requantize_high(acc[r * stride + j].wrapping_add(corr[r]), mult[r], shift[r], 10, 0, 250) as u8
                } else {
                    7
                };
                assert_eq!(v, want, "n {n}, row {r}, column {j}");
            }
        }
        // One row outside the high-word form's domain: nothing is written.
        let shift0: Vec<i32> = (0..8).map(|r| if r == 5 { 0 } else { -4 }).collect();
        let mut out = vec![7u8; 8 * os];
        let rows = TileReq { corr: &corr, mult: &mult, shift: &shift0, shared };
        assert!(tile(&acc, stride, 32, rows, &mut out, os).is_none());
        assert!(out.iter().all(|&v| v == 7));
    }
}
