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

use super::{Conv2d, PackedQConv, QAct, QReq};
use std::cell::RefCell;

std::thread_local! {
    /// (phase planes, wide accumulators, accumulators, results, taps) of the running channel.
    static BUFS: RefCell<Bufs> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new())) };
}

type Bufs = (Vec<i16>, Vec<i32>, Vec<i32>, Vec<i32>, Vec<(usize, i16)>);

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
    BUFS.with(|cell| {
        let (ph, wide, acc, res, tap_list) = &mut *cell.borrow_mut();
        // Whole chunks of outputs; the phase planes padded to match.
        let n = (p.out_h() * g.wq).div_ceil(CHUNK) * CHUNK;
        ph.resize(g.plane() * p.stride_h * p.stride_w + CHUNK, 0);
        wide.resize(n, 0);
        acc.resize(os, 0);
        res.resize(os, 0);
        for b in 0..p.n {
            for c in 0..p.c_in {
                let src = &x[(b * p.c_in + c) * is..(b * p.c_in + c + 1) * is];
                split(p, g, src, q.x_zero, ph);
                channel(p, g, ph, &w.w[c * taps..(c + 1) * taps], tap_list, wide);
                for (oy, row) in acc.chunks_mut(p.out_w()).enumerate() {
                    row.copy_from_slice(&wide[oy * g.wq..oy * g.wq + p.out_w()]);
                }
                let out = &mut y[(b * p.c_out + c) * os..(b * p.c_out + c + 1) * os];
                w.epi.finish_row(c, acc, w.bias[c], q, res);
                for (o, &v) in out.iter_mut().zip(res.iter()) {
                    *o = X::from_i32(v);
                }
            }
        }
    });
}

/// The centered plane `src − x_zero` into its phase planes (zeros in the padding).
fn split<X: QAct>(p: &Conv2d, g: Phases, src: &[X], x_zero: i32, ph: &mut [i16]) {
    ph.fill(0);
    let (sh, sw) = (p.stride_h, p.stride_w);
    for iy in 0..p.h {
        let r = iy + p.pad_top;
        if r / sh >= g.hq {
            break;
        }
        let row_base = |pc: usize| ((r % sh) * sw + pc) * g.plane() + (r / sh) * g.wq;
        let line = &src[iy * p.w..(iy + 1) * p.w];
        if sw == 1 {
            let (base, start) = (row_base(0), p.pad_left);
            let n = p.w.min(g.wq.saturating_sub(start));
            for (d, s) in ph[base + start..base + start + n].iter_mut().zip(line) {
                *d = (s.value() - x_zero) as i16;
            }
            continue;
        }
        let (mut pc, mut qc) = (p.pad_left % sw, p.pad_left / sw);
        for s in line {
            if qc >= g.wq {
                break;
            }
            ph[row_base(pc) + qc] = (s.value() - x_zero) as i16;
            pc += 1;
            if pc == sw {
                (pc, qc) = (0, qc + 1);
            }
        }
    }
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
    fn channel(p: &Conv2d, g: Phases, ph: &[i16], w: &[i8], taps: &mut Vec<(usize, i16)>, wide: &mut [i32]) {
        taps.clear();
        for ky in 0..p.kh {
            let ry = ky * p.dil_h;
            for kx in 0..p.kw {
                let cx = kx * p.dil_w;
                let phase = (ry % p.stride_h) * p.stride_w + cx % p.stride_w;
                let off = phase * g.plane() + (ry / p.stride_h) * g.wq + cx / p.stride_w;
                taps.push((off, w[ky * p.kw + kx] as i16));
            }
        }
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
