//! `onnx.Attention` (opset 23/24): scaled dot-product attention over 3-D
//! (`[B, S, H·D]`) or 4-D (`[B, H, S, D]`) operands with a KV cache
//! (`past_*` in front of the current K/V, giving `present_*`), grouped-query
//! heads (`Hq` a multiple of `Hkv`; query head `h` reads KV head
//! `h / (Hq / Hkv)`), a bool or additive mask of rank 1 to 4 (broadcast to
//! `[B, Hq, Sq, T]`; keys past its last dim are masked), `is_causal`
//! (query `i` sees keys `j ≤ past + i`), `nonpad_kv_seqlen` (keys
//! `j ≥ len[b]` masked), `softcap` and the `qk_matmul_output` modes.
//!
//! Semantics are those of edgec's interpreter, step by step for each score:
//! `s = scale · q·k` (mode 0), `c = softcap · tanh(s / softcap)` when
//! `softcap > 0` (mode 1), `c + bias` (mode 2; the bias is the mask value,
//! 0 or −∞ for a bool mask, plus −∞ for causal/padding), softmax along the
//! keys (mode 3; an all −∞ row is NaN). One query head and `block_q`
//! queries at a time: their `block_q × T` scores live in the scratch.
//!
//! Scratch layout (see [`onnx_attention_scratch_len`]): `present_key`
//! `[B, Hkv, T, D]`, `present_value` `[B, Hkv, T, Dv]`, the requested
//! `qk_matmul_output` `[B, Hq, Sq, T]` (if any), then the working scores, one bias row
//! and the GEMM scratch. The caller copies the head regions it needs to its results.

use super::{gemm_scratch, softmax_rows, Mask};
use crate::gemm::{self, Dims, Epilogue, Raw};

/// Sizes and settings of one `onnx.Attention` call, resolved at compile time.
/// Invariants (asserted): `kv_heads ≥ 1`, `q_heads % kv_heads == 0`,
/// `qk_mode ≤ 3`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct OnnxAttention {
    /// Batch size `B`.
    pub batch: usize,
    /// Query heads `Hq`.
    pub q_heads: usize,
    /// Key/value heads `Hkv`.
    pub kv_heads: usize,
    /// Query sequence length `Sq`.
    pub q_seq: usize,
    /// Current key/value sequence length.
    pub kv_seq: usize,
    /// Past key/value sequence length (0 without a cache).
    pub past: usize,
    /// Q/K head size `D`.
    pub head: usize,
    /// V head size `Dv`.
    pub v_head: usize,
    /// Q, K, V and Y are 3-D `[B, S, H·D]` (else 4-D `[B, H, S, D]`).
    pub three_d: bool,
    /// Score scale.
    pub scale: f32,
    /// Softcap (0: none).
    pub softcap: f32,
    /// Causal masking (after the past).
    pub causal: bool,
    /// The `qk_matmul_output_mode` to write to the scratch, if requested.
    pub qk_mode: Option<u8>,
    /// Queries whose scores are computed together (≥ 1): the scratch holds
    /// `block_q × T` scores.
    pub block_q: usize,
}

/// The operands of one call (`mask` shape of rank 1 to 4).
#[derive(Copy, Clone, Debug)]
pub struct OnnxAttentionInputs<'a> {
    /// Q.
    pub q: &'a [f32],
    /// K (current).
    pub k: &'a [f32],
    /// V (current).
    pub v: &'a [f32],
    /// `attn_mask`.
    pub mask: Mask<'a>,
    /// `past_key` `[B, Hkv, past, D]`.
    pub past_key: Option<&'a [f32]>,
    /// `past_value` `[B, Hkv, past, Dv]`.
    pub past_value: Option<&'a [f32]>,
    /// `nonpad_kv_seqlen` `[B]`.
    pub nonpad: Option<&'a [i64]>,
}

impl OnnxAttention {
    /// Total key sequence length `T = past + kv_seq`.
    pub fn total(&self) -> usize {
        self.past + self.kv_seq
    }
    /// Elements of `present_key`, `present_value` and `qk_matmul_output` in
    /// the scratch head (the last 0 unless requested).
    pub fn head_lens(&self) -> [usize; 3] {
        let (b, t) = (self.batch, self.total());
        let qk = if self.qk_mode.is_some() { b * self.q_heads * self.q_seq * t } else { 0 };
        [b * self.kv_heads * t * self.head, b * self.kv_heads * t * self.v_head, qk]
    }
    /// Query rows per block (clamped to `Sq`).
    fn rows(&self) -> usize {
        self.block_q.min(self.q_seq).max(1)
    }
    fn check(&self) {
        assert!(self.block_q >= 1, "attention block_q must be at least 1");
        assert!(self.kv_heads >= 1 && self.q_heads.is_multiple_of(self.kv_heads), "attention heads {self:?}");
        assert!(self.qk_mode.is_none_or(|m| m <= 3), "qk_matmul_output_mode {:?}", self.qk_mode);
    }
}

