//! Operand sources of the blocked GEMM driver and the packed layouts.
//!
//! Packed A (for one block of `mc` rows × `kc` depth) is a sequence of
//! micro-panels of `MR` rows (the last one may be shorter): panel `p` holds,
//! for each depth step, its `rows_p` values contiguously. Packed B is a
//! sequence of `NR`-column micro-panels, each holding `NR` values per depth
//! step, zero-padded past the last column. Pre-packed operands ([`PackedA`],
//! [`PackedB`]) keep the whole depth `K` per panel, so a `kc` block of panel
//! `p` starts at `p · stride + pc · width`.

use super::isa::{self, Isa};
use super::Blocking;
use crate::weights::Section;
use std::borrow::Cow;

/// A view of packed micro-panels: panel `p` of width `w` and depth block
/// `kc` is `data[p·stride + k0·w ..][.. kc·w]`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Panels<'s> {
    pub data: &'s [f32],
    pub stride: usize,
    pub k0: usize,
}

impl<'s> Panels<'s> {
    /// Panel `p` (width `w`) for a depth block of `kc`.
    #[inline]
    pub fn panel(&self, p: usize, w: usize, kc: usize) -> &'s [f32] {
        let s = p * self.stride + self.k0 * w;
        &self.data[s..s + kc * w]
    }
}

/// The left operand of a GEMM, as packed `MR`-row panels.
pub(crate) trait ASource: Sync {
    /// True if the operand is already packed (needs no scratch).
    const PREPACKED: bool;
    /// Panels of rows `rows = (ic, mc)`: `ic..ic + mc`, for depth `depth = (pc, kc)`: `pc..pc + kc`, packing into
    /// `scratch` (at least `mc · kc` long) if needed. `ic` is a multiple of `mr`.
    fn panels<'s>(
        &'s self,
        mr: usize,
        rows: (usize, usize),
        depth: (usize, usize),
        scratch: &'s mut [f32],
    ) -> Panels<'s>;
}

/// The right operand of a GEMM, as packed `NR`-column panels.
pub(crate) trait BSource: Sync {
    /// True if the operand is already packed (needs no scratch).
    const PREPACKED: bool;
    /// Panels of columns `cols = (jc, nc)`: `jc..jc + nc`, for depth `depth = (pc, kc)`: `pc..pc + kc`, packing into
    /// `scratch` (at least `⌈nc/nr⌉·nr·kc` long) if needed. `jc` is a multiple of `nr`.
    fn panels<'s>(
        &'s self,
        nr: usize,
        cols: (usize, usize),
        depth: (usize, usize),
        scratch: &'s mut [f32],
    ) -> Panels<'s>;
}

/// A row-major matrix `X` (or `Xᵀ` stored, if `trans`) with row stride `ld`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Raw<'a> {
    pub data: &'a [f32],
    pub ld: usize,
    pub trans: bool,
}

impl ASource for Raw<'_> {
    const PREPACKED: bool = false;
    fn panels<'s>(&'s self, mr: usize, rows: (usize, usize), depth: (usize, usize), s: &'s mut [f32]) -> Panels<'s> {
        pack_a(self, mr, rows, depth, s);
        Panels { data: s, stride: mr * depth.1, k0: 0 }
    }
}

impl BSource for Raw<'_> {
    const PREPACKED: bool = false;
    fn panels<'s>(&'s self, nr: usize, cols: (usize, usize), depth: (usize, usize), s: &'s mut [f32]) -> Panels<'s> {
        pack_b(self, nr, cols, depth, s);
        Panels { data: s, stride: nr * depth.1, k0: 0 }
    }
}

