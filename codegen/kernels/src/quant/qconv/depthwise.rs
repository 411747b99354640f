//! The depthwise path of `quant.conv` (one input and one output channel per
//! group). Per channel, the plane is centered to i16 (`x − x_zero`, so the
//! padding is 0) and split into `stride_h × stride_w` phase planes (phase
//! `(r mod sh, c mod sw)` of the padded plane holds rows `r / sh`, columns
//! `c / sw`). Every tap then reads one phase plane at one offset for all
//! output positions, so the accumulation is one long contiguous loop per tap
//! over a "wide" accumulator (rows of the phase plane's width; the columns
//! past the output width are scratch, dropped at the end) instead of a short
//! loop per output row. Integer sums in i32: the same bits as the GEMM path
//! and the interpreter.

//!
//! On x86_64 the taps go in pairs whose offsets differ by one: over the
//! plane of neighbour pairs `(ph[i], ph[i + 1])` one `vpmaddwd` applies both
//! to 8 outputs (AVX2), one `vpdpwssd` (its multiply and the add) to 16
//! (AVX-512 VNNI) or 8 (AVX-VNNI); an unpaired tap takes weight 0 as its
//! partner. Same integer sums as the tap-by-tap loop.

use super::{Conv2d, Isa, PackedQConv, QAct, QReq};
use std::cell::RefCell;

std::thread_local! {
    static BUFS: RefCell<Bufs> = const { RefCell::new(Bufs::EMPTY) };
}

/// The running channel's buffers.
struct Bufs {
    /// The centered input's phase planes.
    ph: Vec<i16>,
    /// Their neighbour pairs (the paired path).
    pv: Vec<i32>,
    /// Accumulators on the phase planes' rows, then on the output's rows.
    wide: Vec<i32>,
    acc: Vec<i32>,
    /// (offset, weight) per tap, or per pair (the paired path).
    taps: Vec<(usize, i16)>,
    pairs: Vec<(usize, i32)>,
}

impl Bufs {
    const EMPTY: Bufs =
        Bufs { ph: Vec::new(), pv: Vec::new(), wide: Vec::new(), acc: Vec::new(), taps: Vec::new(), pairs: Vec::new() };
}

/// The phase planes' geometry: `hq` rows × `wq` columns each, `sh · sw` of them.
#[derive(Copy, Clone, Debug)]
struct Phases {
    hq: usize,
    wq: usize,
}

impl Phases {
    fn of(p: &Conv2d) -> Phases {
        // Output (oy, ox) and tap (ky, kx) read phase row oy + (ky·dil_h)/sh and
        // column ox + (kx·dil_w)/sw; one extra row holds the wide rows' overrun.
        let wq = p.out_w() + ((p.kw - 1) * p.dil_w) / p.stride_w;
        let hq = p.out_h() + ((p.kh - 1) * p.dil_h) / p.stride_h + 1;
        Phases { hq, wq }
    }
    fn plane(&self) -> usize {
        self.hq * self.wq
    }
}