/// Scratch elements [`onnx_attention`] needs.
pub fn onnx_attention_scratch_len(p: &OnnxAttention) -> usize {
    let (t, rows) = (p.total(), p.rows());
    p.head_lens().iter().sum::<usize>() + (rows + 1) * t + gemm_scratch(rows, t, p.head, p.v_head)
}

/// Copy the past cache and the current K or V (`d` features per head) into
/// `present` `[B, Hkv, T, d]`.
fn gather(p: &OnnxAttention, past: Option<&[f32]>, cur: &[f32], d: usize, present: &mut [f32]) {
    let (h, s, t) = (p.kv_heads, p.kv_seq, p.total());
    let past_len = p.batch * h * p.past * d;
    assert_eq!(past.map_or(0, <[f32]>::len), past_len, "attention past cache length");
    assert_eq!(cur.len(), p.batch * h * s * d, "attention K/V length");
    for (bh, dst) in present.chunks_exact_mut((t * d).max(1)).take(p.batch * h).enumerate() {
        let (b, hi) = (bh / h, bh % h);
        let (old, new) = dst.split_at_mut(p.past * d);
        if let Some(pv) = past {
            old.copy_from_slice(&pv[bh * p.past * d..(bh + 1) * p.past * d]);
        }
        for (j, row) in new.chunks_exact_mut(d.max(1)).take(s).enumerate() {
            let at = if p.three_d { (b * s + j) * h * d + hi * d } else { (bh * s + j) * d };
            row.copy_from_slice(&cur[at..at + d]);
        }
    }
}

/// The mask with its shape left-padded to rank 4.
struct Mask4<'a> {
    mask: Mask<'a>,
    dims: [usize; 4],
}

impl Mask4<'_> {
    fn new<'a>(m: Mask<'a>, p: &OnnxAttention) -> Mask4<'a> {
        let shape: &[usize] = match m {
            Mask::None => &[],
            Mask::Bool(_, s) | Mask::Float(_, s) => s,
        };
        let mut dims = [1; 4];
        if matches!(m, Mask::None) {
            return Mask4 { mask: m, dims };
        }
        assert!((1..=4).contains(&shape.len()), "attn_mask rank {shape:?}");
        dims[4 - shape.len()..].copy_from_slice(shape);
        let want = [p.batch, p.q_heads, p.q_seq];
        assert!((0..3).all(|a| dims[a] == 1 || dims[a] == want[a]), "attn_mask {shape:?} does not broadcast");
        assert!(dims[3] <= p.total(), "attn_mask {shape:?} is longer than the {} keys", p.total());
        let len = match m {
            Mask::None => 0,
            Mask::Bool(v, _) => v.len(),
            Mask::Float(v, _) => v.len(),
        };
        assert!(len == dims.iter().product::<usize>(), "attn_mask length");
        Mask4 { mask: m, dims }
    }

    /// The mask part of the bias of `(b, h, i)` for each key (0 without a mask).
    fn row(&self, (b, h, i): (usize, usize, usize), out: &mut [f32]) {
        let d = self.dims;
        let at = |v: usize, n: usize| if n == 1 { 0 } else { v };
        let base = ((at(b, d[0]) * d[1] + at(h, d[1])) * d[2] + at(i, d[2])) * d[3];
        for (j, o) in out.iter_mut().enumerate() {
            *o = match self.mask {
                Mask::None => 0.0,
                _ if j >= d[3] => f32::NEG_INFINITY,
                Mask::Bool(m, _) => {
                    if m[base + j] {
                        0.0
                    } else {
                        f32::NEG_INFINITY
                    }
                }
                Mask::Float(m, _) => m[base + j],
            };
        }
    }
}

/// Run one `onnx.Attention` (see the module docs): Y into `y`, the present
/// caches and the requested `qk_matmul_output` into the scratch head.
/// Asserts shapes and lengths.
pub fn onnx_attention(p: &OnnxAttention, ins: OnnxAttentionInputs<'_>, y: &mut [f32], scratch: &mut [f32]) {
    p.check();
    let need = onnx_attention_scratch_len(p);
    assert!(scratch.len() >= need, "attention scratch has {} elements, needs {need}", scratch.len());
    assert_eq!(ins.q.len(), p.batch * p.q_heads * p.q_seq * p.head, "attention Q length");
    assert_eq!(y.len(), p.batch * p.q_heads * p.q_seq * p.v_head, "attention Y length");
    assert!(ins.nonpad.is_none_or(|l| l.len() == p.batch), "nonpad_kv_seqlen needs {} values", p.batch);
    let mask = Mask4::new(ins.mask, p);
    let [lk, lv, lq] = p.head_lens();
    let (pk, rest) = scratch.split_at_mut(lk);
    let (pv, rest) = rest.split_at_mut(lv);
    let (qk, rest) = rest.split_at_mut(lq);
    let (s, rest) = rest.split_at_mut(p.rows() * p.total());
    let (brow, gs) = rest.split_at_mut(p.total());
    gather(p, ins.past_key, ins.k, p.head, pk);
    gather(p, ins.past_value, ins.v, p.v_head, pv);
    let kv = [&*pk, &*pv];
    for b in 0..p.batch {
        for h in 0..p.q_heads {
            for i0 in (0..p.q_seq).step_by(p.rows()) {
                let rows = p.rows().min(p.q_seq - i0);
                let s = &mut s[..rows * p.total()];
                query_block(p, (b, h, i0, rows), ins, &mask, kv, [s, &mut *brow, &mut *gs], qk, y);
            }
        }
    }
}

