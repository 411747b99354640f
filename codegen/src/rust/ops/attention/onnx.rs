//! `onnx.Attention`, `onnx.FlexAttention`, `onnx.LinearAttention` and
//! `onnx.RotaryEmbedding` lowered to the `k::attention` kernels (an f64
//! FlexAttention to `k::attention::flex`). Attention's sizes and settings are one constant
//! [`edgec_kernels::attention::OnnxAttention`] item; the kernel writes Y into
//! its buffer and `present_key`, `present_value` and `qk_matmul_output`
//! into the scratch head, copied to their buffers by the blocks after it
//! (no other op runs in between).

use super::super::{all_f32, f32_lit, udims};
use crate::plan::Class;
use crate::rust::emit::OpCx;

/// Queries whose scores one Attention kernel step computes together.
const BLOCK_Q: usize = 64;

/// `[B, H, S, D]` of a 3-D (`[B, S, H·D]`, `heads` from attribute `attr`)
/// or 4-D attention operand `i`.
fn heads4(cx: &OpCx<'_, '_>, i: usize, attr: &str, what: &str) -> Result<[usize; 4], String> {
    match cx.in_static(i)[..] {
        [b, h, s, d] => Ok([b, h, s, d]),
        [b, s, hd] => {
            let h = cx
                .op
                .attrs
                .int(attr)
                .filter(|&h| h > 0)
                .ok_or_else(|| format!("3-D {what} needs attribute `{attr}`"))? as usize;
            if hd % h != 0 {
                return Err(format!("{what} hidden size {hd} is not divisible by {attr} = {h}"));
            }
            Ok([b, h, s, hd / h])
        }
        ref d => Err(format!("Attention {what} {d:?} must be 3-D or 4-D")),
    }
}

/// The geometry of the op (checked as the interpreter does).
struct Geo {
    q: [usize; 4],
    kv_heads: usize,
    kv_seq: usize,
    past: usize,
    v_head: usize,
}

fn geometry(cx: &OpCx<'_, '_>) -> Result<Geo, String> {
    let rank = cx.in_static(0).len();
    if cx.in_static(1).len() != rank || cx.in_static(2).len() != rank {
        return Err("Attention Q, K and V must have the same rank".into());
    }
    let q = heads4(cx, 0, "q_num_heads", "Q")?;
    let k = heads4(cx, 1, "kv_num_heads", "K")?;
    let v = heads4(cx, 2, "kv_num_heads", "V")?;
    let past = |i: usize, d: usize, what: &str| -> Result<usize, String> {
        let s = cx.in_static(i);
        match (cx.op.operand(i), &s[..]) {
            (None, _) => Ok(0),
            (Some(_), &[b, h, p, dd]) if [b, h, dd] == [k[0], k[1], d] => Ok(p),
            (Some(_), s) => Err(format!("Attention {what} {s:?} does not match K/V [{}, {}, _, {d}]", k[0], k[1])),
        }
    };
    let (pk, pv) = (past(4, k[3], "past_key")?, past(5, v[3], "past_value")?);
    let ok = k[0] == q[0] && v[0] == q[0] && k[3] == q[3] && v[1] == k[1] && v[2] == k[2] && pk == pv;
    if !ok || k[1] == 0 || q[1] % k[1] != 0 {
        return Err(format!("Attention Q {q:?}, K {k:?}, V {v:?} (past {pk}/{pv}) are inconsistent"));
    }
    Ok(Geo { q, kv_heads: k[1], kv_seq: k[2], past: pk, v_head: v[3] })
}

/// Check the mask (operand 3) broadcasts to `[B, Hq, Sq, T]`; its expression.
fn mask(cx: &mut OpCx<'_, '_>, g: &Geo) -> Result<String, String> {
    if cx.op.operand(3).is_none() {
        return Ok("k::attention::Mask::None".into());
    }
    let ms = cx.in_static(3);
    if ms.is_empty() || ms.len() > 4 {
        return Err(format!("Attention attn_mask {ms:?} must have rank 1 to 4"));
    }
    let mut full = vec![1; 4 - ms.len()];
    full.extend(&ms);
    let want = [g.q[0], g.q[1], g.q[2]];
    let t = g.past + g.kv_seq;
    if (0..3).any(|a| full[a] != 1 && full[a] != want[a]) || full[3] > t {
        return Err(format!(
            "Attention attn_mask {ms:?} does not broadcast to [{}, {}, {}, {t}]",
            want[0], want[1], want[2]
        ));
    }
    let kind = match cx.in_class(3) {
        Some(Class::Bool) => "Bool",
        Some(Class::F32) => "Float",
        _ => return Err("Attention attn_mask must be bool or f32 in the Rust backend".into()),
    };
    let m = cx.input(3)?;
    Ok(format!("k::attention::Mask::{kind}({m}, {})", udims(&ms)))
}

