//! The sequence bookkeeping the three cells share: operand checks, which
//! time each step visits, X/Y/state offsets in both layouts, the input
//! projection and scratch partitioning.

use super::weights::Mat;
use super::{Cell, Layout, Shape};
use crate::gemm::{Bias, Epilogue};

/// A checked recurrent call. Invariants: every operand length fits `s`, and
/// every sequence length is in `0..=s.seq`; `steps` is the largest of them.
pub(crate) struct Seq<'a> {
    pub s: Shape,
    /// Gate rows per direction (`G · hidden`).
    pub gh: usize,
    /// Steps of the longest sequence.
    pub steps: usize,
    lens: Option<&'a [i64]>,
}

/// The operands every cell checks the same way.
pub(crate) struct Common<'a> {
    pub x: &'a [f32],
    pub b: Option<&'a [f32]>,
    pub seq_lens: Option<&'a [i64]>,
    pub h0: Option<&'a [f32]>,
}

impl<'a> Seq<'a> {
    /// Check the shared operands and outputs of a `cell` call with sizes `s`.
    /// Panics on a length mismatch or a sequence length outside `0..=seq`.
    pub fn new(cell: Cell, s: &Shape, ops: &Common<'a>, y: Option<&[f32]>, states: [Option<&[f32]>; 2]) -> Seq<'a> {
        let gh = cell.gates() * s.hidden;
        assert_eq!(ops.x.len(), s.x_len(), "X has {} elements, {s:?} needs {}", ops.x.len(), s.x_len());
        if let Some(b) = ops.b {
            assert_eq!(b.len(), s.dirs() * 2 * gh, "B has {} elements, {cell:?} {s:?} needs more or fewer", b.len());
        }
        if let Some(h0) = ops.h0 {
            assert_eq!(h0.len(), s.state_len(), "initial_h has {} elements, {s:?} needs {}", h0.len(), s.state_len());
        }
        if let Some(y) = y {
            assert_eq!(y.len(), s.y_len(), "Y has {} elements, {s:?} needs {}", y.len(), s.y_len());
        }
        for st in states.into_iter().flatten() {
            assert_eq!(st.len(), s.state_len(), "a state output has {} elements, {s:?} needs more or fewer", st.len());
        }
        let steps = match ops.seq_lens {
            Some(l) => {
                assert_eq!(l.len(), s.batch, "sequence_lens has {} entries for batch {}", l.len(), s.batch);
                let bad = l.iter().find(|&&v| v < 0 || v as u64 > s.seq as u64);
                assert!(bad.is_none(), "sequence length {bad:?} is out of range [0, {}]", s.seq);
                l.iter().map(|&v| v as usize).max().unwrap_or(0)
            }
            None => s.seq,
        };
        Seq { s: *s, gh, steps, lens: ops.seq_lens }
    }

    /// Steps of sequence `b`.
    pub fn len(&self, b: usize) -> usize {
        self.lens.map_or(self.s.seq, |l| l[b] as usize)
    }

    /// The time step `k` of direction `d` visits in sequence `b`, if `b` is
    /// still running.
    pub fn time(&self, d: usize, k: usize, b: usize) -> Option<usize> {
        let len = self.len(b);
        (k < len).then(|| if self.s.direction.is_reverse(d) { len - 1 - k } else { k })
    }

    /// The row of X (and of its projection) holding time `t` of sequence `b`.
    pub fn x_row(&self, t: usize, b: usize) -> usize {
        match self.s.layout {
            Layout::SeqFirst => t * self.s.batch + b,
            Layout::BatchFirst => b * self.s.seq + t,
        }
    }

    /// Offset of direction `d`, sequence `b` in a state tensor.
    fn state_off(&self, d: usize, b: usize) -> usize {
        let s = &self.s;
        match s.layout {
            Layout::SeqFirst => (d * s.batch + b) * s.hidden,
            Layout::BatchFirst => (b * s.dirs() + d) * s.hidden,
        }
    }

    /// Direction `d`'s `[batch, hidden]` state from `src` (zeros if absent).
    pub fn load_state(&self, src: Option<&[f32]>, d: usize, dst: &mut [f32]) {
        let hs = self.s.hidden;
        for (b, row) in dst.chunks_exact_mut(hs.max(1)).take(self.s.batch).enumerate() {
            match src {
                Some(src) => row.copy_from_slice(&src[self.state_off(d, b)..][..hs]),
                None => row.fill(0.0),
            }
        }
    }

    /// Store direction `d`'s `[batch, hidden]` state `src` into `dst`, if wanted.
    pub fn store_state(&self, src: &[f32], d: usize, dst: &mut Option<&mut [f32]>) {
        let (Some(dst), hs) = (dst.as_deref_mut(), self.s.hidden) else { return };
        for b in 0..self.s.batch {
            dst[self.state_off(d, b)..][..hs].copy_from_slice(&src[b * hs..(b + 1) * hs]);
        }
    }

    /// Store `h`, the state of sequence `b` at time `t` of direction `d`, into Y.
    pub fn store_y(&self, y: &mut Option<&mut [f32]>, t: usize, d: usize, b: usize, h: &[f32]) {
        let Some(y) = y.as_deref_mut() else { return };
        let s = &self.s;
        let off = match s.layout {
            Layout::SeqFirst => ((t * s.dirs() + d) * s.batch + b) * s.hidden,
            Layout::BatchFirst => ((b * s.seq + t) * s.dirs() + d) * s.hidden,
        };
        y[off..off + s.hidden].copy_from_slice(h);
    }

    /// Direction `d`'s input and recurrent biases (`Wb`, `Rb`) of `b`.
    pub fn biases<'b>(&self, b: Option<&'b [f32]>, d: usize) -> (Option<&'b [f32]>, Option<&'b [f32]>) {
        let gh = self.gh;
        (b.map(|b| &b[d * 2 * gh..d * 2 * gh + gh]), b.map(|b| &b[d * 2 * gh + gh..(d + 1) * 2 * gh]))
    }

    /// `gx = X·Wᵀ + wb` for every row of X (`seq·batch × G·hidden`).
    pub fn project(&self, x: &[f32], w: Mat<'_>, wb: Option<&[f32]>, gx: &mut [f32], scratch: &mut [f32]) {
        let ep = Epilogue { bias: wb.map_or(Bias::None, Bias::PerCol), ..Epilogue::default() };
        w.product(self.s.seq * self.s.batch, x, gx, &ep, scratch);
    }
}

/// Scratch of a projection `seq·batch × gh` plus buffers of `bufs` elements
/// plus GEMM scratch for recurrent products with at most `gh` columns.
pub(crate) fn scratch_len(cell: Cell, s: &Shape, bufs: usize) -> usize {
    let gh = cell.gates() * s.hidden;
    let gemm = Mat::scratch_len(s.seq * s.batch, gh, s.input).max(Mat::scratch_len(s.batch, gh, s.hidden));
    s.seq * s.batch * gh + bufs + gemm
}

/// Split the front of `scratch` into `N` buffers of the given lengths; the
/// rest is returned last. Panics if `scratch` is too short.
pub(crate) fn carve<const N: usize>(scratch: &mut [f32], lens: [usize; N]) -> ([&mut [f32]; N], &mut [f32]) {
    let need: usize = lens.iter().sum();
    assert!(scratch.len() >= need, "recurrent scratch has {} elements, needs at least {need}", scratch.len());
    let mut rest = scratch;
    let bufs = lens.map(|n| {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
        rest = tail;
        head
    });
    (bufs, rest)
}
