//! Lowering of each op to kernel calls, and what memory each op's result
//! may share (the planner's [`Reuse`]).
//!
//! One module per op family, named [`ir::Family::name`] (`elementwise`,
//! `quant`, `linalg`, `conv`, `pool`, `norm`, `attention`, `rnn`,
//! `resample`, `layout`, `index`, `select`, `reduce`, `generate`, `signal`,
//! `loss`), each holding the lowering of exactly that family's ops and a
//! `pub fn lower` of the [`LowerFn`] signature. Control flow (`control`) is
//! lowered by the function emitter and strings are not compiled, so those
//! families have no module. Besides them: `table`, the op table (every fact
//! the backend keeps about an op, and the family-to-`lower` match), and
//! this module, the entry points and the helpers several families share
//! (literals, axes and constant operands, window geometry, operand checks).
//!
//! An op the Rust backend cannot compile is an error naming the op and its
//! ONNX node; `edgec compile` lists every such op at once.

use super::emit::OpCx;
pub use super::sz::Sz;
use crate::plan::{Class, Reuse};
use ir::ops::elementwise::Activation;
use ir::{DType, Function, OpData, Opcode};
use std::sync::OnceLock;

pub use table::{lowering, TABLE};

/// A family's lowering (its module's `lower`): emits the op's kernel calls,
/// or `Ok(false)` if the family does not lower this op with these element
/// types.
pub type LowerFn = fn(&mut OpCx<'_, '_>) -> Result<bool, String>;

/// A `k::elementwise` kernel selector: a fixed variant name, or one built from the
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
    /// A one-input float op: `k::elementwise::unary` with this `Unary` variant.
    Unary(Kernel),
    /// A broadcasting two-input op: `k::elementwise::binary` with this `Binary` variant.
    Binary(Kernel),
    /// By the `lower` of the op's family ([`Opcode::family`], mapped to its
    /// module by [`lowering`]).
    Family,
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
        Some(Lower::Binary(_) | Lower::Family) if op.operands.len() == 2 => {
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
        Lower::Family => match lowering(op.opcode.family()) {
            Some(lower) => lower(cx)?,
            None => false,
        },
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

/// `value` as a Rust literal of `class`.
pub fn value_lit(class: Class, value: f64) -> String {
    match class {
        Class::F32 => f32_lit(value as f32),
        Class::Bool => (value != 0.0).to_string(),
        c => format!("{}{}", value as i64, c.rust()),
    }
}

/// Normalize a possibly negative axis (a scalar takes axis 0).
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    crate::rust::shapes::axis(a, rank)
}

/// Integer contents of constant operand `i`.
pub fn const_ints(cx: &OpCx<'_, '_>, i: usize) -> Result<Vec<i64>, String> {
    cx.in_const(i).and_then(|c| c.to_i64s()).ok_or_else(|| format!("operand #{i} must be a constant"))
}

/// True if result `j` of the op exists and is used.
pub fn used(cx: &OpCx<'_, '_>, j: usize) -> bool {
    cx.op.results.get(j).is_some_and(|r| cx.func().use_counts()[r.as_u32() as usize] > 0)
}

/// Fail unless operand `i` holds i64 or i32 indices.
pub fn index_operand(cx: &OpCx<'_, '_>, i: usize, what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(Class::I64 | Class::I32) => Ok(()),
        _ => Err(format!("{}: {what} must be i64 or i32", cx.op.opcode.name())),
    }
}

/// Fail unless operand `i` is of one of the classes `ok`.
pub fn want_class(cx: &OpCx<'_, '_>, i: usize, ok: &[Class], what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(c) if ok.contains(&c) => Ok(()),
        _ => Err(format!("{}: {what} of this element type is not supported", cx.op.opcode.name())),
    }
}

/// Fail unless every operand in `which` and every result is f32.
pub fn all_f32(cx: &OpCx<'_, '_>, which: &[usize]) -> Result<(), String> {
    f32_only(cx)?;
    let f = cx.func();
    let bad_in = which.iter().filter_map(|&i| cx.op.operand(i)).find(|&v| f.ty(v).dtype != DType::F32);
    let bad_out = cx.op.results.iter().copied().find(|&v| f.ty(v).dtype != DType::F32);
    if let Some(v) = bad_in.or(bad_out) {
        return Err(format!(
            "{} with a {} operand or result is not supported by the Rust backend (f32 only)",
            cx.op.opcode.name(),
            f.ty(v).dtype
        ));
    }
    Ok(())
}

/// True if the op computes in double precision (`k::linalg::wide`, `k::norm::wide`, `k::attention::flex`): an f64 operand
/// 0 and one f64 result. Models computed in f64 keep it (the f32 kernels
/// serve f32, and f16/bf16 through exact widening).
pub fn f64_op(cx: &OpCx<'_, '_>) -> bool {
    cx.in_class(0) == Some(Class::F64) && cx.op.results.len() == 1 && cx.out_class(0) == Class::F64
}

