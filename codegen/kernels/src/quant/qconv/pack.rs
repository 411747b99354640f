//! im2col into the micro-kernels' panels: each group of 4 taps of every
//! output position as 4 consecutive biased bytes, [`NR`] positions per panel
//! step. Invariant: padding, depth tails and column tails hold the biased
//! zero point (their weights are 0, or their results are dropped).

use super::{depthwise, Conv2d, QAct, QReq, NR};
use std::cell::RefCell;

/// Steps (of [`NR`] · 4 bytes) from one panel's start to the next for a
/// GEMM depth of `k4`: its `k4 / 4` steps made odd, so the panels' same
/// steps, which [`pack_panels`] writes in turn, fall in different L1 cache
/// sets (at an even multiple of 64 bytes, e.g. 128 steps = 8 KiB, they all
/// met in one set and evicted one another).
pub(super) fn panel_steps(k4: usize) -> usize {
    (k4 / 4) | 1
}

/// im2col of one group's channels (`xg`, `cg` planes), biased, straight into
/// panels: `panels[((j / NR) · ps + t / 4) · NR · 4 + (j % NR) · 4 + t % 4]`
/// (`ps` = [`panel_steps`]`(k4)`) holds tap `t` of output position `j`;
/// padding holds the biased zero point.
/// Depth and column tails hold the zero point too: their weights are 0 and
/// their results are dropped.
pub(super) fn pack_panels<X: QAct>(p: &Conv2d, q: &QReq, xg: &[X], k4: usize, panels: &mut [u8]) {
    let os = p.out_h() * p.out_w();
    let zb = (q.x_zero + X::BIAS) as u8;
    let k = (p.c_in / p.groups) * p.kh * p.kw;
    // A 1×1 window with stride 1 and no padding reads each input plane as
    // it is: its tap rows are the planes themselves (for u8).
    let direct = p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1;
    let direct = direct && p.pad_top + p.pad_left + p.pad_bottom + p.pad_right == 0;
    let planes = X::as_biased(xg).filter(|_| direct);
    ROWS.with(|cell| {
        let mut rows = cell.borrow_mut();
        rows.clear();
        rows.resize(4 * os, zb);
        let filler = vec![zb; os];
        for step in 0..k4 / 4 {
            for l in 0..4 {
                let t = 4 * step + l;
                if t < k && planes.is_none() {
                    tap_row(p, xg, t, zb, &mut rows[l * os..(l + 1) * os]);
                }
            }
            let row = |l: usize| -> &[u8] {
                match (4 * step + l, planes) {
                    (t, _) if t >= k => &filler,
                    (t, Some(xs)) => &xs[t * os..(t + 1) * os],
                    (_, None) => &rows[l * os..(l + 1) * os],
                }
            };
            interleave([row(0), row(1), row(2), row(3)], zb, step, panel_steps(k4), panels);
        }
    });
}

