//! LinearAttention (a recurrent linear-attention state update) and FlexAttention
//! (scaled dot-product attention without modifier subgraphs).

use crate::interp::tensor::real::{attr_ctx, reals, to_tensor};
use crate::interp::tensor::real::{bf16_of, f16_of};
use crate::interp::{EvalCtx, Tensor};
use crate::ops::attention::linear::{heads, softmax_dtype, update_rule};
use crate::types::DType;
use edgec_numeric::attention::linear_update;

/// LinearAttention sizes, validated against the operands.
struct La {
    b: usize,
    t: usize,
    hq: usize,
    hkv: usize,
    dk: usize,
    dv: usize,
    /// True if `decay` has one value per key dim (else one per head).
    decay_per_dim: bool,
    /// `beta`'s last dim (`hkv` or 1).
    beta_last: usize,
}

fn la_sizes(ctx: &EvalCtx<'_>, gating: bool, delta: bool) -> Result<La, String> {
    let (hq, hkv) = heads(&attr_ctx(ctx))?;
    let (hq, hkv) = (hq as usize, hkv as usize);
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let [b, t, ql] = q.shape[..] else { return Err(format!("query {:?} must have rank 3", q.shape)) };
    let vl = if v.rank() == 3 { v.shape[2] } else { 0 };
    if ql % hq != 0 || vl % hkv != 0 || vl == 0 {
        return Err(format!("query {:?} / value {:?} do not split into {hq} / {hkv} heads", q.shape, v.shape));
    }
    let (dk, dv) = (ql / hq, vl / hkv);
    if k.shape != [b, t, hkv * dk] || v.shape[..2] != [b, t] {
        return Err(format!("key {:?} and value {:?} do not match query {:?}", k.shape, v.shape, q.shape));
    }
    let mut la = La { b, t, hq, hkv, dk, dv, decay_per_dim: false, beta_last: 1 };
    for (i, name, needed) in [(4, "decay", gating), (5, "beta", delta)] {
        if ctx.opt(i).is_some() != needed {
            let what = if needed { "requires" } else { "does not take" };
            return Err(format!("update_rule {:?} {what} the `{name}` operand", ctx.str("update_rule", "gated_delta")));
        }
    }
    if let Some(d) = ctx.opt(4) {
        match d.shape[..] {
            [db, dt, l] if db == b && dt == t && (l == hkv || l == hkv * dk) => la.decay_per_dim = l != hkv,
            _ => return Err(format!("decay {:?} must be [{b}, {t}, {hkv}] or [{b}, {t}, {}]", d.shape, hkv * dk)),
        }
    }
    if let Some(be) = ctx.opt(5) {
        match be.shape[..] {
            [bb, bt, l] if bb == b && bt == t && (l == hkv || l == 1) => la.beta_last = l,
            _ => return Err(format!("beta {:?} must be [{b}, {t}, {hkv}] or [{b}, {t}, 1]", be.shape)),
        }
    }
    if let Some(p) = ctx.opt(3) {
        if p.shape != [b, hkv, dk, dv] {
            return Err(format!("past_state {:?} must have shape [{b}, {hkv}, {dk}, {dv}]", p.shape));
        }
    }
    Ok(la)
}

/// `onnx.LinearAttention`: runs the recurrence token by token in f32 (see the op doc for
/// the four update rules); KV heads (and their states) are shared by groups of
/// `q_num_heads / kv_num_heads` consecutive query heads. `scale = 0` means `1/sqrt(d_k)`.
pub fn linear_attention(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (gating, delta) = update_rule(ctx.str("update_rule", "gated_delta"))?;
    let la = la_sizes(ctx, gating, delta)?;
    let q = ctx.input(0)?;
    let (qv, kv, vv) = (reals::<f32>(q), reals::<f32>(ctx.input(1)?), reals::<f32>(ctx.input(2)?));
    let (dv_, bv) = (ctx.opt(4).map(reals::<f32>), ctx.opt(5).map(reals::<f32>));
    let (b, t, hq, hkv, dk, dv) = (la.b, la.t, la.hq, la.hkv, la.dk, la.dv);
    let mut state = ctx.opt(3).map_or_else(|| vec![0.0f32; b * hkv * dk * dv], reals::<f32>);
    let scale = match ctx.float("scale", 0.0) {
        0.0 => 1.0 / (dk as f64).sqrt(),
        s => s as f64,
    };
    let group = hq / hkv;
    let dlen = if la.decay_per_dim { hkv * dk } else { hkv };
    let mut out = vec![0.0f32; b * t * hq * dv];
    for bi in 0..b {
        for ti in 0..t {
            let tok = bi * t + ti;
            for h in 0..hkv {
                let s = &mut state[(bi * hkv + h) * dk * dv..(bi * hkv + h + 1) * dk * dv];
                let kt = &kv[tok * hkv * dk + h * dk..][..dk];
                let vt = &vv[tok * hkv * dv + h * dv..][..dv];
                let per = if la.decay_per_dim { dk } else { 1 };
                let decay = dv_.as_ref().map(|d| &d[tok * dlen + h * per..][..per]);
                let beta = bv.as_ref().map(|be| be[tok * la.beta_last + if la.beta_last == 1 { 0 } else { h }]);
                linear_update(s, (la.dk, la.dv), kt, &mut vt.to_vec(), decay.map(|g| (g, la.decay_per_dim)), beta);
            }
            for h in 0..hq {
                let s = &state[(bi * hkv + h / group) * dk * dv..][..dk * dv];
                let qt = &qv[tok * hq * dk + h * dk..][..dk];
                for m in 0..dv {
                    let dot: f32 = (0..dk).map(|d| qt[d] * s[d * dv + m]).sum();
                    out[tok * hq * dv + h * dv + m] = (scale * dot as f64) as f32;
                }
            }
        }
    }
    let mut res = vec![to_tensor(q.dtype(), vec![b, t, hq * dv], out)?];
    if ctx.num_results() > 1 {
        let sdt = ctx.opt(3).map_or(q.dtype(), |p| p.dtype());
        res.push(to_tensor(sdt, vec![b, hkv, dk, dv], state)?);
    }
    Ok(res)
}

