//! Lowering of each op to kernel calls, grouped by family, and what memory
//! each op's result may share (the planner's [`Reuse`]).
//!
//! An op the Rust backend cannot compile is an error naming the op and its
//! ONNX node; `edgec compile` lists every such op at once.

use super::emit::OpCx;
pub use super::sz::Sz;
use crate::plan::{Class, Reuse};
use ir::{Function, OpData, Opcode};
use std::sync::OnceLock;

pub use table::TABLE;

/// A family's lowering: emits the op's kernel calls, or `Ok(false)` if the
/// family does not lower this op with these element types.
pub type Family = fn(&mut OpCx<'_, '_>) -> Result<bool, String>;

/// A `k::ew` kernel selector: a fixed variant name, or one built from the
/// op's attributes (`Elu { alpha: 0.5f32 }`).
#[derive(Copy, Clone)]
pub enum Kernel {
    /// The variant, as written.
    Plain(&'static str),
    /// The variant built from the op.
    Attrs(fn(&OpData) -> String),
}

impl Kernel {
    fn expr(self, op: &OpData) -> String {
        match self {
            Kernel::Plain(k) => k.to_string(),
            Kernel::Attrs(f) => f(op),
        }
    }
}

/// How an op lowers.
#[derive(Copy, Clone)]
pub enum Lower {
    /// Lowered by the function emitter itself (constants, control flow,
    /// bucket dispatch).
    Structural,
    /// The result is operand 0's elements: no code.
    View,
    /// A one-input float op: `k::ew::unary` with this `Unary` variant.
    Unary(Kernel),
    /// A broadcasting two-input op: `k::ew::binary` with this `Binary` variant.
    Binary(Kernel),
    /// The families tried in order.
    Family(&'static [Family]),
}

/// What memory an op's result may share with its operands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mem {
    /// A fresh buffer.
    Fresh,
    /// Operand 0's buffer (a view).
    View,
    /// A view when the op has one result (Dropout without its mask).
    ViewWithoutMask,
    /// Over an operand of the same type whose last use this is (unary and
    /// two-operand ops).
    InPlace,
}

/// The `cpu` target's cost of an op (the target layer's linear model).
pub use passes::target::CostModel as Cost;

/// One row of the backend's op table (see [`TABLE`]).
#[derive(Copy, Clone)]
pub struct Row {
    /// The op.
    pub opcode: Opcode,
    /// How it lowers.
    pub lower: Lower,
    /// What its result may share.
    pub mem: Mem,
    /// May run once at construction when its operands are all constants
    /// (its lowering needs neither scratch nor construction fields).
    pub hoist: bool,
    /// On f16/bf16 it is computed in f32 between exact casts (the
    /// `widen-half` preparation pass).
    pub widen: bool,
    /// Its cost on the `cpu` target; `None`: the profile's default.
    pub cost: Option<Cost>,
}

/// The table row of `op`, or `None` if the backend does not compile it.
pub fn row(op: Opcode) -> Option<&'static Row> {
    static INDEX: OnceLock<std::collections::HashMap<Opcode, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| TABLE.iter().enumerate().map(|(i, r)| (r.opcode, i)).collect());
    index.get(&op).map(|&i| &TABLE[i])
}

/// True if the backend computes `op` in f32 for f16/bf16 operands.
pub fn widened(op: Opcode) -> bool {
    row(op).is_some_and(|r| r.widen)
}

/// How the result of `op` may share memory with its operands.
pub fn reuse(f: &Function, op: &OpData) -> Reuse {
    match row(op.opcode).map(|r| r.mem) {
        Some(Mem::View) => Reuse::View(0),
        Some(Mem::ViewWithoutMask) if op.results.len() == 1 => Reuse::View(0),
        Some(Mem::InPlace) => reuse_in_place(f, op),
        _ => Reuse::None,
    }
}

fn reuse_in_place(f: &Function, op: &OpData) -> Reuse {
    let Some(&r) = op.results.first() else { return Reuse::None };
    let same = |i: usize| op.operand(i).is_some_and(|v| f.ty(v) == f.ty(r));
    let cands: Vec<usize> = (0..op.operands.len()).filter(|&i| same(i)).collect();
    if cands.is_empty() || !in_place_ok(f, op) {
        return Reuse::None;
    }
    Reuse::InPlace(cands)
}

/// True if the op's kernel can write its result over an operand: a float
/// unary op, or a two-operand op on numbers (not a Pow with an exponent of
/// another type).
fn in_place_ok(f: &Function, op: &OpData) -> bool {
    let class = op.results.first().and_then(|&r| Class::of(f.ty(r).dtype));
    let exp = op.operand(1).and_then(|v| Class::of(f.ty(v).dtype));
    match row(op.opcode).map(|r| r.lower) {
        Some(Lower::Unary(_)) => class.is_some_and(Class::is_float) && op.operands.len() == 1,
        Some(Lower::Binary(_) | Lower::Family(_)) if op.operands.len() == 2 => {
            elementwise::numeric(class) && !elementwise::mixed_pow(op, class, exp)
        }
        _ => false,
    }
}

/// True if `op` may run once at construction when its operands are all
/// constants (see [`Row::hoist`]).
pub fn hoistable(_f: &Function, op: &OpData) -> bool {
    row(op.opcode).is_some_and(|r| r.hoist)
}

/// Emit the kernel calls of the op in `cx`.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let Some(r) = row(op.opcode) else {
        return Err(format!("{} is not supported by the Rust backend yet", op.opcode.name()));
    };
    if let Reuse::View(_) = reuse(cx.func(), op) {
        // Same elements as the operand: no code.
        return Ok(());
    }
    low_types_ok(cx)?;
    let done = match r.lower {
        Lower::Unary(k) => elementwise::unary(cx, &k.expr(op)).map(|()| true)?,
        Lower::Binary(k) => elementwise::binary(cx, &k.expr(op)).map(|()| true)?,
        Lower::Family(families) => {
            let mut done = false;
            for family in families {
                if family(cx)? {
                    done = true;
                    break;
                }
            }
            done
        }
        Lower::View | Lower::Structural => false,
    };
    if !done {
        return Err(format!("{} is not supported by the Rust backend yet", op.opcode.name()));
    }
    cx.finish();
    Ok(())
}

/// Fail if a sub-16-bit value (float8, float4, 4- or 2-bit integer) meets
/// an op other than a conversion: those types have no arithmetic kernels.
fn low_types_ok(cx: &OpCx<'_, '_>) -> Result<(), String> {
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
mod table;
mod vision;
mod wide;
