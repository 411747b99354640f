//! Stateful sequence mixers of recent recurrent/linear-attention models
//! (opset 26): `LinearAttention` (a per-head `dk × dv` state updated token
//! by token under the linear, gated, delta or gated-delta rule) and
//! `CausalConvWithState` (a causal depthwise 1-D convolution that carries
//! its last `k - 1` inputs as state). f32; the arithmetic follows the
//! reference interpreter operation for operation.

/// LinearAttention sizes and options.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinearAttn {
    /// Batch.
    pub b: usize,
    /// Tokens.
    pub t: usize,
    /// Query heads (a multiple of `hkv`; groups of `hq / hkv` share a state).
    pub hq: usize,
    /// Key/value heads.
    pub hkv: usize,
    /// Key head size.
    pub dk: usize,
    /// Value head size.
    pub dv: usize,
    /// `decay` holds one value per key dim (`[B, T, hkv·dk]`), else per head (`[B, T, hkv]`).
    pub decay_per_dim: bool,
    /// `beta` holds one value per head (`[B, T, hkv]`), else one (`[B, T, 1]`).
    pub beta_per_head: bool,
    /// Output scale (the interpreter's `scale`, `1/sqrt(dk)` when 0).
    pub scale: f64,
}

impl LinearAttn {
    /// Elements of the state `[B, hkv, dk, dv]`.
    pub fn state_len(&self) -> usize {
        self.b * self.hkv * self.dk * self.dv
    }
}

/// One token's update of one head's state `s` (`dk × dv`): decay by
/// `exp(g)`, delta correction `v ← β (v - sᵀk)`, then `s += k vᵀ`.
fn update(
    p: &LinearAttn,
    s: &mut [f32],
    kt: &[f32],
    vt: &[f32],
    decay: Option<&[f32]>,
    beta: Option<f32>,
    v: &mut [f32],
) {
    let (dk, dv) = (p.dk, p.dv);
    if let Some(g) = decay {
        for d in 0..dk {
            let e = g[if p.decay_per_dim { d } else { 0 }].exp();
            s[d * dv..(d + 1) * dv].iter_mut().for_each(|x| *x *= e);
        }
    }
    v.copy_from_slice(vt);
    if let Some(beta) = beta {
        for (m, vm) in v.iter_mut().enumerate() {
            let retrieved: f32 = (0..dk).map(|d| s[d * dv + m] * kt[d]).sum();
            *vm = beta * (*vm - retrieved);
        }
    }
    for d in 0..dk {
        let row = &mut s[d * dv..(d + 1) * dv];
        row.iter_mut().zip(v.iter()).for_each(|(x, &vm)| *x += kt[d] * vm);
    }
}

/// LinearAttention: `out [B, T, hq·dv]`; `state` (`[B, hkv, dk, dv]`) starts
/// as `past` (or zeros) and ends as the present state. `vbuf` is `dv`
/// elements of scratch.
#[allow(clippy::too_many_arguments)]
pub fn linear_attention(
    p: &LinearAttn,
    (q, k, v): (&[f32], &[f32], &[f32]),
    past: Option<&[f32]>,
    (decay, beta): (Option<&[f32]>, Option<&[f32]>),
    out: &mut [f32],
    state: &mut [f32],
    vbuf: &mut [f32],
) {
    let (b, t, hq, hkv, dk, dv) = (p.b, p.t, p.hq, p.hkv, p.dk, p.dv);
    assert_eq!(out.len(), b * t * hq * dv, "linear_attention: out holds {} elements", out.len());
    assert_eq!(state.len(), p.state_len(), "linear_attention: state holds {} elements", state.len());
    match past {
        Some(s) => state.copy_from_slice(s),
        None => state.fill(0.0),
    }
    let (group, per) = (hq / hkv, if p.decay_per_dim { dk } else { 1 });
    let dlen = hkv * per;
    let vbuf = &mut vbuf[..dv];
    for tok in 0..b * t {
        let bi = tok / t;
        for h in 0..hkv {
            let s = &mut state[(bi * hkv + h) * dk * dv..][..dk * dv];
            let kt = &k[tok * hkv * dk + h * dk..][..dk];
            let vt = &v[tok * hkv * dv + h * dv..][..dv];
            let g = decay.map(|d| &d[tok * dlen + h * per..][..per]);
            let be = beta.map(|be| if p.beta_per_head { be[tok * hkv + h] } else { be[tok] });
            update(p, s, kt, vt, g, be, vbuf);
        }
        for h in 0..hq {
            let s = &state[(bi * hkv + h / group) * dk * dv..][..dk * dv];
            let qt = &q[tok * hq * dk + h * dk..][..dk];
            let o = &mut out[tok * hq * dv + h * dv..][..dv];
            for (m, om) in o.iter_mut().enumerate() {
                let dot: f32 = (0..dk).map(|d| qt[d] * s[d * dv + m]).sum();
                *om = (p.scale * dot as f64) as f32;
            }
        }
    }
}

/// CausalConvWithState over `x [B, C, L]` with `w [C, 1, k]`: `out[b, c, t] =
/// Σ_j padded[t + j]·w[c, j] (+ bias[c]) (then SiLU)`, `padded` = the past
/// state (or zeros) followed by the row.
pub fn causal_conv(
    (b, c, l, k): (usize, usize, usize, usize),
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    past: Option<&[f32]>,
    silu: bool,
    out: &mut [f32],
) {
    assert!(x.len() == b * c * l && out.len() == x.len() && w.len() == c * k, "causal_conv: operand sizes");
    let at = |bc: usize, i: usize| -> f32 {
        // Position i of the padded row (length l + k - 1).
        if i + 1 >= k {
            x[bc * l + i + 1 - k]
        } else {
            past.map_or(0.0, |p| p[bc * (k - 1) + i])
        }
    };
    for bc in 0..b * c {
        let ch = bc % c;
        for ti in 0..l {
            let dot: f32 = (0..k).map(|j| at(bc, ti + j) * w[ch * k + j]).sum();
            let y = (dot as f64 + bias.map_or(0.0, |b| b[ch] as f64)) as f32;
            out[bc * l + ti] = if silu { y * (1.0 / (1.0 + (-y).exp())) } else { y };
        }
    }
}

/// CausalConvWithState's present state `[B, C, k-1]`: the last `k - 1`
/// positions of each padded row.
pub fn causal_conv_state(
    (b, c, l, k): (usize, usize, usize, usize),
    x: &[f32],
    past: Option<&[f32]>,
    state: &mut [f32],
) {
    let s = k - 1;
    assert!(state.len() == b * c * s && x.len() == b * c * l, "causal_conv_state: operand sizes");
    for bc in 0..b * c {
        for i in 0..s {
            // Padded position l + i (of l + s), i.e. x[l + i - s] or the past's [l + i].
            let pos = l + i;
            state[bc * s + i] = if pos >= s { x[bc * l + pos - s] } else { past.map_or(0.0, |p| p[bc * s + pos]) };
        }
    }
}
