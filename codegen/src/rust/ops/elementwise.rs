//! Elementwise ops: one-input math and activations, broadcasting
//! arithmetic (in place over an operand whose last use this is), variadic
//! Sum/Max/Min/Mean, comparisons, logic, bitwise ops, `Where`, `Cast`,
//! `BitCast` (`k::elementwise::bitcast`: any number or bool of equal width),
//! `Dropout` at inference.

use super::dims;
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::{OpData, Opcode};

/// Every class but `bool` has the arithmetic of `k::elementwise::Num`.
pub fn numeric(c: Option<Class>) -> bool {
    c.is_some_and(|c| c != Class::Bool)
}

/// A `Pow` whose exponent has another numeric type than the base.
pub fn mixed_pow(op: &OpData, base: Option<Class>, exp: Option<Class>) -> bool {
    op.opcode == Opcode::Pow && numeric(base) && numeric(exp) && base != exp
}

/// A one-input float op through `k::elementwise::Unary::{u}` (in place when the
/// planner put the result over the operand).
pub fn unary(cx: &mut OpCx<'_, '_>, u: &str) -> Result<(), String> {
    let op = cx.op;
    let class = cx.out_class(0);
    if !class.is_float() || cx.in_class(0) != Some(class) {
        return Err(format!("{} on {} is not supported (floats only)", op.opcode.name(), class.name()));
    }
    // f32 has the vectorized kernels; f64, F16 and BF16 evaluate in f64.
    let kernel = if class == Class::F32 { "unary" } else { "unary_real" };
    let out = cx.begin(0);
    if cx.in_place() == Some(0) {
        cx.line(format!("k::elementwise::{kernel}_inplace(k::elementwise::Unary::{u}, {out});"));
    } else {
        let x = cx.input(0)?;
        cx.line(format!("k::elementwise::{kernel}(k::elementwise::Unary::{u}, {x}, {out});"));
    }
    Ok(())
}

/// A broadcasting two-input op through `k::elementwise::Binary::{b}` (in place over
/// either operand when the planner chose it); a `Pow` whose exponent has
/// another type goes to `k::elementwise::pow_mixed`.
pub fn binary(cx: &mut OpCx<'_, '_>, b: &str) -> Result<(), String> {
    let op = cx.op;
    let class = cx.out_class(0);
    if mixed_pow(op, cx.in_class(0), cx.in_class(1)) && cx.in_class(0) == Some(class) {
        let (sa, sb, so) = (dims(&cx.in_dims(0)), dims(&cx.in_dims(1)), dims(&cx.out_dims(0)));
        let out = cx.begin(0);
        let (x, y) = (cx.input(0)?, cx.input(1)?);
        cx.line(format!("k::elementwise::pow_mixed({sa}, {x}, {sb}, {y}, {so}, {out});"));
        return Ok(());
    }
    if !numeric(Some(class)) || cx.in_class(0) != Some(class) || cx.in_class(1) != Some(class) {
        return Err(format!("{} on these element types is not supported", op.opcode.name()));
    }
    let (sa, sb, so) = (dims(&cx.in_dims(0)), dims(&cx.in_dims(1)), dims(&cx.out_dims(0)));
    let out = cx.begin(0);
    match cx.in_place() {
        Some(0) => {
            let b_ = cx.input(1)?;
            cx.line(format!("k::elementwise::binary_inplace(k::elementwise::Binary::{b}, {so}, {out}, {sb}, {b_});"));
        }
        Some(_) => {
            let a_ = cx.input(0)?;
            cx.line(format!(
                "k::elementwise::binary_inplace_rev(k::elementwise::Binary::{b}, {so}, {out}, {sa}, {a_});"
            ));
        }
        None => {
            let (x, y) = (cx.input(0)?, cx.input(1)?);
            cx.line(format!("k::elementwise::binary(k::elementwise::Binary::{b}, {sa}, {x}, {sb}, {y}, {so}, {out});"));
        }
    }
    Ok(())
}

/// Lower the elementwise ops that are not plain unary or binary kernels
/// (Clip, Max/Min, variadic ops, comparisons, logic, bitwise ops, Where,
/// Cast, BitCast, Dropout); `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let op = cx.op;
    if op.opcode == Opcode::Clip {
        return clip(cx).map(|()| true);
    }
    if matches!(op.opcode, Opcode::Max | Opcode::Min) && op.operands.len() == 2 {
        let b = if op.opcode == Opcode::Max { "Max" } else { "Min" };
        return binary(cx, b).map(|()| true);
    }
    other(cx)
}

