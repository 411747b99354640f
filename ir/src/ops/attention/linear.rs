//! Inference of the sequence ops added in opsets 25–27: LinearAttention,
//! CausalConvWithState (the causal depthwise convolution of linear-attention
//! models) and (from `ai.onnx.preview`) FlexAttention.
//!
//! The attribute rules shared with the reference kernels (`update_rule`,
//! head counts, `activation`, `softmax_precision`) are public here.

use crate::ops::{dim_div, dim_mul, expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// f32, f16 or bf16: the element types of LinearAttention and CausalConvWithState.
fn is_f32ish(dt: DType) -> bool {
    matches!(dt, DType::F32 | DType::F16 | DType::BF16)
}

/// Operand `i` (if present) must have element type `dt` (that of `of`).
fn same_as(ctx: &InferCtx<'_>, i: usize, name: &str, dt: DType, of: &str) -> Result<(), String> {
    match ctx.opt_input(i) {
        Some(t) if t.dtype != dt => {
            Err(format!("{name} has element type {}, expected {dt} (the type of {of})", t.dtype))
        }
        _ => Ok(()),
    }
}

/// The dims of `t` (or `rank` unknown dims), erroring on another rank.
fn dims_of(t: &TensorType, rank: usize, what: &str) -> Result<Vec<Dim>, String> {
    match t.dims() {
        None => Ok(vec![Dim::Unknown; rank]),
        Some(d) if d.len() == rank => Ok(d.to_vec()),
        Some(_) => Err(format!("{what} {t} must have rank {rank}")),
    }
}

/// The most precise of dims that must agree: an error if two static ones differ.
fn agree(dims: &[(Dim, &str)]) -> Result<Dim, String> {
    let mut out = Dim::Unknown;
    for &(d, _) in dims {
        match (out, d) {
            (Dim::Static(p), Dim::Static(q)) if p != q => {
                let all: Vec<String> = dims.iter().map(|(d, w)| format!("{w} = {d}")).collect();
                return Err(format!("sizes disagree: {}", all.join(", ")));
            }
            (Dim::Unknown, _) | (Dim::Sym(_), Dim::Static(_)) => out = d,
            _ => {}
        }
    }
    Ok(out)
}

/// A positive integer attribute.
fn positive(ctx: &InferCtx<'_>, name: &str) -> Result<u64, String> {
    match ctx.attrs.int(name) {
        Some(v) if v >= 1 => Ok(v as u64),
        Some(v) => Err(format!("attribute `{name}` = {v} must be ≥ 1")),
        None => Err(format!("missing required attribute `{name}`")),
    }
}

/// LinearAttention's `update_rule` as `(gating, delta_correction)`.
pub fn update_rule(rule: &str) -> Result<(bool, bool), String> {
    match rule {
        "linear" => Ok((false, false)),
        "gated" => Ok((true, false)),
        "delta" => Ok((false, true)),
        "gated_delta" => Ok((true, true)),
        other => Err(format!("attribute `update_rule` has invalid value {other:?}")),
    }
}

/// LinearAttention's head counts `(q_num_heads, kv_num_heads)`, validated.
pub fn heads(ctx: &InferCtx<'_>) -> Result<(u64, u64), String> {
    let (hq, hkv) = (positive(ctx, "q_num_heads")?, positive(ctx, "kv_num_heads")?);
    if hq % hkv != 0 {
        return Err(format!("q_num_heads = {hq} must be a multiple of kv_num_heads = {hkv}"));
    }
    Ok((hq, hkv))
}

/// Check the optional `decay` (#4) and `beta` (#5) against the update rule and head sizes.
fn check_gates(ctx: &InferCtx<'_>, hkv: u64, dk: Dim) -> Result<(), String> {
    let rule = ctx.str("update_rule", "gated_delta");
    let (gating, delta) = update_rule(rule)?;
    for (i, name, needed) in [(4, "decay", gating), (5, "beta", delta)] {
        match (ctx.opt_input(i), needed) {
            (None, true) => return Err(format!("update_rule {rule:?} requires the `{name}` operand")),
            (Some(_), false) => return Err(format!("update_rule {rule:?} does not take the `{name}` operand")),
            _ => {}
        }
    }
    if let Some(d) = ctx.opt_input(4) {
        let last = dims_of(d, 3, "decay")?[2];
        let full = dim_mul(dk, hkv);
        if last.as_static().is_some_and(|l| l != hkv && full.as_static().is_some_and(|f| f != l)) {
            return Err(format!("decay {d}: last dim must be kv_num_heads ({hkv}) or kv_num_heads × d_k ({full})"));
        }
    }
    if let Some(b) = ctx.opt_input(5) {
        let last = dims_of(b, 3, "beta")?[2];
        if last.as_static().is_some_and(|l| l != hkv && l != 1) {
            return Err(format!("beta {b}: last dim must be kv_num_heads ({hkv}) or 1"));
        }
    }
    Ok(())
}

/// LinearAttention: `query [B, T, Hq*dk]`, `key [B, T, Hkv*dk]`, `value [B, T, Hkv*dv]`
/// → `output [B, T, Hq*dv]` (query's type) and `present_state [B, Hkv, dk, dv]`
/// (past_state's type, or query's when past_state is omitted).
pub fn linear_attention(ctx: &InferCtx<'_>) -> InferResult {
    let q = ctx.input(0)?;
    expect_dtype(q, "query", is_f32ish, "f32, f16 or bf16")?;
    for (i, name) in [(1, "key"), (2, "value"), (4, "decay"), (5, "beta")] {
        same_as(ctx, i, name, q.dtype, "query")?;
    }
    let (hq, hkv) = heads(ctx)?;
    let (qd, kd, vd) =
        (dims_of(q, 3, "query")?, dims_of(ctx.input(1)?, 3, "key")?, dims_of(ctx.input(2)?, 3, "value")?);
    let dk = dim_div(qd[2], hq, "query's last dim (q_num_heads × d_k)")?;
    let dv = dim_div(vd[2], hkv, "value's last dim (kv_num_heads × d_v)")?;
    agree(&[(kd[2], "key's last dim"), (dim_mul(dk, hkv), "kv_num_heads × d_k")])?;
    let b = agree(&[(qd[0], "query batch"), (kd[0], "key batch"), (vd[0], "value batch")])?;
    let t = agree(&[(qd[1], "query length"), (kd[1], "key length"), (vd[1], "value length")])?;
    check_gates(ctx, hkv, dk)?;
    let mut state_dt = q.dtype;
    if let Some(p) = ctx.opt_input(3) {
        expect_dtype(p, "past_state", is_f32ish, "f32, f16 or bf16")?;
        let pd = dims_of(p, 4, "past_state")?;
        for (j, (d, want)) in pd.iter().zip([b, Dim::Static(hkv), dk, dv]).enumerate() {
            agree(&[(*d, "past_state dim"), (want, ["batch", "kv_num_heads", "d_k", "d_v"][j])])?;
        }
        state_dt = p.dtype;
    }
    let out = TensorType::new(q.dtype, Shape::from_dims([b, t, dim_mul(dv, hq)]));
    let state = TensorType::new(state_dt, Shape::from_dims([b, Dim::Static(hkv), dk, dv]));
    Ok([out, state].into_iter().take(ctx.num_results.max(1)).collect())
}

/// CausalConvWithState's `activation`: true for SiLU (`silu`/`swish`), false for none.
pub fn silu_activation(act: &str) -> Result<bool, String> {
    match act {
        "none" => Ok(false),
        "silu" | "swish" => Ok(true),
        other => Err(format!("attribute `activation` has invalid value {other:?}")),
    }
}

/// CausalConvWithState: `input [B, C, L]`, `weight [C, 1, k]`, optional `bias [C]` and
/// `past_state [B, C, k-1]` of one float type → `output [B, C, L]`, `present_state [B, C, k-1]`.
pub fn causal_conv_with_state(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", is_f32ish, "f32, f16 or bf16")?;
    for (i, name) in [(1, "weight"), (2, "bias"), (3, "past_state")] {
        same_as(ctx, i, name, x.dtype, "input")?;
    }
    silu_activation(ctx.str("activation", "none"))?;
    let (xd, wd) = (dims_of(x, 3, "input")?, dims_of(ctx.input(1)?, 3, "weight")?);
    if wd[1].as_static().is_some_and(|d| d != 1) {
        return Err(format!("weight {} must have shape [channels, 1, k]", ctx.input(1)?));
    }
    let mut c = agree(&[(xd[1], "input channels"), (wd[0], "weight channels")])?;
    let km1 = match wd[2] {
        Dim::Static(0) => return Err("weight has kernel size 0".into()),
        Dim::Static(k) => Dim::Static(k - 1),
        _ => Dim::Unknown,
    };
    if let Some(bias) = ctx.opt_input(2) {
        c = agree(&[(c, "channels"), (dims_of(bias, 1, "bias")?[0], "bias size")])?;
    }
    let mut b = xd[0];
    if let Some(p) = ctx.opt_input(3) {
        let pd = dims_of(p, 3, "past_state")?;
        b = agree(&[(b, "input batch"), (pd[0], "past_state batch")])?;
        c = agree(&[(c, "channels"), (pd[1], "past_state channels")])?;
        agree(&[(pd[2], "past_state length"), (km1, "kernel size - 1")])?;
    }
    let out = TensorType::new(x.dtype, Shape::from_dims([b, c, xd[2]]));
    let state = TensorType::new(x.dtype, Shape::from_dims([b, c, km1]));
    Ok([out, state].into_iter().take(ctx.num_results.max(1)).collect())
}

/// FlexAttention's softmax element type: `softmax_precision` (an ONNX type code:
/// 1 f32, 10 f16, 16 bf16, 11 f64) or f64 for f64 inputs and f32 otherwise.
pub fn softmax_dtype(precision: Option<i64>, input: DType) -> Result<DType, String> {
    Ok(match precision {
        Some(1) => DType::F32,
        Some(10) => DType::F16,
        Some(16) => DType::BF16,
        Some(11) => DType::F64,
        Some(p) => return Err(format!("attribute `softmax_precision` = {p} is not a float type code (1, 10, 11, 16)")),
        None if input == DType::F64 => DType::F64,
        None => DType::F32,
    })
}

/// FlexAttention (no `score_mod`/`prob_mod`): `Q [B, Hq, L, E]`, `K [B, Hkv, S, E]`,
/// `V [B, Hkv, S, Ev]` of one float type, `Hq` a multiple of `Hkv` → `Y [B, Hq, L, Ev]`.
pub fn flex_attention(ctx: &InferCtx<'_>) -> InferResult {
    let q = ctx.input(0)?;
    expect_dtype(q, "Q", DType::is_float, "a float type")?;
    same_as(ctx, 1, "K", q.dtype, "Q")?;
    same_as(ctx, 2, "V", q.dtype, "Q")?;
    softmax_dtype(ctx.attrs.int("softmax_precision"), q.dtype)?;
    let (qd, kd, vd) = (dims_of(q, 4, "Q")?, dims_of(ctx.input(1)?, 4, "K")?, dims_of(ctx.input(2)?, 4, "V")?);
    let b = agree(&[(qd[0], "Q batch"), (kd[0], "K batch"), (vd[0], "V batch")])?;
    let hkv = agree(&[(kd[1], "K heads"), (vd[1], "V heads")])?;
    agree(&[(kd[2], "K length"), (vd[2], "V length")])?;
    agree(&[(qd[3], "Q head size"), (kd[3], "K head size")])?;
    if let (Dim::Static(hq), Dim::Static(hkv)) = (qd[1], hkv) {
        if hkv == 0 || hq % hkv != 0 {
            return Err(format!("Q's {hq} heads must be a multiple of K/V's {hkv} heads"));
        }
    }
    Ok(vec![TensorType::new(q.dtype, Shape::from_dims([b, qd[1], qd[2], vd[3]]))])
}
