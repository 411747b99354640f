//! f64 MatMul, Softmax/LogSoftmax and FlexAttention (`k::wide`): models
//! computed in double precision keep it (the f32 kernels serve f32, and
//! f16/bf16 through exact widening; a widened 16-bit MatMul takes the
//! interpreter's summation order here, in f32).

use super::layout::axis;
use super::{dims, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower MatMul, Softmax, LogSoftmax or FlexAttention on f64; `Ok(false)`
/// for anything else.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let f64_op = cx.in_class(0) == Some(Class::F64) && cx.op.results.len() == 1 && cx.out_class(0) == Class::F64;
    if cx.op.opcode == Opcode::MatMul && passes::widen::computes_half(cx.func(), cx.op) {
        matmul(cx, Class::F32)?;
        return Ok(true);
    }
    if !f64_op {
        return Ok(false);
    }
    match cx.op.opcode {
        Opcode::MatMul => matmul(cx, Class::F64)?,
        Opcode::Softmax | Opcode::LogSoftmax => softmax(cx)?,
        Opcode::FlexAttention => flex(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// MatMul in the interpreter's summation order: on f64, and on f32 for a
/// 16-bit MatMul computed in f32 (see `passes::widen::computes_half`).
fn matmul(cx: &mut OpCx<'_, '_>, class: Class) -> Result<(), String> {
    if cx.in_class(1) != Some(class) {
        return Err(format!("MatMul: both operands must be {}", class.name()));
    }
    let (a, b) = (cx.in_dims(0), cx.in_dims(1));
    if a.is_empty() || b.is_empty() {
        return Err("MatMul of scalars is not defined".into());
    }
    let batch = a.len().max(b.len()).saturating_sub(2);
    if batch > edgec_kernels::wide::MAX_BATCH_RANK {
        return Err(format!("MatMul with {batch} batch dims is not supported"));
    }
    let out = cx.begin(0);
    let (x, y) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::wide::matmul({}, {x}, {}, {y}, {out});", dims(&a), dims(&b)));
    Ok(())
}

fn softmax(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_dims(0);
    let a = axis(cx.op.attrs.int("axis").unwrap_or(-1), xs.len())?;
    let (outer, inner) = (Sz::product(&xs[..a]), Sz::product(&xs[a + 1..]));
    let n = xs.get(a).cloned().unwrap_or(Sz::Lit(1));
    let log = cx.op.opcode == Opcode::LogSoftmax;
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::wide::softmax({outer}, {n}, {inner}, {log}, {x}, {out});"));
    Ok(())
}

fn flex(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
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
        "k::wide::Flex {{ b: {b}, hq: {hq}, l: {l}, e: {e}, hkv: {hkv}, s: {s}, ev: {ev}, scale: {} }}",
        super::f32_lit(scale)
    );
    let f = cx.field("Vec<f64>", format!("vec![0.0; {s}]"));
    let out = cx.begin(0);
    let (qi, ki, vi) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    cx.line(format!("k::wide::flex_attention(&{p}, {qi}, {ki}, {vi}, &mut self.{f}, {out});"));
    Ok(())
}
