//! `onnx.RNN` (Elman): `H' = f(X·Wᵀ + Wb + H·Rᵀ + Rb)`, the pre-activation
//! clipped when `clip` is set.

use super::seq::{self, carve, Common, Seq};
use super::{clip, Cell, Rnn, Weights};
use crate::gemm::{Bias, Epilogue};

/// Scratch elements [`rnn`] needs for `p`.
pub fn rnn_scratch_len(p: &Rnn) -> usize {
    let s = &p.shape;
    seq::scratch_len(Cell::Rnn, s, s.batch * s.hidden * 2)
}

/// `onnx.RNN` (see the [module docs](super) for operand layouts).
///
/// Operands: `x`, `w` (W and R), `b`, `seq_lens`, `h0` (initial_h); outputs
/// `y`, `y_h`, each computed only if given (Y is zero past each sequence's
/// length). Asserts every length and `scratch.len() >= rnn_scratch_len(p)`;
/// panics on a sequence length outside `0..=seq`.
pub fn rnn(
    p: &Rnn,
    x: &[f32],
    w: Weights<'_>,
    b: Option<&[f32]>,
    seq_lens: Option<&[i64]>,
    h0: Option<&[f32]>,
    mut y: Option<&mut [f32]>,
    mut y_h: Option<&mut [f32]>,
    scratch: &mut [f32],
) {
    let s = &p.shape;
    let sq = Seq::new(Cell::Rnn, s, &Common { x, b, seq_lens, h0 }, y.as_deref(), [y_h.as_deref(), None]);
    w.check(Cell::Rnn, s);
    if let Some(y) = y.as_deref_mut() {
        y.fill(0.0);
    }
    let (hs, bh) = (s.hidden, s.batch * s.hidden);
    let ([gx, gh, h], gs) = carve(scratch, [s.seq * bh, bh, bh]);
    for d in 0..s.dirs() {
        let (wb, rb) = sq.biases(b, d);
        sq.project(x, w.w(Cell::Rnn, s, d), wb, gx, gs);
        sq.load_state(h0, d, h);
        let r = w.r(Cell::Rnn, s, d, 0);
        let ep = Epilogue { bias: rb.map_or(Bias::None, Bias::PerCol), ..Epilogue::default() };
        let act = p.acts[d];
        for k in 0..sq.steps {
            r.product(s.batch, h, gh, &ep, gs);
            for bi in 0..s.batch {
                let Some(t) = sq.time(d, k, bi) else { continue };
                let gx = &gx[sq.x_row(t, bi) * hs..][..hs];
                let hb = &mut h[bi * hs..(bi + 1) * hs];
                let ghb = &gh[bi * hs..(bi + 1) * hs];
                hb.iter_mut().zip(gx.iter().zip(ghb)).for_each(|(v, (&x, &g))| *v = act.apply(clip(x + g, p.clip)));
                sq.store_y(&mut y, t, d, bi, hb);
            }
        }
        sq.store_state(h, d, &mut y_h);
    }
}