/// The parameter item literal.
fn params(cx: &OpCx<'_, '_>, g: &Geo) -> Result<String, String> {
    let op = cx.op;
    if let Some(p) = op.attrs.int("softmax_precision").filter(|p| ![1, 10, 11, 16].contains(p)) {
        return Err(format!("Attention attribute `softmax_precision` = {p} is not a float type code"));
    }
    let mode = op.attrs.int("qk_matmul_output_mode").unwrap_or(0);
    if !(0..=3).contains(&mode) {
        return Err(format!("Attention qk_matmul_output_mode = {mode} is not supported (must be 0, 1, 2 or 3)"));
    }
    let qk_mode = if op.results.len() > 3 { format!("Some({mode})") } else { "None".into() };
    let [b, hq, sq, d] = g.q;
    let scale = op.attrs.float("scale").unwrap_or(1.0 / (d as f32).sqrt());
    let softcap = op.attrs.float("softcap").unwrap_or(0.0);
    let causal = op.attrs.int("is_causal").unwrap_or(0) != 0;
    Ok(format!(
        "k::attention::OnnxAttention {{ batch: {b}, q_heads: {hq}, kv_heads: {}, q_seq: {sq}, kv_seq: {}, past: {}, \
         head: {d}, v_head: {}, three_d: {}, scale: {}, softcap: {}, causal: {causal}, qk_mode: {qk_mode}, block_q: {BLOCK_Q} }}",
        g.kv_heads,
        g.kv_seq,
        g.past,
        g.v_head,
        cx.in_static(0).len() == 3,
        f32_lit(scale),
        f32_lit(softcap)
    ))
}

/// `onnx.Attention` (see the module docs).
pub fn attention(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2, 4, 5])?;
    let g = geometry(cx)?;
    let [b, hq, sq, _] = g.q;
    let t = g.past + g.kv_seq;
    let want_y = if cx.in_static(0).len() == 3 { vec![b, sq, hq * g.v_head] } else { vec![b, hq, sq, g.v_head] };
    let want = [want_y, vec![b, g.kv_heads, t, g.q[3]], vec![b, g.kv_heads, t, g.v_head], vec![b, hq, sq, t]];
    for (j, w) in want.iter().enumerate().take(cx.op.results.len()) {
        if cx.out_static(j) != *w {
            return Err(format!("Attention result #{j} {:?} should be {w:?}", cx.out_static(j)));
        }
    }
    let p = cx.item("k::attention::OnnxAttention", params(cx, &g)?);
    cx.scratch(format!("k::attention::onnx_attention_scratch_len(&{p})"));
    let out = cx.begin(0);
    let m = mask(cx, &g)?;
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let opt = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        Ok(match cx.op.operand(i) {
            Some(_) => format!("Some({})", cx.input(i)?),
            None => "None".into(),
        })
    };
    let (pk, pv) = (opt(cx, 4)?, opt(cx, 5)?);
    if cx.op.operand(6).is_some() && cx.in_class(6) != Some(Class::I64) {
        return Err("Attention nonpad_kv_seqlen must be i64".into());
    }
    if cx.op.operand(6).is_some() && cx.in_static(6) != [b] {
        return Err(format!("Attention nonpad_kv_seqlen {:?} must be [{b}]", cx.in_static(6)));
    }
    let np = opt(cx, 6)?;
    cx.line(format!(
        "k::attention::onnx_attention(&{p}, k::attention::OnnxAttentionInputs {{ q: {q}, k: {k}, v: {v}, mask: {m}, \
         past_key: {pk}, past_value: {pv}, nonpad: {np} }}, {out}, &mut self.scratch);"
    ));
    let mut lo = 0;
    for (j, w) in want.iter().enumerate().skip(1).take(cx.op.results.len().saturating_sub(1)) {
        let len: usize = w.iter().product();
        let out = cx.begin(j);
        cx.line(format!("{out}.copy_from_slice(&self.scratch[{lo}..{}]);", lo + len));
        lo += len;
    }
    Ok(())
}