/// Pack rows `i0..i0+mc`, depth `p0..p0+kc` of A (element `(i, l)`).
pub(crate) fn pack_a(a: &Raw<'_>, mr: usize, (i0, mc): (usize, usize), (p0, kc): (usize, usize), dst: &mut [f32]) {
    for (pi, r0) in (0..mc).step_by(mr).enumerate() {
        let rows = mr.min(mc - r0);
        let panel = &mut dst[pi * mr * kc..pi * mr * kc + rows * kc];
        if a.trans {
            for (l, out) in panel.chunks_exact_mut(rows).enumerate() {
                let s = (p0 + l) * a.ld + i0 + r0;
                out.copy_from_slice(&a.data[s..s + rows]);
            }
        } else {
            for r in 0..rows {
                let s = (i0 + r0 + r) * a.ld + p0;
                for (l, &v) in a.data[s..s + kc].iter().enumerate() {
                    panel[l * rows + r] = v;
                }
            }
        }
    }
}

/// Pack columns `j0..j0+nc`, depth `p0..p0+kc` of B (element `(l, j)`),
/// zero-padding the last panel to `nr` columns.
pub(crate) fn pack_b(b: &Raw<'_>, nr: usize, (j0, nc): (usize, usize), (p0, kc): (usize, usize), dst: &mut [f32]) {
    for (pj, c0) in (0..nc).step_by(nr).enumerate() {
        let cols = nr.min(nc - c0);
        let panel = &mut dst[pj * nr * kc..(pj + 1) * nr * kc];
        if b.trans {
            if cols < nr {
                panel.fill(0.0);
            }
            for c in 0..cols {
                let s = (j0 + c0 + c) * b.ld + p0;
                for (l, &v) in b.data[s..s + kc].iter().enumerate() {
                    panel[l * nr + c] = v;
                }
            }
        } else {
            for (l, out) in panel.chunks_exact_mut(nr).enumerate() {
                let s = (p0 + l) * b.ld + j0 + c0;
                out[..cols].copy_from_slice(&b.data[s..s + cols]);
                out[cols..].fill(0.0);
            }
        }
    }
}

/// `x` advanced to the first 64-byte aligned element (at most 15 skipped).
pub(crate) fn align64(x: &mut [f32]) -> &mut [f32] {
    let skip = ((64 - (x.as_ptr() as usize) % 64) % 64) / std::mem::size_of::<f32>();
    let skip = skip.min(x.len());
    &mut x[skip..]
}

/// Elements reserved for [`align64`].
pub(crate) const ALIGN_PAD: usize = 16;

/// Storage of a pre-packed operand: an owned buffer, 64-byte aligned from
/// `off`, or panels packed when the model was compiled, used in place.
#[derive(Clone, Debug)]
struct Store {
    buf: Section<f32>,
    off: usize,
}

impl Store {
    fn new(len: usize) -> Store {
        let mut buf = vec![0.0f32; len + ALIGN_PAD];
        let off = buf.len() - align64(&mut buf).len();
        Store { buf: Cow::Owned(buf), off }
    }
    fn get(&self) -> &[f32] {
        &self.buf[self.off..]
    }
    fn get_mut(&mut self) -> &mut [f32] {
        &mut self.buf.to_mut()[self.off..]
    }
}

/// Elements a prepacked piece is padded to (64 bytes: each piece of a
/// compiled blob starts where [`align64`] would put it).
pub const PIECE_ALIGN: usize = 16;

/// `data` cut into pieces of `lens` elements, each starting at a multiple
/// of [`PIECE_ALIGN`]; `None` if `data` is not exactly that long.
pub(crate) fn pieces(data: &Section<f32>, lens: &[usize]) -> Option<Vec<Section<f32>>> {
    let total: usize = lens.iter().map(|l| l.next_multiple_of(PIECE_ALIGN)).sum();
    if data.len() != total {
        return None;
    }
    let mut at = 0;
    Some(
        lens.iter()
            .map(|&l| {
                let p = crate::weights::part(data, at, l);
                at += l.next_multiple_of(PIECE_ALIGN);
                p
            })
            .collect(),
    )
}