std::thread_local! {
    /// Four im2col rows of the running conv.
    static ROWS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

crate::multiversion! {
    /// Tap `t` (channel, ky, kx) of every output position, biased; zb in the padding.
    fn tap_row<X: QAct>(p: &Conv2d, xg: &[X], t: usize, zb: u8, row: &mut [u8]) {
        let (oh, ow) = (p.out_h(), p.out_w());
        let (c, ky, kx) = (t / (p.kh * p.kw), (t / p.kw) % p.kh, t % p.kw);
        let plane = &xg[c * p.h * p.w..(c + 1) * p.h * p.w];
        let off = (kx * p.dil_w) as isize - p.pad_left as isize;
        let (lo, hi) = depthwise::columns(ow, p.stride_w, off, p.w);
        for oy in 0..oh {
            let out = &mut row[oy * ow..(oy + 1) * ow];
            let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
            if iy < 0 || iy as usize >= p.h {
                out.fill(zb);
                continue;
            }
            let src = &plane[iy as usize * p.w..(iy as usize + 1) * p.w];
            out[..lo].fill(zb);
            out[hi..].fill(zb);
            // Output columns lo..hi read input columns base, base + stride, ...
            let base = (lo as isize * p.stride_w as isize + off) as usize;
            if p.stride_w == 1 {
                crate::map16!(&src[base..base + (hi - lo)], &mut out[lo..hi], |s| s.biased());
            } else if p.stride_w == 2 {
                crate::map16_stride2!(&src[base..], &mut out[lo..hi], |s| s.biased());
            } else {
                for (o, s) in out[lo..hi].iter_mut().zip(src[base..].iter().step_by(p.stride_w)) {
                    *o = s.biased();
                }
            }
        }
    }
}

crate::multiversion! {
    /// Write taps `4·step .. 4·step + 4` (the four rows, one value per output
    /// position) into every panel (`ps` steps apart): 4 bytes per column,
    /// `zb` past the rows' end. Four panels at a time where the CPU has
    /// AVX-512BW, one at a time otherwise.
    fn interleave(rows: [&[u8]; 4], zb: u8, step: usize, ps: usize, panels: &mut [u8]) {
        let n = rows[0].len();
        // Panel pn's step `step` is the 64-byte chunk pn · ps + step.
        let at = |pn: usize| (pn * ps + step) * 4 * NR;
        let mut pn = 0;
        #[cfg(target_arch = "x86_64")]
        if wide_transpose() {
            while (pn + 4) * NR <= n {
                let r = rows.map(|r| <&[u8; 4 * NR]>::try_from(&r[pn * NR..(pn + 4) * NR]).expect("64 columns"));
                let d = [0, 1, 2, 3].map(|i| at(pn + i));
                assert!(d[3] + 4 * NR <= panels.len(), "panel step out of bounds");
                // SAFETY: `wide_transpose` saw AVX-512BW; the four 64-byte
                // destinations are in bounds (asserted) and disjoint (`ps ≥ 1`).
                #[allow(unsafe_code)]
                unsafe {
                    transpose4x4(r, d.map(|o| panels.as_mut_ptr().add(o)))
                };
                pn += 4;
            }
        }
        while (pn + 1) * NR <= n {
            let r = rows.map(|r| <&[u8; NR]>::try_from(&r[pn * NR..(pn + 1) * NR]).expect("16 columns"));
            transpose4(r, (&mut panels[at(pn)..at(pn) + 4 * NR]).try_into().expect("panel step"));
            pn += 1;
        }
        if pn * NR < n {
            let mut tail = [[zb; NR]; 4];
            for (t, r) in tail.iter_mut().zip(rows) {
                t[..n - pn * NR].copy_from_slice(&r[pn * NR..]);
            }
            let d = (&mut panels[at(pn)..at(pn) + 4 * NR]).try_into().expect("panel step");
            transpose4([&tail[0], &tail[1], &tail[2], &tail[3]], d);
        }
    }
}

/// True if [`transpose4x4`] runs here (AVX-512BW, level 3).
#[cfg(target_arch = "x86_64")]
#[inline]
fn wide_transpose() -> bool {
    crate::simd::level() >= 3 && std::is_x86_feature_detected!("avx512bw")
}

/// [`transpose4`] of four panels at once: four rows of 64 bytes (columns
/// `16i..16i + 16` go to `d[i]`, 64 bytes each). The byte and word unpacks
/// work within 128-bit lanes, so lane `i` of the k-th result is the k-th
/// 16 bytes of panel `i`; two rounds of 128-bit lane shuffles gather them.
/// (aarch64's `st4` already writes a panel step in one instruction.)
///
/// # Safety
/// The CPU must have AVX-512BW ([`wide_transpose`]); each `d[i]` must be
/// valid for 64 bytes of writes.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn transpose4x4(r: [&[u8; 4 * NR]; 4], d: [*mut u8; 4]) {
    use std::arch::x86_64::*;
    let [a, b, c, e] = r.map(|r| _mm512_loadu_si512(r.as_ptr().cast()));
    let (ab0, ab1) = (_mm512_unpacklo_epi8(a, b), _mm512_unpackhi_epi8(a, b));
    let (cd0, cd1) = (_mm512_unpacklo_epi8(c, e), _mm512_unpackhi_epi8(c, e));
    let k0 = _mm512_unpacklo_epi16(ab0, cd0);
    let k1 = _mm512_unpackhi_epi16(ab0, cd0);
    let k2 = _mm512_unpacklo_epi16(ab1, cd1);
    let k3 = _mm512_unpackhi_epi16(ab1, cd1);
    // t0 = [k0.0, k0.1, k1.0, k1.1], t1 = [k0.2, k0.3, k1.2, k1.3], t2, t3 likewise from k2, k3.
    let t0 = _mm512_shuffle_i32x4::<0b01_00_01_00>(k0, k1);
    let t1 = _mm512_shuffle_i32x4::<0b11_10_11_10>(k0, k1);
    let t2 = _mm512_shuffle_i32x4::<0b01_00_01_00>(k2, k3);
    let t3 = _mm512_shuffle_i32x4::<0b11_10_11_10>(k2, k3);
    // Panel i = [k0.i, k1.i, k2.i, k3.i].
    _mm512_storeu_si512(d[0].cast(), _mm512_shuffle_i32x4::<0b10_00_10_00>(t0, t2));
    _mm512_storeu_si512(d[1].cast(), _mm512_shuffle_i32x4::<0b11_01_11_01>(t0, t2));
    _mm512_storeu_si512(d[2].cast(), _mm512_shuffle_i32x4::<0b10_00_10_00>(t1, t3));
    _mm512_storeu_si512(d[3].cast(), _mm512_shuffle_i32x4::<0b11_01_11_01>(t1, t3));
}

