//! Lowering of each op to kernel calls, grouped by family, and what memory
//! each op's result may share (the planner's [`Reuse`]).
//!
//! An op the Rust backend cannot compile is an error naming the op and its
//! ONNX node; `edgec compile` lists every such op at once.

use super::func::OpCx;
pub use super::sz::Sz;
use crate::plan::Reuse;
use ir::{Function, OpData, Opcode};

/// How the result of `op` may share memory with its operands.
pub fn reuse(f: &Function, op: &OpData) -> Reuse {
    use Opcode::*;
    match op.opcode {
        Reshape | CoreReshape | CoreSqueeze | CoreUnsqueeze | Squeeze | Unsqueeze | Flatten | Identity => {
            Reuse::View(0)
        }
        Dropout if op.results.len() == 1 => Reuse::View(0),
        _ => reuse_in_place(f, op),
    }
}

fn reuse_in_place(f: &Function, op: &OpData) -> Reuse {
    let Some(&r) = op.results.first() else { return Reuse::None };
    let same = |i: usize| op.operand(i).is_some_and(|v| f.ty(v) == f.ty(r));
    let cands: Vec<usize> = (0..op.operands.len()).filter(|&i| same(i)).collect();
    if cands.is_empty() || !elementwise::in_place_ok(f, op) {
        return Reuse::None;
    }
    Reuse::InPlace(cands)
}

/// True if `op` may run once at construction when its operands are all
/// constants: the families whose lowering needs neither scratch nor
/// construction fields (elementwise math, data movement, shape ops,
/// reductions, softmax).
pub fn hoistable(_f: &Function, op: &OpData) -> bool {
    use Opcode::*;
    matches!(
        op.opcode,
        Transpose
            | Concat
            | Slice
            | CoreSlice
            | Gather
            | GatherElements
            | Pad
            | Expand
            | CoreExpand
            | Tile
            | DepthToSpace
            | SpaceToDepth
            | Shape
            | Size
            | ConstantOfShape
            | Softmax
            | LogSoftmax
            | CoreReduce
            | ReduceSum
            | ReduceMean
            | ReduceMax
            | ReduceMin
            | ReduceProd
            | Clip
            | Where
            | Cast
            | Equal
            | Less
            | LessOrEqual
            | Greater
            | GreaterOrEqual
            | And
            | Or
            | Xor
            | Not
            | Sum
            | Mean
            | Max
            | Min
    ) || elementwise::pure_math(op)
}

/// Emit the kernel calls of the op in `cx`.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    if let Reuse::View(_) = reuse(cx.func(), op) {
        // Same elements as the operand: no code.
        return Ok(());
    }
    low_types_ok(cx)?;
    let done = select::lower(cx)?
        || signal::lower(cx)?
        || vision::lower(cx)?
        || wide::lower(cx)?
        || elementwise::lower(cx)?
        || linalg::lower(cx)?
        || conv::pool(cx)?
        || conv::attention(cx)?
        || layout::lower(cx)?
        || norm::lower(cx)?
        || rnn::lower(cx)?
        || quant::lower(cx)?
        || seqmix::lower(cx)?
        || misc::lower(cx)?
        || scan::lower(cx)?
        || attn_norm::lower(cx)?;
    if !done {
        return Err(format!("{} is not supported by the Rust backend yet", op.opcode.name()));
    }
    cx.finish();
    Ok(())
}

/// Fail if a sub-16-bit value (float8, float4, 4- or 2-bit integer) meets
/// an op other than a conversion: those types have no arithmetic kernels.
fn low_types_ok(cx: &OpCx<'_, '_>) -> Result<(), String> {
    use crate::plan::Class;
    if matches!(cx.op.opcode, Opcode::Cast | Opcode::CastLike | Opcode::QuantizeLinear | Opcode::DequantizeLinear) {
        return Ok(());
    }
    let f = cx.func();
    let tys = cx.op.operands.iter().flatten().chain(&cx.op.results).map(|&v| f.ty(v).dtype);
    match tys.into_iter().find(|&d| Class::of(d).is_some_and(Class::is_low)) {
        Some(d) => Err(format!(
            "{} on {d} is not supported by the Rust backend (sub-16-bit types are only converted and (de)quantized)",
            cx.op.opcode.name()
        )),
        None => Ok(()),
    }
}

/// Fail unless operand 0 and result 0 of the op are f32 (for kernels
/// that exist only in f32).
pub fn f32_only(cx: &OpCx<'_, '_>) -> Result<(), String> {
    use crate::plan::Class;
    let bad = |c: Option<Class>| c.is_some_and(|c| c != Class::F32);
    if bad(cx.in_class(0)) || bad(cx.op.results.first().map(|_| cx.out_class(0))) {
        let ty = cx.op.operand(0).map(|v| cx.func().ty(v).dtype.to_string()).unwrap_or_default();
        return Err(format!("{} on {ty} is not supported by the Rust backend (f32 only)", cx.op.opcode.name()));
    }
    Ok(())
}

/// `call`, a `Result<T, k::rt::Error>` expression, as an expression of `T`:
/// `(call)?` in a function that returns a `Result` (one with run-time
/// sizes), else a panic with the error's message (the static convention
/// for bad data, as an out-of-range Gather index).
pub fn try_expr(cx: &OpCx<'_, '_>, call: String) -> String {
    if cx.is_dynamic() {
        format!("({call})?")
    } else {
        format!("({call}).unwrap_or_else(|e| panic!(\"{{e}}\"))")
    }
}

/// A statement running `call` (see [`try_expr`]).
pub fn try_line(cx: &mut OpCx<'_, '_>, call: String) {
    let s = try_expr(cx, call);
    cx.line(format!("{s};"));
}

/// A shape as a Rust slice literal: `&[1, 3, 224, 224]` (run-time
/// expressions for symbolic dims).
pub fn dims(d: &[Sz]) -> String {
    Sz::slice(d)
}

/// A static shape as a Rust slice literal (lowerings without a run-time shape path).
pub fn udims(d: &[usize]) -> String {
    format!("&{d:?}")
}

/// An f32 as a Rust literal (`f32::INFINITY` etc. for non-finite values).
pub fn f32_lit(x: f32) -> String {
    if x.is_nan() {
        "f32::NAN".into()
    } else if x == f32::INFINITY {
        "f32::INFINITY".into()
    } else if x == f32::NEG_INFINITY {
        "f32::NEG_INFINITY".into()
    } else {
        format!("{x:?}f32")
    }
}

/// Float attribute `k` of `op` (default `d`) as a Rust literal.
pub fn f32_attr(op: &OpData, k: &str, d: f32) -> String {
    f32_lit(op.attrs.float(k).unwrap_or(d))
}

mod attn_norm;
mod conv;
mod elementwise;
mod layout;
pub mod linalg;
mod misc;
mod norm;
mod quant;
mod resize;
mod rnn;
mod scan;
mod select;
mod seqmix;
mod signal;
mod vision;
mod wide;
