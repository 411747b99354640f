//! CausalConvWithState: a stateful causal depthwise 1-D convolution.

use crate::interp::tensor::real::{reals, round_to, to_tensor};
use crate::interp::{EvalCtx, Tensor};
use crate::ops::attention::linear::silu_activation;

/// Check the operand shapes; returns `(batch, channels, length, kernel size)`.
fn dims(x: &Tensor, w: &Tensor, bias: Option<&Tensor>, past: Option<&Tensor>) -> Result<[usize; 4], String> {
    let [b, c, l] = x.shape[..] else { return Err(format!("input {:?} must have rank 3 [B, C, L]", x.shape)) };
    let k = match w.shape[..] {
        [wc, 1, k] if wc == c && k >= 1 => k,
        _ => return Err(format!("weight {:?} must have shape [{c}, 1, k] with k ≥ 1", w.shape)),
    };
    if let Some(bias) = bias {
        if bias.shape != [c] {
            return Err(format!("bias {:?} must have shape [{c}]", bias.shape));
        }
    }
    if let Some(p) = past {
        if p.shape != [b, c, k - 1] {
            return Err(format!("past_state {:?} must have shape [{b}, {c}, {}]", p.shape, k - 1));
        }
    }
    for t in [Some(w), bias, past].into_iter().flatten() {
        if t.dtype() != x.dtype() {
            return Err(format!("operand element type {} differs from input's {}", t.dtype(), x.dtype()));
        }
    }
    Ok([b, c, l, k])
}

/// `onnx.CausalConvWithState`: `padded = concat(past_state or zeros, input)` along the
/// length axis; `output[b, c, t] = Σ_j padded[b, c, t + j] * weight[c, 0, j] + bias[c]`,
/// optionally followed by SiLU (`x * sigmoid(x)`); `present_state` is the last `k - 1`
/// positions of `padded`. As in the ONNX reference, each dot product is computed in
/// f32 and rounded to the input type, the bias is added and the sum rounded to the
/// input type before the activation (computed in f32).
pub fn causal_conv_with_state(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, w, bias, past) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2), ctx.opt(3));
    let silu = silu_activation(ctx.str("activation", "none"))?;
    let [b, c, l, k] = dims(x, w, bias, past)?;
    let dt = x.dtype();
    if !matches!(dt, crate::DType::F32 | crate::DType::F16 | crate::DType::BF16) {
        return Err(format!("element type {dt} is not supported by CausalConvWithState (f32, f16 or bf16)"));
    }
    let (xv, wv) = (reals::<f32>(x), reals::<f32>(w));
    let bv = bias.map(reals::<f32>);
    let pv = past.map(reals::<f32>);
    let plen = l + k - 1;
    let mut out = Vec::with_capacity(b * c * l);
    let mut state = Vec::with_capacity(b * c * (k - 1));
    for bc in 0..b * c {
        let ch = bc % c;
        let mut padded = pv.as_ref().map_or_else(|| vec![0.0; k - 1], |p| p[bc * (k - 1)..(bc + 1) * (k - 1)].to_vec());
        padded.extend_from_slice(&xv[bc * l..(bc + 1) * l]);
        for t in 0..l {
            let dot: f32 = (0..k).map(|j| padded[t + j] * wv[ch * k + j]).sum();
            let bias = bv.as_ref().map_or(0.0, |b| b[ch] as f64);
            let y = round_to(dt, (round_to(dt, dot) as f64 + bias) as f32);
            out.push(if silu { round_to(dt, y * (1.0 / (1.0 + (-y).exp()))) } else { y });
        }
        state.extend_from_slice(&padded[plen - (k - 1)..]);
    }
    let mut res = vec![to_tensor(dt, vec![b, c, l], out)?];
    if ctx.num_results() > 1 {
        res.push(to_tensor(dt, vec![b, c, k - 1], state)?);
    }
    Ok(res)
}
