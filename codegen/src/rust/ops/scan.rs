//! CumSum and CumProd (`k::misc::cum`) and BitCast (`k::ew::bitcast`).
//!
//! The scan axis must be a compile-time constant (a model input bound with
//! `--const`, or folded); the element types are those the kernels implement:
//! every integer of 8 to 64 bits and f32/f64/f16/bf16 for the scans, any
//! number or bool of equal width for BitCast.

use super::layout::{axis, const_ints};
use crate::plan::Class;
use crate::rust::func::OpCx;
use ir::Opcode;

/// Lower CumSum, CumProd or BitCast; `Ok(false)` if `op` is none of them.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::CumSum => cum(cx, "Sum")?,
        Opcode::CumProd => cum(cx, "Prod")?,
        Opcode::BitCast => bitcast(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn cum(cx: &mut OpCx<'_, '_>, fold: &str) -> Result<(), String> {
    let name = cx.op.opcode.name();
    if cx.out_class(0) == Class::Bool {
        return Err(format!("{name} on bool is not supported"));
    }
    let xs = cx.in_dims(0);
    let ax = match const_ints(cx, 1)?.as_slice() {
        [a] => axis(*a, xs.len())?,
        other => return Err(format!("{name}: the axis must be one integer, got {other:?}")),
    };
    let flag = |k: &str| cx.op.attrs.int(k).unwrap_or(0) != 0;
    let (exclusive, reverse) = (flag("exclusive"), flag("reverse"));
    let (outer, inner): (usize, usize) = (xs[..ax].iter().product(), xs[ax + 1..].iter().product());
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!(
        "k::misc::cum::cum(&k::misc::cum::Cum {{ fold: k::misc::cum::Fold::{fold}, outer: {outer}, n: {}, inner: {inner}, exclusive: {exclusive}, reverse: {reverse} }}, {x}, {out});",
        xs[ax]
    ));
    Ok(())
}

fn bitcast(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::ew::bitcast({x}, {out});"));
    Ok(())
}