/// `onnx.FlexAttention` (no `score_mod`/`prob_mod`): a 4-D `onnx.Attention`
/// without mask, cache or softcap.
pub fn flex(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if (0..3).any(|i| cx.in_static(i).len() != 4) {
        return Err("FlexAttention Q, K and V must be 4-D [B, H, S, D]".into());
    }
    attention(cx)
}

/// The `LinearAttention` parameter literal (checked as the interpreter does).
fn linear_params(cx: &OpCx<'_, '_>) -> Result<String, String> {
    let op = cx.op;
    let heads = |a: &str| op.attrs.int(a).filter(|&h| h > 0).map(|h| h as usize);
    let (Some(hq), Some(hkv)) = (heads("q_num_heads"), heads("kv_num_heads")) else {
        return Err("LinearAttention needs positive q_num_heads and kv_num_heads".into());
    };
    let rule = op.attrs.str("update_rule").unwrap_or("gated_delta");
    let (gating, delta) = match rule {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        r => return Err(format!("LinearAttention update_rule {r:?} is not supported")),
    };
    let (qs, ks, vs) = (cx.in_static(0), cx.in_static(1), cx.in_static(2));
    let bad = || format!("LinearAttention query {qs:?}, key {ks:?}, value {vs:?} do not fit {hq}/{hkv} heads");
    let ([b, t, ql], [_, _, vl]) = (qs[..].try_into().map_err(|_| bad())?, vs[..].try_into().map_err(|_| bad())?);
    if ql % hq != 0 || vl % hkv != 0 || vl == 0 || hq % hkv != 0 || ks != [b, t, hkv * (ql / hq)] || vs[..2] != [b, t] {
        return Err(bad());
    }
    let (dk, dv) = (ql / hq, vl / hkv);
    if op.operand(4).is_some() != gating || op.operand(5).is_some() != delta {
        return Err(format!("LinearAttention update_rule {rule:?} does not match the decay/beta operands given"));
    }
    let last = |i: usize, ok: &[usize]| match cx.in_static(i)[..] {
        [db, dt, l] if db == b && dt == t && ok.contains(&l) => Ok(l),
        ref s => Err(format!("LinearAttention operand #{i} {s:?} must be [{b}, {t}, one of {ok:?}]")),
    };
    let per_dim = if gating { last(4, &[hkv, hkv * dk])? != hkv } else { false };
    let beta_last = if delta { last(5, &[hkv, 1])? } else { 1 };
    if op.operand(3).is_some() && cx.in_static(3) != [b, hkv, dk, dv] {
        return Err(format!("LinearAttention past_state {:?} must be [{b}, {hkv}, {dk}, {dv}]", cx.in_static(3)));
    }
    let scale = match op.attrs.float("scale").unwrap_or(0.0) {
        0.0 => 1.0 / (dk as f32).sqrt(),
        s => s,
    };
    Ok(format!(
        "k::attention::LinearAttention {{ batch: {b}, seq: {t}, q_heads: {hq}, kv_heads: {hkv}, dk: {dk}, dv: {dv}, \
         scale: {}, decay_per_dim: {per_dim}, beta_last: {beta_last} }}",
        f32_lit(scale)
    ))
}

/// `onnx.LinearAttention`: Y into its buffer, the final state through the
/// scratch head into `present_state`.
pub fn linear(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2, 3, 4, 5])?;
    let p = cx.item("k::attention::LinearAttention", linear_params(cx)?);
    cx.scratch(format!("k::attention::linear_attention_scratch_len(&{p})"));
    let out = cx.begin(0);
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let mut ex = Vec::new();
    for (i, name) in [(3, "past"), (4, "decay"), (5, "beta")] {
        if cx.op.operand(i).is_some() {
            ex.push(format!("{name}: Some({})", cx.input(i)?));
        }
    }
    ex.push("..Default::default()".into());
    cx.line(format!(
        "k::attention::linear_attention(&{p}, ({q}, {k}, {v}), k::attention::LinearAttentionExtras {{ {} }}, {out}, &mut self.scratch);",
        ex.join(", ")
    ));
    if cx.op.results.len() > 1 {
        let len: usize = cx.out_static(1).iter().product();
        let out = cx.begin(1);
        cx.line(format!("{out}.copy_from_slice(&self.scratch[..{len}]);"));
    }
    Ok(())
}

