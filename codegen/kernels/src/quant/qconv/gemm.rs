//! One group's integer GEMM: packed weight blocks × packed im2col panels,
//! each micro-kernel tile requantized as it leaves the kernel.
//!
//! Order: the panels are taken in chunks that fit the L1 data cache
//! ([`CHUNK_BYTES`]); within a chunk every weight block meets every panel
//! pair, so the kernel's wide operand (64 bytes per step and panel) comes
//! from L1 and only the weight broadcasts (4 bytes per step and row) stream
//! from L2. The sums never leave the tile: its epilogue writes the outputs.

use super::{micro, pack, Isa, PackedQConv, QAct, QReq, Tile, MR, NR};
use crate::conv::Conv2d;

/// Panel bytes per chunk: most of a 32–48 KiB L1 data cache, leaving room
/// for the weight block and the tile.
const CHUNK_BYTES: usize = 32 * 1024;

/// Panels per chunk for a GEMM depth of `k4` (even, at least 2: the kernel
/// takes panels in pairs).
fn chunk_panels(k4: usize) -> usize {
    (CHUNK_BYTES / (pack::panel_steps(k4) * NR * 4)).max(2) & !1
}

/// `yg` (`mg` planes of `os` values) = the requantized GEMM of group `g`'s
/// weights with `panels` (`ceil(os / NR)` panels of `w.k4 / 4` steps,
/// [`pack::panel_steps`] apart).
#[allow(clippy::too_many_arguments)]
pub(super) fn run<X: QAct>(
    isa: Isa,
    p: &Conv2d,
    q: &QReq,
    w: &PackedQConv,
    g: usize,
    panels: &[u8],
    os: usize,
    yg: &mut [X],
) {
    let mg = p.c_out / p.groups;
    let (steps, blocks, npanels) = (w.k4 / 4, mg.div_ceil(MR), os.div_ceil(NR));
    let zb = q.x_zero + X::BIAS;
    let split = isa == Isa::Avx2 && !w.bytes_fit;
    let all_pairs: &[u32] = if split { w.pairs.get_or_init(|| micro::split_pairs(&w.a)) } else { &[] };
    let mut tile: Tile = [0; MR * 2 * NR];
    let stride = pack::panel_steps(w.k4) * NR * 4;
    let panel = |i: usize| &panels[i * stride..i * stride + steps * NR * 4];
    let chunk = chunk_panels(w.k4);
    for c0 in (0..npanels).step_by(chunk) {
        let c1 = (c0 + chunk).min(npanels);
        for blk in 0..blocks {
            let at = (g * blocks + blk) * MR * w.k4;
            let a = &w.a[at..at + MR * w.k4];
            let pairs = all_pairs.get(at / 2..(at + MR * w.k4) / 2).filter(|_| split);
            let (m0, rows) = (g * mg + blk * MR, MR.min(mg - blk * MR));
            let mut corr = [0i32; MR];
            for (r, c) in corr[..rows].iter_mut().enumerate() {
                *c = w.bias[m0 + r].wrapping_add((isa.offset() - zb).wrapping_mul(w.rowsum[m0 + r]));
            }
            for pn in (c0..c1).step_by(2) {
                let two = pn + 1 < c1;
                micro::run(isa, steps, a, pairs, panel(pn), panel(if two { pn + 1 } else { pn }), &mut tile);
                let n = (if two { 2 * NR } else { NR }).min(os - pn * NR);
                let out = &mut yg[blk * MR * os + pn * NR..];
                w.epi.finish_tile(m0, &tile, n, &corr[..rows], q, out, os);
            }
        }
    }
}
