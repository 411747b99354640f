//! Scaled dot-product attention `softmax(Q·Kᵀ·scale + mask) · V` over
//! `[batch.., S, D]` operands whose batch dims broadcast (numpy-style)
//! between Q, K and V, with optional causal (top-left aligned: key `j ≤`
//! query `i`) and band (`|i − j| ≤ W`) masking, in two forms:
//! - [`attention`]: the whole `Sq × Sk` score matrix of one batch at a time
//!   (two GEMMs and a row softmax);
//! - [`attention_blocked`]: tiles of `block_q × block_k` scores with an online
//!   softmax, skipping tiles that causal/window masking hides entirely.
//!
//! Semantics (those of edgec's interpreter): a bool mask keeps the true
//! positions (false → −∞), a float mask is added; a row whose keys are all
//! masked is NaN; with no keys (`Sk = 0`) the result is 0.
//!
//! Also here: ONNX Attention ([`onnx_attention`]), LinearAttention,
//! RotaryEmbedding ([`rotary`]), the f64 FlexAttention ([`flex`]),
//! CausalConvWithState ([`causal_conv`]) and the Swin window partition and
//! merge ([`window_partition`], [`window_merge`]).

mod blocked;
pub mod causal_conv;
pub mod flex;
mod linear;
mod onnx;
pub mod rotary;
mod window;

pub use blocked::{attention_blocked, attention_blocked_scratch_len};
pub use linear::{linear_attention, linear_attention_scratch_len, LinearAttention, LinearAttentionExtras};
pub use onnx::{onnx_attention, onnx_attention_scratch_len, OnnxAttention, OnnxAttentionInputs};
pub use window::{window_merge, window_partition, Windows};

use crate::gemm::{self, matmul, Dims, Epilogue, Raw};

/// An attention mask and its shape, broadcast numpy-style to the scores
/// `[batch.., Sq, Sk]` (it may not enlarge them).
#[derive(Copy, Clone, Debug, Default)]
pub enum Mask<'a> {
    /// No mask.
    #[default]
    None,
    /// Keep the true positions.
    Bool(&'a [bool], &'a [usize]),
    /// Add to the scores.
    Float(&'a [f32], &'a [usize]),
}

/// Validated geometry of one attention call.
pub(crate) struct Geo<'a> {
    /// Batch dims of Q, K, V and the mask.
    pub batch: [&'a [usize]; 4],
    pub sq: usize,
    pub sk: usize,
    pub d: usize,
    pub dv: usize,
    /// Number of output batches.
    pub nb: usize,
    /// Mask strides along queries and keys, and its matrix size.
    mask_si: usize,
    mask_sj: usize,
    mask_mat: usize,
}

fn split2<'a>(s: &'a [usize], what: &str) -> (&'a [usize], usize, usize) {
    assert!(s.len() >= 2, "attention {what} shape {s:?} must have rank ≥ 2");
    (&s[..s.len() - 2], s[s.len() - 2], s[s.len() - 1])
}

/// The shape of a mask (empty for no mask).
fn mask_shape<'a>(m: &Mask<'a>) -> &'a [usize] {
    match *m {
        Mask::None => &[],
        Mask::Bool(_, s) | Mask::Float(_, s) => s,
    }
}