/// Run every channel of `x` (see [`super::quant_conv2d`]).
pub fn run<X: QAct>(p: &Conv2d, q: &QReq, w: &PackedQConv, x: &[X], y: &mut [X]) {
    let (is, os, taps) = (p.h * p.w, p.out_h() * p.out_w(), p.kh * p.kw);
    let g = Phases::of(p);
    let isa = super::isa::current();
    let offs = tap_offsets(p, g);
    let plan = pair_taps(&offs);
    let runs = runs(p, g);
    BUFS.with(|cell| {
        let b = &mut *cell.borrow_mut();
        // Whole chunks of outputs; the phase planes padded to match (one
        // more element for the last neighbour pair).
        let n = (p.out_h() * g.wq).div_ceil(CHUNK) * CHUNK;
        // The paired path stops at the next multiple of 16 instead.
        let n16 = (p.out_h() * g.wq).next_multiple_of(16);
        b.ph.resize(g.plane() * p.stride_h * p.stride_w + CHUNK + 1, 0);
        b.wide.resize(n, 0);
        b.acc.resize(os, 0);
        for img in 0..p.n {
            for c in 0..p.c_in {
                let src = &x[(img * p.c_in + c) * is..(img * p.c_in + c + 1) * is];
                split(p, g, &runs, src, q.x_zero, &mut b.ph);
                let wc = &w.w[c * taps..(c + 1) * taps];
                match isa {
                    Isa::Vnni512 | Isa::AvxVnni | Isa::Avx2 => paired(isa, wc, &plan, n16, b),
                    _ => {
                        b.taps.clear();
                        b.taps.extend(offs.iter().zip(wc).map(|(&o, &w)| (o, w as i16)));
                        channel(&b.ph, &b.taps, &mut b.wide)
                    }
                }
                for (oy, row) in b.acc.chunks_mut(p.out_w()).enumerate() {
                    row.copy_from_slice(&b.wide[oy * g.wq..oy * g.wq + p.out_w()]);
                }
                let out = &mut y[(img * p.c_out + c) * os..(img * p.c_out + c + 1) * os];
                w.epi.finish_row(c, &b.acc, w.bias[c], q, out);
            }
        }
    });
}

/// Per phase column `pc` of a row: (pc, first input column ic0, its phase
/// column index q0, run length n), the same for every row.
type Run = (usize, usize, usize, usize);

/// The runs of [`split`]: phase column pc holds the input columns
/// ic ≡ pc − pad_left (mod sw), at padded position ic + pad_left = pc + sw·q.
fn runs(p: &Conv2d, g: Phases) -> Vec<Run> {
    let sw = p.stride_w;
    (0..sw)
        .filter_map(|pc| {
            let ic0 = (pc + sw - p.pad_left % sw) % sw;
            let q0 = (ic0 + p.pad_left) / sw;
            (ic0 < p.w && q0 < g.wq).then(|| (pc, ic0, q0, (p.w - ic0).div_ceil(sw).min(g.wq - q0)))
        })
        .collect()
}

crate::multiversion! {
    /// The centered plane `src − x_zero` into its phase planes (zeros in the padding).
    fn split<X: QAct>(p: &Conv2d, g: Phases, runs: &[Run], src: &[X], x_zero: i32, ph: &mut [i16]) {
        ph.fill(0);
        let (sh, sw) = (p.stride_h, p.stride_w);
        // Padded row r = iy + pad_top lands in phase row r % sh at r / sh.
        let (mut rq, mut rr) = (p.pad_top / sh, p.pad_top % sh);
        for iy in 0..p.h {
            if rq >= g.hq {
                break;
            }
            let line = &src[iy * p.w..(iy + 1) * p.w];
            for &(pc, ic0, q0, n) in runs {
                let base = (rr * sw + pc) * g.plane() + rq * g.wq + q0;
                let (dst, line) = (&mut ph[base..base + n], &line[ic0..]);
                match sw {
                    1 => crate::map16!(&line[..n], dst, |s| (s.value() - x_zero) as i16),
                    2 => evens(line, dst, x_zero),
                    _ => {
                        for (d, s) in dst.iter_mut().zip(line.iter().step_by(sw)) {
                            *d = (s.value() - x_zero) as i16;
                        }
                    }
                }
            }
            rr += 1;
            if rr == sh {
                (rq, rr) = (rq + 1, 0);
            }
        }
    }
}

