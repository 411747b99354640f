//! `onnx.LinearAttention`: a recurrent linear-attention state, token by
//! token, over packed `[B, T, H·D]` query/key/value heads. For each token
//! and KV head with state `S` (`dk × dv`): `S *= exp(decay)` (gated rules,
//! per head or per key dim), `v ← beta · (v − Sᵀk)` (delta rules), then
//! `S += k vᵀ`; query head `h` (sharing KV head `h / (Hq / Hkv)`) reads
//! `y = scale · Sᵀq`. All in f32; the state update is the numeric core's
//! (`edgec_numeric::attention::linear_update`), which the interpreter calls.

use edgec_numeric::attention::linear_update;

/// Sizes and settings, resolved at compile time. Invariants (asserted):
/// `kv_heads ≥ 1`, `q_heads % kv_heads == 0`, `beta_last` 1 or `kv_heads`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinearAttention {
    /// Batch size.
    pub batch: usize,
    /// Tokens.
    pub seq: usize,
    /// Query heads.
    pub q_heads: usize,
    /// Key/value heads (and states per batch entry).
    pub kv_heads: usize,
    /// Key head size.
    pub dk: usize,
    /// Value head size.
    pub dv: usize,
    /// Output scale.
    pub scale: f32,
    /// `decay` holds one value per key dim (else one per head).
    pub decay_per_dim: bool,
    /// `beta`'s last dim (`kv_heads`, or 1 for one value per token).
    pub beta_last: usize,
}

/// The optional operands.
#[derive(Copy, Clone, Debug, Default)]
pub struct LinearAttentionExtras<'a> {
    /// `past_state` `[B, Hkv, dk, dv]` (zeros without it).
    pub past: Option<&'a [f32]>,
    /// `decay` `[B, T, Hkv]` or `[B, T, Hkv·dk]` (gated rules).
    pub decay: Option<&'a [f32]>,
    /// `beta` `[B, T, Hkv]` or `[B, T, 1]` (delta rules).
    pub beta: Option<&'a [f32]>,
}

/// Scratch elements [`linear_attention`] needs: the state, then one value row.
pub fn linear_attention_scratch_len(p: &LinearAttention) -> usize {
    p.batch * p.kv_heads * p.dk * p.dv + p.dv
}

/// Run the recurrence: Y `[B, T, Hq·dv]` into `y`, the final state
/// `[B, Hkv, dk, dv]` into the head of `scratch`. Asserts lengths.
pub fn linear_attention(
    p: &LinearAttention,
    (q, k, v): (&[f32], &[f32], &[f32]),
    ex: LinearAttentionExtras<'_>,
    y: &mut [f32],
    scratch: &mut [f32],
) {
    let (b, t, hq, hkv, dk, dv) = (p.batch, p.seq, p.q_heads, p.kv_heads, p.dk, p.dv);
    assert!(hkv >= 1 && hq.is_multiple_of(hkv), "linear attention heads {hq}/{hkv}");
    assert!(p.beta_last == 1 || p.beta_last == hkv, "linear attention beta_last {}", p.beta_last);
    assert_eq!(q.len(), b * t * hq * dk, "linear attention query length");
    assert_eq!(k.len(), b * t * hkv * dk, "linear attention key length");
    assert_eq!(v.len(), b * t * hkv * dv, "linear attention value length");
    assert_eq!(y.len(), b * t * hq * dv, "linear attention output length");
    let per = if p.decay_per_dim { dk } else { 1 };
    assert!(ex.decay.is_none_or(|d| d.len() == b * t * hkv * per), "linear attention decay length");
    assert!(ex.beta.is_none_or(|be| be.len() == b * t * p.beta_last), "linear attention beta length");
    assert!(scratch.len() >= linear_attention_scratch_len(p), "linear attention scratch too short");
    let (state, rest) = scratch.split_at_mut(b * hkv * dk * dv);
    let vrow = &mut rest[..dv];
    match ex.past {
        Some(s) => state.copy_from_slice(s),
        None => state.fill(0.0),
    }
    let sz = dk * dv;
    for bi in 0..b {
        for ti in 0..t {
            let tok = bi * t + ti;
            for h in 0..hkv {
                let s = &mut state[(bi * hkv + h) * sz..][..sz];
                vrow.copy_from_slice(&v[(tok * hkv + h) * dv..][..dv]);
                let decay = ex.decay.map(|d| &d[(tok * hkv + h) * per..][..per]).map(|g| (g, g.len() != 1));
                let beta = ex.beta.map(|be| be[tok * p.beta_last + if p.beta_last == 1 { 0 } else { h }]);
                linear_update(s, (dk, dv), &k[(tok * hkv + h) * dk..][..dk], vrow, decay, beta);
            }
            for h in 0..hq {
                let s = &state[(bi * hkv + h / (hq / hkv)) * sz..][..sz];
                let qt = &q[(tok * hq + h) * dk..][..dk];
                for (m, o) in y[(tok * hq + h) * dv..][..dv].iter_mut().enumerate() {
                    let dot: f32 = (0..dk).map(|d| qt[d] * s[d * dv + m]).sum();
                    *o = (p.scale as f64 * dot as f64) as f32;
                }
            }
        }
    }
}