/// `pieces` concatenated, each padded with zeros to [`PIECE_ALIGN`] (the
/// layout [`pieces`] reads).
pub(crate) fn join_pieces(pieces: &[&[f32]]) -> Vec<f32> {
    let mut out = Vec::new();
    for p in pieces {
        out.extend_from_slice(p);
        out.resize(out.len().next_multiple_of(PIECE_ALIGN), 0.0);
    }
    out
}

/// B (`k × n`) packed once for one micro-kernel family: the one current at
/// construction ([`PackedB::new`], see [`isa::current`]) or the one the
/// compiler packed for ([`PackedB::prepacked`]); every product with it uses
/// that family. Layout: `⌈n/NR⌉` panels of `NR × k` values (see the module docs).
#[derive(Clone, Debug)]
pub struct PackedB {
    store: Store,
    isa: Isa,
    nr: usize,
    k: usize,
    n: usize,
}

impl PackedB {
    /// Pack `b`: `k × n` row-major, or `n × k` row-major if `trans_b`, for
    /// the family current on this thread.
    pub fn new(b: &[f32], k: usize, n: usize, trans_b: bool) -> PackedB {
        PackedB::new_for(isa::current(), b, k, n, trans_b)
    }
    /// Pack `b` as [`PackedB::new`] does, for `isa`'s kernel (which need not
    /// run here: the compiler packs for the target's).
    pub fn new_for(isa: Isa, b: &[f32], k: usize, n: usize, trans_b: bool) -> PackedB {
        assert_eq!(b.len(), k * n, "B has {} elements, expected k·n = {k}·{n}", b.len());
        let nr = Blocking::of(isa).nr;
        let panels = n.div_ceil(nr);
        let mut store = Store::new(panels * nr * k);
        let raw = Raw { data: b, ld: if trans_b { k } else { n }, trans: trans_b };
        let dst = store.get_mut();
        for p in 0..panels {
            let cols = nr.min(n - p * nr);
            pack_b(&raw, nr, (p * nr, cols), (0, k), &mut dst[p * nr * k..(p + 1) * nr * k]);
        }
        PackedB { store, isa, nr, k, n }
    }
    /// The panels as the compiler stores them (see [`PackedB::prepacked`]).
    pub fn blob(&self) -> Vec<f32> {
        join_pieces(&[&self.store.get()[..self.packed_len()]])
    }
    fn packed_len(&self) -> usize {
        self.n.div_ceil(self.nr) * self.nr * self.k
    }
    /// B packed for `isa` when the model was compiled ([`PackedB::blob`]):
    /// used in place if `isa`'s kernel runs here, else unpacked and packed
    /// again for the family current here. Errs if `blob` does not fit.
    pub fn prepacked(isa: Isa, blob: Section<f32>, k: usize, n: usize) -> Result<PackedB, crate::rt::Error> {
        let nr = Blocking::of(isa).nr;
        let len = n.div_ceil(nr) * nr * k;
        let bad =
            || crate::rt::Error(format!("packed B: {} values do not hold {k}×{n} for {}", blob.len(), isa.name()));
        let buf = pieces(&blob, &[len]).ok_or_else(bad)?.remove(0);
        let packed = PackedB { store: Store { buf, off: 0 }, isa, nr, k, n };
        if isa.available() {
            return Ok(packed);
        }
        Ok(PackedB::new(&packed.unpack(), k, n, false))
    }
    /// The logical B, `k × n` row-major.
    fn unpack(&self) -> Vec<f32> {
        let (k, n, nr) = (self.k, self.n, self.nr);
        let mut b = vec![0.0; k * n];
        for (p, panel) in self.store.get()[..self.packed_len()].chunks_exact(nr * k).enumerate() {
            for (l, row) in panel.chunks_exact(nr).enumerate() {
                let cols = nr.min(n - p * nr);
                b[l * n + p * nr..l * n + p * nr + cols].copy_from_slice(&row[..cols]);
            }
        }
        b
    }
    /// Depth (rows of the logical B).
    pub fn k(&self) -> usize {
        self.k
    }
    /// Columns of the logical B.
    pub fn n(&self) -> usize {
        self.n
    }
    /// The micro-kernel family it was packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }
    /// Columns per panel.
    pub(crate) fn nr(&self) -> usize {
        self.nr
    }
    /// The panels (see the type's docs).
    pub(crate) fn data(&self) -> &[f32] {
        self.store.get()
    }
}