impl<'a> Geo<'a> {
    /// Check the shapes (panics on a mismatch, a caller bug).
    pub fn new(q: &'a [usize], k: &'a [usize], v: &'a [usize], mask: &Mask<'a>) -> Geo<'a> {
        let ((qb, sq, d), (kb, sk, dk), (vb, skv, dv)) = (split2(q, "Q"), split2(k, "K"), split2(v, "V"));
        assert!(dk == d && skv == sk, "attention Q {q:?}, K {k:?}, V {v:?} do not fit together");
        matmul::check_broadcast(&[qb, kb, vb], "attention batch dims");
        let ms = mask_shape(mask);
        let r = ms.len();
        let (mi, mj) = (if r >= 2 { ms[r - 2] } else { 1 }, if r >= 1 { ms[r - 1] } else { 1 });
        let mb = &ms[..r.saturating_sub(2)];
        assert!((mi == 1 || mi == sq) && (mj == 1 || mj == sk), "mask {ms:?} does not broadcast to [{sq}, {sk}]");
        assert!(mb.len() <= qb.len().max(kb.len()), "mask {ms:?} has more dims than the scores");
        for t in 0..mb.len() {
            let (dm, ds) = (matmul::dim_r(mb, t), matmul::out_dim_r(&[qb, kb], t));
            assert!(dm == 1 || dm == ds, "mask {ms:?} does not broadcast to the score batch dims");
        }
        let mask_mat = mi * mj;
        let mlen = match *mask {
            Mask::None => 0,
            Mask::Bool(m, _) => m.len(),
            Mask::Float(m, _) => m.len(),
        };
        assert!(matches!(mask, Mask::None) || mlen == mb.iter().product::<usize>() * mask_mat, "mask length");
        let nb = matmul::broadcast_numel(&[qb, kb, vb]);
        let (mask_si, mask_sj) = (if mi == 1 { 0 } else { mj }, if mj == 1 { 0 } else { 1 });
        Geo { batch: [qb, kb, vb, mb], sq, sk, d, dv, nb, mask_si, mask_sj, mask_mat }
    }

    /// Assert the operand and output lengths.
    pub fn check_lens(&self, q: &[f32], k: &[f32], v: &[f32], out: &[f32]) {
        let n = |b: &[usize]| b.iter().product::<usize>();
        assert_eq!(q.len(), n(self.batch[0]) * self.sq * self.d, "attention Q length");
        assert_eq!(k.len(), n(self.batch[1]) * self.sk * self.d, "attention K length");
        assert_eq!(v.len(), n(self.batch[2]) * self.sk * self.dv, "attention V length");
        assert_eq!(out.len(), self.nb * self.sq * self.dv, "attention output length");
    }

    /// Matrix index of operand `which` (0 Q, 1 K, 2 V, 3 mask) for output batch `b`.
    pub fn index(&self, b: usize, which: usize) -> usize {
        matmul::broadcast_index(b, &self.batch, which)
    }

    /// The Q, K and V matrices of output batch `b`.
    pub fn operands<'x>(&self, b: usize, q: &'x [f32], k: &'x [f32], v: &'x [f32]) -> [&'x [f32]; 3] {
        let (qs, ks, vs) = (self.sq * self.d, self.sk * self.d, self.sk * self.dv);
        let (iq, ik, iv) = (self.index(b, 0), self.index(b, 1), self.index(b, 2));
        [&q[iq * qs..(iq + 1) * qs], &k[ik * ks..(ik + 1) * ks], &v[iv * vs..(iv + 1) * vs]]
    }

    /// Mask the scaled scores `s` of queries `i0..`, keys `j0..j0 + cols`
    /// (rows of `cols`) of output batch `b`: mask, then causal and window.
    pub fn mask_tile(
        &self,
        s: &mut [f32],
        b: usize,
        (i0, j0, cols): (usize, usize, usize),
        m: &Mask<'_>,
        vis: Visible,
    ) {
        let base = if matches!(m, Mask::None) { 0 } else { self.index(b, 3) * self.mask_mat };
        for (r, row) in s.chunks_exact_mut(cols).enumerate() {
            let i = i0 + r;
            for (c, x) in row.iter_mut().enumerate() {
                let j = j0 + c;
                let at = base + i * self.mask_si + j * self.mask_sj;
                match *m {
                    Mask::None => {}
                    Mask::Bool(mv, _) if !mv[at] => *x = f32::NEG_INFINITY,
                    Mask::Bool(..) => {}
                    Mask::Float(mv, _) => *x += mv[at],
                }
                if !vis.sees(i, j) {
                    *x = f32::NEG_INFINITY;
                }
            }
        }
    }
}

/// Causal and window visibility.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Visible {
    pub causal: bool,
    pub window: Option<usize>,
}

impl Visible {
    /// True if query `i` may see key `j`.
    #[inline]
    pub fn sees(self, i: usize, j: usize) -> bool {
        !(self.causal && j > i) && self.window.is_none_or(|w| i.abs_diff(j) <= w)
    }
}

/// Scores `s = scale · Q[i0..i0+rows] · K[j0..j0+cols]ᵀ` (`rows × cols`).
pub(crate) fn scores(
    g: &Geo<'_>,
    q: &[f32],
    k: &[f32],
    (i0, rows): (usize, usize),
    (j0, cols): (usize, usize),
    scale: f32,
    s: &mut [f32],
    scratch: &mut [f32],
) {
    let a = Raw { data: &q[i0 * g.d..(i0 + rows) * g.d], ld: g.d, trans: false };
    let b = Raw { data: &k[j0 * g.d..(j0 + cols) * g.d], ld: g.d, trans: true };
    let ep = Epilogue { alpha: scale, ..Epilogue::default() };
    gemm::run_isa(
        gemm::current(),
        Dims { m: rows, n: cols, k: g.d, ldc: cols },
        &a,
        &b,
        &mut s[..rows * cols],
        &ep,
        scratch,
    );
}