/// `Clip(x, min?, max?)` with constant bounds: a `Unary::Clip` for f32,
/// `k::elementwise::clip` with bounds of the element type otherwise.
fn clip(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let class = cx.out_class(0);
    if class == Class::Bool || cx.in_class(0) != Some(class) {
        return Err(format!("Clip on {} is not supported", class.name()));
    }
    if [1, 2].iter().any(|&i| cx.op.operand(i).is_some() && cx.in_const(i).is_none()) {
        return clip_runtime(cx);
    }
    let bound = |cx: &OpCx<'_, '_>, i: usize| -> Result<Option<f64>, String> {
        if cx.op.operand(i).is_none() {
            return Ok(None);
        }
        let c = cx.in_const(i).ok_or("Clip with non-constant bounds is not supported")?;
        c.to_f64s().and_then(|v| v.first().copied()).map(Some).ok_or_else(|| "bad Clip bound".to_string())
    };
    let (lo, hi) = (bound(cx, 1)?, bound(cx, 2)?);
    if class == Class::F32 {
        let (lo, hi) = (lo.unwrap_or(f64::NEG_INFINITY) as f32, hi.unwrap_or(f64::INFINITY) as f32);
        let u = format!("Clip {{ min: {}, max: {} }}", super::f32_lit(lo), super::f32_lit(hi));
        let out = cx.begin(0);
        let x = cx.input(0)?;
        cx.line(format!("k::elementwise::unary(k::elementwise::Unary::{u}, {x}, {out});"));
        return Ok(());
    }
    // Absent bounds: the type's extremes (infinities for floats).
    let lit = |b: Option<f64>, min: bool| match b {
        Some(v) => class.literal(v),
        None if class.is_float() => class.literal(if min { f64::NEG_INFINITY } else { f64::INFINITY }),
        None => format!("{}::{}", class.rust(), if min { "MIN" } else { "MAX" }),
    };
    let (lo, hi) = (lit(lo, true), lit(hi, false));
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::elementwise::clip({x}, {lo}, {hi}, {out});"));
    Ok(())
}

/// `Clip` with a bound read when the model runs (an input): `k::elementwise::clip`
/// with the bound's first element (an empty bound tensor, or an absent
/// one, leaves that side open: the type's extreme).
fn clip_runtime(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let class = cx.out_class(0);
    for i in [1, 2] {
        if cx.op.operand(i).is_some() && cx.in_class(i) != Some(class) {
            return Err(format!("Clip: bound #{i} must have the input's element type {}", class.name()));
        }
    }
    let open = |min: bool| {
        if class.is_float() {
            class.literal(if min { f64::NEG_INFINITY } else { f64::INFINITY })
        } else {
            format!("{}::{}", class.rust(), if min { "MIN" } else { "MAX" })
        }
    };
    let out = cx.begin(0);
    let x = cx.input(0)?;
    let mut b = Vec::new();
    for (i, min) in [(1, true), (2, false)] {
        b.push(match cx.op.operand(i) {
            Some(_) => format!("{}.first().copied().unwrap_or({})", cx.input(i)?, open(min)),
            None => open(min),
        });
    }
    cx.line(format!("k::elementwise::clip({x}, {}, {}, {out});", b[0], b[1]));
    Ok(())
}

