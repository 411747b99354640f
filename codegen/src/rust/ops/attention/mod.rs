//! Attention and its kin, lowered to the `k::attention` kernels:
//! `core.attention` / `core.attention_blocked`, `core.window_attention` and
//! the window partition/merge around it (`k::layout` window kernels),
//! `onnx.CausalConvWithState` (`k::attention::causal_conv`), and (in [`onnx`])
//! `onnx.Attention`, `onnx.FlexAttention` (on f64 through `k::attention::flex`),
//! `onnx.LinearAttention` and `onnx.RotaryEmbedding`. All f32 but the f64
//! FlexAttention; shapes are checked here so a bad model is a compile
//! error.

mod onnx;

use super::{call_x_out, dims, f32_lit, f32_only, udims};
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower an attention op; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    match cx.op.opcode {
        CoreAttention | CoreAttentionBlocked | CoreWindowAttention => return core_attention(cx),
        CoreWindowPartition | CoreWindowMerge => windows(cx)?,
        Attention => onnx::attention(cx)?,
        FlexAttention if super::f64_op(cx) => onnx::flex_f64(cx)?,
        FlexAttention => onnx::flex(cx)?,
        LinearAttention => onnx::linear(cx)?,
        RotaryEmbedding => onnx::rotary(cx)?,
        CausalConvWithState => causal_conv(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `core.attention` / `core.attention_blocked` / `core.window_attention`;
/// `Ok(false)` for other ops.
fn core_attention(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let op = cx.op;
    if matches!(op.opcode, Opcode::CoreAttention | Opcode::CoreAttentionBlocked | Opcode::CoreWindowAttention) {
        f32_only(cx)?;
    }
    let blocked = match op.opcode {
        Opcode::CoreAttention => false,
        Opcode::CoreAttentionBlocked => true,
        Opcode::CoreWindowAttention => return window_attention(cx).map(|()| true),
        _ => return Ok(false),
    };
    let (qs, ks, vs) = (cx.in_dims(0), cx.in_dims(1), cx.in_dims(2));
    let scale = f32_lit(op.attrs.float("scale").unwrap_or(1.0));
    let causal = op.attrs.int("causal").unwrap_or(0) != 0;
    let window = op.attrs.int("window").map_or("None".to_string(), |w| format!("Some({w})"));
    let out = cx.begin(0);
    let mask = match op.operand(3) {
        None => "k::attention::Mask::None".to_string(),
        Some(_) => {
            let ms = dims(&cx.in_dims(3));
            let m = cx.input(3)?;
            match cx.in_class(3) {
                Some(crate::plan::Class::Bool) => format!("k::attention::Mask::Bool({m}, {ms})"),
                _ => format!("k::attention::Mask::Float({m}, {ms})"),
            }
        }
    };
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let (sq, sk, sv) = (dims(&qs), dims(&ks), dims(&vs));
    if blocked {
        let (bq, bk) = (op.attrs.int("block_q").unwrap_or(1), op.attrs.int("block_k").unwrap_or(1));
        cx.scratch(format!("k::attention::attention_blocked_scratch_len({sq}, {sk}, {sv}, {bq}, {bk})"));
        cx.line(format!(
            "k::attention::attention_blocked({sq}, {q}, {sk}, {k}, {sv}, {v}, {mask}, {scale}, {causal}, {window}, {bq}, {bk}, {out}, &mut self.scratch);"
        ));
    } else {
        cx.scratch(format!("k::attention::attention_scratch_len({sq}, {sk}, {sv})"));
        cx.line(format!(
            "k::attention::attention({sq}, {q}, {sk}, {k}, {sv}, {v}, {mask}, {scale}, {causal}, {window}, {out}, &mut self.scratch);"
        ));
    }
    Ok(true)
}

/// `core.window_attention`: attention over `[B, nW, heads, N, D]` (the same
/// memory as `[B·nW, heads, N, D]`) with the relative position bias and the
/// window mask folded into one `[nW, heads, N, N]` additive mask at construction.
fn window_attention(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let qs = cx.in_static(0);
    let [bw, heads, n, _] = qs[..] else { return Err("window attention takes [B*nW, heads, N, D]".into()) };
    let nw = op.attrs.int("num_windows").unwrap_or(1).max(1) as usize;
    let scale = f32_lit(op.attrs.float("scale").unwrap_or(1.0));
    let weights = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        if op.operand(i).is_none() {
            return Ok("None".into());
        }
        if !cx.is_static(i) {
            return Err(format!("window attention with a non-constant operand #{i} is not supported"));
        }
        Ok(format!("Some({})", cx.init_weights(i)?))
    };
    let (bias, mask) = (weights(cx, 3)?, weights(cx, 4)?);
    let wm = cx.field("Vec<f32>", format!("k::attention::window_mask({bias}, {mask}, {nw}, {heads}, {n})"));
    let grouped = |d: &[usize]| {
        let mut g = vec![bw / nw, nw];
        g.extend_from_slice(&d[1..]);
        udims(&g)
    };
    let (sq, sk, sv) = (grouped(&qs), grouped(&cx.in_static(1)), grouped(&cx.in_static(2)));
    let out = cx.begin(0);
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let ms = udims(&[nw, heads, n, n]);
    cx.scratch(format!("k::attention::attention_scratch_len({sq}, {sk}, {sv})"));
    cx.line(format!(
        "k::attention::attention({sq}, {q}, {sk}, {k}, {sv}, {v}, k::attention::Mask::Float(&self.{wm}, {ms}), {scale}, false, None, {out}, &mut self.scratch);"
    ));
    Ok(())
}

/// `core.window_partition` / `core.window_merge`: `[B, H, W, C]` images to
/// and from their (shifted) windows.
fn windows(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let merge = op.opcode == Opcode::CoreWindowMerge;
    let img = if merge { ys } else { xs };
    let win: Vec<i64> = op.attrs.ints("window").map(<[i64]>::to_vec).unwrap_or_default();
    let sh: Vec<i64> = op.attrs.ints("shift").map_or(vec![0, 0], <[i64]>::to_vec);
    let [b, h, w, c] =
        img.iter().map(|d| d.lit().ok_or("window ops need static images")).collect::<Result<Vec<_>, _>>()?[..]
    else {
        return Err("window ops take [B, H, W, C] images".into());
    };
    let p = format!(
        "k::attention::Windows {{ b: {b}, h: {h}, w: {w}, c: {c}, wh: {}, ww: {}, sh: {}, sw: {} }}",
        win[0], win[1], sh[0], sh[1]
    );
    let item = cx.item("k::attention::Windows", p);
    let k = if merge { "window_merge" } else { "window_partition" };
    call_x_out(cx, &format!("k::attention::{k}(&{item}, "))
}

fn opt(cx: &mut OpCx<'_, '_>, i: usize) -> Result<String, String> {
    Ok(match cx.op.operand(i) {
        Some(_) => format!("Some({})", cx.input(i)?),
        None => "None".into(),
    })
}

/// `onnx.CausalConvWithState` (f32). The state block reads the operands
/// again (the last `k - 1` padded positions), so each result has its own
/// block.
fn causal_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    let (x, w) = (cx.in_static(0), cx.in_static(1));
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
    cx.line(format!("k::attention::causal_conv::causal_conv({dims}, {xi}, {wi}, {bias}, {past}, {silu}, {out});"));
    if cx.op.results.len() > 1 {
        let out = cx.begin(1);
        let xi = cx.input(0)?;
        let past = opt(cx, 3)?;
        cx.line(format!("k::attention::causal_conv::causal_conv_state({dims}, {xi}, {past}, {out});"));
    }
    Ok(())
}
