//! The integer micro-kernels: an [`MR`] × 2·[`NR`] tile of
//! `Σ_t a[r][t] · (b[t][j] − offset)` over `steps` groups of 4 taps.
//! `a` holds per step MR rows × 4 i8 taps; `b0`, `b1` per step NR columns ×
//! 4 biased u8 taps (columns 0..NR and NR..2NR of the tile). The AVX2
//! kernels read `a` as is through `vpmaddubsw` where [`bytes_fit`] holds,
//! and as [`split_pairs`] arranges it (through `vpmaddwd`) where not; the
//! VNNI kernels (zmm and ymm) read it as is.

use super::{Isa, MR, NR};

/// Fill `tile[r · 2NR + j]` for `isa` (which must be available). For AVX2,
/// `pairs` is `a` through [`split_pairs`], or `None` if [`bytes_fit`]`(a)`
/// (unread by the other families).
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub fn run(
    isa: Isa,
    steps: usize,
    a: &[i8],
    pairs: Option<&[u32]>,
    b0: &[u8],
    b1: &[u8],
    tile: &mut [i32; MR * 2 * NR],
) {
    assert!(a.len() >= steps * MR * 4 && b0.len() >= steps * NR * 4 && b1.len() >= steps * NR * 4);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` came from `current()`: the CPU has the features; lengths checked above.
        #[allow(unsafe_code)]
        Isa::Vnni512 => unsafe { x86::vnni(steps, a, b0, b1, tile) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        #[allow(unsafe_code)]
        Isa::Avx2 => match pairs {
            Some(pairs) => {
                assert!(pairs.len() >= steps * MR * 2, "the AVX2 kernel reads split weights");
                // SAFETY: as above, and `pairs` holds `steps` steps.
                unsafe { x86::avx2(steps, pairs, b0, b1, tile) }
            }
            None => {
                debug_assert!(bytes_fit(&a[..steps * MR * 4]), "vpmaddubsw would saturate");
                // SAFETY: as above; no tap pair of `a` saturates (the caller checked `bytes_fit`).
                unsafe { x86::avx2_bytes(steps, a, b0, b1, tile) }
            }
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        #[allow(unsafe_code)]
        Isa::AvxVnni => unsafe { x86::avx_vnni(steps, a, b0, b1, tile) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above.
        #[allow(unsafe_code)]
        Isa::Sdot => unsafe { arm::sdot(steps, a, b0, b1, tile) },
        _ => scalar(steps, a, b0, b1, tile),
    }
}

/// True if no tap pair of `a` (taps 0 and 1, taps 2 and 3 of each group of
/// four) can saturate `vpmaddubsw`'s i16 sum `b0·w0 + b1·w1` for any bytes
/// `b0, b1 ≤ 255`: the positive weights of each pair sum to at most 128 and
/// the negative ones to at least −128 (255 · 128 = 32640 fits i16, 255 · 129
/// does not). Weights within ±64 (`--reduce-range`) always fit.
pub fn bytes_fit(a: &[i8]) -> bool {
    a.chunks_exact(2).all(|p| {
        let (w0, w1) = (i32::from(p[0]), i32::from(p[1]));
        w0.max(0) + w1.max(0) <= 128 && w0.min(0) + w1.min(0) >= -128
    })
}

/// The weights of [`run`]'s `a` as the AVX2 kernel multiplies them: per
/// step and row, taps 0 and 2 then taps 1 and 3, each pair as two i16 in
/// one word (the tap pairs `vpmaddwd` meets in the widened panel bytes), so
/// the inner loop broadcasts ready words instead of sign-extending bytes.
pub fn split_pairs(a: &[i8]) -> Vec<u32> {
    let word = |lo: i8, hi: i8| u32::from(lo as i16 as u16) | u32::from(hi as i16 as u16) << 16;
    let mut pairs = vec![0; a.len() / 2];
    for (w, p) in a.chunks_exact(4).zip(pairs.chunks_exact_mut(2)) {
        p[0] = word(w[0], w[2]);
        p[1] = word(w[1], w[3]);
    }
    pairs
}

/// The portable kernel (offset 0).
fn scalar(steps: usize, a: &[i8], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
    tile.fill(0);
    for s in 0..steps {
        let a = &a[s * MR * 4..(s + 1) * MR * 4];
        for (half, b) in [b0, b1].into_iter().enumerate() {
            let b = &b[s * NR * 4..(s + 1) * NR * 4];
            for r in 0..MR {
                let row = &mut tile[r * 2 * NR + half * NR..r * 2 * NR + (half + 1) * NR];
                for (j, acc) in row.iter_mut().enumerate() {
                    let dot = (0..4).fold(0i32, |d, l| d + a[r * 4 + l] as i32 * b[j * 4 + l] as i32);
                    *acc = acc.wrapping_add(dot);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// `vpdpbusd`: 8 rows × 2 panels, one zmm (16 columns) per row and panel.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn vnni(steps: usize, a: &[i8], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
        let mut c0 = [_mm512_setzero_si512(); MR];
        let mut c1 = [_mm512_setzero_si512(); MR];
        let (pa, p0, p1) = (a.as_ptr(), b0.as_ptr(), b1.as_ptr());
        for s in 0..steps {
            // SAFETY: the caller checked a, b0, b1 hold `steps` steps.
            let v0 = _mm512_loadu_si512(p0.add(s * NR * 4).cast());
            let v1 = _mm512_loadu_si512(p1.add(s * NR * 4).cast());
            for r in 0..MR {
                let w = _mm512_set1_epi32(pa.add(s * MR * 4 + r * 4).cast::<i32>().read_unaligned());
                c0[r] = _mm512_dpbusd_epi32(c0[r], v0, w);
                c1[r] = _mm512_dpbusd_epi32(c1[r], v1, w);
            }
        }
        let out = tile.as_mut_ptr();
        for r in 0..MR {
            _mm512_storeu_si512(out.add(r * 2 * NR).cast(), c0[r]);
            _mm512_storeu_si512(out.add(r * 2 * NR + NR).cast(), c1[r]);
        }
    }

    /// Widened bytes and `vpmaddwd`: per 8 columns, taps 0/2 and 1/3 as i16
    /// pairs (u8 × i8 products fit i16 × i16 → i32 exactly) against the
    /// weights' ready pairs ([`super::split_pairs`]). Four rows at a time
    /// keep the 8 accumulators and operands in the 16 ymm registers.
    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2(steps: usize, pairs: &[u32], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
        let lo_mask = _mm256_set1_epi16(0x00ff);
        let pw = pairs.as_ptr().cast::<i32>();
        for (half, b) in [b0, b1].into_iter().enumerate() {
            for r0 in (0..MR).step_by(4) {
                let mut c = [_mm256_setzero_si256(); 8];
                for s in 0..steps {
                    // SAFETY: the caller checked the lengths.
                    let pb = b.as_ptr().add(s * NR * 4);
                    let bv = [_mm256_loadu_si256(pb.cast()), _mm256_loadu_si256(pb.add(32).cast())];
                    let blo = [_mm256_and_si256(bv[0], lo_mask), _mm256_and_si256(bv[1], lo_mask)];
                    let bhi = [_mm256_srli_epi16(bv[0], 8), _mm256_srli_epi16(bv[1], 8)];
                    for r in 0..4 {
                        let at = pw.add((s * MR + r0 + r) * 2);
                        let (we, wo) = (_mm256_set1_epi32(at.read()), _mm256_set1_epi32(at.add(1).read()));
                        for h in 0..2 {
                            let d = _mm256_add_epi32(_mm256_madd_epi16(blo[h], we), _mm256_madd_epi16(bhi[h], wo));
                            c[r * 2 + h] = _mm256_add_epi32(c[r * 2 + h], d);
                        }
                    }
                }
                store4(tile, r0, half, &c);
            }
        }
    }

    /// `vpmaddubsw` on the bytes as packed (biased u8 panel × i8 weights: the
    /// operand order of `vpdpbusd`), then `vpmaddwd` by ones: per 8 columns
    /// the i32 sum of 4 taps in 3 instructions, where [`avx2`] takes 4 plus
    /// the panel's split. Exact only if no pair saturates ([`super::bytes_fit`]).
    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2_bytes(steps: usize, a: &[i8], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
        let ones = _mm256_set1_epi16(1);
        bytes4(steps, a, b0, b1, tile, |c, b, w| {
            _mm256_add_epi32(c, _mm256_madd_epi16(_mm256_maddubs_epi16(b, w), ones))
        });
    }

    /// AVX-VNNI (VEX-coded `vpdpbusd` on ymm: CPUs with AVX2 and no
    /// AVX-512 since Alder Lake, e.g. the Intel N100): the bytes as packed,
    /// exact for every weight.
    #[target_feature(enable = "avx2,avxvnni")]
    pub unsafe fn avx_vnni(steps: usize, a: &[i8], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
        bytes4(steps, a, b0, b1, tile, |c, b, w| _mm256_dpbusd_avx_epi32(c, b, w));
    }

    /// The ymm byte kernels' loop: per panel and 4 rows, 8 accumulators (two
    /// ymm of 8 columns per row) updated by `dot(acc, panel bytes, the row's
    /// 4 weights broadcast)` each step. Inlined into its callers, which
    /// compile it for their instruction set.
    #[inline(always)]
    unsafe fn bytes4(
        steps: usize,
        a: &[i8],
        b0: &[u8],
        b1: &[u8],
        tile: &mut [i32; MR * 2 * NR],
        dot: impl Fn(__m256i, __m256i, __m256i) -> __m256i,
    ) {
        let pa = a.as_ptr();
        for (half, b) in [b0, b1].into_iter().enumerate() {
            for r0 in (0..MR).step_by(4) {
                let mut c = [_mm256_setzero_si256(); 8];
                for s in 0..steps {
                    // SAFETY: the caller checked the lengths.
                    let pb = b.as_ptr().add(s * NR * 4);
                    let bv = [_mm256_loadu_si256(pb.cast()), _mm256_loadu_si256(pb.add(32).cast())];
                    for r in 0..4 {
                        let w = _mm256_set1_epi32(pa.add(s * MR * 4 + (r0 + r) * 4).cast::<i32>().read_unaligned());
                        for h in 0..2 {
                            c[r * 2 + h] = dot(c[r * 2 + h], bv[h], w);
                        }
                    }
                }
                store4(tile, r0, half, &c);
            }
        }
    }

    /// Rows `r0..r0 + 4` of panel `half` (two ymm each) into the tile.
    #[target_feature(enable = "avx2")]
    unsafe fn store4(tile: &mut [i32; MR * 2 * NR], r0: usize, half: usize, c: &[__m256i; 8]) {
        let out = tile.as_mut_ptr();
        for r in 0..4 {
            for h in 0..2 {
                _mm256_storeu_si256(out.add((r0 + r) * 2 * NR + half * NR + h * 8).cast(), c[r * 2 + h]);
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)]
mod arm {
    use super::{MR, NR};
    use std::arch::aarch64::*;
    use std::arch::asm;

    /// `sdot` by element: 4 rows × 16 columns (16 accumulators) per call of
    /// the inner loop, four times per tile. The bytes are flipped to signed
    /// (`b ^ 0x80 = b − 128`): the offset the epilogue takes back.
    #[target_feature(enable = "neon,dotprod")]
    pub unsafe fn sdot(steps: usize, a: &[i8], b0: &[u8], b1: &[u8], tile: &mut [i32; MR * 2 * NR]) {
        let flip = vdupq_n_u8(0x80);
        for (half, b) in [b0, b1].into_iter().enumerate() {
            for r0 in (0..MR).step_by(4) {
                let mut c = [vdupq_n_s32(0); 16];
                for s in 0..steps {
                    // SAFETY: the caller checked the lengths.
                    let pb = b.as_ptr().add(s * NR * 4);
                    let bv = [0, 16, 32, 48].map(|o| vreinterpretq_s8_u8(veorq_u8(vld1q_u8(pb.add(o)), flip)));
                    let av = vld1q_s8(a.as_ptr().add(s * MR * 4 + r0 * 4));
                    asm!(
                        "sdot {c0:v}.4s, {b0:v}.16b, {a:v}.4b[0]",
                        "sdot {c1:v}.4s, {b1:v}.16b, {a:v}.4b[0]",
                        "sdot {c2:v}.4s, {b2:v}.16b, {a:v}.4b[0]",
                        "sdot {c3:v}.4s, {b3:v}.16b, {a:v}.4b[0]",
                        "sdot {c4:v}.4s, {b0:v}.16b, {a:v}.4b[1]",
                        "sdot {c5:v}.4s, {b1:v}.16b, {a:v}.4b[1]",
                        "sdot {c6:v}.4s, {b2:v}.16b, {a:v}.4b[1]",
                        "sdot {c7:v}.4s, {b3:v}.16b, {a:v}.4b[1]",
                        "sdot {c8:v}.4s, {b0:v}.16b, {a:v}.4b[2]",
                        "sdot {c9:v}.4s, {b1:v}.16b, {a:v}.4b[2]",
                        "sdot {c10:v}.4s, {b2:v}.16b, {a:v}.4b[2]",
                        "sdot {c11:v}.4s, {b3:v}.16b, {a:v}.4b[2]",
                        "sdot {c12:v}.4s, {b0:v}.16b, {a:v}.4b[3]",
                        "sdot {c13:v}.4s, {b1:v}.16b, {a:v}.4b[3]",
                        "sdot {c14:v}.4s, {b2:v}.16b, {a:v}.4b[3]",
                        "sdot {c15:v}.4s, {b3:v}.16b, {a:v}.4b[3]",
                        c0 = inout(vreg) c[0], c1 = inout(vreg) c[1], c2 = inout(vreg) c[2], c3 = inout(vreg) c[3],
                        c4 = inout(vreg) c[4], c5 = inout(vreg) c[5], c6 = inout(vreg) c[6], c7 = inout(vreg) c[7],
                        c8 = inout(vreg) c[8], c9 = inout(vreg) c[9], c10 = inout(vreg) c[10], c11 = inout(vreg) c[11],
                        c12 = inout(vreg) c[12], c13 = inout(vreg) c[13], c14 = inout(vreg) c[14], c15 = inout(vreg) c[15],
                        b0 = in(vreg) bv[0], b1 = in(vreg) bv[1], b2 = in(vreg) bv[2], b3 = in(vreg) bv[3],
                        a = in(vreg_low16) av,
                        options(pure, nomem, nostack),
                    );
                }
                let out = tile.as_mut_ptr();
                for r in 0..4 {
                    for q in 0..4 {
                        vst1q_s32(out.add((r0 + r) * 2 * NR + half * NR + q * 4), c[r * 4 + q]);
                    }
                }
            }
        }
    }
}
