//! Blocked attention with an online softmax (FlashAttention-style): per
//! block of `block_q` queries, a running row maximum `m`, a running sum `l`
//! of `exp(s − m)` and an accumulator `Σ exp(s − m) · V`, rescaled by
//! `exp(m_old − m_new)` whenever the maximum grows.
//!
//! Invariants: at most `block_q × block_k` scores exist at any time (plus
//! `2 · block_q × Dv` accumulators and `2 · block_q` statistics); tiles that
//! causal/window masking hides entirely are skipped (folding an all −∞ tile
//! changes nothing), so a window of W costs about `Sq · (2W + block_k)`
//! scores. Results equal [`super::attention`]'s up to summation order.

use super::{gemm_scratch, scores, times_v, Geo, Mask, Visible};

/// Running state of one query block (`rows` queries), all in scratch.
struct State<'s> {
    m: &'s mut [f32],
    l: &'s mut [f32],
    acc: &'s mut [f32],
    tmp: &'s mut [f32],
    s: &'s mut [f32],
    gemm: &'s mut [f32],
}

/// `(bq, bk)`: the block sizes clamped to the problem (≥ 1).
fn blocks(g: &Geo<'_>, block_q: usize, block_k: usize) -> (usize, usize) {
    assert!(block_q >= 1 && block_k >= 1, "attention blocks must be ≥ 1");
    (block_q.min(g.sq).max(1), block_k.min(g.sk).max(1))
}

/// Scratch elements [`attention_blocked`] needs.
pub fn attention_blocked_scratch_len(
    q_shape: &[usize],
    k_shape: &[usize],
    v_shape: &[usize],
    block_q: usize,
    block_k: usize,
) -> usize {
    let g = Geo::new(q_shape, k_shape, v_shape, &Mask::None);
    let (bq, bk) = blocks(&g, block_q, block_k);
    2 * bq + 2 * bq * g.dv + bq * bk + gemm_scratch(bq, bk, g.d, g.dv)
}

/// True if some query of `i0..i0+rows` may see some key of `j0..j0+cols`.
fn tile_visible(vis: Visible, (i0, rows): (usize, usize), (j0, cols): (usize, usize)) -> bool {
    let (i1, j1) = (i0 + rows - 1, j0 + cols - 1);
    let causal_ok = !vis.causal || j0 <= i1;
    let window_ok = vis.window.is_none_or(|w| j0 <= i1.saturating_add(w) && i0 <= j1.saturating_add(w));
    causal_ok && window_ok
}

/// Like [`super::attention`], in `block_q × block_k` tiles (see the module
/// docs). Asserts shapes, lengths and `block_q, block_k ≥ 1`.
pub fn attention_blocked(
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
    block_q: usize,
    block_k: usize,
    out: &mut [f32],
    scratch: &mut [f32],
) {
    let g = Geo::new(q_shape, k_shape, v_shape, &mask);
    g.check_lens(q, k, v, out);
    let (bq, bk) = blocks(&g, block_q, block_k);
    let need = attention_blocked_scratch_len(q_shape, k_shape, v_shape, block_q, block_k);
    assert!(scratch.len() >= need, "attention scratch has {} elements, needs {need}", scratch.len());
    let (m, rest) = scratch.split_at_mut(bq);
    let (l, rest) = rest.split_at_mut(bq);
    let (acc, rest) = rest.split_at_mut(bq * g.dv);
    let (tmp, rest) = rest.split_at_mut(bq * g.dv);
    let (s, gemm) = rest.split_at_mut(bq * bk);
    let mut st = State { m, l, acc, tmp, s, gemm };
    let vis = Visible { causal, window };
    let scale_mask = (scale, &mask, vis);
    for (b, ob) in out.chunks_exact_mut((g.sq * g.dv).max(1)).take(g.nb).enumerate() {
        let ops = g.operands(b, q, k, v);
        for i0 in (0..g.sq).step_by(bq) {
            let rows = bq.min(g.sq - i0);
            query_block(&g, b, ops, (i0, rows), bk, scale_mask, &mut st);
            finish(&g, &st, rows, &mut ob[i0 * g.dv..(i0 + rows) * g.dv]);
        }
    }
}

/// Run every visible key tile of queries `i0..i0+rows` of batch `b`.
fn query_block(
    g: &Geo<'_>,
    b: usize,
    [qm, km, vm]: [&[f32]; 3],
    (i0, rows): (usize, usize),
    bk: usize,
    (scale, mask, vis): (f32, &Mask<'_>, Visible),
    st: &mut State<'_>,
) {
    st.m[..rows].fill(f32::NEG_INFINITY);
    st.l[..rows].fill(0.0);
    st.acc[..rows * g.dv].fill(0.0);
    for j0 in (0..g.sk).step_by(bk) {
        let cols = bk.min(g.sk - j0);
        if !tile_visible(vis, (i0, rows), (j0, cols)) {
            continue;
        }
        let s = &mut st.s[..rows * cols];
        scores(g, qm, km, (i0, rows), (j0, cols), scale, s, st.gemm);
        g.mask_tile(s, b, (i0, j0, cols), mask, vis);
        let (dv, v_tile) = (g.dv, &vm[j0 * g.dv..(j0 + cols) * g.dv]);
        update(st, rows, cols, dv);
        times_v(&st.s[..rows * cols], v_tile, (rows, cols, dv), &mut st.tmp[..rows * dv], st.gemm);
        st.acc[..rows * dv].iter_mut().zip(&st.tmp[..rows * dv]).for_each(|(a, &t)| *a += t);
    }
}

/// Fold the score tile into the running statistics: rescale the state to the
/// new row maxima and turn the scores into `exp(s − m_new)` (0 for rows that
/// have seen no visible key yet).
fn update(st: &mut State<'_>, rows: usize, cols: usize, dv: usize) {
    for r in 0..rows {
        let row = &mut st.s[r * cols..(r + 1) * cols];
        let m_new = row.iter().fold(st.m[r], |m, &x| if m.is_nan() || x.is_nan() { f32::NAN } else { m.max(x) });
        if m_new == f32::NEG_INFINITY {
            row.fill(0.0);
            continue;
        }
        // exp(−∞ − finite) = 0 drops the (empty) old state; NaN propagates.
        let alpha = (st.m[r] - m_new).exp();
        st.acc[r * dv..(r + 1) * dv].iter_mut().for_each(|a| *a *= alpha);
        let mut l = st.l[r] * alpha;
        for x in row.iter_mut() {
            *x = (*x - m_new).exp();
            l += *x;
        }
        (st.l[r], st.m[r]) = (l, m_new);
    }
}

/// Write the normalized rows of a finished query block.
fn finish(g: &Geo<'_>, st: &State<'_>, rows: usize, out: &mut [f32]) {
    for (r, orow) in out.chunks_exact_mut(g.dv.max(1)).take(rows).enumerate() {
        for (c, y) in orow.iter_mut().enumerate() {
            *y = if g.sk == 0 {
                0.0
            } else if st.m[r] == f32::NEG_INFINITY {
                f32::NAN
            } else {
                st.acc[r * g.dv + c] / st.l[r]
            };
        }
    }
}