/// `dst[k] = line[2k] − x_zero`. On x86_64 with AVX2, u8 values go 16 at a
/// time as the low bytes of 16-bit words (one mask where the portable form
/// gathers bytes one by one); the rest by [`crate::map16_stride2!`].
#[inline(always)]
fn evens<X: QAct>(line: &[X], dst: &mut [i16], x_zero: i32) {
    #[cfg(target_arch = "x86_64")]
    if let Some(bytes) = X::as_biased(line).filter(|_| crate::simd::level() >= 2) {
        let n = dst.len();
        assert!(n == 0 || 2 * n - 1 <= bytes.len(), "depthwise: {} values for {n} even columns", bytes.len());
        // SAFETY: level ≥ 2 means the CPU reported AVX2; the function reads
        // and writes whole blocks inside the slices only.
        #[allow(unsafe_code)]
        let done = unsafe { x86::evens_u8(bytes, dst, x_zero as i16) };
        for (d, &v) in dst[done..].iter_mut().zip(bytes[2 * done..].iter().step_by(2)) {
            *d = v as i16 - x_zero as i16;
        }
        return;
    }
    crate::map16_stride2!(line, dst, |s| (s.value() - x_zero) as i16)
}

/// The output columns `[lo, hi)` whose input column `ox·stride + off` lies in `[0, w)`.
pub(super) fn columns(ow: usize, stride: usize, off: isize, w: usize) -> (usize, usize) {
    let lo = if off < 0 { ((-off) as usize).div_ceil(stride) } else { 0 };
    let hi = if (w as isize) <= off { 0 } else { ((w as isize - off) as usize).div_ceil(stride).min(ow) };
    (lo, hi.max(lo))
}

/// Outputs accumulated in registers at a time (four AVX-512 vectors of i32).
const CHUNK: usize = 64;

crate::multiversion! {
    /// `wide[oy·wq + ox] = Σ_taps w · phase[tap](oy + dy, ox + dx)` over one
    /// channel, `CHUNK` outputs at a time with every tap applied before the
    /// chunk is stored. `wide` is a whole number of chunks; `ph` reaches
    /// `CHUNK` past the last tap's offset plus `wide.len()`.
    fn channel(ph: &[i16], taps: &[(usize, i16)], wide: &mut [i32]) {
        for (base, out) in wide.chunks_exact_mut(CHUNK).enumerate().map(|(i, o)| (i * CHUNK, o)) {
            let mut acc = [0i32; CHUNK];
            for &(off, wv) in taps.iter() {
                let src: &[i16; CHUNK] = ph[off + base..off + base + CHUNK].try_into().expect("chunk");
                // |x − x_zero| ≤ 255 and |w| ≤ 128: the product is exact in i16
                // (32 lanes per AVX-512 multiply), then widened into the sum.
                for (a, &s) in acc.iter_mut().zip(src) {
                    *a = a.wrapping_add(i32::from(s.wrapping_mul(wv)));
                }
            }
            out.copy_from_slice(&acc);
        }
    }
}

/// Each tap's offset in the phase planes, in kernel order.
fn tap_offsets(p: &Conv2d, g: Phases) -> Vec<usize> {
    let mut offs = Vec::with_capacity(p.kh * p.kw);
    for ky in 0..p.kh {
        let ry = ky * p.dil_h;
        for kx in 0..p.kw {
            let cx = kx * p.dil_w;
            let phase = (ry % p.stride_h) * p.stride_w + cx % p.stride_w;
            offs.push(phase * g.plane() + (ry / p.stride_h) * g.wq + cx / p.stride_w);
        }
    }
    offs
}

/// The taps in neighbour pairs, by offset: (offset, tap, its partner one
/// element further if any).
fn pair_taps(offs: &[usize]) -> Vec<(usize, usize, Option<usize>)> {
    let mut by_off: Vec<(usize, usize)> = offs.iter().enumerate().map(|(t, &o)| (o, t)).collect();
    by_off.sort_unstable();
    let mut plan = Vec::with_capacity(by_off.len());
    let mut i = 0;
    while i < by_off.len() {
        let (off, t) = by_off[i];
        let partner = by_off.get(i + 1).filter(|n| n.0 == off + 1).map(|n| n.1);
        plan.push((off, t, partner));
        i += 1 + usize::from(partner.is_some());
    }
    plan
}