/// Offset and row stride of head `(b, h)` of a Q-like tensor with `heads`
/// heads of `d` features and `seq` positions.
fn head_at(p: &OnnxAttention, (b, h): (usize, usize), heads: usize, seq: usize, d: usize) -> (usize, usize) {
    if p.three_d {
        (b * seq * heads * d + h * d, heads * d)
    } else {
        ((b * heads + h) * seq * d, d)
    }
}

/// The queries `i0..i0 + rows` of query head `(b, h)` (`s` holds
/// `rows × T` scores): scores, softcap, bias, softmax and `· V` (see the module docs).
#[allow(clippy::too_many_arguments)]
fn query_block(
    p: &OnnxAttention,
    (b, h, i0, rows): (usize, usize, usize, usize),
    ins: OnnxAttentionInputs<'_>,
    mask: &Mask4<'_>,
    [pk, pv]: [&[f32]; 2],
    [s, brow, gs]: [&mut [f32]; 3],
    qk: &mut [f32],
    y: &mut [f32],
) {
    let (sq, t, d, dv) = (p.q_seq, p.total(), p.head, p.v_head);
    let kvh = h / (p.q_heads / p.kv_heads);
    let (qo, qld) = head_at(p, (b, h), p.q_heads, sq, d);
    let qo = qo + i0 * qld;
    let kmat = &pk[(b * p.kv_heads + kvh) * t * d..][..t * d];
    let vmat = &pv[(b * p.kv_heads + kvh) * t * dv..][..t * dv];
    let a = Raw { data: &ins.q[qo..], ld: qld, trans: false };
    let kb = Raw { data: kmat, ld: d, trans: true };
    let ep = Epilogue { alpha: p.scale, ..Epilogue::default() };
    gemm::run_isa(gemm::current(), Dims { m: rows, n: t, k: d, ldc: t }, &a, &kb, s, &ep, gs);
    let qk_at = ((b * p.q_heads + h) * sq + i0) * t;
    let mut save = |mode: u8, s: &[f32]| {
        if p.qk_mode == Some(mode) {
            qk[qk_at..qk_at + rows * t].copy_from_slice(s);
        }
    };
    save(0, s);
    if p.softcap > 0.0 {
        s.iter_mut().for_each(|x| *x = (*x / p.softcap).tanh() * p.softcap);
    }
    save(1, s);
    if t > 0 {
        for (i, row) in s.chunks_exact_mut(t).enumerate() {
            add_bias(p, (b, h, i0 + i), ins.nonpad, mask, row, brow);
        }
    }
    save(2, s);
    if t > 0 {
        softmax_rows(s, t);
    }
    save(3, s);
    let (yo, yld) = head_at(p, (b, h), p.q_heads, sq, dv);
    let yo = yo + i0 * yld;
    let pa = Raw { data: s, ld: t, trans: false };
    let vb = Raw { data: vmat, ld: dv, trans: false };
    let ep = Epilogue::default();
    gemm::run_isa(gemm::current(), Dims { m: rows, n: dv, k: t, ldc: yld }, &pa, &vb, &mut y[yo..], &ep, gs);
}

/// `row += bias` for query `i` of head `(b, h)`: the mask part, then −∞ added
/// for keys hidden by `is_causal` or `nonpad_kv_seqlen`. `tmp` holds ≥ T values.
fn add_bias(
    p: &OnnxAttention,
    (b, h, i): (usize, usize, usize),
    nonpad: Option<&[i64]>,
    mask: &Mask4<'_>,
    row: &mut [f32],
    tmp: &mut [f32],
) {
    let bias = &mut tmp[..row.len()];
    mask.row((b, h, i), bias);
    let len = nonpad.map(|l| l[b]);
    for (j, (x, &bv)) in row.iter_mut().zip(bias.iter()).enumerate() {
        let hidden = (p.causal && j >= p.past && j - p.past > i) || len.is_some_and(|l| j as i64 >= l);
        let bv = if hidden { bv + f32::NEG_INFINITY } else { bv };
        *x += bv;
    }
}