/// Round `x` to the precision of the float type `dt`.
fn rnd(dt: DType, x: f64) -> f64 {
    match dt {
        DType::F32 => x as f32 as f64,
        DType::F16 => f16_of(x).to_f64(),
        DType::BF16 => bf16_of(x).to_f64(),
        _ => x,
    }
}

/// The type a product of `dt` values accumulates in (f32 for f16/bf16, as numpy does).
fn acc_type(dt: DType) -> DType {
    if dt == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// `Σ a[i] * b[i]` accumulated in `acc_type(dt)` and rounded to `dt`.
fn dot(dt: DType, n: usize, f: impl Fn(usize) -> (f64, f64)) -> f64 {
    let acc = acc_type(dt);
    let sum = (0..n).fold(0.0, |s, i| {
        let (a, b) = f(i);
        rnd(acc, s + rnd(acc, a * b))
    });
    rnd(dt, sum)
}

/// Softmax of one row in precision `dt`.
fn softmax_row(dt: DType, row: &mut [f64]) {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    row.iter_mut().for_each(|x| *x = rnd(dt, rnd(dt, *x - max).exp()));
    let sum = row.iter().fold(0.0, |s, &x| rnd(dt, s + x));
    row.iter_mut().for_each(|x| *x = rnd(dt, *x / sum));
}

/// Check FlexAttention's rank-4 operands; returns `[B, Hq, L, E, Hkv, S, Ev]`.
fn flex_sizes(q: &Tensor, k: &Tensor, v: &Tensor) -> Result<[usize; 7], String> {
    let bad = || {
        format!(
            "Q {:?}, K {:?}, V {:?} are not [B, Hq, L, E], [B, Hkv, S, E], [B, Hkv, S, Ev]",
            q.shape, k.shape, v.shape
        )
    };
    let ([b, hq, l, e], [kb, hkv, s, ke], [vb, vh, vs, ev]) = (
        q.shape[..].try_into().map_err(|_| bad())?,
        k.shape[..].try_into().map_err(|_| bad())?,
        v.shape[..].try_into().map_err(|_| bad())?,
    );
    if kb != b || vb != b || ke != e || vh != hkv || vs != s || hkv == 0 || hq % hkv != 0 {
        return Err(bad());
    }
    if k.dtype() != q.dtype() || v.dtype() != q.dtype() || !q.dtype().is_float() {
        return Err(format!("Q, K, V must share one float type, found {}, {}, {}", q.dtype(), k.dtype(), v.dtype()));
    }
    Ok([b, hq, l, e, hkv, s, ev])
}

/// `onnx.FlexAttention` without `score_mod`/`prob_mod` (ai.onnx.preview): Q and K are
/// pre-scaled by `sqrt(scale)` (computed in f32, stored in the input type), `Q @ Kᵀ`
/// is computed in the input type, softmax and `probs @ V` in the softmax precision.
pub fn flex_attention(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let [b, hq, l, e, hkv, s, ev] = flex_sizes(q, k, v)?;
    let dt = q.dtype();
    let cdt = softmax_dtype(ctx.attrs.int("softmax_precision"), dt)?;
    let scale = ctx.attrs.float("scale").map_or(1.0 / (e as f64).sqrt(), |s| s as f64);
    let ss = rnd(dt, (scale as f32).sqrt() as f64);
    let pre = |t: &Tensor| reals::<f64>(t).into_iter().map(|x| rnd(dt, x * ss)).collect::<Vec<f64>>();
    let (qv, kv) = (pre(q), pre(k));
    let vv: Vec<f64> = reals::<f64>(v).into_iter().map(|x| rnd(cdt, x)).collect();
    let group = hq / hkv;
    let mut out = Vec::with_capacity(b * hq * l * ev);
    let mut row = vec![0.0; s];
    for bi in 0..b {
        for h in 0..hq {
            let kvh = bi * hkv + h / group;
            for i in 0..l {
                let qr = &qv[((bi * hq + h) * l + i) * e..][..e];
                for (j, r) in row.iter_mut().enumerate() {
                    let kr = &kv[(kvh * s + j) * e..][..e];
                    *r = rnd(cdt, dot(dt, e, |x| (qr[x], kr[x])));
                }
                softmax_row(cdt, &mut row);
                for m in 0..ev {
                    out.push(dot(cdt, s, |j| (row[j], vv[(kvh * s + j) * ev + m])));
                }
            }
        }
    }
    Ok(vec![to_tensor(v.dtype(), vec![b, hq, l, ev], out)?])
}