/// [`channel`] by neighbour pairs (x86_64 `isa` Avx2 or Vnni512, available),
/// from `b.ph` into `b.wide`.
fn paired(isa: Isa, w: &[i8], plan: &[(usize, usize, Option<usize>)], n16: usize, b: &mut Bufs) {
    // Both weights of a pair as the i16 pair (w_lo, w_hi) of one i32 lane.
    let pack = |t: usize, u: Option<usize>| {
        (w[t] as i16 as u16 as u32 | (u.map_or(0, |u| w[u]) as i16 as u16 as u32) << 16) as i32
    };
    b.pairs.clear();
    b.pairs.extend(plan.iter().map(|&(off, t, u)| (off, pack(t, u))));
    // Only the pairs the taps reach: up to the last offset plus the outputs.
    let last = b.pairs.iter().map(|t| t.0).max().unwrap_or(0);
    let need = (last + n16).min(b.ph.len() - 1);
    b.pv.resize(need, 0);
    pair_plane(&b.ph[..need + 1], &mut b.pv);
    let wide = &mut b.wide[..n16];
    assert!(last + wide.len() <= b.pv.len() && wide.len().is_multiple_of(16), "depthwise: pair plane too short");
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `isa` came from `current()` (the CPU has its features); every
        // load `pv[off + i]` has `i < wide.len()`, checked above.
        #[allow(unsafe_code)]
        match isa {
            Isa::Vnni512 => return unsafe { x86::madd512(&b.pv, &b.pairs, wide) },
            Isa::AvxVnni => return unsafe { x86::madd256_vnni(&b.pv, &b.pairs, wide) },
            Isa::Avx2 => return unsafe { x86::madd256(&b.pv, &b.pairs, wide) },
            _ => {}
        }
    }
    unreachable!("paired depthwise needs x86_64 AVX2 or AVX-512BW, not {isa:?}")
}

