//! `onnx.CausalConvWithState` (the `k::seqmix` kernels), f32. The state
//! block reads the operands again (the last `k - 1` padded positions), so
//! each result has its own block.

use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a sequence mixer; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
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

fn causal_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    super::f32_only(cx)?;
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
    cx.line(format!("k::seqmix::causal_conv({dims}, {xi}, {wi}, {bias}, {past}, {silu}, {out});"));
    if cx.op.results.len() > 1 {
        let out = cx.begin(1);
        let xi = cx.input(0)?;
        let past = opt(cx, 3)?;
        cx.line(format!("k::seqmix::causal_conv_state({dims}, {xi}, {past}, {out});"));
    }
    Ok(())
}
