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
use crate::threads::{self, SendPtr};

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

/// `C = ep(A · B)` with micro-kernel `kern`, split across the installed
/// thread pool when it has threads and the product is large enough (see
/// [`split`]). Panics if C or scratch is too short.
pub(crate) fn run<K: MicroKernel + Sync, A: ASource, B: BSource>(
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
    if d.k == 0 {
        for i in 0..d.m {
            c[i * d.ldc..i * d.ldc + d.n].fill(0.0);
        }
        ep.apply(c, d.ldc, d.n, (0, d.m), (0, d.n));
        return;
    }
    let full = Part { rows: (0, d.m), cols: (0, d.n) };
    let parts = split::<K>(d, threads::current_threads());
    let out = COut { ptr: SendPtr(c.as_mut_ptr()), len: c.len() };
    if parts.len() < 2 {
        assert!(scratch.len() >= need, "GEMM scratch has {} elements, needs {need}", scratch.len());
        return run_part(kern, d, a, b, &out, ep, scratch, full);
    }
    threads::run_with_scratch(parts.len(), need, &|t, s| run_part(kern, d, a, b, &out, ep, s, parts.get(t, d)));
}

/// Fewest multiply-adds worth splitting across threads (a few microseconds
/// of one core's work: waking a worker costs about one).
const PAR_MIN_MACS: usize = 1 << 18;

/// How a product splits into one part per thread: whole `MR`-row or
/// `NR`-column tiles (so every tile, and every element's arithmetic, is the
/// one the unsplit loop computes), along the axis whose largest part is
/// smallest (columns on a tie: B is packed per part without overlap, and
/// conv's B is the im2col gather).
fn split<K: MicroKernel>(d: Dims, threads: usize) -> Split {
    if threads < 2 || d.m.saturating_mul(d.n).saturating_mul(d.k) < PAR_MIN_MACS {
        return Split { rows: false, unit: 0, count: 1 };
    }
    let plan = |len: usize, tile: usize| {
        let per = len.div_ceil(tile).div_ceil(threads) * tile;
        (per, len.div_ceil(per))
    };
    let (cper, ccount) = plan(d.n, K::NR);
    let (rper, rcount) = plan(d.m, K::MR);
    if cper.min(d.n) * d.m <= rper.min(d.m) * d.n {
        Split { rows: false, unit: cper, count: ccount }
    } else {
        Split { rows: true, unit: rper, count: rcount }
    }
}

/// `count` parts of `unit` rows or columns each (the last may be shorter).
struct Split {
    rows: bool,
    unit: usize,
    count: usize,
}

impl Split {
    fn len(&self) -> usize {
        self.count
    }
    fn get(&self, t: usize, d: Dims) -> Part {
        let (len, at) = if self.rows { (d.m, t * self.unit) } else { (d.n, t * self.unit) };
        let range = (at, (at + self.unit).min(len));
        if self.rows {
            Part { rows: range, cols: (0, d.n) }
        } else {
            Part { rows: (0, d.m), cols: range }
        }
    }
}

/// Rows `rows.0..rows.1` and columns `cols.0..cols.1` of C.
#[derive(Copy, Clone, Debug)]
struct Part {
    rows: (usize, usize),
    cols: (usize, usize),
}

/// C as the parts of one product share it (each writes its own tiles).
struct COut {
    ptr: SendPtr<f32>,
    len: usize,
}

impl COut {
    /// The `rows × cols` tile at `(i, j)`, as a slice from its first to its
    /// last element.
    #[allow(clippy::mut_from_ref)]
    fn tile(&self, d: Dims, (i, rows): (usize, usize), (j, cols): (usize, usize)) -> &mut [f32] {
        let (at, len) = (i * d.ldc + j, (rows - 1) * d.ldc + cols);
        assert!(at + len <= self.len, "tile ({i}, {j}) of {rows}×{cols} past C's {} elements", self.len);
        // SAFETY: in bounds (checked); the tiles of a product are disjoint
        // element sets, each computed by exactly one part (`split`), and a
        // part touches only its tile's elements through this slice, never
        // the other parts' columns that lie between its rows.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.get().add(at), len)
        }
    }
}

/// The loop nest over one part of C.
#[allow(clippy::too_many_arguments)]
fn run_part<K: MicroKernel, A: ASource, B: BSource>(
    kern: K,
    d: Dims,
    a: &A,
    b: &B,
    c: &COut,
    ep: &Epilogue<'_>,
    scratch: &mut [f32],
    part: Part,
) {
    let (m0, m1) = part.rows;
    let (n0, n1) = part.cols;
    let b_len = if B::PREPACKED { 0 } else { K::NC.min(d.n).div_ceil(K::NR) * K::NR * K::KC.min(d.k) + ALIGN_PAD };
    let (bs, as_) = scratch.split_at_mut(b_len);
    let bs = align64(bs);
    for jc in (n0..n1).step_by(K::NC) {
        let nc = K::NC.min(n1 - jc);
        for pc in (0..d.k).step_by(K::KC) {
            let kc = K::KC.min(d.k - pc);
            let bp = b.panels(K::NR, (jc, nc), (pc, kc), bs);
            for ic in (m0..m1).step_by(K::MC) {
                let mc = K::MC.min(m1 - ic);
                let ap = a.panels(K::MR, (ic, mc), (pc, kc), as_);
                for (pi, ir) in (0..mc).step_by(K::MR).enumerate() {
                    let rows = K::MR.min(mc - ir);
                    let apanel = ap.panel(pi, rows, kc);
                    for (pj, jr) in (0..nc).step_by(K::NR).enumerate() {
                        let cols = K::NR.min(nc - jr);
                        let (i, j) = (ic + ir, jc + jr);
                        let t = Tile { rows, cols, k: kc, ldc: d.ldc, accumulate: pc > 0 };
                        let ct = c.tile(d, (i, rows), (j, cols));
                        kern.tile(t, apanel, bp.panel(pj, K::NR, kc), ct);
                        if pc + kc == d.k {
                            ep.apply_block(ct, d.ldc, d.n, (i, rows), (j, cols));
                        }
                    }
                }
            }
        }
    }
}