crate::multiversion! {
    /// `pv[i] = (ph[i], ph[i + 1])` as the low and high i16 of one i32.
    fn pair_plane(ph: &[i16], pv: &mut [i32]) {
        for (d, (&a, &b)) in pv.iter_mut().zip(ph.iter().zip(&ph[1..])) {
            *d = (a as u16 as u32 | (b as u16 as u32) << 16) as i32;
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::CHUNK;
    use std::arch::x86_64::*;

    /// `dst[k] = bytes[2k] − xz` by blocks of 16 (32 bytes read; the last
    /// block may overlap the one before); returns how many were written.
    #[target_feature(enable = "avx2")]
    pub unsafe fn evens_u8(bytes: &[u8], dst: &mut [i16], xz: i16) -> usize {
        let (mask, z) = (_mm256_set1_epi16(0x00ff), _mm256_set1_epi16(xz));
        let n = dst.len();
        let mut k = 0;
        while k < n {
            // The next whole block, or the one ending at the last output.
            let at = if k + 16 <= n && 2 * k + 32 <= bytes.len() {
                k
            } else if n >= 16 && 2 * n <= bytes.len() {
                n - 16
            } else {
                break;
            };
            // SAFETY: at + 16 <= n and 2·at + 32 <= bytes.len() on both branches.
            let v = _mm256_loadu_si256(bytes.as_ptr().add(2 * at).cast());
            let d = _mm256_sub_epi16(_mm256_and_si256(v, mask), z);
            _mm256_storeu_si256(dst.as_mut_ptr().add(at).cast(), d);
            k = at + 16;
        }
        k
    }

    /// `wide[i] = Σ_pairs madd(pv[off + i], w)`, 64 outputs (4 zmm) at a
    /// time, the rest 16 at a time (`wide.len()` is a multiple of 16):
    /// `vpdpwssd`, the multiply of `vpmaddwd` and the add in one instruction.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn madd512(pv: &[i32], pairs: &[(usize, i32)], wide: &mut [i32]) {
        let whole = wide.len() - wide.len() % CHUNK;
        let dot = |a, v, w| _mm512_dpwssd_epi32(a, v, w);
        block512::<{ CHUNK / 16 }>(pv, pairs, &mut wide[..whole], 0, dot);
        block512::<1>(pv, pairs, &mut wide[whole..], whole, dot);
    }

    /// [`madd512`] over `wide` (starting at output `start`) in blocks of `V`
    /// zmm, each pair's products added by `dot(acc, pairs, weights)`.
    /// Inlined into its caller, which compiles it for its instruction set.
    #[inline(always)]
    unsafe fn block512<const V: usize>(
        pv: &[i32],
        pairs: &[(usize, i32)],
        wide: &mut [i32],
        start: usize,
        dot: impl Fn(__m512i, __m512i, __m512i) -> __m512i,
    ) {
        let src = pv.as_ptr();
        for (base, out) in wide.chunks_exact_mut(16 * V).enumerate().map(|(i, o)| (start + i * 16 * V, o)) {
            let mut acc = [_mm512_setzero_si512(); V];
            for &(off, w) in pairs {
                let wv = _mm512_set1_epi32(w);
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: off + base + 16·V <= pv.len() (the caller's check).
                    let v = _mm512_loadu_si512(src.add(off + base + k * 16).cast());
                    *a = dot(*a, v, wv);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                _mm512_storeu_si512(out.as_mut_ptr().add(k * 16).cast(), *a);
            }
        }
    }

    /// As [`madd512`] with ymm accumulators (8 for 64 outputs, 2 for 16):
    /// `vpmaddwd` and `vpaddd`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn madd256(pv: &[i32], pairs: &[(usize, i32)], wide: &mut [i32]) {
        block256_all(pv, pairs, wide, |a, v, w| _mm256_add_epi32(a, _mm256_madd_epi16(v, w)));
    }

    /// [`madd256`] through AVX-VNNI's `vpdpwssd` on ymm.
    #[target_feature(enable = "avx2,avxvnni")]
    pub unsafe fn madd256_vnni(pv: &[i32], pairs: &[(usize, i32)], wide: &mut [i32]) {
        block256_all(pv, pairs, wide, |a, v, w| _mm256_dpwssd_avx_epi32(a, v, w));
    }

    /// The ymm forms' split into 64-output blocks and a 16-output rest.
    #[inline(always)]
    unsafe fn block256_all(
        pv: &[i32],
        pairs: &[(usize, i32)],
        wide: &mut [i32],
        dot: impl Fn(__m256i, __m256i, __m256i) -> __m256i + Copy,
    ) {
        let whole = wide.len() - wide.len() % CHUNK;
        block256::<{ CHUNK / 8 }>(pv, pairs, &mut wide[..whole], 0, dot);
        block256::<2>(pv, pairs, &mut wide[whole..], whole, dot);
    }

    /// [`madd256`] over `wide` (starting at output `start`) in blocks of `V` ymm.
    #[inline(always)]
    unsafe fn block256<const V: usize>(
        pv: &[i32],
        pairs: &[(usize, i32)],
        wide: &mut [i32],
        start: usize,
        dot: impl Fn(__m256i, __m256i, __m256i) -> __m256i,
    ) {
        let src = pv.as_ptr();
        for (base, out) in wide.chunks_exact_mut(8 * V).enumerate().map(|(i, o)| (start + i * 8 * V, o)) {
            let mut acc = [_mm256_setzero_si256(); V];
            for &(off, w) in pairs {
                let wv = _mm256_set1_epi32(w);
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: as in block512.
                    let v = _mm256_loadu_si256(src.add(off + base + k * 8).cast());
                    *a = dot(*a, v, wv);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                _mm256_storeu_si256(out.as_mut_ptr().add(k * 8).cast(), *a);
            }
        }
    }
}
