//! Contrib ops that are older or layout variants of standard ops: `Range`
//! (delta optional), `Trilu`, `GridSample` (opset-16 mode names) and
//! `NhwcMaxPool`; and `Inverse` through determinants.

use super::{copy_attrs, dtype, nhwc_perms, op, op1, rank, str_attr, transpose, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
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

/// `Inverse(X)` of `[..., n, n]` matrices (static `n`) as the adjugate over
/// the determinant: `inv[j, i] = (-1)^(i+j) det(minor(i, j)) / det(X)`, the
/// minors gathered with constant indices and batched through `onnx.Det`.
/// This is the closed form Eigen (ORT's kernel) uses up to 4×4; it needs no
/// pivoting, so it is defined exactly where the inverse is.
pub(super) fn inverse(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let x = ins.req(0, "X")?;
    let r = rank(cx, x, "X")?;
    let n = cx.ty(x).dims().and_then(|d| d.last()).and_then(|d| d.as_static());
    let n = n.ok_or("Inverse needs a static matrix size")? as i64;
    if r < 2 || n == 0 || n > 64 {
        return Err("Inverse needs [..., n, n] matrices with 0 < n <= 64".into());
    }
    let det = op1(cx, Opcode::Det, &[x])?;
    let axes = cx.const_i64s(&[-1, -2], "axes");
    let det = op1(cx, Opcode::Unsqueeze, &[det, axes])?;
    if n == 1 {
        let one = cx.scalar(dtype(cx, x), 1.0, "one")?;
        let y = op1(cx, Opcode::Div, &[one, x])?;
        cx.bind(&[y]);
        return Ok(());
    }
    // others[i] = every index but i: [n, n-1].
    let others: Vec<i64> = (0..n).flat_map(|i| (0..n).filter(move |&k| k != i)).collect();
    let idx = cx.constant(&Tensor::new(vec![n as usize, n as usize - 1], Data::I64(others)), "minor_indices");
    let at = |axis: i64| Attrs::new().with("axis", Attr::Int(axis));
    // [..., i, r, n] then [..., i, r, j, c]
    let rows = op(cx, Opcode::Gather, vec![Some(x), Some(idx)], at(r as i64 - 2))?;
    let minors = op(cx, Opcode::Gather, vec![Some(rows), Some(idx)], at(r as i64))?;
    let b = r as i64 - 2;
    let mut perm: Vec<i64> = (0..b).collect();
    perm.extend([b, b + 2, b + 1, b + 3]);
    let minors = transpose(cx, minors, &perm)?;
    let dets = op1(cx, Opcode::Det, &[minors])?;
    let signs: Vec<f64> = (0..n * n).map(|k| if (k / n + k % n) % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let signs = Tensor::new(vec![n as usize, n as usize], Data::F64(signs));
    let signs = ir::interp::eval_op(Opcode::Cast, &[Some(signs)], Attrs::new().with("to", Attr::Type(dtype(cx, x))), 1)
        .map_err(|e| format!("cannot make signs: {e}"))?;
    let signs = cx.constant(&signs[0], "cofactor_signs");
    let cof = op1(cx, Opcode::Mul, &[dets, signs])?;
    let mut tperm: Vec<i64> = (0..b).collect();
    tperm.extend([b + 1, b]);
    let adj = transpose(cx, cof, &tperm)?;
    let y = op1(cx, Opcode::Div, &[adj, det])?;
    cx.bind(&[y]);
    Ok(())
}