impl BSource for PackedB {
    const PREPACKED: bool = true;
    fn panels<'s>(
        &'s self,
        nr: usize,
        (jc, _): (usize, usize),
        (pc, _): (usize, usize),
        _: &'s mut [f32],
    ) -> Panels<'s> {
        debug_assert!(nr == self.nr && jc % nr == 0);
        let stride = self.nr * self.k;
        Panels { data: &self.store.get()[jc / nr * stride..], stride, k0: pc }
    }
}

/// A (`m × k`) packed once for one micro-kernel family (at construction or
/// by the compiler: [`PackedA::from_packed`]), as `⌈m/MR⌉` panels of `MR × k` values (the last one
/// `(m mod MR) × k` if shorter). Used for constant left operands (conv weights).
#[derive(Clone, Debug)]
pub(crate) struct PackedA {
    store: Store,
    isa: Isa,
    mr: usize,
    m: usize,
    k: usize,
}

impl PackedA {
    /// Pack `a` (`m × k` row-major with row stride `lda`) for `isa`'s kernel
    /// (which need not run here).
    pub fn new_for(isa: Isa, a: &[f32], m: usize, k: usize, lda: usize) -> PackedA {
        let mr = Blocking::of(isa).mr;
        let mut store = Store::new(m * k);
        pack_a(&Raw { data: a, ld: lda, trans: false }, mr, (0, m), (0, k), store.get_mut());
        PackedA { store, isa, mr, m, k }
    }
    /// Packed for `isa` elsewhere: `data` holds `m · k` values in `isa`'s layout.
    pub fn from_packed(isa: Isa, data: Section<f32>, m: usize, k: usize) -> PackedA {
        debug_assert_eq!(data.len(), m * k);
        PackedA { store: Store { buf: data, off: 0 }, isa, mr: Blocking::of(isa).mr, m, k }
    }
    /// The panels (`m · k` values).
    pub fn packed(&self) -> &[f32] {
        &self.store.get()[..self.m * self.k]
    }
    /// The logical A, `m × k` row-major (the inverse of packing).
    pub fn unpack(&self) -> Vec<f32> {
        let (m, k, mr) = (self.m, self.k, self.mr);
        let mut a = vec![0.0; m * k];
        for (pi, r0) in (0..m).step_by(mr).enumerate() {
            let rows = mr.min(m - r0);
            let panel = &self.store.get()[pi * mr * k..pi * mr * k + rows * k];
            for (l, col) in panel.chunks_exact(rows).enumerate() {
                for (r, &v) in col.iter().enumerate() {
                    a[(r0 + r) * k + l] = v;
                }
            }
        }
        a
    }
    /// Rows.
    pub fn m(&self) -> usize {
        self.m
    }
    /// Depth.
    pub fn k(&self) -> usize {
        self.k
    }
    /// The micro-kernel family it was packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }
    /// Rows per panel.
    pub(crate) fn mr(&self) -> usize {
        self.mr
    }
    /// The panels (see the type's docs).
    pub(crate) fn data(&self) -> &[f32] {
        self.store.get()
    }
}

impl ASource for PackedA {
    const PREPACKED: bool = true;
    fn panels<'s>(
        &'s self,
        mr: usize,
        (ic, _): (usize, usize),
        (pc, _): (usize, usize),
        _: &'s mut [f32],
    ) -> Panels<'s> {
        debug_assert!(mr == self.mr && ic % mr == 0);
        let stride = self.mr * self.k;
        Panels { data: &self.store.get()[ic / mr * stride..], stride, k0: pc }
    }
}
