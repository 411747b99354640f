//! The cache-blocked GEMM loop nest (GotoBLAS/BLIS structure):
//!
//! ```text
//! for jc in N by NC:            B block (KC × NC) packed, lives in L2
//!   for pc in K by KC:
//!     for ic in M by MC:        A block (MC × KC) packed
//!       for ir in MC by MR:     A micro-panel (MR × KC) stays in L1
//!         for jr in NC by NR:   B micro-panel streamed from L2
//!           micro-kernel (MR × NR tile of C, in registers)
//! ```
//!
//! The first depth block overwrites C, later ones accumulate; the epilogue
//! runs on each tile after its last depth block. With `k == 0` C is the
//! epilogue of a zero product.

use super::epilogue::Epilogue;
use super::kernel::{MicroKernel, Tile};
use super::pack::{align64, ASource, BSource, ALIGN_PAD};

/// Problem size and the C layout: C is `m × n` with row stride `ldc`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Dims {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub ldc: usize,
}

/// Scratch (f32 elements) that [`run`] needs for `K` with these sources.
pub(crate) fn scratch_len<K: MicroKernel>(d: Dims, a_packed: bool, b_packed: bool) -> usize {
    let kc = K::KC.min(d.k);
    let b = if b_packed { 0 } else { K::NC.min(d.n).div_ceil(K::NR) * K::NR * kc + ALIGN_PAD };
    let a = if a_packed { 0 } else { K::MC.min(d.m) * kc + ALIGN_PAD };
    b + a
}

/// `C = ep(A · B)` with micro-kernel `kern`. Panics if C or scratch is too short.
pub(crate) fn run<K: MicroKernel, A: ASource, B: BSource>(
    kern: K,
    d: Dims,
    a: &A,
    b: &B,
    c: &mut [f32],
    ep: &Epilogue<'_>,
    scratch: &mut [f32],
) {
    if d.m == 0 || d.n == 0 {
        return;
    }
    assert!(d.n <= d.ldc || d.m == 1, "ldc {} < n {}", d.ldc, d.n);
    assert!(c.len() >= (d.m - 1) * d.ldc + d.n, "C has {} elements, {d:?} needs more", c.len());
    ep.check(d.m, d.n);
    let need = scratch_len::<K>(d, A::PREPACKED, B::PREPACKED);
    assert!(scratch.len() >= need, "GEMM scratch has {} elements, needs {need}", scratch.len());
    if d.k == 0 {
        for i in 0..d.m {
            c[i * d.ldc..i * d.ldc + d.n].fill(0.0);
        }
        ep.apply(c, d.ldc, d.n, (0, d.m), (0, d.n));
        return;
    }
    let b_len = if B::PREPACKED { 0 } else { K::NC.min(d.n).div_ceil(K::NR) * K::NR * K::KC.min(d.k) + ALIGN_PAD };
    let (bs, as_) = scratch.split_at_mut(b_len);
    let bs = align64(bs);
    for jc in (0..d.n).step_by(K::NC) {
        let nc = K::NC.min(d.n - jc);
        for pc in (0..d.k).step_by(K::KC) {
            let kc = K::KC.min(d.k - pc);
            let bp = b.panels(K::NR, (jc, nc), (pc, kc), bs);
            for ic in (0..d.m).step_by(K::MC) {
                let mc = K::MC.min(d.m - ic);
                let ap = a.panels(K::MR, (ic, mc), (pc, kc), as_);
                for (pi, ir) in (0..mc).step_by(K::MR).enumerate() {
                    let rows = K::MR.min(mc - ir);
                    let apanel = ap.panel(pi, rows, kc);
                    for (pj, jr) in (0..nc).step_by(K::NR).enumerate() {
                        let cols = K::NR.min(nc - jr);
                        let (i, j) = (ic + ir, jc + jr);
                        let t = Tile { rows, cols, k: kc, ldc: d.ldc, accumulate: pc > 0 };
                        kern.tile(t, apanel, bp.panel(pj, K::NR, kc), &mut c[i * d.ldc + j..]);
                        if pc + kc == d.k {
                            ep.apply(c, d.ldc, d.n, (i, rows), (j, cols));
                        }
                    }
                }
            }
        }
    }
}