/// `d[4j + l] = r[l][j]`: four rows of [`NR`] bytes as NR columns of 4
/// (byte and word unpacks on x86_64's baseline SSE2, one `st4` on aarch64;
/// the compiler left the portable loop as 64 byte loads and shifts).
#[allow(unsafe_code)]
fn transpose4(r: [&[u8; NR]; 4], d: &mut [u8; 4 * NR]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        const _: () = assert!(NR == 16);
        // SAFETY: SSE2 is part of x86_64; each row holds 16 bytes, `d` 64.
        unsafe {
            let [a, b, c, e] = r.map(|r| _mm_loadu_si128(r.as_ptr().cast()));
            let (ab, cd) = (
                (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
                (_mm_unpacklo_epi8(c, e), _mm_unpackhi_epi8(c, e)),
            );
            let cols = [
                _mm_unpacklo_epi16(ab.0, cd.0),
                _mm_unpackhi_epi16(ab.0, cd.0),
                _mm_unpacklo_epi16(ab.1, cd.1),
                _mm_unpackhi_epi16(ab.1, cd.1),
            ];
            for (k, v) in cols.into_iter().enumerate() {
                _mm_storeu_si128(d.as_mut_ptr().add(16 * k).cast(), v);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::aarch64::*;
        const _: () = assert!(NR == 16);
        // SAFETY: NEON is part of aarch64; each row holds 16 bytes, `d` 64.
        unsafe {
            let [a, b, c, e] = r.map(|r| vld1q_u8(r.as_ptr()));
            vst4q_u8(d.as_mut_ptr(), uint8x16x4_t(a, b, c, e));
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    for (j, col) in d.chunks_exact_mut(4).enumerate() {
        col.copy_from_slice(&[r[0][j], r[1][j], r[2][j], r[3][j]]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn transpose4_puts_row_l_column_j_at_4j_plus_l() {
        let rows: [[u8; 16]; 4] = std::array::from_fn(|l| std::array::from_fn(|j| (l * 16 + j) as u8 ^ 0xa5));
        let mut d = [0u8; 64];
        super::transpose4([&rows[0], &rows[1], &rows[2], &rows[3]], &mut d);
        for (i, &v) in d.iter().enumerate() {
            assert_eq!(v, rows[i % 4][i / 4], "byte {i}");
        }
    }
}
