//! Tensors made from attributes and scalars: ConstantOfShape (a fill),
//! Range whose bounds are read when the model runs
//! (`k::generate::range`), EyeLike and Trilu (`k::generate`).
//! Constants (`core.const`) are the function emitter's.

use super::{const_ints, index_operand, try_line, udims, value_lit, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::{Attr, Opcode};

/// Lower a generator; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::ConstantOfShape => constant_of_shape(cx)?,
        Opcode::Range if (0..3).any(|i| cx.in_const(i).is_none()) => range(cx)?,
        // A Range of constants is not lowered.
        Opcode::Range => {
            return Err(format!("{} with non-constant operands is not supported", cx.op.opcode.name()));
        }
        Opcode::EyeLike => eye_like(cx)?,
        Opcode::Trilu => trilu(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// ConstantOfShape: its `value` (0 when absent) written once per run.
fn constant_of_shape(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let class = cx.out_class(0);
    let n = Sz::product(&cx.out_dims(0));
    let v = match op.attrs.get("value") {
        Some(Attr::Sym(name)) => cx
            .module()
            .const_by_name(name)
            .and_then(|id| cx.module().consts[id].to_f64s())
            .and_then(|v| v.first().copied())
            .unwrap_or(0.0),
        _ => 0.0,
    };
    let out = cx.begin(0);
    let lit = class.literal(v);
    cx.line(format!("{out}.fill({lit}); // {n} elements"));
    Ok(())
}

fn range(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let c = cx.out_class(0);
    if !matches!(c, Class::I16 | Class::I32 | Class::I64 | Class::F32 | Class::F64 | Class::F16 | Class::BF16) {
        return Err(format!("Range on {} is not supported", c.name()));
    }
    for i in 0..3 {
        if cx.in_class(i) != Some(c) {
            return Err("Range: start, limit and delta must have the result's element type".into());
        }
    }
    let stash_f64 = cx.op.attrs.int("stash_type").unwrap_or(1) == 11;
    let out = cx.begin(0);
    let (s, l, d) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    try_line(cx, format!("k::generate::range({s}[0], {l}[0], {d}[0], {stash_f64}, {out})"));
    Ok(())
}

fn trilu(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_static(0);
    if xs.len() < 2 {
        return Err(format!("Trilu: the input {xs:?} needs rank >= 2"));
    }
    let upper = cx.op.attrs.int("upper").unwrap_or(1) != 0;
    let zero = value_lit(cx.out_class(0), 0.0);
    let k = match cx.op.operand(1) {
        None => "0".to_string(),
        Some(_) if cx.in_const(1).is_some() => const_ints(cx, 1)?.first().copied().unwrap_or(0).to_string(),
        Some(_) => String::new(),
    };
    let out = cx.begin(0);
    let k = if k.is_empty() {
        index_operand(cx, 1, "k")?;
        format!("i64::from({}[0])", cx.input(1)?)
    } else {
        k
    };
    let x = cx.input(0)?;
    cx.line(format!("k::generate::trilu({}, {upper}, {k}, {zero}, {x}, {out});", udims(&xs)));
    Ok(())
}

fn eye_like(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let ys = cx.out_static(0);
    let [rows, cols] = ys[..] else { return Err(format!("EyeLike: the input {ys:?} must be 2-D")) };
    let k = cx.op.attrs.int("k").unwrap_or(0);
    let c = cx.out_class(0);
    let (one, zero) = (value_lit(c, 1.0), value_lit(c, 0.0));
    let out = cx.begin(0);
    cx.line(format!("k::generate::eye_like({rows}, {cols}, {k}, {one}, {zero}, {out});"));
    Ok(())
}