/// `onnx.RotaryEmbedding`.
pub fn rotary(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0, 1, 2])?;
    let op = cx.op;
    let (b, s, h, d, four) = match cx.in_static(0)[..] {
        [b, h, s, d] => (b, s, h, d, true),
        [b, s, hd] => {
            let h = op
                .attrs
                .int("num_heads")
                .filter(|&h| h > 0)
                .ok_or("RotaryEmbedding: 3-D X needs attribute `num_heads`")? as usize;
            if hd % h != 0 {
                return Err(format!("RotaryEmbedding: hidden size {hd} is not divisible by num_heads {h}"));
            }
            (b, s, h, hd / h, false)
        }
        ref x => return Err(format!("RotaryEmbedding X {x:?} must be 3-D or 4-D")),
    };
    let rot = match op.attrs.int("rotary_embedding_dim").unwrap_or(0) {
        0 => d,
        r if r > 0 && r as usize <= d && r % 2 == 0 => r as usize,
        r => return Err(format!("RotaryEmbedding rotary_embedding_dim = {r} must be even and <= head size {d}")),
    };
    let (cs, ss) = (cx.in_static(1), cx.in_static(2));
    let half = rot / 2;
    if cs != ss || cs.last() != Some(&half) {
        return Err(format!(
            "RotaryEmbedding cos_cache {cs:?} and sin_cache {ss:?} must end in rotary dim / 2 = {half}"
        ));
    }
    let with_pos = op.operand(3).is_some();
    let cache_ok = if with_pos { cs.len() == 2 && cx.in_static(3) == [b, s] } else { cs == [b, s, half] };
    if !cache_ok {
        return Err(format!(
            "RotaryEmbedding cos_cache {cs:?} and position_ids do not match X's batch {b} and sequence {s}"
        ));
    }
    if with_pos && cx.in_class(3) != Some(Class::I64) {
        return Err("RotaryEmbedding position_ids must be i64".into());
    }
    let interleaved = op.attrs.int("interleaved").unwrap_or(0) != 0;
    let p = cx.item(
        "k::attention::rotary::Rotary",
        format!(
            "k::attention::rotary::Rotary {{ batch: {b}, seq: {s}, heads: {h}, head: {d}, rot: {rot}, interleaved: {interleaved}, four_d: {four} }}"
        ),
    );
    let out = cx.begin(0);
    let (x, c, sn) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let pos = if with_pos { format!("Some({})", cx.input(3)?) } else { "None".into() };
    cx.line(format!("k::attention::rotary::rotary_embedding(&{p}, {x}, {c}, {sn}, {pos}, {out});"));
    Ok(())
}

/// `onnx.FlexAttention` on f64 (`k::linalg::wide`, `k::norm::wide`, `k::attention::flex`): models computed in double
/// precision keep it.
pub fn flex_f64(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if (1..3).any(|i| cx.in_class(i) != Some(Class::F64)) {
        return Err("FlexAttention: Q, K and V must all be f64".into());
    }
    if cx.op.attrs.int("softmax_precision").is_some_and(|p| p != 11) {
        return Err("FlexAttention on f64 with a softmax_precision other than f64 is not supported".into());
    }
    let (q, k, v) = (cx.in_static(0), cx.in_static(1), cx.in_static(2));
    let ([b, hq, l, e], [kb, hkv, s, ke], [vb, vh, vs, ev]) = (
        q[..].try_into().map_err(|_| "FlexAttention: Q must be 4-D")?,
        k[..].try_into().map_err(|_| "FlexAttention: K must be 4-D")?,
        v[..].try_into().map_err(|_| "FlexAttention: V must be 4-D")?,
    );
    if kb != b || vb != b || ke != e || vh != hkv || vs != s || hkv == 0 || hq % hkv != 0 {
        return Err(format!("FlexAttention: Q {q:?}, K {k:?}, V {v:?} do not fit"));
    }
    let scale = cx.op.attrs.float("scale").unwrap_or((1.0 / (e as f64).sqrt()) as f32);
    let p = format!(
        "k::attention::flex::Flex {{ b: {b}, hq: {hq}, l: {l}, e: {e}, hkv: {hkv}, s: {s}, ev: {ev}, scale: {} }}",
        f32_lit(scale)
    );
    let f = cx.field("Vec<f64>", format!("vec![0.0; {s}]"));
    let out = cx.begin(0);
    let (qi, ki, vi) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    cx.line(format!("k::attention::flex::flex_attention(&{p}, {qi}, {ki}, {vi}, &mut self.{f}, {out});"));
    Ok(())
}
