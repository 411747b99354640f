//! Shape/type inference of the attention family: onnx.Attention,
//! RotaryEmbedding, `core.attention` and `core.attention_blocked` here;
//! LinearAttention, CausalConvWithState and FlexAttention in [`linear`]; the
//! Swin window ops (`core.window_partition`, `core.window_merge`,
//! `core.window_attention`) in [`window`].
//!
//! `core.attention` is defined as `softmax(Q @ Kᵀ * scale + mask) @ V`; its
//! inference composes the MatMul inference of [`super::linalg`].

use super::linalg::{broadcast_into, matmul_of, swap_last_two};
use super::{dim_div, dim_mul, expect_dtype, expect_same, same_type, shape, InferCtx, InferResult};
use crate::types::{DType, Dim, TensorType};

pub mod linear;
pub mod window;

/// `[B, H, S, D]` of a 3-D (`[B, S, H*D]`, `heads` given) or 4-D attention operand.
fn heads(t: &TensorType, heads: Option<u64>, what: &str) -> Result<[Dim; 4], String> {
    match t.dims() {
        Some(&[b, h, s, d]) => Ok([b, h, s, d]),
        Some(&[b, s, hd]) => {
            let h = heads.ok_or_else(|| format!("3-D {what} needs the num_heads attributes"))?;
            Ok([b, Dim::Static(h), s, dim_div(hd, h, "hidden size")?])
        }
        Some(_) => Err(format!("{what} {t} must be 3-D or 4-D")),
        None => Ok([Dim::Unknown; 4]),
    }
}

/// Attention: Y `[B, Hq, Sq, Dv]` (4-D) or `[B, Sq, Hq*Dv]` (3-D); present_key/value
/// `[B, Hkv, past + Skv, D/Dv]`; qk_matmul_output `[B, Hq, Sq, past + Skv]`.
pub fn attention(ctx: &InferCtx<'_>) -> InferResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(q, "Q", DType::is_float, "a float type")?;
    same_type(k, "K", q.dtype)?;
    expect_dtype(v, "V", DType::is_float, "a float type")?;
    if let Some(t) = ctx.opt_input(6) {
        same_type(t, "nonpad_kv_seqlen", DType::I64)?;
    }
    let num = |name: &str| ctx.attrs.int(name).and_then(|h| u64::try_from(h).ok()).filter(|&h| h > 0);
    let (qh, kvh) = (num("q_num_heads"), num("kv_num_heads"));
    let ([b, hq, sq, _], [_, hk, skv, dk], [_, _, _, dv]) =
        (heads(q, qh, "Q")?, heads(k, kvh, "K")?, heads(v, kvh, "V")?);
    let past = ctx.opt_input(4).map(|p| heads(p, None, "past_key")).transpose()?;
    let total = match past.map(|p| p[2]) {
        None => skv,
        Some(Dim::Static(p)) => match skv {
            Dim::Static(s) => Dim::Static(p + s),
            _ if p == 0 => skv,
            _ => Dim::Unknown,
        },
        Some(_) => Dim::Unknown,
    };
    let y = match q.rank() {
        Some(3) => shape([
            b,
            sq,
            match hq.as_static() {
                Some(h) => dim_mul(dv, h),
                None => Dim::Unknown,
            },
        ]),
        Some(_) => shape([b, hq, sq, dv]),
        None => crate::types::Shape::Unranked,
    };
    let mut out = vec![TensorType::new(q.dtype, y)];
    let rest = [
        TensorType::new(k.dtype, shape([b, hk, total, dk])),
        TensorType::new(v.dtype, shape([b, hk, total, dv])),
        TensorType::new(q.dtype, shape([b, hq, sq, total])),
    ];
    out.extend(rest.into_iter().take(ctx.num_results.saturating_sub(1)));
    Ok(out)
}

