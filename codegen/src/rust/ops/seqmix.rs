//! Stateful sequence mixers: `onnx.LinearAttention` and
//! `onnx.CausalConvWithState` (the `k::seqmix` kernels), f32.
//!
//! LinearAttention's one kernel call writes the output and leaves the
//! present state at the scratch head; the block of the state result copies
//! it (no other op runs in between). CausalConvWithState's state block reads
//! the operands again (the last `k - 1` padded positions).

use crate::rust::func::OpCx;
use ir::Opcode;

/// Lower a sequence mixer; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::LinearAttention => linear_attention(cx)?,
        Opcode::CausalConvWithState => causal_conv(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn opt(cx: &mut OpCx<'_, '_>, i: usize) -> Result<String, String> {
    Ok(match cx.op.operand(i) {
        Some(_) => format!("Some({})", cx.input(i)?),
        None => "None".into(),
    })
}

/// The kernel's `LinearAttn` literal (sizes checked against every operand).
fn linear_params(cx: &OpCx<'_, '_>) -> Result<(String, usize, usize), String> {
    let op = cx.op;
    let int = |k: &str| op.attrs.int(k).filter(|&v| v > 0).map(|v| v as usize);
    let (hq, hkv) = (int("q_num_heads"), int("kv_num_heads"));
    let (Some(hq), Some(hkv)) = (hq, hkv) else { return Err("q_num_heads and kv_num_heads must be positive".into()) };
    let (q, k, v) = (cx.in_dims(0), cx.in_dims(1), cx.in_dims(2));
    let [b, t, ql] = q[..] else { return Err(format!("query {q:?} must be 3-D")) };
    let [_, _, vl] = v[..] else { return Err(format!("value {v:?} must be 3-D")) };
    if hq % hkv != 0 || ql % hq != 0 || vl % hkv != 0 {
        return Err(format!("query {q:?} / value {v:?} do not split into {hq} / {hkv} heads"));
    }
    let (dk, dv) = (ql / hq, vl / hkv);
    if k != [b, t, hkv * dk] {
        return Err(format!("key {k:?} does not match query {q:?}"));
    }
    // As the interpreter reads them: decay is per head when its last dim is
    // hkv, beta is shared when its last dim is 1.
    let decay_per_dim = op.operand(4).is_some() && cx.in_dims(4).last() != Some(&hkv);
    let beta_per_head = op.operand(5).is_some() && cx.in_dims(5).last() != Some(&1);
    let scale = match op.attrs.float("scale").unwrap_or(0.0) {
        0.0 => 1.0 / (dk as f64).sqrt(),
        s => s as f64,
    };
    let lit = format!(
        "k::seqmix::LinearAttn {{ b: {b}, t: {t}, hq: {hq}, hkv: {hkv}, dk: {dk}, dv: {dv}, \
         decay_per_dim: {decay_per_dim}, beta_per_head: {beta_per_head}, scale: {scale:?} }}"
    );
    Ok((lit, b * hkv * dk * dv, dv))
}

fn linear_attention(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    super::f32_only(cx)?;
    let rule = cx.op.attrs.str("update_rule").unwrap_or("gated_delta");
    let (gating, delta) = match rule {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        r => return Err(format!("unknown update_rule {r:?}")),
    };
    if cx.op.operand(4).is_some() != gating || cx.op.operand(5).is_some() != delta {
        return Err(format!("update_rule {rule:?} does not match the decay/beta operands given"));
    }
    let (lit, state, dv) = linear_params(cx)?;
    let p = cx.item("k::seqmix::LinearAttn", lit);
    cx.scratch(format!("{} + {dv}", state));
    let out = cx.begin(0);
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let (past, decay, beta) = (opt(cx, 3)?, opt(cx, 4)?, opt(cx, 5)?);
    cx.line(format!("let (st, vb) = self.scratch.split_at_mut({state});"));
    cx.line(format!("k::seqmix::linear_attention(&{p}, ({q}, {k}, {v}), {past}, ({decay}, {beta}), {out}, st, vb);"));
    if cx.op.results.len() > 1 {
        let out = cx.begin(1);
        cx.line(format!("{out}.copy_from_slice(&self.scratch[..{state}]);"));
    }
    Ok(())
}

fn causal_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    super::f32_only(cx)?;
    let (x, w) = (cx.in_dims(0), cx.in_dims(1));
    let [b, c, l] = x[..] else { return Err(format!("input {x:?} must be [B, C, L]")) };
    let k = match w[..] {
        [wc, 1, k] if wc == c && k >= 1 => k,
        _ => return Err(format!("weight {w:?} must be [{c}, 1, k]")),
    };
    let silu = match cx.op.attrs.str("activation").unwrap_or("none") {
        "none" => false,
        "silu" | "swish" => true,
        a => return Err(format!("unknown activation {a:?}")),
    };
    let dims = format!("({b}, {c}, {l}, {k})");
    let out = cx.begin(0);
    let (xi, wi) = (cx.input(0)?, cx.input(1)?);
    let (bias, past) = (opt(cx, 2)?, opt(cx, 3)?);
    cx.line(format!("k::seqmix::causal_conv({dims}, {xi}, {wi}, {bias}, {past}, {silu}, {out});"));
    if cx.op.results.len() > 1 {
        let out = cx.begin(1);
        let xi = cx.input(0)?;
        let past = opt(cx, 3)?;
        cx.line(format!("k::seqmix::causal_conv_state({dims}, {xi}, {past}, {out});"));
    }
    Ok(())
}
