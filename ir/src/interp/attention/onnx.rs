//! Attention (opset 23/24) and RotaryEmbedding (opset 23), following the ONNX
//! reference implementations `op_attention.py` and `op_rotary_embedding.py`.

use crate::interp::tensor::real::{float_kernel, reals, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

/// A `[B, H, S, D]` tensor in the compute type.
struct Heads<T> {
    b: usize,
    h: usize,
    s: usize,
    d: usize,
    v: Vec<T>,
}

impl<T: Real> Heads<T> {
    fn at(&self, b: usize, h: usize, s: usize, d: usize) -> T {
        self.v[((b * self.h + h) * self.s + s) * self.d + d]
    }
}

/// Q/K/V as `[B, H, S, D]`: 4-D as is, 3-D `[B, S, H*D]` split into `heads` heads.
fn to_heads<T: Real>(t: &Tensor, heads: Option<usize>, what: &str) -> Result<Heads<T>, String> {
    let v = reals::<T>(t);
    match t.shape[..] {
        [b, h, s, d] => Ok(Heads { b, h, s, d, v }),
        [b, s, hd] => {
            let h = heads.ok_or_else(|| format!("3-D {what} needs the num_heads attributes"))?;
            if h == 0 || hd % h != 0 {
                return Err(format!("{what} hidden size {hd} is not divisible by {h} heads"));
            }
            let d = hd / h;
            let mut out = vec![T::ZERO; v.len()];
            for bi in 0..b {
                for si in 0..s {
                    for hi in 0..h {
                        for di in 0..d {
                            out[((bi * h + hi) * s + si) * d + di] = v[(bi * s + si) * hd + hi * d + di];
                        }
                    }
                }
            }
            Ok(Heads { b, h, s, d, v: out })
        }
        _ => Err(format!("{what} must be 3-D or 4-D, found {:?}", t.shape)),
    }
}

/// Concatenate a past cache (operand `i`) in front of `x` along the sequence axis.
fn with_past<T: Real>(ctx: &EvalCtx<'_>, i: usize, x: Heads<T>, what: &str) -> Result<(Heads<T>, usize), String> {
    let Some(p) = ctx.opt(i) else { return Ok((x, 0)) };
    let p = to_heads::<T>(p, None, what)?;
    if p.b != x.b || p.h != x.h || p.d != x.d {
        return Err(format!("{what} [{}, {}, {}, {}] does not match the current one", p.b, p.h, p.s, p.d));
    }
    let s = p.s + x.s;
    let mut v = Vec::with_capacity(x.b * x.h * s * x.d);
    for bh in 0..x.b * x.h {
        v.extend_from_slice(&p.v[bh * p.s * p.d..(bh + 1) * p.s * p.d]);
        v.extend_from_slice(&x.v[bh * x.s * x.d..(bh + 1) * x.s * x.d]);
    }
    Ok((Heads { b: x.b, h: x.h, s, d: x.d, v }, p.s))
}

/// The additive bias `[B, Hq, Sq, T]` from `attn_mask`, `is_causal` and `nonpad_kv_seqlen`.
fn bias<T: Real>(ctx: &EvalCtx<'_>, dims: [usize; 4], past: usize) -> Result<Vec<T>, String> {
    let [b, h, sq, t] = dims;
    let mut out = vec![T::ZERO; b * h * sq * t];
    if let Some(m) = ctx.opt(3) {
        if m.rank() == 0 || m.rank() > 4 {
            return Err(format!("attn_mask must have rank 1 to 4, found {:?}", m.shape));
        }
        let mut ms = vec![1; 4 - m.rank()];
        ms.extend(&m.shape);
        for (k, (&have, want)) in ms.iter().zip([b, h, sq]).enumerate() {
            if have != 1 && have != want {
                return Err(format!("attn_mask {:?} does not broadcast on axis {k} to {want}", m.shape));
            }
        }
        if ms[3] > t {
            return Err(format!("attn_mask {:?} is longer than the total sequence length {t}", m.shape));
        }
        let boolean = m.dtype() == DType::Bool;
        let mv = m.to_f64s();
        for (i, o) in out.iter_mut().enumerate() {
            let (bi, hi, qi, j) = (i / (h * sq * t), (i / (sq * t)) % h, (i / t) % sq, i % t);
            let at = |v: usize, n: usize| if n == 1 { 0 } else { v };
            *o = if j >= ms[3] {
                T::NEG_INFINITY
            } else {
                let x = mv[((at(bi, ms[0]) * ms[1] + at(hi, ms[1])) * ms[2] + at(qi, ms[2])) * ms[3] + j];
                if boolean {
                    if x != 0.0 {
                        T::ZERO
                    } else {
                        T::NEG_INFINITY
                    }
                } else {
                    T::from_f64(x)
                }
            };
        }
    }
    let lens = ctx.opt(6).map(Tensor::to_i64s);
    if lens.as_ref().is_some_and(|l| l.len() != b) {
        return Err(format!("nonpad_kv_seqlen must have {b} values"));
    }
    let causal = ctx.int("is_causal", 0) != 0;
    for (i, o) in out.iter_mut().enumerate() {
        let (bi, qi, j) = (i / (h * sq * t), (i / t) % sq, i % t);
        if (causal && j >= past && j - past > qi) || lens.as_ref().is_some_and(|l| j as i64 >= l[bi]) {
            *o += T::NEG_INFINITY;
        }
    }
    Ok(out)
}

fn softmax_row<T: Real>(row: &mut [T]) {
    let max = row.iter().copied().fold(T::NEG_INFINITY, T::max_nan);
    let mut sum = T::ZERO;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    row.iter_mut().for_each(|v| *v /= sum);
}

fn num_heads(ctx: &EvalCtx<'_>, name: &str) -> Option<usize> {
    ctx.attrs.int(name).and_then(|h| usize::try_from(h).ok())
}

/// Scalar settings of one Attention evaluation.
struct Settings<T> {
    sq_scale: T,
    softcap: T,
    mode: i64,
}

fn settings<T: Real>(ctx: &EvalCtx<'_>, head_size: usize) -> Result<Settings<T>, String> {
    if let Some(p) = ctx.attrs.int("softmax_precision") {
        if ![1, 10, 11, 16].contains(&p) {
            return Err(format!("attribute `softmax_precision` = {p} is not a float type code"));
        }
    }
    let mode = ctx.int("qk_matmul_output_mode", 0);
    if !(0..=3).contains(&mode) {
        return Err(format!("attribute `qk_matmul_output_mode` = {mode} must be 0, 1, 2 or 3"));
    }
    let scale = ctx.attrs.float("scale").map_or(1.0 / (head_size as f64).sqrt(), |s| s as f64);
    Ok(Settings { sq_scale: T::from_f64(scale.sqrt()), softcap: T::from_f64(ctx.float("softcap", 0.0) as f64), mode })
}

/// The attention output `[B, Hq, Sq, Dv]` and the requested `qk_matmul_output`.
fn attend<T: Real>(q: &Heads<T>, k: &Heads<T>, v: &Heads<T>, bias: &[T], st: &Settings<T>) -> (Vec<T>, Vec<T>) {
    let (b, h, sq, t, dv) = (q.b, q.h, q.s, k.s, v.d);
    let group = q.h / k.h;
    let (mut y, mut qk_out) = (vec![T::ZERO; b * h * sq * dv], vec![T::ZERO; b * h * sq * t]);
    let mut row = vec![T::ZERO; t];
    for bi in 0..b {
        for hi in 0..h {
            for i in 0..sq {
                let base = ((bi * h + hi) * sq + i) * t;
                for (j, r) in row.iter_mut().enumerate() {
                    let dot: T = (0..q.d)
                        .map(|d| (q.at(bi, hi, i, d) * st.sq_scale) * (k.at(bi, hi / group, j, d) * st.sq_scale))
                        .sum();
                    let capped = if st.softcap > T::ZERO { (dot / st.softcap).tanh() * st.softcap } else { dot };
                    *r = capped + bias[base + j];
                    qk_out[base + j] = match st.mode {
                        0 => dot,
                        1 => capped,
                        _ => *r,
                    };
                }
                softmax_row(&mut row);
                if st.mode == 3 {
                    qk_out[base..base + t].copy_from_slice(&row);
                }
                for d in 0..dv {
                    y[((bi * h + hi) * sq + i) * dv + d] = (0..t).map(|j| row[j] * v.at(bi, hi / group, j, d)).sum();
                }
            }
        }
    }
    (y, qk_out)
}

/// `[B, H, S, D]` back to `[B, S, H*D]` (dims `[H, S, D]` given).
fn merge_heads<T: Real>(y: &[T], [h, s, d]: [usize; 3]) -> Vec<T> {
    let mut out = vec![T::ZERO; y.len()];
    for (idx, val) in y.iter().enumerate() {
        let (bi, hi, i, di) = (idx / (h * s * d), (idx / (s * d)) % h, (idx / d) % s, idx % d);
        out[(bi * s + i) * h * d + hi * d + di] = *val;
    }
    out
}

fn attention_t<T: Real>(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (qt, kt, vt) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    if qt.rank() != kt.rank() || qt.rank() != vt.rank() {
        return Err("Q, K and V must have the same rank".into());
    }
    let (qh, kvh) = (num_heads(ctx, "q_num_heads"), num_heads(ctx, "kv_num_heads"));
    let q = to_heads::<T>(qt, qh, "Q")?;
    let (k, past) = with_past(ctx, 4, to_heads::<T>(kt, kvh, "K")?, "past_key")?;
    let (v, _) = with_past(ctx, 5, to_heads::<T>(vt, kvh, "V")?, "past_value")?;
    if k.b != q.b || v.b != q.b || k.d != q.d || v.h != k.h || v.s != k.s || k.h == 0 || q.h % k.h != 0 {
        return Err(format!(
            "Q [{}, {}, _, {}], K [{}, {}, {}, {}] and V [{}, {}, {}, _] are inconsistent",
            q.b, q.h, q.d, k.b, k.h, k.s, k.d, v.b, v.h, v.s
        ));
    }
    let st = settings::<T>(ctx, q.d)?;
    let (b, h, sq, t, dv) = (q.b, q.h, q.s, k.s, v.d);
    let bias = bias::<T>(ctx, [b, h, sq, t], past)?;
    let (y, qk_out) = attend(&q, &k, &v, &bias, &st);
    let y = if qt.rank() == 3 {
        to_tensor(qt.dtype(), vec![b, sq, h * dv], merge_heads(&y, [h, sq, dv]))?
    } else {
        to_tensor(qt.dtype(), vec![b, h, sq, dv], y)?
    };
    let outs = [
        Ok(y),
        to_tensor(kt.dtype(), vec![b, k.h, t, k.d], k.v),
        to_tensor(vt.dtype(), vec![b, v.h, t, dv], v.v),
        to_tensor(qt.dtype(), vec![b, h, sq, t], qk_out),
    ];
    outs.into_iter().take(ctx.num_results()).collect()
}

/// `onnx.Attention`: scaled dot-product attention with 3-D or 4-D Q/K/V, KV cache
/// (`past_*` → `present_*`), boolean or additive masks (padded with -inf when short),
/// `is_causal` (upper-left aligned after the past), grouped-query heads, `softcap`,
/// `nonpad_kv_seqlen` and the four `qk_matmul_output_mode`s (0: Q·Kᵀ scaled,
/// 1: after softcap, 2: after the mask, 3: after softmax).
pub fn attention(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    float_kernel!(ctx.input(0)?.dtype(), attention_t(ctx))
}

/// `(B, S, H, D, is_4d)` of RotaryEmbedding's X (`[B, H, S, D]` or `[B, S, H*D]`).
fn rotary_layout(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<(usize, usize, usize, usize, bool), String> {
    match x.shape[..] {
        [b, h, s, d] => Ok((b, s, h, d, true)),
        [b, s, hd] => {
            let h = num_heads(ctx, "num_heads").filter(|&h| h > 0).ok_or("3-D X needs attribute `num_heads`")?;
            if hd % h != 0 {
                return Err(format!("hidden size {hd} is not divisible by num_heads {h}"));
            }
            Ok((b, s, h, hd / h, false))
        }
        _ => Err(format!("X must be 3-D or 4-D, found {:?}", x.shape)),
    }
}

/// The cache row of every `(batch, position)`: from `position_ids` into a 2-D cache,
/// or the position itself for a `[B, S, rot/2]` cache.
fn cache_rows(ctx: &EvalCtx<'_>, cos: &Tensor, b: usize, s: usize, half: usize) -> Result<Vec<usize>, String> {
    match ctx.opt(3).map(Tensor::to_i64s) {
        Some(p) if p.len() == b * s && cos.rank() == 2 => p
            .iter()
            .map(|&r| {
                usize::try_from(r)
                    .ok()
                    .filter(|&r| r < cos.shape[0])
                    .ok_or_else(|| format!("position id {r} is out of range"))
            })
            .collect(),
        None if cos.shape[..] == [b, s, half] => Ok((0..b * s).collect()),
        _ => Err(format!("cos_cache {:?} and position_ids do not match X's batch {b} and sequence {s}", cos.shape)),
    }
}

fn rotary_t<T: Real>(ctx: &EvalCtx<'_>) -> Result<Tensor, String> {
    let (x, cos, sin) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let (b, s, h, d, four) = rotary_layout(ctx, x)?;
    let at = |bi: usize, si: usize, hi: usize, di: usize| {
        if four {
            ((bi * h + hi) * s + si) * d + di
        } else {
            ((bi * s + si) * h + hi) * d + di
        }
    };
    let rot = match ctx.int("rotary_embedding_dim", 0) {
        0 => d,
        r if r > 0 && r as usize <= d && r % 2 == 0 => r as usize,
        r => return Err(format!("attribute `rotary_embedding_dim` = {r} must be even and ≤ head size {d}")),
    };
    let half = rot / 2;
    if cos.shape != sin.shape || cos.shape.last() != Some(&half) {
        return Err(format!(
            "cos_cache {:?} and sin_cache {:?} must end in rotary_dim / 2 = {half}",
            cos.shape, sin.shape
        ));
    }
    let rows = cache_rows(ctx, cos, b, s, half)?;
    let interleaved = ctx.int("interleaved", 0) != 0;
    let (xv, cv, sv) = (reals::<T>(x), reals::<T>(cos), reals::<T>(sin));
    let mut y = xv.clone();
    for bi in 0..b {
        for si in 0..s {
            let row = rows[bi * s + si] * half;
            for hi in 0..h {
                for j in 0..half {
                    let (i1, i2) = if interleaved { (2 * j, 2 * j + 1) } else { (j, j + half) };
                    let (x1, x2) = (xv[at(bi, si, hi, i1)], xv[at(bi, si, hi, i2)]);
                    let (c, sn) = (cv[row + j], sv[row + j]);
                    y[at(bi, si, hi, i1)] = c * x1 - sn * x2;
                    y[at(bi, si, hi, i2)] = sn * x1 + c * x2;
                }
            }
        }
    }
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.RotaryEmbedding`: rotate the first `rotary_embedding_dim` (default: all)
/// features of each head by the cached cos/sin (rows chosen by `position_ids`, or
/// per batch/position when omitted), in halves or `interleaved` pairs.
pub fn rotary_embedding(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    Ok(vec![float_kernel!(ctx.input(0)?.dtype(), rotary_t(ctx))?])
}