fn other(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    let op = cx.op;
    let shape = |cx: &OpCx<'_, '_>, i: usize| dims(&cx.in_dims(i));
    let so = dims(&cx.out_dims(0));
    match op.opcode {
        Sum | Mean | Max | Min => {
            let v = match op.opcode {
                Sum => "Sum",
                Mean => "Mean",
                Max => "Max",
                _ => "Min",
            };
            if !numeric(Some(cx.out_class(0))) {
                return Err(format!("{} on bool is not supported", op.opcode.name()));
            }
            let out = cx.begin(0);
            let mut parts = Vec::new();
            for i in 0..op.operands.len() {
                let s = shape(cx, i);
                parts.push(format!("({s}, {})", cx.input(i)?));
            }
            cx.line(format!(
                "k::elementwise::variadic(k::elementwise::Variadic::{v}, &[{}], {so}, {out});",
                parts.join(", ")
            ));
        }
        Equal | Less | LessOrEqual | Greater | GreaterOrEqual => {
            let c = op.opcode.name().trim_start_matches("onnx.").to_string();
            let (sa, sb) = (shape(cx, 0), shape(cx, 1));
            let out = cx.begin(0);
            let (a, b) = (cx.input(0)?, cx.input(1)?);
            cx.line(format!(
                "k::elementwise::compare(k::elementwise::Compare::{c}, {sa}, {a}, {sb}, {b}, {so}, {out});"
            ));
        }
        And | Or | Xor => {
            let c = op.opcode.name().trim_start_matches("onnx.").to_string();
            let (sa, sb) = (shape(cx, 0), shape(cx, 1));
            let out = cx.begin(0);
            let (a, b) = (cx.input(0)?, cx.input(1)?);
            cx.line(format!("k::elementwise::logic(k::elementwise::Logic::{c}, {sa}, {a}, {sb}, {b}, {so}, {out});"));
        }
        Not => simple(cx, "k::elementwise::not")?,
        BitwiseAnd | BitwiseOr | BitwiseXor | BitShift | BitwiseNot if !cx.in_class(0).is_some_and(Class::is_int) => {
            return Err(format!("{} of a non-integer tensor is not supported", op.opcode.name()));
        }
        BitwiseNot => simple(cx, "k::elementwise::bitwise_not")?,
        BitwiseAnd | BitwiseOr | BitwiseXor | BitShift => {
            let b = match (op.opcode, op.attrs.str("direction")) {
                (BitwiseAnd, _) => "And",
                (BitwiseOr, _) => "Or",
                (BitwiseXor, _) => "Xor",
                (_, Some("LEFT")) => "ShiftLeft",
                (_, Some("RIGHT")) => "ShiftRight",
                _ => return Err("BitShift needs `direction` LEFT or RIGHT".into()),
            };
            let (sa, sb) = (shape(cx, 0), shape(cx, 1));
            let out = cx.begin(0);
            let (a, b_) = (cx.input(0)?, cx.input(1)?);
            cx.line(format!(
                "k::elementwise::bitwise(k::elementwise::Bitwise::{b}, {sa}, {a}, {sb}, {b_}, {so}, {out});"
            ));
        }
        IsNaN | IsInf if !cx.in_class(0).is_some_and(Class::is_float) => {
            return Err(format!("{} of a non-float tensor is not supported", op.opcode.name()));
        }
        IsNaN => simple(cx, "k::elementwise::is_nan")?,
        IsInf => {
            let (n, p) =
                (op.attrs.int("detect_negative").unwrap_or(1) != 0, op.attrs.int("detect_positive").unwrap_or(1) != 0);
            let out = cx.begin(0);
            let x = cx.input(0)?;
            cx.line(format!("k::elementwise::is_inf({x}, {n}, {p}, {out});"));
        }
        Where => {
            let (sc, sx, sy) = (shape(cx, 0), shape(cx, 1), shape(cx, 2));
            let out = cx.begin(0);
            let (c, x, y) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
            cx.line(format!("k::elementwise::where_({sc}, {c}, {sx}, {x}, {sy}, {y}, {so}, {out});"));
        }
        Cast | CastLike => {
            let Some(from) = cx.in_class(0) else {
                return Err("Cast from this element type is not supported".into());
            };
            if from.is_low() || cx.out_class(0).is_low() {
                low_cast(cx)?
            } else {
                simple(cx, "k::elementwise::cast")?
            }
        }
        BitCast => simple(cx, "k::elementwise::bitcast")?,
        Dropout => dropout(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// A `Cast` to or from a sub-16-bit type, honouring `saturate` (default 1)
/// and `round_mode` (default `up`, float8 E8M0 only).
fn low_cast(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let saturate = cx.op.attrs.int("saturate").unwrap_or(1) != 0;
    let mode = match cx.op.attrs.str("round_mode").unwrap_or("up") {
        "up" => "Up",
        "down" => "Down",
        "nearest" => "Nearest",
        m => return Err(format!("{}: round_mode `{m}` is not supported", cx.op.opcode.name())),
    };
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::elementwise::lowp8::cast({x}, {out}, {saturate}, k::lowp8::RoundMode::{mode});"));
    Ok(())
}

/// `Dropout` at inference (no `training_mode`, or a constant false one, or a
/// constant zero ratio): the output is the input and the mask is all true.
fn dropout(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let scalar =
        |cx: &OpCx<'_, '_>, i: usize| cx.in_const(i).and_then(|c| c.to_f64s()).and_then(|v| v.first().copied());
    let training = cx.op.operand(2).is_some() && scalar(cx, 2) != Some(0.0);
    if training && scalar(cx, 1) != Some(0.0) {
        return Err("Dropout in training mode (random masks) is not supported; export the model for inference".into());
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{out}.copy_from_slice({x});"));
    if cx.op.results.len() > 1 {
        let mask = cx.begin(1);
        cx.line(format!("{mask}.fill(true);"));
    }
    Ok(())
}

/// `kernel(x, out)`.
fn simple(cx: &mut OpCx<'_, '_>, kernel: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{kernel}({x}, {out});"));
    Ok(())
}
