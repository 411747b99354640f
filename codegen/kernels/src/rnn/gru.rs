//! `onnx.GRU`: gates z, r, h (that order in W, R and B):
//!
//! ```text
//! z = f(Xz + Hz),  r = f(Xr + Hr)
//! ĥ = g(Xh + (r ⊙ H)·Rhᵀ + Rbh)        (linear_before_reset = 0)
//! ĥ = g(Xh + r ⊙ (H·Rhᵀ + Rbh))        (linear_before_reset = 1)
//! H' = (1 − z) ⊙ ĥ + z ⊙ H
//! ```
//! with `X· = X·Wᵀ + Wb`, `H· = H·Rᵀ + Rb` per gate, each pre-activation
//! clipped when `clip` is set. Each step runs two recurrent products: the z/r
//! rows of R, then the h rows (on `r ⊙ H` or `H`).

use super::seq::{self, carve, Common, Seq};
use super::{clip, Cell, Gru, Weights};
use crate::gemm::{Bias, Epilogue};

/// Scratch elements [`gru`] needs for `p`.
pub fn gru_scratch_len(p: &Gru) -> usize {
    let s = &p.shape;
    seq::scratch_len(Cell::Gru, s, s.batch * s.hidden * (2 + 1 + 2))
}

/// The per-call buffers (carved from the scratch).
struct Bufs<'s> {
    /// Input projection, `seq·batch × 3·hidden`.
    gx: &'s mut [f32],
    /// z/r pre-activations of one step, then the gates, `batch × 2·hidden`.
    zr: &'s mut [f32],
    /// The candidate's recurrent product, `batch × hidden`.
    hh: &'s mut [f32],
    /// Hidden state, `batch × hidden`.
    h: &'s mut [f32],
    /// `r ⊙ H` (rows of running sequences only), `batch × hidden`.
    rh: &'s mut [f32],
    /// GEMM scratch.
    gs: &'s mut [f32],
}

/// `onnx.GRU` (see the [module docs](super) for operand layouts).
///
/// Operands: `x`, `w` (W and R), `b`, `seq_lens`, `h0` (initial_h); outputs
/// `y`, `y_h`, each computed only if given (Y is zero past each sequence's
/// length). Asserts every length and `scratch.len() >= gru_scratch_len(p)`;
/// panics on a sequence length outside `0..=seq`.
pub fn gru(
    p: &Gru,
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
    let sq = Seq::new(Cell::Gru, s, &Common { x, b, seq_lens, h0 }, y.as_deref(), [y_h.as_deref(), None]);
    w.check(Cell::Gru, s);
    if let Some(y) = y.as_deref_mut() {
        y.fill(0.0);
    }
    let bh = s.batch * s.hidden;
    let ([gx, zr, hh, h, rh], gs) = carve(scratch, [s.seq * s.batch * sq.gh, 2 * bh, bh, bh, bh]);
    let mut bufs = Bufs { gx, zr, hh, h, rh, gs };
    for d in 0..s.dirs() {
        let (wb, rb) = sq.biases(b, d);
        sq.project(x, w.w(Cell::Gru, s, d), wb, bufs.gx, bufs.gs);
        sq.load_state(h0, d, bufs.h);
        run_direction(p, &sq, w, rb, d, &mut bufs, &mut y);
        sq.store_state(bufs.h, d, &mut y_h);
    }
}

/// Every step of direction `d`, from the projection and initial state in
/// `bufs` (which ends holding the final state).
fn run_direction(
    p: &Gru,
    sq: &Seq<'_>,
    w: Weights<'_>,
    rb: Option<&[f32]>,
    d: usize,
    bufs: &mut Bufs<'_>,
    y: &mut Option<&mut [f32]>,
) {
    let (hs, batch) = (sq.s.hidden, sq.s.batch);
    let (r_zr, r_h) = (w.r(Cell::Gru, &sq.s, d, 0), w.r(Cell::Gru, &sq.s, d, 1));
    let ep_zr = Epilogue { bias: rb.map_or(Bias::None, |rb| Bias::PerCol(&rb[..2 * hs])), ..Epilogue::default() };
    let ep_h = Epilogue { bias: rb.map_or(Bias::None, |rb| Bias::PerCol(&rb[2 * hs..])), ..Epilogue::default() };
    let [fa, ga] = p.acts[d];
    for k in 0..sq.steps {
        r_zr.product(batch, bufs.h, bufs.zr, &ep_zr, bufs.gs);
        for b in 0..batch {
            let Some(t) = sq.time(d, k, b) else { continue };
            let gx = &bufs.gx[sq.x_row(t, b) * sq.gh..][..2 * hs];
            let zr = &mut bufs.zr[b * 2 * hs..(b + 1) * 2 * hs];
            zr.iter_mut().zip(gx).for_each(|(v, &x)| *v = fa.apply(clip(x + *v, p.clip)));
            if !p.linear_before_reset {
                let (h, rh) = (&bufs.h[b * hs..(b + 1) * hs], &mut bufs.rh[b * hs..(b + 1) * hs]);
                rh.iter_mut().zip(h.iter().zip(&zr[hs..])).for_each(|(v, (&h, &r))| *v = r * h);
            }
        }
        let a = if p.linear_before_reset { &*bufs.h } else { &*bufs.rh };
        r_h.product(batch, a, bufs.hh, &ep_h, bufs.gs);
        for b in 0..batch {
            let Some(t) = sq.time(d, k, b) else { continue };
            let gx = &bufs.gx[sq.x_row(t, b) * sq.gh + 2 * hs..][..hs];
            let (z, r) = bufs.zr[b * 2 * hs..(b + 1) * 2 * hs].split_at(hs);
            let (hh, h) = (&bufs.hh[b * hs..(b + 1) * hs], &mut bufs.h[b * hs..(b + 1) * hs]);
            for j in 0..hs {
                let v = if p.linear_before_reset { gx[j] + r[j] * hh[j] } else { gx[j] + hh[j] };
                let cand = ga.apply(clip(v, p.clip));
                h[j] = (1.0 - z[j]) * cand + z[j] * h[j];
            }
            sq.store_y(y, t, d, b, h);
        }
    }
}