/// `out = p · v` for `p` `rows × sk` (row stride `sk`) and `v` `sk × dv`.
pub(crate) fn times_v(
    p: &[f32],
    v: &[f32],
    (rows, sk, dv): (usize, usize, usize),
    out: &mut [f32],
    scratch: &mut [f32],
) {
    let a = Raw { data: p, ld: sk, trans: false };
    let b = Raw { data: v, ld: dv, trans: false };
    gemm::run_isa(gemm::current(), Dims { m: rows, n: dv, k: sk, ldc: dv }, &a, &b, out, &Epilogue::default(), scratch);
}

/// GEMM scratch for the two products of a `rows × cols` score tile.
pub(crate) fn gemm_scratch(rows: usize, cols: usize, d: usize, dv: usize) -> usize {
    let g = |m, n, k, trans_b| gemm::scratch_len(&gemm::Gemm { m, n, k, trans_a: false, trans_b });
    g(rows, cols, d, true).max(g(rows, dv, cols, false))
}

/// Scratch elements [`attention`] needs.
pub fn attention_scratch_len(q_shape: &[usize], k_shape: &[usize], v_shape: &[usize]) -> usize {
    let g = Geo::new(q_shape, k_shape, v_shape, &Mask::None);
    g.sq * g.sk + gemm_scratch(g.sq, g.sk, g.d, g.dv)
}

/// In-place row softmax (`exp(x − max) / Σ`; an all −∞ row becomes NaN,
/// a NaN propagates to its row).
pub(crate) fn softmax_rows(s: &mut [f32], cols: usize) {
    for row in s.chunks_exact_mut(cols) {
        let max =
            row.iter().fold(f32::NEG_INFINITY, |m, &x| if m.is_nan() || x.is_nan() { f32::NAN } else { m.max(x) });
        let mut sum = 0.0;
        for x in row.iter_mut() {
            *x = (*x - max).exp();
            sum += *x;
        }
        row.iter_mut().for_each(|x| *x /= sum);
    }
}

/// `out = softmax(mask(q·kᵀ·scale)) · v` (see the module docs); `q`
/// `[qb.., Sq, D]`, `k` `[kb.., Sk, D]`, `v` `[vb.., Sk, Dv]`, `out`
/// `[broadcast batch.., Sq, Dv]`. Asserts shapes and lengths.
pub fn attention(
    q_shape: &[usize],
    q: &[f32],
    k_shape: &[usize],
    k: &[f32],
    v_shape: &[usize],
    v: &[f32],
    mask: Mask<'_>,
    scale: f32,
    causal: bool,
    window: Option<usize>,
    out: &mut [f32],
    scratch: &mut [f32],
) {
    let g = Geo::new(q_shape, k_shape, v_shape, &mask);
    g.check_lens(q, k, v, out);
    let need = attention_scratch_len(q_shape, k_shape, v_shape);
    assert!(scratch.len() >= need, "attention scratch has {} elements, needs {need}", scratch.len());
    let (s, gs) = scratch.split_at_mut(g.sq * g.sk);
    let vis = Visible { causal, window };
    for (b, ob) in out.chunks_exact_mut((g.sq * g.dv).max(1)).take(g.nb).enumerate() {
        let [qm, km, vm] = g.operands(b, q, k, v);
        if g.sk > 0 {
            scores(&g, qm, km, (0, g.sq), (0, g.sk), scale, s, gs);
            g.mask_tile(s, b, (0, 0, g.sk), &mask, vis);
            softmax_rows(s, g.sk);
        }
        times_v(s, vm, (g.sq, g.sk, g.dv), ob, gs);
    }
}

/// The additive mask of a Swin window attention over `[B, nW, heads, N, N]`
/// scores: `bias [heads, N, N]` (if any) plus `mask [nW, N, N]` (if any),
/// as one `[nW, heads, N, N]` tensor (built once, at model construction).
pub fn window_mask(bias: Option<&[f32]>, mask: Option<&[f32]>, nw: usize, heads: usize, n: usize) -> Vec<f32> {
    let nn = n * n;
    assert!(bias.is_none_or(|b| b.len() == heads * nn), "window bias must be [heads, N, N]");
    assert!(mask.is_none_or(|m| m.len() == nw * nn), "window mask must be [nW, N, N]");
    let mut out = vec![0.0; nw * heads * nn];
    for (w, per_w) in out.chunks_exact_mut(heads * nn).enumerate() {
        for (h, t) in per_w.chunks_exact_mut(nn).enumerate() {
            for (i, x) in t.iter_mut().enumerate() {
                *x = bias.map_or(0.0, |b| b[h * nn + i]) + mask.map_or(0.0, |m| m[w * nn + i]);
            }
        }
    }
    out
}
