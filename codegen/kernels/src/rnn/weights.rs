//! The weight operands W and R, raw or packed once at model construction,
//! and the matrix products the recurrent kernels run with them.

use super::{Cell, Gru, Lstm, Rnn, Shape};
use crate::gemm::{self, Epilogue, Gemm, PackedB};

/// The W and R operands of a recurrent op.
#[derive(Copy, Clone, Debug)]
pub enum Weights<'a> {
    /// The ONNX tensors: W `[dirs, G·hidden, input]`, R `[dirs, G·hidden, hidden]`.
    Raw {
        /// Input weights.
        w: &'a [f32],
        /// Recurrent weights.
        r: &'a [f32],
    },
    /// Packed once ([`PackedWeights::lstm`] and friends), for the op and
    /// sizes they were packed for.
    Packed(&'a PackedWeights),
}

/// W and R of every direction packed for the GEMM micro-kernels (the family
/// current at construction). Invariants: `w` holds one `input × G·hidden`
/// operand per direction; `r` holds, per direction, one operand per part of
/// R's gate rows (the whole of R; for GRU the z/r rows, then the h rows),
/// `hidden × gates·hidden` each, directions in order.
#[derive(Clone, Debug)]
pub struct PackedWeights {
    cell: Cell,
    dirs: usize,
    input: usize,
    hidden: usize,
    w: Vec<PackedB>,
    r: Vec<PackedB>,
}

impl PackedWeights {
    /// Pack an LSTM's W and R (the layouts of [`Weights::Raw`]).
    pub fn lstm(p: &Lstm, w: &[f32], r: &[f32]) -> PackedWeights {
        PackedWeights::new(Cell::Lstm, &p.shape, w, r)
    }
    /// Pack a GRU's W and R.
    pub fn gru(p: &Gru, w: &[f32], r: &[f32]) -> PackedWeights {
        PackedWeights::new(Cell::Gru, &p.shape, w, r)
    }
    /// Pack an RNN's W and R.
    pub fn rnn(p: &Rnn, w: &[f32], r: &[f32]) -> PackedWeights {
        PackedWeights::new(Cell::Rnn, &p.shape, w, r)
    }

    fn new(cell: Cell, s: &Shape, w: &[f32], r: &[f32]) -> PackedWeights {
        check_raw(cell, s, w, r);
        let (hs, gh) = (s.hidden, cell.gates() * s.hidden);
        let mut pw = PackedWeights { cell, dirs: s.dirs(), input: s.input, hidden: hs, w: vec![], r: vec![] };
        for d in 0..s.dirs() {
            let wd = &w[d * gh * s.input..(d + 1) * gh * s.input];
            pw.w.push(PackedB::new(wd, s.input, gh, true));
            let mut row = d * gh;
            for &g in cell.r_parts() {
                pw.r.push(PackedB::new(&r[row * hs..(row + g * hs) * hs], hs, g * hs, true));
                row += g * hs;
            }
        }
        pw
    }
}

/// Assert the raw W and R lengths.
fn check_raw(cell: Cell, s: &Shape, w: &[f32], r: &[f32]) {
    let gh = cell.gates() * s.hidden;
    assert_eq!(w.len(), s.dirs() * gh * s.input, "W has {} elements, {cell:?} {s:?} needs more or fewer", w.len());
    assert_eq!(r.len(), s.dirs() * gh * s.hidden, "R has {} elements, {cell:?} {s:?} needs more or fewer", r.len());
}

/// The right operand of a product `C = A·Bᵀ` with B stored `n × k`.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Mat<'a> {
    Raw { data: &'a [f32], n: usize, k: usize },
    Packed(&'a PackedB),
}

impl Mat<'_> {
    /// Scratch for an `m`-row product with an `n × k` operand, raw or packed.
    pub fn scratch_len(m: usize, n: usize, k: usize) -> usize {
        gemm::scratch_len(&Gemm { m, n, k, trans_a: false, trans_b: true })
    }

    /// `c = ep(a · Bᵀ)` for `a` of `m` rows.
    pub fn product(&self, m: usize, a: &[f32], c: &mut [f32], ep: &Epilogue<'_>, scratch: &mut [f32]) {
        match *self {
            Mat::Raw { data, n, k } => {
                gemm::sgemm(&Gemm { m, n, k, trans_a: false, trans_b: true }, a, data, c, ep, scratch)
            }
            Mat::Packed(b) => gemm::sgemm_packed(m, a, b, c, ep, scratch),
        }
    }
}

impl<'a> Weights<'a> {
    /// Assert that the weights fit `cell` with sizes `s`.
    pub(crate) fn check(&self, cell: Cell, s: &Shape) {
        match *self {
            Weights::Raw { w, r } => check_raw(cell, s, w, r),
            Weights::Packed(p) => assert!(
                (p.cell, p.dirs, p.input, p.hidden) == (cell, s.dirs(), s.input, s.hidden),
                "weights packed for {:?} with {} direction(s), input {}, hidden {} do not fit {cell:?} {s:?}",
                p.cell,
                p.dirs,
                p.input,
                p.hidden
            ),
        }
    }

    /// Direction `d`'s W (`G·hidden × input`).
    pub(crate) fn w(&self, cell: Cell, s: &Shape, d: usize) -> Mat<'a> {
        let gh = cell.gates() * s.hidden;
        match *self {
            Weights::Raw { w, .. } => {
                Mat::Raw { data: &w[d * gh * s.input..(d + 1) * gh * s.input], n: gh, k: s.input }
            }
            Weights::Packed(p) => Mat::Packed(&p.w[d]),
        }
    }

    /// Part `part` of direction `d`'s R (see [`Cell::r_parts`]).
    pub(crate) fn r(&self, cell: Cell, s: &Shape, d: usize, part: usize) -> Mat<'a> {
        let parts = cell.r_parts();
        match *self {
            Weights::Raw { r, .. } => {
                let hs = s.hidden;
                let row = d * cell.gates() * hs + parts[..part].iter().sum::<usize>() * hs;
                let n = parts[part] * hs;
                Mat::Raw { data: &r[row * hs..(row + n) * hs], n, k: hs }
            }
            Weights::Packed(p) => Mat::Packed(&p.r[d * parts.len() + part]),
        }
    }
}
