//! Contrib ops that are older or layout variants of standard ops: `Range`
//! (delta optional), `Trilu`, `GridSample` (opset-16 mode names) and
//! `NhwcMaxPool`.

use super::{copy_attrs, dtype, nhwc_perms, op, rank, str_attr, transpose, Ins};
use crate::frontend::onnx::convert::{NResult, NodeCx, NodeError};
use ir::{Attr, Attrs, Opcode};

/// `Range(start, limit, delta = 1)`, `Trilu(X, k)` and `GridSample(X, Grid)`.
pub(super) fn standard(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let y = match op_type {
        "Range" => {
            let (start, limit) = (ins.req(0, "start")?, ins.req(1, "limit")?);
            let delta = match ins.opt(2) {
                Some(d) => d,
                None => {
                    let dt = dtype(cx, start);
                    cx.scalar(dt, 1.0, "delta")?
                }
            };
            op(cx, Opcode::Range, vec![Some(start), Some(limit), Some(delta)], Attrs::new())?
        }
        "Trilu" => {
            let attrs = copy_attrs(cx, &["upper"], Attrs::new());
            op(cx, Opcode::Trilu, vec![Some(ins.req(0, "X")?), ins.opt(1)], attrs)?
        }
        _ => {
            let mode = match str_attr(cx, "mode", "bilinear").as_str() {
                "bilinear" | "linear" => "linear",
                "nearest" => "nearest",
                "bicubic" | "cubic" => "cubic",
                other => return Err(NodeError::Error(format!("GridSample mode `{other}` is not supported"))),
            };
            let attrs =
                copy_attrs(cx, &["align_corners", "padding_mode"], Attrs::new()).with("mode", Attr::Str(mode.into()));
            op(cx, Opcode::GridSample, vec![Some(ins.req(0, "X")?), Some(ins.req(1, "Grid")?)], attrs)?
        }
    };
    cx.bind(&[y]);
    Ok(())
}

/// `NhwcMaxPool(x)` → channels-first `MaxPool` between two transposes.
pub(super) fn nhwc_max_pool(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let x = ins.req(0, "x")?;
    let r = rank(cx, x, "x")?;
    if r < 3 {
        return Err("NhwcMaxPool needs an input of rank 3 or more".into());
    }
    let (first, last) = nhwc_perms(r);
    let xt = transpose(cx, x, &first)?;
    let attrs =
        copy_attrs(cx, &["auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides"], Attrs::new());
    let y = op(cx, Opcode::MaxPool, vec![Some(xt)], attrs)?;
    let y = transpose(cx, y, &last)?;
    cx.bind(&[y]);
    Ok(())
}