/// RotaryEmbedding: X `[B, H, S, D]` or `[B, S, hidden]` (f32/f16/bf16), caches of X's
/// type, optional i64 `position_ids`; Y is X's type.
pub fn rotary_embedding(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", |d| matches!(d, DType::F32 | DType::F16 | DType::BF16), "f32, f16 or bf16")?;
    if x.rank().is_some_and(|r| r != 3 && r != 4) {
        return Err(format!("X {x} must be 3-D or 4-D"));
    }
    if x.rank() == Some(3) && ctx.int("num_heads", 0) < 1 {
        return Err("3-D X needs attribute `num_heads` ≥ 1".into());
    }
    same_type(ctx.input(1)?, "cos_cache", x.dtype)?;
    same_type(ctx.input(2)?, "sin_cache", x.dtype)?;
    if let Some(p) = ctx.opt_input(3) {
        same_type(p, "position_ids", DType::I64)?;
    }
    Ok(vec![x.clone()])
}

/// Error unless `t` is unranked or has rank ≥ 2; `layout` describes the expected axes.
fn rank2(t: &TensorType, what: &str, layout: &str) -> Result<(), String> {
    match t.rank() {
        Some(r) if r < 2 => Err(format!("{what} {t} must have rank ≥ 2 ({layout})")),
        _ => Ok(()),
    }
}

/// Dim `i` counted from the end (`1` is the last), if known.
fn from_end(t: &TensorType, i: usize) -> Option<Dim> {
    t.dims().and_then(|d| d.len().checked_sub(i).map(|k| d[k]))
}

/// Error if both dims are static and differ.
fn same_dim(a: Option<Dim>, b: Option<Dim>, msg: impl FnOnce(u64, u64) -> String) -> Result<(), String> {
    match (a, b) {
        (Some(Dim::Static(p)), Some(Dim::Static(q))) if p != q => Err(msg(p, q)),
        _ => Ok(()),
    }
}

/// `core.attention`: `Q [..., Sq, D]`, `K [..., Sk, D]`, `V [..., Sk, Dv]`,
/// optional `mask` (bool or Q's type) broadcasting to the scores `[..., Sq, Sk]`
/// → `Y [..., Sq, Dv]`; leading dims broadcast like MatMul batch dims.
pub fn core_attention(ctx: &InferCtx<'_>) -> InferResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(q, "Q", DType::is_float, "a float type")?;
    expect_same(k, "K", q.dtype, "Q")?;
    expect_same(v, "V", q.dtype, "Q")?;
    rank2(q, "Q", "[..., Sq, D]")?;
    rank2(k, "K", "[..., Sk, D]")?;
    rank2(v, "V", "[..., Sk, Dv]")?;
    if ctx.attrs.float("scale").is_none() {
        return Err("missing required attribute `scale`".into());
    }
    let causal = ctx.int("causal", 0);
    if causal != 0 && causal != 1 {
        return Err(format!("attribute `causal` = {causal} must be 0 or 1"));
    }
    if let Some(w) = ctx.attrs.int("window").filter(|&w| w < 0) {
        return Err(format!("attribute `window` = {w} must be >= 0"));
    }
    same_dim(from_end(q, 1), from_end(k, 1), |p, r| {
        format!("Q {q} and K {k} must have the same head size D (last dim): {p} vs {r}")
    })?;
    same_dim(from_end(k, 2), from_end(v, 2), |p, r| {
        format!("K {k} and V {v} must have the same key count Sk (second-to-last dim): {p} vs {r}")
    })?;
    let scores = matmul_of(ctx, q, &swap_last_two(k)).map_err(|e| format!("Q @ Kᵀ: {e}"))?;
    if let Some(mask) = ctx.opt_input(3) {
        if mask.dtype != DType::Bool {
            expect_same(mask, "mask", q.dtype, "Q").map_err(|e| format!("{e} or bool"))?;
        }
        broadcast_into(mask, "mask", &scores)?;
    }
    let y = matmul_of(ctx, &scores, v).map_err(|e| format!("softmax(scores) @ V: {e}"))?;
    Ok(vec![y])
}

/// `core.attention_blocked`: `core.attention`'s inference ([`core_attention`]), plus `block_q` and
/// `block_k` (required) must be ≥ 1. The result does not depend on them.
pub fn core_attention_blocked(ctx: &InferCtx<'_>) -> InferResult {
    for name in ["block_q", "block_k"] {
        match ctx.attrs.int(name) {
            None => return Err(format!("missing required attribute `{name}`")),
            Some(b) if b < 1 => return Err(format!("attribute `{name}` = {b} must be >= 1")),
            Some(_) => {}
        }
    }
    core_attention(ctx)
}
