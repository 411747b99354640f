//! `CausalConvWithState` (opset 26, the short convolution of recent
//! state-space / linear-attention models): a causal depthwise 1-D
//! convolution that carries its last `k - 1` inputs as state. f32; the
//! arithmetic follows the reference interpreter operation for operation.
//! (LinearAttention is in the parent module.)

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