/// `prefix x, out)`: a kernel call on operand 0 writing result 0 (the
/// kernels that take one operand and the output).
pub fn call_x_out(cx: &mut OpCx<'_, '_>, prefix: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{prefix}{x}, {out});"));
    Ok(())
}

/// The kernel `Act` for an op's `act`/`act_alpha`/`act_beta` attributes
/// (the fused activation of a GEMM or convolution epilogue).
pub fn act(op: &OpData) -> Result<String, String> {
    Ok(match Activation::from_attrs(&op.attrs)? {
        Activation::None => "k::act::Act::None".into(),
        Activation::Relu => "k::act::Act::Relu".into(),
        Activation::Clip { min, max } => {
            format!("k::act::Act::Clip {{ min: {}, max: {} }}", f32_lit(min), f32_lit(max))
        }
        Activation::Sigmoid => "k::act::Act::Sigmoid".into(),
        Activation::HardSigmoid { alpha, beta } => {
            format!("k::act::Act::HardSigmoid {{ alpha: {}, beta: {} }}", f32_lit(alpha), f32_lit(beta))
        }
        Activation::HardSwish => "k::act::Act::HardSwish".into(),
        Activation::LeakyRelu { alpha } => format!("k::act::Act::LeakyRelu {{ alpha: {} }}", f32_lit(alpha)),
        Activation::Silu => "k::act::Act::Silu".into(),
        Activation::Gelu => "k::act::Act::Gelu".into(),
        Activation::GeluTanh => "k::act::Act::GeluTanh".into(),
        Activation::Tanh => "k::act::Act::Tanh".into(),
    })
}

/// Integer list attribute `k` of `op` (`n` copies of `d` when absent),
/// negative entries as 0.
pub fn ints(op: &OpData, k: &str, n: usize, d: usize) -> Vec<usize> {
    op.attrs.ints(k).map_or(vec![d; n], |v| v.iter().map(|&x| x.max(0) as usize).collect())
}

/// Begin and end pads of a conv/pool over `spatial` with output `out`
/// (SAME padding of a symbolic input size is computed when the model runs,
/// by statements added to `cx`'s current block).
pub fn pads(
    cx: &mut OpCx<'_, '_>,
    spatial: &[Sz],
    out: &[Sz],
    kernel: &[usize],
    stride: &[usize],
    dil: &[usize],
) -> Vec<Sz> {
    let op = cx.op;
    let r = spatial.len();
    match op.attrs.str("auto_pad").unwrap_or("NOTSET") {
        "SAME_UPPER" | "SAME_LOWER" => {
            let lower = op.attrs.str("auto_pad") == Some("SAME_LOWER");
            let mut p = vec![Sz::Lit(0); 2 * r];
            for i in 0..r {
                if let (Some(x), Some(o)) = (spatial[i].lit(), out[i].lit()) {
                    let need = (o.saturating_sub(1)) * stride[i] + (kernel[i] - 1) * dil[i] + 1;
                    let total = need.saturating_sub(x);
                    let small = total / 2;
                    let (b, e) = if lower { (total - small, small) } else { (small, total - small) };
                    (p[i], p[i + r]) = (Sz::Lit(b), Sz::Lit(e));
                    continue;
                }
                let name = format!("pad{i}");
                cx.line(format!(
                    "let {name} = k::shape::same_pads({}, {}, {}, {}, {lower});",
                    spatial[i], kernel[i], stride[i], dil[i]
                ));
                (p[i], p[i + r]) = (Sz::expr(format!("{name}.0")), Sz::expr(format!("{name}.1")));
            }
            p
        }
        "VALID" => vec![Sz::Lit(0); 2 * r],
        _ => ints(op, "pads", 2 * r, 0).into_iter().map(Sz::Lit).collect(),
    }
}

/// `p` with symbolic entries replaced by `fill` (a construction-time copy
/// of run-time geometry, for packing weights).
pub fn lits_or(p: &[Sz], fill: usize) -> Vec<usize> {
    p.iter().map(|x| x.lit().unwrap_or(fill)).collect()
}

/// The `k::conv::window::Window` literal of a conv-like op over input
/// `xs` with kernel `kernel` and output `ys` (pads resolved in `cx`'s
/// current block when `auto_pad` needs run-time sizes).
pub fn window(cx: &mut OpCx<'_, '_>, xs: &[Sz], kernel: &[usize], ys: &[Sz]) -> String {
    let r = kernel.len();
    let (stride, dil) = (ints(cx.op, "strides", r, 1), ints(cx.op, "dilations", r, 1));
    let p = pads(cx, &xs[2..], &ys[2..], kernel, &stride, &dil);
    format!(
        "k::conv::window::Window {{ input: {}, kernel: &{kernel:?}, output: {}, strides: &{stride:?}, dilations: &{dil:?}, pads: {} }}",
        dims(&xs[2..]),
        dims(&ys[2..]),
        dims(&p[..r])
    )
}

mod attention;
mod conv;
mod elementwise;
mod generate;
mod index;
mod layout;
mod linalg;
mod loss;
mod norm;
mod pool;
mod quant;
mod reduce;
mod resample;
mod rnn;
mod select;
mod signal;
mod table;
