//! `onnx.LSTM`: gates i, o, f, c (that order in W, R and B), peepholes
//! `P = [Pi, Po, Pf]`:
//!
//! ```text
//! i = f(Xi + Hi + Pi ⊙ C),  f_ = f(Xf + Hf + Pf ⊙ C)   (input_forget: f_ = 1 − i)
//! C' = f_ ⊙ C + i ⊙ g(Xc + Hc)
//! o = f(Xo + Ho + Po ⊙ C'),  H' = o ⊙ h(C')
//! ```
//! with `X· = X·Wᵀ + Wb`, `H· = H·Rᵀ + Rb` per gate, each pre-activation
//! clipped when `clip` is set (C' itself is not).

use super::seq::{self, carve, Common, Seq};
use super::{clip, Activation, Cell, Lstm, Weights};
use crate::gemm::{Bias, Epilogue};

/// Scratch elements [`lstm`] needs for `p`.
pub fn lstm_scratch_len(p: &Lstm) -> usize {
    let s = &p.shape;
    seq::scratch_len(Cell::Lstm, s, s.batch * s.hidden * (4 + 2))
}

/// The per-call buffers (carved from the scratch).
struct Bufs<'s> {
    /// Input projection, `seq·batch × 4·hidden`.
    gx: &'s mut [f32],
    /// Recurrent products of one step, `batch × 4·hidden`.
    gh: &'s mut [f32],
    /// Hidden and cell state, `batch × hidden` each.
    h: &'s mut [f32],
    c: &'s mut [f32],
    /// GEMM scratch.
    gs: &'s mut [f32],
}

/// `onnx.LSTM` (see the [module docs](super) for operand layouts).
///
/// Operands: `x`, `w` (W and R), `b`, `seq_lens`, `h0`/`c0` (initial_h/c),
/// `peep` (P); outputs `y`, `y_h`, `y_c`, each computed only if given (Y is
/// zero past each sequence's length). Asserts every length and
/// `scratch.len() >= lstm_scratch_len(p)`; panics on a sequence length
/// outside `0..=seq`.
pub fn lstm(
    p: &Lstm,
    x: &[f32],
    w: Weights<'_>,
    b: Option<&[f32]>,
    seq_lens: Option<&[i64]>,
    h0: Option<&[f32]>,
    c0: Option<&[f32]>,
    peep: Option<&[f32]>,
    mut y: Option<&mut [f32]>,
    mut y_h: Option<&mut [f32]>,
    mut y_c: Option<&mut [f32]>,
    scratch: &mut [f32],
) {
    let s = &p.shape;
    let sq = Seq::new(Cell::Lstm, s, &Common { x, b, seq_lens, h0 }, y.as_deref(), [y_h.as_deref(), y_c.as_deref()]);
    w.check(Cell::Lstm, s);
    if let Some(c0) = c0 {
        assert_eq!(c0.len(), s.state_len(), "initial_c has {} elements, {s:?} needs {}", c0.len(), s.state_len());
    }
    if let Some(peep) = peep {
        assert_eq!(peep.len(), s.dirs() * 3 * s.hidden, "P has {} elements, {s:?} needs more or fewer", peep.len());
    }
    if let Some(y) = y.as_deref_mut() {
        y.fill(0.0);
    }
    let bh = s.batch * s.hidden;
    let ([gx, gh, h, c], gs) = carve(scratch, [s.seq * s.batch * sq.gh, s.batch * sq.gh, bh, bh]);
    let mut bufs = Bufs { gx, gh, h, c, gs };
    for d in 0..s.dirs() {
        let (wb, rb) = sq.biases(b, d);
        sq.project(x, w.w(Cell::Lstm, s, d), wb, bufs.gx, bufs.gs);
        sq.load_state(h0, d, bufs.h);
        sq.load_state(c0, d, bufs.c);
        let pd = peep.map(|q| &q[d * 3 * s.hidden..(d + 1) * 3 * s.hidden]);
        run_direction(p, &sq, w, rb, pd, d, &mut bufs, &mut y);
        sq.store_state(bufs.h, d, &mut y_h);
        sq.store_state(bufs.c, d, &mut y_c);
    }
}

/// Every step of direction `d`, from the projection and initial states in
/// `bufs` (which end holding the final states).
fn run_direction(
    p: &Lstm,
    sq: &Seq<'_>,
    w: Weights<'_>,
    rb: Option<&[f32]>,
    peep: Option<&[f32]>,
    d: usize,
    bufs: &mut Bufs<'_>,
    y: &mut Option<&mut [f32]>,
) {
    let (hs, gh) = (sq.s.hidden, sq.gh);
    let r = w.r(Cell::Lstm, &sq.s, d, 0);
    let ep = Epilogue { bias: rb.map_or(Bias::None, Bias::PerCol), ..Epilogue::default() };
    for k in 0..sq.steps {
        r.product(sq.s.batch, bufs.h, bufs.gh, &ep, bufs.gs);
        for b in 0..sq.s.batch {
            let Some(t) = sq.time(d, k, b) else { continue };
            let gx = &bufs.gx[sq.x_row(t, b) * gh..][..gh];
            let (h, c) = (&mut bufs.h[b * hs..(b + 1) * hs], &mut bufs.c[b * hs..(b + 1) * hs]);
            update(p, &p.acts[d], gx, &bufs.gh[b * gh..(b + 1) * gh], peep, h, c);
            sq.store_y(y, t, d, b, h);
        }
    }
}

/// One sequence's cell update from its gate pre-activations `gx + gh`.
fn update(
    p: &Lstm,
    acts: &[Activation; 3],
    gx: &[f32],
    gh: &[f32],
    peep: Option<&[f32]>,
    h: &mut [f32],
    c: &mut [f32],
) {
    let hs = h.len();
    let [fa, ga, ha] = *acts;
    for j in 0..hs {
        let pre = |g: usize| gx[g * hs + j] + gh[g * hs + j];
        // A missing P is zeros, multiplied like a given one (0 · ∞ is NaN).
        let (pi, po, pf) = peep.map_or((0.0, 0.0, 0.0), |q| (q[j], q[hs + j], q[2 * hs + j]));
        let i = fa.apply(clip(pre(0) + pi * c[j], p.clip));
        let f = if p.input_forget { 1.0 - i } else { fa.apply(clip(pre(2) + pf * c[j], p.clip)) };
        let cand = ga.apply(clip(pre(3), p.clip));
        c[j] = f * c[j] + i * cand;
        let o = fa.apply(clip(pre(1) + po * c[j], p.clip));
        h[j] = o * ha.apply(c[j]);
    }
}
